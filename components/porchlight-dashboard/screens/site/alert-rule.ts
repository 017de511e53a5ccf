import { Task } from "@lit/task";
import { css, html, LitElement, nothing, type PropertyValues, type TemplateResult } from "lit";
import type { AlertRule, Channel, ChannelList, SiteAlertRule } from "../../../../server/contract/alerts.ts";
import { api, problemText } from "../../lib/api.ts";
import { can, consumeMe } from "../../lib/context.ts";
import { FormController } from "../../lib/form.ts";
import { shared } from "../../lib/styles.ts";

/** The events a rule can send, in the words an owner reads. */
const EVENTS: [keyof AlertRule["events"], string][] = [
  ["down", "Down (and still down, and flapping)"],
  ["recovered", "Recovered"],
  ["degraded", "Degraded"],
  ["certificate", "Certificate expiring or renewed"],
  ["domain", "Domain expiring or renewed"],
  ["performance", "Chronic slowness"],
];

/** A rule in one sentence or two, for the rule a site follows without being edited. */
export function describeRule(rule: AlertRule, channels: Channel[]): string {
  const enabled = channels.filter((c) => c.enabled).length;
  const to =
    rule.channels === "all"
      ? enabled === 0
        ? "every enabled channel (there is none yet: add one under Alerts)"
        : `every enabled channel (${enabled})`
      : rule.channels.length === 0
        ? "no channel"
        : rule.channels.map((id) => channels.find((c) => c.id === id)?.name ?? id).join(", ");
  const on = EVENTS.filter(([key]) => rule.events[key]).map(([, words]) => words.split(" (")[0]?.toLowerCase());
  const repeat = rule.repeatMinutes === null ? "once per outage" : `again every ${rule.repeatMinutes} min while down`;
  const flapping = rule.flapping
    ? `flapping at ${rule.flapping.outages} outages within ${rule.flapping.windowMinutes} min`
    : "no flapping detection";
  return `Alerts go to ${to} on: ${on.length > 0 ? on.join(", ") : "nothing"}. Down after ${rule.confirmations} failed checks in a row, told ${repeat}; ${flapping}.`;
}

const number = (data: FormData, name: string) => {
  const raw = String(data.get(name) ?? "").trim();
  // An empty box is sent as it is typed (a string) so the API names the field, rather than a silent 0.
  return raw === "" ? raw : Number(raw);
};

/**
 * A site's alert rule next to the workspace's: whether it follows the workspace rule or its own, and (for a member
 * who may change alerts) its own rule's channels, events, confirmations, repeat, incident cooldown and flapping.
 * Saving a site's own rule PUTs it; going back to the workspace rule DELETEs it.
 */
export class PlSiteAlertRule extends LitElement {
  static override styles = [
    shared,
    css`
      fieldset {
        border: 1px solid var(--line);
        border-radius: var(--radius);
        margin: 0 0 0.75rem;
        padding: 0.5rem 0.75rem 0.75rem;
        min-width: 0;
      }
      legend {
        font-weight: 600;
        padding: 0 0.25rem;
      }
      label.check input {
        width: auto;
        flex: none;
      }
      label.check {
        display: flex;
        gap: 0.5rem;
        align-items: baseline;
        margin: 0.25rem 0;
        overflow-wrap: anywhere;
      }
      .numbers {
        display: grid;
        grid-template-columns: repeat(auto-fit, minmax(11rem, 1fr));
        gap: 0.5rem 1rem;
      }
      .numbers input {
        width: 100%;
      }
    `,
  ];

  static override properties = {
    siteId: { attribute: false },
    own: { state: true },
    everyChannel: { state: true },
    flapping: { state: true },
    saved: { state: true },
  };

  declare siteId: string;
  /** The form's choice: a rule of its own (true) or the workspace's. */
  declare own: boolean;
  declare everyChannel: boolean;
  declare flapping: boolean;
  /** What the last save did, announced. */
  declare saved: string;

  readonly #me = consumeMe(this);
  /** The API's "flapping.outages" is the input "flapping-outages" (ids take no dot); "channels.2" is "channels". */
  readonly #form = new FormController(this, (field) => field.replace(/\.\d+$/, "").replace(".", "-"));

  readonly #load = new Task(this, {
    task: async ([id], { signal }) => {
      const [rule, workspace, channels] = await Promise.all([
        api<SiteAlertRule>("GET", `/public/v1/site/${encodeURIComponent(id)}/alert-rule`, undefined, { signal }),
        api<AlertRule>("GET", "/public/v1/alert-rules/default", undefined, { signal }),
        api<ChannelList>("GET", "/public/v1/alert-channels", undefined, { signal }),
      ]);
      return { rule: rule.data, workspace: workspace.data, channels: channels.data.channels };
    },
    args: () => [this.siteId] as const,
    onComplete: ({ rule }) => this.#take(rule),
  });

  constructor() {
    super();
    this.own = false;
    this.everyChannel = true;
    this.flapping = true;
    this.saved = "";
  }

  protected override willUpdate(changed: PropertyValues): void {
    if (changed.has("siteId")) this.saved = "";
  }

  /** The form starts from the rule the site follows (its own, or a copy of the workspace's to change). */
  #take(rule: SiteAlertRule): void {
    this.own = !rule.inherited;
    this.everyChannel = rule.channels === "all";
    this.flapping = rule.flapping !== null;
    this.#form.reset();
  }

  async #save(event: SubmitEvent): Promise<void> {
    const id = encodeURIComponent(this.siteId);
    const own = this.own;
    this.saved = "";
    const answer = await this.#form.submit(event, async (data) => {
      if (!own) return (await api<SiteAlertRule>("DELETE", `/public/v1/site/${id}/alert-rule`)).data;
      const repeat = String(data.get("repeatMinutes") ?? "").trim();
      const body = {
        channels: this.everyChannel ? "all" : data.getAll("channels").map(String),
        events: Object.fromEntries(EVENTS.map(([key]) => [key, data.has(`events.${key}`)])),
        repeatMinutes: repeat === "" ? null : Number(repeat),
        confirmations: number(data, "confirmations"),
        cooldownMinutes: number(data, "cooldownMinutes"),
        flapping: this.flapping
          ? {
              outages: number(data, "flapping.outages"),
              windowMinutes: number(data, "flapping.windowMinutes"),
              quietMinutes: number(data, "flapping.quietMinutes"),
            }
          : null,
      };
      return (await api<SiteAlertRule>("PUT", `/public/v1/site/${id}/alert-rule`, body)).data;
    });
    if (!answer) return;
    this.saved = answer.inherited ? "This site follows the workspace rule again." : "This site's own rule is saved.";
    await this.#load.run();
  }

  override render(): unknown {
    return this.#load.render({
      pending: () => html`<p class="muted">Loading the alert rule…</p>`,
      error: (error) => html`<p class="notice bad" role="alert">${problemText(error)}</p>`,
      complete: ({ rule, workspace, channels }) => html`
        <p>
          <strong>${rule.inherited ? "Follows the workspace rule." : "Has a rule of its own."}</strong>${" "}${describeRule(rule, channels)}
        </p>
        ${rule.inherited ? nothing : html`<p class="muted">The workspace rule: ${describeRule(workspace, channels)}</p>`}
        <p role="status" class="muted">${this.saved}</p>
        ${can(this.#me.value, "alerts:write") ? this.#editor(rule, channels) : nothing}
      `,
    });
  }

  #editor(rule: SiteAlertRule, channels: Channel[]): TemplateResult {
    const f = this.#form;
    const numberField = (name: string, label: string, value: number | string, hint: string) => {
      const key = name.replace(".", "-");
      const id = `r-${key}`;
      return html`<div class="field">
        <label for=${id}>${label}</label>
        <input id=${id} name=${name} type="number" inputmode="numeric" .value=${String(value)}
          aria-invalid=${f.invalid(key)} aria-describedby=${f.describedBy("r", key, `${id}-hint`)} />
        <small class="hint" id=${`${id}-hint`}>${hint}</small>
        ${f.error("r", key)}
      </div>`;
    };
    const flapping = rule.flapping ?? { outages: 3, windowMinutes: 30, quietMinutes: 30 };
    return html`<form novalidate @submit=${(e: SubmitEvent) => this.#save(e)}>
      <fieldset>
        <legend>Which rule</legend>
        <label class="check"><input type="radio" name="mode" .checked=${!this.own} @change=${() => (this.own = false)} />
          Follow the workspace rule</label>
        <label class="check"><input type="radio" name="mode" .checked=${this.own} @change=${() => (this.own = true)} />
          A rule of its own for this site</label>
      </fieldset>
      ${
        this.own
          ? html`
        <fieldset>
          <legend>Channels</legend>
          <label class="check"><input type="radio" name="channelsMode" .checked=${this.everyChannel}
            @change=${() => (this.everyChannel = true)} /> Every enabled channel</label>
          <label class="check"><input type="radio" name="channelsMode" .checked=${!this.everyChannel}
            @change=${() => (this.everyChannel = false)} /> Only these channels:</label>
          ${
            this.everyChannel
              ? nothing
              : channels.length === 0
                ? html`<p class="muted">No channel yet: add one under Alerts.</p>`
                : channels.map(
                    (c) => html`<label class="check" style="margin-left:1.5rem">
                      <input type="checkbox" name="channels" value=${c.id}
                        .checked=${rule.channels !== "all" && rule.channels.includes(c.id)} />
                      ${c.name} <span class="muted">(${c.type}${c.enabled ? "" : ", turned off"})</span></label>`,
                  )
          }
          ${f.error("r", "channels")}
        </fieldset>
        <fieldset>
          <legend>Events</legend>
          ${EVENTS.map(
            ([key, words]) => html`<label class="check">
              <input type="checkbox" name=${`events.${key}`} .checked=${rule.events[key]} /> ${words}</label>`,
          )}
        </fieldset>
        <fieldset>
          <legend>Timing and repeats</legend>
          <div class="numbers">
            ${numberField("confirmations", "Failed checks before “down”", rule.confirmations, "2 to 20 in a row.")}
            ${numberField("repeatMinutes", "Tell again while down, every (min)", rule.repeatMinutes ?? "", "5 to 10,080; empty: once per outage.")}
            ${numberField("cooldownMinutes", "Re-open a resolved incident within (min)", rule.cooldownMinutes, "0 to 1,440; 0: never re-open.")}
          </div>
          <label class="check"><input type="checkbox" name="flappingOn" .checked=${this.flapping}
            @change=${(e: Event) => (this.flapping = (e.target as HTMLInputElement).checked)} />
            Detect flapping (one alert instead of many while it goes up and down)</label>
          ${
            this.flapping
              ? html`<div class="numbers">
              ${numberField("flapping.outages", "Outages", flapping.outages, "2 to 20.")}
              ${numberField("flapping.windowMinutes", "Within (min)", flapping.windowMinutes, "5 to 1,440.")}
              ${numberField("flapping.quietMinutes", "Calm after (min)", flapping.quietMinutes, "5 to 1,440 in one state.")}
            </div>`
              : nothing
          }
        </fieldset>`
          : nothing
      }
      ${f.message()}
      ${
        !this.own && rule.inherited
          ? nothing
          : html`<div class="row">
            <button class="primary" ?disabled=${f.busy}>${this.own ? "Save this site's rule" : "Go back to the workspace rule"}</button>
          </div>`
      }
    </form>`;
  }
}

customElements.define("pl-site-alert-rule", PlSiteAlertRule);
