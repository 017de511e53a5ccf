import { Task } from "@lit/task";
import { css, html, LitElement, nothing, type TemplateResult } from "lit";
import type { MaintenanceWindow, MaintenanceWindowList } from "../../../../server/contract/maintenance.ts";
import { allSites, api, problemText } from "../../lib/api.ts";
import { can, consumeMe } from "../../lib/context.ts";
import { dateTime } from "../../lib/format.ts";
import { shared } from "../../lib/styles.ts";
import type { Site } from "../../lib/types.ts";
import { REPEATS } from "./window-form.ts";
import { browserZone } from "./zones.ts";
import "./window-form.ts";

/** What the confirmation asks before acting on a window. */
type Confirm = { action: "end" | "delete"; window: MaintenanceWindow };

/**
 * Maintenance windows: planned work on some sites, once or repeating in a time zone. While one is under way, checks
 * still run, alerts wait for its end and the pages say "Under maintenance". Times are shown in the zone the window was
 * entered in (02:00 in Berlin reads 02:00, named), with the browser's own time beside when that zone differs.
 */
export class PlMaintenance extends LitElement {
  static override styles = [
    shared,
    css`
      .window h3 {
        margin: 0;
        overflow-wrap: anywhere;
        min-width: 0;
      }
      .window p {
        overflow-wrap: anywhere;
      }
      .when {
        margin: 0.5rem 0;
      }
      .when strong {
        font-weight: 600;
      }
    `,
  ];

  static override properties = {
    adding: { state: true },
    editing: { state: true },
    confirm: { state: true },
    notice: { state: true },
    problem: { state: true },
  };

  declare adding: boolean;
  /** The id of the window whose edit form is open. */
  declare editing: string;
  declare confirm: Confirm | null;
  declare notice: string;
  declare problem: string;

  readonly #me = consumeMe(this);

  readonly #load = new Task(this, {
    task: async (_args, { signal }) => {
      const [windows, sites] = await Promise.all([
        api<MaintenanceWindowList>("GET", "/public/v1/maintenance-windows", undefined, { signal }),
        allSites(),
      ]);
      return { windows: windows.data.windows, sites };
    },
    args: () => [] as const,
  });

  constructor() {
    super();
    this.adding = false;
    this.editing = "";
    this.confirm = null;
    this.notice = "";
    this.problem = "";
  }

  get #canWrite(): boolean {
    return can(this.#me.value, "sites:write");
  }

  #saved(event: CustomEvent<MaintenanceWindow>): void {
    this.notice = `${this.editing ? "Saved" : "Planned"}: ${event.detail.title}.`;
    this.adding = false;
    this.editing = "";
    void this.#load.run();
  }

  async #act(): Promise<void> {
    const confirm = this.confirm;
    this.renderRoot.querySelector("dialog")?.close();
    this.confirm = null;
    if (!confirm) return;
    const { action, window: w } = confirm;
    this.problem = "";
    try {
      if (action === "end") await api("POST", `/public/v1/maintenance-windows/${w.id}/end`);
      else await api("DELETE", `/public/v1/maintenance-windows/${w.id}`);
      this.notice = action === "end" ? `Ended ${w.title}: its sites are judged again now.` : `Deleted ${w.title}.`;
    } catch (error) {
      this.problem = problemText(error);
    }
    void this.#load.run();
  }

  async #ask(action: Confirm["action"], w: MaintenanceWindow): Promise<void> {
    this.confirm = { action, window: w };
    await this.updateComplete;
    this.renderRoot.querySelector("dialog")?.showModal();
  }

  override render(): TemplateResult {
    return html`
      <div class="bar">
        <div>
          <h1>Maintenance</h1>
          <p class="muted">Planned work: alerts wait, and visitors read "Under maintenance".</p>
        </div>
        ${
          this.#canWrite && !this.adding
            ? html`<button class="primary" @click=${() => {
                this.adding = true;
                this.notice = "";
              }}>Plan maintenance</button>`
            : nothing
        }
      </div>
      ${this.notice ? html`<p class="notice" role="status">${this.notice}</p>` : nothing}
      ${this.problem ? html`<p class="notice bad" role="alert">${this.problem}</p>` : nothing}
      ${this.#load.render({
        // A reload after a change keeps what is shown until the answer replaces it.
        pending: () => (this.#load.value ? this.#content(this.#load.value) : html`<p class="muted">Loading…</p>`),
        error: (error) => html`<p class="notice bad" role="alert">${problemText(error)}</p>`,
        complete: (data) => this.#content(data),
      })}
      ${this.#dialog()}
    `;
  }

  #content({ windows, sites }: { windows: MaintenanceWindow[]; sites: Site[] }): TemplateResult {
    return html`
          ${
            this.adding
              ? sites.length === 0
                ? html`<p class="panel">Add a site first: a window covers some of your sites.</p>`
                : html`<pl-window-form class="panel" .sites=${sites} @pl-saved=${this.#saved}
                    @pl-cancel=${() => (this.adding = false)}></pl-window-form>`
              : nothing
          }
          <h2>Planned</h2>
          ${
            windows.length === 0
              ? html`<p class="panel">No maintenance planned.</p>`
              : windows.map((w) => (this.editing === w.id ? this.#edit(w, sites) : this.#window(w, sites)))
          }`;
  }

  #edit(w: MaintenanceWindow, sites: Site[]): TemplateResult {
    return html`<pl-window-form class="panel" .window=${w} .sites=${sites} @pl-saved=${this.#saved}
      @pl-cancel=${() => (this.editing = "")}></pl-window-form>`;
  }

  #window(w: MaintenanceWindow, sites: Site[]): TemplateResult {
    const names = w.sites.map((id) => sites.find((s) => s.id === id)?.name ?? id).join(", ");
    const repeat = REPEATS.find(([rule]) => rule === (w.recurrence ?? ""))?.[1] ?? w.recurrence ?? "Once";
    // The API looks about a year ahead: a repeating window with no occurrence in it is not over, only far off.
    const state = w.active ? "Under way" : w.next ? "Scheduled" : w.recurrence ? "None within a year" : "Over";
    return html`<article class="panel window" aria-labelledby=${`w-${w.id}`}>
      <div class="bar" style="margin:0">
        <h3 id=${`w-${w.id}`}>${w.title}</h3>
        <span class="chip ${w.active ? "maintenance" : "unknown"}">${state}</span>
      </div>
      <p class="muted" style="margin:0.25rem 0 0">${names}</p>
      ${w.next ? this.#when(w, w.next) : html`<p class="when">${w.recurrence ? "No occurrence within the next year." : "No occurrence left."}</p>`}
      <p class="muted">${w.durationMinutes} min · ${repeat} · ${w.timeZone}</p>
      ${
        this.#canWrite
          ? html`<div class="row">
              ${w.active ? html`<button type="button" aria-label=${`End now: ${w.title}`} @click=${() => this.#ask("end", w)}>End now</button>` : nothing}
              <button type="button" aria-label=${`Edit ${w.title}`} @click=${() => {
                this.editing = w.id;
                this.notice = "";
              }}>Edit</button>
              <button type="button" class="danger" aria-label=${`Delete ${w.title}`} @click=${() => this.#ask("delete", w)}>Delete</button>
            </div>`
          : nothing
      }
    </article>`;
  }

  /** The occurrence under way or next, in the window's zone, and in the browser's when that is another. */
  #when(w: MaintenanceWindow, next: NonNullable<MaintenanceWindow["next"]>): TemplateResult {
    const [label, iso] = w.active ? ["Until", next.endsAt] : ["Starts", next.startsAt];
    const mine = browserZone();
    return html`<p class="when">
      <strong>${label}</strong> ${dateTime(iso, w.timeZone)} <span class="muted">(${w.timeZone})</span>
      ${mine === w.timeZone ? nothing : html`<br /><small class="muted">Your time: ${dateTime(iso)}</small>`}
    </p>`;
  }

  #dialog(): TemplateResult {
    const c = this.confirm;
    const text =
      c?.action === "end"
        ? `End ${c.window.title} now? Its sites are judged again at once: alerts that waited follow, and status pages stop showing the maintenance.${c.window.recurrence ? " Later occurrences stay planned." : ""}`
        : `Delete ${c?.window.title ?? ""}? It is no longer planned, and its sites are judged again at once.`;
    return html`<dialog aria-labelledby="confirm-text" @close=${() => (this.confirm = null)}>
      <p id="confirm-text" style="overflow-wrap:anywhere">${c ? text : ""}</p>
      <div class="row">
        <button type="button" class="danger solid" @click=${() => this.#act()}>${c?.action === "end" ? "End now" : "Delete"}</button>
        <button type="button" @click=${() => this.renderRoot.querySelector("dialog")?.close()}>Cancel</button>
      </div>
    </dialog>`;
  }
}

customElements.define("pl-maintenance", PlMaintenance);
