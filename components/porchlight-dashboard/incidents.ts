import { css, html, LitElement, nothing, type TemplateResult } from "lit";
import { api, fieldErrorsOf, problemText } from "./api.ts";
import { dateTime } from "./format.ts";
import { shared } from "./styles.ts";
import type { Incident, MeInfo, Page } from "./types.ts";

const STATUSES = ["investigating", "identified", "monitoring", "resolved"] as const;
const WORDS: Record<string, string> = {
  investigating: "Investigating",
  identified: "Identified",
  monitoring: "Monitoring",
  resolved: "Resolved",
};

/** An incident as listed here: with the page it is on. */
interface Listed {
  page: Page;
  incident: Incident;
}

/** A datetime-local value (the browser's zone) as an ISO instant, or undefined when empty. */
function instant(local: string): string | undefined {
  return local ? new Date(local).toISOString() : undefined;
}

/**
 * Incidents across the workspace's status pages: open one on one or several pages (with an optional earlier start),
 * post updates (with an optional earlier time), and resolve.
 */
export class PlIncidents extends LitElement {
  static override styles = [
    shared,
    css`
      .incident {
        border-left: 4px solid var(--warn);
      }
      .incident.resolved {
        border-left-color: var(--up);
      }
      .incident h3 {
        margin: 0;
      }
      ol.timeline {
        margin: 0.5rem 0;
        padding-left: 1.25rem;
      }
      .pages label {
        font-weight: 400;
        display: flex;
        gap: 0.5rem;
        align-items: center;
      }
    `,
  ];

  static override properties = {
    me: { attribute: false },
    pages: { state: true },
    listed: { state: true },
    error: { state: true },
    creating: { state: true },
    fieldErrors: { state: true },
    updating: { state: true },
  };

  declare me: MeInfo;
  declare pages: Page[] | null;
  declare listed: Listed[];
  declare error: string;
  declare creating: boolean;
  declare fieldErrors: Record<string, string>;
  /** The incident whose update form is open: "pageId/incidentId". */
  declare updating: string;

  constructor() {
    super();
    this.pages = null;
    this.listed = [];
    this.error = "";
    this.creating = false;
    this.fieldErrors = {};
    this.updating = "";
  }

  get #canWrite(): boolean {
    return this.me.permissions.includes("incidents:write");
  }

  override connectedCallback(): void {
    super.connectedCallback();
    void this.#load();
  }

  async #load(): Promise<void> {
    try {
      const { data } = await api<{ statusPages: Page[] }>("GET", "/public/v1/status-pages?perPage=50");
      const lists = await Promise.all(
        data.statusPages.map(async (page) => {
          const { data: found } = await api<{ incidents: Incident[] }>(
            "GET",
            `/public/v1/status-pages/${page.id}/incidents`,
          );
          return found.incidents.map((incident) => ({ page, incident }));
        }),
      );
      this.pages = data.statusPages;
      this.listed = lists.flat().sort((a, b) => (b.incident.started_at > a.incident.started_at ? 1 : -1));
      this.error = "";
    } catch (error) {
      this.error = problemText(error);
    }
  }

  async #create(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    const data = new FormData(event.target as HTMLFormElement);
    const pageIds = data.getAll("page").map(String);
    this.fieldErrors = {};
    if (pageIds.length === 0) {
      this.fieldErrors = { page: "Choose at least one page" };
      return;
    }
    const body = {
      title: String(data.get("title") ?? ""),
      status: String(data.get("status") ?? "investigating"),
      message: String(data.get("message") ?? ""),
      startedAt: instant(String(data.get("startedAt") ?? "")),
    };
    try {
      for (const id of pageIds) await api("POST", `/public/v1/status-pages/${id}/incidents`, body);
      this.creating = false;
      await this.#load();
    } catch (error) {
      const fields = fieldErrorsOf(error);
      if (fields) {
        this.fieldErrors = fields;
      } else {
        this.error = problemText(error);
      }
    }
  }

  async #update(event: SubmitEvent, { page, incident }: Listed): Promise<void> {
    event.preventDefault();
    const data = new FormData(event.target as HTMLFormElement);
    try {
      await api("POST", `/public/v1/status-pages/${page.id}/incidents/${incident.id}/updates`, {
        status: String(data.get("status")),
        message: String(data.get("message") ?? ""),
        at: instant(String(data.get("at") ?? "")),
      });
      this.updating = "";
      await this.#load();
    } catch (error) {
      this.error = problemText(error);
    }
  }

  async #resolve({ page, incident }: Listed): Promise<void> {
    try {
      await api("POST", `/public/v1/status-pages/${page.id}/incidents/${incident.id}/updates`, {
        status: "resolved",
        message: "This incident has been resolved.",
      });
      await this.#load();
    } catch (error) {
      this.error = problemText(error);
    }
  }

  override render(): TemplateResult {
    const open = this.listed.filter((l) => l.incident.resolved_at === null);
    const past = this.listed.filter((l) => l.incident.resolved_at !== null).slice(0, 20);
    return html`
      <div class="bar">
        <div>
          <h1>Incidents</h1>
          <p class="muted">${this.pages === null ? "Loading…" : `${open.length} open`}</p>
        </div>
        ${
          this.#canWrite && this.pages && this.pages.length > 0
            ? html`<button class="primary" @click=${() => (this.creating = true)}>Open an incident</button>`
            : nothing
        }
      </div>
      ${this.error ? html`<p class="notice bad" role="alert">${this.error}</p>` : nothing}
      ${this.pages?.length === 0 ? html`<p class="panel">Incidents are told on status pages: create a page first.</p>` : nothing}
      ${this.creating ? this.#form() : nothing}
      <h2>Open</h2>
      ${open.length === 0 ? html`<p class="muted">No open incident.</p>` : open.map((l) => this.#incident(l))}
      <h2>Resolved</h2>
      ${past.length === 0 ? html`<p class="muted">None yet.</p>` : past.map((l) => this.#incident(l))}
    `;
  }

  #form(): TemplateResult {
    const err = (name: string) =>
      this.fieldErrors[name] ? html`<p class="error" id=${`i-${name}-error`}>${this.fieldErrors[name]}</p>` : nothing;
    return html`<form class="panel" @submit=${this.#create} aria-labelledby="new-incident">
      <h2 id="new-incident" style="margin-top:0">Open an incident</h2>
      <fieldset class="pages" style="border:0;padding:0;margin:0 0 0.9rem">
        <legend style="font-weight:600">On which pages</legend>
        ${(this.pages ?? []).map(
          (p, i) =>
            html`<label><input type="checkbox" name="page" value=${p.id} ?checked=${i === 0} /> ${p.name}</label>`,
        )}
        ${err("page")}
      </fieldset>
      <div class="field"><label for="i-title">Title</label>
        <input id="i-title" name="title" required maxlength="200" aria-invalid=${this.fieldErrors.title ? "true" : nothing} />${err("title")}</div>
      <div class="field"><label for="i-status">Status</label>
        <select id="i-status" name="status">${STATUSES.filter((s) => s !== "resolved").map((s) => html`<option value=${s}>${WORDS[s]}</option>`)}</select></div>
      <div class="field"><label for="i-message">What visitors read</label>
        <textarea id="i-message" name="message" rows="3" required maxlength="5000" aria-invalid=${this.fieldErrors.message ? "true" : nothing}></textarea>${err("message")}</div>
      <div class="field"><label for="i-started">Started<small>Optional: when it began, if earlier than now</small></label>
        <input id="i-started" name="startedAt" type="datetime-local" style="max-width:16rem" />${err("startedAt")}</div>
      <div class="row"><button class="primary">Open incident</button><button type="button" @click=${() => (this.creating = false)}>Cancel</button></div>
    </form>`;
  }

  #incident(listed: Listed): TemplateResult {
    const { page, incident } = listed;
    const key = `${page.id}/${incident.id}`;
    const resolved = incident.resolved_at !== null;
    return html`<article class="panel incident ${resolved ? "resolved" : ""}" aria-labelledby=${`inc-${key}`}>
      <div class="bar" style="margin:0">
        <h3 id=${`inc-${key}`}>${incident.title}</h3>
        <span class="chip ${resolved ? "up" : "warn"}">${WORDS[incident.status] ?? incident.status}</span>
      </div>
      <p class="muted">${page.name} · started ${dateTime(incident.started_at)}${resolved && incident.resolved_at ? ` · resolved ${dateTime(incident.resolved_at)}` : ""}</p>
      <ol class="timeline">
        ${incident.updates.map((u) => html`<li><strong>${WORDS[u.status]}</strong> <span class="muted">${dateTime(u.timestamp)}</span>: ${u.message}</li>`)}
      </ol>
      ${
        this.#canWrite && !resolved
          ? this.updating === key
            ? html`<form @submit=${(e: SubmitEvent) => this.#update(e, listed)} class="panel" style="margin-top:0.5rem">
              <div class="field"><label for=${`u-status-${key}`}>Status</label>
                <select id=${`u-status-${key}`} name="status">${STATUSES.map((s) => html`<option value=${s} ?selected=${s === incident.status}>${WORDS[s]}</option>`)}</select></div>
              <div class="field"><label for=${`u-message-${key}`}>Update</label>
                <textarea id=${`u-message-${key}`} name="message" rows="2" required maxlength="5000"></textarea></div>
              <div class="field"><label for=${`u-at-${key}`}>Time<small>Optional: when it happened, if earlier than now</small></label>
                <input id=${`u-at-${key}`} name="at" type="datetime-local" style="max-width:16rem" /></div>
              <div class="row"><button class="primary">Post update</button><button type="button" @click=${() => (this.updating = "")}>Cancel</button></div>
            </form>`
            : html`<div class="row">
              <button type="button" @click=${() => (this.updating = key)}>Post an update</button>
              <button type="button" class="primary" @click=${() => this.#resolve(listed)}>Resolve</button>
            </div>`
          : nothing
      }
    </article>`;
  }
}

customElements.define("pl-incidents", PlIncidents);
