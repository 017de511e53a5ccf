import { SiteCreate } from "../contract/site.ts";
import type { AffectedStatus, IncidentImpact } from "../contract/status-page.ts";

/*
 * What an import will create, worked out from the source alone before anything is written: the preview an owner
 * confirms and the list apply.ts writes. Every object has the source's own key for it, so that a second import of
 * the same source finds what the first created (store/imports.ts) and creates nothing twice.
 */

export type ImportSource = "uptime-kuma" | "statuspage" | "gatus";

export interface PlannedSite {
  key: string;
  site: SiteCreate;
  /** What did not carry over exactly, for the report. */
  notes: string[];
}

export interface PlannedItem {
  siteKey: string;
  label: string;
}

export interface PlannedGroup {
  name: string;
  description: string;
  collapsed: boolean;
  items: PlannedItem[];
}

export type PlannedEntry = { group: PlannedGroup } | { item: PlannedItem };

export interface PlannedIncident {
  key: string;
  title: string;
  impact: IncidentImpact;
  startedAt: string;
  resolvedAt: string | null;
  /** Oldest first; the last one's status is the incident's. */
  updates: { status: "investigating" | "identified" | "monitoring" | "resolved"; message: string; at: string }[];
  affected: { siteKey: string; status: AffectedStatus }[];
}

export interface PlannedPage {
  key: string;
  name: string;
  slug: string;
  description: string;
  customDomain: string | null;
  visibility: "public" | "private";
  entries: PlannedEntry[];
  incidents: PlannedIncident[];
}

export interface PlannedWindow {
  key: string;
  title: string;
  description: string;
  /** Local start in timeZone, YYYY-MM-DDTHH:MM. */
  start: string;
  timeZone: string;
  durationMinutes: number;
  recurrence: string | null;
  siteKeys: string[];
}

export type ObjectKind = "site" | "page" | "group" | "item" | "incident" | "maintenance" | "condition" | "setting";

export interface Skip {
  kind: ObjectKind;
  name: string;
  reason: string;
}

export interface ImportPlan {
  source: ImportSource;
  /** What the file was read as, such as "Uptime Kuma 2.x". */
  detected: string;
  sites: PlannedSite[];
  pages: PlannedPage[];
  windows: PlannedWindow[];
  skipped: Skip[];
}

/** Why a source cannot be imported at all (not the tool's file, damaged): nothing is written. */
export class ImportRefused extends Error {}

/** A site as the API would create it, or the first reason the API would give for refusing it. */
export function siteFrom(raw: Record<string, unknown>): { site: SiteCreate } | { problem: string } {
  const parsed = SiteCreate.safeParse(raw);
  if (parsed.success) return { site: parsed.data };
  const issue = parsed.error.issues[0];
  return { problem: `${issue?.path.join(".") || "site"}: ${issue?.message ?? "invalid"}` };
}

/** A whole number of seconds within [min, max], and a note when it had to move. */
export function clamp(value: number, min: number, max: number, what: string, notes: string[]): number {
  const whole = Math.round(value);
  const kept = Math.min(max, Math.max(min, whole));
  if (kept !== whole) notes.push(`${what} ${whole} s is outside ${min} to ${max} s: ${kept} s`);
  return kept;
}

/** A slug from a name: lower-case letters, digits and dashes, at most 64 characters. */
export function slugify(name: string, fallback = "status"): string {
  const slug = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 64)
    .replace(/-+$/, "");
  return slug || fallback;
}

/** HTTP status codes from Uptime Kuma's ranges ("200-299", "301"), within 100-599 and at most 500 of them. */
export function codesFrom(ranges: readonly string[]): number[] | null {
  const codes = new Set<number>();
  for (const range of ranges) {
    const m = /^\s*(\d{3})\s*(?:-\s*(\d{3}))?\s*$/.exec(range);
    if (!m) return null;
    const from = Number(m[1]);
    const to = Number(m[2] ?? m[1]);
    for (let code = Math.max(from, 100); code <= Math.min(to, 599); code++) codes.add(code);
  }
  return codes.size > 0 && codes.size <= 500 ? [...codes].sort((a, b) => a - b) : null;
}

/**
 * A JSONata or Gatus body path of plain names and indexes (`data.items[0].state`) as Porchlight's JSON path
 * (`$.data.items[0].state`); null for an expression it cannot follow (functions, filters, wildcards).
 */
export function jsonPathFrom(path: string): string | null {
  const trimmed = path.trim().replace(/^\$\.?/, "");
  if (trimmed === "") return "$";
  let out = "$";
  for (const part of trimmed.split(".")) {
    const m = /^([A-Za-z_$][\w$-]*)?((?:\[\d{1,6}\])*)$/.exec(part);
    if (!m || (!m[1] && !m[2])) return null;
    if (m[1]) out += `.${m[1]}`;
    out += m[2] ?? "";
  }
  return out;
}

/** An expected value as the JSON it most likely stands for: 42, true, false, null, else the text itself. */
export function jsonValue(text: string): string | number | boolean | null {
  if (/^-?\d+(\.\d+)?$/.test(text)) return Number(text);
  if (text === "true") return true;
  if (text === "false") return false;
  if (text === "null") return null;
  return text;
}
