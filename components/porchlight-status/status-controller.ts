import type { ReactiveController, ReactiveControllerHost } from "lit";
import type { ErrorPage } from "../../server/contract/common.ts";
import { overallStatus } from "../../server/contract/status.ts";
import type { PublicStatusPage } from "../../server/contract/status-page.ts";
import { fetchStatusPage, type PageResult, type Problem } from "./client.ts";
import type { ErrorDetail, LoadDetail, StatusChangeDetail } from "./events.ts";

/** The time the controller reads and the timers it sets: the real ones, or a test's. */
export interface Clock {
  /** Milliseconds since the epoch, as `Date.now()`. */
  now(): number;
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(timer: unknown): void;
}

/** Looked up at each call, so fake timers installed after this module loaded still apply. */
const REAL_CLOCK: Clock = {
  now: () => Date.now(),
  setTimeout: (run, ms) => setTimeout(run, ms),
  clearTimeout: (timer) => clearTimeout(timer as number),
};

/** What the controller needs of its element: the attributes that say what to fetch and how often. */
export interface StatusHost extends ReactiveControllerHost, EventTarget {
  readonly slug: string;
  /** The server; empty: the origin this script came from. */
  readonly apiBase: string;
  /** Seconds between refreshes; 0 never refreshes. */
  readonly refresh: number;
  readonly rememberPassword: boolean;
  readonly isConnected: boolean;
  /** Whether the host has rendered once: a host added back to a document fetches at once. */
  readonly hasUpdated: boolean;
  /** Fetches now: each fetch (first, scheduled, on a change of page, back in a document) goes through it. */
  reload(): void;
}

/** The origin this script was loaded from: the default API base. */
const SCRIPT_ORIGIN = /^https?:/.test(import.meta.url) ? new URL(import.meta.url).origin : "";

const MIN_REFRESH_SECONDS = 10;
/** After failures the wait doubles, up to 16 times the refresh interval. */
const MAX_BACKOFF_DOUBLINGS = 4;

/**
 * Keeps a status page current for its element: fetches it (client.ts), aborting a request a newer one supersedes,
 * sends the last ETag so an unchanged page costs a 304, refreshes every `refresh` seconds while a page shows (none
 * while the document is hidden, at once when it shows again if a refresh is overdue), backs off after failures, and
 * keeps a page's password (in sessionStorage too with `remember-password`). It fires the element's events on the
 * host and asks the host to render; the host reads what to show from `page`, `problem`, `updatedAt`, `retryAfter`
 * and `failing`.
 */
export class StatusController implements ReactiveController {
  // Written only here (and by the host's `prerendered`, before the first request); the host renders from them.
  /** The page shown: the API's last answer for it, kept while a refresh fails or is rate limited. */
  page: PublicStatusPage | undefined;
  /** Why the last request brought no page: the API's error kind, `server`, or `network`; none after a success. */
  problem: Problem | "network" | undefined;
  /** A password page's name, logo and accent from its 401, for the prompt; kept while a 429 says nothing of them. */
  prompt: ErrorPage | undefined;
  /** When the page shown was current (epoch ms). */
  updatedAt = 0;
  /** The Retry-After of the last rate-limited answer, in seconds; 0 when it named none. */
  retryAfter = 0;
  /** Set when a password was refused; the host moves the focus to the password field and clears it. */
  focusPassword = false;

  readonly #host: StatusHost;
  readonly #clock: Clock;
  /** The page being fetched: the base and slug it came from. */
  #key = "";
  /** Where remember-password keeps this page's password for the browser session. */
  #stored = "";
  #etag: string | null = null;
  #password = "";
  #failures = 0;
  #lastAttempt = 0;
  /** The `refresh` the timer was last set for (none before the first render). */
  #refresh?: number;
  #request?: AbortController;
  #timer?: unknown;

  constructor(host: StatusHost, clock: Clock = REAL_CLOCK) {
    this.#host = host;
    this.#clock = clock;
    host.addController(this);
  }

  /** The server: api-base without its trailing slashes, else where this script came from. */
  get base(): string {
    return (this.#host.apiBase || SCRIPT_ORIGIN).replace(/\/+$/, "");
  }

  /** Whether the last request failed (a server error or the network), while what was shown before stays. */
  get failing(): boolean {
    return this.problem === "server" || this.problem === "network";
  }

  hostConnected(): void {
    document.addEventListener("visibilitychange", this.#onVisibility);
    // Back in a document: the removal stopped refreshing and aborted any request.
    if (this.#host.hasUpdated) this.#host.reload();
  }

  hostDisconnected(): void {
    document.removeEventListener("visibilitychange", this.#onVisibility);
    this.#clock.clearTimeout(this.#timer);
    this.#request?.abort();
  }

  hostUpdated(): void {
    // The first render, and every change of page (slug, api-base), fetches it.
    if (this.#key !== `${this.base}/${this.#host.slug}`) this.#host.reload();
    if (!Object.is(this.#refresh, this.#host.refresh)) {
      this.#refresh = this.#host.refresh;
      this.#schedule();
    }
  }

  /**
   * Takes the page set before the first render (a hosted page's, inlined with the document) as the API's answer
   * just received with this ETag: no request follows at once, the first one comes at the refresh interval and
   * sends If-None-Match, so an unchanged page costs a 304. `at` is when the data was current: a document the
   * browser kept (back and forward) may be older than the interval, and then the request goes out at once.
   */
  adopt(etag: string, at: number): void {
    this.#enter(this.base, this.#host.slug);
    this.#etag = etag;
    this.#lastAttempt = Math.min(this.#clock.now(), at);
  }

  /** Fetches the page now; a request still running is aborted, its answer ignored. */
  load(): void {
    this.#request?.abort();
    const request = new AbortController();
    this.#request = request;
    const apiBase = this.base;
    const slug = this.#host.slug;
    this.#enter(apiBase, slug);
    this.#lastAttempt = this.#clock.now();
    fetchStatusPage({ apiBase, slug, password: this.#password, etag: this.#etag, signal: request.signal }).then(
      (result) => request === this.#request && this.#received(result),
      (error) => request === this.#request && this.#failed(error),
    );
  }

  /** Makes this page the one fetched, when it is another: nothing of the last one stays. */
  #enter(apiBase: string, slug: string): void {
    if (this.#key === `${apiBase}/${slug}`) return;
    // On the first run, a prerendered page is this one.
    if (this.#key) {
      this.page = this.problem = this.prompt = undefined;
      this.#etag = null;
      this.#failures = 0;
    }
    this.#key = `${apiBase}/${slug}`;
    this.#stored = `porchlight:${this.#key}`;
    this.#password = (this.#host.rememberPassword && this.#storage((s) => s.getItem(this.#stored))) || "";
  }

  /** Sends this password from now on, fetching at once. */
  usePassword(password: string): void {
    this.#password = password;
    this.#host.reload();
  }

  #received(result: PageResult): void {
    if (result.kind === "problem") {
      const { problem } = result;
      this.problem = problem;
      this.retryAfter = result.retryAfterSeconds;
      this.prompt = result.prompt ?? this.prompt;
      if (problem === "server") this.#failures++;
      else if (problem !== "rate_limited") this.page = undefined;
      if (problem === "password_incorrect") {
        this.#password = "";
        if (this.#host.rememberPassword) this.#storage((s) => s.removeItem(this.#stored));
        this.focusPassword = true;
      }
      this.#emit<ErrorDetail>("porchlight-error", { problem, httpStatus: result.status, message: result.message });
    } else {
      this.problem = undefined;
      this.#failures = 0;
      this.updatedAt = this.#clock.now();
      if (result.kind === "page") {
        const { page } = result;
        const previous = this.page && overallStatus(this.page.items);
        const status = overallStatus(page.items);
        this.page = page;
        this.#etag = result.etag;
        if (this.#host.rememberPassword) this.#storage((s) => s.setItem(this.#stored, this.#password));
        this.#emit<LoadDetail>("porchlight-load", { status, page });
        if (previous && previous !== status) {
          this.#emit<StatusChangeDetail>("porchlight-status-change", { status, previous });
        }
      }
    }
    if (!this.page) this.#etag = null;
    this.#schedule();
    this.#host.requestUpdate();
  }

  #failed(error: unknown): void {
    if ((error as Error).name === "AbortError") return;
    this.problem = "network";
    this.#failures++;
    this.#emit<ErrorDetail>("porchlight-error", { problem: "network", httpStatus: 0, message: String(error) });
    this.#schedule();
    this.#host.requestUpdate();
  }

  /** sessionStorage, which sandboxed frames and strict privacy settings refuse: then nothing is remembered. */
  #storage<T>(use: (storage: Storage) => T): T | undefined {
    try {
      return use(sessionStorage);
    } catch {
      return undefined;
    }
  }

  /** Fires one of the element's events on the host: it bubbles and leaves the shadow root (composed). */
  #emit<D extends { slug: string }>(type: keyof HTMLElementEventMap, detail: Omit<D, "slug">): void {
    this.#host.dispatchEvent(
      new CustomEvent(type, { detail: { slug: this.#host.slug, ...detail }, bubbles: true, composed: true }),
    );
  }

  /** The next refresh: every `refresh` seconds while a page shows, backing off after failures, never while hidden. */
  #schedule(): void {
    const clock = this.#clock;
    const refresh = this.#host.refresh;
    clock.clearTimeout(this.#timer);
    if (!this.#host.isConnected || document.hidden || !(refresh > 0) || !(this.page || this.failing)) return;
    const delay = Math.max(refresh, MIN_REFRESH_SECONDS) * 1000 * 2 ** Math.min(this.#failures, MAX_BACKOFF_DOUBLINGS);
    this.#timer = clock.setTimeout(() => this.#host.reload(), this.#lastAttempt + delay - clock.now());
  }

  #onVisibility = () => {
    this.#schedule();
    if (!document.hidden) this.#host.requestUpdate();
  };
}
