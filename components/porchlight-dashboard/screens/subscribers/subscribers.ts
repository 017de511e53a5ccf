import { Task } from "@lit/task";
import { css, html, LitElement, nothing, type TemplateResult } from "lit";
import type { z } from "zod";
import type {
  Subscriber,
  SubscriberImportResult,
  SubscriberKind,
  SubscriberList as SubscriberListSchema,
  SubscriberState,
} from "../../../../server/contract/subscribers.ts";
import { api, problemText } from "../../lib/api.ts";
import { can, consumeMe } from "../../lib/context.ts";
import { FormController } from "../../lib/form.ts";
import { dateTime } from "../../lib/format.ts";
import { BASE, navigate } from "../../lib/router.ts";
import { shared } from "../../lib/styles.ts";
import type { Page } from "../../lib/types.ts";

/** How a visitor may subscribe, in the order the page's form offers them. */
const KINDS: [SubscriberKind, string][] = [
  ["email", "E-mail"],
  ["webhook", "Webhook"],
  ["slack", "Slack"],
  ["discord", "Discord"],
  ["teams", "Microsoft Teams"],
];

const STATES: Record<SubscriberState, [string, string]> = {
  confirmed: ["Confirmed", "up"],
  pending: ["Waiting for confirmation", "unknown"],
  suspended: ["Suspended", "down"],
};

/** The API's page of answers (server/contract/subscribers.ts SubscriberQuery). */
const PER_PAGE = 100;

type SubscriberList = z.infer<typeof SubscriberListSchema>;
type ImportResult = z.infer<typeof SubscriberImportResult>;

/**
 * A page's subscribers: whether visitors may subscribe (and how), who is subscribed (counted by state, searched by
 * address, filtered by state, removed one by one), an export as CSV and an import of addresses, with confirmation
 * e-mails unless the owner states that they agreed. Addresses are personal data: editors and admins see them.
 */
export class PlSubscribers extends LitElement {
  static override styles = [
    shared,
    css`
      .counts {
        display: flex;
        flex-wrap: wrap;
        gap: 0.4rem 1.25rem;
        margin: 0 0 0.75rem;
      }
      .counts strong {
        font-variant-numeric: tabular-nums;
      }
      .filters {
        display: flex;
        flex-wrap: wrap;
        gap: 0.5rem 1rem;
        align-items: end;
      }
      .filters .field {
        margin: 0;
        flex: 1 1 14rem;
      }
      td.address {
        overflow-wrap: anywhere;
        min-width: 0;
      }
      .kind {
        font-size: 0.8rem;
        border: 1px solid var(--line);
        border-radius: 4px;
        padding: 0 0.3rem;
        margin-left: 0.35rem;
        color: var(--muted);
      }
      .why {
        display: block;
        font-size: 0.85rem;
        color: var(--muted);
      }
      fieldset.kinds {
        display: flex;
        flex-wrap: wrap;
        gap: 0.25rem 1rem;
        border: 1px solid var(--line);
        border-radius: 6px;
        padding: 0.5rem 0.75rem 0.6rem;
        margin: 0;
      }
      fieldset.kinds legend {
        font-weight: 600;
        padding: 0 0.25rem;
      }
    `,
  ];

  static override properties = {
    pageId: { type: String },
    search: { state: true },
    state: { state: true },
    offset: { state: true },
    notice: { state: true },
    imported: { state: true },
    removing: { state: true },
  };

  declare pageId: string;
  declare search: string;
  declare state: SubscriberState | "";
  /** How many matching subscribers come before those listed (a hundred are listed at a time). */
  declare offset: number;
  declare notice: string;
  declare imported: ImportResult | null;
  declare removing: Subscriber | null;

  readonly #me = consumeMe(this);
  /** The API names the page's field ("subscriptions.kinds"); the form's input is "kinds". */
  readonly #settingsForm = new FormController(this, (f) => f.replace(/^subscriptions\./, "").replace(/\.\d+$/, ""));
  readonly #importForm = new FormController(this);
  readonly #oneClick = new FormController(this);

  readonly #page = new Task(this, {
    task: async ([id], { signal }) =>
      (await api<Page>("GET", `/public/v1/status-pages/${encodeURIComponent(id)}`, undefined, { signal })).data,
    args: () => [this.pageId] as const,
  });

  readonly #list = new Task(this, {
    task: async ([id, search, state, offset], { signal }) => {
      const query = new URLSearchParams({ limit: String(PER_PAGE), offset: String(offset) });
      if (search.trim()) query.set("search", search.trim());
      if (state) query.set("state", state);
      const path = `/public/v1/status-pages/${encodeURIComponent(id)}/subscribers?${query}`;
      return (await api<SubscriberList>("GET", path, undefined, { signal })).data;
    },
    args: () => [this.pageId, this.search, this.state, this.offset] as const,
  });

  constructor() {
    super();
    this.pageId = "";
    const query = new URLSearchParams(location.search);
    this.search = query.get("search") ?? "";
    const state = query.get("state") ?? "";
    this.state = state in STATES ? (state as SubscriberState) : "";
    this.offset = 0;
    this.notice = "";
    this.imported = null;
    this.removing = null;
  }

  get #canWrite(): boolean {
    return can(this.#me.value, "status_pages:write");
  }

  /** The search and the filter are in the address, so a reload or a shared link shows the same list. */
  #filter(search: string, state: SubscriberState | ""): void {
    this.search = search;
    this.state = state;
    this.offset = 0;
    const query = new URLSearchParams();
    if (search) query.set("search", search);
    if (state) query.set("state", state);
    history.replaceState(null, "", `${location.pathname}${query.size ? `?${query}` : ""}`);
  }

  override render(): TemplateResult {
    const page = this.#page.value?.id === Number(this.pageId) ? this.#page.value : null;
    const back = html`<a href=${`${BASE}pages/${this.pageId}`} @click=${(e: MouseEvent) => {
      e.preventDefault();
      navigate(`${BASE}pages/${this.pageId}`);
    }}>← ${page?.name ?? "The status page"}</a>`;
    if (!page) {
      return html`${back}${this.#page.render({
        pending: () => html`<p class="muted">Loading…</p>`,
        error: (error) => html`<p class="notice bad" role="alert">${problemText(error)}</p>`,
      })}`;
    }
    return html`
      ${back}
      <div class="bar">
        <div>
          <h1>Subscribers</h1>
          <p class="muted">Who ${page.name} tells of its incidents and maintenance.</p>
        </div>
        ${this.#canWrite ? html`<a class="button" href=${`/public/v1/status-pages/${page.id}/subscribers.csv`} download>Export CSV</a>` : nothing}
      </div>
      ${this.notice ? html`<p class="notice" role="status">${this.notice}</p>` : nothing}
      ${this.#oneClick.message()}
      ${this.#settings(page)}
      ${
        this.#canWrite
          ? html`${this.#subscribers(page)} ${this.#import(page)}`
          : html`<p class="panel">Subscribers' addresses are personal data: editors and admins see them.</p>`
      }
      ${this.#dialog()}
    `;
  }

  #settings(page: Page): TemplateResult {
    const f = this.#settingsForm;
    const ro = !this.#canWrite;
    const { enabled, kinds } = page.subscriptions;
    const where =
      page.visibility === "private"
        ? "A private page's members subscribe, by e-mail only."
        : page.visibility === "password-protected"
          ? "Visitors who typed the password subscribe, by e-mail only."
          : "Visitors subscribe from the page, the embed and the static build.";
    return html`<form class="panel" novalidate @submit=${this.#saveSettings} aria-labelledby="sub-settings">
      <h2 id="sub-settings" style="margin-top:0">Subscriptions</h2>
      <label class="check"><input type="checkbox" name="enabled" ?checked=${enabled} ?disabled=${ro} /> Visitors may subscribe</label>
      <p class="muted" style="margin:0.25rem 0 0.75rem">${where} While off, subscribers are not told either; unticking a kind stops its notices. Every message carries a one-click unsubscribe.</p>
      <fieldset class="kinds" aria-describedby=${f.describedBy("ss", "kinds")}>
        <legend>How they may subscribe</legend>
        ${KINDS.map(
          ([kind, label]) =>
            html`<label class="check"><input type="checkbox" name="kinds" value=${kind} ?checked=${kinds.includes(kind)}
              ?disabled=${ro} aria-invalid=${f.invalid("kinds")} /> ${label}</label>`,
        )}
      </fieldset>
      ${f.error("ss", "kinds")} ${f.message()}
      ${ro ? nothing : html`<div class="row" style="margin-top:0.75rem"><button class="primary" ?disabled=${f.busy}>Save</button></div>`}
    </form>`;
  }

  readonly #saveSettings = async (event: SubmitEvent) => {
    const saved = await this.#settingsForm.submit(event, async (data) => {
      const subscriptions = { enabled: data.get("enabled") === "on", kinds: data.getAll("kinds").map(String) };
      return (await api<Page>("PATCH", `/public/v1/status-pages/${this.pageId}`, { subscriptions })).data;
    });
    if (!saved) return;
    this.notice = saved.subscriptions.enabled
      ? `Visitors may subscribe to ${saved.name}.`
      : `Subscriptions to ${saved.name} are off: visitors cannot subscribe, and no subscriber is told until they are on again.`;
    void this.#page.run();
  };

  #subscribers(page: Page): TemplateResult {
    const labels = new Map(page.items.map((i) => [i.id, i.label]));
    return html`<section class="panel" aria-labelledby="sub-list">
      <h2 id="sub-list" style="margin-top:0">Subscribed</h2>
      ${this.#list.render({
        pending: () => (this.#list.value ? this.#table(this.#list.value, labels) : html`<p class="muted">Loading…</p>`),
        error: (error) => html`<p class="notice bad" role="alert">${problemText(error)}</p>`,
        complete: (list) => this.#table(list, labels),
      })}
    </section>`;
  }

  #table(list: SubscriberList, labels: Map<number, string>): TemplateResult {
    const { counts } = list;
    const all = counts.confirmed + counts.pending + counts.suspended;
    const filtered = this.search.trim() !== "" || this.state !== "";
    return html`
      <p class="counts" aria-label="Subscribers by state">
        <span><strong>${counts.confirmed}</strong> confirmed</span>
        <span><strong>${counts.pending}</strong> waiting for confirmation</span>
        <span><strong>${counts.suspended}</strong> suspended</span>
      </p>
      <div class="filters" role="search">
        <div class="field"><label for="sub-search">Find a subscriber<small>Part of the address</small></label>
          <input id="sub-search" type="search" autocomplete="off" .value=${this.search}
            @input=${(e: Event) => this.#filter((e.target as HTMLInputElement).value, this.state)} /></div>
        <div class="field" style="flex:0 1 16rem"><label for="sub-state">State<small>Confirmed, waiting or suspended</small></label>
          <select id="sub-state" @change=${(e: Event) => this.#filter(this.search, (e.target as HTMLSelectElement).value as SubscriberState | "")}>
            <option value="" ?selected=${this.state === ""}>Every state</option>
            ${Object.entries(STATES).map(([value, [word]]) => html`<option value=${value} ?selected=${this.state === value}>${word}</option>`)}
          </select></div>
      </div>
      <p class="muted" role="status" style="margin:0.5rem 0">${
        all === 0
          ? "No subscriber yet."
          : filtered
            ? `${list.total} of ${all} ${all === 1 ? "subscriber matches" : "subscribers match"}`
            : `${all} ${all === 1 ? "subscriber" : "subscribers"}`
      }</p>
      ${
        list.subscribers.length === 0
          ? nothing
          : html`<table class="responsive">
              <thead><tr><th scope="col">Address</th><th scope="col">State</th><th scope="col">Services</th><th scope="col">Since</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
              <tbody>${list.subscribers.map((s) => this.#row(s, labels))}</tbody>
            </table>`
      }
      ${
        list.total > PER_PAGE
          ? html`<nav class="row" aria-label="Pages of subscribers" style="margin-top:0.75rem">
              <button type="button" ?disabled=${this.offset === 0} @click=${() => (this.offset = Math.max(0, this.offset - PER_PAGE))}>Previous</button>
              <span class="muted">${this.offset + 1}–${this.offset + list.subscribers.length} of ${list.total}</span>
              <button type="button" ?disabled=${this.offset + PER_PAGE >= list.total} @click=${() => (this.offset += PER_PAGE)}>Next</button>
            </nav>`
          : nothing
      }`;
  }

  #row(s: Subscriber, labels: Map<number, string>): TemplateResult {
    const [word, look] = STATES[s.state];
    const kind = KINDS.find(([k]) => k === s.type)?.[1] ?? s.type;
    const services = s.items.length === 0 ? "All" : s.items.map((id) => labels.get(id) ?? `#${id}`).join(", ");
    return html`<tr>
      <td class="address" data-label="Address">${s.address}${s.type === "email" ? nothing : html`<span class="kind">${kind}</span>`}</td>
      <td data-label="State"><span><span class="chip ${look}">${word}</span>${s.suspendedReason ? html`<span class="why">${s.suspendedReason}</span>` : nothing}</span></td>
      <td data-label="Services">${services}</td>
      <td data-label="Since">${dateTime(s.confirmedAt ?? s.createdAt)}</td>
      <td><button type="button" class="danger" aria-label=${`Remove ${s.address}`} @click=${() => this.#askRemove(s)}>Remove</button></td>
    </tr>`;
  }

  async #askRemove(s: Subscriber): Promise<void> {
    this.removing = s;
    this.#oneClick.reset();
    await this.updateComplete;
    this.renderRoot.querySelector<HTMLDialogElement>("#remove-subscriber")?.showModal();
  }

  async #remove(): Promise<void> {
    const s = this.removing;
    if (!s) return;
    const done = await this.#oneClick.submit(null, () =>
      api("DELETE", `/public/v1/status-pages/${this.pageId}/subscribers/${encodeURIComponent(s.id)}`),
    );
    this.renderRoot.querySelector<HTMLDialogElement>("#remove-subscriber")?.close();
    if (done) this.notice = `Removed ${s.address}: nothing more is sent there.`;
    // The last one listed on a later page of the list: the page before it.
    const total = this.#list.value?.total ?? 0;
    if (done && this.offset > 0 && this.offset >= total - 1) this.offset = Math.max(0, this.offset - PER_PAGE);
    else void this.#list.run();
  }

  #dialog(): TemplateResult {
    const s = this.removing;
    return html`<dialog id="remove-subscriber" aria-labelledby="remove-title" @close=${() => (this.removing = null)}>
      <h2 id="remove-title" style="margin-top:0;overflow-wrap:anywhere">Remove ${s?.address ?? ""}?</h2>
      <p>Nothing more is sent there. They may subscribe again from the page.</p>
      <div class="row" style="justify-content:flex-end">
        <button type="button" @click=${() => this.renderRoot.querySelector<HTMLDialogElement>("#remove-subscriber")?.close()}>Cancel</button>
        <button type="button" class="danger solid" ?disabled=${this.#oneClick.busy} @click=${() => this.#remove()}>Remove</button>
      </div>
    </dialog>`;
  }

  #import(page: Page): TemplateResult {
    const f = this.#importForm;
    const result = this.imported;
    return html`<form id="import-form" class="panel" novalidate @submit=${this.#importCsv} aria-labelledby="import-title">
      <h2 id="import-title" style="margin-top:0">Import addresses</h2>
      <p class="muted" style="margin-top:0">One address per line, or a CSV whose first column is the address (a header line naming “email” is skipped). Addresses already here stay as they are.</p>
      <div class="field"><label for="import-csv">Addresses</label>
        <textarea id="import-csv" name="csv" rows="5" aria-invalid=${f.invalid("csv")} aria-describedby=${f.describedBy("im", "csv")}></textarea>${f.error("im", "csv")}</div>
      <div class="field"><label for="import-file">Or a CSV file</label>
        <input id="import-file" name="file" type="file" accept=".csv,text/csv,text/plain" /></div>
      <label class="check"><input type="checkbox" name="consent" /> They agreed to hear from ${page.name}: subscribe them at once, with no confirmation e-mail</label>
      <p class="muted" style="margin:0.25rem 0 0.75rem">Otherwise each is sent a confirmation link and hears nothing until it is followed.</p>
      ${f.message()}
      ${
        result
          ? html`<div class="notice" role="status"><p style="margin:0">Added ${result.added}; ${result.existing} already here.${
              result.invalid.length > 0
                ? ` ${result.invalid.length === 1 ? "One line is" : `${result.invalid.length} lines are`} not an address:`
                : ""
            }</p>${
              result.invalid.length > 0
                ? html`<ul style="margin:0.25rem 0 0">${result.invalid.map((i) => html`<li>Line ${i.line}: <code>${i.value}</code></li>`)}</ul>`
                : nothing
            }</div>`
          : nothing
      }
      <div class="row" style="margin-top:0.75rem"><button class="primary" ?disabled=${f.busy}>Import</button></div>
    </form>`;
  }

  readonly #importCsv = async (event: SubmitEvent) => {
    this.imported = null;
    const form = event.target as HTMLFormElement;
    const done = await this.#importForm.submit(event, async (data) => {
      const file = data.get("file");
      const typed = String(data.get("csv") ?? "");
      const csv = file instanceof File && file.size > 0 ? await file.text() : typed;
      const consent = data.get("consent") === "on";
      return (
        await api<ImportResult>("POST", `/public/v1/status-pages/${this.pageId}/subscribers/import`, {
          csv,
          consent,
        })
      ).data;
    });
    if (!done) return;
    this.imported = done;
    form.reset();
    void this.#list.run();
  };
}

customElements.define("pl-subscribers", PlSubscribers);
