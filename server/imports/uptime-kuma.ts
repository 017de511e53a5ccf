import { CHECK_INTERVAL, TIMEOUT } from "../contract/site.ts";
import { groupBy } from "../group-by.ts";
import { ForeignFile, type KumaDump, type KumaRecord, readKumaFile } from "../store/uptime-kuma-file.ts";
import {
  clamp,
  codesFrom,
  type ImportPlan,
  ImportRefused,
  jsonPathFrom,
  jsonValue,
  type PlannedEntry,
  type PlannedIncident,
  type PlannedPage,
  type PlannedSite,
  type PlannedWindow,
  type Skip,
  siteFrom,
  slugify,
} from "./plan.ts";

/*
 * Uptime Kuma (1.23 and 2.x) from its SQLite database: monitors of the kinds Porchlight checks become sites, status
 * pages with their sections (groups), monitor order, descriptions, custom domains and incidents become pages, and
 * maintenance becomes windows with an RRULE where the strategy maps. Columns are read by name: which ones a database
 * has depends on the versions it was upgraded through (docs/research/importers.md).
 */

const text = (v: unknown) => (typeof v === "string" ? v : v == null ? "" : String(v));
const num = (v: unknown, fallback = 0) => (typeof v === "number" && Number.isFinite(v) ? v : fallback);
const flag = (v: unknown) => v === 1 || v === true || v === "1";

/** Uptime Kuma's DATETIME text ("2026-01-02 03:04:05", UTC) as an ISO instant; null when it is not one. */
function instant(v: unknown): string | null {
  const s = text(v).trim();
  const m = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}(?::\d{2})?)(\.\d+)?(Z|[+-]\d{2}:?\d{2})?$/.exec(s);
  if (!m) return null;
  const ms = Date.parse(`${m[1]}T${m[2]}${m[3] ?? ""}${m[4] ?? "Z"}`);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

function parseJson<T>(v: unknown, fallback: T): T {
  try {
    return v == null || v === "" ? fallback : (JSON.parse(text(v)) as T);
  } catch {
    return fallback;
  }
}

const KINDS_WITHOUT_CHECK: Record<string, string> = {
  group: "a group of monitors: its name becomes its children's parentGroup",
};

/** One monitor as a site, or why it is skipped. */
function siteOf(m: KumaRecord, groupNames: Map<number, string>): PlannedSite | Skip {
  const name = text(m.name).trim() || `Monitor ${text(m.id)}`;
  const type = text(m.type);
  const skip = (reason: string): Skip => ({ kind: "site", name, reason });
  const notes: string[] = [];
  const interval = clamp(num(m.interval, 60), CHECK_INTERVAL.min, CHECK_INTERVAL.max, "interval", notes);
  const givenTimeout = num(m.timeout, 0) > 0 ? num(m.timeout) : interval * 0.8;
  const timeout = clamp(
    Math.min(givenTimeout, interval),
    TIMEOUT.min,
    Math.min(TIMEOUT.max, interval),
    "timeout",
    notes,
  );
  const base: Record<string, unknown> = {
    name: name.slice(0, 100),
    checkInterval: interval,
    timeout,
    pause: !flag(m.active ?? 1),
    notes: text(m.description).slice(0, 2000),
    parentGroup: (m.parent != null ? groupNames.get(num(m.parent, -1)) : undefined)?.slice(0, 100) ?? "",
  };
  if (flag(m.upside_down)) return skip("upside-down mode (up when unreachable) has no equivalent");
  if (num(m.maxretries) > 0) notes.push(`retries ${num(m.maxretries)}: Porchlight confirms a failure by its own rule`);
  let raw: Record<string, unknown>;
  switch (type) {
    case "http":
    case "keyword":
    case "json-query": {
      const url = text(m.url).trim();
      const listed = parseJson<unknown>(m.accepted_statuscodes_json, ["200-299"]);
      const codes = Array.isArray(listed) ? codesFrom(listed.map(String)) : null;
      if (!codes) return skip(`accepted status codes ${text(m.accepted_statuscodes_json)} cannot be listed`);
      const headers = parseJson<Record<string, unknown> | null>(m.headers, null);
      const auth = text(m.auth_method);
      if (auth && auth !== "basic") return skip(`authentication method ${auth} is not supported`);
      if (text(m.tls_cert) || text(m.tls_key)) return skip("client certificates are not supported");
      if (flag(m.ignore_tls)) notes.push("ignore TLS errors: Porchlight always verifies certificates");
      const method = text(m.method || "GET").toUpperCase();
      raw = {
        ...base,
        url,
        method,
        headers:
          headers && typeof headers === "object"
            ? Object.entries(headers).map(([hName, value]) => ({ name: hName, value: text(value) }))
            : [],
        successCodes: codes,
        request: {
          body: text(m.body) || null,
          followRedirects: num(m.maxredirects, 10) > 0,
          basicAuth: text(m.basic_auth_user)
            ? { username: text(m.basic_auth_user), password: text(m.basic_auth_pass) }
            : null,
        },
      };
      if (type === "keyword") {
        if (!text(m.keyword)) return skip("a keyword monitor without a keyword");
        raw.assertions = {
          keyword: { text: text(m.keyword), absent: flag(m.invert_keyword), caseSensitive: true },
        };
      }
      if (type === "json-query") {
        const path = jsonPathFrom(text(m.json_path));
        if (!path) return skip(`the JSON query ${text(m.json_path)} is an expression, not a path`);
        const operator = text(m.json_path_operator) || "==";
        if (operator !== "==") return skip(`the JSON query operator ${operator} is not supported (only ==)`);
        raw.assertions = { json: { path, equals: jsonValue(text(m.expected_value)) } };
      }
      break;
    }
    case "port":
      raw = { ...base, url: `tcp://${hostPort(text(m.hostname), num(m.port))}` };
      break;
    case "ping":
      raw = { ...base, url: `icmp://${hostPort(text(m.hostname), 0)}` };
      break;
    case "dns": {
      const port = num(m.port, 53);
      const server = text(m.dns_resolve_server).trim();
      raw = {
        ...base,
        url: `dns://${text(m.hostname).trim()}`,
        dns: {
          recordType: text(m.dns_resolve_type) || "A",
          resolver: server ? (port && port !== 53 ? `${bracketed(server)}:${port}` : server) : null,
        },
      };
      break;
    }
    case "push":
      notes.push("push: Porchlight gives it a new secret address; point the job at it");
      raw = { ...base, url: "push://" };
      break;
    default:
      return skip(KINDS_WITHOUT_CHECK[type] ?? `type ${type || "(none)"} is not one Porchlight checks`);
  }
  const made = siteFrom(raw);
  return "problem" in made ? skip(made.problem) : { key: "", site: made.site, notes };
}

const bracketed = (host: string) => (host.includes(":") && !host.startsWith("[") ? `[${host}]` : host);
const hostPort = (host: string, port: number) => `${bracketed(host.trim())}${port ? `:${port}` : ""}`;

/** Kuma's incident styles as impacts: danger is a major one, warning minor, the rest informational. */
const IMPACT_OF: Record<string, PlannedIncident["impact"]> = { danger: "major", warning: "minor" };

const WEEKDAYS = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"];

/** A maintenance as a window, or why it cannot be. */
function windowOf(m: KumaRecord, siteKeys: string[], now: Date): Omit<PlannedWindow, "key"> | string {
  const strategy = text(m.strategy);
  if (!flag(m.active ?? 1)) return "inactive in Uptime Kuma";
  const zone = text(m.timezone);
  const timeZone = zone && zone !== "SAME_AS_SERVER" ? zone : "UTC";
  const startDate = text(m.start_date).slice(0, 10);
  const startTime = text(m.start_time).slice(0, 5) || "00:00";
  const base = {
    title: text(m.title).slice(0, 200) || "Maintenance",
    description: text(m.description).slice(0, 2000),
    timeZone,
    siteKeys,
  };
  if (strategy === "manual") return "manual maintenance has no schedule: start one from Porchlight when needed";
  if (strategy === "cron") return "a cron schedule is not converted: enter it as a repeating window";
  if (siteKeys.length === 0) return "it covers no imported monitor";
  if (strategy === "single") {
    const at = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}/;
    const from = Date.parse(text(m.start_date).replace(" ", "T"));
    const to = Date.parse(text(m.end_date).replace(" ", "T"));
    const readable = at.test(text(m.start_date)) && at.test(text(m.end_date));
    if (!readable || Number.isNaN(from) || Number.isNaN(to) || to <= from) return "it has no valid start and end";
    // Local times in the window's zone: compare as UTC text, which is off by at most a day either way.
    if (to < now.getTime() - 86_400_000) return "it ended before the import";
    return {
      ...base,
      start: text(m.start_date).replace(" ", "T").slice(0, 16),
      durationMinutes: Math.max(1, Math.round((to - from) / 60_000)),
      recurrence: null,
    };
  }
  const durationMinutes = Math.round(num(m.duration) / 60) || spanMinutes(startTime, text(m.end_time).slice(0, 5));
  if (durationMinutes < 1) return "it has no duration";
  const until = text(m.end_date) ? `;UNTIL=${text(m.end_date).slice(0, 10).replaceAll("-", "")}T235959Z` : "";
  const first = /^\d{4}-\d{2}-\d{2}$/.test(startDate) ? startDate : now.toISOString().slice(0, 10);
  const start = `${first}T${/^\d{2}:\d{2}$/.test(startTime) ? startTime : "00:00"}`;
  let recurrence: string;
  if (strategy === "recurring-interval") {
    recurrence = `FREQ=DAILY;INTERVAL=${Math.max(1, num(m.interval_day, 1))}`;
  } else if (strategy === "recurring-weekday") {
    // Kuma numbers the days as JavaScript does, Sunday 0 (7 is read as Sunday too).
    const listed = parseJson<unknown>(m.weekdays, []);
    const days = (Array.isArray(listed) ? listed : []).filter(
      (d): d is number => Number.isInteger(d) && d >= 0 && d <= 7,
    );
    if (days.length === 0) return "no weekday is chosen";
    const byDay = [...new Set(days.map((d) => WEEKDAYS[(d + 6) % 7]))];
    recurrence = `FREQ=WEEKLY;BYDAY=${byDay.join(",")}`;
  } else if (strategy === "recurring-day-of-month") {
    const listed = parseJson<unknown>(m.days_of_month, []);
    const days: unknown[] = Array.isArray(listed) ? listed : [];
    const mapped = days.map((d) => (d === "lastDay1" ? -1 : typeof d === "number" && d >= 1 && d <= 31 ? d : null));
    if (mapped.length === 0 || mapped.includes(null)) return `days of month ${text(m.days_of_month)} do not map`;
    recurrence = `FREQ=MONTHLY;BYMONTHDAY=${mapped.join(",")}`;
  } else {
    return `strategy ${strategy || "(none)"} is not known`;
  }
  return { ...base, start, durationMinutes, recurrence: recurrence + until };
}

function spanMinutes(from: string, to: string): number {
  const minutes = (t: string) => {
    const m = /^(\d{2}):(\d{2})$/.exec(t);
    return m ? Number(m[1]) * 60 + Number(m[2]) : Number.NaN;
  };
  const span = minutes(to) - minutes(from);
  return Number.isNaN(span) ? 0 : span > 0 ? span : span + 24 * 60;
}

/** The plan for an Uptime Kuma database at `path`; ImportRefused when it is not one that can be read. */
export function planUptimeKuma(path: string, now: Date): ImportPlan {
  let dump: KumaDump;
  try {
    dump = readKumaFile(path);
  } catch (error) {
    if (error instanceof ForeignFile) throw new ImportRefused(error.message);
    throw error;
  }
  return planFromDump(dump, now);
}

export function planFromDump(dump: KumaDump, now: Date): ImportPlan {
  const key = (kind: string, id: unknown) => `${dump.install}/${kind}/${text(id)}`;
  const skipped: Skip[] = [];
  const groupNames = new Map(
    dump.monitors.filter((m) => text(m.type) === "group").map((m) => [num(m.id), text(m.name)] as const),
  );
  const sites: PlannedSite[] = [];
  const siteKeyOf = new Map<number, string>();
  for (const m of dump.monitors) {
    const planned = siteOf(m, groupNames);
    if ("reason" in planned) {
      if (text(m.type) !== "group") skipped.push(planned);
      continue;
    }
    planned.key = key("monitor", m.id);
    sites.push(planned);
    siteKeyOf.set(num(m.id), planned.key);
  }
  const monitorName = new Map(dump.monitors.map((m) => [num(m.id), text(m.name)]));
  const sectionsOf = groupBy(dump.sections, (g) => num(g.status_page_id, -1));
  const monitorsOf = groupBy(dump.sectionMonitors, (mg) => num(mg.group_id));
  const incidentsOf = groupBy(dump.incidents, (i) => num(i.status_page_id, -1));
  const domainOf = new Map([...dump.domains].reverse().map((d) => [num(d.status_page_id), d] as const));
  const pages: PlannedPage[] = dump.pages.map((p) => {
    const pageId = num(p.id);
    const entries: PlannedEntry[] = (sectionsOf.get(pageId) ?? [])
      .filter((g) => flag(g.active ?? 1))
      .map((g) => ({
        group: {
          name: text(g.name).trim().slice(0, 100) || "Services",
          description: "",
          collapsed: false,
          items: (monitorsOf.get(num(g.id)) ?? []).flatMap((mg) => {
            const siteKey = siteKeyOf.get(num(mg.monitor_id));
            if (siteKey) return [{ siteKey, label: (monitorName.get(num(mg.monitor_id)) ?? "").slice(0, 100) }];
            if (!groupNames.has(num(mg.monitor_id))) {
              skipped.push({
                kind: "item",
                name: `${text(p.title)}: ${monitorName.get(num(mg.monitor_id)) ?? `monitor ${text(mg.monitor_id)}`}`,
                reason: "its monitor is not imported",
              });
            }
            return [];
          }),
        },
      }));
    // Group names are unique on a page: a repeated section name gets its number.
    const seen = new Map<string, number>();
    for (const entry of entries) {
      if (!("group" in entry)) continue;
      const n = (seen.get(entry.group.name) ?? 0) + 1;
      seen.set(entry.group.name, n);
      if (n > 1) entry.group.name = `${entry.group.name.slice(0, 95)} (${n})`;
    }
    const domain = domainOf.get(pageId);
    const incidents: PlannedIncident[] = (incidentsOf.get(pageId) ?? []).flatMap((i) => {
      const started = instant(i.created_date);
      if (!started) {
        skipped.push({ kind: "incident", name: text(i.title), reason: "it has no valid date" });
        return [];
      }
      const open = flag(i.pin ?? 1) && flag(i.active ?? 1);
      const last = instant(i.last_updated_date) ?? started;
      const resolvedAt = open ? null : last < started ? started : last;
      const message = text(i.content).trim() || text(i.title);
      return [
        {
          key: key("incident", i.id),
          title: text(i.title).trim().slice(0, 200) || "Incident",
          impact: IMPACT_OF[text(i.style)] ?? "none",
          startedAt: started,
          resolvedAt,
          updates: [
            { status: "investigating" as const, message: message.slice(0, 5000), at: started },
            ...(resolvedAt
              ? [{ status: "resolved" as const, message: "Resolved (imported from Uptime Kuma).", at: resolvedAt }]
              : []),
          ],
          affected: [],
        },
      ];
    });
    return {
      key: key("status_page", p.id),
      name: text(p.title).trim().slice(0, 100) || text(p.slug),
      slug: slugify(text(p.slug)),
      description: text(p.description).slice(0, 1000),
      customDomain: domain ? text(domain.domain).toLowerCase() : null,
      visibility: flag(p.published ?? 1) ? "public" : "private",
      entries,
      incidents,
    };
  });
  const windows: PlannedWindow[] = [];
  const monitorsOfWindow = groupBy(dump.maintenanceMonitors, (mm) => num(mm.maintenance_id));
  const pagesOfWindow = groupBy(dump.maintenancePages, (mp) => num(mp.maintenance_id));
  const rowIndex = new Map(dump.sectionMonitors.map((mg, i) => [mg, i] as const));
  for (const m of dump.maintenances) {
    const monitorIds = new Set((monitorsOfWindow.get(num(m.id)) ?? []).map((mm) => num(mm.monitor_id)));
    // A maintenance on a status page covers the monitors shown on it, in the file's order of them (its weights).
    const shown = new Set<KumaRecord>();
    for (const pageId of new Set((pagesOfWindow.get(num(m.id)) ?? []).map((mp) => num(mp.status_page_id)))) {
      for (const g of sectionsOf.get(pageId) ?? []) for (const mg of monitorsOf.get(num(g.id)) ?? []) shown.add(mg);
    }
    const rows = [...shown].sort((a, b) => (rowIndex.get(a) ?? 0) - (rowIndex.get(b) ?? 0));
    for (const mg of rows) monitorIds.add(num(mg.monitor_id));
    const siteKeys = [...monitorIds].flatMap((id) => siteKeyOf.get(id) ?? []).slice(0, 100);
    const planned = windowOf(m, siteKeys, now);
    if (typeof planned === "string") skipped.push({ kind: "maintenance", name: text(m.title), reason: planned });
    else windows.push({ ...planned, key: key("maintenance", m.id) });
  }
  return { source: "uptime-kuma", detected: `Uptime Kuma ${dump.version}`, sites, pages, windows, skipped };
}
