import { html, type nothing, svg, type TemplateResult } from "lit";
import type { OverviewDay } from "./types.ts";

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

export function dateTime(iso: string): string {
  return new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

export function percent(value: number | null): string {
  return value === null ? "—" : `${value.toFixed(value === 100 ? 0 : 2)}%`;
}

/** The words and colour class of a site's status (never colour alone: the word is always there). */
export const STATUS_LOOK: Record<string, [string, string]> = {
  up: ["Up", "up"],
  down: ["Down", "down"],
  paused: ["Paused", "paused"],
  unknown: ["Not checked yet", "unknown"],
  healthy: ["Healthy", "up"],
  degraded: ["Degraded", "warn"],
  unhealthy: ["Unhealthy", "down"],
};

export function chip(status: string): TemplateResult {
  const [word, look] = STATUS_LOOK[status] ?? [status, "unknown"];
  return html`<span class="chip ${look}">${word}</span>`;
}

/** A small line of daily mean response times; days without a response leave a gap. */
export function sparkline(days: OverviewDay[]): TemplateResult | typeof nothing {
  const values = days.map((d) => d.responseMs);
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
    const x = (i * step).toFixed(1);
    const y = (height - 2 - (v / max) * (height - 4)).toFixed(1);
    path += `${pen ? "L" : "M"}${x} ${y}`;
    pen = true;
  });
  const last = known[known.length - 1] as number;
  const label = `Mean response time over 30 days: ${Math.min(...known)} to ${max} ms; latest day ${last} ms`;
  // A single day is a dot: a path of one point draws nothing.
  const dot = known.length === 1 ? /M([\d.]+) ([\d.]+)/.exec(path) : null;
  return html`<span class="spark" role="img" aria-label=${label}
    ><svg width=${width} height=${height} viewBox="0 0 ${width} ${height}" aria-hidden="true">
      ${dot ? svg`<circle cx=${dot[1]} cy=${dot[2]} r="2.5" fill="currentColor" />` : svg`<path d=${path} fill="none" stroke="currentColor" stroke-width="1.5" stroke-linejoin="round" />`}</svg
    ><span aria-hidden="true">${last} ms</span></span
  >`;
}
