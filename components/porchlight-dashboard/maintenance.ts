import { css, html, LitElement, nothing, type TemplateResult } from "lit";
import { allSites, api, fieldErrorsOf, problemText } from "./api.ts";
import { dateTime } from "./format.ts";
import { shared } from "./styles.ts";
import type { MeInfo, Site } from "./types.ts";

interface Window {
  id: string;
  title: string;
  description: string;
  sites: string[];
  start: string;
  timeZone: string;
  durationMinutes: number;
  recurrence: string | null;
  active: boolean;
  next: { startsAt: string; endsAt: string } | null;
}

const REPEATS: [string, string][] = [
  ["", "Once"],
  ["FREQ=DAILY", "Every day"],
  ["FREQ=WEEKLY", "Every week"],
  ["FREQ=MONTHLY", "Every month"],
];

/**
 * Maintenance windows: planned work on some sites, once or repeating in a time zone. While one is under way, checks
 * still run, alerts wait for its end and the pages say "Under maintenance".
 */
export class PlMaintenance extends LitElement {
  static override styles = [
    shared,
    css`
      .sites label {
        font-weight: 400;
        display: flex;
        gap: 0.5rem;
        align-items: center;
      }
      .window h3 {
        margin: 0;
      }
    `,
  ];

  static override properties = {
    me: { attribute: false },
    windows: { state: true },
    sites: { state: true },
    adding: { state: true },
    error: { state: true },
    fieldErrors: { state: true },
  };

  declare me: MeInfo;
  declare windows: Window[] | null;
  declare sites: Site[];
  declare adding: boolean;
  declare error: string;
  declare fieldErrors: Record<string, string>;

  constructor() {
    super();
    this.windows = null;
    this.sites = [];
    this.adding = false;
    this.error = "";
    this.fieldErrors = {};
  }

  get #canWrite(): boolean {
    return this.me.permissions.includes("sites:write");
  }

  override connectedCallback(): void {
    super.connectedCallback();
    void this.#load();
  }

  async #load(): Promise<void> {
    try {
      const [windows, sites] = await Promise.all([
        api<{ windows: Window[] }>("GET", "/public/v1/maintenance-windows"),
        allSites<Site>(),
      ]);
      this.windows = windows.data.windows;
      this.sites = sites;
    } catch (error) {
      this.error = problemText(error);
    }
  }

  async #create(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    const data = new FormData(event.target as HTMLFormElement);
    const recurrence = String(data.get("recurrence") ?? "");
    this.fieldErrors = {};
    try {
      await api("POST", "/public/v1/maintenance-windows", {
        title: String(data.get("title") ?? ""),
        description: String(data.get("description") ?? ""),
        sites: data.getAll("site").map(String),
        start: String(data.get("start") ?? ""),
        timeZone: String(data.get("timeZone") ?? "UTC"),
        durationMinutes: Number(data.get("duration")),
        recurrence: recurrence || null,
      });
      this.adding = false;
      await this.#load();
    } catch (error) {
      const fields = fieldErrorsOf(error, (f) => f.replace(/\.\d+$/, ""));
      if (fields) {
        this.fieldErrors = fields;
      } else {
        this.error = problemText(error);
      }
    }
  }

  async #remove(window: Window): Promise<void> {
    try {
      await api("DELETE", `/public/v1/maintenance-windows/${window.id}`);
      await this.#load();
    } catch (error) {
      this.error = problemText(error);
    }
  }

  override render(): TemplateResult {
    return html`
      <div class="bar">
        <div>
          <h1>Maintenance</h1>
          <p class="muted">Planned work: alerts wait, and visitors read "Under maintenance".</p>
        </div>
        ${
          this.#canWrite && this.sites.length > 0
            ? html`<button class="primary" @click=${() => (this.adding = true)}>Plan maintenance</button>`
            : nothing
        }
      </div>
      ${this.error ? html`<p class="notice bad" role="alert">${this.error}</p>` : nothing}
      ${this.adding ? this.#form() : nothing}
      <h2>Planned</h2>
      ${
        this.windows === null
          ? html`<p class="muted">Loading…</p>`
          : this.windows.length === 0
            ? html`<p class="panel">No maintenance planned.</p>`
            : this.windows.map((w) => this.#window(w))
      }
    `;
  }

  #form(): TemplateResult {
    const err = (name: string) =>
      this.fieldErrors[name] ? html`<p class="error" id=${`m-${name}-error`}>${this.fieldErrors[name]}</p>` : nothing;
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
    return html`<form class="panel" @submit=${this.#create} aria-labelledby="new-window">
      <h2 id="new-window" style="margin-top:0">Plan maintenance</h2>
      <div class="field"><label for="m-title">Title</label>
        <input id="m-title" name="title" required maxlength="200" aria-invalid=${this.fieldErrors.title ? "true" : nothing} />${err("title")}</div>
      <div class="field"><label for="m-description">What visitors read<small>Optional</small></label>
        <textarea id="m-description" name="description" rows="2"></textarea></div>
      <fieldset class="sites" style="border:0;padding:0;margin:0 0 0.9rem">
        <legend style="font-weight:600">Sites</legend>
        ${this.sites.map((s) => html`<label><input type="checkbox" name="site" value=${s.id} /> ${s.name}</label>`)}
        ${err("sites")}
      </fieldset>
      <div class="row" style="align-items:flex-start">
        <div class="field"><label for="m-start">Starts</label>
          <input id="m-start" name="start" type="datetime-local" required aria-invalid=${this.fieldErrors.start ? "true" : nothing} />${err("start")}</div>
        <div class="field"><label for="m-zone">Time zone</label>
          <input id="m-zone" name="timeZone" .value=${zone} aria-invalid=${this.fieldErrors.timeZone ? "true" : nothing} />${err("timeZone")}</div>
      </div>
      <div class="row" style="align-items:flex-start">
        <div class="field"><label for="m-duration">Minutes</label>
          <input id="m-duration" name="duration" type="number" min="1" max="10080" value="60" required aria-invalid=${this.fieldErrors.durationMinutes ? "true" : nothing} />${err("durationMinutes")}</div>
        <div class="field"><label for="m-recurrence">Repeats</label>
          <select id="m-recurrence" name="recurrence">${REPEATS.map(([rule, label]) => html`<option value=${rule}>${label}</option>`)}</select></div>
      </div>
      <div class="row"><button class="primary">Plan</button><button type="button" @click=${() => (this.adding = false)}>Cancel</button></div>
    </form>`;
  }

  #window(w: Window): TemplateResult {
    const names = w.sites.map((id) => this.sites.find((s) => s.id === id)?.name ?? id).join(", ");
    const repeat = REPEATS.find(([rule]) => rule === (w.recurrence ?? ""))?.[1] ?? w.recurrence ?? "Once";
    return html`<article class="panel window" aria-labelledby=${`w-${w.id}`}>
      <div class="bar" style="margin:0">
        <h3 id=${`w-${w.id}`}>${w.title}</h3>
        <span class="chip ${w.active ? "maintenance" : "unknown"}">${w.active ? "In progress" : w.next ? "Scheduled" : "Over"}</span>
      </div>
      <p class="muted">${names}</p>
      <p>${w.next ? html`${w.active ? "Until" : "Next"}: ${dateTime(w.active ? w.next.endsAt : w.next.startsAt)}` : "No occurrence left"}
        · ${w.durationMinutes} min · ${repeat} · ${w.timeZone}</p>
      ${this.#canWrite ? html`<button type="button" class="danger" aria-label=${`Delete ${w.title}`} @click=${() => this.#remove(w)}>Delete</button>` : nothing}
    </article>`;
  }
}

customElements.define("pl-maintenance", PlMaintenance);
