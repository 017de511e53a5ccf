import { Task } from "@lit/task";
import { css, html, LitElement, nothing, type TemplateResult } from "lit";
import { repeat } from "lit/directives/repeat.js";
import type { SiteOverview, SiteOverviewList, SiteTagList } from "../../../../server/contract/site.ts";
import { api, problemText } from "../../lib/api.ts";
import { can, consumeMe } from "../../lib/context.ts";
import { ago, chip, dateTime, percent, refused, STATUS_LOOK, sparkline } from "../../lib/format.ts";
import { POLL_MS, PollController } from "../../lib/poll.ts";
import { BASE, follow, navigate } from "../../lib/router.ts";
import { shared } from "../../lib/styles.ts";
import type { Site } from "../../lib/types.ts";
import {
  addressLabel,
  countBySeverity,
  DEFAULT_SORT,
  eachLimited,
  SEVERITY,
  SEVERITY_WORD,
  type Severity,
  type Sort,
  type SortKey,
  severityOf,
  sortRows,
} from "./list.ts";
import type { PlSiteForm } from "./site-form.ts";
import "./site-form.ts";

/** The API's largest page: the list asks for every page, so the overview counts and the sort see every site. */
const PER_PAGE = 50;
/** Requests at once in a bulk action. */
const BULK_LIMIT = 4;

type BulkAction = "pause" | "resume" | "delete";

/** What each bulk action says: its verb, while it runs, its outcome, and what it does to one site or several. */
const BULK: Record<BulkAction, { verb: string; doing: string; done: string; means: (one: boolean) => string }> = {
  pause: {
    verb: "Pause",
    doing: "Pausing",
    done: "paused",
    means: (one) =>
      `${one ? "A paused site is" : "Paused sites are"} not checked and send${one ? "s" : ""} no alert until resumed; status pages show ${one ? "it" : "them"} as paused.`,
  },
  resume: {
    verb: "Resume",
    doing: "Resuming",
    done: "resumed",
    means: (one) => `${one ? "It is" : "They are"} checked again from now on.`,
  },
  delete: {
    verb: "Delete",
    doing: "Deleting",
    done: "deleted",
    means: (one) =>
      one
        ? "Its checks, history and statistics are deleted with it, and it leaves every status page. This cannot be undone."
        : "Their checks, history and statistics are deleted with them, and they leave every status page. This cannot be undone.",
  },
};

/** The columns, their headings, and the first direction a click sorts in (the worst first). */
const COLUMNS: { key: SortKey; label: string; more?: string; first: Sort["direction"]; className: string }[] = [
  { key: "name", label: "Site", first: "ascending", className: "name" },
  { key: "status", label: "Status", first: "ascending", className: "status" },
  { key: "uptime", label: "Uptime", more: " (30 d)", first: "ascending", className: "uptime" },
  { key: "response", label: "Response time", first: "descending", className: "response" },
  { key: "lastCheck", label: "Last check", first: "ascending", className: "last" },
];

/** The look (colour class) of a severity, as the status chips have it. */
const LOOK: Record<Severity, string> = {
  down: "down",
  degraded: "warn",
  unknown: "unknown",
  up: "up",
  paused: "paused",
};

/**
 * The sites: a status overview (counts by state, each a filter), then every site, the sites at fault first, with
 * status, uptime over 30 days, a sparkline of response times and the last check, updated live; sorted by any
 * column, filtered by status, tag and text; added, edited, paused, resumed and deleted one by one or in bulk.
 *
 * Every page of the workspace's sites is polled (50 a page, each with its own ETag, so an unchanged page is a 304),
 * and sorting and filtering happen here, over all of them, as Uptime Kuma and Better Stack do: the overview's
 * counts and "the sites at fault first" are about the whole workspace, never about one page of it.
 */
export class PlSites extends LitElement {
  static override styles = [
    shared,
    css`
      .overview {
        display: flex;
        flex-wrap: wrap;
        align-items: center;
        justify-content: space-between;
        gap: 0.5rem 1rem;
      }
      .headline {
        margin: 0;
        font-size: 1.125rem;
        font-weight: 700;
      }
      .counts {
        display: flex;
        flex-wrap: wrap;
        align-items: center;
        gap: 0.25rem;
      }
      .counts button {
        min-height: 2rem;
        padding: 0.2rem 0.6rem;
        font-weight: 600;
        border-color: transparent;
        background: none;
      }
      .counts button[aria-pressed="true"] {
        border-color: var(--accent);
        background: var(--bg);
      }
      .counts .sep {
        color: var(--muted);
      }
      .dot {
        display: inline-block;
        flex: none;
        width: 0.6rem;
        height: 0.6rem;
        border-radius: 50%;
        background: currentColor;
      }
      .filters {
        margin: 0 0 0.75rem;
      }
      .filters input[type="search"] {
        width: 16rem;
      }
      .filters select {
        width: auto;
      }
      .bulk {
        display: flex;
        flex-wrap: wrap;
        align-items: center;
        gap: 0.5rem;
        padding: 0.5rem 0.75rem;
        margin: 0 0 0.75rem;
        border: 1px solid var(--accent);
        border-radius: var(--radius);
        background: var(--panel);
      }
      .bulk strong {
        margin-right: auto;
      }
      .list {
        padding: 0.25rem 0.75rem;
      }
      table {
        table-layout: auto;
      }
      th button {
        font: inherit;
        text-transform: inherit;
        letter-spacing: inherit;
        color: inherit;
        background: none;
        border: 0;
        padding: 0;
        min-height: 0;
        white-space: nowrap;
      }
      th[aria-sort] button {
        color: var(--text);
      }
      td,
      th {
        white-space: nowrap;
      }
      .pick {
        width: 1%;
        padding-right: 0;
      }
      .pick input {
        width: 1.1rem;
        height: 1.1rem;
        margin: 0;
        vertical-align: middle;
      }
      /* The name takes what the other columns leave, and ellipsises within it (the full text in title). */
      td.name {
        width: 100%;
        max-width: 0;
        white-space: normal;
      }
      .name-line {
        display: flex;
        align-items: center;
        gap: 0.45rem;
        min-width: 0;
      }
      .name a,
      .name .url {
        display: block;
        overflow: hidden;
        text-overflow: ellipsis;
        white-space: nowrap;
        min-width: 0;
      }
      .name a {
        font-weight: 600;
        color: var(--text);
      }
      .name .url {
        color: var(--muted);
        font-size: 0.85rem;
      }
      .name .dot,
      .name .brief {
        display: none;
      }
      .tags {
        display: flex;
        flex-wrap: wrap;
        gap: 0.25rem;
        margin-top: 0.25rem;
      }
      .tag {
        font-size: 0.75rem;
        font-weight: 600;
        min-height: 0;
        padding: 0 0.5rem;
        border-radius: 999px;
        color: var(--muted);
        max-width: 100%;
        overflow: hidden;
        text-overflow: ellipsis;
      }
      .tag[aria-pressed="true"] {
        color: var(--accent);
        border-color: var(--accent);
      }
      /* Why the server does not check a site: under its chip, at most a column's width. */
      td.status small {
        display: block;
        max-width: 16em;
        white-space: normal;
        margin-top: 0.25rem;
        color: var(--muted);
        font-size: 0.8rem;
      }
      .spark {
        display: inline-flex;
        align-items: center;
        gap: 0.5rem;
        color: var(--accent);
      }
      .spark > span {
        color: var(--muted);
        font-size: 0.85rem;
      }
      td.actions {
        width: 1%;
        text-align: right;
      }
      .actions > button {
        min-height: 2rem;
        padding: 0.1rem 0.6rem;
        font-size: 1.1rem;
        line-height: 1;
      }
      [popover].menu {
        inset: auto;
        margin: 0;
        padding: 0.25rem;
        border: 1px solid var(--line);
        border-radius: var(--radius);
        background: var(--panel);
        color: var(--text);
        box-shadow: 0 6px 24px rgb(0 0 0 / 0.18);
        min-width: 10rem;
      }
      .menu button {
        display: flex;
        width: 100%;
        border: 0;
        background: none;
        font-weight: 500;
        justify-content: flex-start;
      }
      .menu button:hover,
      .menu button:focus-visible {
        background: var(--bg);
      }
      .empty {
        text-align: center;
        padding: 2.5rem 1rem;
      }
      .live {
        font-size: 0.85rem;
      }
      dialog ul {
        max-height: 12rem;
        overflow-y: auto;
        padding-left: 1.25rem;
        overflow-wrap: anywhere;
      }
      .notice ul {
        margin: 0.25rem 0 0;
        padding-left: 1.25rem;
        overflow-wrap: anywhere;
      }
      .mobile-only {
        display: none;
      }
      @media (max-width: 900px) {
        .response {
          display: none;
        }
      }
      /* Dense rows: a checkbox, the status dot, the name with its status in words, uptime and a menu. */
      @media (max-width: 640px) {
        .mobile-only {
          display: initial;
        }
        .wide-only,
        .counts .sep {
          display: none;
        }
        .filters input[type="search"] {
          width: 100%;
        }
        .list {
          padding: 0 0.5rem;
        }
        th.status,
        th.last,
        td.status,
        td.last,
        .name .url,
        .name .tags {
          display: none;
        }
        .name .dot {
          display: inline-block;
        }
        .name .brief {
          display: block;
          color: var(--muted);
          font-size: 0.8rem;
          overflow: hidden;
          text-overflow: ellipsis;
          white-space: nowrap;
        }
        td,
        th {
          padding: 0.45rem 0.3rem;
        }
      }
    `,
  ];

  static override properties = {
    tag: { state: true },
    filter: { state: true },
    query: { state: true },
    sort: { state: true },
    selected: { state: true },
    editing: { state: true },
    confirming: { state: true },
    outcome: { state: true },
  };

  /** The tag the list is narrowed to (the API's `tag` query); "" for every site. */
  declare tag: string;
  /** The severity the overview's counts narrowed the list to; null for every one. */
  declare filter: Severity | null;
  declare query: string;
  declare sort: Sort;
  /** Ids of the sites ticked for a bulk action. */
  declare selected: ReadonlySet<string>;
  /** The site the form edits (null: a new one). */
  declare editing: Site | null;
  /** The action waiting for confirmation, on which sites; `busy` while it runs. */
  declare confirming: { action: BulkAction; sites: Site[]; busy: boolean } | null;
  /** What the last action did, or which sites it failed on and why. */
  declare outcome: { ok: boolean; text: string; failures: string[] } | null;

  readonly #me = consumeMe(this);
  /** One poll per page of sites; page 2 onwards exist once page 1 says how many pages there are. */
  readonly #pages: PollController<SiteOverviewList>[] = [];

  /** The workspace's tags, for the filter; asked again whenever a page of sites changes. */
  readonly #tags = new Task(this, {
    task: async (_pages, { signal }) =>
      (await api<SiteTagList>("GET", "/public/v1/sites/tags", undefined, { signal })).data.tags,
    // Asked again only when the tags the list shows change, not at every poll that brings new check times.
    args: () => [this.#pages.map((p) => p.value?.sites.map((row) => row.site.tags.join(",")).join(";")).join("|")],
  });

  constructor() {
    super();
    this.tag = "";
    this.filter = null;
    this.query = "";
    this.sort = DEFAULT_SORT;
    this.selected = new Set();
    this.editing = null;
    this.confirming = null;
    this.outcome = null;
    this.#addPage();
  }

  #addPage(): void {
    const page = this.#pages.length + 1;
    this.#pages.push(
      new PollController<SiteOverviewList>(this, {
        url: () => {
          const first = this.#pages[0]?.value;
          if (page > 1 && (!first || page > first.pagination.totalPages)) return null;
          const tag = this.tag ? `&tag=${encodeURIComponent(this.tag)}` : "";
          return `/public/v1/sites/overview?perPage=${PER_PAGE}&page=${page}${tag}`;
        },
      }),
    );
  }

  protected override willUpdate(): void {
    // Added before this update, so the new page's controller learns its address in this update's hostUpdated.
    const total = this.#pages[0]?.value?.pagination.totalPages ?? 1;
    while (this.#pages.length < total) this.#addPage();
  }

  get #canWrite(): boolean {
    return can(this.#me.value, "sites:write");
  }

  /** Every site loaded, each once (a site moving between pages while they are polled is not shown twice). */
  get #rows(): SiteOverview[] | undefined {
    const first = this.#pages[0]?.value;
    if (!first) return undefined;
    const seen = new Map<string, SiteOverview>();
    for (const page of this.#pages) for (const row of page.value?.sites ?? []) seen.set(row.site.id, row);
    return [...seen.values()];
  }

  /** Whether every page has arrived, so the counts are the workspace's (or the tag's) and not a part of them. */
  get #complete(): boolean {
    const total = this.#pages[0]?.value?.pagination.totalPages ?? 1;
    return this.#pages.slice(0, total).every((p) => p.value !== undefined);
  }

  #shown(rows: SiteOverview[]): SiteOverview[] {
    const q = this.query.trim().toLowerCase();
    return sortRows(
      rows.filter(
        ({ site }) =>
          (this.filter === null || severityOf(site) === this.filter) &&
          (q === "" ||
            site.name.toLowerCase().includes(q) ||
            site.url.toLowerCase().includes(q) ||
            addressLabel(site).toLowerCase().includes(q) ||
            site.tags.some((t) => t.includes(q))),
      ),
      this.sort,
    );
  }

  #refresh(): void {
    for (const page of this.#pages) void page.refresh();
  }

  async #openForm(site: Site | null): Promise<void> {
    this.editing = site;
    await this.updateComplete;
    await this.renderRoot.querySelector<PlSiteForm>("pl-site-form")?.show();
  }

  #saved(): void {
    this.outcome = null;
    this.#refresh();
  }

  async #confirm(action: BulkAction, sites: Site[]): Promise<void> {
    this.confirming = { action, sites, busy: false };
    await this.updateComplete;
    this.renderRoot.querySelector<HTMLDialogElement>("#confirm")?.showModal();
  }

  /** Runs the confirmed action on each site, a few at a time, through the API's own routes; lists what failed. */
  async #run(): Promise<void> {
    const job = this.confirming;
    if (!job || job.busy) return;
    this.confirming = { ...job, busy: true };
    const failures = await eachLimited(job.sites, BULK_LIMIT, (site) =>
      job.action === "delete"
        ? api("DELETE", `/public/v1/site/${site.id}`)
        : api("PATCH", `/public/v1/site/${site.id}`, { pause: job.action === "pause" }),
    );
    const failed = new Set(failures.map((f) => f.item.id));
    // What failed stays ticked, ready for another try.
    this.selected = new Set([...this.selected].filter((id) => failed.has(id)));
    const { done } = BULK[job.action];
    const count = (n: number) => `${n} ${n === 1 ? "site" : "sites"}`;
    this.outcome =
      failures.length === 0
        ? {
            ok: true,
            text: `${job.sites.length === 1 ? job.sites[0]?.name : count(job.sites.length)} ${done}.`,
            failures: [],
          }
        : {
            ok: false,
            text: `${count(failures.length)} of ${job.sites.length} could not be ${done}:`,
            failures: failures.map((f) => `${f.item.name}: ${problemText(f.error)}`),
          };
    this.renderRoot.querySelector<HTMLDialogElement>("#confirm")?.close();
    this.#refresh();
  }

  #sortBy(key: SortKey): void {
    const column = COLUMNS.find((c) => c.key === key);
    const flip = (d: Sort["direction"]) => (d === "ascending" ? "descending" : "ascending");
    this.sort =
      this.sort.key === key
        ? { key, direction: flip(this.sort.direction) }
        : { key, direction: column?.first ?? "ascending" };
  }

  #toggle(id: string, on: boolean): void {
    const next = new Set(this.selected);
    if (on) next.add(id);
    else next.delete(id);
    this.selected = next;
  }

  override render(): TemplateResult {
    const rows = this.#rows;
    const poll = this.#pages[0];
    const total = poll?.value?.pagination.total ?? 0;
    const everything = rows !== undefined && this.tag === "" && this.#complete;
    return html`
      <div class="bar">
        <div>
          <h1>Sites</h1>
          <p class="muted live">
            ${rows === undefined ? "Loading…" : html`${total} ${this.tag ? html`tagged <strong>${this.tag}</strong>` : "monitored"} · live, updated every ${POLL_MS / 1000} s`}
          </p>
        </div>
        ${
          this.#canWrite
            ? html`<div class="row">
                <a class="button" href=${`${BASE}import`} @click=${follow}>Import</a>
                <button class="primary" @click=${() => this.#openForm(null)}>Add a site</button>
              </div>`
            : nothing
        }
      </div>
      ${poll?.error ? html`<p class="notice bad" role="alert">${problemText(poll.error)}</p>` : nothing}
      ${this.#outcome()}
      ${rows && (rows.length > 0 || this.tag) ? html`${this.#overview(rows)}${this.#filters()}` : nothing}
      ${rows ? this.#list(rows) : nothing}
      <pl-site-form .site=${this.editing} .sites=${everything ? rows?.map((r) => r.site) : undefined}
        @pl-saved=${this.#saved}></pl-site-form>
      ${this.#confirmDialog()}
    `;
  }

  #outcome(): TemplateResult | typeof nothing {
    const o = this.outcome;
    if (!o) return nothing;
    return html`<div class="notice ${o.ok ? "" : "bad"}" role=${o.ok ? "status" : "alert"}>
      <div class="row" style="justify-content:space-between">
        <span>${o.text}</span>
        <button type="button" class="link" @click=${() => (this.outcome = null)}>Dismiss</button>
      </div>
      ${o.failures.length > 0 ? html`<ul>${o.failures.map((f) => html`<li>${f}</li>`)}</ul>` : nothing}
    </div>`;
  }

  #overview(rows: SiteOverview[]): TemplateResult {
    const counts = countBySeverity(rows);
    const checked = rows.length - counts.paused;
    const [headline, look] =
      counts.down > 0
        ? [`${counts.down} ${counts.down === 1 ? "site is" : "sites are"} down`, "down"]
        : counts.degraded > 0
          ? [`${counts.degraded} ${counts.degraded === 1 ? "site is" : "sites are"} degraded`, "warn"]
          : counts.up === 0 && counts.unknown > 0
            ? ["Waiting for the first checks", "unknown"]
            : checked === 0
              ? ["Every site is paused", "paused"]
              : [
                  counts.unknown > 0
                    ? "No site is down"
                    : `All ${checked === 1 ? "" : `${checked} `}checked sites are up`,
                  "up",
                ];
    const present = SEVERITY.filter((s) => counts[s] > 0);
    return html`<section class="panel overview" aria-labelledby="overview-headline">
      <p class="headline ${look}" id="overview-headline" aria-live="polite">${headline}</p>
      <div class="counts" role="group" aria-label="Filter by status">
        ${present.map(
          (s, i) => html`${i > 0 ? html`<span class="sep" aria-hidden="true">·</span>` : nothing}<button type="button"
            class="count" data-severity=${s} aria-pressed=${this.filter === s ? "true" : "false"}
            @click=${() => (this.filter = this.filter === s ? null : s)}><span class="dot ${LOOK[s]}" aria-hidden="true"></span>${counts[s]} ${SEVERITY_WORD[s]}</button>`,
        )}
        ${this.filter !== null ? html`<button type="button" class="link" @click=${() => (this.filter = null)}>Show all ${rows.length}</button>` : nothing}
      </div>
    </section>`;
  }

  #filters(): TemplateResult {
    const tags = this.#tags.value ?? [];
    const known =
      tags.some((t) => t.tag === this.tag) || this.tag === "" ? tags : [{ tag: this.tag, count: 0 }, ...tags];
    const sortValue = `${this.sort.key} ${this.sort.direction}`;
    return html`<div class="row filters" role="search">
      <label class="sr-only" for="search">Search sites</label>
      <input id="search" type="search" placeholder="Name, address or tag" .value=${this.query}
        @input=${(e: Event) => (this.query = (e.target as HTMLInputElement).value)} />
      ${
        known.length > 0
          ? html`<label class="sr-only" for="tag-filter">Tag</label>
            <select id="tag-filter" @change=${(e: Event) => {
              this.tag = (e.target as HTMLSelectElement).value;
              this.selected = new Set();
            }}>
              <option value="" ?selected=${this.tag === ""}>Every tag</option>
              ${known.map((t) => html`<option value=${t.tag} ?selected=${this.tag === t.tag}>${t.tag} (${t.count})</option>`)}
            </select>`
          : nothing
      }
      <span class="mobile-only">
        <label class="sr-only" for="sort">Sort by</label>
        <select id="sort" @change=${(e: Event) => {
          const [key, direction] = (e.target as HTMLSelectElement).value.split(" ") as [SortKey, Sort["direction"]];
          this.sort = { key, direction };
        }}>
          ${[
            ["status ascending", "Most severe first"],
            ["name ascending", "Name, A to Z"],
            ["uptime ascending", "Lowest uptime first"],
            ["response descending", "Slowest first"],
            ["lastCheck ascending", "Oldest check first"],
          ].map(
            ([value, label]) =>
              html`<option value=${value as string} ?selected=${sortValue === value}>${label}</option>`,
          )}
        </select>
      </span>
    </div>`;
  }

  #list(rows: SiteOverview[]): TemplateResult {
    if (rows.length === 0 && !this.tag) {
      return html`<div class="panel empty">
        <h2>No sites yet</h2>
        <p class="muted">Add a website or an API, a TCP or TLS port, a DNS record, a host to ping, or a job's
          heartbeat, and Porchlight checks it around the clock.</p>
        ${
          this.#canWrite
            ? html`<div class="row">
                <button class="primary" @click=${() => this.#openForm(null)}>Add your first site</button>
                <a class="button" href=${`${BASE}import`} @click=${follow}>Import from Uptime Kuma, Statuspage or Gatus</a>
              </div>`
            : nothing
        }
      </div>`;
    }
    const shown = this.#shown(rows);
    const write = this.#canWrite;
    const picked = shown.filter((r) => this.selected.has(r.site.id)).map((r) => r.site);
    const all = shown.length > 0 && picked.length === shown.length;
    return html`${write && picked.length > 0 ? this.#bulkBar(picked) : nothing}
      <div class="panel list">
        <table>
          <caption class="sr-only">Sites, with their status, uptime and response times; ${sortCaption(this.sort)}</caption>
          <thead>
            <tr>
              ${
                write
                  ? html`<th scope="col" class="pick"><input type="checkbox" aria-label="Select every site shown"
                    .checked=${all} .indeterminate=${picked.length > 0 && !all}
                    @change=${(e: Event) => {
                      const on = (e.target as HTMLInputElement).checked;
                      const ids = new Set(this.selected);
                      for (const r of shown) on ? ids.add(r.site.id) : ids.delete(r.site.id);
                      this.selected = ids;
                    }} /></th>`
                  : nothing
              }
              ${COLUMNS.map(
                (
                  c,
                ) => html`<th scope="col" class=${c.className} aria-sort=${this.sort.key === c.key ? this.sort.direction : nothing}>
                  <button type="button" @click=${() => this.#sortBy(c.key)}>${c.label}${c.more ? html`<span class="wide-only">${c.more}</span>` : nothing}<span aria-hidden="true">${
                    this.sort.key === c.key ? (this.sort.direction === "ascending" ? " ▲" : " ▼") : ""
                  }</span></button>
                </th>`,
              )}
              ${write ? html`<th scope="col" class="actions"><span class="sr-only">Actions</span></th>` : nothing}
            </tr>
          </thead>
          <tbody>
            ${repeat(
              shown,
              (row) => row.site.id,
              (row) => this.#row(row),
            )}
            ${shown.length === 0 ? html`<tr><td colspan="7" class="muted">No site matches.</td></tr>` : nothing}
          </tbody>
        </table>
      </div>`;
  }

  #row({ site, uptime, days, recent }: SiteOverview): TemplateResult {
    const href = `${BASE}sites/${site.id}`;
    const severity = refused(site) ? "refused" : severityOf(site);
    const [word] = STATUS_LOOK[severity === "degraded" ? "degraded" : severity] ?? [severity];
    const write = this.#canWrite;
    const menu = `menu-${site.id}`;
    return html`<tr data-site=${site.id} data-severity=${severityOf(site)}>
      ${
        write
          ? html`<td class="pick"><input type="checkbox" aria-label=${`Select ${site.name}`} .checked=${this.selected.has(site.id)}
            @change=${(e: Event) => this.#toggle(site.id, (e.target as HTMLInputElement).checked)} /></td>`
          : nothing
      }
      <td class="name">
        <div class="name-line">
          <span class="dot ${LOOK[severityOf(site)]}" aria-hidden="true"></span>
          <a href=${href} title=${site.name} @click=${(e: MouseEvent) => {
            e.preventDefault();
            navigate(href);
          }}>${site.name}</a>
        </div>
        <span class="brief">${word} · ${ago(site.lastCheckTime)}</span>
        <span class="url" title=${addressLabel(site)}>${addressLabel(site)}</span>
        ${
          site.tags.length > 0
            ? html`<div class="tags">${site.tags.map(
                (t) => html`<button type="button" class="tag" title=${`Show only the sites tagged ${t}`}
                  aria-pressed=${this.tag === t ? "true" : "false"}
                  @click=${() => {
                    this.tag = this.tag === t ? "" : t;
                    this.selected = new Set();
                  }}>${t}</button>`,
              )}</div>`
            : nothing
        }
      </td>
      <td class="status">${
        refused(site) ? html`${chip("refused")}<small>${site.healthSummary}</small>` : chip(severityOf(site))
      }</td>
      <td class="uptime">${percent(uptime)}</td>
      <td class="response muted">${sparkline(days, recent)}</td>
      <td class="last muted">${
        site.lastCheckTime
          ? html`<time datetime=${site.lastCheckTime} title=${dateTime(site.lastCheckTime)}>${ago(site.lastCheckTime)}</time>`
          : "never"
      }</td>
      ${
        write
          ? html`<td class="actions">
            <button type="button" popovertarget=${menu} aria-label=${`Actions for ${site.name}`}>⋯</button>
            <div popover id=${menu} class="menu" @beforetoggle=${this.#placeMenu} @click=${(e: Event) => (e.currentTarget as HTMLElement).hidePopover()}>
              <button type="button" @click=${() => this.#openForm(site)}>Edit</button>
              ${
                site.pause
                  ? html`<button type="button" @click=${() => this.#act("resume", site)}>Resume</button>`
                  : html`<button type="button" @click=${() => this.#act("pause", site)}>Pause</button>`
              }
              <button type="button" class="danger" @click=${() => this.#confirm("delete", [site])}>Delete</button>
            </div>
          </td>`
          : nothing
      }
    </tr>`;
  }

  /** Pauses or resumes one site from its menu: no confirmation, as the action is undone by the other. */
  async #act(action: "pause" | "resume", site: Site): Promise<void> {
    try {
      await api("PATCH", `/public/v1/site/${site.id}`, { pause: action === "pause" });
      this.outcome = { ok: true, text: `${site.name} ${BULK[action].done}.`, failures: [] };
    } catch (error) {
      this.outcome = {
        ok: false,
        text: `${site.name} could not be ${BULK[action].done}: ${problemText(error)}`,
        failures: [],
      };
    }
    this.#refresh();
  }

  /** A row's menu opens under its button, right-aligned to it (above it near the bottom of the window). */
  readonly #placeMenu = (event: Event) => {
    const menu = event.currentTarget as HTMLElement;
    if ((event as ToggleEvent).newState !== "open") return;
    const button = this.renderRoot.querySelector(`[popovertarget="${menu.id}"]`);
    if (!button) return;
    const box = button.getBoundingClientRect();
    menu.style.right = `${Math.max(8, innerWidth - box.right)}px`;
    if (box.bottom > innerHeight - 180) {
      menu.style.top = "auto";
      menu.style.bottom = `${innerHeight - box.top + 4}px`;
    } else {
      menu.style.bottom = "auto";
      menu.style.top = `${box.bottom + 4}px`;
    }
  };

  #bulkBar(picked: Site[]): TemplateResult {
    const paused = picked.filter((s) => s.pause).length;
    return html`<div class="bulk" role="region" aria-label="Selected sites">
      <strong>${picked.length} selected</strong>
      ${paused < picked.length ? html`<button type="button" @click=${() => this.#confirm("pause", picked)}>Pause</button>` : nothing}
      ${paused > 0 ? html`<button type="button" @click=${() => this.#confirm("resume", picked)}>Resume</button>` : nothing}
      <button type="button" class="danger" @click=${() => this.#confirm("delete", picked)}>Delete</button>
      <button type="button" class="link" @click=${() => (this.selected = new Set())}>Clear selection</button>
    </div>`;
  }

  #confirmDialog(): TemplateResult {
    const job = this.confirming;
    const what = job ? BULK[job.action] : null;
    const n = job?.sites.length ?? 0;
    const object = n === 1 ? (job?.sites[0]?.name ?? "the site") : `${n} sites`;
    return html`<dialog id="confirm" aria-labelledby="confirm-title" @close=${() => (this.confirming = null)}>
      ${
        job && what
          ? html`<h2 id="confirm-title" style="margin-top:0;overflow-wrap:anywhere">${what.verb} ${object}?</h2>
            <p>${what.means(n === 1)}</p>
            ${n > 1 ? html`<ul>${job.sites.map((s) => html`<li>${s.name}</li>`)}</ul>` : nothing}
            <div class="row" style="justify-content:flex-end">
              <button type="button" @click=${() => this.renderRoot.querySelector<HTMLDialogElement>("#confirm")?.close()}>Cancel</button>
              <button type="button" class=${job.action === "delete" ? "danger solid" : "primary"} ?disabled=${job.busy}
                @click=${() => this.#run()}>${job.busy ? `${what.doing}…` : `${what.verb} ${n === 1 ? "site" : `${n} sites`}`}</button>
            </div>`
          : nothing
      }
    </dialog>`;
  }
}

/** The table's caption names the order, for a screen reader. */
function sortCaption(sort: Sort): string {
  const column = COLUMNS.find((c) => c.key === sort.key)?.label ?? sort.key;
  return sort.key === DEFAULT_SORT.key && sort.direction === DEFAULT_SORT.direction
    ? "the sites at fault first"
    : `sorted by ${column.toLowerCase()}, ${sort.direction}`;
}

customElements.define("pl-sites", PlSites);
