/**
 * The build threads of the static site. Astro asks for one page at a time per route and renders it on its one
 * thread, which made rendering (the element's server render, the document, the feeds) the whole cost of a large
 * build; here each page is a job for one of PORCHLIGHT_BUILD_THREADS worker threads (default: one per core, at
 * most 8), so pages render in parallel while Astro writes the ones done. With 0 threads, they render on Astro's.
 */
import { Worker } from "node:worker_threads";
import { loadSiteConfig } from "./config.ts";
import { buildPage, type PageBuild, type PageJob } from "./page-files.ts";

/** A page's HTML as UTF-8, as a Response takes it. */
export type PageBytes = Uint8Array<ArrayBuffer>;

interface Thread {
  worker: Worker;
  /** Jobs sent and not answered: a thread with none does not keep the build's process alive. */
  pending: Map<number, { resolve: (html: PageBytes) => void; reject: (error: Error) => void }>;
}

/** The default's cap, with the reason for it (site/config.ts, where PORCHLIGHT_BUILD_THREADS is read). */
export { MAX_DEFAULT_THREADS } from "./config.ts";

/** PORCHLIGHT_BUILD_THREADS, a whole number from 0 to 999; default: the cores this process may use, at most 8. */
export function buildThreads(env: NodeJS.ProcessEnv = process.env): number {
  return loadSiteConfig(env).buildThreads;
}

export class PagePool {
  #threads: Thread[] = [];
  #nextId = 1;
  /** Why a thread stopped: then every page fails, as the first did, rather than render on with fewer threads. */
  #broken?: Error;

  /**
   * `workerFile` is site/page-worker.mjs, the source's own entry: the build's bundle of this code has none a
   * thread could start from.
   */
  constructor(threads: number, workerFile: string) {
    for (let i = 0; i < threads; i++) {
      const worker = new Worker(workerFile);
      const thread: Thread = { worker, pending: new Map() };
      worker.unref();
      worker.on("message", ({ id, html, error }: { id: number; html?: PageBytes; error?: string }) => {
        const job = thread.pending.get(id);
        thread.pending.delete(id);
        if (thread.pending.size === 0) worker.unref();
        if (error !== undefined || !html) job?.reject(new Error(error ?? "a build thread answered without a page"));
        else job?.resolve(html);
      });
      // A thread that dies fails the pages it had; the build stops at the first.
      const fail = (error: Error) => {
        this.#broken ??= error;
        for (const job of thread.pending.values()) job.reject(error);
        thread.pending.clear();
        this.#threads = this.#threads.filter((t) => t !== thread);
      };
      worker.on("error", fail);
      worker.on("exit", (code) => fail(new Error(`a build thread stopped (exit code ${code})`)));
      this.#threads.push(thread);
    }
  }

  /** The page's HTML as UTF-8; its feeds and snapshot are written by then. */
  render(job: PageJob, build: PageBuild): Promise<PageBytes> {
    if (this.#broken) return Promise.reject(this.#broken);
    // The thread with the fewest jobs waiting: pages differ in size.
    const thread = this.#threads.reduce<Thread | undefined>(
      (best, t) => (best && best.pending.size <= t.pending.size ? best : t),
      undefined,
    );
    if (!thread) return Promise.resolve(new TextEncoder().encode(buildPage(job, build)));
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      if (thread.pending.size === 0) thread.worker.ref();
      thread.pending.set(id, { resolve, reject });
      thread.worker.postMessage({ id, job, build });
    });
  }

  /** Stops the threads (a build's process ends without this: idle threads do not keep it alive). */
  async close(): Promise<void> {
    await Promise.all(this.#threads.map((thread) => thread.worker.terminate()));
  }
}
