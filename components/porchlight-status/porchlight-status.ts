import { html, LitElement, nothing, type PropertyValues } from "lit";
import type { Incident, ItemStatus, PublicItem, PublicStatusPage } from "../../server/contract/status-page.ts";
import { fetchStatusPage, type PageResult, type Problem } from "./client.ts";
import { type Formats, formatsFor, memo } from "./format.ts";
import { type Messages, messagesFor } from "./messages.ts";
import { styles } from "./porchlight-status.styles.ts";

/** The page's overall status, from its items: the banner's words and the `porchlight-status-change` detail. */
export type OverallStatus = "operational" | "degraded" | "partial" | "major" | "unknown";

/** The `detail` of `porchlight-load`: a page arrived or changed. */
export interface LoadDetail {
  slug: string;
  status: OverallStatus;
  /** The API's answer for the page: its items and incidents included. */
  page: PublicStatusPage;
}
/** The `detail` of `porchlight-error`: a request failed or the page needs a password. */
export interface ErrorDetail {
  slug: string;
  /** The API's error kind, `server` for another failed answer, or `network` when no answer came. */
  problem: Problem | "network";
  /** The HTTP status, or 0 when the network failed. */
  httpStatus: number;
  message: string;
}
/** The `detail` of `porchlight-status-change`: a refresh changed the overall status. */
export interface StatusChangeDetail {
  slug: string;
  status: OverallStatus;
  previous: OverallStatus;
}

/** The element's events, typed for `addEventListener` on any element (they bubble and are composed). */
declare global {
  interface HTMLElementEventMap {
    "porchlight-load": CustomEvent<LoadDetail>;
    "porchlight-error": CustomEvent<ErrorDetail>;
    "porchlight-status-change": CustomEvent<StatusChangeDetail>;
  }
}

/** All outage is major, some is partial; degraded next; operational when every watched item is; else unknown. */
export function overallStatus(items: readonly Pick<PublicItem, "status">[]): OverallStatus {
  const watched = items.filter((item) => item.status !== "paused");
  const count = (status: ItemStatus) => watched.filter((item) => item.status === status).length;
  const outages = count("outage");
  if (outages) return outages < watched.length ? "partial" : "major";
  if (count("degraded")) return "degraded";
  return watched.length && count("operational") === watched.length ? "operational" : "unknown";
}

/** The colour class of each status word, then its icon (the last character), so no status is told by colour alone. */
const LOOKS: Record<string, string> = {
  operational: "ok✓",
  degraded: "warn!",
  partial: "warn!",
  major: "bad×",
  outage: "bad×",
  paused: "none‖",
  unknown: "none?",
};

/** A status word with its icon. */
const statusWord = (status: string, words: Messages, key = status as keyof Messages) => {
  const look = LOOKS[status] as string;
  return html`<span class=${look.slice(0, -1)}><span data-mark=${look.slice(-1)} aria-hidden="true"></span>${words[key]}</span>`;
};

/** The origin this script was loaded from: the default API base. */
const SCRIPT_ORIGIN = /^https?:/.test(import.meta.url) ? new URL(import.meta.url).origin : "";

const MIN_REFRESH_SECONDS = 10;
/** After failures the wait doubles, up to 16 times the refresh interval. */
const MAX_BACKOFF_DOUBLINGS = 4;
const DAY_MS = 86_400_000;

const BAR = "<li tabindex=-1 class=\0 aria-label=\0></li>";
const TODAY = "<li tabindex=0 class=\0 aria-label=\0></li>";
/**
 * One template for n day bars, two bindings each (level, label), the last (today) the tab stop: one template per
 * item rather than one per day, which halves the cost of prerendering a page.
 */
const barStrings = memo((n: number) => {
  const strings = (n ? BAR.repeat(n - 1) + TODAY : "").split("\0");
  return Object.assign(strings, { raw: strings }) as unknown as TemplateStringsArray;
});

// replace() writes a number as its digits.
const fill = (text: string, value: string | number) => text.replace("{0}", value as string);

/**
 * The `days` UTC dates up to day number `today`, oldest first: where each ISO date stands, and each bar's label
 * start ("Nov 21, 2026: "). Kept for the last day, length and locale asked: every item of every page shares them.
 */
let lastDays: { key: string; f: Formats; dates: Map<string, number>; starts: string[] } | undefined;
function historyDays(today: number, days: number, f: Formats) {
  const key = `${today}/${days}`;
  if (lastDays?.key !== key || lastDays.f !== f) {
    const dates = new Map<string, number>();
    const starts: string[] = [];
    for (let i = 0; i < days; i++) {
      const date = new Date((today - days + 1 + i) * DAY_MS).toISOString().slice(0, 10);
      dates.set(date, i);
      starts.push(`${f.date(date)}: `);
    }
    lastDays = { key, f, dates, starts };
  }
  return lastDays;
}

/** "99.5% uptime" in the locale's words and numbers, made once per value. */
const uptimeLabels = new WeakMap<Messages, WeakMap<Formats, (uptime: number) => string>>();
function uptimeLabel(m: Messages, f: Formats): (uptime: number) => string {
  const byFormats = uptimeLabels.get(m) ?? new WeakMap<Formats, (uptime: number) => string>();
  uptimeLabels.set(m, byFormats);
  const label = byFormats.get(f) ?? memo((uptime: number) => fill(m.uptime, f.percentage(uptime)));
  byFormats.set(f, label);
  return label;
}

/**
 * A status page on any website: fetches it by slug from a Porchlight server and keeps it current. Every state keeps
 * one height (600 px, 360 px with `compact`); a longer page scrolls inside the element. It has no slots: everything
 * it shows comes from the API.
 *
 * @summary A Porchlight status page: overall status, monitored items with daily uptime bars, and incidents.
 *
 * @attr slug - The status page's slug (required).
 * @attr api-base - The Porchlight server, such as https://status.example.com; default: where this script came from.
 * @attr refresh - Seconds between refreshes; default 60, at least 10; 0 never refreshes.
 * @attr theme - `light`, `dark` or `auto`; default: the page's theme, else `auto` (the visitor's preference).
 * @attr locale - A BCP 47 locale for words and formats; default: the browser's. Words in English, German (`de`) and
 *   Hebrew (`he`, right to left); dates and numbers in any locale through Intl.
 * @attr compact - Boolean: status rows and open incidents only, no description, figures, history bars or timelines.
 * @attr remember-password - Boolean: keep a typed password for the browser session (sessionStorage).
 *
 * @csspart base - The outer box (a `section`).
 * @csspart header - The page's name and description.
 * @csspart banner - The overall status (a polite live region).
 * @csspart items - The list of monitored items.
 * @csspart item - One monitored item: its label, status, figures and history.
 * @csspart history - An item's daily uptime bars.
 * @csspart incidents - The list of incidents.
 * @csspart incident - One incident with its updates.
 * @csspart form - The password form.
 * @csspart input - The password field.
 * @csspart button - Every button: show the page, try again.
 * @csspart skeleton - The placeholder shown while loading.
 *
 * @cssprop [--porchlight-background=light-dark(#fff, #0d1117)] - The background.
 * @cssprop [--porchlight-color=light-dark(#1f2328, #e6edf3)] - The text colour.
 * @cssprop [--porchlight-accent] - The top border; default: the page's `theme.accentColor`.
 * @cssprop [--porchlight-operational-color=light-dark(#1a7f37, #3fb950)] - The colour of operational.
 * @cssprop [--porchlight-degraded-color=light-dark(#8a5300, #d29922)] - The colour of degraded and partial outage.
 * @cssprop [--porchlight-outage-color=light-dark(#c4232d, #ff7b72)] - The colour of outage and major outage.
 * @cssprop [--porchlight-font=system-ui, sans-serif] - The font family.
 *
 * @fires {CustomEvent<LoadDetail>} porchlight-load - A page arrived or changed: `detail` is `{ slug, status, page }`.
 * @fires {CustomEvent<ErrorDetail>} porchlight-error - A request failed or the page needs a password: `detail` is
 *   `{ slug, problem, httpStatus, message }`.
 * @fires {CustomEvent<StatusChangeDetail>} porchlight-status-change - A refresh changed the overall status: `detail`
 *   is `{ slug, status, previous }`.
 */
export class PorchlightStatus extends LitElement {
  static override styles = styles;
  static override properties = {
    slug: {},
    apiBase: { attribute: "api-base" },
    refresh: { type: Number },
    theme: {},
    locale: {},
    compact: { type: Boolean },
    rememberPassword: { type: Boolean, attribute: "remember-password" },
  };

  /**
   * The status page's slug (required).
   * @default ""
   */
  declare slug: string;
  /**
   * The Porchlight server, such as https://status.example.com; empty: the origin this script came from.
   * @default ""
   */
  declare apiBase: string;
  /**
   * Seconds between refreshes (at least 10); 0 never refreshes.
   * @default 60
   */
  declare refresh: number;
  /**
   * `light`, `dark` or `auto`; empty: the page's theme, else `auto` (the visitor's `prefers-color-scheme`).
   * @default ""
   */
  declare theme: "" | "light" | "dark" | "auto";
  /**
   * A BCP 47 locale for words and formats; empty: the browser's language.
   * @default ""
   */
  declare locale: string;
  /**
   * Status rows and open incidents only: no description, figures, history bars or update timelines.
   * @default false
   */
  declare compact: boolean;
  /**
   * Keep a typed password in `sessionStorage` for the browser session.
   * @default false
   */
  declare rememberPassword: boolean;

  // What the element shows; changed only in the task's callbacks, which then ask for a render.
  #page?: PublicStatusPage | undefined;
  #problem?: Problem | "network" | undefined;
  #updatedAt = 0;
  #key = "";
  /** Where remember-password keeps this page's password for the browser session. */
  #stored = "";
  #etag: string | null = null;
  #password = "";
  #retryAfter = 0;
  #failures = 0;
  #lastAttempt = 0;
  #focusPassword = false;
  /** The daily bars (most of the element's nodes) come a frame after the status, so the status paints first. */
  #barsShown = false;
  #request?: AbortController;
  #timer?: ReturnType<typeof setTimeout>;
  #ticker?: ReturnType<typeof setInterval>;

  constructor() {
    super();
    this.slug = this.apiBase = this.theme = this.locale = "";
    this.refresh = 60;
    this.compact = this.rememberPassword = false;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    document.addEventListener("visibilitychange", this.#onVisibility);
    this.#ticker = setInterval(() => document.hidden || this.requestUpdate(), 30_000);
    // Back in a document: the removal stopped refreshing and aborted any request.
    if (this.hasUpdated) this.reload();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    document.removeEventListener("visibilitychange", this.#onVisibility);
    clearInterval(this.#ticker);
    clearTimeout(this.#timer);
    this.#request?.abort();
  }

  /** The server: api-base, else where this script came from. */
  #base(): string {
    return (this.apiBase || SCRIPT_ORIGIN).replace(/\/+$/, "");
  }

  /** Fetches the page now, as the retry button does; a request still running is aborted, its answer ignored. */
  reload(): void {
    this.#request?.abort();
    const request = new AbortController();
    this.#request = request;
    const apiBase = this.#base();
    const slug = this.slug;
    if (this.#key !== `${apiBase}/${slug}`) {
      // Another page: nothing of the last one stays (on the first run, a prerendered page is this one).
      if (this.#key) {
        this.#page = this.#problem = undefined;
        this.#etag = null;
        this.#failures = 0;
      }
      this.#key = `${apiBase}/${slug}`;
      this.#stored = `porchlight:${this.#key}`;
      this.#password = (this.rememberPassword && this.#storage((s) => s.getItem(this.#stored))) || "";
    }
    this.#lastAttempt = Date.now();
    fetchStatusPage({ apiBase, slug, password: this.#password, etag: this.#etag, signal: request.signal }).then(
      (result) => request === this.#request && this.#received(result),
      (error) => request === this.#request && this.#failed(error),
    );
  }

  protected override updated(changed: PropertyValues<this>): void {
    // The first render, and every change of page (slug, api-base), fetches it.
    if (this.#key !== `${this.#base()}/${this.slug}`) this.reload();
    if (changed.has("refresh")) this.#schedule();
    if (this.#page && !this.#barsShown) {
      this.#barsShown = true;
      // After the next paint: a frame callback runs before that paint, a task queued from it after.
      requestAnimationFrame(() => setTimeout(() => this.requestUpdate()));
    }
    if (this.#focusPassword) {
      this.#focusPassword = false;
      const input = this.renderRoot.querySelector("input");
      input?.focus();
      input?.select();
    }
  }

  /**
   * Shows a page (or a prompt) known before the first request, as it was at `at` (epoch ms): what a prerendered
   * page gives its element, so the first render, on the server and in the browser, is the page itself.
   */
  protected prerendered(page: PublicStatusPage | undefined, problem: Problem | undefined, at: number): void {
    this.#page = page;
    this.#problem = problem;
    this.#updatedAt = at;
    this.#barsShown = true;
  }

  #received(result: PageResult): void {
    if (result.kind === "problem") {
      const { problem } = result;
      this.#problem = problem;
      this.#retryAfter = result.retryAfterSeconds;
      if (problem === "server") this.#failures++;
      else if (problem !== "rate_limited") this.#page = undefined;
      if (problem === "password_incorrect") {
        this.#password = "";
        if (this.rememberPassword) this.#storage((s) => s.removeItem(this.#stored));
        this.#focusPassword = true;
      }
      this.#emit("porchlight-error", { problem, httpStatus: result.status, message: result.message });
    } else {
      this.#problem = undefined;
      this.#failures = 0;
      this.#updatedAt = Date.now();
      if (result.kind === "page") {
        const { page } = result;
        const previous = this.#page && overallStatus(this.#page.items);
        const status = overallStatus(page.items);
        this.#page = page;
        this.#etag = result.etag;
        if (this.rememberPassword) this.#storage((s) => s.setItem(this.#stored, this.#password));
        this.#emit("porchlight-load", { status, page });
        if (previous && previous !== status) this.#emit("porchlight-status-change", { status, previous });
      }
    }
    if (!this.#page) this.#etag = null;
    this.#schedule();
    this.requestUpdate();
  }

  #failed(error: unknown): void {
    if ((error as Error).name === "AbortError") return;
    this.#problem = "network";
    this.#failures++;
    this.#emit("porchlight-error", { problem: "network", httpStatus: 0, message: String(error) });
    this.#schedule();
    this.requestUpdate();
  }

  /** sessionStorage, which sandboxed frames and strict privacy settings refuse: then nothing is remembered. */
  #storage<T>(use: (storage: Storage) => T): T | undefined {
    try {
      return use(sessionStorage);
    } catch {
      return undefined;
    }
  }

  #emit(type: string, detail: object): void {
    this.dispatchEvent(
      new CustomEvent(type, { detail: { slug: this.slug, ...detail }, bubbles: true, composed: true }),
    );
  }

  get #failing(): boolean {
    return this.#problem === "server" || this.#problem === "network";
  }

  /** The next refresh: every `refresh` seconds while a page shows, backing off after failures, never while hidden. */
  #schedule(): void {
    clearTimeout(this.#timer);
    if (!this.isConnected || document.hidden || !(this.refresh > 0) || !(this.#page || this.#failing)) return;
    const delay =
      Math.max(this.refresh, MIN_REFRESH_SECONDS) * 1000 * 2 ** Math.min(this.#failures, MAX_BACKOFF_DOUBLINGS);
    this.#timer = setTimeout(() => this.reload(), this.#lastAttempt + delay - Date.now());
  }

  #onVisibility = () => {
    this.#schedule();
    if (!document.hidden) this.requestUpdate();
  };

  #submit(event: SubmitEvent): void {
    event.preventDefault();
    this.#password = ((event.target as HTMLFormElement).elements.namedItem("password") as HTMLInputElement).value;
    this.reload();
  }

  /** Arrow keys, Home and End move between days; one day per item is in the tab order (a roving tabindex). */
  #onDayKey(event: KeyboardEvent): void {
    const day = event.target as HTMLElement;
    const days = [...(day.parentElement as HTMLElement).children] as HTMLElement[];
    const at = days.indexOf(day);
    // The section carries the writing direction (dir), and closest() stays inside the shadow root.
    const forward = day.closest("[dir=rtl]") ? -1 : 1;
    const move = { ArrowRight: forward, ArrowLeft: -forward, Home: -at, End: days.length }[event.key];
    if (move === undefined) return;
    event.preventDefault();
    const next = days[Math.min(days.length - 1, Math.max(0, at + move))] as HTMLElement;
    // A click can focus any day: whichever had the tab stop gives it up.
    for (const other of days) other.tabIndex = -1;
    next.tabIndex = 0;
    next.focus();
  }

  /** Words, direction and formats for the element's locale (formatsFor makes each locale's once). */
  #localized() {
    const locale = this.locale || navigator.language;
    let f: Formats;
    try {
      f = formatsFor(locale);
    } catch {
      // Not a locale Intl accepts.
      f = formatsFor("en");
    }
    return { f, ...messagesFor(locale) };
  }

  protected override render() {
    const { messages: m, lang, dir, f } = this.#localized();
    const page = this.#page;
    const accent = page?.theme.accentColor ?? "";
    const theme = this.theme || page?.theme.mode;
    // A page taller than the element scrolls inside it: then the box is a tab stop, so keyboards can scroll it.
    return html`<section
      part="base"
      tabindex=${page ? 0 : nothing}
      aria-labelledby="name"
      style="--_accent:${/^#[\da-f]{6}$/i.test(accent) ? accent : "#2563eb"};color-scheme:${theme === "light" || theme === "dark" ? theme : "light dark"}"
      lang=${lang}
      dir=${dir}
    >
      ${page ? this.#renderPage(page, m, f) : this.#renderProblem(m, f)}
    </section>`;
  }

  #renderProblem(m: Messages, f: Formats) {
    const problem = this.#problem;
    if (!problem) {
      return html`<div part="skeleton"><p role="status">${m.loading}</p></div>`;
    }
    if (problem.startsWith("password") || problem === "rate_limited") {
      const error =
        problem === "rate_limited"
          ? fill(m.limited, f.unit("second", this.#retryAfter || 60))
          : problem === "password_incorrect" && m.wrong;
      return html`<form part="form" @submit=${this.#submit}>
        <h2 id="name">${m.protected}</h2>
        <label for="password">${m.password}</label>
        <input
          id="password"
          name="password"
          part="input"
          type="password"
          autocomplete="current-password"
          required
          aria-invalid=${!!error}
          aria-describedby="name error"
        />
        ${error ? html`<p id="error" role="alert">${error}</p>` : nothing}
        <button part="button">${m.show}</button>
      </form>`;
    }
    // From the attribute, not the last request: a prerendered page renders this before any request.
    const apiBase = this.#base();
    return html`<div>
      <h2 id="name">
        ${
          problem === "sign_in_required"
            ? // Only the server's own slugs (letters, digits, dashes) answer sign_in_required.
              html`<a href="${apiBase}/${this.slug}">${m.private}</a>`
            : problem === "not_found"
              ? m.notFound
              : m.failed
        }
      </h2>
      <button part="button" @click=${this.reload}>${m.retry}</button>
    </div>`;
  }

  #renderPage(page: PublicStatusPage, m: Messages, f: Formats) {
    const now = Date.now();
    const status = overallStatus(page.items);
    const incidents = page.incidents.filter((incident) => !(this.compact && incident.resolved_at));
    return html`<header part="header">
        <h2 id="name">${page.name}</h2>
        ${this.compact ? nothing : html`<p>${page.description}</p>`}
      </header>
      <div part="banner" role="status">${statusWord(status, m)}</div>
      <p>
        ${fill(m.updated, f.ago(this.#updatedAt, now))}${
          this.#failing
            ? html` — <span class="bad">${m.failed}</span>
                <button part="button" @click=${this.reload}>${m.retry}</button>`
            : nothing
        }
      </p>
      <h3>${m.services}</h3>
      <ul part="items">
        ${page.items.map((item) => this.#renderItem(item, page, m, f, now))}
      </ul>
      ${
        page.display.showIncidents
          ? html`<h3>${m.incidents}</h3>
            ${
              incidents.length
                ? html`<ol part="incidents">
                  ${incidents.map((incident) => this.#renderIncident(incident, m, f, now))}
                </ol>`
                : html`<p>${m.noIncidents}</p>`
            }`
          : nothing
      }`;
  }

  #renderItem(item: PublicItem, page: PublicStatusPage, m: Messages, f: Formats, now: number) {
    const { showUptime, showResponseTime, historyDays } = page.display;
    const facts = [
      showUptime && item.uptime !== null && fill(m.uptime, f.percentage(item.uptime)),
      showResponseTime && item.response_time !== null && f.unit("millisecond", item.response_time),
      item.last_check && fill(m.checked, f.ago(item.last_check, now)),
    ];
    return html`<li part="item">
      <div><span>${item.label}</span>${statusWord(item.status, m, `item.${item.status}`)}</div>
      ${
        this.compact
          ? nothing
          : html`<p>${facts.filter(Boolean).join(" · ")}</p>
          ${showUptime ? this.#renderHistory(item, historyDays, m, f, now) : nothing}`
      }
    </li>`;
  }

  #renderHistory(item: PublicItem, days: number, m: Messages, f: Formats, now: number) {
    const { dates, starts } = historyDays(Math.floor(now / DAY_MS), days, f);
    const uptimes: (number | undefined)[] = new Array(days);
    for (const day of item.history) {
      const at = dates.get(day.date);
      if (at !== undefined) uptimes[at] = day.uptime;
    }
    const label = uptimeLabel(m, f);
    const values: string[] = [];
    // Until then, the empty list holds their place: nothing moves when they arrive.
    for (let i = 0; this.#barsShown && i < days; i++) {
      const uptime = uptimes[i];
      if (uptime === undefined) values.push("none", starts[i] + m.noData);
      else values.push(uptime >= 99 ? "ok" : uptime >= 95 ? "warn" : "bad", starts[i] + label(uptime));
    }
    return html`<ol part="history" aria-label=${fill(m.history, days)} @keydown=${this.#onDayKey}>
      ${html(barStrings(values.length / 2), ...values)}
    </ol>`;
  }

  #renderIncident(incident: Incident, m: Messages, f: Formats, now: number) {
    const end = incident.resolved_at;
    const minutes = incident.duration_minutes ?? Math.floor((now - Date.parse(incident.started_at)) / 60_000);
    return html`<li part="incident">
      <h4>${incident.title}</h4>
      <p>
        <b class=${end ? "ok" : "warn"}>${m[incident.status]}</b> ·
        ${f.when(incident.started_at)}${end ? ` – ${f.when(end)}` : ""} ·
        ${f.duration(Math.max(0, minutes))}
      </p>
      ${
        this.compact
          ? nothing
          : html`<ol>
            ${incident.updates.map(
              (update) =>
                html`<li>
                  <b>${m[update.status]}</b> · <time datetime=${update.timestamp}>${f.when(update.timestamp)}</time>
                  <p>${update.message}</p>
                </li>`,
            )}
          </ol>`
      }
    </li>`;
  }
}
