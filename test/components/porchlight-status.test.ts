// @vitest-environment happy-dom
import "../../components/porchlight-status/index.ts";
import { type ChildProcess, spawn } from "node:child_process";
import { dirname, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test, vi } from "vitest";
import { passwordHeaderValue } from "../../components/porchlight-status/client.ts";
import { MESSAGES, messagesFor } from "../../components/porchlight-status/messages.ts";
import {
  type ErrorDetail,
  type LoadDetail,
  type OverallStatus,
  overallStatus,
  PorchlightStatus,
  type StatusChangeDetail,
} from "../../components/porchlight-status/porchlight-status.ts";
import type { Incident, ItemStatus, PublicItem, PublicStatusPage } from "../../server/contract/status-page.ts";

// This environment's Response and Headers are happy-dom's, as the element's own fetch would give it.
const DomResponse = globalThis.Response;
const DomHeaders = globalThis.Headers;

const API = "https://status.example.test";
const SLUG = "acme";
const PAGE_URL = `${API}/public/v1/status-page/${SLUG}`;
const MINUTE = 60_000;
const DAY = 86_400_000;

/** A UTC calendar date `daysAgo` days before now, as the API writes history dates. */
const isoDay = (daysAgo: number) => new Date(Date.now() - daysAgo * DAY).toISOString().slice(0, 10);

function item(overrides: Partial<PublicItem> = {}): PublicItem {
  return {
    id: 1,
    label: "API",
    type: "website",
    status: "operational",
    uptime: 99.5,
    response_time: 120,
    last_check: new Date(Date.now() - 5 * MINUTE).toISOString(),
    history: [],
    ...overrides,
  };
}

function page(overrides: Partial<PublicStatusPage> = {}): PublicStatusPage {
  return {
    name: "Acme Status",
    slug: SLUG,
    description: "Everything Acme runs.",
    visibility: "public",
    custom_domain: null,
    theme: { mode: "auto", accentColor: "#2563eb" },
    display: { historyDays: 7, showUptime: true, showResponseTime: true, showIncidents: true },
    items: [item()],
    incidents: [],
    ...overrides,
  };
}

/** A page whose items have these statuses. */
const pageWith = (...statuses: ItemStatus[]) =>
  page({ items: statuses.map((status, i) => item({ id: i + 1, label: `Service ${i}`, status })) });

const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new DomResponse(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
  });
/** The API's error envelope. */
const problem = (status: number, error: string, headers: Record<string, string> = {}) =>
  json({ success: false, message: `The API says ${error}`, code: status, error }, status, headers);

type Answer = Response | Error;
interface Call {
  url: string;
  init: RequestInit;
  headers: Headers;
}

let calls: Call[] = [];

/**
 * Replaces fetch: each request is recorded and answered by `respond`, which sees the request's index (0 first).
 * Like a real fetch, an aborted signal rejects with its reason.
 */
function stubFetch(respond: (call: Call, index: number) => Answer | Promise<Answer>) {
  calls = [];
  const mock = vi.fn((input: RequestInfo | URL, init: RequestInit = {}) => {
    const call: Call = { url: String(input), init, headers: new DomHeaders(init.headers) };
    const index = calls.push(call) - 1;
    return new Promise<Response>((resolve, reject) => {
      const signal = init.signal;
      if (signal?.aborted) return reject(signal.reason);
      signal?.addEventListener("abort", () => reject(signal.reason));
      Promise.resolve()
        .then(() => respond(call, index))
        .then((answer) => (answer instanceof Error ? reject(answer) : resolve(answer)), reject);
    });
  });
  vi.stubGlobal("fetch", mock);
  return mock;
}

/** Answers in order; the last answer repeats. Each is a function, since a Response body can be read once. */
const answers = (...list: (() => Answer | Promise<Answer>)[]) =>
  stubFetch((_call, index) => (list[Math.min(index, list.length - 1)] as () => Answer)());

/**
 * Lets the stubbed fetch, the response body and Lit's update run (setImmediate is never faked here), then, with
 * real timers, the frame after which the daily bars render.
 */
async function settle(el: PorchlightStatus): Promise<void> {
  for (let i = 0; i < 12; i++) await new Promise((resolve) => setImmediate(resolve));
  await el.updateComplete;
  if (vi.isFakeTimers()) return;
  await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve)));
  await el.updateComplete;
}

async function mount(
  attributes: Record<string, string | boolean> = {},
  tag = "porchlight-status",
): Promise<PorchlightStatus> {
  const el = document.createElement(tag) as PorchlightStatus;
  const all: Record<string, string | boolean> = { slug: SLUG, "api-base": API, ...attributes };
  for (const [name, value] of Object.entries(all)) {
    if (value === true) el.setAttribute(name, "");
    else if (value !== false) el.setAttribute(name, value);
  }
  document.body.append(el);
  await el.updateComplete;
  await settle(el);
  return el;
}

const root = (el: PorchlightStatus) => el.shadowRoot as ShadowRoot;
const $ = <E extends Element = HTMLElement>(el: PorchlightStatus, selector: string) =>
  root(el).querySelector<E>(selector as never);
const $$ = <E extends Element = HTMLElement>(el: PorchlightStatus, selector: string) => [
  ...root(el).querySelectorAll<E>(selector as never),
];
const squash = (text: string | null | undefined) => (text ?? "").replace(/\s+/g, " ").trim();
const text = (el: PorchlightStatus | Element) => squash((el instanceof PorchlightStatus ? root(el) : el).textContent);
const base = (el: PorchlightStatus) => $(el, '[part="base"]') as HTMLElement;
/** The color-scheme written in the base element's inline style. */
const colorScheme = (el: PorchlightStatus) => /color-scheme:\s*([^;]+)/.exec(base(el).getAttribute("style") ?? "")?.[1];

/** Records the element's events (they bubble out of the shadow root to the document). */
function listen<T>(type: "porchlight-load" | "porchlight-error" | "porchlight-status-change") {
  const events: CustomEvent<T>[] = [];
  const record = (event: Event) => events.push(event as CustomEvent<T>);
  document.addEventListener(type, record);
  cleanups.push(() => document.removeEventListener(type, record));
  return events;
}

async function submitPassword(el: PorchlightStatus, password: string): Promise<void> {
  const input = $<HTMLInputElement>(el, "input#password") as HTMLInputElement;
  input.value = password;
  ($(el, 'form[part="form"] button') as HTMLButtonElement).click();
  await settle(el);
}

const FAKE_TIMERS: Parameters<typeof vi.useFakeTimers>[0] = {
  toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"],
};

const cleanups: (() => void)[] = [];

afterEach(() => {
  document.body.replaceChildren();
  for (const cleanup of cleanups.splice(0)) cleanup();
  vi.useRealTimers();
  vi.unstubAllGlobals();
  sessionStorage.clear();
  // Undo a test's document.hidden override: the prototype's getter answers again.
  delete (document as { hidden?: boolean }).hidden;
});

describe("overallStatus and the banner", () => {
  const cases: [string, ItemStatus[], OverallStatus, string][] = [
    ["every item operational", ["operational", "operational"], "operational", "All systems operational"],
    ["operational with a paused item", ["operational", "paused"], "operational", "All systems operational"],
    ["one degraded", ["operational", "degraded"], "degraded", "Degraded performance"],
    ["some outage", ["operational", "outage"], "partial", "Partial outage"],
    ["degraded and outage", ["degraded", "outage"], "partial", "Partial outage"],
    ["every watched item out", ["outage", "outage", "paused"], "major", "Major outage"],
    ["an item not checked yet", ["operational", "unknown"], "unknown", "Status unknown"],
    ["only paused items", ["paused"], "unknown", "Status unknown"],
    ["no items", [], "unknown", "Status unknown"],
  ];

  test.each(cases)("%s → %s", (_name, statuses, expected) => {
    expect(overallStatus(statuses.map((status) => ({ status })))).toBe(expected);
  });

  test.each(cases)(
    "%s: the banner says so, with an icon, in a live region",
    async (_name, statuses, _status, words) => {
      answers(() => json(pageWith(...statuses)));
      const el = await mount();
      const banner = $(el, '[part="banner"]') as HTMLElement;
      expect(banner.getAttribute("role")).toBe("status");
      expect(text(banner)).toBe(words);
      const mark = banner.querySelector("[data-mark]") as HTMLElement;
      expect(mark.getAttribute("aria-hidden")).toBe("true");
      expect(mark.getAttribute("data-mark")).not.toBe("");
    },
  );
});

describe("loading and the ready page", () => {
  test("while the request is pending a skeleton with a Loading… status shows", async () => {
    let release: (response: Response) => void = () => {};
    stubFetch(() => new Promise<Response>((resolve) => (release = resolve)));
    const el = await mount();
    expect(calls).toHaveLength(1);
    const skeleton = $(el, '[part="skeleton"]') as HTMLElement;
    expect(skeleton).not.toBeNull();
    expect(text(skeleton.querySelector('[role="status"]') as HTMLElement)).toBe("Loading…");
    expect($(el, '[part="items"]')).toBeNull();

    release(json(page()));
    await settle(el);
    expect($(el, '[part="skeleton"]')).toBeNull();
    expect(text($(el, "h2") as HTMLElement)).toBe("Acme Status");
  });

  test("name, description, items with words, icons, uptime, response time, last check and daily bars", async () => {
    const p = page({
      display: { historyDays: 7, showUptime: true, showResponseTime: true, showIncidents: true },
      items: [
        item({
          id: 1,
          label: "Website",
          status: "operational",
          uptime: 99.5,
          response_time: 120,
          last_check: new Date(Date.now() - 5 * MINUTE).toISOString(),
          history: [
            { date: isoDay(3), uptime: 97.5 },
            { date: isoDay(0), uptime: 99.25 },
          ],
        }),
        item({ id: 2, label: "Checkout", status: "outage", uptime: 80, response_time: 2500, history: [] }),
      ],
    });
    answers(() => json(p));
    const el = await mount({ locale: "en-US" });

    expect(text($(el, '[part="header"] h2') as HTMLElement)).toBe("Acme Status");
    expect(text($(el, '[part="header"] p') as HTMLElement)).toBe("Everything Acme runs.");
    expect(text($(el, '[part="banner"]') as HTMLElement)).toBe("Partial outage");

    const items = $$(el, '[part="item"]');
    expect(items).toHaveLength(2);
    const [website, checkout] = items as [HTMLElement, HTMLElement];
    expect(text(website)).toContain("Website");
    expect(text(website)).toContain("Operational");
    expect(text(checkout)).toContain("Checkout");
    expect(text(checkout)).toContain("Outage");
    for (const row of items) {
      // The status is a word plus an icon, not a colour alone.
      const mark = row.querySelector("[data-mark]") as HTMLElement;
      expect(mark.getAttribute("aria-hidden")).toBe("true");
      expect(mark.parentElement?.textContent).toMatch(/Operational|Outage/);
    }
    expect((website.querySelector("[data-mark]") as HTMLElement).dataset.mark).not.toBe(
      (checkout.querySelector("[data-mark]") as HTMLElement).dataset.mark,
    );
    expect(text(website)).toContain("99.5% uptime");
    expect(text(website)).toContain("120 ms");
    expect(text(website)).toContain("checked 5 minutes ago");
    expect(text(checkout)).toContain("80% uptime");
    expect(text(checkout)).toContain("2,500 ms");

    const day = new Intl.DateTimeFormat("en-US", { dateStyle: "medium", timeZone: "UTC" });
    const label = (daysAgo: number) => day.format(new Date(isoDay(daysAgo)));
    const history = website.querySelector('[part="history"]') as HTMLElement;
    expect(history.getAttribute("aria-label")).toBe("Daily uptime, 7 days");
    const bars = [...history.children] as HTMLElement[];
    expect(bars).toHaveLength(7);
    expect(bars.map((bar) => bar.getAttribute("aria-label"))).toEqual([
      `${label(6)}: no data`,
      `${label(5)}: no data`,
      `${label(4)}: no data`,
      `${label(3)}: 97.5% uptime`,
      `${label(2)}: no data`,
      `${label(1)}: no data`,
      `${label(0)}: 99.25% uptime`,
    ]);
    for (const row of items) {
      const rowBars = [...row.querySelectorAll('[part="history"] > li')] as HTMLElement[];
      expect(rowBars).toHaveLength(7);
      // Only today's bar is in the tab order.
      expect(rowBars.filter((bar) => bar.getAttribute("tabindex") === "0")).toEqual([rowBars[6]]);
      expect(rowBars.slice(0, 6).every((bar) => bar.getAttribute("tabindex") === "-1")).toBe(true);
    }
  });

  test("each item status has its own word and its own icon", async () => {
    const statuses: ItemStatus[] = ["operational", "degraded", "outage", "paused", "unknown"];
    answers(() => json(pageWith(...statuses)));
    const el = await mount({ locale: "en" });
    const rows = $$(el, '[part="item"] > div');
    expect(rows.map(text)).toEqual([
      "Service 0Operational",
      "Service 1Degraded",
      "Service 2Outage",
      "Service 3Paused",
      "Service 4Unknown",
    ]);
    const marks = rows.map((row) => row.querySelector("[data-mark]") as HTMLElement);
    expect(marks.every((mark) => mark.getAttribute("aria-hidden") === "true")).toBe(true);
    expect(new Set(marks.map((mark) => mark.dataset.mark)).size).toBe(5);
  });

  test("incidents: title, status word, start, duration and update messages; resolved ones with their end", async () => {
    const now = Date.now();
    const openStart = new Date(now - 2 * 60 * MINUTE).toISOString();
    const closedStart = new Date(now - 3 * DAY).toISOString();
    const closedEnd = new Date(now - 3 * DAY + 90 * MINUTE).toISOString();
    const incidents: Incident[] = [
      {
        id: 2,
        title: "Slow checkout",
        status: "identified",
        started_at: openStart,
        resolved_at: null,
        duration_minutes: null,
        updates: [
          { timestamp: new Date(now - 60 * MINUTE).toISOString(), status: "identified", message: "A bad deploy." },
          { timestamp: openStart, status: "investigating", message: "Looking into slow payments." },
        ],
      },
      {
        id: 1,
        title: "Login outage",
        status: "resolved",
        started_at: closedStart,
        resolved_at: closedEnd,
        duration_minutes: 90,
        updates: [{ timestamp: closedEnd, status: "resolved", message: "Fixed by a restart." }],
      },
    ];
    answers(() => json(page({ incidents })));
    const el = await mount({ locale: "en-US" });
    const when = new Intl.DateTimeFormat("en-US", { dateStyle: "medium", timeStyle: "short" });

    expect($$(el, "h3").map(text)).toContain("Incidents");
    const rows = $$(el, '[part="incident"]');
    expect(rows).toHaveLength(2);
    const [open, closed] = rows.map(text) as [string, string];
    expect(open).toContain("Slow checkout");
    expect(open).toContain("Identified");
    expect(open).toContain(when.format(new Date(openStart)));
    expect(open).toContain("2 hr");
    expect(open).toContain("A bad deploy.");
    expect(open).toContain("Looking into slow payments.");
    expect(open).toContain("Investigating");
    expect(closed).toContain("Login outage");
    expect(closed).toContain("Resolved");
    expect(closed).toContain(`${when.format(new Date(closedStart))} – ${when.format(new Date(closedEnd))}`);
    expect(closed).toContain("1 hr 30 min");
    expect(closed).toContain("Fixed by a restart.");
    expect(text(el)).not.toContain("No incidents.");
    const times = $$(el, '[part="incident"] time').map((time) => time.getAttribute("datetime"));
    expect(times).toContain(closedEnd);
  });

  test('"No incidents." when there are none', async () => {
    answers(() => json(page({ incidents: [] })));
    const el = await mount();
    expect($$(el, "h3").map(text)).toContain("Incidents");
    expect(text(el)).toContain("No incidents.");
    expect($(el, '[part="incidents"]')).toBeNull();
  });

  test("showIncidents=false hides the incidents heading and list", async () => {
    const incident: Incident = {
      id: 1,
      title: "Hidden incident",
      status: "investigating",
      started_at: new Date().toISOString(),
      resolved_at: null,
      duration_minutes: null,
      updates: [],
    };
    const display = { historyDays: 7, showUptime: true, showResponseTime: true, showIncidents: false };
    answers(() => json(page({ display, incidents: [incident] })));
    const el = await mount();
    expect(text($(el, '[part="banner"]') as HTMLElement)).toBe("All systems operational");
    expect($$(el, "h3").map(text)).not.toContain("Incidents");
    expect(text(el)).not.toContain("Hidden incident");
    expect(text(el)).not.toContain("No incidents.");
  });

  test("showUptime=false hides the bars and the uptime; showResponseTime=false hides the time", async () => {
    const display = { historyDays: 7, showUptime: false, showResponseTime: false, showIncidents: true };
    answers(() => json(page({ display, items: [item({ history: [{ date: isoDay(0), uptime: 99 }] })] })));
    const el = await mount({ locale: "en" });
    expect($$(el, '[part="item"]')).toHaveLength(1);
    expect($(el, '[part="history"]')).toBeNull();
    expect(text(el)).not.toContain("uptime");
    expect(text(el)).not.toContain("120 ms");
    expect(text(el)).toContain("checked 5 minutes ago");
  });
});

test("the status paints a frame before the daily bars, whose empty lists already hold their place", async () => {
  answers(() => json(pageWith("operational", "degraded")));
  const el = document.createElement("porchlight-status") as PorchlightStatus;
  el.setAttribute("slug", SLUG);
  el.setAttribute("api-base", API);
  const atFirstPaint: number[] = [];
  el.addEventListener("porchlight-load", async () => {
    // The event comes just before the element asks for its render.
    await Promise.resolve();
    await el.updateComplete;
    atFirstPaint.push($$(el, '[part="history"]').length, $$(el, '[part="history"] > li').length);
    expect(text($(el, '[part="banner"]') as HTMLElement)).toBe("Degraded performance");
  });
  document.body.append(el);
  await settle(el);
  await settle(el);
  expect(atFirstPaint).toEqual([2, 0]);
  expect($$(el, '[part="history"] > li').length).toBeGreaterThan(0);
  el.remove();
});

describe("keyboard: a roving tabindex over the daily bars", () => {
  async function bars() {
    answers(() => json(page({ items: [item({ history: [{ date: isoDay(0), uptime: 100 }] })] })));
    const el = await mount();
    const list = $$(el, '[part="history"] > li');
    expect(list).toHaveLength(7);
    return { el, list };
  }
  const press = (target: HTMLElement, key: string) => {
    const event = new KeyboardEvent("keydown", { key, bubbles: true, composed: true, cancelable: true });
    target.dispatchEvent(event);
    return event;
  };
  const focusable = (list: HTMLElement[]) => list.filter((bar) => bar.tabIndex === 0).map((bar) => list.indexOf(bar));

  test("ArrowLeft, ArrowRight, Home and End move the one tab stop and the focus", async () => {
    const { el, list } = await bars();
    const active = () => list.indexOf(root(el).activeElement as HTMLElement);
    (list[6] as HTMLElement).focus();
    expect(active()).toBe(6);

    expect(press(list[6] as HTMLElement, "ArrowLeft").defaultPrevented).toBe(true);
    expect(focusable(list)).toEqual([5]);
    expect(active()).toBe(5);

    press(list[5] as HTMLElement, "ArrowLeft");
    expect(focusable(list)).toEqual([4]);
    expect(active()).toBe(4);

    press(list[4] as HTMLElement, "ArrowRight");
    expect(focusable(list)).toEqual([5]);
    expect(active()).toBe(5);

    press(list[5] as HTMLElement, "Home");
    expect(focusable(list)).toEqual([0]);
    expect(active()).toBe(0);

    press(list[0] as HTMLElement, "ArrowLeft"); // already first: stays
    expect(focusable(list)).toEqual([0]);
    expect(active()).toBe(0);

    press(list[0] as HTMLElement, "End");
    expect(focusable(list)).toEqual([6]);
    expect(active()).toBe(6);

    press(list[6] as HTMLElement, "ArrowRight"); // already last: stays
    expect(focusable(list)).toEqual([6]);
    expect(active()).toBe(6);

    const other = press(list[6] as HTMLElement, "Enter");
    expect(other.defaultPrevented).toBe(false);
    expect(focusable(list)).toEqual([6]);
  });

  test("Home on the first day is handled like every other move (no page scroll)", async () => {
    const { el, list } = await bars();
    press(list[6] as HTMLElement, "Home");
    expect(root(el).activeElement).toBe(list[0]);
    // End on the last day moves nowhere, yet is taken (default prevented) so the page does not scroll; Home on the
    // first day must be too. BUG: `Home: -at` is -0 there, which the handler reads as "not my key".
    expect(press(list[6] as HTMLElement, "End").defaultPrevented).toBe(true);
    press(list[6] as HTMLElement, "Home");
    expect(press(list[0] as HTMLElement, "Home").defaultPrevented).toBe(true);
    expect(focusable(list)).toEqual([0]);
  });

  test("a day focused by a click, then left with an arrow key, leaves exactly one tab stop", async () => {
    const { el, list } = await bars();
    // A click focuses an element with tabindex=-1; this is what it does, without moving the tab stop.
    (list[2] as HTMLElement).focus();
    expect(root(el).activeElement).toBe(list[2]);
    press(list[2] as HTMLElement, "ArrowRight");
    expect(root(el).activeElement).toBe(list[3]);
    // BUG: only the key's target loses tabindex=0, so today's bar keeps it too: two tab stops in one list.
    expect(focusable(list)).toEqual([3]);
  });

  test("right to left: the arrows follow the reading direction (the section's dir, from a right-to-left locale)", async () => {
    const { el, list } = await bars();
    el.locale = "he";
    await el.updateComplete;
    expect(root(el).querySelector("section")?.getAttribute("dir")).toBe("rtl");
    (list[6] as HTMLElement).focus();
    press(list[6] as HTMLElement, "ArrowRight"); // towards the past, which lies to the right
    expect(root(el).activeElement).toBe(list[5]);
    press(list[5] as HTMLElement, "ArrowLeft");
    expect(root(el).activeElement).toBe(list[6]);
    press(list[6] as HTMLElement, "ArrowRight");
    press(list[5] as HTMLElement, "ArrowRight");
    expect(root(el).activeElement).toBe(list[4]);
    expect(focusable(list)).toEqual([4]);
  });
});

describe("text from the API stays text", () => {
  test("markup in the name, description, label, incident title and message creates no element", async () => {
    const evil = '<img src=x onerror=alert(1)><script>alert("x")</script>';
    answers(() =>
      json(
        page({
          name: `Name ${evil}`,
          description: `Description ${evil}`,
          items: [item({ label: `Label ${evil}` })],
          incidents: [
            {
              id: 1,
              title: `Title ${evil}`,
              status: "investigating",
              started_at: new Date().toISOString(),
              resolved_at: null,
              duration_minutes: null,
              updates: [{ timestamp: new Date().toISOString(), status: "investigating", message: `Message ${evil}` }],
            },
          ],
        }),
      ),
    );
    const el = await mount();
    const all = text(el);
    for (const where of ["Name", "Description", "Label", "Title", "Message"]) {
      expect(all).toContain(`${where} ${evil}`);
    }
    expect(root(el).querySelectorAll("img, script")).toHaveLength(0);
    expect(root(el).querySelectorAll("[onerror]")).toHaveLength(0);
  });

  test("an accent colour that is not #rrggbb cannot inject CSS", async () => {
    answers(() => json(page({ theme: { mode: "light", accentColor: "red;background:url(https://evil.test)" } })));
    const el = await mount();
    const style = base(el).getAttribute("style") ?? "";
    expect(style).not.toContain("evil");
    expect(style).toContain("--_accent:#2563eb");
  });
});

describe("problems", () => {
  test('404 not_found: "No such status page." and a porchlight-error with the kind and status', async () => {
    const errors = listen<ErrorDetail>("porchlight-error");
    answers(() => problem(404, "not_found"));
    const el = await mount();
    expect(text($(el, "h2") as HTMLElement)).toBe("No such status page.");
    expect($(el, '[part="items"]')).toBeNull();
    expect(errors.map((event) => event.detail)).toEqual([
      { slug: SLUG, problem: "not_found", httpStatus: 404, message: "The API says not_found" },
    ]);
  });

  test("500: an error with a retry button; retrying fetches again and shows the page", async () => {
    const errors = listen<ErrorDetail>("porchlight-error");
    answers(
      () => json({ success: false, message: "Internal error", code: 500, error: "internal" }, 500),
      () => json(page()),
    );
    const el = await mount();
    expect(text(el)).toContain("Could not load the status.");
    expect(errors[0]?.detail).toMatchObject({ problem: "server", httpStatus: 500, message: "Internal error" });
    const retry = $(el, 'button[part="button"]') as HTMLButtonElement;
    expect(text(retry)).toBe("Try again");
    expect(calls).toHaveLength(1);
    retry.click();
    await settle(el);
    expect(calls).toHaveLength(2);
    expect(text($(el, '[part="header"] h2') as HTMLElement)).toBe("Acme Status");
    expect(text(el)).not.toContain("Could not load the status.");
  });

  test("a 200 that is not a page (HTML from a proxy) is a server problem, not a crash", async () => {
    answers(() => new DomResponse("<html>gateway</html>", { status: 200, headers: { "content-type": "text/html" } }));
    const errors = listen<ErrorDetail>("porchlight-error");
    const el = await mount();
    expect(text(el)).toContain("Could not load the status.");
    expect(errors[0]?.detail.problem).toBe("server");
  });

  test("a network failure (fetch rejects) shows the error state and fires porchlight-error problem network", async () => {
    const errors = listen<ErrorDetail>("porchlight-error");
    answers(
      () => new TypeError("Failed to fetch"),
      () => json(page()),
    );
    const el = await mount();
    expect(text(el)).toContain("Could not load the status.");
    expect(errors).toHaveLength(1);
    expect(errors[0]?.detail).toMatchObject({ slug: SLUG, problem: "network", httpStatus: 0 });
    expect(errors[0]?.detail.message).toContain("Failed to fetch");
    ($(el, 'button[part="button"]') as HTMLButtonElement).click();
    await settle(el);
    expect(text($(el, '[part="header"] h2') as HTMLElement)).toBe("Acme Status");
  });

  test("a failed refresh keeps the page shown and says the refresh failed, with a retry button", async () => {
    answers(
      () => json(page()),
      () => new TypeError("Failed to fetch"),
      () => json(page()),
    );
    const el = await mount();
    el.reload();
    await settle(el);
    expect(text($(el, '[part="header"] h2') as HTMLElement)).toBe("Acme Status");
    expect(text(el)).toContain("Could not load the status.");
    ($(el, 'button[part="button"]') as HTMLButtonElement).click();
    await settle(el);
    expect(calls).toHaveLength(3);
    expect(text(el)).not.toContain("Could not load the status.");
  });

  test("removing the element while the answer's body is still arriving reports no error", async () => {
    const errors = listen<ErrorDetail>("porchlight-error");
    // As in a browser: aborting a fetch after its headers arrived errors the body stream with the abort reason.
    stubFetch((call) => {
      const signal = call.init.signal as AbortSignal;
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('{"name":"Acme'));
          signal.addEventListener("abort", () => controller.error(signal.reason));
        },
      });
      return new DomResponse(body, { status: 200, headers: { "content-type": "application/json" } });
    });
    const el = await mount();
    expect(calls).toHaveLength(1);
    expect($(el, '[part="skeleton"]')).not.toBeNull();
    // The page's script listens on the element itself: a removed element's events no longer reach the document.
    el.addEventListener("porchlight-error", (event) => errors.push(event));
    el.remove();
    await settle(el);
    expect(((calls[0] as Call).init.signal as AbortSignal).aborted).toBe(true);
    // BUG: client.ts turns the aborted body into `{}` and so into problem "server" with HTTP status 200.
    expect(errors.map((event) => event.detail)).toEqual([]);
  });

  test('401 sign_in_required: "This page is private: sign in." links to the hosted page', async () => {
    const errors = listen<ErrorDetail>("porchlight-error");
    answers(() => problem(401, "sign_in_required", { "WWW-Authenticate": 'Bearer realm="porchlight"' }));
    const el = await mount({ "api-base": `${API}/` });
    const link = $<HTMLAnchorElement>(el, "h2 a") as HTMLAnchorElement;
    expect(text(link)).toBe("This page is private: sign in.");
    expect(link.getAttribute("href")).toBe(`${API}/${SLUG}`);
    expect(errors[0]?.detail).toMatchObject({ problem: "sign_in_required", httpStatus: 401 });
    expect($(el, "input")).toBeNull();
  });

  test("429 rate_limited with Retry-After: 30 says how long to wait, in the password form", async () => {
    const errors = listen<ErrorDetail>("porchlight-error");
    answers(() => problem(429, "rate_limited", { "Retry-After": "30" }));
    const el = await mount();
    const alert = $(el, '[role="alert"]') as HTMLElement;
    expect(text(alert)).toContain("Too many attempts");
    expect(text(alert)).toMatch(/\b30\b/);
    expect(text(alert)).toMatch(/sec/);
    expect($(el, 'form[part="form"]')).not.toBeNull();
    expect(errors[0]?.detail).toMatchObject({ problem: "rate_limited", httpStatus: 429 });
  });

  test("429 without Retry-After says a minute", async () => {
    answers(() => problem(429, "rate_limited"));
    const el = await mount({ locale: "en" });
    const alert = text($(el, '[role="alert"]') as HTMLElement);
    expect(alert).toContain("Too many attempts");
    expect(alert).toMatch(/\b60\b/);
  });
});

describe("password-protected pages", () => {
  test("password_required: a labelled password field and no page data", async () => {
    const errors = listen<ErrorDetail>("porchlight-error");
    answers(() => problem(401, "password_required"));
    const el = await mount();
    const form = $(el, 'form[part="form"]') as HTMLFormElement;
    expect(form).not.toBeNull();
    const label = form.querySelector('label[for="password"]') as HTMLLabelElement;
    expect(text(label)).toBe("Password");
    const input = form.querySelector("input#password") as HTMLInputElement;
    expect(input.type).toBe("password");
    expect(input.getAttribute("autocomplete")).toBe("current-password");
    expect(input.getAttribute("aria-invalid")).toBe("false");
    expect(text(form)).toContain("This page is password-protected.");
    expect($(el, '[role="alert"]')).toBeNull();
    expect($(el, '[part="items"]')).toBeNull();
    expect($(el, '[part="banner"]')).toBeNull();
    expect(errors[0]?.detail).toMatchObject({ problem: "password_required", httpStatus: 401 });
  });

  test("the password goes only in X-Status-Page-Password; a wrong one is reported and focused; the right one shows the page", async () => {
    stubFetch((call) => {
      const password = call.headers.get("x-status-page-password");
      if (!password) return problem(401, "password_required");
      return password === "right horse battery" ? json(page()) : problem(401, "password_incorrect");
    });
    const el = await mount();
    expect(calls[0]?.headers.has("x-status-page-password")).toBe(false);

    await submitPassword(el, "wrong-password");
    expect(calls).toHaveLength(2);
    const sent = calls[1] as Call;
    expect(sent.url).toBe(PAGE_URL);
    expect(sent.url).not.toContain("wrong");
    expect(sent.init.body ?? null).toBeNull();
    expect(sent.init.credentials).toBe("omit");
    expect(sent.headers.get("x-status-page-password")).toBe("wrong-password");

    const input = $<HTMLInputElement>(el, "input#password") as HTMLInputElement;
    expect(text($(el, '[role="alert"]') as HTMLElement)).toBe("The password is incorrect.");
    expect(input.getAttribute("aria-invalid")).toBe("true");
    expect(root(el).activeElement).toBe(input);
    expect($(el, '[part="items"]')).toBeNull();

    await submitPassword(el, "right horse battery");
    expect(calls).toHaveLength(3);
    expect(calls[2]?.url).toBe(PAGE_URL);
    expect(calls[2]?.headers.get("x-status-page-password")).toBe("right horse battery");
    expect($(el, "form")).toBeNull();
    expect(text($(el, '[part="header"] h2') as HTMLElement)).toBe("Acme Status");
  });

  test("a non-ASCII password is sent as its UTF-8 bytes, one character per byte", async () => {
    const password = "pässwörd-日本";
    answers(
      () => problem(401, "password_required"),
      () => json(page()),
    );
    const el = await mount();
    await submitPassword(el, password);
    const value = calls[1]?.init.headers as Record<string, string>;
    const sent = value["X-Status-Page-Password"] as string;
    expect(sent).toBe(passwordHeaderValue(password));
    expect([...sent].every((ch) => ch.charCodeAt(0) <= 0xff)).toBe(true);
    expect(sent).toHaveLength(new TextEncoder().encode(password).length);
    // What the server does with the Latin-1 header value.
    expect(Buffer.from(sent, "latin1").toString("utf8")).toBe(password);
    expect(text($(el, '[part="header"] h2') as HTMLElement)).toBe("Acme Status");
  });

  test("the shown page keeps sending the password on refresh", async () => {
    answers(
      () => problem(401, "password_required"),
      () => json(page()),
    );
    const el = await mount();
    await submitPassword(el, "secret-password");
    el.reload();
    await settle(el);
    expect(calls[2]?.headers.get("x-status-page-password")).toBe("secret-password");
  });
});

describe("remember-password", () => {
  const passwordServer = (right: string) =>
    stubFetch((call) => {
      const password = call.headers.get("x-status-page-password");
      if (!password) return problem(401, "password_required");
      return password === right ? json(page()) : problem(401, "password_incorrect");
    });

  test("without the attribute nothing is written to sessionStorage", async () => {
    passwordServer("open sesame");
    const el = await mount();
    expect(el.rememberPassword).toBe(false);
    await submitPassword(el, "open sesame");
    expect(text($(el, '[part="header"] h2') as HTMLElement)).toBe("Acme Status");
    expect(sessionStorage.length).toBe(0);
  });

  test("with it the right password is kept for this page and a new element sends it without asking", async () => {
    passwordServer("open sesame");
    const first = await mount({ "remember-password": true });
    expect(first.rememberPassword).toBe(true);
    await submitPassword(first, "open sesame");
    expect(sessionStorage.length).toBe(1);
    const key = sessionStorage.key(0) as string;
    expect(key).toContain(SLUG);
    expect(key).toContain(API);
    expect(sessionStorage.getItem(key)).toBe("open sesame");
    first.remove();

    passwordServer("open sesame");
    const second = await mount({ "remember-password": true });
    expect(calls).toHaveLength(1);
    expect(calls[0]?.headers.get("x-status-page-password")).toBe("open sesame");
    expect($(second, "form")).toBeNull();
    expect(text($(second, '[part="header"] h2') as HTMLElement)).toBe("Acme Status");
  });

  test("a remembered password is not used by an element without the attribute, nor for another page", async () => {
    sessionStorage.setItem(`porchlight:${API}/${SLUG}`, "open sesame");
    passwordServer("open sesame");
    await mount();
    expect(calls[0]?.headers.has("x-status-page-password")).toBe(false);
    passwordServer("open sesame");
    await mount({ "remember-password": true, slug: "other" });
    expect(calls[0]?.headers.has("x-status-page-password")).toBe(false);
    passwordServer("open sesame");
    await mount({ "remember-password": true, "api-base": "https://elsewhere.test" });
    expect(calls[0]?.headers.has("x-status-page-password")).toBe(false);
  });

  test("where sessionStorage is unavailable (sandboxed iframe, storage blocked) the page still loads", async () => {
    const own = Object.getOwnPropertyDescriptor(globalThis, "sessionStorage");
    Object.defineProperty(globalThis, "sessionStorage", {
      configurable: true,
      get() {
        throw new DOMException("The document is sandboxed and lacks the 'allow-same-origin' flag.", "SecurityError");
      },
    });
    cleanups.push(() => {
      if (own) Object.defineProperty(globalThis, "sessionStorage", own);
    });
    const errors = listen<ErrorDetail>("porchlight-error");
    answers(() => json(page()));
    const el = await mount({ "remember-password": true });
    // BUG: the task reads sessionStorage unguarded; the SecurityError becomes problem "network" and no request is made.
    expect(errors.map((event) => event.detail.problem)).toEqual([]);
    expect(calls).toHaveLength(1);
    expect(text($(el, '[part="header"] h2') as HTMLElement)).toBe("Acme Status");
  });

  test("a wrong remembered password is removed and the form asks again", async () => {
    passwordServer("open sesame");
    const first = await mount({ "remember-password": true });
    await submitPassword(first, "open sesame");
    const key = sessionStorage.key(0) as string;
    first.remove();

    passwordServer("changed since"); // the owner changed the password
    const second = await mount({ "remember-password": true });
    expect(calls[0]?.headers.get("x-status-page-password")).toBe("open sesame");
    expect(sessionStorage.getItem(key)).toBeNull();
    expect($(second, "input#password")).not.toBeNull();
    expect(text($(second, '[role="alert"]') as HTMLElement)).toBe("The password is incorrect.");
  });
});

describe("events", () => {
  test("porchlight-load bubbles out of the shadow root (composed) with slug, status and page", async () => {
    const loads = listen<LoadDetail>("porchlight-load");
    const p = pageWith("operational", "degraded");
    answers(() => json(p));
    await mount();
    expect(loads).toHaveLength(1);
    const event = loads[0] as CustomEvent<LoadDetail>;
    expect(event.bubbles).toBe(true);
    expect(event.composed).toBe(true);
    expect(event.detail.slug).toBe(SLUG);
    expect(event.detail.status).toBe("degraded");
    expect(event.detail.page).toEqual(p);
  });

  test("porchlight-status-change fires on a reload that changes the overall status, never on the first load", async () => {
    const changes = listen<StatusChangeDetail>("porchlight-status-change");
    const loads = listen<LoadDetail>("porchlight-load");
    answers(
      () => json(pageWith("operational")),
      () => json(pageWith("operational")),
      () => json(pageWith("outage")),
    );
    const el = await mount();
    expect(loads).toHaveLength(1);
    expect(changes).toHaveLength(0);

    el.reload();
    await settle(el);
    expect(loads).toHaveLength(2);
    expect(changes).toHaveLength(0); // same status

    el.reload();
    await settle(el);
    expect(changes).toHaveLength(1);
    const change = changes[0] as CustomEvent<StatusChangeDetail>;
    expect(change.detail).toEqual({ slug: SLUG, status: "major", previous: "operational" });
    expect(change.bubbles && change.composed).toBe(true);
    const banner = $(el, '[part="banner"]') as HTMLElement;
    expect(banner.getAttribute("role")).toBe("status");
    expect(text(banner)).toBe("Major outage");
  });

  test("If-None-Match carries the last ETag; a 304 keeps the page shown", async () => {
    const errors = listen<ErrorDetail>("porchlight-error");
    const loads = listen<LoadDetail>("porchlight-load");
    answers(
      () => json(page(), 200, { ETag: '"v1"' }),
      () => new DomResponse(null, { status: 304, headers: { ETag: '"v1"' } }),
      () => json(page({ name: "Renamed" }), 200, { ETag: '"v2"' }),
      () => new DomResponse(null, { status: 304 }),
    );
    const el = await mount();
    expect(calls[0]?.headers.has("if-none-match")).toBe(false);

    el.reload();
    await settle(el);
    expect(calls[1]?.headers.get("if-none-match")).toBe('"v1"');
    expect(text($(el, '[part="header"] h2') as HTMLElement)).toBe("Acme Status");
    expect(errors).toHaveLength(0);
    expect(loads).toHaveLength(1);

    el.reload();
    await settle(el);
    expect(calls[2]?.headers.get("if-none-match")).toBe('"v1"');
    expect(text($(el, '[part="header"] h2') as HTMLElement)).toBe("Renamed");

    el.reload();
    await settle(el);
    expect(calls[3]?.headers.get("if-none-match")).toBe('"v2"');
    expect(text($(el, '[part="header"] h2') as HTMLElement)).toBe("Renamed");
  });
});

describe("attributes and properties", () => {
  test("defaults: refresh 60, booleans false, strings empty", () => {
    const el = document.createElement("porchlight-status") as PorchlightStatus;
    expect(el.refresh).toBe(60);
    expect(el.compact).toBe(false);
    expect(el.rememberPassword).toBe(false);
    expect(el.slug).toBe("");
    expect(el.apiBase).toBe("");
    expect(el.theme).toBe("");
    expect(el.locale).toBe("");
  });

  test("attributes set the properties: slug, api-base, refresh (a number), compact, remember-password", async () => {
    answers(() => json(page()));
    const el = await mount({ refresh: "30", compact: true, "remember-password": true, theme: "dark", locale: "de" });
    expect(el.slug).toBe(SLUG);
    expect(el.apiBase).toBe(API);
    expect(el.refresh).toBe(30);
    expect(el.compact).toBe(true);
    expect(el.rememberPassword).toBe(true);
    expect(el.theme).toBe("dark");
    expect(el.locale).toBe("de");
  });

  test("api-base loses its trailing slashes", async () => {
    answers(() => json(page()));
    await mount({ "api-base": "https://example.test/porchlight///" });
    expect(calls[0]?.url).toBe("https://example.test/porchlight/public/v1/status-page/acme");
  });

  test("a new slug fetches the new page and forgets the old one", async () => {
    stubFetch((call) => json(page({ name: call.url.endsWith("/acme") ? "Acme Status" : "Other Status" })));
    const el = await mount();
    el.slug = "other";
    await el.updateComplete;
    await settle(el);
    expect(calls.map((call) => call.url)).toEqual([PAGE_URL, `${API}/public/v1/status-page/other`]);
    expect(text($(el, '[part="header"] h2') as HTMLElement)).toBe("Other Status");
  });

  test.each([
    ["light", "light"],
    ["dark", "dark"],
    ["auto", "light dark"],
  ])("theme=%s → color-scheme %s, whatever the page's theme", async (theme, scheme) => {
    answers(() => json(page({ theme: { mode: "dark", accentColor: "#123456" } })));
    const el = await mount({ theme });
    expect(colorScheme(el)).toBe(scheme);
  });

  test.each([
    ["light", "light"],
    ["dark", "dark"],
    ["auto", "light dark"],
  ] as const)("without a theme attribute the page's theme %s → color-scheme %s", async (mode, scheme) => {
    answers(() => json(page({ theme: { mode, accentColor: "#123456" } })));
    const el = await mount();
    expect(colorScheme(el)).toBe(scheme);
    expect(base(el).getAttribute("style")).toContain("--_accent:#123456");
  });

  test('locale="de" speaks German with lang="de"', async () => {
    answers(() => json(page()));
    const el = await mount({ locale: "de" });
    expect(text($(el, '[part="banner"]') as HTMLElement)).toBe("Alle Systeme betriebsbereit");
    expect(text(el)).toContain("Betriebsbereit");
    expect(base(el).getAttribute("lang")).toBe("de");
    expect(base(el).getAttribute("dir")).toBe("ltr");
  });

  test('locale="he" speaks Hebrew, right to left', async () => {
    answers(() => json(page()));
    const el = await mount({ locale: "he" });
    expect(text($(el, '[part="banner"]') as HTMLElement)).toBe("כל המערכות תקינות");
    expect(base(el).getAttribute("lang")).toBe("he");
    expect(base(el).getAttribute("dir")).toBe("rtl");
  });

  test('locale="fr" falls back to English words (lang="en") with French number formats', async () => {
    answers(() => json(page({ items: [item({ uptime: 99.5 })] })));
    const el = await mount({ locale: "fr" });
    expect(text($(el, '[part="banner"]') as HTMLElement)).toBe("All systems operational");
    expect(base(el).getAttribute("lang")).toBe("en");
    expect(base(el).getAttribute("dir")).toBe("ltr");
    const percent = new Intl.NumberFormat("fr", { style: "percent", maximumFractionDigits: 2 }).format(0.995);
    expect(text(el)).toContain(squash(`${percent} uptime`)); // "99,5 % uptime", with French spacing
  });

  test("a locale Intl rejects falls back to English words and formats", async () => {
    answers(() => json(page()));
    const el = await mount({ locale: "not a locale!" });
    expect(text($(el, '[part="banner"]') as HTMLElement)).toBe("All systems operational");
    expect(text(el)).toContain("99.5% uptime");
    expect(base(el).getAttribute("lang")).toBe("en");
  });

  test("without a locale the browser's language is used; the locale can change later", async () => {
    answers(() => json(page()));
    const el = await mount();
    expect(base(el).getAttribute("lang")).toBe(messagesFor(navigator.language).lang);
    el.locale = "de-CH";
    await el.updateComplete;
    expect(base(el).getAttribute("lang")).toBe("de");
    expect(text($(el, '[part="banner"]') as HTMLElement)).toBe("Alle Systeme betriebsbereit");
  });

  test("compact: no description, no bars or timelines, resolved incidents hidden, open ones shown", async () => {
    const incident = (id: number, title: string, resolved: boolean): Incident => ({
      id,
      title,
      status: resolved ? "resolved" : "monitoring",
      started_at: new Date(Date.now() - 3 * 60 * MINUTE).toISOString(),
      resolved_at: resolved ? new Date(Date.now() - 60 * MINUTE).toISOString() : null,
      duration_minutes: resolved ? 120 : null,
      updates: [{ timestamp: new Date().toISOString(), status: "monitoring", message: "Timeline message" }],
    });
    answers(() =>
      json(
        page({
          items: [item({ history: [{ date: isoDay(0), uptime: 100 }] })],
          incidents: [incident(2, "Open incident", false), incident(1, "Old incident", true)],
        }),
      ),
    );
    const el = await mount({ compact: true });
    expect($(el, '[part="header"] p')).toBeNull();
    expect(text(el)).not.toContain("Everything Acme runs.");
    expect($(el, '[part="history"]')).toBeNull();
    expect(text(el)).toContain("Operational");
    expect(text(el)).toContain("Open incident");
    expect(text(el)).toContain("Monitoring");
    expect(text(el)).not.toContain("Old incident");
    expect(text(el)).not.toContain("Timeline message");

    el.compact = false;
    await el.updateComplete;
    expect(text(el)).toContain("Old incident");
    expect(text(el)).toContain("Everything Acme runs.");
    expect($(el, '[part="history"]')).not.toBeNull();
  });
});

describe("refresh (fake timers)", () => {
  beforeEach(() => {
    vi.useFakeTimers(FAKE_TIMERS);
    vi.setSystemTime(new Date("2026-11-21T12:00:00.000Z"));
  });

  test("every `refresh` seconds (default 60) the page is fetched again", async () => {
    answers(() => json(page()));
    const el = await mount();
    expect(calls).toHaveLength(1);
    vi.advanceTimersByTime(60_000 - 1);
    expect(calls).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(calls).toHaveLength(2);
    await settle(el);
    vi.advanceTimersByTime(60_000);
    expect(calls).toHaveLength(3);
    await settle(el);
  });

  test("refresh=30 refreshes every 30 s; below 10 s it waits 10 s", async () => {
    answers(() => json(page()));
    const el = await mount({ refresh: "30" });
    vi.advanceTimersByTime(30_000);
    expect(calls).toHaveLength(2);
    await settle(el);
    el.refresh = 2;
    await el.updateComplete;
    vi.advanceTimersByTime(9_999);
    expect(calls).toHaveLength(2);
    vi.advanceTimersByTime(1);
    expect(calls).toHaveLength(3);
    await settle(el);
  });

  test("refresh=0 never fetches again", async () => {
    answers(() => json(page()));
    await mount({ refresh: "0" });
    vi.advanceTimersByTime(60 * 60_000);
    expect(calls).toHaveLength(1);
  });

  test("no refresh while the document is hidden; it resumes when visible", async () => {
    answers(() => json(page()));
    const el = await mount();
    let hidden = true;
    Object.defineProperty(document, "hidden", { configurable: true, get: () => hidden });
    document.dispatchEvent(new Event("visibilitychange"));
    vi.advanceTimersByTime(10 * 60_000);
    expect(calls).toHaveLength(1);

    hidden = false;
    document.dispatchEvent(new Event("visibilitychange"));
    vi.advanceTimersByTime(0); // overdue: at once
    expect(calls).toHaveLength(2);
    await settle(el);
    vi.advanceTimersByTime(60_000);
    expect(calls).toHaveLength(3);
    await settle(el);
  });

  test("after a failed refresh the next attempt waits twice as long, then four times; success resets it", async () => {
    answers(
      () => json(page()),
      () => json({ success: false, message: "boom", code: 500, error: "internal" }, 500),
      () => new TypeError("Failed to fetch"),
      () => json(page()),
    );
    const el = await mount();
    vi.advanceTimersByTime(60_000);
    expect(calls).toHaveLength(2);
    await settle(el);
    expect(text(el)).toContain("Could not load the status.");
    expect(text($(el, '[part="header"] h2') as HTMLElement)).toBe("Acme Status");

    vi.advanceTimersByTime(120_000 - 1);
    expect(calls).toHaveLength(2);
    vi.advanceTimersByTime(1);
    expect(calls).toHaveLength(3);
    await settle(el);

    vi.advanceTimersByTime(240_000 - 1);
    expect(calls).toHaveLength(3);
    vi.advanceTimersByTime(1);
    expect(calls).toHaveLength(4);
    await settle(el);
    expect(text(el)).not.toContain("Could not load the status.");

    vi.advanceTimersByTime(60_000);
    expect(calls).toHaveLength(5);
    await settle(el);
  });

  test("the backoff stops growing at 16 times the interval", async () => {
    answers(
      () => json(page()),
      () => new TypeError("Failed to fetch"),
    );
    const el = await mount();
    vi.advanceTimersByTime(60_000);
    await settle(el);
    for (const factor of [2, 4, 8, 16, 16, 16]) {
      const before = calls.length;
      vi.advanceTimersByTime(factor * 60_000 - 1);
      expect(calls, `wait ${factor}x`).toHaveLength(before);
      vi.advanceTimersByTime(1);
      expect(calls, `wait ${factor}x`).toHaveLength(before + 1);
      await settle(el);
    }
    expect(text($(el, '[part="header"] h2') as HTMLElement)).toBe("Acme Status");
  });

  test("a first load that fails is retried, backing off", async () => {
    answers(
      () => json({ success: false, message: "boom", code: 503, error: "unavailable" }, 503),
      () => json(page()),
    );
    const el = await mount();
    vi.advanceTimersByTime(120_000 - 1);
    expect(calls).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(calls).toHaveLength(2);
    await settle(el);
    expect(text($(el, '[part="header"] h2') as HTMLElement)).toBe("Acme Status");
  });

  test("a page that needs a password is not polled", async () => {
    answers(() => problem(401, "password_required"));
    await mount();
    vi.advanceTimersByTime(60 * 60_000);
    expect(calls).toHaveLength(1);
  });

  test("removing the element stops refreshing and aborts a pending request; adding it back resumes", async () => {
    let stall = false;
    stubFetch(() => (stall ? new Promise<Response>(() => {}) : json(page())));
    const el = await mount();
    stall = true;
    vi.advanceTimersByTime(60_000);
    expect(calls).toHaveLength(2);
    const signal = calls[1]?.init.signal as AbortSignal;
    expect(signal.aborted).toBe(false);
    el.remove();
    expect(signal.aborted).toBe(true);
    vi.advanceTimersByTime(60 * 60_000);
    expect(calls).toHaveLength(2);

    stall = false;
    document.body.append(el);
    await el.updateComplete;
    expect(calls).toHaveLength(3);
    await settle(el);
    vi.advanceTimersByTime(60_000);
    expect(calls).toHaveLength(4);
    await settle(el);
  });

  test('"Updated … ago" stays current without a refetch', async () => {
    answers(() => json(page()));
    const el = await mount({ refresh: "0", locale: "en" });
    expect(text(el)).toContain("Updated now");
    vi.advanceTimersByTime(3 * 60_000);
    await el.updateComplete;
    expect(text(el)).toContain("Updated 3 minutes ago");
    expect(calls).toHaveLength(1);
  });
});

describe("registration", () => {
  test("<porchlight-status> is PorchlightStatus", () => {
    expect(customElements.get("porchlight-status")).toBe(PorchlightStatus);
    expect(document.createElement("porchlight-status")).toBeInstanceOf(PorchlightStatus);
  });

  test("loading the embed script again, even as another copy, neither throws nor replaces the element", async () => {
    await expect(import("../../components/porchlight-status/index.ts")).resolves.toBeDefined();
    vi.resetModules();
    const copy = await import("../../components/porchlight-status/index.ts");
    expect(copy.PorchlightStatus).not.toBe(PorchlightStatus);
    expect(customElements.get("porchlight-status")).toBe(PorchlightStatus);
    // Defining the name directly is what the guard avoids.
    expect(() => customElements.define("porchlight-status", copy.PorchlightStatus)).toThrow();
  });

  test("the class can be registered under another name and works", async () => {
    class MyStatus extends PorchlightStatus {}
    customElements.define("my-status", MyStatus);
    answers(() => json(page()));
    const el = await mount({}, "my-status");
    expect(el).toBeInstanceOf(MyStatus);
    expect(el).toBeInstanceOf(PorchlightStatus);
    expect(text($(el, '[part="header"] h2') as HTMLElement)).toBe("Acme Status");
    expect(calls[0]?.url).toBe(PAGE_URL);
  });
});

describe("messages", () => {
  const english = MESSAGES.en as Record<string, string>;
  const languages = Object.keys(MESSAGES).filter((lang) => lang !== "en");

  test("there are translations", () => {
    expect(languages).toEqual(expect.arrayContaining(["de", "he"]));
  });

  test.each(languages)(
    "%s has exactly the English keys, each with a non-empty value and the same placeholders",
    (lang) => {
      const table = MESSAGES[lang] as Record<string, string | undefined>;
      expect(Object.keys(table)).toEqual(Object.keys(english));
      for (const [key, value] of Object.entries(table)) {
        expect(typeof value, `${lang}.${key}`).toBe("string");
        expect(value?.trim(), `${lang}.${key}`).not.toBe("");
        expect(value?.includes("{0}"), `${lang}.${key} placeholder`).toBe(english[key]?.includes("{0}"));
      }
    },
  );

  test("messagesFor picks the language of a locale, English otherwise, and the direction", () => {
    expect(messagesFor("de-AT")).toMatchObject({ lang: "de", dir: "ltr" });
    expect(messagesFor("he-IL")).toMatchObject({ lang: "he", dir: "rtl" });
    expect(messagesFor("fr-CA")).toMatchObject({ lang: "en", dir: "ltr", messages: MESSAGES.en });
  });
});

/**
 * The real API (createApp's node listener over a real SQLite store, seeded through the authenticated API) runs in a
 * child Node process: in this file's happy-dom environment URL, Request, Response and Headers are happy-dom's, and
 * the server modules cannot even load with them. The child prints its port; the element fetches with happy-dom's
 * own fetch, which enforces CORS from http://localhost:3000.
 */
const SERVER_SCRIPT = (helpers: string, password: string) => `
import { createServer } from "node:http";
import { client, makeApp, seedOwner, sqliteKind } from ${JSON.stringify(helpers)};
const { store, cleanup } = await sqliteKind.open();
const { app, listener } = makeApp(store);
const owner = await seedOwner(store);
const api = client(app, owner.token);
const must = async (call, status = 201) => {
  const answer = await call;
  if (answer.status !== status) throw new Error(JSON.stringify(answer.json));
  return answer.json.data;
};
const site = await must(api.post("/public/v1/sites", { url: "https://real.example.com", name: "Real site" }));
const open = await must(
  api.post("/public/v1/status-pages", { name: "Real Status", slug: "real", description: "Served by the real API." }),
);
await must(api.post(\`/public/v1/status-pages/\${open.id}/items\`, { siteId: site.id, label: "Real service" }));
const locked = await must(
  api.post("/public/v1/status-pages", {
    name: "Locked Status",
    slug: "locked",
    visibility: "password",
    password: ${JSON.stringify(password)},
  }),
);
await must(api.post(\`/public/v1/status-pages/\${locked.id}/items\`, { siteId: site.id, label: "Locked service" }));
const server = createServer(listener);
server.listen(0, "127.0.0.1", () => console.log(JSON.stringify({ port: server.address().port })));
process.on("SIGTERM", () => server.close(async () => { await cleanup(); process.exit(0); }));
`;

describe("against the real API over a real SQLite store", () => {
  const PASSWORD = "pässwörd-日本";
  let child: ChildProcess;
  let apiBase: string;

  beforeAll(async () => {
    const helpers = pathToFileURL(resolve(dirname(fileURLToPath(import.meta.url)), "../helpers.ts")).href;
    child = spawn(
      process.execPath,
      ["--import", "tsx", "--input-type=module", "-e", SERVER_SCRIPT(helpers, PASSWORD)],
      {
        // The child needs no PostgreSQL: helpers.ts only probes for it.
        env: { ...process.env, LOG_LEVEL: "silent", PORCHLIGHT_REQUIRE_POSTGRES: "" },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let output = "";
    const port = await new Promise<number>((done, fail) => {
      child.stdout?.on("data", (chunk) => {
        output += chunk;
        const line = /\{"port":(\d+)\}/.exec(output);
        if (line) done(Number(line[1]));
      });
      child.stderr?.on("data", (chunk) => {
        output += chunk;
      });
      child.on("exit", (code) => fail(new Error(`the API exited (${code}) before listening:\n${output}`)));
    });
    apiBase = `http://127.0.0.1:${port}`;
  });

  afterAll(async () => {
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((done) => child.on("exit", done));
    child.kill("SIGTERM");
    await exited;
  });

  /** The element's next load or error event (real network: waiting a fixed number of turns is not enough). */
  const next = (el: PorchlightStatus) =>
    new Promise<string>((done) => {
      const settled = (event: Event) => {
        el.removeEventListener("porchlight-load", settled);
        el.removeEventListener("porchlight-error", settled);
        done(event.type === "porchlight-load" ? "load" : (event as CustomEvent<ErrorDetail>).detail.problem);
      };
      el.addEventListener("porchlight-load", settled);
      el.addEventListener("porchlight-error", settled);
    });

  async function mountReal(slug: string) {
    const el = document.createElement("porchlight-status") as PorchlightStatus;
    el.setAttribute("slug", slug);
    el.setAttribute("api-base", apiBase);
    el.setAttribute("locale", "en");
    const first = next(el);
    document.body.append(el);
    await el.updateComplete;
    const outcome = await first;
    await el.updateComplete;
    return { el, outcome };
  }

  test("a public page renders across origins (happy-dom enforces CORS; fetch is not stubbed)", async () => {
    expect(window.location.origin).toBe("http://localhost:3000");
    expect(vi.isMockFunction(globalThis.fetch)).toBe(false);
    const { el, outcome } = await mountReal("real");
    expect(outcome).toBe("load");
    expect(text($(el, '[part="header"] h2') as HTMLElement)).toBe("Real Status");
    expect(text(el)).toContain("Served by the real API.");
    expect(text(el)).toContain("Real service");
    // A new site has no checks yet.
    expect(text($(el, '[part="banner"]') as HTMLElement)).toBe("Status unknown");
    // The daily bars follow a frame after the status.
    await settle(el);
    expect($$(el, '[part="history"] > li')).toHaveLength(90);
  });

  test('an unknown slug is "No such status page."', async () => {
    const { el, outcome } = await mountReal("no-such-page");
    expect(outcome).toBe("not_found");
    expect(text($(el, "h2") as HTMLElement)).toBe("No such status page.");
  });

  test("the password flow: asked, wrong, then right (non-ASCII, as UTF-8 bytes in the header)", async () => {
    const { el, outcome } = await mountReal("locked");
    expect(outcome).toBe("password_required");
    expect($(el, "input#password")).not.toBeNull();
    expect(text(el)).not.toContain("Locked service");

    const input = $<HTMLInputElement>(el, "input#password") as HTMLInputElement;
    input.value = "wrong password";
    let answered = next(el);
    ($(el, 'form[part="form"] button') as HTMLButtonElement).click();
    expect(await answered).toBe("password_incorrect");
    await el.updateComplete;
    expect(text($(el, '[role="alert"]') as HTMLElement)).toBe("The password is incorrect.");
    expect(input.getAttribute("aria-invalid")).toBe("true");
    expect(text(el)).not.toContain("Locked service");

    input.value = PASSWORD;
    answered = next(el);
    ($(el, 'form[part="form"] button') as HTMLButtonElement).click();
    expect(await answered).toBe("load");
    await el.updateComplete;
    expect(text($(el, '[part="header"] h2') as HTMLElement)).toBe("Locked Status");
    expect(text(el)).toContain("Locked service");
  });
});
