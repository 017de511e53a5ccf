/**
 * A build thread: renders the pages the build sends it (buildPage) and answers each with its HTML as UTF-8 bytes,
 * whose buffer moves to the build without a copy. A page that fails answers with the error's message.
 */
import { parentPort } from "node:worker_threads";
import { buildPage, type PageBuild, type PageJob } from "./page-files.ts";

const port = parentPort;
if (!port) throw new Error("site/page-worker.ts runs as a worker thread of the site build");

port.on("message", ({ id, job, build }: { id: number; job: PageJob; build: PageBuild }) => {
  try {
    const html = Buffer.from(buildPage(job, build));
    // A Buffer this large owns its ArrayBuffer (small ones share Node's pool and must not be moved).
    const bytes = new Uint8Array(html.buffer, html.byteOffset, html.byteLength);
    port.postMessage({ id, html: bytes }, html.byteLength === html.buffer.byteLength ? [html.buffer] : []);
  } catch (error) {
    port.postMessage({ id, error: `status page "${job.slug}": ${(error as Error).stack ?? error}` });
  }
});
