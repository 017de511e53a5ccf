import { css, html, LitElement, nothing, type TemplateResult } from "lit";
import { api, fieldErrorsOf, problemText } from "./api.ts";
import { ago } from "./format.ts";
import { shared } from "./styles.ts";
import type { MeInfo } from "./types.ts";

interface Channel {
  id: string;
  name: string;
  type: string;
  enabled: boolean;
  target: string;
}
interface Delivery {
  id: number;
  type: string;
  state: "pending" | "delivered" | "failed";
  createdAt: string;
  lastStatus: number | null;
  lastError: string | null;
}
interface TestResult {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  responseTimeMs: number;
}
interface Rule {
  channels: "all" | string[];
  events: Record<string, boolean>;
  repeatMinutes: number | null;
}

/** Each channel type and the settings it asks for: [field, label, input type, hint]. */
const TYPES: Record<string, { label: string; fields: [string, string, string, string][] }> = {
  email: { label: "E-mail", fields: [["to", "Addresses", "text", "One or more, separated by commas"]] },
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
  ntfy: { label: "ntfy", fields: [["url", "Topic address", "url", "Such as https://ntfy.sh/your-topic"]] },
  pagerduty: { label: "PagerDuty", fields: [["routingKey", "Integration key", "password", "Events API v2"]] },
  webhook: { label: "Webhook", fields: [["url", "Address", "url", "Receives signed JSON (POST)"]] },
};

const EVENTS: [string, string][] = [
  ["down", "A site goes down"],
  ["recovered", "A site comes back"],
  ["degraded", "A site turns degraded (slow)"],
  ["certificate", "A certificate nears expiry"],
  ["domain", "A domain nears expiry"],
  ["performance", "Chronic slowness or failures over 24 hours"],
];

const REPEATS: [number | null, string][] = [
  [null, "Never"],
  [15, "Every 15 minutes"],
  [30, "Every 30 minutes"],
  [60, "Every hour"],
  [240, "Every 4 hours"],
  [1440, "Every day"],
];

/**
 * Alerts: where they go (channels, with a test send and each channel's delivery log) and when (the workspace's
 * rule: which events, and how often a site still down is repeated).
 */
export class PlAlerts extends LitElement {
  static override styles = [
    shared,
    css`
      .channel .bar {
        margin: 0;
      }
      .channel h3 {
        margin: 0;
      }
      .result {
        margin: 0.5rem 0 0;
      }
      .check {
        display: flex;
        gap: 0.5rem;
        align-items: center;
        font-weight: 400;
      }
      .delivered {
        color: var(--up);
      }
      .failed {
        color: var(--down);
      }
      .pending {
        color: var(--warn);
      }
    `,
  ];

  static override properties = {
    me: { attribute: false },
    channels: { state: true },
    rule: { state: true },
    type: { state: true },
    adding: { state: true },
    results: { state: true },
    logs: { state: true },
    error: { state: true },
    message: { state: true },
    fieldErrors: { state: true },
  };

  declare me: MeInfo;
  declare channels: Channel[] | null;
  declare rule: Rule | null;
  declare type: string;
  declare adding: boolean;
  declare results: Record<string, TestResult | string>;
  declare logs: Record<string, Delivery[]>;
  declare error: string;
  declare message: string;
  declare fieldErrors: Record<string, string>;

  constructor() {
    super();
    this.channels = null;
    this.rule = null;
    this.type = "email";
    this.adding = false;
    this.results = {};
    this.logs = {};
    this.error = "";
    this.message = "";
    this.fieldErrors = {};
  }

  get #canWrite(): boolean {
    return this.me.permissions.includes("alerts:write");
  }

  override connectedCallback(): void {
    super.connectedCallback();
    void this.#load();
  }

  async #load(): Promise<void> {
    try {
      const [channels, rule] = await Promise.all([
        api<{ channels: Channel[] }>("GET", "/public/v1/alert-channels"),
        api<Rule>("GET", "/public/v1/alert-rules/default"),
      ]);
      this.channels = channels.data.channels;
      this.rule = rule.data;
    } catch (error) {
      this.error = problemText(error);
    }
  }

  async #add(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    const data = new FormData(event.target as HTMLFormElement);
    const config: Record<string, unknown> = {};
    for (const [field] of TYPES[this.type]?.fields ?? []) {
      const value = String(data.get(field) ?? "").trim();
      config[field] =
        field === "to"
          ? value
              .split(",")
              .map((a) => a.trim())
              .filter(Boolean)
          : value;
    }
    this.fieldErrors = {};
    try {
      await api("POST", "/public/v1/alert-channels", { name: String(data.get("name") ?? ""), type: this.type, config });
      this.adding = false;
      this.message = "Channel added: send it a test to see it arrive";
      await this.#load();
    } catch (error) {
      const fields = fieldErrorsOf(error, (f) => f.replace(/^config\./, "").replace(/\.\d+$/, ""));
      if (fields) {
        this.fieldErrors = fields;
      } else {
        this.error = problemText(error);
      }
    }
  }

  async #test(channel: Channel): Promise<void> {
    this.results = { ...this.results, [channel.id]: "Sending…" };
    try {
      const { data } = await api<{ delivery: TestResult }>("POST", `/public/v1/alert-channels/${channel.id}/test`);
      this.results = { ...this.results, [channel.id]: data.delivery };
    } catch (error) {
      this.results = { ...this.results, [channel.id]: problemText(error) };
    }
  }

  async #log(channel: Channel): Promise<void> {
    if (this.logs[channel.id]) {
      const { [channel.id]: _, ...rest } = this.logs;
      this.logs = rest;
      return;
    }
    try {
      const { data } = await api<{ deliveries: Delivery[] }>(
        "GET",
        `/public/v1/alert-channels/${channel.id}/deliveries?limit=20`,
      );
      this.logs = { ...this.logs, [channel.id]: data.deliveries };
    } catch (error) {
      this.error = problemText(error);
    }
  }

  async #remove(channel: Channel): Promise<void> {
    try {
      await api("DELETE", `/public/v1/alert-channels/${channel.id}`);
      await this.#load();
    } catch (error) {
      this.error = problemText(error);
    }
  }

  async #saveRule(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    const data = new FormData(event.target as HTMLFormElement);
    const repeat = String(data.get("repeat") ?? "");
    try {
      const { data: rule } = await api<Rule>("PUT", "/public/v1/alert-rules/default", {
        channels: this.rule?.channels ?? "all",
        events: Object.fromEntries(EVENTS.map(([key]) => [key, data.has(key)])),
        repeatMinutes: repeat === "" ? null : Number(repeat),
      });
      this.rule = rule;
      this.message = "Rule saved";
    } catch (error) {
      this.error = problemText(error);
    }
  }

  override render(): TemplateResult {
    return html`
      <div class="bar">
        <div>
          <h1>Alerts</h1>
          <p class="muted">Where Porchlight tells you first, and about what.</p>
        </div>
        ${this.#canWrite ? html`<button class="primary" @click=${() => (this.adding = true)}>Add a channel</button>` : nothing}
      </div>
      ${this.message ? html`<p class="notice" role="status">${this.message}</p>` : nothing}
      ${this.error ? html`<p class="notice bad" role="alert">${this.error}</p>` : nothing}
      ${this.adding ? this.#form() : nothing}
      <h2>Channels</h2>
      ${
        this.channels === null
          ? html`<p class="muted">Loading…</p>`
          : this.channels.length === 0
            ? html`<p class="panel">No channel yet: add one, and every site's alerts go there.</p>`
            : this.channels.map((c) => this.#channel(c))
      }
      ${this.rule ? this.#rule(this.rule) : nothing}
    `;
  }

  #form(): TemplateResult {
    const spec = TYPES[this.type] ?? { label: "", fields: [] };
    const err = (name: string) =>
      this.fieldErrors[name] ? html`<p class="error" id=${`c-${name}-error`}>${this.fieldErrors[name]}</p>` : nothing;
    return html`<form class="panel" @submit=${this.#add} aria-labelledby="new-channel">
      <h2 id="new-channel" style="margin-top:0">New channel</h2>
      <div class="field"><label for="c-type">Type</label>
        <select id="c-type" @change=${(e: Event) => (this.type = (e.target as HTMLSelectElement).value)}>
          ${Object.entries(TYPES).map(([key, t]) => html`<option value=${key} ?selected=${key === this.type}>${t.label}</option>`)}
        </select></div>
      <div class="field"><label for="c-name">Name</label>
        <input id="c-name" name="name" required maxlength="100" placeholder="Such as On-call" aria-invalid=${this.fieldErrors.name ? "true" : nothing} />${err("name")}</div>
      ${spec.fields.map(
        ([field, label, type, hint]) => html`<div class="field">
          <label for=${`c-${field}`}>${label}<small>${hint}</small></label>
          <input id=${`c-${field}`} name=${field} type=${type} required autocomplete="off"
            aria-invalid=${this.fieldErrors[field] ? "true" : nothing} aria-describedby=${this.fieldErrors[field] ? `c-${field}-error` : nothing} />${err(field)}
        </div>`,
      )}
      <p class="muted">Addresses, tokens and keys are stored sealed and shown masked from now on.</p>
      <div class="row"><button class="primary">Add channel</button><button type="button" @click=${() => (this.adding = false)}>Cancel</button></div>
    </form>`;
  }

  #channel(channel: Channel): TemplateResult {
    const result = this.results[channel.id];
    const log = this.logs[channel.id];
    return html`<article class="panel channel" aria-labelledby=${`ch-${channel.id}`}>
      <div class="bar">
        <div>
          <h3 id=${`ch-${channel.id}`}>${channel.name}</h3>
          <p class="muted" style="margin:0">${TYPES[channel.type]?.label ?? channel.type} · ${channel.target}${channel.enabled ? "" : " · off"}</p>
        </div>
        <div class="row">
          ${this.#canWrite ? html`<button type="button" @click=${() => this.#test(channel)}>Send a test</button>` : nothing}
          <button type="button" aria-expanded=${log ? "true" : "false"} @click=${() => this.#log(channel)}>Delivery log</button>
          ${
            this.#canWrite
              ? html`<button type="button" class="danger" aria-label=${`Delete ${channel.name}`} @click=${() => this.#remove(channel)}>Delete</button>`
              : nothing
          }
        </div>
      </div>
      ${
        result === undefined
          ? nothing
          : html`<p class="result" role="status">${
              typeof result === "string"
                ? result
                : result.ok
                  ? html`<span class="delivered">Delivered</span> in ${Math.round(result.responseTimeMs)} ms${result.statusCode ? ` (HTTP ${result.statusCode})` : ""}`
                  : html`<span class="failed">Not delivered</span>: ${result.error ?? `HTTP ${result.statusCode}`}`
            }</p>`
      }
      ${
        log
          ? log.length === 0
            ? html`<p class="muted">Nothing sent yet.</p>`
            : html`<table class="responsive" style="margin-top:0.5rem">
              <thead><tr><th scope="col">When</th><th scope="col">Event</th><th scope="col">State</th><th scope="col">Last answer</th></tr></thead>
              <tbody>${log.map(
                (d) => html`<tr>
                  <td data-label="When">${ago(d.createdAt)}</td>
                  <td data-label="Event">${d.type}</td>
                  <td data-label="State" class=${d.state}>${d.state}</td>
                  <td data-label="Last answer">${d.lastError ?? (d.lastStatus ? `HTTP ${d.lastStatus}` : "—")}</td>
                </tr>`,
              )}</tbody>
            </table>`
          : nothing
      }
    </article>`;
  }

  #rule(rule: Rule): TemplateResult {
    const ro = !this.#canWrite;
    return html`<h2>When to alert</h2>
      <form class="panel" @submit=${this.#saveRule} aria-label="The workspace's alert rule">
        <fieldset ?disabled=${ro} style="border:0;padding:0;margin:0">
          <p class="muted">For every site without a rule of its own, to ${rule.channels === "all" ? "every channel" : `${rule.channels.length} channels`}.</p>
          ${EVENTS.map(
            ([key, label]) =>
              html`<label class="check"><input type="checkbox" name=${key} ?checked=${rule.events[key]} /> ${label}</label>`,
          )}
          <div class="field" style="margin-top:0.75rem"><label for="repeat">While a site stays down, remind</label>
            <select id="repeat" name="repeat" style="max-width:16rem">
              ${REPEATS.map(([minutes, label]) => html`<option value=${minutes ?? ""} ?selected=${rule.repeatMinutes === minutes}>${label}</option>`)}
            </select></div>
          <button class="primary">Save rule</button>
        </fieldset>
      </form>`;
  }
}

customElements.define("pl-alerts", PlAlerts);
