import type { ReactiveController, ReactiveControllerHost } from "lit";
import { ApiProblem, api } from "./api.ts";

/**
 * How often a live screen asks for changes. Polling with an ETag, not server-sent events: a 304 costs the server
 * one serialization and no bytes on the wire, it works through every proxy and with any number of server processes
 * on PostgreSQL (events would need one process to tell the others), and the engine's shortest check interval is
 * 30 s, so 5 s shows a change well within one check.
 */
export const POLL_MS = 5000;

export interface PollOptions {
  /** The address to poll, read after every render: a new address (another site's id) is fetched at once. */
  url: () => string | null;
  intervalMs?: number;
}

/**
 * The one polling loop of every live screen: fetches `url` now and then every `intervalMs` with If-None-Match (a
 * 304 keeps what is shown), pauses while the tab is hidden and catches up when it is shown again, aborts a request
 * that a newer one supersedes, and stops when the screen leaves the page. A failed round keeps the last value and
 * reports the problem; the next round tries again.
 */
export class PollController<T> implements ReactiveController {
  /** The latest answer; undefined until the first arrives (and again while a new address loads). */
  value: T | undefined;
  /** The last round's problem, cleared by the next good round. */
  error: unknown;
  /** When the value was last confirmed current (ms since the epoch), for "updated 3 s ago". */
  updatedAt = 0;

  readonly #host: ReactiveControllerHost;
  readonly #options: PollOptions;
  #url: string | null = null;
  #etag: string | null = null;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #abort: AbortController | undefined;
  #connected = false;

  constructor(host: ReactiveControllerHost, options: PollOptions) {
    this.#host = host;
    this.#options = options;
    host.addController(this);
  }

  hostConnected(): void {
    this.#connected = true;
    document.addEventListener("visibilitychange", this.#onVisibility);
    if (this.#url !== null) void this.refresh();
  }

  hostDisconnected(): void {
    this.#connected = false;
    document.removeEventListener("visibilitychange", this.#onVisibility);
    clearTimeout(this.#timer);
    this.#abort?.abort();
  }

  hostUpdated(): void {
    const url = this.#options.url();
    if (url === this.#url) return;
    this.#url = url;
    this.#etag = null;
    this.value = undefined;
    this.error = undefined;
    if (url === null) {
      clearTimeout(this.#timer);
      this.#abort?.abort();
      return;
    }
    void this.refresh();
  }

  /** Asks now (after an edit, say) rather than at the next round; the round after follows the interval. */
  async refresh(): Promise<void> {
    const url = this.#url;
    clearTimeout(this.#timer);
    this.#abort?.abort();
    if (url === null || !this.#connected) return;
    const abort = new AbortController();
    this.#abort = abort;
    try {
      const reply = await api<T>("GET", url, undefined, { etag: this.#etag, signal: abort.signal });
      if (abort.signal.aborted) return;
      if (!reply.notModified) {
        this.value = reply.data;
        this.#etag = reply.etag;
      }
      this.error = undefined;
      this.updatedAt = Date.now();
    } catch (error) {
      if (abort.signal.aborted) return;
      this.error = error;
      // A thing that is gone stays gone: no point asking every 5 s.
      if (error instanceof ApiProblem && error.status === 404) {
        this.#host.requestUpdate();
        return;
      }
    }
    this.#host.requestUpdate();
    if (!document.hidden) this.#timer = setTimeout(() => void this.refresh(), this.#options.intervalMs ?? POLL_MS);
  }

  readonly #onVisibility = () => {
    if (document.hidden) clearTimeout(this.#timer);
    else void this.refresh();
  };
}
