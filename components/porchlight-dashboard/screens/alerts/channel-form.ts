import { html, LitElement, type TemplateResult } from "lit";
import type { z } from "zod";
import type { ChannelCreated, ChannelType } from "../../../../server/contract/alerts.ts";
import { api } from "../../lib/api.ts";
import { FormController, limitHint } from "../../lib/form.ts";
import { shared } from "../../lib/styles.ts";

export type CreatedChannel = z.infer<typeof ChannelCreated>;

/** One setting of a channel type: [field, label, input type, hint, optional]. */
type Setting = [string, string, string, string, boolean?];

/** Each channel type and the settings it asks for. */
export const TYPES: Record<ChannelType, { label: string; fields: Setting[] }> = {
  email: { label: "E-mail", fields: [["to", "Addresses", "text", "One to ten, separated by commas"]] },
  slack: { label: "Slack", fields: [["url", "Incoming webhook address", "url", "From Slack's Incoming Webhooks app"]] },
  discord: {
    label: "Discord",
    fields: [["url", "Webhook address", "url", "Channel settings → Integrations → Webhooks"]],
  },
  teams: { label: "Microsoft Teams", fields: [["url", "Workflow address", "url", "A Teams workflow's HTTP trigger"]] },
  telegram: {
    label: "Telegram",
    fields: [
      ["botToken", "Bot token", "password", "From @BotFather"],
      ["chatId", "Chat id", "text", "The chat or channel to post in"],
    ],
  },
  ntfy: {
    label: "ntfy",
    fields: [
      ["url", "Topic address", "url", "Such as https://ntfy.sh/your-topic"],
      ["token", "Access token", "password", "Optional: for a protected topic", true],
    ],
  },
  pagerduty: { label: "PagerDuty", fields: [["routingKey", "Integration key", "password", "Events API v2"]] },
  webhook: {
    label: "Webhook",
    fields: [
      ["url", "Address", "url", "Receives each alert as signed JSON (POST)"],
      [
        "secret",
        "Signing secret",
        "password",
        "Optional: 16 to 256 characters. Left empty, Porchlight makes one and shows it once",
        true,
      ],
    ],
  },
};

/** The settings a form's data gives for a type; an optional one left empty is not sent. */
function configOf(type: ChannelType, data: FormData): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  for (const [field, , , , optional] of TYPES[type].fields) {
    const value = String(data.get(field) ?? "").trim();
    if (optional && value === "") continue;
    config[field] =
      field === "to"
        ? value
            .split(",")
            .map((a) => a.trim())
            .filter(Boolean)
        : value;
  }
  return config;
}

/** The form that adds a channel; fires `pl-saved` with the creating answer (a webhook's secret in it), or `pl-cancel`. */
export class PlChannelForm extends LitElement {
  static override styles = [shared];

  static override properties = { type: { state: true } };

  declare type: ChannelType;

  /** "config.url" → "url", "config.to.2" → "to": the inputs are named as the type's settings. */
  readonly #form = new FormController(this, (f) => f.replace(/^config\./, "").replace(/\.\d+$/, ""));

  constructor() {
    super();
    this.type = "email";
  }

  async #submit(event: SubmitEvent): Promise<void> {
    const created = await this.#form.submit(event, async (data) => {
      const body = { name: String(data.get("name") ?? ""), type: this.type, config: configOf(this.type, data) };
      return (await api<CreatedChannel>("POST", "/public/v1/alert-channels", body)).data;
    });
    if (created) this.dispatchEvent(new CustomEvent("pl-saved", { detail: created, bubbles: true, composed: true }));
  }

  #cancel(): void {
    this.renderRoot.querySelector("form")?.reset();
    this.#form.reset();
    this.type = "email";
    this.dispatchEvent(new CustomEvent("pl-cancel", { bubbles: true, composed: true }));
  }

  override render(): TemplateResult {
    const f = this.#form;
    return html`<form novalidate @submit=${this.#submit} aria-labelledby="new-channel">
      <h2 id="new-channel" style="margin-top:0">New channel</h2>
      <div class="field"><label for="c-type">Type</label>
        <select id="c-type" name="type" @change=${(e: Event) => {
          this.type = (e.target as HTMLSelectElement).value as ChannelType;
          this.#form.reset();
        }}>
          ${Object.entries(TYPES).map(([key, t]) => html`<option value=${key} ?selected=${key === this.type}>${t.label}</option>`)}
        </select></div>
      <div class="field"><label for="c-name">Name</label>
        <input id="c-name" name="name" placeholder="Such as On-call" aria-invalid=${f.invalid("name")}
          aria-describedby=${f.describedBy("c", "name", "c-name-hint")} />${limitHint("c-name-hint", 100)}${f.error("c", "name")}</div>
      ${TYPES[this.type].fields.map(
        ([field, label, type, hint]) => html`<div class="field">
          <label for=${`c-${field}`}>${label}<small id=${`c-${field}-hint`}>${hint}</small></label>
          <input id=${`c-${field}`} name=${field} type=${type} autocomplete="off" aria-invalid=${f.invalid(field)}
            aria-describedby=${f.describedBy("c", field, `c-${field}-hint`)} />${f.error("c", field)}
        </div>`,
      )}
      <p class="muted">Addresses, tokens and keys are stored sealed and shown masked from now on.</p>
      ${f.message()}
      <div class="row"><button class="primary" ?disabled=${f.busy}>Add channel</button>
        <button type="button" @click=${this.#cancel}>Cancel</button></div>
    </form>`;
  }
}

customElements.define("pl-channel-form", PlChannelForm);
