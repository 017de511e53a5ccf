import { css, html, LitElement, nothing, type PropertyValues, svg, type TemplateResult } from "lit";
import { nearest, type Point, type Range, type Series, timeDomain, timeTicks, valueAxis } from "./chart-scale.ts";

const HEIGHT = 220;
const PAD = { left: 52, right: 12, top: 12, bottom: 26 };
/** One colour per line, each at least 3:1 against the panel in both schemes; the words in the legend carry it too. */
const COLOURS = [
  "var(--accent)",
  "light-dark(#b35900, #f0883e)",
  "light-dark(#8250df, #bc8cff)",
  "light-dark(#1a7f37, #3fb950)",
];

/**
 * The response-time chart, drawn as SVG at the width it is given (no chart library to download): lines, a value axis
 * from 0 to a round number above the largest value, a time axis that starts at the first point, and a legend in words
 * that follows the pointer or the arrow keys and otherwise names the latest point.
 */
export class PlResponseChart extends LitElement {
  static override styles = css`
    :host {
      display: block;
    }
    figure {
      margin: 0;
    }
    .plot {
      outline-offset: 2px;
      touch-action: pan-y;
    }
    svg {
      display: block;
      overflow: visible;
    }
    .grid {
      stroke: var(--line);
      stroke-width: 1;
    }
    .tick {
      fill: var(--muted);
      font-size: 11px;
    }
    .cursor {
      stroke: var(--muted);
      stroke-dasharray: 3 3;
    }
    figcaption {
      display: flex;
      flex-wrap: wrap;
      gap: 0.25rem 1rem;
      margin-top: 0.5rem;
      font-size: 0.9rem;
    }
    .key {
      display: inline-flex;
      align-items: center;
      gap: 0.35rem;
    }
    .swatch {
      width: 1.25rem;
      height: 0;
      border-top: 2px solid currentColor;
    }
    .fail,
    .mark {
      fill: var(--down);
      background: var(--down);
    }
    .band {
      opacity: 0.18;
    }
    .mark {
      width: 3px;
      height: 0.75rem;
    }
    .swatch.dashed {
      border-top-style: dashed;
    }
    .legend {
      width: 100%;
      margin: 0.25rem 0 0;
      overflow-wrap: anywhere;
    }
  `;

  static override properties = {
    series: { attribute: false },
    range: { attribute: false },
    now: { attribute: false },
    daily: { attribute: false },
    failures: { attribute: false },
    measure: { attribute: false },
    width: { state: true },
    cursor: { state: true },
  };

  declare series: Series[];
  declare range: Range;
  /** The chart's right edge (ms since the epoch), given so that what is drawn does not depend on when it renders. */
  declare now: number;
  /** The points are UTC days (daily means), not single checks. */
  declare daily: boolean;
  /** When checks failed (ms since the epoch): marks along the bottom, not points of the line, which is how fast it answered when it worked. */
  declare failures: number[];
  /** What the line measures, as its title says it ("Response time", "Query time", "Round trip"...). */
  declare measure: string;
  declare width: number;
  /** The time the legend names, under the pointer or chosen by the arrow keys; null: the latest point. */
  declare cursor: number | null;

  readonly #resize = new ResizeObserver(([entry]) => {
    if (entry) this.width = Math.floor(entry.contentRect.width);
  });

  constructor() {
    super();
    this.series = [];
    this.daily = false;
    this.failures = [];
    this.measure = "Response time";
    this.now = Date.now();
    this.width = 0;
    this.cursor = null;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    this.#resize.observe(this);
  }

  override disconnectedCallback(): void {
    this.#resize.disconnect();
    super.disconnectedCallback();
  }

  protected override willUpdate(changed: PropertyValues): void {
    if (changed.has("range")) this.cursor = null;
  }

  /** "14:05 CET", or "Nov 28, 14:05 CET" beyond a day, or "Nov 28 (UTC day)" for a daily mean. */
  #when(at: number): string {
    if (this.daily) {
      const day = new Date(at).toLocaleDateString(undefined, { month: "short", day: "numeric", timeZone: "UTC" });
      return `${day} (UTC day)`;
    }
    const long = this.range.ms > 86_400_000;
    return new Date(at).toLocaleString(undefined, {
      ...(long ? { month: "short", day: "numeric" } : {}),
      hour: "numeric",
      minute: "2-digit",
      timeZoneName: "short",
    });
  }

  #tickLabel(at: number): string {
    if (this.daily || this.range.ms > 86_400_000) {
      return new Date(at).toLocaleDateString(undefined, {
        month: "short",
        day: "numeric",
        ...(this.daily ? { timeZone: "UTC" } : {}),
      });
    }
    return new Date(at).toLocaleTimeString(undefined, { hour: "numeric", minute: "2-digit" });
  }

  /** The legend's sentence: each line's value at the cursor (or its latest), and when. */
  #legend(): string {
    const lines = this.series.filter((s) => s.points.length > 0);
    if (lines.length === 0) {
      return this.failures.length > 0
        ? `No successful check in this range: ${this.failures.length} failed.`
        : `No ${this.measure.toLowerCase()} in this range yet.`;
    }
    const at =
      this.cursor ?? Math.max(...lines.map((s) => s.points[s.points.length - 1]?.[0] ?? Number.NEGATIVE_INFINITY));
    // One unnamed line reads "12 ms"; several name theirs: "eu-west 12 ms, us-east 40 ms".
    const named = !(lines.length === 1 && lines[0]?.label === this.measure);
    const values = lines.map((s) => {
      const ms = (nearest(s, at) as Point)[1];
      return `${named ? `${s.label} ` : ""}${ms === null ? "no answer" : `${ms} ms`}`;
    });
    const title = this.daily ? `Daily mean ${this.measure.toLowerCase()}` : this.measure;
    return `${title}, ms: ${values.join(", ")} at ${this.#when((nearest(lines[0] as Series, at) as Point)[0])}`;
  }

  #onPointer(event: PointerEvent, domain: [number, number], plotWidth: number): void {
    const box = (event.currentTarget as Element).getBoundingClientRect();
    const x = Math.min(Math.max(event.clientX - box.left - PAD.left, 0), plotWidth);
    this.cursor = domain[0] + (x / plotWidth) * (domain[1] - domain[0]);
  }

  /** Left and right step through the first line's points; Home and End go to its first and last. */
  #onKey(event: KeyboardEvent): void {
    const points = this.series.find((s) => s.points.length > 0)?.points ?? [];
    if (points.length === 0) return;
    const current = this.cursor ?? (points[points.length - 1] as Point)[0];
    let index = points.indexOf(nearest({ label: "", points }, current) as Point);
    if (event.key === "ArrowLeft") index -= 1;
    else if (event.key === "ArrowRight") index += 1;
    else if (event.key === "Home") index = 0;
    else if (event.key === "End") index = points.length - 1;
    else return;
    event.preventDefault();
    this.cursor = (points[Math.min(points.length - 1, Math.max(0, index))] as Point)[0];
  }

  override render(): TemplateResult {
    const width = Math.max(this.width, 200);
    const plotWidth = width - PAD.left - PAD.right;
    const plotHeight = HEIGHT - PAD.top - PAD.bottom;
    const failed: Series = { label: "Failed check", points: this.failures.map((at) => [at, null]) };
    const domain = timeDomain([...this.series, failed], this.range, this.now);
    const axis = valueAxis(this.series);
    const x = (at: number) => PAD.left + ((at - domain[0]) / (domain[1] - domain[0])) * plotWidth;
    const y = (ms: number) => PAD.top + plotHeight - (ms / axis.max) * plotHeight;
    const offset = this.daily ? 0 : -new Date(this.now).getTimezoneOffset();
    const ticks = timeTicks(domain, Math.max(2, Math.floor(plotWidth / 75)), offset);
    const paths = this.series.map((s, i) => {
      let d = "";
      let pen = false;
      for (const [at, ms] of s.points) {
        if (at < domain[0] || ms === null) {
          pen = false;
          continue;
        }
        d += `${pen ? "L" : "M"}${x(at).toFixed(1)} ${y(ms).toFixed(1)}`;
        pen = true;
      }
      const colour = COLOURS[(s.dashed ? i - 1 : i) % COLOURS.length];
      // A lone point (or a point between gaps) is a dot, as a path of one point draws nothing.
      const dots = s.points.length < 40 ? s.points.filter(([at, ms]) => ms !== null && at >= domain[0]) : [];
      return svg`<g class="series" data-label=${s.label} style=${`color:${colour}`}>
        <path d=${d} fill="none" stroke="currentColor" stroke-width="2" stroke-linejoin="round"
          stroke-dasharray=${s.dashed ? "5 4" : nothing} />
        ${dots.map(([at, ms]) => svg`<circle cx=${x(at).toFixed(1)} cy=${y(ms as number).toFixed(1)} r="2.5" fill="currentColor" />`)}
      </g>`;
    });
    const cursorX = this.cursor === null ? null : x(this.cursor);
    const legend = this.#legend();
    return html`<figure>
      <div
        class="plot"
        tabindex="0"
        role="img"
        aria-label=${`${this.measure} chart. ${legend}. Use the arrow keys to read other points.`}
        @pointermove=${(e: PointerEvent) => this.#onPointer(e, domain, plotWidth)}
        @pointerleave=${() => (this.cursor = null)}
        @keydown=${(e: KeyboardEvent) => this.#onKey(e)}
      >
        <svg width=${width} height=${HEIGHT} aria-hidden="true" data-y-max=${axis.max}
          data-plot-left=${PAD.left} data-plot-width=${plotWidth}>
          ${axis.ticks.map(
            (v) => svg`<line class="grid" x1=${PAD.left} x2=${PAD.left + plotWidth} y1=${y(v)} y2=${y(v)} />
              <text class="tick" x=${PAD.left - 6} y=${y(v) + 4} text-anchor="end">${v} ms</text>`,
          )}
          ${ticks.map(
            (
              t,
            ) => svg`<line class="grid" x1=${x(t)} x2=${x(t)} y1=${PAD.top + plotHeight} y2=${PAD.top + plotHeight + 4} />
              <text class="tick" x=${x(t)} y=${HEIGHT - 6} text-anchor="middle">${this.#tickLabel(t)}</text>`,
          )}
          ${paths}
          ${this.failures
            .filter((at) => at >= domain[0])
            .map(
              (
                at,
              ) => svg`<rect class="fail band" x=${(x(at) - 1.5).toFixed(1)} y=${PAD.top} width="3" height=${plotHeight} />
                <rect class="fail" x=${(x(at) - 1.5).toFixed(1)} y=${PAD.top + plotHeight - 8} width="3" height="8" />`,
            )}
          ${cursorX === null ? nothing : svg`<line class="cursor" x1=${cursorX} x2=${cursorX} y1=${PAD.top} y2=${PAD.top + plotHeight} />`}
        </svg>
      </div>
      <figcaption>
        ${this.series.map((s, i) =>
          s.points.length === 0
            ? nothing
            : html`<span class="key" style=${`color:${COLOURS[(s.dashed ? i - 1 : i) % COLOURS.length]}`}
              ><span class="swatch ${s.dashed ? "dashed" : ""}"></span><span style="color:var(--text)">${s.label}</span></span
            >`,
        )}
        ${
          this.failures.length > 0
            ? html`<span class="key" style="color:var(--down)"><span class="mark"></span><span style="color:var(--text)"
                  >Failed check (${this.failures.length})</span></span>`
            : nothing
        }
        <p class="legend">${legend}</p>
      </figcaption>
    </figure>`;
  }
}

customElements.define("pl-response-chart", PlResponseChart);
