import { html, type nothing, svg, type TemplateResult } from "lit";
import type { OverviewDay, SiteOverview } from "./types.ts";

const relative = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });

/** "12 seconds ago", "in 3 minutes": the time from now to `iso`, in the browser's language. */
export function ago(iso: string | null, now = Date.now()): string {
  if (!iso) return "never";
  const seconds = Math.round((Date.parse(iso) - now) / 1000);
  const abs = Math.abs(seconds);
  if (abs < 60) return relative.format(seconds, "second");
  if (abs < 3600) return relative.format(Math.round(seconds / 60), "minute");
  if (abs < 86_400) return relative.format(Math.round(seconds / 3600), "hour");
  return relative.format(Math.round(seconds / 86_400), "day");
}

/**
 * A moment as a person reads it, always naming its zone ("28 Nov 2026, 14:05 CET"): the browser's zone unless
 * `timeZone` (an IANA name) says which, as a maintenance window's times are shown in the zone they were entered in.
 */
export function dateTime(iso: string, timeZone?: string): string {
  const date = new Date(iso);
  const options: Intl.DateTimeFormatOptions = {
    year: "numeric",
    month: "short",
    day: "numeric",
    hour: "numeric",
    minute: "2-digit",
    timeZoneName: "short",
  };
  try {
    return date.toLocaleString(undefined, timeZone ? { ...options, timeZone } : options);
  } catch {
    // A zone this browser does not know: the browser's own, still named.
    return date.toLocaleString(undefined, options);
  }
}

/**
 * Uptime, one precision everywhere: two decimals, cut rather than rounded so that 99.999 reads "99.99%" and only a
 * perfect record reads "100%".
 */
export function percent(value: number | null): string {
  if (value === null) return "—";
  if (value >= 100) return "100%";
  return `${(Math.floor(value * 100 + 1e-6) / 100).toFixed(2)}%`;
}

/** The words and colour class of a site's status (never colour alone: the word is always there). */
export const STATUS_LOOK: Record<string, [string, string]> = {
  up: ["Up", "up"],
  down: ["Down", "down"],
  paused: ["Paused", "paused"],
  unknown: ["Not checked yet", "unknown"],
  refused: ["Not checked", "unknown"],
  healthy: ["Healthy", "up"],
  degraded: ["Degraded", "warn"],
  unhealthy: ["Unhealthy", "down"],
};

/** Whether the server refuses to check a site by its address policy (the engine's "Not checked: …" summary). */
export const refused = (site: { status: string; healthSummary: string }) =>
  site.status === "unknown" && site.healthSummary.startsWith("Not checked:");

export function chip(status: string): TemplateResult {
  const [word, look] = STATUS_LOOK[status] ?? [status, "unknown"];
  return html`<span class="chip ${look}">${word}</span>`;
}

type OverviewHour = SiteOverview["recent"][number];

const HOUR_MS = 3_600_000;

/**
 * A small line of mean response times: by day over 30 days, or, while fewer than two days have one (a site's first
 * day), by hour over the last 24 hours, so a new site draws a line rather than a dot. Its axis runs from the first
 * value to the last; a day or hour without a response leaves a gap.
 */
export function sparkline(days: OverviewDay[], recent: OverviewHour[] = []): TemplateResult | typeof nothing {
  const daily = days.map((d) => d.responseMs);
  if (daily.filter((v) => v !== null).length < 2 && recent.length > 0) {
    const first = Date.parse((recent[0] as OverviewHour).at);
    const hourly: (number | null)[] = [];
    for (const h of recent) hourly[Math.round((Date.parse(h.at) - first) / HOUR_MS)] = h.responseMs;
    return drawSparkline(
      Array.from(hourly, (v) => v ?? null),
      "Mean response time by hour over the last 24 hours",
      "hour",
    );
  }
  return drawSparkline(daily, "Mean response time over 30 days", "day");
}

function drawSparkline(values: (number | null)[], what: string, unit: "day" | "hour"): TemplateResult {
  const known = values.filter((v): v is number => v !== null);
  if (known.length === 0) return html`<span class="muted">—</span>`;
  const max = Math.max(...known, 1);
  const width = 120;
  const height = 28;
  const step = width / Math.max(1, values.length - 1);
  let path = "";
  let pen = false;
  values.forEach((v, i) => {
    if (v === null) {
      pen = false;
      return;
    }
    // A lone value is the latest: drawn at the right end, beside its figure, not at the start of an empty axis.
    const x = (values.length === 1 ? width - 3 : i * step).toFixed(1);
    const y = (height - 2 - (v / max) * (height - 4)).toFixed(1);
    path += `${pen ? "L" : "M"}${x} ${y}`;
    pen = true;
  });
  const last = known[known.length - 1] as number;
  const label = `${what}: ${Math.min(...known)} to ${max} ms; latest ${unit} ${last} ms`;
  // A single value is a dot: a path of one point draws nothing.
  const dot = known.length === 1 ? /M([\d.]+) ([\d.]+)/.exec(path) : null;
  return html`<span class="spark" role="img" aria-label=${label} title=${label}
    ><svg width=${width} height=${height} viewBox="0 0 ${width} ${height}" aria-hidden="true">
      ${dot ? svg`<circle cx=${dot[1]} cy=${dot[2]} r="2.5" fill="currentColor" />` : svg`<path d=${path} fill="none" stroke="currentColor" stroke-width="1.5" stroke-linejoin="round" />`}</svg
    ><span aria-hidden="true">${last} ms</span></span
  >`;
}
