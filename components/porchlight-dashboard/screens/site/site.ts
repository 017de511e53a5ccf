import { Task } from "@lit/task";
import { css, html, LitElement, nothing, type PropertyValues, type TemplateResult } from "lit";
import type { PushToken } from "../../../../server/contract/monitor.ts";
import type { RecentCheck, SiteDetail, SiteIncident } from "../../../../server/contract/site.ts";
import { ApiProblem, api, problemText } from "../../lib/api.ts";
import { can, consumeMe } from "../../lib/context.ts";
import { ago, chip, dateTime, percent } from "../../lib/format.ts";
import { PollController } from "../../lib/poll.ts";
import { BASE, navigate } from "../../lib/router.ts";
import { shared } from "../../lib/styles.ts";
import { addressLabel, formatExpected, KIND_WORD, type Kind, kindOf } from "../sites/list.ts";
import { copyText, pushUrlPanel, pushUrlStyles, type ShownPushUrl } from "../sites/site-form.ts";
import "./alert-rule.ts";
import "./chart.ts";
import {
  fitRange,
  type Point,
  percentileSeries,
  RANGES,
  type Range,
  type RangeKey,
  rangeOf,
  regionSeries,
  type Series,
} from "./chart-scale.ts";

const DAY = 86_400_000;

/** What the chart of a kind's timings is called: each kind times something else. */
const TIMING: Record<Kind, string> = {
  http: "Response time",
  tcp: "Connect time",
  tls: "Connect and handshake time",
  dns: "Query time",
  icmp: "Round trip",
  push: "Run time the job reports",
};

/** A check that did not run (the address policy, a push site's first call not due): not an outage. */
const NOT_CHECKED = /^(not checked|refused):/;

/** The seconds of a period in words ("5 min", "1 h", "45 s"). */
function period(seconds: number): string {
  if (seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}

/** Whether a site is shown as degraded: up, but slow or with a standing condition. */
const look = (site: SiteDetail) => (site.status === "up" && site.state === "degraded" ? "degraded" : site.status);

/**
 * One site: what it is doing now (polled with an ETag, so changing only the site id in the address loads the other
 * site at once), Edit / Pause / Delete, its response times over a range that fits its history, the 90-day bars, its
 * conditions, its alert rule next to the workspace's, its incidents and its recent checks with their errors.
 */
export class PlSite extends LitElement {
  static override styles = [
    shared,
    pushUrlStyles,
    css`
      h1 {
        overflow-wrap: anywhere;
      }
      .head {
        display: flex;
        flex-wrap: wrap;
        gap: 0.5rem 1rem;
        align-items: flex-start;
        justify-content: space-between;
      }
      .head > div:first-child {
        min-width: 0;
        flex: 1 1 16rem;
      }
      .address {
        overflow-wrap: anywhere;
      }
      .facts {
        display: grid;
        grid-template-columns: repeat(auto-fit, minmax(11rem, 1fr));
        gap: 0.75rem;
        margin: 0;
      }
      .facts div {
        background: var(--panel);
        border: 1px solid var(--line);
        border-radius: var(--radius);
        padding: 0.75rem;
        min-width: 0;
      }
      .facts dt {
        color: var(--muted);
        font-size: 0.85rem;
      }
      .facts dd {
        margin: 0.2rem 0 0;
        font-weight: 600;
        overflow-wrap: anywhere;
      }
      .ranges {
        display: inline-flex;
        flex-wrap: wrap;
        border: 1px solid var(--line);
        border-radius: 6px;
        overflow: hidden;
        margin-bottom: 0.5rem;
      }
      .ranges button {
        border: 0;
        border-radius: 0;
      }
      .ranges button[aria-pressed="true"] {
        background: var(--accent);
        color: var(--accent-text);
      }
      .bars {
        display: flex;
        gap: 2px;
        height: 34px;
        align-items: stretch;
      }
      .bars span {
        flex: 1;
        min-width: 0;
        border-radius: 2px;
        background: var(--line);
      }
      .bars .ok {
        background: var(--up);
      }
      .bars .some {
        background: var(--warn);
      }
      .bars .bad {
        background: var(--down);
      }
      .level-warning {
        color: var(--warn);
      }
      .level-critical {
        color: var(--down);
      }
      .back {
        display: inline-block;
        margin-bottom: 0.5rem;
      }
      .checks {
        padding: 0.25rem 0.75rem;
      }
      .checks table {
        width: 100%;
        border-collapse: collapse;
      }
      .checks th,
      .checks td {
        text-align: left;
        padding: 0.35rem 0.5rem 0.35rem 0;
        border-bottom: 1px solid var(--line);
        vertical-align: top;
      }
      .checks th {
        color: var(--muted);
        font-size: 0.8rem;
        font-weight: 600;
      }
      .checks td:last-child {
        white-space: nowrap;
      }
      .error-text {
        color: var(--down);
        overflow-wrap: anywhere;
        font-size: 0.9rem;
      }
      @media (max-width: 640px) {
        .checks td {
          font-size: 0.85rem;
        }
      }
      ul {
        overflow-wrap: anywhere;
      }
      .settings {
        display: grid;
        grid-template-columns: max-content 1fr;
        gap: 0.35rem 1rem;
        margin: 0 0 0.75rem;
      }
      .settings dt {
        color: var(--muted);
      }
      .settings dd {
        margin: 0;
        min-width: 0;
        overflow-wrap: anywhere;
      }
      @media (max-width: 480px) {
        .settings {
          grid-template-columns: 1fr;
        }
        .settings dd {
          margin-bottom: 0.4rem;
        }
      }
    `,
  ];

  static override properties = {
    siteId: { attribute: false },
    range: { state: true },
    message: { state: true },
    pushUrl: { state: true },
  };

  declare siteId: string;
  /** The range the owner picked; null: the smallest that holds the site's history. */
  declare range: RangeKey | null;
  /** The outcome of the last action (paused, resumed, a refusal), announced. */
  declare message: string;
  /** A push site's new address, just rotated: shown until the owner says it is stored. */
  declare pushUrl: ShownPushUrl | null;

  readonly #me = consumeMe(this);

  /** The site now: polled, and fetched at once when the address names another site. */
  readonly #site = new PollController<SiteDetail>(this, {
    url: () => (this.siteId ? `/public/v1/site/${encodeURIComponent(this.siteId)}?statDays=90` : null),
  });

  /** The raw checks the chart's range needs, again whenever the site has been checked since. */
  readonly #checks = new Task(this, {
    task: async ([id, hours], { signal }) => {
      if (hours === null) return [] as RecentCheck[];
      const path = `/public/v1/site/${encodeURIComponent(id)}/checks?hours=${hours}`;
      return (await api<RecentCheck[]>("GET", path, undefined, { signal })).data;
    },
    args: () => [this.siteId, this.#hours(), this.#site.value?.lastCheckTime ?? null] as const,
  });

  readonly #incidents = new Task(this, {
    task: async ([id], { signal }) =>
      (await api<SiteIncident[]>("GET", `/public/v1/site/${encodeURIComponent(id)}/incidents`, undefined, { signal }))
        .data,
    args: () => [this.siteId] as const,
  });

  constructor() {
    super();
    this.siteId = "";
    this.range = null;
    this.message = "";
    this.pushUrl = null;
  }

  protected override willUpdate(changed: PropertyValues): void {
    // Another site starts on the range that fits its own history, with nothing said about the last one.
    if (changed.has("siteId") && changed.get("siteId") !== undefined) {
      this.range = null;
      this.message = "";
      this.pushUrl = null;
    }
  }

  /** The range shown, or null until the site (and so its age) is known. */
  #currentRange(): Range | null {
    if (this.range) return rangeOf(this.range);
    const site = this.#site.value;
    if (!site || site.id !== this.siteId) return null;
    // History begins at the site's creation, or earlier when its statistics say so (a day's row ends that day).
    const first = site.stat[0] ? Date.parse(`${site.stat[0].date}T00:00:00Z`) + DAY - 1 : Number.POSITIVE_INFINITY;
    return rangeOf(fitRange(Math.min(Date.parse(site.createdAt), first), Date.now()));
  }

  /** Hours of raw checks to ask for: the chart's range when it is drawn from checks, else the table's 24. */
  #hours(): number | null {
    const range = this.#currentRange();
    if (!range) return null;
    return range.source === "checks" ? Math.max(24, range.ms / 3_600_000) : 24;
  }

  /** The lines of the range: every check by region up to a day, hourly p50/p95 over a week, daily means beyond. */
  #series(range: Range, site: SiteDetail, checks: RecentCheck[], measure: string): Series[] {
    const start = Date.now() - range.ms;
    if (range.source === "days") {
      const points: Point[] = site.stat.map((s) => [Date.parse(`${s.date}T00:00:00Z`), s.responseTimeMs]);
      return [{ label: "Daily mean", points: points.filter(([at]) => at >= start - DAY) }];
    }
    // A failed check's time is not how fast the site answers: failures are marks of their own (#failures).
    const inRange = checks.filter((c) => c.ok && Date.parse(c.at) >= start);
    if (range.bucketMs > 0) {
      return percentileSeries(
        inRange.map((c) => [Date.parse(c.at), c.responseMs]),
        range.bucketMs,
      );
    }
    return regionSeries(inRange, measure);
  }

  async #setPause(site: SiteDetail): Promise<void> {
    try {
      await api("PATCH", `/public/v1/site/${encodeURIComponent(site.id)}`, { pause: !site.pause });
      this.message = site.pause ? "Checks resumed." : "Paused: no checks and no alerts until it is resumed.";
      await this.#site.refresh();
    } catch (error) {
      this.message = problemText(error);
    }
  }

  /** Gives a push site a new secret address (the old one stops at once), shown here this once. */
  async #rotate(site: SiteDetail): Promise<void> {
    this.renderRoot.querySelector<HTMLDialogElement>("#rotate-push")?.close();
    try {
      const path = `/public/v1/site/${encodeURIComponent(site.id)}/push-token`;
      const { data } = await api<PushToken>("POST", path);
      this.pushUrl = { pushUrl: data.pushUrl, copied: false };
      this.message = "";
      await this.#site.refresh();
      await this.updateComplete;
      this.renderRoot.querySelector<HTMLElement>("#push-url-title")?.focus();
    } catch (error) {
      this.message = problemText(error);
    }
  }

  async #copyPushUrl(): Promise<void> {
    const shown = this.pushUrl;
    if (!shown) return;
    const ok = await copyText(shown.pushUrl);
    this.pushUrl = { ...shown, copied: ok };
    if (!ok) this.message = "The browser did not allow copying: select the address and copy it by hand.";
  }

  async #delete(site: SiteDetail): Promise<void> {
    try {
      await api("DELETE", `/public/v1/site/${encodeURIComponent(site.id)}`);
      navigate(BASE);
    } catch (error) {
      this.renderRoot.querySelector<HTMLDialogElement>("#delete-site")?.close();
      this.message = problemText(error);
    }
  }

  override render(): TemplateResult {
    const back = html`<a class="back" href=${BASE} @click=${(e: MouseEvent) => {
      e.preventDefault();
      navigate(BASE);
    }}>← Sites</a>`;
    const site = this.#site.value;
    const error = this.#site.error;
    if (!site && error) {
      const gone = error instanceof ApiProblem && error.status === 404;
      return html`${back}<p class="notice bad" role="alert">${gone ? "This site does not exist (it may have been deleted)." : problemText(error)}</p>`;
    }
    if (!site) return html`${back}<p class="muted" role="status">Loading…</p>`;
    const writer = can(this.#me.value, "sites:write");
    const kind = kindOf(site.protocol);
    return html`
      ${back}
      <div class="head">
        <div>
          <h1>${site.name}</h1>
          <p class="muted address">${kind === "http" ? site.url : html`${KIND_WORD[kind]}${kind === "push" ? "" : ` · ${addressLabel(site).replace(/^\S+ /, "")}`}`}</p>
        </div>
        <div class="row">
          ${chip(look(site))}
          ${
            writer
              ? html`
            <button type="button" @click=${() => this.renderRoot.querySelector("pl-site-form")?.show()}>Edit</button>
            <button type="button" @click=${() => this.#setPause(site)}>${site.pause ? "Resume" : "Pause"}</button>
            <button type="button" class="danger" @click=${() => this.renderRoot.querySelector<HTMLDialogElement>("#delete-site")?.showModal()}>Delete</button>`
              : nothing
          }
        </div>
      </div>
      <p role="status">${this.message}</p>
      ${this.#summary(site)}
      <dl class="facts">
        <div><dt>Uptime (90 d)</dt><dd>${percent(site.uptimeSummary.uptimePercentage)}</dd></div>
        <div><dt>Downtime (90 d)</dt><dd>${Math.round(site.uptimeSummary.totalDowntimeMinutes)} min</dd></div>
        <div><dt>Last check</dt><dd title=${site.lastCheckTime ? dateTime(site.lastCheckTime) : nothing}>${ago(site.lastCheckTime)}</dd></div>
        ${
          kind === "push"
            ? html`<div><dt>Last call</dt><dd title=${site.push?.lastCallAt ? dateTime(site.push.lastCallAt) : nothing}>${ago(site.push?.lastCallAt ?? null)}</dd></div>`
            : html`<div><dt>Checked every</dt><dd>${site.checkInterval} s from ${site.regions.join(", ")}</dd></div>`
        }
        ${
          kind === "http" || kind === "tls"
            ? html`<div><dt>Certificate</dt><dd>${site.sslInfo ? html`${site.sslInfo.daysRemaining} days left <small class="muted">(${site.sslInfo.issuer})</small>` : "—"}</dd></div>`
            : nothing
        }
        ${
          kind === "push" || kind === "icmp"
            ? nothing
            : html`<div><dt>Domain</dt><dd>${site.domain?.expiresAt ? html`Expires ${dateTime(site.domain.expiresAt)}` : "—"}</dd></div>`
        }
      </dl>

      <h2>What is checked</h2>
      ${this.#settings(site, kind, writer)}

      <h2 id="chart-title">${TIMING[kind]}</h2>
      ${this.#chart(site, kind)}

      <h2>Last 90 days</h2>
      ${this.#bars(site)}

      <h2>Conditions</h2>
      ${
        site.conditions.length === 0
          ? html`<p class="muted">No standing condition.</p>`
          : html`<ul>
            ${site.conditions.map((c) => html`<li><strong class=${`level-${c.level}`}>${c.level}</strong>: ${c.summary} <span class="muted">since ${ago(c.since)}</span></li>`)}
          </ul>`
      }

      <h2>Alerts</h2>
      ${can(this.#me.value, "alerts:read") ? html`<pl-site-alert-rule .siteId=${site.id}></pl-site-alert-rule>` : html`<p class="muted">Your role does not show alerts.</p>`}

      <h2>Incidents</h2>
      ${this.#incidents.render({
        pending: () => html`<p class="muted">Loading…</p>`,
        error: (e) => html`<p class="notice bad">${problemText(e)}</p>`,
        complete: (incidents) => this.#incidentList(incidents),
      })}

      <h2>Recent checks</h2>
      ${this.#recent(this.#checks.value ?? [])}
      ${writer ? this.#dialogs(site) : nothing}
    `;
  }

  /** A site that is down says why at the top, with its latest failed check's time, in place of the summary line. */
  #summary(site: SiteDetail): TemplateResult {
    if (site.status !== "down") return html`<p>${site.healthSummary}</p>`;
    const failed = (this.#checks.value ?? []).find((c) => !c.ok);
    return html`<p class="notice bad" role="alert">
      ${site.healthSummary.startsWith("Down") ? nothing : html`<strong>Down.</strong> `}${site.healthSummary}${failed ? html` <span class="muted">Last failed check: ${dateTime(failed.at)}.</span>` : nothing}
    </p>`;
  }

  /** The kind of check and its own settings: the assertions, the DNS question, the push period and grace. */
  #settings(site: SiteDetail, kind: Kind, writer: boolean): TemplateResult {
    const rows: [string, TemplateResult | string][] = [["Kind", KIND_WORD[kind]]];
    if (kind === "http") {
      rows.push(["Request", `${site.method} ${site.url}`]);
      const request = site.request;
      if (request?.basicAuth) {
        rows.push([
          "Basic auth",
          html`<code>${request.basicAuth.username}</code>${request.basicAuth.passwordSet ? ", password stored sealed" : ", no password"}`,
        ]);
      }
      if (request?.body) {
        const sent = site.method === "GET" || site.method === "HEAD" ? " (not sent with GET or HEAD)" : "";
        rows.push(["Body", `${request.body.length.toLocaleString("en-US")} characters${sent}`]);
      }
      if (request && !request.followRedirects) rows.push(["Redirects", "Not followed: a redirect is the answer"]);
      const a = site.assertions;
      if (a?.keyword) {
        const how = `${a.keyword.caseSensitive ? "case-sensitive" : "any case"}`;
        rows.push([
          "Keyword",
          html`The body must ${a.keyword.absent ? html`<strong>not</strong> contain` : "contain"} <code>${a.keyword.text}</code> (${how})`,
        ]);
      }
      if (a?.json) {
        rows.push([
          "JSON value",
          a.json.equals === undefined
            ? html`<code>${a.json.path}</code> must exist`
            : html`<code>${a.json.path}</code> must equal <code>${formatExpected(a.json.equals)}</code>`,
        ]);
      }
      if (a?.header) {
        rows.push([
          "Header",
          a.header.contains === ""
            ? html`<code>${a.header.name}</code> must be there`
            : html`<code>${a.header.name}</code> must contain <code>${a.header.contains}</code>`,
        ]);
      }
      if (!a?.keyword && !a?.json && !a?.header) rows.push(["Checks on the answer", "The status code only"]);
    }
    if (kind === "tcp" || kind === "tls") {
      rows.push([
        "Target",
        `${addressLabel(site).replace(/^\S+ /, "")}${kind === "tls" ? ", with a TLS handshake" : ""}`,
      ]);
    }
    if (kind === "icmp") rows.push(["Host", addressLabel(site).replace(/^\S+ /, "")]);
    if (kind === "dns" && site.dns) {
      const dns = site.dns;
      const name = addressLabel(site)
        .replace(/^dns /, "")
        .replace(/ \(\w+\)$/, "");
      rows.push(["Question", `${dns.recordType} records of ${name}`]);
      rows.push(["Resolver", dns.resolver ?? "The server's own"]);
      rows.push([
        "Expected",
        dns.expected.length === 0
          ? "Any answer"
          : html`${dns.match === "exact" ? "Exactly" : "At least"}: ${dns.expected.map((v, i) => html`${i > 0 ? ", " : ""}<code>${v}</code>`)}`,
      ]);
      // The newest answer a passing check got (the recent checks, newest first).
      const answered = (this.#checks.value ?? []).find((c) => c.found !== null);
      if (answered?.found) {
        rows.push(["Last answer", html`<code>${answered.found}</code> (${dateTime(answered.at)})`]);
      }
    }
    if (kind === "push" && site.push) {
      const push = site.push;
      rows.push(["Expected", `A call at least every ${period(site.checkInterval)}, ${push.graceSeconds} s of grace`]);
      rows.push(["Address", `Secret, ending in …${push.tokenHint}`]);
    }
    return html`<div class="panel">
      <dl class="settings">${rows.map(([term, value]) => html`<dt>${term}</dt><dd>${value}</dd>`)}</dl>
      ${
        kind === "push" && writer
          ? html`${
              this.pushUrl
                ? pushUrlPanel(this.pushUrl, {
                    rotated: true,
                    onCopy: () => this.#copyPushUrl(),
                    onDone: () => (this.pushUrl = null),
                  })
                : nothing
            }<button type="button" @click=${() => this.renderRoot.querySelector<HTMLDialogElement>("#rotate-push")?.showModal()}>Rotate push address</button>`
          : nothing
      }
    </div>`;
  }

  #chart(site: SiteDetail, kind: Kind): TemplateResult {
    const range = this.#currentRange();
    const checks = this.#checks.value;
    const picker = html`<div class="ranges" role="group" aria-labelledby="chart-title">
      ${RANGES.map(
        (r) =>
          html`<button type="button" aria-pressed=${range?.key === r.key ? "true" : "false"}
            aria-label=${`Last ${r.label}`} @click=${() => (this.range = r.key)}>${r.label}</button>`,
      )}
    </div>`;
    if (!range || !checks) return html`${picker}<div class="panel"><p class="muted">Loading…</p></div>`;
    // A push site's calls carry a time only when the job reports one (?ms=): without any, there is nothing to draw.
    if (
      kind === "push" &&
      checks.every((c) => c.responseMs === null) &&
      site.stat.every((s) => s.responseTimeMs === null)
    ) {
      return html`<div class="panel"><p class="muted" style="margin:0">No run time reported yet. A job that adds
        <code>&amp;ms=</code> and its run time in milliseconds to its call gets it charted here.</p></div>`;
    }
    const daily = range.source === "days";
    const note =
      range.key === "7d"
        ? "Hourly median (p50) and 95th percentile (p95) of every check."
        : daily
          ? `Each UTC day's mean ${TIMING[kind].toLowerCase()}.`
          : "";
    return html`${picker}
      <div class="panel">
        <pl-response-chart .series=${this.#series(range, site, checks, TIMING[kind])} .measure=${TIMING[kind]} .range=${range} .now=${Date.now()} .daily=${daily}
          .failures=${daily ? [] : checks.filter((c) => !c.ok && !NOT_CHECKED.test(c.error ?? "") && Date.parse(c.at) >= Date.now() - range.ms).map((c) => Date.parse(c.at))}></pl-response-chart>
        ${note ? html`<p class="muted" style="margin:0.25rem 0 0">${note}</p>` : nothing}
      </div>`;
  }

  #bars(site: SiteDetail): TemplateResult {
    const byDay = new Map(site.stat.map((s) => [s.date, s]));
    const today = Date.now();
    const cells = Array.from({ length: 90 }, (_, i) => {
      const day = new Date(today - (89 - i) * DAY).toISOString().slice(0, 10);
      const s = byDay.get(day);
      const shade = !s || s.checks === 0 ? "" : s.upRate >= 0.999 ? "ok" : s.upRate >= 0.95 ? "some" : "bad";
      const label = s && s.checks > 0 ? `${day} (UTC): ${percent(s.upRate * 100)} up` : `${day} (UTC): no data`;
      return html`<span class=${shade} title=${label}></span>`;
    });
    return html`<div class="bars" role="img" aria-label="Daily uptime over the last 90 days">${cells}</div>`;
  }

  #incidentList(incidents: SiteIncident[]): TemplateResult {
    if (incidents.length === 0) return html`<p class="muted">No incident.</p>`;
    return html`<ul>
      ${incidents.map(
        (i) => html`<li>
          <strong>${i.title}</strong> <span class="chip ${i.resolvedAt ? "up" : "warn"}">${i.status}</span> <span class="muted">on ${i.pageName} · ${dateTime(i.startedAt)}${i.resolvedAt ? ` to ${dateTime(i.resolvedAt)}` : ""}${i.automatic ? " · opened by the checks" : ""}</span>
        </li>`,
      )}
    </ul>`;
  }

  /** The latest checks, densely: a failed one's error under its result, the region only where there are several. */
  #recent(checks: RecentCheck[]): TemplateResult {
    const since = Date.now() - DAY;
    const rows = checks.filter((c) => Date.parse(c.at) >= since).slice(0, 30);
    if (rows.length === 0) return html`<p class="muted">No check in the last 24 hours.</p>`;
    const regions = new Set(rows.map((c) => c.region)).size > 1;
    return html`<div class="panel checks">
      <table>
        <thead>
          <tr><th scope="col">Time</th>${regions ? html`<th scope="col">Region</th>` : nothing}<th scope="col">Result</th><th scope="col">Response</th></tr>
        </thead>
        <tbody>
          ${rows.map(
            (c) => html`<tr>
              <td>${dateTime(c.at)}</td>
              ${regions ? html`<td>${c.region}</td>` : nothing}
              <td>${chip(c.ok ? (c.slow ? "degraded" : "up") : NOT_CHECKED.test(c.error ?? "") ? "refused" : "down")} ${c.statusCode ?? ""}
                ${
                  c.error
                    ? NOT_CHECKED.test(c.error)
                      ? html`<div class="muted">${c.error.replace(/^not checked:\s*/, "")}</div>`
                      : html`<div class="error-text">${c.error}</div>`
                    : c.found
                      ? html`<div class="muted">${c.found}</div>`
                      : nothing
                }</td>
              <td>${c.responseMs === null ? "—" : `${c.responseMs} ms`}</td>
            </tr>`,
          )}
        </tbody>
      </table>
    </div>`;
  }

  #dialogs(site: SiteDetail): TemplateResult {
    const close = () => this.renderRoot.querySelector<HTMLDialogElement>("#delete-site")?.close();
    return html`
      <pl-site-form .site=${site} @pl-saved=${() => {
        this.message = "Saved.";
        void this.#site.refresh();
      }}></pl-site-form>
      ${
        site.protocol === "push"
          ? html`<dialog id="rotate-push" aria-labelledby="rotate-push-title">
            <h2 id="rotate-push-title" style="margin-top:0;overflow-wrap:anywhere">Give ${site.name} a new push address?</h2>
            <p>The current address stops working at once: update your job right after. The new address is shown once.</p>
            <div class="row" style="justify-content:flex-end">
              <button type="button" @click=${() => this.renderRoot.querySelector<HTMLDialogElement>("#rotate-push")?.close()}>Cancel</button>
              <button type="button" class="danger solid" @click=${() => this.#rotate(site)}>Rotate push address</button>
            </div>
          </dialog>`
          : nothing
      }
      <dialog id="delete-site" aria-labelledby="delete-site-title">
        <h2 id="delete-site-title" style="margin-top:0;overflow-wrap:anywhere">Delete ${site.name}?</h2>
        <p>Its checks, history and statistics are deleted with it, and it leaves every status page. This cannot be undone.</p>
        <div class="row" style="justify-content:flex-end">
          <button type="button" @click=${close}>Cancel</button>
          <button type="button" class="danger solid" @click=${() => this.#delete(site)}>Delete site</button>
        </div>
      </dialog>`;
  }
}

customElements.define("pl-site", PlSite);
