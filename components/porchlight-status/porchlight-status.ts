import { html, LitElement, nothing } from "lit";
import { overallStatus } from "../../server/contract/status.ts";
import type { Incident, PublicGroup, PublicItem, PublicStatusPage } from "../../server/contract/status-page.ts";
import type { Problem } from "./client.ts";
import { type Formats, formatsFor } from "./format.ts";
import { ENGLISH, LANGUAGES, MESSAGES, type Messages, messagesFor } from "./messages.ts";
import { styles } from "./porchlight-status.styles.ts";
import { StatusController } from "./status-controller.ts";

export type { ErrorDetail, LoadDetail, StatusChangeDetail } from "./events.ts";

/** The colour class of each status word, then its icon (the last character), so no status is told by colour alone. */
const LOOKS: Record<string, string> = {
  operational: "ok✓",
  degraded: "warn!",
  partial: "part ",
  major: "bad×",
  partial_outage: "part ",
  major_outage: "bad×",
  paused: "none‖",
  unknown: "none?",
  maintenance: "info⚙",
};

/** The colour class of a status. */
const look = (status: string) => (LOOKS[status] as string).slice(0, -1);

/** A status word with its icon. */
const statusWord = (status: string, words: Messages, key = status as keyof Messages) =>
  html`<span class=${look(status)}><span data-mark=${(LOOKS[status] as string).slice(-1)} aria-hidden="true"></span>${words[key]}</span>`;

/** The words of each language being fetched, by language (see #localized). */
const fetching = new Map<string, Promise<unknown>>();

const DAY_MS = 86_400_000;
/** The days shown when the element is narrow (under 480 px, the styles' container query). */
const SHORT = 30;

/** Day `at` of the `days` up to day number `today` (UTC days since 1970), as the locale writes it: "Nov 21, 2026". */
const dayDate = (today: number, days: number, at: number, f: Formats) =>
  f.date(new Date((today - days + 1 + at) * DAY_MS).toISOString().slice(0, 10));

/**
 * A day's grade by its uptime (README, "Daily bars"): none (no data), ok (100%), g1 (99% and up: under about
 * 15 minutes down), g2 (95% and up), g3 (75% and up), bad (below 75%).
 */
const level = (uptime?: number) =>
  uptime === undefined
    ? "none"
    : uptime >= 100
      ? "ok"
      : uptime >= 99
        ? "g1"
        : uptime >= 95
          ? "g2"
          : uptime >= 75
            ? "g3"
            : "bad";

/** The item statuses at fault, worst first: the banner names the services of each under its own word. */
const FAULTS = ["major_outage", "partial_outage", "degraded"] as const;

// replace() writes a number as its digits.
// A function, so that "$&" or "$$" in a value (a service's name) stays as written.
const fill = (text: string, value: string | number) => text.replace("{0}", () => value as string);
/** A sentence with a template in place of its `{0}`. */
const fillWith = (text: string, value: unknown) => {
  const [before, after] = text.split("{0}");
  return html`${before}${value}${after}`;
};

/**
 * A status page on any website: fetches it by slug from a Porchlight server and keeps it current. The skeleton and
 * the page keep one height (600 px, 360 px with `compact`), and a longer page scrolls inside the element; a message
 * shown instead of a page (the password prompt, a private or unknown page, an error) takes only the height of its
 * content. It has no slots: everything it shows comes from the API.
 *
 * @summary A Porchlight status page: overall status, monitored items with daily uptime bars, and incidents.
 *
 * @attr slug - The status page's slug (required).
 * @attr api-base - The Porchlight server, such as https://status.example.com; default: where this script came from.
 * @attr refresh - Seconds between refreshes; default 60, at least 10; 0 never refreshes.
 * @attr theme - `light`, `dark` or `auto` (the visitor's preference); default: the page's theme when it is `light` or
 *   `dark`, else `light` (a hosted page's: the page's theme).
 * @attr locale - A BCP 47 locale for words and formats; default: the browser's. Words in English, German (`de`) and
 *   Hebrew (`he`, right to left; fetched from the server, /embed/words-LANG.json); dates and numbers in any locale
 *   through Intl.
 * @attr compact - Boolean: a summary line and what is wrong (the active incidents, the services not operational), the
 *   operational services folded; no description, uptime, history bars, timelines or past incidents.
 * @attr remember-password - Boolean: keep a typed password for the browser session (sessionStorage).
 *
 * @csspart base - The outer box (a `section`).
 * @csspart header - The page's name and description.
 * @csspart banner - The overall status (a polite live region).
 * @csspart items - The list of monitored items.
 * @csspart others - The operational items folded behind one line (a `details`) while others are at fault.
 * @csspart group - A component group: its button (aria-expanded) with its name, its status, description and members.
 * @csspart item - One monitored item: its label, status, uptime and daily history.
 * @csspart history - An item's daily uptime bars.
 * @csspart incidents - The list of incidents.
 * @csspart incident - One incident with its updates.
 * @csspart form - The password form.
 * @csspart input - The password field.
 * @csspart button - Every button: show the page, try again.
 * @csspart subscribe - The "Subscribe to updates" link, when the page takes subscriptions (it opens the server's form).
 * @csspart skeleton - The placeholder shown while loading.
 *
 * @cssstate message - A message shows instead of a page (the password prompt, a private or unknown page, an error):
 *   the element is as tall as its content, `:state(message)` in the host page's CSS.
 *
 * @cssprop [--porchlight-background=light-dark(#fff, #0d1117)] - The background.
 * @cssprop [--porchlight-color=light-dark(#1f2328, #e6edf3)] - The text colour.
 * @cssprop [--porchlight-accent] - The top border; default: the page's `theme.accentColor`.
 * @cssprop [--porchlight-operational-color=light-dark(#1a7f37, #3fb950)] - The colour of operational.
 * @cssprop [--porchlight-degraded-color=light-dark(#9a6700, #d29922)] - The colour of degraded.
 * @cssprop [--porchlight-partial-color=light-dark(#bc4c00, #f0883e)] - The colour of partial outage.
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
   * `light`, `dark` or `auto` (the visitor's `prefers-color-scheme`); empty: the page's theme when it is `light` or
   * `dark`, else `light`.
   * @default ""
   */
  declare theme: "" | "light" | "dark" | "auto";
  /**
   * A BCP 47 locale for words and formats; empty: the browser's language.
   * @default ""
   */
  declare locale: string;
  /**
   * A summary line and what is wrong: the active incidents and the services not operational, the rest folded.
   * @default false
   */
  declare compact: boolean;
  /**
   * Keep a typed password in `sessionStorage` for the browser session.
   * @default false
   */
  declare rememberPassword: boolean;

  /** Fetches the page and keeps it current; what the element shows comes from it, which asks for each render. */
  #status = new StatusController(this);
  #ticker?: ReturnType<typeof setInterval>;
  /** The custom states (`:state(message)`); none where the browser, or happy-dom, has no ElementInternals. */
  #states = this.attachInternals?.().states;
  /**
   * The past incidents whose updates a visitor opened: a refresh that puts another incident in that place shows it
   * folded, and the opened one stays open where it moved.
   */
  #opened = new Set<string>();
  /** The groups a visitor opened or closed, by id: their choice stands over the page's default while they stay. */
  #groups = new Map<number, boolean>();
  /** The day picked in each item's bars (see #onDay), as days before today, by item: a refresh keeps it. */
  #days = new Map<unknown, number>();
  /** The password prompt shows what is typed (its "Show password" box). */
  #reveal = false;
  /**
   * The page's name for the password prompt, when known without the password (a hosted page's server renders it):
   * names are not secret, items and incidents are.
   */
  protected promptName?: string;
  /** The page's accent for the prompt's lock and button, likewise. */
  protected promptAccent?: string;
  /** The page's logo for the prompt, likewise (shown by an embed or a frame: a hosted page shows it above). */
  protected promptLogo?: string | null;
  /** Waiting for the words of its language (see #localized). */
  #awaiting = false;
  /** A password was sent: when the page comes, the focus moves from the vanished form to its heading. */
  #unlocking = false;
  /**
   * Set (epoch ms) to render as a server does at that instant: every time absolute and in UTC, named so, and nothing
   * measured to "now" (no "3 minutes ago", no open incident's duration), since such text would go stale in the
   * page. A prerendered page renders so on the server and for its hydration, then shows the visitor's.
   */
  protected serverTime?: number;
  /**
   * An embed, which sits in someone else's page: it leads with what is wrong (while a service is down or degraded,
   * the operational ones fold behind one line), and it is light unless the host or the page's owner asks for dark
   * or `auto`, so it never turns into a black box in a light site. A whole page (hosted, static) lists every service
   * in its order and follows its theme.
   */
  protected embedded = true;

  constructor() {
    super();
    this.slug = this.apiBase = this.theme = this.locale = "";
    this.refresh = 60;
    this.compact = this.rememberPassword = false;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    // "Updated … ago" stays current, without a request.
    this.#ticker = setInterval(() => document.hidden || this.requestUpdate(), 30_000);
    // Captured: a host page that stops Escape (a dialog of its own) does not keep the tooltip up.
    document.addEventListener("keydown", this.#escape, true);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    clearInterval(this.#ticker);
    document.removeEventListener("keydown", this.#escape, true);
  }

  /** Fetches the page now, as the retry button does; a request still running is aborted, its answer ignored. */
  reload(): void {
    this.#status.load();
  }

  protected override updated(): void {
    // Lit reuses a place's details for whichever incident comes there: each shows its own incident's state.
    for (const details of this.renderRoot.querySelectorAll<HTMLDetailsElement>("details[data-id]")) {
      details.open = this.#opened.has(details.dataset.id as string);
    }
    if (this.#status.focusPassword) {
      this.#status.focusPassword = false;
      const input = this.renderRoot.querySelector("input");
      input?.focus();
      input?.select();
    }
    if (this.#unlocking && this.#status.page) {
      this.#unlocking = false;
      // Only if the focus fell with the form (to the body, or to this host): not when the visitor went elsewhere.
      const active = document.activeElement;
      if (!active || active === document.body || active === this) this.renderRoot.querySelector("h2")?.focus();
    }
  }

  /**
   * Shows a page (or a prompt) known before the first request, as it was at `at` (epoch ms): what a prerendered
   * page gives its element, so the first render, on the server and in the browser, is the page itself. With the
   * API's ETag for the page (a hosted page inlines it), the page counts as fetched at `at`.
   */
  protected prerendered(
    page: PublicStatusPage | undefined,
    problem: Problem | undefined,
    at: number,
    etag?: string,
  ): void {
    const status = this.#status;
    status.page = page;
    status.problem = problem;
    status.updatedAt = at;
    // The API's current answer, with its ETag: the first request waits for the refresh interval (see adopt).
    if (page && etag) status.adopt(etag, at);
  }

  #submit(event: SubmitEvent): void {
    event.preventDefault();
    this.#unlocking = true;
    this.#status.usePassword(
      ((event.target as HTMLFormElement).elements.namedItem("password") as HTMLInputElement).value,
    );
  }

  /**
   * An item's days, a slider whose value is a day: the pointer over the bars (or a tap), or the arrow keys, Home and
   * End while it has the focus, pick a day, and the tooltip shows its date and uptime over it (the slider's value text, so the
   * tooltip itself is hidden from assistive technology). Leaving the bars hides it, unless for the tooltip (it can be
   * hovered, WCAG 1.4.13), as does losing the focus, and Escape anywhere (#escape). Only the days shown count: a
   * narrow element shows the last 30 (a container query).
   */
  #onDay(event: Event, item: unknown, text: (at: number) => string, days: number, first: number): void {
    const history = event.currentTarget as HTMLElement;
    const tip = this.renderRoot.querySelector(".tip") as HTMLElement;
    const { type } = event;
    // A tap picks a day and leaves as it ends: the day stays shown while the bars have the focus the tap gave them.
    if (
      type === "blur" ||
      (type === "pointerleave" && (event as PointerEvent).relatedTarget !== tip && !history.matches(":focus")) ||
      !history.firstElementChild
    ) {
      tip.hidden = true;
      return;
    }
    // Where the days are: the runs, oldest first, span them all, the oldest clipped on a narrow element (how many
    // show, from the bars' box: the same pixels, zoomed or scaled, as the runs'). The section carries the writing
    // direction (dir), and closest() stays inside the shadow root.
    const rtl = !!history.closest("[dir=rtl]");
    const a = (history.firstElementChild as Element).getBoundingClientRect();
    const b = (history.lastElementChild as Element).getBoundingClientRect();
    const left = rtl ? b.left : a.left;
    const right = rtl ? a.right : b.right;
    // The bars begin at the first day with data.
    const width = (right - left) / (days - first);
    let at = days - 1 - (this.#days.get(item) ?? 0);
    if (type === "keydown") {
      const forward = rtl ? -1 : 1;
      const move = { ArrowRight: forward, ArrowLeft: -forward, ArrowUp: 1, ArrowDown: -1, Home: -days, End: days }[
        (event as KeyboardEvent).key
      ];
      if (move === undefined) return;
      event.preventDefault();
      at += move;
    } else if (type !== "focus") {
      const x = (event as PointerEvent).clientX;
      at = first + Math.floor((rtl ? right - x : x - left) / width);
    }
    // Not laid out (no width): every day with data counts.
    at = Math.min(days - 1, Math.max(first, days - Math.round(history.getBoundingClientRect().width / width) || 0, at));
    // Kept as days before today, so that a refresh with fewer days, or after midnight, keeps a day there is. The
    // slider's value and text follow in the render (written here, Lit would not know them and could leave them).
    this.#days.set(item, days - 1 - at);
    this.requestUpdate();
    tip.textContent = text(at);
    tip.hidden = false;
    // Over the day, touching the bars (so that the pointer can move onto it), and inside the box, which never
    // scrolls sideways. An absolute position starts inside the box's border.
    const box = tip.parentElement as HTMLElement;
    const place = box.getBoundingClientRect();
    const center = rtl ? right - (at - first + 0.5) * width : left + (at - first + 0.5) * width;
    tip.style.left = `${Math.max(0, Math.min(box.clientWidth - tip.offsetWidth, center - place.left - box.clientLeft - tip.offsetWidth / 2))}px`;
    // Above the bars, or under them where the box's visible top would cut it off: always inside the card.
    const bars = history.getBoundingClientRect();
    const top = bars.top - place.top - box.clientTop + box.scrollTop;
    tip.style.top = `${top - tip.offsetHeight < box.scrollTop ? top + bars.height : top - tip.offsetHeight}px`;
  }

  /**
   * Hides the tooltip on Escape, wherever the focus is (WCAG 1.4.13: dismissible without moving the pointer or the
   * focus), and when the pointer leaves the tooltip (a pointer event has no key).
   */
  #escape = (event: Event) => {
    const tip = this.renderRoot.querySelector<HTMLElement>(".tip");
    if (tip && ((event as KeyboardEvent).key ?? "Escape") === "Escape") tip.hidden = true;
  };

  #onReveal(event: Event): void {
    this.#reveal = (event.target as HTMLInputElement).checked;
    this.requestUpdate();
  }

  #onToggle(event: Event): void {
    const details = event.target as HTMLDetailsElement;
    this.#opened[details.open ? "add" : "delete"](details.dataset.id as string);
  }

  /**
   * Formats for the element's locale (formatsFor makes each locale's once). Not made for the skeleton: a document's
   * first use of Intl loads its locale data (15-25 ms in Chromium), which the embed's script does in a task of its
   * own while the page is on its way (index.ts).
   */
  #formats(): Formats {
    try {
      return formatsFor(this.locale || navigator.language, this.serverTime === undefined ? undefined : "UTC");
    } catch {
      // Not a locale Intl accepts.
      return formatsFor("en");
    }
  }

  /**
   * Words and direction for the element's locale. Words this script does not carry are fetched from the server
   * (dist/embed/words-LANG.json), once per language for every element of the document; until they come the element
   * shows its skeleton, and if they cannot, it speaks English.
   */
  #localized() {
    const words = messagesFor(this.locale || navigator.language);
    const { lang } = words;
    if (!words.messages) {
      let load = fetching.get(lang);
      if (!load) {
        // The same words on every Porchlight server: the first element's asks for all of the document's.
        load = fetch(`${this.#status.base}/embed/words-${lang}.json`, { signal: AbortSignal.timeout(10_000) })
          .then((answer) => (answer.ok ? answer.json() : Promise.reject()))
          .then(
            (table) => (MESSAGES[lang] = { ...ENGLISH, ...table }),
            // Not to be had (an error, 10 seconds gone): English, and lang="en", from now on (>>> 0: a language
            // gone already is spliced at an index past the end, which removes nothing).
            () => LANGUAGES.splice(LANGUAGES.indexOf(lang) >>> 0, 1),
          );
        fetching.set(lang, load);
      }
      if (!this.#awaiting) {
        this.#awaiting = true;
        load.then(() => {
          this.#awaiting = false;
          this.requestUpdate();
        });
      }
    }
    return words;
  }

  protected override render() {
    const { messages, lang, dir } = this.#localized();
    const m = messages ?? ENGLISH;
    const page = messages && this.#status.page;
    const problem = messages && this.#status.problem;
    const given = page?.theme.accentColor ?? this.promptAccent ?? this.#status.prompt?.accentColor ?? "";
    const accent = /^#[\da-f]{6}$/i.test(given) ? given : "#2563eb";
    // Text on the accent (the prompt's button): black on a light accent, else white (the perceived lightness).
    const [r, g, b] = [1, 3, 5].map((i) => Number.parseInt(accent.slice(i, i + 2), 16));
    const onAccent = (r as number) * 0.3 + (g as number) * 0.59 + (b as number) * 0.11 > 150 ? "#000" : "#fff";
    // Before the page comes (the skeleton, a prompt, an error) its theme is not known: auto, which an embed draws light.
    const mode = this.theme || page?.theme.mode || "auto";
    const theme = !this.theme && this.embedded && mode === "auto" ? "light" : mode;
    const message = !page && !!problem;
    try {
      this.#states?.[message ? "add" : "delete"]("message");
    } catch {
      // Chromium before 125 knew only names that start with "--": there the element keeps its height.
    }
    // A page taller than the element scrolls inside it: then the box is a tab stop, so keyboards can scroll it.
    return html`<section
      part="base"
      tabindex=${page ? 0 : nothing}
      aria-labelledby="name"
      style="--_accent:${accent};--_on-accent:${onAccent};color-scheme:${theme === "light" || theme === "dark" ? theme : "light dark"}"
      lang=${lang}
      dir=${dir}
    >
      ${page ? this.#renderPage(page, m, this.#formats()) : this.#renderProblem(m, problem)}
    </section>`;
  }

  #renderProblem(m: Messages, problem: Problem | "network" | undefined) {
    const { retryAfter } = this.#status;
    if (!problem) {
      return html`<div part="skeleton"><p role="status">${m.loading}</p></div>`;
    }
    if (problem.startsWith("password") || problem === "rate_limited") {
      // The wait in words ("about 15 minutes"), never in seconds; without Retry-After, about a minute.
      const [wait, rounded] = this.#formats().wait(retryAfter || 60);
      const error =
        problem === "rate_limited"
          ? fill(m.limited, rounded || !retryAfter ? fill(m.about, wait) : wait)
          : problem === "password_incorrect" && m.wrong;
      // The page's logo (an embed's: a hosted page shows it above the element) or a lock, its name when it is known
      // (from the hosted page's server or the API's 401), and the field and button across the form.
      const prompt = this.#status.prompt;
      const name = this.promptName ?? prompt?.name;
      const logo = this.embedded && (this.promptLogo ?? prompt?.logo);
      return html`<form part="form" @submit=${this.#submit}>
        ${
          logo
            ? // An uploaded logo's path is on the server the page comes from.
              html`<img src=${logo[0] === "/" ? this.#status.base + logo : logo} alt="" />`
            : html`<svg viewBox="0 0 24 24" aria-hidden="true">
                <path d="M7 11V7a5 5 0 0 1 10 0v4" fill="none" stroke="currentColor" stroke-width="2" />
                <rect x="4" y="11" width="16" height="10" rx="2" fill="currentColor" />
              </svg>`
        }
        <h2 id="name">${name || m.protected}</h2>
        ${name ? html`<p id="why">${m.protected}</p>` : nothing}
        <label for="password">${m.password}</label>
        <input
          id="password"
          name="password"
          part="input"
          type=${this.#reveal ? "text" : "password"}
          autocomplete="current-password"
          required
          aria-invalid=${!!error}
          aria-describedby=${name ? "why error" : "name error"}
        />
        <label class="reveal"
          ><input type="checkbox" .checked=${this.#reveal} @change=${this.#onReveal} /> ${m.reveal}</label
        >
        ${error ? html`<p id="error" role="alert">${error}</p>` : nothing}
        <button part="button">${m.show}</button>
      </form>`;
    }
    // A private page says so without a link (there is no sign-in for visitors yet); an unknown or private page is
    // not worth asking again, a failed request (the server's or the network's) is.
    const failed = this.#status.failing;
    return html`<div>
      <h2 id="name">${problem === "sign_in_required" ? m.private : failed ? m.failed : m.notFound}</h2>
      ${failed ? html`<button part="button" @click=${this.reload}>${m.retry}</button>` : nothing}
    </div>`;
  }

  #renderPage(page: PublicStatusPage, m: Messages, f: Formats) {
    const now = this.serverTime ?? Date.now();
    const status = overallStatus(page.items);
    const { items, incidents, display } = page;
    const shown = display.showIncidents ? incidents : [];
    const open = shown.filter((incident) => !incident.resolved_at);
    const past = shown.filter((incident) => incident.resolved_at);
    // The banner names what is at fault under its own word (a slow service is degraded, not in an outage); a paused
    // or unknown service is not at fault.
    const faults = FAULTS.map((fault) => [fault, items.filter((item) => item.status === fault)] as const).filter(
      ([, at]) => at.length,
    );
    const fine = items.filter((item) => item.status === "operational");
    const rest = items.filter((item) => item.status !== "operational");
    // Folded: what is wrong first, and the operational rest behind one line (compact, and an embed with a fault).
    const fold = this.compact || (this.embedded && faults.length > 0);
    // Folded, the services are listed as they are; unfolded, a group's members are in its place, under it.
    const groups = new Map((fold ? [] : (page.groups ?? [])).map((group) => [group.id, group]));
    const list = (shown: PublicItem[]) =>
      html`<ul part="items">
        ${shown.map((item, i) => {
          const group = groups.get(item.group_id as number);
          if (!group) return this.#renderItem(item, page, m, f, now);
          return shown[i - 1]?.group_id === group.id
            ? nothing
            : this.#renderGroup(
                group,
                shown.filter((member) => member.group_id === group.id),
                page,
                m,
                f,
                now,
              );
        })}
      </ul>`;
    const timeline = (shown: Incident[], past = false) =>
      html`<ol part="incidents">
        ${shown.map((incident) => this.#renderIncident(incident, page, m, f, now, past))}
      </ol>`;
    // Past incidents by the day they began, in the visitor's zone, newest first as the API sends them.
    const days: [string, Incident[]][] = [];
    for (const incident of past) {
      const day = f.day(incident.started_at);
      if (days.at(-1)?.[0] === day) days.at(-1)?.[1].push(incident);
      else days.push([day, [incident]]);
    }
    // Maintenance under way comes above the services (it is why some show "Maintenance"); what is coming, below
    // them, one quiet line each. Compact leaves both to the banner and the statuses.
    const windows = this.compact ? [] : (page.maintenance ?? []);
    const maintenance = (active: boolean) => {
      const at = windows.filter((w) => w.active === active);
      return at.length
        ? html`<ul part="maintenance" class=${active ? "" : "soon"}>
            ${at.map(
              (w) => html`<li>
                <b class="chip">${active ? m.inProgress : m.scheduled}</b> <b>${w.title}</b> ·
                <time datetime=${w.startsAt}>${f.when(w.startsAt)}</time> – <time datetime=${w.endsAt}>${f.until(w.startsAt, w.endsAt)}</time>
                ${active && w.description ? html`<p>${w.description}</p>` : nothing}
              </li>`,
            )}
          </ul>`
        : nothing;
    };
    // Active incidents lead the page; compact, a summary of 360 px, leads with the services at fault instead.
    const incidentsNow = open.length ? html`<h3>${m.active}</h3>${timeline(open)}` : nothing;
    // The heading takes the focus after a password unlocks the page (tabindex -1: focusable, not a tab stop).
    return html`<header part="header">
        <h2 id="name" tabindex="-1">${page.name}</h2>
        ${this.compact ? nothing : html`<p>${page.description}</p>`}
      </header>
      <div part="banner" role="status" class=${look(status)}>
        ${statusWord(status, m)}${
          // Compact lists the services at fault right under it.
          this.compact
            ? nothing
            : faults.map(([fault, at]) => html`<p>${m[`item.${fault}`]}: ${f.list(at.map((item) => item.label))}</p>`)
        }
      </div>
      <p>
        ${fillWith(m.updated, this.#stamp(new Date(this.#status.updatedAt).toISOString(), f, now))}${
          this.#status.failing
            ? html` — <span class="bad">${m.failed}</span>
                <button part="button" @click=${this.reload}>${m.retry}</button>`
            : nothing
        }${
          page.subscribe
            ? html` · <a part="subscribe" href="${this.#status.base}/subscriptions/new?page=${page.slug}" target="_blank"
                  >${m.subscribe}</a
                >`
            : nothing
        }
      </p>
      ${this.compact ? nothing : incidentsNow}
      ${windows.some((w) => w.active) ? html`<h3>${m["item.maintenance"]}</h3>${maintenance(true)}` : nothing}
      <h3 class=${this.compact ? "vh" : ""}>${m.services}</h3>
      ${
        fold
          ? html`${rest.length ? list(rest) : nothing}
            ${
              fine.length
                ? html`<details part="others">
                    <summary>${statusWord("operational", m, "item.operational")} (${fine.length})</summary>
                    ${list(fine)}
                  </details>`
                : nothing
            }`
          : list(items)
      }
      ${this.compact ? incidentsNow : nothing} ${maintenance(false)}
      ${
        this.compact || (!past.length && open.length) || !display.showIncidents
          ? nothing
          : html`<h3>${m.incidents}</h3>
            ${past.length ? days.map(([day, shown]) => html`<h4>${day}</h4>${timeline(shown, true)}`) : html`<p>${m.noIncidents}</p>`}`
      }
      <div class="tip" aria-hidden="true" hidden @pointerleave=${this.#escape}></div>`;
  }

  /**
   * A component group: a disclosure button with its name, then its status (its worst member's); its description and
   * members under it. Closed, it names its members at fault (the page sends a group with one open, but a visitor
   * may have closed it).
   */
  #renderGroup(
    group: PublicGroup,
    members: PublicItem[],
    page: PublicStatusPage,
    m: Messages,
    f: Formats,
    now: number,
  ) {
    const open = this.#groups.get(group.id) ?? !group.collapsed;
    const faults = members.filter((item) => (FAULTS as readonly string[]).includes(item.status));
    return html`<li part="group">
      <div>
        <button
          aria-expanded=${open}
          aria-controls="g${group.id}"
          @click=${() => {
            this.#groups.set(group.id, !open);
            this.requestUpdate();
          }}
        >
          ${group.name}</button
        >${statusWord(group.status, m, `item.${group.status}`)}
      </div>
      ${group.description ? html`<p>${group.description}</p>` : nothing}
      ${!open && faults.length ? html`<p>${f.list(faults.map((item) => item.label))}</p>` : nothing}
      <ul id="g${group.id}" ?hidden=${!open}>
        ${members.map((item) => this.#renderItem(item, page, m, f, now))}
      </ul>
    </li>`;
  }

  /**
   * A service's row: its label and status, then (unless compact) its uptime and daily bars. No per-check figures
   * (the latest check's time and response time): they change at every check and tell a visitor nothing the status
   * does not; owners read them from the API.
   */
  #renderItem(item: PublicItem, page: PublicStatusPage, m: Messages, f: Formats, now: number) {
    const { showUptime, historyDays } = page.display;
    return html`<li part="item" style="--days:${historyDays}">
      <div><span>${item.label}</span>${statusWord(item.status, m, `item.${item.status}`)}</div>
      ${
        this.compact || !showUptime
          ? nothing
          : html`<p>${item.uptime === null ? nothing : fill(m.uptime, f.percentage(item.uptime))}</p>
          ${this.#renderHistory(item, page, m, f, now)}`
      }
    </li>`;
  }

  /**
   * An item's days as one slider (see #onDay), from the first day with data (none drawn before it: a site checked
   * since today has one bar, not 89 empty ones): each run of days at one grade is one bar as wide as its days, and
   * the gaps between days are in their background (styles), so that a page of 10 items draws and hydrates a few
   * dozen nodes, not 900, and its bars come with its status. Under them, the first and last dates (see #renderAxis).
   * A day's text (the tooltip, the slider's value text): its date, uptime, time down (the engine's confirmed outage
   * that day) and the incidents that affected the service that day.
   */
  #renderHistory(item: PublicItem, page: PublicStatusPage, m: Messages, f: Formats, now: number) {
    const days = page.display.historyDays;
    const today = Math.floor(now / DAY_MS);
    const uptimes: (number | undefined)[] = new Array(days);
    const downs: (number | undefined)[] = new Array(days);
    let first = days;
    for (const day of item.history) {
      const at = days - 1 - today + Date.parse(day.date) / DAY_MS;
      if (at >= 0 && at < days) {
        uptimes[at] = day.uptime;
        downs[at] = day.downtime_minutes;
        first = Math.min(first, at);
      }
    }
    if (first === days) return nothing;
    const incidents = page.display.showIncidents ? page.incidents : [];
    const text = (at: number) => {
      const uptime = uptimes[at];
      const start = (today - days + 1 + at) * DAY_MS;
      const lines = [dayDate(today, days, at, f)];
      if (uptime === undefined) lines.push(m.noData);
      else {
        // As the engine measured it; absent on a day without downtime.
        const down = downs[at];
        lines.push(fill(m.uptime, f.percentage(uptime)), down ? fill(m.down, f.duration(down * 60_000)[0]) : m.noDown);
      }
      for (const incident of incidents) {
        const { affected, started_at, resolved_at } = incident;
        if (
          (!affected?.length || affected.some((a) => a.id === item.id)) &&
          Date.parse(started_at) < start + DAY_MS &&
          (resolved_at ? Date.parse(resolved_at) : now) >= start
        ) {
          lines.push(incident.title);
        }
      }
      return lines.join("\n");
    };
    const runs: [string, number][] = [];
    for (let i = first; i < days; i++) {
      const run = runs.at(-1);
      if (run?.[0] === level(uptimes[i])) run[1]++;
      else runs.push([level(uptimes[i]), 1]);
    }
    const at = Math.max(first, days - 1 - Math.min(days - 1, this.#days.get(item.id) ?? 0));
    const on = (event: Event) => this.#onDay(event, item.id, text, days, first);
    return html`<span
      part="history"
      role="slider"
      tabindex="0"
      aria-label="${item.label}: ${fill(m.history, days)}"
      aria-valuemin=${first}
      aria-valuemax=${days - 1}
      aria-valuenow=${at}
      aria-valuetext=${text(at)}
      @keydown=${on}
      @focus=${on}
      @blur=${on}
      @pointermove=${on}
      @pointerdown=${on}
      @pointerleave=${on}
    >
      ${runs.map(([level, length]) => html`<i class=${level} style="--d:${length}"></i>`)}
    </span>
    ${this.#renderAxis(days, first, f, today)}`;
  }

  /**
   * The first and last dates under the bars, the first being the first day with data (one date when that is today); a narrow element shows only
   * the last 30 days, and their first date (a container query, so the server's markup is the browser's). Dates, not
   * "89 days ago" and "Today": a prerendered page never goes stale, and hydrating it changes no text.
   */
  #renderAxis(days: number, first: number, f: Formats, today: number) {
    const date = (at: number) => dayDate(today, days, at, f);
    // One day of data is one date, not the same date twice.
    if (first >= days - 1)
      return html`<p class="axis" aria-hidden="true" style="--s:1"><span>${date(days - 1)}</span></p>`;
    return html`<p class="axis" aria-hidden="true" style="--s:${days - first}">
      <span class="long">${date(first)}</span><span class="short">${date(Math.max(first, days - SHORT))}</span><span
        >${date(days - 1)}</span
      >
    </p>`;
  }

  /**
   * An instant that reads best relative to now ("3 minutes ago", its date, time and zone as the title), or, rendered
   * as a server does, absolute in UTC.
   */
  #stamp(iso: string, f: Formats, now: number) {
    const when = f.when(iso);
    return this.serverTime === undefined
      ? html`<time datetime=${iso} title=${when}>${f.ago(iso, now)}</time>`
      : html`<time datetime=${iso}>${when}</time>`;
  }

  /**
   * An incident: its title, its phase as a neutral chip, its impact (the colour of its edge, and in words), when it
   * ran, the services it affects each with its status, and its updates, the message in full contrast. An active one
   * shows its latest update and folds the earlier ones behind one line; a past one (under its day's heading) keeps
   * all of them behind one closed line.
   */
  #renderIncident(incident: Incident, page: PublicStatusPage, m: Messages, f: Formats, now: number, past: boolean) {
    // affected: absent from a server older than the element; compact leaves it to the banner, which names them all.
    // An affected service's status: the incident's word for it, else (a server before impacts) the page's.
    const { started_at: start, resolved_at: end, updates, affected, impact = "none" } = incident;
    // An open incident's duration counts to now: rendered as a server does, it would go stale, so only its start.
    const [lasted, rounded] = f.duration((end ? Date.parse(end) : now) - Date.parse(start));
    // An update's phase, unless an active incident's chip says it just above (its latest update's).
    const phase = (update: (typeof updates)[number]) =>
      !past && update === updates[0] && update.status === incident.status
        ? nothing
        : html`<b>${m[update.status]}</b> · `;
    const timeline = (shown: typeof updates) => html`<ol>
      ${shown.map(
        (update) =>
          html`<li>
            ${phase(update)}<time datetime=${update.timestamp}>${f.when(update.timestamp)}</time>
            <p>${update.message}</p>
          </li>`,
      )}
    </ol>`;
    const earlier = updates.length - 1;
    const folded = (summary: unknown, shown: typeof updates) =>
      html`<details data-id=${incident.id} @toggle=${this.#onToggle}>
        <summary>${summary}</summary>
        ${timeline(shown)}
      </details>`;
    return html`<li part="incident" data-impact=${impact}>
      ${past ? html`<h5>${incident.title}</h5>` : html`<h4>${incident.title}</h4>`}
      <p>
        <b class="chip">${m[incident.status]}</b> ${
          impact === "none" ? nothing : html`${m[`impact.${impact}`]} · `
        }<time datetime=${start}>${f.when(start)}</time>${
          end ? html` – <time datetime=${end}>${f.until(start, end)}</time>` : nothing
        }${end || this.serverTime === undefined ? ` · ${rounded ? fill(m.about, lasted) : lasted}` : nothing}
      </p>
      ${
        affected?.length && !this.compact
          ? html`<p>${fillWith(
              m.affected,
              affected.map((a, i) => {
                const status = a.status ?? page.items.find((item) => item.id === a.id)?.status;
                return html`${i ? ", " : ""}<span class="svc">${a.label}${status ? html` ${statusWord(status, m, `item.${status}`)}` : nothing}</span>`;
              }),
            )}</p>`
          : nothing
      }
      ${
        this.compact || !updates.length
          ? nothing
          : past
            ? folded(`${m.updates} (${updates.length})`, updates)
            : html`${timeline(updates.slice(0, 1))}${
                earlier ? folded(fill(earlier > 1 ? m.earlier : m.earlier1, earlier), updates.slice(1)) : nothing
              }`
      }
    </li>`;
  }
}
