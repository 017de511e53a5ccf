// @vitest-environment happy-dom
/**
 * The status controller on its own: a plain host (no element, no rendering) and a clock the test moves by hand, so
 * every wait is exact and no global timer is faked. Lit's calls are made by hand too: hostConnected, then
 * hostUpdated as after each render.
 */
import { describe, expect, test, vi } from "vitest";
import type { ErrorDetail, LoadDetail } from "../../../components/porchlight-status/events.ts";
import {
  type Clock,
  StatusController,
  type StatusHost,
} from "../../../components/porchlight-status/status-controller.ts";
import {
  type Answer,
  API,
  answers,
  type Call,
  calls,
  cleanups,
  DomResponse,
  json,
  page,
  problem,
  SLUG,
  stubFetch,
} from "./helpers.ts";

const SECOND = 1000;
const MINUTE = 60 * SECOND;

/** A clock that stands still until `advance` moves it, running each timer as it falls due, in order. */
class ManualClock implements Clock {
  #now = Date.UTC(2026, 10, 21, 12);
  #next = 1;
  #timers = new Map<number, { at: number; run: () => void }>();

  now(): number {
    return this.#now;
  }

  setTimeout(run: () => void, ms: number): number {
    const id = this.#next++;
    // As in a browser, a delay below 0 runs at once.
    this.#timers.set(id, { at: this.#now + Math.max(0, ms), run });
    return id;
  }

  clearTimeout(timer: unknown): void {
    this.#timers.delete(timer as number);
  }

  advance(ms: number): void {
    const end = this.#now + ms;
    for (;;) {
      const due = [...this.#timers]
        .filter(([, timer]) => timer.at <= end)
        .sort(([a, x], [b, y]) => x.at - y.at || a - b);
      const first = due[0];
      if (!first) break;
      this.#timers.delete(first[0]);
      this.#now = first[1].at;
      first[1].run();
    }
    this.#now = end;
  }

  /** In how many ms each pending timer falls due. */
  pending(): number[] {
    return [...this.#timers.values()].map((timer) => timer.at - this.#now);
  }
}

/** What the controller needs of an element, and no more; its renders are counted. */
class Host extends EventTarget implements StatusHost {
  slug = SLUG;
  apiBase = API;
  refresh = 60;
  rememberPassword = false;
  isConnected = false;
  hasUpdated = false;
  renders = 0;
  readonly status: StatusController;

  constructor(readonly clock: ManualClock) {
    super();
    this.status = new StatusController(this, clock);
  }

  addController(): void {}
  removeController(): void {}
  requestUpdate(): void {
    this.renders++;
  }
  get updateComplete(): Promise<boolean> {
    return Promise.resolve(true);
  }
  reload(): void {
    this.status.load();
  }

  /** In a document and rendered: what Lit does for an element added to a page. */
  connect(): void {
    this.isConnected = true;
    this.status.hostConnected();
    this.status.hostUpdated();
    this.hasUpdated = true;
  }

  disconnect(): void {
    this.isConnected = false;
    this.status.hostDisconnected();
  }

  /** A property changed: Lit renders, then calls hostUpdated. */
  set(change: Partial<Pick<Host, "slug" | "apiBase" | "refresh">>): void {
    Object.assign(this, change);
    this.status.hostUpdated();
  }
}

/** The stubbed fetch's answer and the controller's handling of it (promise callbacks, the body read). */
async function flush(): Promise<void> {
  for (let i = 0; i < 12; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** A connected host with a manual clock, disconnected after the test so no document listener stays. */
async function start(change: Partial<Pick<Host, "slug" | "apiBase" | "refresh">> = {}) {
  const clock = new ManualClock();
  const host = new Host(clock);
  Object.assign(host, change);
  host.connect();
  cleanups.push(() => host.disconnect());
  await flush();
  return { clock, host, status: host.status };
}

/** Makes document.hidden answer `hidden` and tells the document it changed (the afterEach restores the getter). */
function setHidden(hidden: boolean): void {
  Object.defineProperty(document, "hidden", { configurable: true, get: () => hidden });
  document.dispatchEvent(new Event("visibilitychange"));
}

const PAGE = () => json(page());
const SERVER_ERROR = () => json({ success: false, message: "boom", code: 500, error: "internal" }, 500);
const NETWORK = () => new TypeError("Failed to fetch");
const NOT_MODIFIED = () => new DomResponse(null, { status: 304 });
const RATE_LIMITED = () => problem(429, "rate_limited", { "Retry-After": "30" });
const PASSWORD = () => problem(401, "password_required");
const NOT_FOUND = () => problem(404, "not_found");

describe("the controller's clock: the refresh interval", () => {
  test.each([
    ["the default, 60 s", 60, 60 * SECOND],
    ["30 s", 30, 30 * SECOND],
    ["the least, 10 s", 10, 10 * SECOND],
    ["9 s waits 10 s", 9, 10 * SECOND],
    ["2 s waits 10 s", 2, 10 * SECOND],
    ["0 never refreshes", 0, null],
    ["below 0 never refreshes", -5, null],
    ["not a number never refreshes", Number.NaN, null],
  ])("refresh %s", async (_name, refresh, wait) => {
    answers(PAGE);
    const { clock } = await start({ refresh });
    expect(calls).toHaveLength(1);
    if (wait === null) {
      expect(clock.pending()).toEqual([]);
      clock.advance(24 * 60 * MINUTE);
      expect(calls).toHaveLength(1);
      return;
    }
    expect(clock.pending()).toEqual([wait]);
    clock.advance(wait - 1);
    expect(calls).toHaveLength(1);
    clock.advance(1);
    expect(calls).toHaveLength(2);
    await flush();
    // Measured from the new attempt.
    expect(clock.pending()).toEqual([wait]);
  });

  test.each([
    ["shorter: due sooner, from the last attempt", 60, 30, 20 * SECOND, 10 * SECOND],
    ["longer: due later, from the last attempt", 60, 120, 20 * SECOND, 100 * SECOND],
    ["shorter than the time gone: due at once", 60, 10, 20 * SECOND, 0],
    ["to 0: no refresh", 60, 0, 20 * SECOND, null],
    ["from 0: refreshing again", 0, 60, 20 * SECOND, 40 * SECOND],
  ])("changing refresh, %s", async (_name, from, to, after, wait) => {
    answers(PAGE);
    const { clock, host } = await start({ refresh: from });
    clock.advance(after);
    expect(calls).toHaveLength(1);
    host.set({ refresh: to });
    expect(clock.pending()).toEqual(wait === null ? [] : [wait]);
    if (wait === null) return;
    clock.advance(wait);
    expect(calls).toHaveLength(2);
  });

  test("a render that changes no refresh leaves the timer alone", async () => {
    answers(PAGE);
    const { clock, host, status } = await start();
    const setTimeout = vi.spyOn(clock, "setTimeout");
    clock.advance(20 * SECOND);
    status.hostUpdated();
    host.set({ slug: SLUG });
    expect(setTimeout).not.toHaveBeenCalled();
    expect(clock.pending()).toEqual([40 * SECOND]);
  });

  test("updatedAt is the clock's time of the last answer, a 304 included", async () => {
    answers(PAGE, NOT_MODIFIED);
    const { clock, status } = await start();
    const first = clock.now();
    expect(status.updatedAt).toBe(first);
    clock.advance(60 * SECOND);
    await flush();
    expect(status.updatedAt).toBe(first + 60 * SECOND);
  });
});

describe("the controller's clock: backoff", () => {
  // Each answer in turn, and the wait it leaves before the next attempt (null: none, nothing is polled).
  test.each<[string, (() => Answer)[], (number | null)[]]>([
    ["server errors double the wait", [PAGE, SERVER_ERROR, SERVER_ERROR, SERVER_ERROR], [60, 120, 240, 480]],
    ["network failures double it too", [PAGE, NETWORK, NETWORK], [60, 120, 240]],
    [
      "it stops at 16 times the interval",
      [PAGE, NETWORK, NETWORK, NETWORK, NETWORK, NETWORK, NETWORK],
      [60, 120, 240, 480, 960, 960, 960],
    ],
    ["a success resets it", [PAGE, SERVER_ERROR, NETWORK, PAGE, SERVER_ERROR], [60, 120, 240, 60, 120]],
    ["a 304 is a success", [PAGE, SERVER_ERROR, NOT_MODIFIED, NOT_MODIFIED], [60, 120, 60, 60]],
    ["a first load that fails is retried, backing off", [SERVER_ERROR, NETWORK, PAGE], [120, 240, 60]],
    ["rate limited keeps the page and the interval", [PAGE, RATE_LIMITED, PAGE], [60, 60, 60]],
    ["a page that needs a password is not polled", [PASSWORD], [null]],
    ["rate limited with no page is not polled", [RATE_LIMITED], [null]],
    ["a page that is gone is not polled", [PAGE, NOT_FOUND], [60, null]],
  ])("%s", async (_name, list, waits) => {
    answers(...list);
    const { clock } = await start();
    for (const [i, wait] of waits.entries()) {
      expect(calls, `attempt ${i + 1}`).toHaveLength(i + 1);
      if (wait === null) {
        expect(clock.pending(), `after answer ${i + 1}`).toEqual([]);
        clock.advance(24 * 60 * MINUTE);
        expect(calls).toHaveLength(i + 1);
        break;
      }
      expect(clock.pending(), `after answer ${i + 1}`).toEqual([wait * SECOND]);
      clock.advance(wait * SECOND - 1);
      expect(calls, `${wait} s less 1 ms after answer ${i + 1}`).toHaveLength(i + 1);
      clock.advance(1);
      await flush();
    }
  });

  test("the wait counts from when the attempt started, not from when its answer came", async () => {
    let release: (answer: Response) => void = () => {};
    stubFetch((_call, index) => (index === 0 ? PAGE() : new Promise<Response>((done) => (release = done))));
    const { clock } = await start();
    clock.advance(60 * SECOND);
    expect(calls).toHaveLength(2);
    await flush();
    clock.advance(15 * SECOND);
    release(SERVER_ERROR());
    await flush();
    expect(clock.pending()).toEqual([(120 - 15) * SECOND]);
  });
});

describe("the controller: abort of a superseded request", () => {
  /**
   * A fetch whose requests wait for the test to answer them and ignore their abort, like an answer already on its
   * way when a newer request supersedes it: only the controller can then keep the late answer out.
   */
  function heldFetch() {
    const held: { url: string; signal: AbortSignal; answer: (response: Response) => void }[] = [];
    vi.stubGlobal(
      "fetch",
      (input: RequestInfo | URL, init: RequestInit = {}) =>
        new Promise<Response>((answer) =>
          held.push({ url: String(input), signal: init.signal as AbortSignal, answer }),
        ),
    );
    return held;
  }

  test.each<[string, (host: Host) => void, string]>([
    ["reload()", (host) => host.reload(), `${API}/public/v1/status-page/${SLUG}`],
    ["a new slug", (host) => host.set({ slug: "other" }), `${API}/public/v1/status-page/other`],
    [
      "a new api-base",
      (host) => host.set({ apiBase: "https://elsewhere.test/" }),
      `https://elsewhere.test/public/v1/status-page/${SLUG}`,
    ],
  ])("%s aborts the running request and ignores its late answer", async (_name, supersede, url) => {
    const held = heldFetch();
    const loads: LoadDetail[] = [];
    const errors: ErrorDetail[] = [];
    const { host, status } = await start();
    host.addEventListener("porchlight-load", (event) => loads.push((event as CustomEvent<LoadDetail>).detail));
    host.addEventListener("porchlight-error", (event) => errors.push((event as CustomEvent<ErrorDetail>).detail));
    expect(held).toHaveLength(1);

    supersede(host);
    expect(held).toHaveLength(2);
    const [first, second] = held as [(typeof held)[0], (typeof held)[0]];
    expect(first.signal.aborted).toBe(true);
    expect(second.signal.aborted).toBe(false);
    expect(second.url).toBe(url);

    second.answer(json(page({ name: "Fresh" })));
    await flush();
    first.answer(json(page({ name: "Stale" })));
    await flush();
    expect(status.page?.name).toBe("Fresh");
    expect(loads.map((detail) => detail.page.name)).toEqual(["Fresh"]);
    expect(errors).toEqual([]);
  });

  test("an aborted request's rejection is no error", async () => {
    // Like a real fetch: the abort rejects it with an AbortError.
    stubFetch((call) => new Promise<Response>((_done, fail) => call.init.signal?.addEventListener("abort", fail)));
    const errors: ErrorDetail[] = [];
    const { host, status } = await start();
    host.addEventListener("porchlight-error", (event) => errors.push((event as CustomEvent<ErrorDetail>).detail));
    host.reload();
    await flush();
    expect((calls[0] as Call).init.signal?.aborted).toBe(true);
    expect(errors).toEqual([]);
    expect(status.problem).toBeUndefined();
  });

  test("leaving the document aborts the request and stops refreshing; coming back fetches at once", async () => {
    answers(PAGE, () => new Promise<Answer>(() => {}), PAGE);
    const { clock, host } = await start();
    clock.advance(60 * SECOND);
    expect(calls).toHaveLength(2);
    host.disconnect();
    expect((calls[1] as Call).init.signal?.aborted).toBe(true);
    expect(clock.pending()).toEqual([]);
    clock.advance(60 * MINUTE);
    expect(calls).toHaveLength(2);

    host.connect();
    expect(calls).toHaveLength(3);
    await flush();
    expect(clock.pending()).toEqual([60 * SECOND]);
  });
});

describe("the controller's clock: visibility", () => {
  // The page arrives at 0 s; the document hides and shows again; when the next refresh comes.
  test.each([
    ["shown again before the refresh was due: it keeps its time", 10, 30, 60],
    ["shown again after it was due: at once", 10, 300, 300],
    ["hidden just before it was due, shown long after: at once", 59, 3600, 3600],
  ])("%s", async (_name, hideAt, showAt, refreshAt) => {
    answers(PAGE);
    const { clock, host } = await start();
    clock.advance(hideAt * SECOND);
    const renders = host.renders;
    setHidden(true);
    expect(clock.pending()).toEqual([]);
    expect(host.renders).toBe(renders);
    clock.advance((showAt - hideAt) * SECOND);
    expect(calls).toHaveLength(1);

    setHidden(false);
    // Showing again asks for a render: "Updated … ago" has moved on.
    expect(host.renders).toBe(renders + 1);
    expect(clock.pending()).toEqual([(refreshAt - showAt) * SECOND]);
    clock.advance((refreshAt - showAt) * SECOND);
    expect(calls).toHaveLength(2);
    await flush();
    expect(clock.pending()).toEqual([60 * SECOND]);
  });

  test("an answer that arrives while hidden sets no timer; showing again does, backing off after a failure", async () => {
    let release: (answer: Response) => void = () => {};
    stubFetch((_call, index) => (index === 0 ? PAGE() : new Promise<Response>((done) => (release = done))));
    const { clock } = await start();
    clock.advance(60 * SECOND);
    expect(calls).toHaveLength(2);
    await flush();
    setHidden(true);
    release(SERVER_ERROR());
    await flush();
    expect(clock.pending()).toEqual([]);
    clock.advance(60 * SECOND);
    setHidden(false);
    expect(clock.pending()).toEqual([60 * SECOND]);
  });

  test("a controller that left the document no longer hears visibility changes", async () => {
    answers(PAGE);
    const { clock, host } = await start();
    host.disconnect();
    const renders = host.renders;
    setHidden(true);
    setHidden(false);
    expect(host.renders).toBe(renders);
    expect(clock.pending()).toEqual([]);
    expect(calls).toHaveLength(1);
  });
});

describe("the controller: a hosted page's inlined answer, adopted", () => {
  test.each([
    ["just rendered: the first request at the interval", 0, 60 * SECOND],
    ["20 s old: the rest of the interval", 20 * SECOND, 40 * SECOND],
    ["kept by the browser for an hour (back and forward): at once", 60 * MINUTE, 0],
  ])("%s, with If-None-Match", async (_name, age, wait) => {
    answers(NOT_MODIFIED);
    const clock = new ManualClock();
    const host = new Host(clock);
    host.status.page = page();
    host.status.adopt('W/"inlined"', clock.now() - age);
    host.connect();
    cleanups.push(() => host.disconnect());
    await flush();
    if (wait > 0) {
      expect(calls).toHaveLength(0);
      expect(clock.pending()).toEqual([wait]);
    }
    clock.advance(wait);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.headers.get("if-none-match")).toBe('W/"inlined"');
  });
});
