import { Task } from "@lit/task";
import { css, html, LitElement, nothing, type TemplateResult } from "lit";
import type {
  AlertRule,
  Channel,
  ChannelList,
  ChannelTestResult,
  DeliveryLog,
} from "../../../../server/contract/alerts.ts";
import { allSites, api, problemText } from "../../lib/api.ts";
import { can, consumeMe } from "../../lib/context.ts";
import { FormController } from "../../lib/form.ts";
import { dateTime } from "../../lib/format.ts";
import { BASE, follow } from "../../lib/router.ts";
import { shared } from "../../lib/styles.ts";
import type { Site } from "../../lib/types.ts";
import { type CreatedChannel, TYPES } from "./channel-form.ts";
import { secretPanel } from "./secret.ts";
import "./channel-form.ts";

const EVENTS: [keyof AlertRule["events"], string][] = [
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

/** The flapping settings shown when the rule has flapping off, ready to turn on (the server's defaults). */
const FLAPPING = { outages: 3, windowMinutes: 30, quietMinutes: 30 };

/** A test send's outcome, or the message of a refused one, by channel id. */
type TestOutcome = ChannelTestResult["delivery"] | string;

/** A signing secret on screen: the one answer that carries it, until the owner says it is stored. */
type ShownSecret = { channelId: string; secret: string; rotated: boolean; copied: boolean };

/**
 * Alerts: where they go (channels, with a test send, each channel's delivery log, and a webhook's signing secret
 * shown once and rotatable) and when (the workspace's rule, for every site without a rule of its own).
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
        overflow-wrap: anywhere;
      }
      .channel .bar > div:first-child {
        min-width: 0;
      }
      .channel p {
        overflow-wrap: anywhere;
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
      fieldset.calm {
        border: 1px solid var(--line);
        border-radius: 6px;
        margin: 0.5rem 0 0.9rem;
        padding: 0.5rem 0.75rem;
        min-width: 0;
      }
      fieldset.calm legend {
        font-weight: 600;
      }
      .secret {
        border-left: 4px solid var(--up);
        padding: 0.25rem 0 0.25rem 0.75rem;
        margin: 0.75rem 0;
      }
      .secret h3 {
        margin-top: 0;
      }
      .secret details {
        margin: 0.5rem 0;
      }
      .secret summary {
        cursor: pointer;
        color: var(--accent);
        font-weight: 500;
      }
      .secret-value {
        font-size: 0.95rem;
      }
      .added {
        border-left: 4px solid var(--info);
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
    adding: { state: true },
    added: { state: true },
    shown: { state: true },
    confirmRotate: { state: true },
    results: { state: true },
    logs: { state: true },
    notice: { state: true },
    problem: { state: true },
    flapOn: { state: true },
  };

  declare adding: boolean;
  /** The channel just added: the panel offering a test and saying which sites are down now. */
  declare added: Channel | null;
  declare shown: ShownSecret | null;
  /** The webhook whose secret the confirmation asks to rotate. */
  declare confirmRotate: Channel | null;
  declare results: Record<string, TestOutcome>;
  declare logs: Record<string, DeliveryLog["deliveries"]>;
  declare notice: string;
  declare problem: string;
  /** Whether the rule form has flapping detection on, before saving; null: as the saved rule says. */
  declare flapOn: boolean | null;

  readonly #me = consumeMe(this);
  /** "flapping.outages" → "outages": the rule's inputs are named as the leaves. */
  readonly #rule = new FormController(this, (f) => f.replace(/^flapping\./, ""));

  readonly #load = new Task(this, {
    task: async (_args, { signal }) => {
      const [channels, rule, sites] = await Promise.all([
        api<ChannelList>("GET", "/public/v1/alert-channels", undefined, { signal }),
        api<AlertRule>("GET", "/public/v1/alert-rules/default", undefined, { signal }),
        allSites(),
      ]);
      return { channels: channels.data.channels, rule: rule.data, sites };
    },
    args: () => [] as const,
  });

  constructor() {
    super();
    this.adding = false;
    this.added = null;
    this.shown = null;
    this.confirmRotate = null;
    this.results = {};
    this.logs = {};
    this.notice = "";
    this.problem = "";
    this.flapOn = null;
  }

  get #canWrite(): boolean {
    return can(this.#me.value, "alerts:write");
  }

  #created(event: CustomEvent<CreatedChannel>): void {
    const { secret, ...channel } = event.detail;
    this.adding = false;
    this.added = channel;
    this.notice = "";
    this.shown = secret ? { channelId: channel.id, secret, rotated: false, copied: false } : null;
    void this.#load.run();
  }

  /** Sends a test; its outcome shows where it was asked for (`key`: the channel's id, or the just-added panel's). */
  async #test(channel: Channel, key = channel.id): Promise<void> {
    this.results = { ...this.results, [key]: "Sending…" };
    try {
      const { data } = await api<ChannelTestResult>("POST", `/public/v1/alert-channels/${channel.id}/test`);
      this.results = { ...this.results, [key]: data.delivery };
    } catch (error) {
      this.results = { ...this.results, [key]: problemText(error) };
    }
  }

  async #log(channel: Channel): Promise<void> {
    if (this.logs[channel.id]) {
      const { [channel.id]: _, ...rest } = this.logs;
      this.logs = rest;
      return;
    }
    try {
      const { data } = await api<DeliveryLog>("GET", `/public/v1/alert-channels/${channel.id}/deliveries?limit=20`);
      this.logs = { ...this.logs, [channel.id]: data.deliveries };
    } catch (error) {
      this.problem = problemText(error);
    }
  }

  async #remove(channel: Channel): Promise<void> {
    this.problem = "";
    try {
      await api("DELETE", `/public/v1/alert-channels/${channel.id}`);
      if (this.added?.id === channel.id) this.added = null;
      if (this.shown?.channelId === channel.id) this.shown = null;
      this.notice = `Deleted ${channel.name}.`;
      void this.#load.run();
    } catch (error) {
      this.problem = problemText(error);
    }
  }

  async #askRotate(channel: Channel): Promise<void> {
    this.confirmRotate = channel;
    await this.updateComplete;
    this.renderRoot.querySelector<HTMLDialogElement>("#rotate")?.showModal();
  }

  async #rotate(): Promise<void> {
    const channel = this.confirmRotate;
    this.renderRoot.querySelector<HTMLDialogElement>("#rotate")?.close();
    if (!channel) return;
    this.problem = "";
    try {
      const { data } = await api<CreatedChannel>("POST", `/public/v1/alert-channels/${channel.id}/rotate-secret`);
      if (data.secret) this.shown = { channelId: channel.id, secret: data.secret, rotated: true, copied: false };
    } catch (error) {
      this.problem = problemText(error);
    }
  }

  async #copy(): Promise<void> {
    const shown = this.shown;
    if (!shown) return;
    try {
      await navigator.clipboard.writeText(shown.secret);
      this.shown = { ...shown, copied: true };
    } catch {
      this.problem = "The browser did not allow copying: select the secret and copy it by hand.";
    }
  }

  async #saveRule(event: SubmitEvent, current: AlertRule): Promise<void> {
    const flapOn = this.flapOn ?? current.flapping !== null;
    const saved = await this.#rule.submit(event, async (data) => {
      const repeat = String(data.get("repeat") ?? "");
      // An empty or unreadable field is sent as null, for the server to name it (never a silent 0).
      const int = (name: string) => {
        const value = String(data.get(name) ?? "").trim();
        return value === "" || !Number.isFinite(Number(value)) ? null : Number(value);
      };
      return api<AlertRule>("PUT", "/public/v1/alert-rules/default", {
        channels: current.channels,
        events: Object.fromEntries(EVENTS.map(([key]) => [key, data.has(key)])),
        repeatMinutes: repeat === "" ? null : Number(repeat),
        confirmations: int("confirmations"),
        cooldownMinutes: int("cooldownMinutes"),
        flapping: flapOn
          ? { outages: int("outages"), windowMinutes: int("windowMinutes"), quietMinutes: int("quietMinutes") }
          : null,
      });
    });
    if (saved) {
      this.notice = "Rule saved.";
      // The box keeps what was saved while the reload is under way: forgetting it (null) would show the old rule's
      // setting until the answer, and undo a box ticked in the meantime.
      this.flapOn = saved.data.flapping !== null;
      void this.#load.run();
    }
  }

  override render(): TemplateResult {
    return html`
      <div class="bar">
        <div>
          <h1>Alerts</h1>
          <p class="muted">Where Porchlight tells you first, and about what.</p>
        </div>
        ${
          this.#canWrite && !this.adding
            ? html`<button class="primary" @click=${() => {
                this.adding = true;
                this.added = null;
                this.notice = "";
              }}>Add a channel</button>`
            : nothing
        }
      </div>
      ${this.notice ? html`<p class="notice" role="status">${this.notice}</p>` : nothing}
      ${this.problem ? html`<p class="notice bad" role="alert">${this.problem}</p>` : nothing}
      ${
        this.adding
          ? html`<pl-channel-form class="panel" style="display:block" @pl-saved=${this.#created}
              @pl-cancel=${() => (this.adding = false)}></pl-channel-form>`
          : nothing
      }
      ${this.#load.render({
        // A reload after a change keeps what is shown (and the forms' focus) until the answer replaces it.
        pending: () => (this.#load.value ? this.#content(this.#load.value) : html`<p class="muted">Loading…</p>`),
        error: (error) => html`<p class="notice bad" role="alert">${problemText(error)}</p>`,
        complete: (data) => this.#content(data),
      })}
      ${this.#rotateDialog()}
    `;
  }

  #content({ channels, rule, sites }: { channels: Channel[]; rule: AlertRule; sites: Site[] }): TemplateResult {
    return html`
      ${this.added ? this.#added(this.added, rule, sites) : nothing}
      <h2>Channels</h2>
      ${
        channels.length === 0
          ? html`<p class="panel">No channel yet: add one, and every site's alerts go there.</p>`
          : channels.map((c) => this.#channel(c))
      }
      ${this.#ruleForm(rule)}`;
  }

  /** The channel just added: its secret (a webhook), a test to send, and the sites down now. */
  #added(channel: Channel, rule: AlertRule, sites: Site[]): TemplateResult {
    const result = this.results[`added:${channel.id}`];
    return html`<section class="panel added" aria-labelledby="added-title">
      <h2 id="added-title" style="margin-top:0">${channel.name} is added</h2>
      ${this.shown?.channelId === channel.id ? this.#secret(this.shown) : nothing}
      <div class="row">
        <button type="button" class="primary" @click=${() => this.#test(channel, `added:${channel.id}`)}>Send a test now</button>
        <span>to see it arrive.</span>
      </div>
      ${result === undefined ? nothing : this.#result(result)}
      ${this.#downNow(sites, rule)}
      <button type="button" class="link" @click=${() => (this.added = null)}>Close</button>
    </section>`;
  }

  /**
   * Which sites are down now, and the truth of what a new channel hears of them: the engine sends site.down once, when
   * a site is confirmed down, to the channels of that moment (server/engine/alert-writes.ts), so a channel added later
   * hears of such a site only from its next change: the reminders while it stays down, and its recovery.
   */
  #downNow(sites: Site[], rule: AlertRule): TemplateResult {
    const down = sites.filter((s) => s.status === "down");
    if (down.length === 0) return html`<p class="muted" style="margin-top:0.75rem">No site is down now.</p>`;
    const link = (s: Site) => html`<a href=${`${BASE}sites/${s.id}`} @click=${follow}>${s.name}</a>`;
    const reminders =
      rule.repeatMinutes === null ? "" : " and, while they stay down, the reminders the workspace's rule repeats";
    return html`<div class="notice" style="margin-top:0.75rem" id="down-now">
      <p style="margin:0">${down.length === 1 ? "1 site is down now: " : `${down.length} sites are down now: `}${down.map((s, i) => html`${i > 0 ? (i === down.length - 1 ? " and " : ", ") : nothing}${link(s)}`)}.</p>
      <p style="margin:0.25rem 0 0">
        ${
          rule.channels === "all"
            ? `This channel was not told they went down: that alert went out before it existed. It hears about them from their next change: when they come back up${reminders}, unless a site's own rule names other channels.`
            : "This channel was not told they went down, and the workspace's rule sends to chosen channels only: add this one to the rule to hear about them."
        }
      </p>
    </div>`;
  }

  #secret(shown: ShownSecret): TemplateResult {
    return secretPanel(shown.secret, {
      rotated: shown.rotated,
      copied: shown.copied,
      onCopy: () => void this.#copy(),
      onDone: () => (this.shown = null),
    });
  }

  #result(result: TestOutcome): TemplateResult {
    return html`<p class="result" role="status">${
      typeof result === "string"
        ? result
        : result.ok
          ? html`<span class="delivered">Delivered</span> in ${Math.round(result.responseTimeMs)} ms${result.statusCode ? ` (HTTP ${result.statusCode})` : ""}`
          : html`<span class="failed">Not delivered</span>: ${result.error ?? `HTTP ${result.statusCode}`}`
    }</p>`;
  }

  #channel(channel: Channel): TemplateResult {
    const result = this.results[channel.id];
    const log = this.logs[channel.id];
    const write = this.#canWrite;
    return html`<article class="panel channel" aria-labelledby=${`ch-${channel.id}`}>
      <div class="bar">
        <div>
          <h3 id=${`ch-${channel.id}`}>${channel.name}</h3>
          <p class="muted" style="margin:0">${TYPES[channel.type]?.label ?? channel.type} · ${channel.target}${channel.enabled ? "" : " · off"}</p>
        </div>
        <div class="row">
          ${write ? html`<button type="button" @click=${() => this.#test(channel)}>Send a test</button>` : nothing}
          <button type="button" aria-expanded=${log ? "true" : "false"} @click=${() => this.#log(channel)}>Delivery log</button>
          ${
            write && channel.type === "webhook"
              ? html`<button type="button" aria-label=${`Rotate secret of ${channel.name}`} @click=${() => this.#askRotate(channel)}>Rotate secret</button>`
              : nothing
          }
          ${write ? html`<button type="button" class="danger" aria-label=${`Delete ${channel.name}`} @click=${() => this.#remove(channel)}>Delete</button>` : nothing}
        </div>
      </div>
      ${this.shown?.channelId === channel.id && this.shown.rotated ? this.#secret(this.shown) : nothing}
      ${result === undefined ? nothing : this.#result(result)}
      ${log ? this.#deliveries(log) : nothing}
    </article>`;
  }

  #deliveries(log: DeliveryLog["deliveries"]): TemplateResult {
    if (log.length === 0) return html`<p class="muted">Nothing sent yet.</p>`;
    return html`<table class="responsive" style="margin-top:0.5rem">
      <thead><tr><th scope="col">When</th><th scope="col">Event</th><th scope="col">State</th><th scope="col">Last answer</th></tr></thead>
      <tbody>${log.map(
        (d) => html`<tr>
          <td data-label="When">${dateTime(d.createdAt)}</td>
          <td data-label="Event">${d.type}</td>
          <td data-label="State" class=${d.state}>${d.state}</td>
          <td data-label="Last answer">${d.lastError ?? (d.lastStatus ? `HTTP ${d.lastStatus}` : "—")}</td>
        </tr>`,
      )}</tbody>
    </table>`;
  }

  #rotateDialog(): TemplateResult {
    const c = this.confirmRotate;
    return html`<dialog id="rotate" aria-labelledby="rotate-text" @close=${() => (this.confirmRotate = null)}>
      <p id="rotate-text" style="overflow-wrap:anywhere">Give ${c?.name ?? "this channel"} a new signing secret? Every
        delivery from now on is signed with it, retries of earlier alerts included; the old secret signs nothing more, so
        update the receiver right after. The new secret is shown once.</p>
      <div class="row">
        <button type="button" class="danger solid" @click=${() => this.#rotate()}>Rotate secret</button>
        <button type="button" @click=${() => this.renderRoot.querySelector<HTMLDialogElement>("#rotate")?.close()}>Cancel</button>
      </div>
    </dialog>`;
  }

  /** A whole-number field of the rule, its limits stated and the API's message beside it. */
  #number(name: string, label: string, hint: string, value: number): TemplateResult {
    const f = this.#rule;
    return html`<div class="field"><label for=${`r-${name}`}>${label}<small id=${`r-${name}-hint`}>${hint}</small></label>
      <input id=${`r-${name}`} name=${name} type="number" inputmode="numeric" step="1" style="max-width:8rem"
        .value=${String(value)} aria-invalid=${f.invalid(name)} aria-describedby=${f.describedBy("r", name, `r-${name}-hint`)} />
      ${f.error("r", name)}</div>`;
  }

  #ruleForm(rule: AlertRule): TemplateResult {
    const ro = !this.#canWrite;
    const flapOn = this.flapOn ?? rule.flapping !== null;
    const flapping = rule.flapping ?? FLAPPING;
    const f = this.#rule;
    return html`<h2>When to alert</h2>
      <form id="rule" class="panel" novalidate @submit=${(e: SubmitEvent) => this.#saveRule(e, rule)} aria-label="The workspace's alert rule">
        <fieldset ?disabled=${ro} style="border:0;padding:0;margin:0;min-width:0">
          <p class="muted">For every site without a rule of its own, to ${rule.channels === "all" ? "every channel" : `${rule.channels.length} chosen channels`}.
            A site can have its own rule in place of this one (which channels, which events, reminders): open it from
            <a href=${BASE} @click=${follow}>Sites</a> and set it on the site's screen.</p>
          ${EVENTS.map(([key, label]) => html`<label class="check"><input type="checkbox" name=${key} ?checked=${rule.events[key]} /> ${label}</label>`)}
          <div class="field" style="margin-top:0.75rem"><label for="repeat">While a site stays down, remind</label>
            <select id="repeat" name="repeat" style="max-width:16rem" aria-invalid=${f.invalid("repeatMinutes")} aria-describedby=${f.describedBy("r", "repeatMinutes")}>
              ${REPEATS.map(([minutes, label]) => html`<option value=${minutes ?? ""} ?selected=${rule.repeatMinutes === minutes}>${label}</option>`)}
            </select>${f.error("r", "repeatMinutes")}</div>
          <fieldset class="calm"><legend>Calm alerts</legend>
            ${this.#number("confirmations", "Failed checks before a down alert", "In a row, 2 to 20: one failed check alone alerts nobody", rule.confirmations)}
            ${this.#number("cooldownMinutes", "Cool-down, in minutes", "0 to 1,440: a site down again this soon after its incident resolved re-opens that incident instead of opening a new one", rule.cooldownMinutes)}
            <label class="check"><input type="checkbox" id="r-flapping" .checked=${flapOn}
              @change=${(e: Event) => (this.flapOn = (e.target as HTMLInputElement).checked)} /> Detect flapping</label>
            <p class="muted" style="margin:0.25rem 0 0.5rem">A site that keeps going down and up gets one “flapping” alert, then quiet until it has been stable, then one summary.</p>
            ${
              flapOn
                ? html`${this.#number("outages", "Outages that make a site flapping", "2 to 20", flapping.outages)}
                  ${this.#number("windowMinutes", "Within, in minutes", "5 to 1,440", flapping.windowMinutes)}
                  ${this.#number("quietMinutes", "Stable for, in minutes, before the summary", "5 to 1,440", flapping.quietMinutes)}`
                : html`<p class="muted" style="margin:0">Off: every down and recovery is alerted.</p>`
            }
            ${f.errors.flapping ? html`<p class="error">${f.errors.flapping}</p>` : nothing}
          </fieldset>
          ${f.message()}
          <button class="primary" ?disabled=${f.busy}>Save rule</button>
        </fieldset>
      </form>`;
  }
}

customElements.define("pl-alerts", PlAlerts);
