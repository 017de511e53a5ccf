/**
 * The sites list's decisions, pure so they are tested with tables of cases: a site's severity, the order of the
 * list, the overview's counts in words, the duplicate-address warning, a site's address as the list reads it, and
 * the form's codes, tags, addresses and expected values as typed.
 */
import type { Protocol } from "../../../../server/contract/monitor.ts";
import type { SiteOverview } from "../../../../server/contract/site.ts";

/** What the list shows of a site's state, most severe first: the order of the overview and the default sort. */
export const SEVERITY = ["down", "degraded", "unknown", "up", "paused"] as const;
export type Severity = (typeof SEVERITY)[number];

/** The overview's word for each severity ("2 down · 1 degraded · 1 not checked · 5 up · 1 paused"). */
export const SEVERITY_WORD: Record<Severity, string> = {
  down: "down",
  degraded: "degraded",
  unknown: "not checked",
  up: "up",
  paused: "paused",
};

/** A site's severity: the visitor-facing status, with "up but slow or partly failing" told apart as degraded. */
export function severityOf(site: Pick<SiteOverview["site"], "status" | "state">): Severity {
  if (site.status === "up" && site.state === "degraded") return "degraded";
  return site.status;
}

/** The columns the list sorts by. */
export type SortKey = "status" | "name" | "uptime" | "response" | "lastCheck";
export interface Sort {
  key: SortKey;
  /** "ascending" puts the most severe, A, the lowest uptime, the fastest and the oldest check first. */
  direction: "ascending" | "descending";
}

/** The order the list opens in: the sites at fault first. */
export const DEFAULT_SORT: Sort = { key: "status", direction: "ascending" };

/** The latest day's mean response time, as the sparkline's figure shows it; null when no day had one. */
export function latestResponse(row: Pick<SiteOverview, "days">): number | null {
  for (let i = row.days.length - 1; i >= 0; i--) {
    const ms = row.days[i]?.responseMs;
    if (ms !== null && ms !== undefined) return ms;
  }
  return null;
}

const byName = new Intl.Collator(undefined, { sensitivity: "base", numeric: true });

/** The value compared for a column; null (no data yet) always sorts last, whichever the direction. */
function sortValue(row: SiteOverview, key: SortKey): number | string | null {
  switch (key) {
    case "status":
      return SEVERITY.indexOf(severityOf(row.site));
    case "name":
      return row.site.name;
    case "uptime":
      return row.uptime;
    case "response":
      return latestResponse(row);
    case "lastCheck":
      return row.site.lastCheckTime === null ? null : Date.parse(row.site.lastCheckTime);
  }
}

/** The rows in `sort`'s order; ties (and rows without a value) by name, then by id so the order never jumps. */
export function sortRows(rows: readonly SiteOverview[], sort: Sort = DEFAULT_SORT): SiteOverview[] {
  const sign = sort.direction === "ascending" ? 1 : -1;
  const tie = (a: SiteOverview, b: SiteOverview) =>
    byName.compare(a.site.name, b.site.name) || (a.site.id < b.site.id ? -1 : a.site.id > b.site.id ? 1 : 0);
  return [...rows].sort((a, b) => {
    const x = sortValue(a, sort.key);
    const y = sortValue(b, sort.key);
    if (x === null || y === null) return x === y ? tie(a, b) : x === null ? 1 : -1;
    const order = typeof x === "string" ? byName.compare(x, String(y)) : x - (y as number);
    return order * sign || tie(a, b);
  });
}

/** How many sites are in each severity. */
export function countBySeverity(rows: readonly SiteOverview[]): Record<Severity, number> {
  const counts = Object.fromEntries(SEVERITY.map((s) => [s, 0])) as Record<Severity, number>;
  for (const row of rows) counts[severityOf(row.site)]++;
  return counts;
}

/**
 * An address as two owners would recognise it as the same: scheme and host compared as URL parsing writes them
 * (lower case, default port dropped), the fragment ignored (never sent), one trailing slash of the path ignored.
 * The scheme counts: http:// and https:// of one host are two checks (one of them often the redirect).
 */
export function addressKey(url: string): string | null {
  if (!URL.canParse(url.trim())) return null;
  const u = new URL(url.trim());
  // A tcp, tls, dns or icmp address is its host (and port); push:// names no target, so no two are the same.
  if (/^(tcp|tls|dns|icmp):$/.test(u.protocol)) return u.host === "" ? null : `${u.protocol}//${u.host.toLowerCase()}`;
  if (u.protocol !== "http:" && u.protocol !== "https:") return null;
  const path = u.pathname.replace(/\/$/, "");
  return `${u.protocol}//${u.host}${path}${u.search}`;
}

/** The kinds of check the form offers: http stands for http:// and https:// (the address says which). */
export type Kind = Exclude<Protocol, "https">;

/** A site's kind of check, from its protocol. */
export const kindOf = (protocol: Protocol): Kind => (protocol === "https" ? "http" : protocol);

/** A scheme typed by the owner ("tcp://", "https://"): such an address is sent as typed. */
const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;

/**
 * The address the API is sent for what the owner typed in the form's address box: http(s) as typed; for the other
 * kinds the box holds the host (and port), and the scheme is the kind's, unless the owner typed a scheme themselves
 * (then it goes as typed, and the API's message names what is wrong with it); push:// alone for a push site.
 */
export function monitorUrl(kind: Kind, typed: string): string {
  const text = typed.trim();
  if (kind === "push") return "push://";
  if (kind === "http" || SCHEME.test(text)) return text;
  return `${kind}://${text}`;
}

/** What the form's address box holds for a stored address: the host (and port) of a non-http address. */
export function typedAddress(kind: Kind, url: string): string {
  if (kind === "http") return url;
  if (kind === "push") return "";
  return url.replace(SCHEME, "").replace(/\/$/, "");
}

/** The host (and port) of a non-http address as the owner typed it; the address itself when it does not parse. */
function hostPart(url: string): string {
  if (!URL.canParse(url)) return url;
  const u = new URL(url);
  return u.host || url;
}

/** The list's and the site screen's words for a kind. */
export const KIND_WORD: Record<Kind, string> = {
  http: "Website",
  tcp: "TCP port",
  tls: "TLS port",
  dns: "DNS record",
  icmp: "Ping",
  push: "Push heartbeat",
};

/**
 * A site's address as the list shows it: an http(s) address as it is; the others by kind and target
 * ("tcp mail.example.com:587", "dns example.com (MX)", "ping 192.0.2.7", "push heartbeat").
 */
export function addressLabel(site: { url: string; protocol: Protocol; dns: { recordType: string } | null }): string {
  switch (site.protocol) {
    case "http":
    case "https":
      return site.url;
    case "tcp":
    case "tls":
      return `${site.protocol} ${hostPart(site.url)}`;
    case "dns":
      return `dns ${hostPart(site.url)}${site.dns ? ` (${site.dns.recordType})` : ""}`;
    case "icmp":
      return `ping ${hostPart(site.url)}`;
    case "push":
      return "push heartbeat";
  }
}

/** A JSON assertion's expected value as stored: what the form's box shows (a text that reads as JSON is quoted). */
export function formatExpected(value: string | number | boolean | null | undefined): string {
  if (value === undefined) return "";
  if (typeof value !== "string") return JSON.stringify(value);
  return parseExpected(value) === value ? value : JSON.stringify(value);
}

/**
 * A JSON assertion's expected value as typed: a number, true, false, null or a quoted "text" is read as JSON; any
 * other text is the text itself; empty is no value (the path only has to exist).
 */
export function parseExpected(typed: string): string | number | boolean | null | undefined {
  if (typed === "") return undefined;
  try {
    const value: unknown = JSON.parse(typed);
    if (value === null || ["string", "number", "boolean"].includes(typeof value)) {
      return value as string | number | boolean | null;
    }
  } catch {
    // Not JSON: the text itself.
  }
  return typed;
}

/** A DNS check's expected values as typed, one a line: trimmed, empty lines dropped. */
export const splitLines = (text: string): string[] =>
  text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean);

/** The first other site monitoring the same address as `url`, for the form's warning (not a refusal). */
export function sameAddress<S extends { id: string; url: string }>(
  url: string,
  sites: readonly S[],
  self: string | null,
): S | undefined {
  const key = addressKey(url);
  if (key === null) return undefined;
  return sites.find((s) => s.id !== self && addressKey(s.url) === key);
}

/**
 * The expected status codes as typed ("200-299, 301"): each part a code or a range, expanded. A part that is neither
 * is passed on as typed, so the API's message (the one validator) names it beside the field.
 */
export function parseCodes(text: string): (number | string)[] {
  const codes: (number | string)[] = [];
  for (const part of text.split(/[\s,]+/).filter(Boolean)) {
    const range = /^(\d{3})-(\d{3})$/.exec(part);
    if (range) {
      const [from, to] = [Number(range[1]), Number(range[2])];
      for (let code = Math.min(from, to); code <= Math.max(from, to); code++) codes.push(code);
    } else if (/^\d+$/.test(part)) codes.push(Number(part));
    else codes.push(part);
  }
  return [...new Set(codes)];
}

/** Codes as an owner reads and types them: runs of consecutive codes as ranges ("200-208, 226"). */
export function formatCodes(codes: readonly number[]): string {
  const sorted = [...new Set(codes)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === (sorted[j] as number) + 1) j++;
    parts.push(j > i ? `${sorted[i]}-${sorted[j]}` : String(sorted[i]));
    i = j + 1;
  }
  return parts.join(", ");
}

/** Tags as typed into the form's box ("api, eu"): split on commas, trimmed, empty parts dropped. */
export function splitTags(text: string): string[] {
  return text
    .split(",")
    .map((t) => t.trim())
    .filter(Boolean);
}

/** `tags` with `more` added, compared as the API stores them (lower case), in the order given. */
export function addTags(tags: readonly string[], more: readonly string[]): string[] {
  const out = [...tags];
  for (const tag of more) if (!out.some((t) => t.toLowerCase() === tag.toLowerCase())) out.push(tag);
  return out;
}

/** One item's failure in a bulk action. */
export interface Failure<T> {
  item: T;
  error: unknown;
}

/**
 * Runs `action` on every item, at most `limit` at once (a bulk action on 200 sites is not 200 requests at the same
 * instant, and the API's rate limit is shared with the owner's other tabs), and resolves once all have settled with
 * the items that failed and why.
 */
export async function eachLimited<T>(
  items: readonly T[],
  limit: number,
  action: (item: T) => Promise<unknown>,
): Promise<Failure<T>[]> {
  const failures: Failure<T>[] = [];
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      try {
        await action(item);
      } catch (error) {
        failures.push({ item, error });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  // In the items' order, whatever order they failed in.
  return failures.sort((a, b) => items.indexOf(a.item) - items.indexOf(b.item));
}
