import { css, html, LitElement, type PropertyValues, type TemplateResult, unsafeCSS } from "lit";
import type uPlot from "uplot";
import uPlotCss from "uplot/dist/uPlot.min.css?inline";
import { api, problemText } from "./api.ts";
import { ago, chip, dateTime, percent } from "./format.ts";
import { BASE, navigate } from "./router.ts";
import { POLL_MS } from "./sites.ts";
import { shared } from "./styles.ts";
import type { MeInfo, SiteDetail } from "./types.ts";

interface SiteIncident {
  id: number;
  pageId: number;
  pageName: string;
  title: string;
  status: string;
  automatic: boolean;
  startedAt: string;
  resolvedAt: string | null;
}

interface RecentCheck {
  at: string;
  region: string;
  ok: boolean;
  slow: boolean;
  statusCode: number | null;
  responseMs: number | null;
  error: string | null;
}

const SPANS = [
  ["24h", "24 h", 1],
  ["7d", "7 d", 7],
  ["30d", "30 d", 30],
  ["90d", "90 d", 90],
] as const;
type Span = (typeof SPANS)[number][0];

/**
 * One site: its response times (uPlot) over 24 hours (every check) or 7, 30 or 90 days (daily means), the 90-day
 * bars, its standing conditions, certificate and domain, regions, and its recent checks with their errors.
 */
export class PlSite extends LitElement {
  static override styles = [
    shared,
    unsafeCSS(uPlotCss),
    css`
      .facts {
        display: grid;
        grid-template-columns: repeat(auto-fit, minmax(12rem, 1fr));
        gap: 0.75rem;
      }
      .facts div {
        background: var(--panel);
        border: 1px solid var(--line);
        border-radius: var(--radius);
        padding: 0.75rem;
      }
      .facts dt {
        color: var(--muted);
        font-size: 0.85rem;
      }
      .facts dd {
        margin: 0.2rem 0 0;
        font-weight: 600;
      }
      .spans {
        display: inline-flex;
        border: 1px solid var(--line);
        border-radius: 6px;
        overflow: hidden;
      }
      .spans button {
        border: 0;
        border-radius: 0;
      }
      .spans button[aria-pressed="true"] {
        background: var(--accent);
        color: var(--accent-text);
      }
      .chart {
        min-height: 240px;
      }
      .u-legend {
        color: var(--text);
      }
      .bars {
        display: flex;
        gap: 2px;
        height: 34px;
        align-items: stretch;
      }
      .bars span {
        flex: 1;
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
      td.error-text {
        color: var(--down);
        word-break: break-word;
      }
    `,
  ];

  static override properties = {
    me: { attribute: false },
    siteId: { attribute: false },
    site: { state: true },
    checks: { state: true },
    incidents: { state: true },
    span: { state: true },
    error: { state: true },
  };

  declare me: MeInfo;
  declare siteId: string;
  declare site: SiteDetail | null;
  declare checks: RecentCheck[] | null;
  declare incidents: SiteIncident[];
  declare span: Span;
  declare error: string;

  #plot: uPlot | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #etag: string | null = null;

  constructor() {
    super();
    this.site = null;
    this.checks = null;
    this.incidents = [];
    this.span = "24h";
    this.error = "";
  }

  override connectedCallback(): void {
    super.connectedCallback();
    document.addEventListener("visibilitychange", this.#onVisibility);
    void this.#load();
  }

  override disconnectedCallback(): void {
    document.removeEventListener("visibilitychange", this.#onVisibility);
    clearTimeout(this.#timer);
    this.#plot?.destroy();
    super.disconnectedCallback();
  }

  readonly #onVisibility = () => {
    if (!document.hidden) void this.#load();
  };

  async #load(): Promise<void> {
    clearTimeout(this.#timer);
    try {
      const [detail, checks, incidents] = await Promise.all([
        api<SiteDetail>("GET", `/public/v1/site/${encodeURIComponent(this.siteId)}?statDays=90`, undefined, {
          etag: this.#etag,
        }),
        api<RecentCheck[]>("GET", `/public/v1/site/${encodeURIComponent(this.siteId)}/checks?hours=24`),
        api<SiteIncident[]>("GET", `/public/v1/site/${encodeURIComponent(this.siteId)}/incidents`),
      ]);
      this.incidents = incidents.data;
      if (!detail.notModified) {
        this.site = detail.data;
        this.#etag = detail.etag;
      }
      this.checks = checks.data;
      this.error = "";
    } catch (error) {
      this.error = problemText(error);
    }
    // Not once the screen is gone (a load may end after it was left), nor while the tab is hidden (it comes back).
    if (this.isConnected && !document.hidden) this.#timer = setTimeout(() => void this.#load(), POLL_MS * 2);
  }

  protected override updated(changed: PropertyValues): void {
    if (changed.has("site") || changed.has("checks") || changed.has("span")) void this.#draw();
  }

  /** The chart's series: every check's response time over 24 h, else each day's mean. */
  #series(): [number[], (number | null)[]] {
    if (this.span === "24h") {
      const rows = [...(this.checks ?? [])].reverse();
      return [rows.map((c) => Date.parse(c.at) / 1000), rows.map((c) => c.responseMs)];
    }
    const days = SPANS.find(([key]) => key === this.span)?.[2] ?? 30;
    const stats = (this.site?.stat ?? []).slice(-days);
    return [stats.map((s) => Date.parse(`${s.date}T12:00:00Z`) / 1000), stats.map((s) => s.responseTimeMs)];
  }

  /** A custom property's colour as the canvas can take it (light-dark() resolved for the current scheme). */
  #colour(name: string, fallback: string): string {
    const probe = document.createElement("span");
    probe.style.color = `var(${name}, ${fallback})`;
    this.renderRoot.appendChild(probe);
    const colour = getComputedStyle(probe).color;
    probe.remove();
    return colour || fallback;
  }

  async #draw(): Promise<void> {
    const target = this.renderRoot.querySelector<HTMLElement>(".chart");
    if (!target || !this.site) return;
    const { default: UPlot } = await import("uplot");
    const line = this.#colour("--accent", "#0b57d0");
    const grid = this.#colour("--line", "#d1d9e0");
    const text = this.#colour("--muted", "#59636e");
    const data = this.#series();
    const nowSeconds = Date.now() / 1000;
    const days = SPANS.find(([key]) => key === this.span)?.[2] ?? 1;
    const width = Math.max(280, target.clientWidth - 2);
    this.#plot?.destroy();
    const axis = { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
    this.#plot = new UPlot(
      {
        width,
        height: 220,
        series: [
          {},
          {
            label: this.span === "24h" ? "Response time (ms)" : "Daily mean (ms)",
            stroke: line,
            width: 2,
            spanGaps: false,
            points: { show: this.span !== "24h" || data[0].length < 30, fill: line },
          },
        ],
        axes: [axis, { ...axis, size: 56 }],
        scales: {
          // The whole span, whatever part of it has data, so that a young site's few checks sit at the right end.
          x: { time: true, range: () => [nowSeconds - days * 86_400, nowSeconds] },
          y: { range: (_u, _min, max) => [0, Math.max(100, (max ?? 0) * 1.1)] },
        },
        cursor: { drag: { x: false, y: false } },
      },
      data as uPlot.AlignedData,
      target,
    );
  }

  override render(): TemplateResult {
    const back = html`<a class="back" href=${BASE} @click=${(e: MouseEvent) => {
      e.preventDefault();
      navigate(BASE);
    }}>← Sites</a>`;
    if (this.error && !this.site) return html`${back}<p class="notice bad" role="alert">${this.error}</p>`;
    const site = this.site;
    if (!site) return html`${back}<p class="muted">Loading…</p>`;
    const summary = site.uptimeSummary;
    return html`
      ${back}
      <div class="bar">
        <div>
          <h1>${site.name}</h1>
          <p class="muted" style="word-break:break-all">${site.url}</p>
        </div>
        <div>${chip(site.status === "up" && site.state === "degraded" ? "degraded" : site.status)}</div>
      </div>
      <p>${site.healthSummary}</p>
      <dl class="facts">
        <div><dt>Uptime (90 d)</dt><dd>${percent(summary.uptimePercentage)}</dd></div>
        <div><dt>Downtime (90 d)</dt><dd>${Math.round(summary.totalDowntimeMinutes)} min</dd></div>
        <div><dt>Last check</dt><dd>${ago(site.lastCheckTime)}</dd></div>
        <div><dt>Checked every</dt><dd>${site.checkInterval} s from ${site.regions.join(", ")}</dd></div>
        <div><dt>Certificate</dt><dd>${site.sslInfo ? html`${site.sslInfo.daysRemaining} days left <small class="muted">(${site.sslInfo.issuer})</small>` : "—"}</dd></div>
        <div><dt>Domain</dt><dd>${site.domain?.expiresAt ? html`Expires ${dateTime(site.domain.expiresAt)}` : "—"}</dd></div>
      </dl>

      <h2 id="chart-title">Response time</h2>
      <div class="row" style="justify-content:space-between">
        <div class="spans" role="group" aria-label="Time span">
          ${SPANS.map(
            ([key, label]) =>
              html`<button type="button" aria-pressed=${this.span === key ? "true" : "false"} @click=${() => (this.span = key)}>${label}</button>`,
          )}
        </div>
      </div>
      <div class="panel chart" role="img" aria-labelledby="chart-title"></div>

      <h2>Last 90 days</h2>
      ${this.#bars()}

      <h2>Conditions</h2>
      ${
        site.conditions.length === 0
          ? html`<p class="muted">No standing condition.</p>`
          : html`<ul>
            ${site.conditions.map((c) => html`<li><strong class=${`level-${c.level}`}>${c.level}</strong>: ${c.summary} <span class="muted">since ${ago(c.since)}</span></li>`)}
          </ul>`
      }

      <h2>Incidents</h2>
      ${this.#incidents()}

      <h2>Recent checks</h2>
      ${this.#recent()}
    `;
  }

  #bars(): TemplateResult {
    const byDay = new Map((this.site?.stat ?? []).map((s) => [s.date, s]));
    const today = new Date();
    const cells = Array.from({ length: 90 }, (_, i) => {
      const day = new Date(today.getTime() - (89 - i) * 86_400_000).toISOString().slice(0, 10);
      const s = byDay.get(day);
      const look = !s || s.checks === 0 ? "" : s.upRate >= 0.999 ? "ok" : s.upRate >= 0.95 ? "some" : "bad";
      const label = s && s.checks > 0 ? `${day}: ${(s.upRate * 100).toFixed(2)}% up` : `${day}: no data`;
      return html`<span class=${look} title=${label}></span>`;
    });
    return html`<div class="bars" role="img" aria-label="Daily uptime over the last 90 days">${cells}</div>`;
  }

  #incidents(): TemplateResult {
    if (this.incidents.length === 0) return html`<p class="muted">No incident.</p>`;
    return html`<ul>
      ${this.incidents.map(
        (i) => html`<li>
          <strong>${i.title}</strong> <span class="chip ${i.resolvedAt ? "up" : "warn"}">${i.status}</span>
          <span class="muted">on ${i.pageName} · ${dateTime(i.startedAt)}${i.resolvedAt ? ` to ${dateTime(i.resolvedAt)}` : ""}${i.automatic ? " · opened by the engine" : ""}</span>
        </li>`,
      )}
    </ul>`;
  }

  #recent(): TemplateResult {
    const rows = (this.checks ?? []).slice(0, 50);
    if (rows.length === 0) return html`<p class="muted">No check in the last 24 hours.</p>`;
    return html`<div class="panel" style="padding:0.25rem 0.75rem">
      <table class="responsive">
        <thead>
          <tr><th scope="col">Time</th><th scope="col">Region</th><th scope="col">Result</th><th scope="col">Response</th><th scope="col">Error</th></tr>
        </thead>
        <tbody>
          ${rows.map(
            (c) => html`<tr>
              <td data-label="Time">${dateTime(c.at)}</td>
              <td data-label="Region">${c.region}</td>
              <td data-label="Result">${chip(c.ok ? (c.slow ? "degraded" : "up") : "down")} ${c.statusCode ?? ""}</td>
              <td data-label="Response">${c.responseMs === null ? "—" : `${c.responseMs} ms`}</td>
              <td data-label="Error" class="error-text">${c.error ?? ""}</td>
            </tr>`,
          )}
        </tbody>
      </table>
    </div>`;
  }
}

customElements.define("pl-site", PlSite);
