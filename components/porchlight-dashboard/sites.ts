import { css, html, LitElement, nothing, type TemplateResult } from "lit";
import { api, fieldErrorsOf, problemText } from "./api.ts";
import { ago, chip, percent, sparkline } from "./format.ts";
import { BASE, navigate } from "./router.ts";
import { shared } from "./styles.ts";
import type { MeInfo, Pagination, Site, SiteOverview } from "./types.ts";

/**
 * How often the list asks for changes. Polling with ETag, not server-sent events: a 304 costs the server one
 * serialization and no bytes on the wire, it works through every proxy and with any number of server processes on
 * PostgreSQL (events would need one process to tell the others), and the engine's own check interval is 30 s at
 * the shortest, so 5 s shows a change well within one check.
 */
export const POLL_MS = 5000;

/** The check intervals offered (spec 8's guidance: critical 30 s to 1 min, standard 1 to 5 min, stable 5 to 10). */
const INTERVALS: [number, string][] = [
  [30, "30 seconds"],
  [60, "1 minute"],
  [300, "5 minutes"],
  [600, "10 minutes"],
  [1800, "30 minutes"],
  [3600, "1 hour"],
];

/** The site form's fields and the API's names for them. */
interface SiteForm {
  name: string;
  url: string;
  checkInterval: number;
  timeout: number;
  method: string;
}

/**
 * The sites: state, status, uptime over 30 days, a sparkline of response times and the last check, updated live;
 * filtered by status and searched by name or address; added, edited, paused, resumed and deleted.
 */
export class PlSites extends LitElement {
  static override styles = [
    shared,
    css`
      .name a {
        font-weight: 600;
        color: var(--text);
      }
      .name small {
        display: block;
        color: var(--muted);
        word-break: break-all;
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
        text-align: right;
        white-space: nowrap;
      }
      .filters input {
        width: 16rem;
      }
      .filters select {
        width: auto;
      }
      dialog {
        border: 1px solid var(--line);
        border-radius: var(--radius);
        background: var(--panel);
        color: var(--text);
        padding: 1.25rem;
        width: min(32rem, calc(100vw - 2rem));
      }
      dialog::backdrop {
        background: rgb(0 0 0 / 0.45);
      }
      .empty {
        text-align: center;
        padding: 2.5rem 1rem;
      }
      .live {
        font-size: 0.85rem;
      }
      @media (max-width: 640px) {
        .filters input {
          width: 100%;
        }
        td.actions {
          justify-content: flex-end;
          gap: 0.5rem;
        }
      }
    `,
  ];

  static override properties = {
    me: { attribute: false },
    rows: { state: true },
    pagination: { state: true },
    page: { state: true },
    query: { state: true },
    filter: { state: true },
    error: { state: true },
    editing: { state: true },
    formErrors: { state: true },
    formError: { state: true },
    deleting: { state: true },
    updatedAt: { state: true },
    busy: { state: true },
  };

  declare me: MeInfo;
  declare rows: SiteOverview[] | null;
  declare pagination: Pagination | null;
  declare page: number;
  declare query: string;
  declare filter: string;
  declare error: string;
  /** The site being edited; null for a new one; undefined when the form is closed. */
  declare editing: Site | null | undefined;
  declare formErrors: Record<string, string>;
  declare formError: string;
  declare deleting: Site | null;
  declare updatedAt: number;
  declare busy: boolean;

  #etag: string | null = null;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #abort: AbortController | undefined;

  constructor() {
    super();
    this.rows = null;
    this.pagination = null;
    this.page = 1;
    this.query = "";
    this.filter = "all";
    this.error = "";
    this.editing = undefined;
    this.formErrors = {};
    this.formError = "";
    this.deleting = null;
    this.updatedAt = 0;
    this.busy = false;
  }

  get #canWrite(): boolean {
    return this.me.permissions.includes("sites:write");
  }

  override connectedCallback(): void {
    super.connectedCallback();
    document.addEventListener("visibilitychange", this.#onVisibility);
    void this.#poll();
  }

  override disconnectedCallback(): void {
    document.removeEventListener("visibilitychange", this.#onVisibility);
    clearTimeout(this.#timer);
    this.#abort?.abort();
    super.disconnectedCallback();
  }

  readonly #onVisibility = () => {
    if (!document.hidden) void this.#poll();
  };

  /** Asks for the list (304 while nothing changed), then again in POLL_MS while the tab is visible. */
  async #poll(): Promise<void> {
    clearTimeout(this.#timer);
    this.#abort?.abort();
    this.#abort = new AbortController();
    try {
      const reply = await api<{ sites: SiteOverview[]; pagination: Pagination }>(
        "GET",
        `/public/v1/sites/overview?perPage=50&page=${this.page}`,
        undefined,
        { etag: this.#etag, signal: this.#abort.signal },
      );
      if (!reply.notModified) {
        this.rows = reply.data.sites;
        this.pagination = reply.data.pagination;
        this.#etag = reply.etag;
      }
      this.updatedAt = Date.now();
      this.error = "";
    } catch (error) {
      if ((error as Error).name === "AbortError") return;
      this.error = problemText(error);
    }
    if (this.isConnected && !document.hidden) this.#timer = setTimeout(() => void this.#poll(), POLL_MS);
  }

  #refresh(): void {
    this.#etag = null;
    void this.#poll();
  }

  get #shown(): SiteOverview[] {
    const q = this.query.trim().toLowerCase();
    return (this.rows ?? []).filter(
      ({ site }) =>
        (this.filter === "all" || site.status === this.filter) &&
        (q === "" || site.name.toLowerCase().includes(q) || site.url.toLowerCase().includes(q)),
    );
  }

  async #openForm(site: Site | null): Promise<void> {
    this.editing = site;
    this.formErrors = {};
    this.formError = "";
    await this.updateComplete;
    this.renderRoot.querySelector<HTMLDialogElement>("#site-form")?.showModal();
  }

  #closeForm(): void {
    this.renderRoot.querySelector<HTMLDialogElement>("#site-form")?.close();
    this.editing = undefined;
  }

  async #save(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    const data = new FormData(event.target as HTMLFormElement);
    const body: SiteForm = {
      name: String(data.get("name") ?? ""),
      url: String(data.get("url") ?? "").trim(),
      checkInterval: Number(data.get("checkInterval")),
      timeout: Number(data.get("timeout")),
      method: String(data.get("method") ?? "GET"),
    };
    this.busy = true;
    this.formErrors = {};
    this.formError = "";
    try {
      if (this.editing) await api("PATCH", `/public/v1/site/${this.editing.id}`, body);
      else await api("POST", "/public/v1/sites", body);
      this.#closeForm();
      this.#refresh();
    } catch (error) {
      const fields = fieldErrorsOf(error);
      if (fields) {
        this.formErrors = fields;
        await this.updateComplete;
        this.renderRoot.querySelector<HTMLElement>("[aria-invalid='true']")?.focus();
      } else {
        this.formError = problemText(error);
      }
    } finally {
      this.busy = false;
    }
  }

  async #setPause(site: Site, pause: boolean): Promise<void> {
    try {
      await api("PATCH", `/public/v1/site/${site.id}`, { pause });
      this.#refresh();
    } catch (error) {
      this.error = problemText(error);
    }
  }

  async #askDelete(site: Site): Promise<void> {
    this.deleting = site;
    await this.updateComplete;
    this.renderRoot.querySelector<HTMLDialogElement>("#delete-site")?.showModal();
  }

  async #delete(): Promise<void> {
    const site = this.deleting;
    if (!site) return;
    try {
      await api("DELETE", `/public/v1/site/${site.id}`);
      this.renderRoot.querySelector<HTMLDialogElement>("#delete-site")?.close();
      this.deleting = null;
      this.#refresh();
    } catch (error) {
      this.error = problemText(error);
    }
  }

  override render(): TemplateResult {
    return html`
      <div class="bar">
        <div>
          <h1>Sites</h1>
          <p class="muted live" aria-live="off">
            ${this.rows === null ? "Loading…" : html`${this.pagination?.total ?? 0} monitored · live, updated every ${POLL_MS / 1000} s`}
          </p>
        </div>
        ${this.#canWrite ? html`<button class="primary" @click=${() => this.#openForm(null)}>Add a site</button>` : nothing}
      </div>
      ${this.error ? html`<p class="notice bad" role="alert">${this.error}</p>` : nothing}
      ${this.rows && this.rows.length > 0 ? this.#filters() : nothing} ${this.#table()} ${this.#pages()}
      ${this.#form()} ${this.#deleteDialog()}
    `;
  }

  #filters(): TemplateResult {
    return html`<div class="row filters" role="search" style="margin-bottom:0.75rem">
      <label class="sr-only" for="search">Search sites</label>
      <input id="search" type="search" placeholder="Search by name or address" .value=${this.query}
        @input=${(e: Event) => (this.query = (e.target as HTMLInputElement).value)} />
      <label class="sr-only" for="status-filter">Status</label>
      <select id="status-filter" @change=${(e: Event) => (this.filter = (e.target as HTMLSelectElement).value)}>
        ${["all", "up", "down", "paused", "unknown"].map(
          (s) =>
            html`<option value=${s} ?selected=${this.filter === s}>${s === "all" ? "Every status" : s === "unknown" ? "Not checked yet" : s[0]?.toUpperCase() + s.slice(1)}</option>`,
        )}
      </select>
    </div>`;
  }

  #table(): TemplateResult {
    if (this.rows === null) return html``;
    if (this.rows.length === 0) {
      return html`<div class="panel empty">
        <h2>No sites yet</h2>
        <p class="muted">Add the address of a website or an API, and Porchlight checks it around the clock.</p>
        ${this.#canWrite ? html`<button class="primary" @click=${() => this.#openForm(null)}>Add your first site</button>` : nothing}
      </div>`;
    }
    const shown = this.#shown;
    return html`<div class="panel" style="padding:0.25rem 0.75rem">
      <table class="responsive">
        <caption class="sr-only">Sites, with their status, uptime and response times</caption>
        <thead>
          <tr>
            <th scope="col">Site</th>
            <th scope="col">Status</th>
            <th scope="col">Uptime (30 d)</th>
            <th scope="col">Response time</th>
            <th scope="col">Last check</th>
            ${this.#canWrite ? html`<th scope="col"><span class="sr-only">Actions</span></th>` : nothing}
          </tr>
        </thead>
        <tbody>
          ${shown.map((row) => this.#row(row))}
          ${shown.length === 0 ? html`<tr><td colspan="6" class="muted">No site matches.</td></tr>` : nothing}
        </tbody>
      </table>
    </div>`;
  }

  #row({ site, uptime, days }: SiteOverview): TemplateResult {
    const href = `${BASE}sites/${site.id}`;
    return html`<tr data-site=${site.id}>
      <td class="name" data-label="Site">
        <span><a href=${href} @click=${(e: MouseEvent) => {
          e.preventDefault();
          navigate(href);
        }}>${site.name}</a><small>${site.url}</small></span>
      </td>
      <td data-label="Status">${chip(site.status === "up" && site.state === "degraded" ? "degraded" : site.status)}</td>
      <td data-label="Uptime (30 d)">${percent(uptime)}</td>
      <td data-label="Response time" class="muted">${sparkline(days)}</td>
      <td data-label="Last check" class="muted">${ago(site.lastCheckTime)}</td>
      ${
        this.#canWrite
          ? html`<td class="actions" data-label="">
            <button type="button" @click=${() => this.#setPause(site, !site.pause)} aria-label=${`${site.pause ? "Resume" : "Pause"} ${site.name}`}>
              ${site.pause ? "Resume" : "Pause"}
            </button>
            <button type="button" @click=${() => this.#openForm(site)} aria-label=${`Edit ${site.name}`}>Edit</button>
            <button type="button" class="danger" @click=${() => this.#askDelete(site)} aria-label=${`Delete ${site.name}`}>Delete</button>
          </td>`
          : nothing
      }
    </tr>`;
  }

  #pages(): TemplateResult | typeof nothing {
    const p = this.pagination;
    if (!p || p.totalPages <= 1) return nothing;
    const go = (page: number) => {
      this.page = page;
      this.#refresh();
    };
    return html`<nav class="row" aria-label="Pages of sites">
      <button ?disabled=${p.page <= 1} @click=${() => go(p.page - 1)}>Previous</button>
      <span class="muted">Page ${p.page} of ${p.totalPages}</span>
      <button ?disabled=${p.page >= p.totalPages} @click=${() => go(p.page + 1)}>Next</button>
    </nav>`;
  }

  #input(name: keyof SiteForm, label: string, input: TemplateResult, hint?: string): TemplateResult {
    const error = this.formErrors[name];
    return html`<div class="field">
      <label for=${`f-${name}`}>${label}${hint ? html`<small>${hint}</small>` : nothing}</label>
      ${input}${error ? html`<p class="error" id=${`f-${name}-error`}>${label}: ${error}</p>` : nothing}
    </div>`;
  }

  #form(): TemplateResult {
    const site = this.editing;
    const invalid = (name: string) => (this.formErrors[name] ? "true" : nothing);
    const described = (name: string) => (this.formErrors[name] ? `f-${name}-error` : nothing);
    return html`<dialog id="site-form" aria-labelledby="site-form-title" @close=${() => (this.editing = undefined)}>
      <form @submit=${this.#save} novalidate>
        <h2 id="site-form-title" style="margin-top:0">${site ? `Edit ${site.name}` : "Add a site"}</h2>
        ${this.#input(
          "url",
          "Address",
          html`<input id="f-url" name="url" type="url" inputmode="url" required placeholder="https://example.com"
            .value=${site?.url ?? ""} aria-invalid=${invalid("url")} aria-describedby=${described("url")} />`,
          "The page or API endpoint to check, with http:// or https://",
        )}
        ${this.#input(
          "name",
          "Name",
          html`<input id="f-name" name="name" required maxlength="100" .value=${site?.name ?? ""}
            aria-invalid=${invalid("name")} aria-describedby=${described("name")} />`,
        )}
        ${this.#input(
          "checkInterval",
          "Check every",
          html`<select id="f-checkInterval" name="checkInterval" aria-invalid=${invalid("checkInterval")} aria-describedby=${described("checkInterval")}>
            ${INTERVALS.map(([s, label]) => html`<option value=${s} ?selected=${(site?.checkInterval ?? 300) === s}>${label}</option>`)}
          </select>`,
          "Critical services: 30 s to 1 min; standard: 1 to 5 min; stable: 5 to 10 min",
        )}
        ${this.#input(
          "timeout",
          "Timeout (seconds)",
          html`<input id="f-timeout" name="timeout" type="number" min="1" max="120" .value=${String(site?.timeout ?? 30)}
            aria-invalid=${invalid("timeout")} aria-describedby=${described("timeout")} />`,
        )}
        ${this.#input(
          "method",
          "Method",
          html`<select id="f-method" name="method">
            ${["GET", "HEAD", "POST"].map((m) => html`<option ?selected=${(site?.method ?? "GET") === m}>${m}</option>`)}
          </select>`,
        )}
        ${this.formError ? html`<p class="error" role="alert">${this.formError}</p>` : nothing}
        <div class="row" style="justify-content:flex-end">
          <button type="button" @click=${() => this.#closeForm()}>Cancel</button>
          <button class="primary" ?disabled=${this.busy}>${site ? "Save" : "Add site"}</button>
        </div>
      </form>
    </dialog>`;
  }

  #deleteDialog(): TemplateResult {
    const site = this.deleting;
    return html`<dialog id="delete-site" aria-labelledby="delete-site-title" @close=${() => (this.deleting = null)}>
      <h2 id="delete-site-title" style="margin-top:0">Delete ${site?.name ?? "the site"}?</h2>
      <p>Its checks, history and statistics are deleted with it, and it leaves every status page. This cannot be undone.</p>
      <div class="row" style="justify-content:flex-end">
        <button type="button" @click=${() => this.renderRoot.querySelector<HTMLDialogElement>("#delete-site")?.close()}>Cancel</button>
        <button type="button" class="danger solid" @click=${() => this.#delete()}>Delete site</button>
      </div>
    </dialog>`;
  }
}

customElements.define("pl-sites", PlSites);
