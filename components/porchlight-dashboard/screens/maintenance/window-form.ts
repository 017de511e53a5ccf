import { css, html, LitElement, type TemplateResult } from "lit";
import type { MaintenanceWindow } from "../../../../server/contract/maintenance.ts";
import { api } from "../../lib/api.ts";
import { FormController, limitHint } from "../../lib/form.ts";
import { shared } from "../../lib/styles.ts";
import type { Site } from "../../lib/types.ts";
import { browserZone, findZone, timeZones } from "./zones.ts";

export const REPEATS: [string, string][] = [
  ["", "Once"],
  ["FREQ=DAILY", "Every day"],
  ["FREQ=WEEKLY", "Every week"],
  ["FREQ=MONTHLY", "Every month"],
];

/**
 * The contract's MAX_MAINTENANCE_MINUTES, stated beforehand: written out rather than imported, since the contract's
 * values come with zod, which the dashboard's bundle does not carry (the API's message still says it if this drifts).
 */
const DURATION_HINT = "1 to 10,080 (a week)";

/** The zones, listed once per page: a datalist of about 420 names is built on the first form only. */
let ZONES: string[] | undefined;
function zoneList(): string[] {
  if (!ZONES) ZONES = timeZones();
  return ZONES;
}

/**
 * The form that plans a window or edits one (`window` set): the start is a local date and time read in the chosen
 * IANA zone, which is searched by name or city. Fires `pl-saved` with the API's window, or `pl-cancel` (reset first).
 */
export class PlWindowForm extends LitElement {
  static override styles = [
    shared,
    css`
      :host {
        display: block;
      }
      .sites {
        border: 0;
        padding: 0;
        margin: 0 0 0.9rem;
        min-width: 0;
      }
      .sites legend {
        font-weight: 600;
        padding: 0;
      }
      .sites label {
        font-weight: 400;
        display: flex;
        gap: 0.5rem;
        align-items: baseline;
        overflow-wrap: anywhere;
      }
      .when {
        display: grid;
        grid-template-columns: repeat(auto-fit, minmax(min(100%, 14rem), 1fr));
        gap: 0 1rem;
        max-width: 40rem;
      }
    `,
  ];

  static override properties = {
    window: { attribute: false },
    sites: { attribute: false },
    zone: { state: true },
  };

  /** The window being edited; null plans a new one. */
  declare window: MaintenanceWindow | null;
  declare sites: Site[];
  /** The zone field's value, kept so that a city typed alone becomes the list's name. */
  declare zone: string;

  readonly #form = new FormController(this);

  constructor() {
    super();
    this.window = null;
    this.sites = [];
    this.zone = browserZone();
  }

  override willUpdate(changed: Map<string, unknown>): void {
    if (changed.has("window") && this.window) this.zone = this.window.timeZone;
  }

  #zoneChanged(event: Event): void {
    const input = event.target as HTMLInputElement;
    this.zone = findZone(input.value, zoneList()) ?? input.value;
    input.value = this.zone;
  }

  async #submit(event: SubmitEvent): Promise<void> {
    const editing = this.window;
    const saved = await this.#form.submit(event, async (data) => {
      const recurrence = String(data.get("recurrence") ?? "");
      const body = {
        title: String(data.get("title") ?? ""),
        description: String(data.get("description") ?? ""),
        sites: data.getAll("site").map(String),
        start: String(data.get("start") ?? ""),
        // What the field holds now, read as the list's name: Enter may submit before the field's change event.
        timeZone: findZone(String(data.get("timeZone") ?? ""), zoneList()) ?? String(data.get("timeZone") ?? "").trim(),
        // An empty or unreadable number is sent as null, for the API to name it (never a silent 0).
        durationMinutes:
          String(data.get("durationMinutes") ?? "").trim() === "" ? null : Number(data.get("durationMinutes")),
        recurrence: recurrence || null,
      };
      const path = editing ? `/public/v1/maintenance-windows/${editing.id}` : "/public/v1/maintenance-windows";
      return (await api<MaintenanceWindow>(editing ? "PATCH" : "POST", path, body)).data;
    });
    if (saved) this.dispatchEvent(new CustomEvent("pl-saved", { detail: saved, bubbles: true, composed: true }));
  }

  #cancel(): void {
    this.renderRoot.querySelector("form")?.reset();
    this.#form.reset();
    this.zone = this.window?.timeZone ?? browserZone();
    this.dispatchEvent(new CustomEvent("pl-cancel", { bubbles: true, composed: true }));
  }

  override render(): TemplateResult {
    const w = this.window;
    const f = this.#form;
    const p = w ? `e-${w.id}` : "m";
    const zones = zoneList();
    const repeats =
      w?.recurrence && !REPEATS.some(([r]) => r === w.recurrence)
        ? [...REPEATS, [w.recurrence, w.recurrence]]
        : REPEATS;
    return html`<form novalidate @submit=${this.#submit} aria-labelledby=${`${p}-title-h`}>
      <h2 id=${`${p}-title-h`} style="margin-top:0">${w ? `Edit ${w.title}` : "Plan maintenance"}</h2>
      <div class="field"><label for=${`${p}-title`}>Title</label>
        <input id=${`${p}-title`} name="title" .value=${w?.title ?? ""} aria-invalid=${f.invalid("title")}
          aria-describedby=${f.describedBy(p, "title", `${p}-title-hint`)} />${limitHint(`${p}-title-hint`, 200)}${f.error(p, "title")}</div>
      <div class="field"><label for=${`${p}-description`}>What visitors read<small>Optional</small></label>
        <textarea id=${`${p}-description`} name="description" rows="2" .value=${w?.description ?? ""}
          aria-invalid=${f.invalid("description")} aria-describedby=${f.describedBy(p, "description", `${p}-description-hint`)}></textarea>
        ${limitHint(`${p}-description-hint`, 2000)}${f.error(p, "description")}</div>
      <fieldset class="sites" aria-describedby=${f.describedBy(p, "sites")}>
        <legend>Sites</legend>
        ${this.sites.map((s) => html`<label><input type="checkbox" name="site" value=${s.id} ?checked=${w?.sites.includes(s.id) ?? false} /> ${s.name}</label>`)}
        ${f.error(p, "sites")}
      </fieldset>
      <div class="when">
        <div class="field"><label for=${`${p}-zone`}>Time zone<small id=${`${p}-zone-hint`}>Type a city or region, such as Berlin</small></label>
          <input id=${`${p}-zone`} name="timeZone" list="zones" autocomplete="off" spellcheck="false" .value=${this.zone}
            @change=${this.#zoneChanged} aria-invalid=${f.invalid("timeZone")} aria-describedby=${f.describedBy(p, "timeZone", `${p}-zone-hint`)} />
          <datalist id="zones">${zones.map((z) => html`<option value=${z}></option>`)}</datalist>
          ${f.error(p, "timeZone")}</div>
        <div class="field"><label for=${`${p}-start`}>Starts<small id=${`${p}-start-hint`}>In ${this.zone || "the zone chosen"}</small></label>
          <input id=${`${p}-start`} name="start" type="datetime-local" .value=${w?.start ?? ""} aria-invalid=${f.invalid("start")}
            aria-describedby=${f.describedBy(p, "start", `${p}-start-hint`)} />${f.error(p, "start")}</div>
        <div class="field"><label for=${`${p}-duration`}>Minutes<small id=${`${p}-duration-hint`}>${DURATION_HINT}</small></label>
          <input id=${`${p}-duration`} name="durationMinutes" type="number" inputmode="numeric" .value=${String(w?.durationMinutes ?? 60)}
            aria-invalid=${f.invalid("durationMinutes")} aria-describedby=${f.describedBy(p, "durationMinutes", `${p}-duration-hint`)} />${f.error(p, "durationMinutes")}</div>
        <div class="field"><label for=${`${p}-recurrence`}>Repeats</label>
          <select id=${`${p}-recurrence`} name="recurrence" aria-invalid=${f.invalid("recurrence")} aria-describedby=${f.describedBy(p, "recurrence")}>
            ${repeats.map(([rule, label]) => html`<option value=${rule} ?selected=${(w?.recurrence ?? "") === rule}>${label}</option>`)}
          </select>${f.error(p, "recurrence")}</div>
      </div>
      ${f.message()}
      <div class="row"><button class="primary" ?disabled=${f.busy}>${w ? "Save" : "Plan"}</button>
        <button type="button" @click=${this.#cancel}>Cancel</button></div>
    </form>`;
  }
}

customElements.define("pl-window-form", PlWindowForm);
