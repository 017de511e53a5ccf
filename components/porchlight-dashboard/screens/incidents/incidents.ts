import { Task } from "@lit/task";
import { css, html, LitElement, nothing, type TemplateResult } from "lit";
import type { z } from "zod";
import type { OwnerIncidentList } from "../../../../server/contract/status-page.ts";
import type { NoticePreview } from "../../../../server/contract/subscribers.ts";
import { ApiProblem, api, problemText } from "../../lib/api.ts";
import { can, consumeMe } from "../../lib/context.ts";
import { FormController, limitHint } from "../../lib/form.ts";
import { dateTime } from "../../lib/format.ts";
import { shared } from "../../lib/styles.ts";
import type { AffectedStatus, Impact, OwnerIncident, Page } from "../../lib/types.ts";
import { allPages, pageMatches } from "../pages/list.ts";

const STATUSES = ["investigating", "identified", "monitoring", "resolved"] as const;
const WORDS: Record<string, string> = {
  investigating: "Investigating",
  identified: "Identified",
  monitoring: "Monitoring",
  resolved: "Resolved",
};

/** Impact levels in Statuspage's words, each with what it means for the services. */
const IMPACTS: [Impact, string][] = [
  ["none", "None"],
  ["minor", "Minor: degraded performance"],
  ["major", "Major: partial outage"],
  ["critical", "Critical: major outage"],
];
const IMPACT_WORDS: Record<string, string> = {
  none: "No impact",
  minor: "Minor",
  major: "Major",
  critical: "Critical",
};
const IMPACT_LOOK: Record<string, string> = { none: "unknown", minor: "warn", major: "warn", critical: "down" };

/** What an incident may say of each service it affects. */
const AFFECTED: [AffectedStatus, string][] = [
  ["operational", "Operational"],
  ["degraded", "Degraded performance"],
  ["partial_outage", "Partial outage"],
  ["major_outage", "Major outage"],
  ["maintenance", "Under maintenance"],
];
const AFFECTED_WORDS = Object.fromEntries(AFFECTED) as Record<string, string>;

/** The API's limits of a title and of an update's text (server/contract/status-page.ts), stated beforehand. */
const TITLE_MAX = 200;
const MESSAGE_MAX = 5000;

/** The API's field ("items.0.id") as the form's input ("items"). */
const fieldName = (field: string) => field.split(".")[0] ?? field;

/** Above this many pages, the page choice gets a search field. */
export const SEARCH_FROM = 8;

/** An incident as listed here: with the page it is on. */
interface Listed {
  page: Page;
  incident: OwnerIncident;
}

/** A datetime-local value (the browser's zone) as an ISO instant, or undefined when empty. */
function instant(local: string): string | undefined {
  return local ? new Date(local).toISOString() : undefined;
}

/** An ISO instant as a datetime-local value in the browser's zone. */
function localInput(iso: string): string {
  const date = new Date(iso);
  return new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

const keyOf = ({ page, incident }: Listed) => `${page.id}-${incident.id}`;

/**
 * Incidents across the workspace's status pages: open one on one or several pages (with its impact, the services it
 * affects and what it says of each, published at once or saved as a draft), post updates, resolve, correct anything
 * visitors read (title, impact, services, any update's text and time), publish a draft, and delete.
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
      .incident.unpublished {
        border-left-style: dashed;
        border-left-color: var(--muted);
      }
      .incident h3 {
        margin: 0;
      }
      ol.timeline {
        margin: 0.5rem 0;
        padding-left: 1.25rem;
      }
      ol.timeline li {
        margin: 0 0 0.4rem;
      }
      .detail {
        display: inline-block;
        font-size: 0.85rem;
        color: var(--muted);
        border: 1px solid var(--line);
        border-radius: 4px;
        padding: 0 0.35rem;
        margin-left: 0.25rem;
      }
      .check {
        font-weight: 400;
        display: flex;
        gap: 0.5rem;
        align-items: center;
        margin: 0;
      }
      .choices {
        max-height: 16rem;
        overflow: auto;
        border: 1px solid var(--line);
        border-radius: 6px;
        padding: 0.4rem 0.6rem;
        max-width: 32rem;
      }
      fieldset {
        border: 1px solid var(--line);
        border-radius: 6px;
        margin: 0 0 0.9rem;
        padding: 0.5rem 0.75rem;
        min-width: 0;
      }
      legend {
        font-weight: 600;
      }
      .service {
        display: flex;
        flex-wrap: wrap;
        gap: 0.25rem 0.75rem;
        align-items: center;
        padding: 0.2rem 0;
      }
      .service select {
        width: auto;
        max-width: 100%;
      }
      .marks {
        display: flex;
        flex-wrap: wrap;
        gap: 0.35rem 0.75rem;
        align-items: center;
      }
      .badge {
        font-size: 0.8rem;
        font-weight: 700;
        text-transform: uppercase;
        letter-spacing: 0.03em;
        border: 1px dashed currentColor;
        border-radius: 4px;
        padding: 0 0.4rem;
      }
      .preview-mail {
        margin: 0 0 1rem;
      }
      .preview-mail .subject {
        overflow-wrap: anywhere;
      }
      /* The e-mail as an inbox shows it: its own document, no script, white as most mail readers are. */
      .preview-mail iframe {
        width: 100%;
        height: 28rem;
        border: 1px solid var(--line);
        border-radius: 6px;
        background: #fff;
      }
    `,
  ];

  static override properties = {
    notice: { state: true },
    creating: { state: true },
    chosen: { state: true },
    query: { state: true },
    updating: { state: true },
    editing: { state: true },
    editingUpdate: { state: true },
    deleting: { state: true },
    previews: { state: true },
  };

  /** What the last change did, for a screen reader. */
  declare notice: string;
  declare creating: boolean;
  /** The pages the new incident goes on: none until the owner chooses (or came from one). */
  declare chosen: number[];
  declare query: string;
  /** The incident whose update form is open ("pageId-incidentId"). */
  declare updating: string;
  /** The incident whose editor is open. */
  declare editing: string;
  /** The update whose editor is open ("pageId-incidentId-updateId"). */
  declare editingUpdate: string;
  declare deleting: Listed | null;
  /** The e-mail each chosen page's subscribers would receive, asked for before opening the incident. */
  declare previews: { page: Page; notice: z.infer<typeof NoticePreview> }[];

  readonly #me = consumeMe(this);
  /** One controller per form that can be open at once; ids start with its prefix (i-, e-, u-, eu-). */
  readonly #newForm = new FormController(this, fieldName);
  readonly #editForm = new FormController(this, fieldName);
  readonly #updateForm = new FormController(this, fieldName);
  readonly #correctForm = new FormController(this, fieldName);
  /** The one-click actions (publish, resolve, delete): a refusal shows above the lists. */
  readonly #oneClick = new FormController(this, fieldName);

  /** Every page of the workspace, and the incidents of each, newest first. */
  readonly #load = new Task(this, {
    task: async (_args, { signal }) => {
      const pages = await allPages(signal);
      const lists = await Promise.all(
        pages.map(async (page) => {
          const { data } = await api<OwnerIncidentList>(
            "GET",
            `/public/v1/status-pages/${page.id}/incidents`,
            undefined,
            { signal },
          );
          return data.incidents.map((incident) => ({ page, incident }));
        }),
      );
      const listed = lists.flat().sort((a, b) => (b.incident.started_at > a.incident.started_at ? 1 : -1));
      return { pages, listed };
    },
    args: () => [] as const,
    onComplete: ({ pages }) => this.#openFromPage(pages),
  });

  /** Came from a page's screen (?page=): the form opens on that page, once; only then is a page chosen for the owner. */
  #fromPage = Number(new URLSearchParams(location.search).get("page"));

  constructor() {
    super();
    this.notice = "";
    this.creating = false;
    this.chosen = [];
    this.query = "";
    this.updating = "";
    this.editing = "";
    this.editingUpdate = "";
    this.deleting = null;
    this.previews = [];
  }

  get #canWrite(): boolean {
    return can(this.#me.value, "incidents:write");
  }

  #openFromPage(pages: Page[]): void {
    const from = this.#fromPage;
    this.#fromPage = 0;
    if (!from || !this.#canWrite || !pages.some((p) => p.id === from)) return;
    this.chosen = [from];
    this.creating = true;
    void this.updateComplete.then(() => this.renderRoot.querySelector<HTMLElement>("#i-title")?.focus());
  }

  get #pages(): Page[] | null {
    return this.#load.value?.pages ?? null;
  }

  /**
   * Runs a change through `form` (its refusal shown beside its fields, or above its buttons), then reloads and
   * says what was done; true when it was.
   */
  async #act(form: FormController, event: SubmitEvent | null, run: (data: FormData) => Promise<unknown>, done: string) {
    const ok = await form.submit(event, async (data) => {
      await run(data);
      return true;
    });
    if (!ok) return false;
    this.notice = done;
    await this.#load.run();
    return true;
  }

  /** The affected services a form names for one page: its ticked items, each with the status chosen beside it. */
  #itemsOf(data: FormData, pageId: number): { id: number; status: string }[] {
    return data.getAll(`item-${pageId}`).map((id) => ({
      id: Number(id),
      status: String(data.get(`status-${id}`) ?? "major_outage"),
    }));
  }

  /**
   * The new incident's words as the form says them now, for opening it and for previewing its e-mail. Which pages is
   * the form's own question, asked before the API is: it says it beside the choice, as the API would.
   */
  #newIncident(data: FormData) {
    if (this.chosen.length === 0) {
      throw new ApiProblem(400, "invalid_request", "Choose a page.", [
        { field: "page", message: "Choose at least one page." },
      ]);
    }
    return {
      title: String(data.get("title") ?? ""),
      impact: String(data.get("impact") ?? "") || undefined,
      status: String(data.get("status") ?? "investigating"),
      message: String(data.get("message") ?? ""),
    };
  }

  async #create(event: SubmitEvent): Promise<void> {
    const draft = (event.submitter as HTMLButtonElement | null)?.value === "draft";
    const ok = await this.#act(
      this.#newForm,
      event,
      async (data) => {
        const body = {
          ...this.#newIncident(data),
          startedAt: instant(String(data.get("startedAt") ?? "")),
          publish: !draft,
          notify: data.get("notify") === "on",
        };
        for (const id of this.chosen) {
          await api("POST", `/public/v1/status-pages/${id}/incidents`, { ...body, items: this.#itemsOf(data, id) });
        }
      },
      draft ? "Saved as a draft: visitors see it once you publish it." : "Incident opened.",
    );
    if (ok) this.#closeNew();
  }

  /** Closes the new incident's form and forgets it, so the next one starts clean. */
  #closeNew(): void {
    this.renderRoot.querySelector<HTMLFormElement>("#new-incident-form")?.reset();
    this.#newForm.reset();
    this.creating = false;
    this.chosen = [];
    this.query = "";
    this.previews = [];
  }

  /** Asks the API for the e-mail each chosen page's subscribers would receive, from what the form says now. */
  async #preview(): Promise<void> {
    const form = this.renderRoot.querySelector<HTMLFormElement>("#new-incident-form");
    if (!form) return;
    const data = new FormData(form);
    const pages = (this.#pages ?? []).filter((p) => this.chosen.includes(p.id));
    const previews = await this.#newForm.submit(null, async () => {
      const words = this.#newIncident(data);
      const shown: PlIncidents["previews"] = [];
      for (const page of pages) {
        const { data: notice } = await api<z.infer<typeof NoticePreview>>(
          "POST",
          `/public/v1/status-pages/${page.id}/subscribers/preview`,
          { ...words, items: this.#itemsOf(data, page.id) },
        );
        shown.push({ page, notice });
      }
      return shown;
    });
    this.previews = previews ?? [];
    if (previews) {
      await this.updateComplete;
      this.renderRoot.querySelector<HTMLElement>("#notice-preview")?.focus();
    }
  }

  /** A preview no longer says what would be sent once the form changes: it goes until asked for again. */
  readonly #stalePreview = () => {
    if (this.previews.length > 0) this.previews = [];
  };

  #previewPanel(): TemplateResult | typeof nothing {
    if (this.previews.length === 0) return nothing;
    return html`<section id="notice-preview" tabindex="-1" aria-labelledby="notice-preview-title" style="margin-top:0.75rem">
      <h3 id="notice-preview-title">What subscribers would receive</h3>
      ${this.previews.map(
        ({ page, notice }) => html`<div class="preview-mail">
          <p style="margin:0 0 0.25rem"><strong>${page.name}</strong>: ${
            notice.recipients === 0
              ? "no confirmed subscriber would receive it"
              : `${notice.recipients} confirmed ${notice.recipients === 1 ? "subscriber" : "subscribers"}`
          }${page.subscriptions.enabled ? "" : " (subscriptions are off on this page)"}</p>
          <p style="margin:0 0 0.4rem">Subject: <strong class="subject">${notice.subject}</strong></p>
          <iframe title=${`The e-mail to ${page.name}'s subscribers`} sandbox="" srcdoc=${notice.html} loading="lazy"></iframe>
        </div>`,
      )}
    </section>`;
  }

  async #update(event: SubmitEvent, { page, incident }: Listed): Promise<void> {
    const ok = await this.#act(
      this.#updateForm,
      event,
      (data) =>
        api("POST", `/public/v1/status-pages/${page.id}/incidents/${incident.id}/updates`, {
          status: String(data.get("status")),
          message: String(data.get("message") ?? ""),
          at: instant(String(data.get("at") ?? "")),
          notify: data.get("notify") === "on",
        }),
      "Update posted.",
    );
    if (ok) this.updating = "";
  }

  #resolve({ page, incident }: Listed): Promise<boolean> {
    return this.#act(
      this.#oneClick,
      null,
      () =>
        api("POST", `/public/v1/status-pages/${page.id}/incidents/${incident.id}/updates`, {
          status: "resolved",
          message: "This incident has been resolved.",
        }),
      `${incident.title} resolved.`,
    );
  }

  async #saveEdit(event: SubmitEvent, { page, incident }: Listed): Promise<void> {
    const ok = await this.#act(
      this.#editForm,
      event,
      (data) =>
        api("PATCH", `/public/v1/status-pages/${page.id}/incidents/${incident.id}`, {
          title: String(data.get("title") ?? ""),
          impact: String(data.get("impact") ?? "none"),
          items: this.#itemsOf(data, page.id),
        }),
      "Incident saved.",
    );
    if (ok) this.editing = "";
  }

  async #saveUpdate(
    event: SubmitEvent,
    { page, incident }: Listed,
    update: OwnerIncident["updates"][number],
  ): Promise<void> {
    const ok = await this.#act(
      this.#correctForm,
      event,
      (data) => {
        const local = String(data.get("at") ?? "");
        // The field shows whole minutes: an untouched time is not sent, so the update keeps its seconds.
        const at = local === localInput(update.timestamp) ? undefined : instant(local);
        return api("PATCH", `/public/v1/status-pages/${page.id}/incidents/${incident.id}/updates/${update.id}`, {
          message: String(data.get("message") ?? ""),
          at,
        });
      },
      "Update saved.",
    );
    if (ok) this.editingUpdate = "";
  }

  #publish({ page, incident }: Listed): Promise<boolean> {
    return this.#act(
      this.#oneClick,
      null,
      () => api("POST", `/public/v1/status-pages/${page.id}/incidents/${incident.id}/publish`),
      `${incident.title} published: visitors of ${page.name} see it now.`,
    );
  }

  async #askDelete(listed: Listed): Promise<void> {
    this.#oneClick.reset();
    this.deleting = listed;
    await this.updateComplete;
    this.renderRoot.querySelector<HTMLDialogElement>("#delete-incident")?.showModal();
  }

  async #delete(): Promise<void> {
    const listed = this.deleting;
    if (!listed) return;
    const dialog = this.renderRoot.querySelector<HTMLDialogElement>("#delete-incident");
    const ok = await this.#act(
      this.#oneClick,
      null,
      () => api("DELETE", `/public/v1/status-pages/${listed.page.id}/incidents/${listed.incident.id}`),
      `${listed.incident.title} deleted.`,
    );
    if (ok) dialog?.close();
  }

  /** Opens (or closes) one of an incident's forms, empty of an earlier attempt's messages. */
  #toggle(form: FormController, set: () => void): void {
    form.reset();
    set();
  }

  #choose(id: number, on: boolean): void {
    this.chosen = on ? [...this.chosen, id] : this.chosen.filter((c) => c !== id);
  }

  override render(): TemplateResult {
    return html`${this.#load.render({
      pending: () => (this.#load.value ? this.#screen(this.#load.value.listed) : this.#screen(null)),
      complete: ({ listed }) => this.#screen(listed),
      error: (error) => html`<h1>Incidents</h1><p class="notice bad" role="alert">${problemText(error)}</p>`,
    })}`;
  }

  #screen(listed: Listed[] | null): TemplateResult {
    const pages = this.#pages;
    const open = (listed ?? []).filter((l) => l.incident.resolved_at === null);
    const past = (listed ?? []).filter((l) => l.incident.resolved_at !== null).slice(0, 20);
    return html`
      <div class="bar">
        <div>
          <h1>Incidents</h1>
          <p class="muted">${listed === null ? "Loading…" : `${open.length} open`}</p>
        </div>
        ${
          this.#canWrite && pages && pages.length > 0 && !this.creating
            ? html`<button class="primary" @click=${() => this.#toggle(this.#newForm, () => (this.creating = true))}>Open an incident</button>`
            : nothing
        }
      </div>
      <p class="sr-only" role="status">${this.notice}</p>
      ${this.deleting ? nothing : this.#oneClick.message()}
      ${pages?.length === 0 ? html`<p class="panel">Incidents are told on status pages: create a page first.</p>` : nothing}
      ${this.creating ? this.#form() : nothing}
      ${
        listed === null
          ? nothing
          : html`<h2>Open</h2>
            ${open.length === 0 ? html`<p class="muted">No open incident.</p>` : open.map((l) => this.#incident(l))}
            <h2>Resolved</h2>
            ${past.length === 0 ? html`<p class="muted">None yet.</p>` : past.map((l) => this.#incident(l))}`
      }
      ${this.#deleteDialog()}
    `;
  }

  /** The page choice: nothing ticked until the owner ticks; with many pages, a search narrows the list. */
  #pageChoice(): TemplateResult {
    const f = this.#newForm;
    const pages = this.#pages ?? [];
    const many = pages.length > SEARCH_FROM;
    const q = this.query.trim();
    const shown = pages.filter((p) => this.chosen.includes(p.id) || pageMatches(p, q));
    const matching = pages.filter((p) => pageMatches(p, q)).length;
    const names = pages.filter((p) => this.chosen.includes(p.id)).map((p) => p.name);
    return html`<fieldset aria-describedby=${f.describedBy("i", "page")}>
      <legend>On which pages</legend>
      ${
        many
          ? html`<div class="field" role="search" style="margin-bottom:0.5rem">
              <label for="page-search">Find a page<small>By name or address; ${pages.length} pages</small></label>
              <input id="page-search" type="search" autocomplete="off" aria-controls="page-choices" .value=${this.query}
                @input=${(e: Event) => (this.query = (e.target as HTMLInputElement).value)} />
              <p class="muted" role="status" style="margin:0.25rem 0 0">${q === "" ? `${pages.length} pages` : `${matching} of ${pages.length} pages match`}</p>
            </div>`
          : nothing
      }
      <div id="page-choices" class=${many ? "choices" : ""}>
        ${shown.map(
          (p) => html`<label class="check"><input type="checkbox" name="page" value=${p.id}
            .checked=${this.chosen.includes(p.id)} aria-invalid=${f.invalid("page")}
            @change=${(e: Event) => this.#choose(p.id, (e.target as HTMLInputElement).checked)} /> ${p.name}
            <span class="muted">/${p.slug}</span></label>`,
        )}
        ${shown.length === 0 ? html`<p class="muted" style="margin:0">No page matches.</p>` : nothing}
      </div>
      <p class="muted" style="margin:0.4rem 0 0">${names.length === 0 ? "No page chosen yet." : `Chosen: ${names.join(", ")}`}</p>
      ${f.error("i", "page")}
    </fieldset>`;
  }

  /** A page's items as affected services: a tick each, and beside it what the incident says of the service. */
  #services(
    form: FormController,
    prefix: string,
    page: Page,
    affected: OwnerIncident["affected"] = [],
  ): TemplateResult {
    const named = new Map(affected.map((a) => [a.id, a.status ?? "major_outage"]));
    return html`<fieldset aria-describedby=${form.describedBy(`${prefix}-${page.id}`, "items")}>
      <legend>${prefix === "i" ? `Affected services on ${page.name}` : "Affected services"}</legend>
      ${page.items.length === 0 ? html`<p class="muted" style="margin:0">This page shows no service yet.</p>` : nothing}
      ${page.items.map((item) => {
        const id = `${prefix}-${page.id}-svc-${item.id}`;
        return html`<div class="service">
          <label class="check" for=${id}><input type="checkbox" id=${id} name=${`item-${page.id}`} value=${item.id}
            ?checked=${named.has(item.id)} /> ${item.label}</label>
          <label class="sr-only" for=${`${id}-status`}>Status of ${item.label}</label>
          <select id=${`${id}-status`} name=${`status-${item.id}`}>
            ${AFFECTED.map(([value, word]) => html`<option value=${value} ?selected=${(named.get(item.id) ?? "major_outage") === value}>${word}</option>`)}
          </select>
        </div>`;
      })}
      ${form.error(`${prefix}-${page.id}`, "items")}
    </fieldset>`;
  }

  /** The impact choice; a new incident may leave it to the worst status it gives its services (the server's rule). */
  #impactSelect(form: FormController, prefix: string, id: string, impact: string): TemplateResult {
    return html`<div class="field"><label for=${id}>Impact<small>How badly visitors are affected</small></label>
      <select id=${id} name="impact" style="max-width:20rem" aria-invalid=${form.invalid("impact")} aria-describedby=${form.describedBy(prefix, "impact")}>
        ${impact === "" ? html`<option value="" selected>From the services' statuses</option>` : nothing}
        ${IMPACTS.map(([value, word]) => html`<option value=${value} ?selected=${impact === value}>${word}</option>`)}
      </select>${form.error(prefix, "impact")}</div>`;
  }

  /** A text input or area with its limit stated beforehand and the API's message beside it. */
  #text(
    form: FormController,
    prefix: string,
    id: string,
    name: string,
    label: string,
    max: number,
    options: { area?: boolean; value?: string } = {},
  ): TemplateResult {
    const hint = `${id}-hint`;
    const described = form.describedBy(prefix, name, hint);
    return html`<div class="field"><label for=${id}>${label}</label>${limitHint(hint, max)}
      ${
        options.area
          ? html`<textarea id=${id} name=${name} rows="3" .value=${options.value ?? ""} aria-invalid=${form.invalid(name)}
              aria-describedby=${described}></textarea>`
          : html`<input id=${id} name=${name} autocomplete="off" .value=${options.value ?? ""} aria-invalid=${form.invalid(name)}
              aria-describedby=${described} />`
      }${form.error(prefix, name)}</div>`;
  }

  #form(): TemplateResult {
    const f = this.#newForm;
    const chosen = (this.#pages ?? []).filter((p) => this.chosen.includes(p.id));
    return html`<form id="new-incident-form" class="panel" novalidate @submit=${this.#create} aria-labelledby="new-incident"
      @input=${this.#stalePreview} @change=${this.#stalePreview}>
      <h2 id="new-incident" style="margin-top:0">Open an incident</h2>
      ${this.#pageChoice()}
      ${this.#text(f, "i", "i-title", "title", "Title", TITLE_MAX)}
      ${this.#impactSelect(f, "i", "i-impact", "")}
      ${chosen.map((page) => this.#services(f, "i", page))}
      <div class="field"><label for="i-status">Status</label>
        <select id="i-status" name="status" style="max-width:20rem">${STATUSES.filter((s) => s !== "resolved").map((s) => html`<option value=${s}>${WORDS[s]}</option>`)}</select></div>
      ${this.#text(f, "i", "i-message", "message", "What visitors read", MESSAGE_MAX, { area: true })}
      <div class="field"><label for="i-started">Started<small id="i-started-hint">Optional: when it began, if earlier than now; in your browser's time zone</small></label>
        <input id="i-started" name="startedAt" type="datetime-local" style="max-width:16rem" aria-invalid=${f.invalid("startedAt")}
          aria-describedby=${f.describedBy("i", "startedAt", "i-started-hint")} />${f.error("i", "startedAt")}</div>
      <label class="check"><input type="checkbox" name="notify" checked /> Tell the page's subscribers</label>
      <p class="muted" style="margin:0.25rem 0 0.75rem">By e-mail, webhook or chat, when you open it. A draft tells no one until you publish it, and then tells them.</p>
      ${f.message()}
      <div class="row">
        <button class="primary" value="publish" ?disabled=${f.busy}>Open incident</button>
        <button value="draft" ?disabled=${f.busy}>Save as draft</button>
        <button type="button" ?disabled=${f.busy} @click=${() => this.#preview()}>Preview the e-mail</button>
        <button type="button" @click=${() => this.#closeNew()}>Cancel</button>
      </div>
      <p class="muted" style="margin:0.5rem 0 0">Open incident publishes it at once; a draft waits, unseen by visitors, until you publish it.</p>
      ${this.#previewPanel()}
    </form>`;
  }

  /** Why visitors do not see an incident yet, in words; null when they do. */
  #unpublished({ page, incident }: Listed): TemplateResult | null {
    if (incident.published !== false) return null;
    const policy = page.incidentPolicy;
    if (incident.source === "automatic" && policy?.publish === "after") {
      return incident.resolved_at === null
        ? html`<span class="badge warn">Waiting</span><span class="muted">Visitors see it if the outage lasts ${policy.afterMinutes} minutes, or once you publish it.</span>`
        : html`<span class="badge unknown">Owner only</span><span class="muted">It ended within ${policy.afterMinutes} minutes, so visitors never saw it.</span>`;
    }
    return html`<span class="badge unknown">Draft</span><span class="muted">Visitors do not see it until you publish it.</span>`;
  }

  #incident(listed: Listed): TemplateResult {
    const { page, incident } = listed;
    const key = keyOf(listed);
    const resolved = incident.resolved_at !== null;
    const waiting = this.#unpublished(listed);
    const impact = incident.impact ?? "none";
    return html`<article class="panel incident ${resolved ? "resolved" : ""} ${waiting ? "unpublished" : ""}" aria-labelledby=${`inc-${key}`}>
      <div class="bar" style="margin:0">
        <h3 id=${`inc-${key}`}>${incident.title}</h3>
        <span class="chip ${resolved ? "up" : "warn"}">${WORDS[incident.status] ?? incident.status}</span>
      </div>
      <p class="muted" style="margin:0.25rem 0">${page.name} · started ${dateTime(incident.started_at)}${resolved && incident.resolved_at ? ` · resolved ${dateTime(incident.resolved_at)}` : ""}${incident.source === "automatic" ? " · opened by the checks" : ""}</p>
      <div class="marks">
        ${waiting ?? nothing}
        <span>Impact: <span class="chip ${IMPACT_LOOK[impact] ?? "unknown"}">${IMPACT_WORDS[impact] ?? impact}</span></span>
        <span class="muted">${
          incident.affected.length === 0
            ? "No service named"
            : `Affects ${incident.affected.map((a) => `${a.label} (${AFFECTED_WORDS[a.status ?? "major_outage"] ?? a.status})`).join(", ")}`
        }</span>
      </div>
      ${this.editing === key ? this.#editor(listed) : nothing}
      <ol class="timeline" aria-label="Updates, newest first">
        ${incident.updates.map((u) => this.#updateRow(listed, u))}
      </ol>
      ${this.#canWrite ? this.#actions(listed, resolved, waiting !== null) : nothing}
    </article>`;
  }

  #updateRow(listed: Listed, u: OwnerIncident["updates"][number]): TemplateResult {
    const key = `${keyOf(listed)}-${u.id}`;
    if (u.id !== undefined && this.editingUpdate === key) {
      const f = this.#correctForm;
      return html`<li><form novalidate @submit=${(e: SubmitEvent) => this.#saveUpdate(e, listed, u)} aria-label=${`Edit the ${(WORDS[u.status] ?? u.status).toLowerCase()} update of ${dateTime(u.timestamp)}`}>
        <p class="muted" style="margin:0 0 0.4rem"><strong>${WORDS[u.status] ?? u.status}</strong>, ${dateTime(u.timestamp)}${u.detail ? html` <span class="detail">Owner only: ${u.detail}</span>` : nothing}</p>
        ${this.#text(f, "eu", `eu-message-${key}`, "message", "Text of the update", MESSAGE_MAX, { area: true, value: u.message })}
        <div class="field"><label for=${`eu-at-${key}`}>Time<small id=${`eu-at-${key}-hint`}>In your browser's time zone</small></label>
          <input id=${`eu-at-${key}`} name="at" type="datetime-local" style="max-width:16rem" .value=${localInput(u.timestamp)}
            aria-invalid=${f.invalid("at")} aria-describedby=${f.describedBy("eu", "at", `eu-at-${key}-hint`)} />${f.error("eu", "at")}</div>
        ${f.message()}
        <div class="row"><button class="primary" ?disabled=${f.busy}>Save update</button>
          <button type="button" @click=${() => this.#toggle(f, () => (this.editingUpdate = ""))}>Cancel</button></div>
      </form></li>`;
    }
    return html`<li><strong>${WORDS[u.status] ?? u.status}</strong> <span class="muted">${dateTime(u.timestamp)}</span>: ${u.message}
      ${u.detail ? html`<span class="detail" title="Shown to you, never to visitors">Owner only: ${u.detail}</span>` : nothing}
      ${
        this.#canWrite && u.id !== undefined
          ? html` <button type="button" class="link" aria-label=${`Edit the ${(WORDS[u.status] ?? u.status).toLowerCase()} update of ${dateTime(u.timestamp)}`}
              @click=${() => this.#toggle(this.#correctForm, () => (this.editingUpdate = key))}>Edit</button>`
          : nothing
      }</li>`;
  }

  #editor(listed: Listed): TemplateResult {
    const { page, incident } = listed;
    const key = keyOf(listed);
    const f = this.#editForm;
    return html`<form class="panel" novalidate style="margin:0.75rem 0 0" @submit=${(e: SubmitEvent) => this.#saveEdit(e, listed)} aria-label=${`Edit ${incident.title}`}>
      ${this.#text(f, "e", `e-title-${key}`, "title", "Title", TITLE_MAX, { value: incident.title })}
      ${this.#impactSelect(f, "e", `e-impact-${key}`, incident.impact ?? "none")}
      ${this.#services(f, "e", page, incident.affected)}
      ${f.message()}
      <div class="row"><button class="primary" ?disabled=${f.busy}>Save changes</button>
        <button type="button" @click=${() => this.#toggle(f, () => (this.editing = ""))}>Cancel</button></div>
    </form>`;
  }

  #actions(listed: Listed, resolved: boolean, unpublished: boolean): TemplateResult {
    const key = keyOf(listed);
    const { incident } = listed;
    if (this.updating === key) {
      const f = this.#updateForm;
      return html`<form novalidate @submit=${(e: SubmitEvent) => this.#update(e, listed)} class="panel" style="margin-top:0.5rem"
        aria-label=${`Post an update on ${incident.title}`}>
        <div class="field"><label for=${`u-status-${key}`}>Status</label>
          <select id=${`u-status-${key}`} name="status" style="max-width:20rem" aria-invalid=${f.invalid("status")}
            aria-describedby=${f.describedBy("u", "status")}>${STATUSES.map((s) => html`<option value=${s} ?selected=${s === incident.status}>${WORDS[s]}</option>`)}</select>${f.error("u", "status")}</div>
        ${this.#text(f, "u", `u-message-${key}`, "message", "Update", MESSAGE_MAX, { area: true })}
        <div class="field"><label for=${`u-at-${key}`}>Time<small id=${`u-at-${key}-hint`}>Optional: when it happened, if earlier than now; in your browser's time zone</small></label>
          <input id=${`u-at-${key}`} name="at" type="datetime-local" style="max-width:16rem" aria-invalid=${f.invalid("at")}
            aria-describedby=${f.describedBy("u", "at", `u-at-${key}-hint`)} />${f.error("u", "at")}</div>
        ${unpublished ? nothing : html`<label class="check" style="margin-bottom:0.5rem"><input type="checkbox" name="notify" checked /> Tell the page's subscribers</label>`}
        ${f.message()}
        <div class="row"><button class="primary" ?disabled=${f.busy}>Post update</button>
          <button type="button" @click=${() => this.#toggle(f, () => (this.updating = ""))}>Cancel</button></div>
      </form>`;
    }
    return html`<div class="row">
      ${unpublished ? html`<button type="button" class="primary" @click=${() => this.#publish(listed)} aria-label=${`Publish ${incident.title}`}>Publish</button>` : nothing}
      ${resolved ? nothing : html`<button type="button" @click=${() => this.#toggle(this.#updateForm, () => (this.updating = key))}>Post an update</button>`}
      ${resolved ? nothing : html`<button type="button" class=${unpublished ? "" : "primary"} @click=${() => this.#resolve(listed)}>Resolve</button>`}
      <button type="button" aria-label=${`Edit ${incident.title}`} aria-expanded=${this.editing === key ? "true" : "false"}
        @click=${() => this.#toggle(this.#editForm, () => (this.editing = this.editing === key ? "" : key))}>Edit</button>
      <button type="button" class="danger" aria-label=${`Delete ${incident.title}`} @click=${() => this.#askDelete(listed)}>Delete</button>
    </div>`;
  }

  #deleteDialog(): TemplateResult {
    const listed = this.deleting;
    const count = listed?.incident.updates.length ?? 0;
    return html`<dialog id="delete-incident" aria-labelledby="delete-incident-title" @close=${() => (this.deleting = null)}>
      <h2 id="delete-incident-title" style="margin-top:0">Delete the incident “${listed?.incident.title ?? ""}”?</h2>
      <p>It leaves ${listed?.page.name ?? "its page"} at once, with its ${count === 1 ? "update" : `${count} updates`}, for visitors and for you. This cannot be undone.</p>
      ${listed ? this.#oneClick.message() : nothing}
      <div class="row" style="justify-content:flex-end">
        <button type="button" @click=${() => this.renderRoot.querySelector<HTMLDialogElement>("#delete-incident")?.close()}>Cancel</button>
        <button type="button" class="danger solid" ?disabled=${this.#oneClick.busy} @click=${() => this.#delete()}>Delete incident</button>
      </div>
    </dialog>`;
  }
}

customElements.define("pl-incidents", PlIncidents);
