// Shared by the element's suites: page fixtures, a stubbed fetch, mounting, shadow-root queries and the clean-up
// after each test (this module registers it in every suite file that imports it).
import "../../../components/porchlight-status/index.ts";
import { spawn } from "node:child_process";
import { dirname, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, vi } from "vitest";
import { TABLES } from "../../../components/porchlight-status/languages.ts";
import { MESSAGES } from "../../../components/porchlight-status/messages.ts";
import { PorchlightStatus } from "../../../components/porchlight-status/porchlight-status.ts";
import type { ItemStatus, PublicItem, PublicStatusPage } from "../../../server/contract/status-page.ts";

// Every language's words, as if fetched already: the suites count the page's requests, and words.test.ts proves the
// fetch of a language's words.
Object.assign(MESSAGES, TABLES);

// This environment's Response and Headers are happy-dom's, as the element's own fetch would give it.
export const DomResponse = globalThis.Response;
export const DomHeaders = globalThis.Headers;

export const API = "https://status.example.test";
export const SLUG = "acme";
export const PAGE_URL = `${API}/public/v1/status-page/${SLUG}`;
export const MINUTE = 60_000;
export const DAY = 86_400_000;

/** A UTC calendar date `daysAgo` days before now, as the API writes history dates. */
export const isoDay = (daysAgo: number) => new Date(Date.now() - daysAgo * DAY).toISOString().slice(0, 10);

export function item(overrides: Partial<PublicItem> = {}): PublicItem {
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

export function page(overrides: Partial<PublicStatusPage> = {}): PublicStatusPage {
  return {
    name: "Acme Status",
    slug: SLUG,
    description: "Everything Acme runs.",
    visibility: "public",
    custom_domain: null,
    logo: null,
    favicon: null,
    theme: { mode: "auto", accentColor: "#2563eb" },
    display: { historyDays: 7, showUptime: true, showResponseTime: true, showIncidents: true },
    items: [item()],
    incidents: [],
    maintenance: [],
    ...overrides,
  };
}

/** A page whose items have these statuses. */
export const pageWith = (...statuses: ItemStatus[]) =>
  page({ items: statuses.map((status, i) => item({ id: i + 1, label: `Service ${i}`, status })) });

export const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new DomResponse(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
  });
/** The API's error envelope. */
export const problem = (status: number, error: string, headers: Record<string, string> = {}) =>
  json({ success: false, message: `The API says ${error}`, code: status, error }, status, headers);

export type Answer = Response | Error;
export interface Call {
  url: string;
  init: RequestInit;
  headers: Headers;
}

export let calls: Call[] = [];

/**
 * Replaces fetch: each request is recorded and answered by `respond`, which sees the request's index (0 first).
 * Like a real fetch, an aborted signal rejects with its reason.
 */
export function stubFetch(respond: (call: Call, index: number) => Answer | Promise<Answer>) {
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
export const answers = (...list: (() => Answer | Promise<Answer>)[]) =>
  stubFetch((_call, index) => (list[Math.min(index, list.length - 1)] as () => Answer)());

/**
 * Lets the stubbed fetch, the response body and Lit's update run (setImmediate is never faked here), then, with
 * real timers, the frame after which the daily bars render.
 */
export async function settle(el: PorchlightStatus): Promise<void> {
  for (let i = 0; i < 12; i++) await new Promise((resolve) => setImmediate(resolve));
  await el.updateComplete;
  if (vi.isFakeTimers()) return;
  await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve)));
  await el.updateComplete;
}

export async function mount(
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

export const root = (el: PorchlightStatus) => el.shadowRoot as ShadowRoot;
export const $ = <E extends Element = HTMLElement>(el: PorchlightStatus, selector: string) =>
  root(el).querySelector<E>(selector as never);
export const $$ = <E extends Element = HTMLElement>(el: PorchlightStatus, selector: string) => [
  ...root(el).querySelectorAll<E>(selector as never),
];
export const squash = (text: string | null | undefined) => (text ?? "").replace(/\s+/g, " ").trim();
export const text = (el: PorchlightStatus | Element) =>
  squash((el instanceof PorchlightStatus ? root(el) : el).textContent);
export const base = (el: PorchlightStatus) => $(el, '[part="base"]') as HTMLElement;
/** The color-scheme written in the base element's inline style. */
export const colorScheme = (el: PorchlightStatus) =>
  /color-scheme:\s*([^;]+)/.exec(base(el).getAttribute("style") ?? "")?.[1];

/** Records the element's events (they bubble out of the shadow root to the document). */
export function listen<T>(type: "porchlight-load" | "porchlight-error" | "porchlight-status-change") {
  const events: CustomEvent<T>[] = [];
  const record = (event: Event) => events.push(event as CustomEvent<T>);
  document.addEventListener(type, record);
  cleanups.push(() => document.removeEventListener(type, record));
  return events;
}

export async function submitPassword(el: PorchlightStatus, password: string): Promise<void> {
  const input = $<HTMLInputElement>(el, "input#password") as HTMLInputElement;
  input.value = password;
  ($(el, 'form[part="form"] button') as HTMLButtonElement).click();
  await settle(el);
}

export const cleanups: (() => void)[] = [];

afterEach(() => {
  document.body.replaceChildren();
  for (const cleanup of cleanups.splice(0)) cleanup();
  vi.useRealTimers();
  vi.unstubAllGlobals();
  sessionStorage.clear();
  // Undo a test's document.hidden override: the prototype's getter answers again.
  delete (document as { hidden?: boolean }).hidden;
});

/** test/helpers.ts as a file URL (made with node:url: happy-dom replaces the global URL), for startChildApi's scripts. */
export const TEST_HELPERS_URL = pathToFileURL(
  resolve(dirname(fileURLToPath(import.meta.url)), "../../helpers.ts"),
).href;

/**
 * Runs `script` (an ES module that starts an API and prints `{"port":N}` once it listens) in a child Node process:
 * in happy-dom's environment the server modules cannot load. The child needs no PostgreSQL (helpers.ts only probes
 * for it). `stop` ends it.
 */
export async function startChildApi(script: string): Promise<{ apiBase: string; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    env: { ...process.env, LOG_LEVEL: "silent", PORCHLIGHT_REQUIRE_POSTGRES: "" },
    stdio: ["ignore", "pipe", "pipe"],
  });
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
  return {
    apiBase: `http://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((done) => child.on("exit", done));
      child.kill("SIGTERM");
      await exited;
    },
  };
}
