import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { CHECK_INTERVAL, TIMEOUT } from "../contract/site.ts";
import {
  clamp,
  type ImportPlan,
  ImportRefused,
  jsonPathFrom,
  jsonValue,
  type PlannedEntry,
  type PlannedSite,
  type Skip,
  siteFrom,
  slugify,
} from "./plan.ts";

/*
 * Gatus from its YAML configuration: each endpoint becomes a site (http, https, tcp, tls, icmp and dns ones), its
 * conditions the assertions they map onto, and the endpoints' groups the groups of one status page, as Gatus's own
 * dashboard shows them. External endpoints become push sites. `$VAR` references are kept as written, never expanded.
 */

const Endpoint = z.looseObject({
  name: z.string().min(1),
  group: z.string().optional(),
  url: z.string().optional(),
  method: z.string().optional(),
  enabled: z.boolean().optional(),
  interval: z.string().optional(),
  conditions: z.array(z.string()).optional(),
  headers: z.record(z.string(), z.unknown()).optional(),
  body: z.string().optional(),
  dns: z.looseObject({ "query-type": z.string().optional(), "query-name": z.string().optional() }).optional(),
  client: z.looseObject({ timeout: z.string().optional(), "ignore-redirect": z.boolean().optional() }).optional(),
});
const External = z.looseObject({
  name: z.string().min(1),
  group: z.string().optional(),
  enabled: z.boolean().optional(),
  heartbeat: z.looseObject({ interval: z.string().optional() }).optional(),
});
const Config = z.looseObject({
  endpoints: z.array(Endpoint).optional(),
  "external-endpoints": z.array(External).optional(),
  ui: z
    .looseObject({ title: z.string().optional(), header: z.string().optional(), description: z.string().optional() })
    .optional(),
});

/** A Go duration ("30s", "5m", "1h30m", "500ms") in seconds; null when it is not one. */
export function goSeconds(text: string): number | null {
  const re = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/gy;
  const unit: Record<string, number> = { ns: 1e-9, us: 1e-6, µs: 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 };
  let total = 0;
  let matched = 0;
  for (const m of text.trim().matchAll(re)) {
    total += Number(m[1]) * (unit[m[2] as string] ?? 0);
    matched += m[0].length;
  }
  return matched > 0 && matched === text.trim().length ? total : null;
}

/** What one condition does to the site being built; a string says why it does not map. */
type Applied = ((raw: Record<string, unknown>) => void) | string;

function condition(text: string, kind: string): Applied {
  const c = text.trim();
  let m = /^\[STATUS\]\s*==\s*(\d{3})$/.exec(c);
  if (m)
    return (raw) => {
      raw.successCodes = [Number(m?.[1])];
    };
  m = /^\[STATUS\]\s*==\s*any\(([\d,\s]+)\)$/.exec(c);
  if (m) {
    const codes = (m[1] as string).split(",").map((s) => Number(s.trim()));
    return (raw) => {
      raw.successCodes = codes;
    };
  }
  m = /^\[STATUS\]\s*(<=?|>=?)\s*(\d{3})$/.exec(c);
  if (m) {
    const [op, n] = [m[1], Number(m[2])];
    const ok = (code: number) => (op === "<" ? code < n : op === "<=" ? code <= n : op === ">" ? code > n : code >= n);
    const codes = Array.from({ length: 500 }, (_, i) => i + 100).filter(ok);
    return codes.length > 0 && codes.length <= 500
      ? (raw) => {
          raw.successCodes = codes;
        }
      : `${c} allows no code`;
  }
  m = /^\[RESPONSE_TIME\]\s*<=?\s*(\d+)$/.exec(c);
  if (m)
    return (raw) => {
      raw.slowThresholdMs = Math.min(120_000, Math.max(50, Number(m?.[1])));
    };
  if (/^\[CONNECTED\]\s*==\s*true$/.test(c) || /^\[DNS_RCODE\]\s*==\s*NOERROR$/.test(c)) return () => {};
  m = /^\[BODY\]\s*==\s*pat\(\*([^*?]+)\*\)$/.exec(c);
  if (m && (kind === "http" || kind === "https")) {
    return (raw) => {
      if ((raw.assertions as { keyword?: unknown } | undefined)?.keyword) throw new Error("only one keyword");
      raw.assertions = { ...(raw.assertions as object), keyword: { text: m?.[1], absent: false, caseSensitive: true } };
    };
  }
  m = /^\[BODY\]((?:\.[\w$-]+|\[\d+\])+)\s*==\s*(.+)$/.exec(c);
  if (m && (kind === "http" || kind === "https")) {
    const path = jsonPathFrom((m[1] as string).replace(/^\./, ""));
    const expected = (m[2] as string).trim();
    if (path && !/^(pat|any)\(|^\[/.test(expected)) {
      return (raw) => {
        if ((raw.assertions as { json?: unknown } | undefined)?.json) throw new Error("only one JSON check");
        raw.assertions = { ...(raw.assertions as object), json: { path, equals: jsonValue(expected) } };
      };
    }
  }
  if (/^\[CERTIFICATE_EXPIRATION\]/.test(c)) return "Porchlight warns of certificate expiry by its own rule";
  if (/^\[DOMAIN_EXPIRATION\]/.test(c)) return "Porchlight warns of domain expiry by its own rule";
  return "no Porchlight assertion matches it";
}

const SCHEMES: Record<string, string> = { http: "http", https: "https", tcp: "tcp", tls: "tls", icmp: "icmp" };

function siteOf(e: z.infer<typeof Endpoint>, skipped: Skip[]): PlannedSite | Skip {
  const name = e.group ? `${e.group}/${e.name}` : e.name;
  const skip = (reason: string): Skip => ({ kind: "site", name, reason });
  const notes: string[] = [];
  const interval = clamp(
    goSeconds(e.interval ?? "60s") ?? 60,
    CHECK_INTERVAL.min,
    CHECK_INTERVAL.max,
    "interval",
    notes,
  );
  const timeout = clamp(
    Math.min(goSeconds(e.client?.timeout ?? "10s") ?? 10, interval),
    TIMEOUT.min,
    Math.min(TIMEOUT.max, interval),
    "timeout",
    notes,
  );
  const url = (e.url ?? "").trim();
  const base: Record<string, unknown> = {
    name: e.name.trim().slice(0, 100),
    checkInterval: interval,
    timeout,
    pause: e.enabled === false,
    tags: e.group ? [slugify(e.group, "group").slice(0, 32)] : [],
  };
  let raw: Record<string, unknown>;
  let kind: string;
  if (e.dns) {
    kind = "dns";
    const host = (e.dns["query-name"] ?? "").replace(/\.$/, "");
    raw = {
      ...base,
      url: `dns://${host}`,
      dns: { recordType: (e.dns["query-type"] ?? "A").toUpperCase(), resolver: url.replace(/^udp:\/\//, "") || null },
    };
  } else {
    const scheme = /^([a-z0-9+.-]+):\/\//i.exec(url)?.[1]?.toLowerCase() ?? "";
    kind = SCHEMES[scheme] ?? "";
    if (!kind) return skip(`${scheme || "this"}:// endpoints are not checked by Porchlight`);
    raw = { ...base, url };
    if (kind === "http" || kind === "https") {
      raw.method = (e.method ?? "GET").toUpperCase();
      raw.headers = Object.entries(e.headers ?? {}).map(([n, v]) => ({ name: n, value: String(v) }));
      raw.request = { body: e.body ?? null, followRedirects: e.client?.["ignore-redirect"] !== true, basicAuth: null };
      raw.successCodes = Array.from({ length: 500 }, (_, i) => i + 100).filter((c) => c < 400);
    }
  }
  for (const text of e.conditions ?? []) {
    const applied = condition(text, kind);
    if (typeof applied === "string") {
      skipped.push({ kind: "condition", name: `${name}: ${text}`, reason: applied });
      continue;
    }
    try {
      applied(raw);
    } catch (error) {
      skipped.push({ kind: "condition", name: `${name}: ${text}`, reason: `${(error as Error).message} per site` });
    }
  }
  const made = siteFrom(raw);
  return "problem" in made ? skip(made.problem) : { key: "", site: made.site, notes };
}

export function planGatus(yamlText: string, options: { slug?: string | undefined }): ImportPlan {
  let document: unknown;
  try {
    document = parseYaml(yamlText, { maxAliasCount: 100 });
  } catch (error) {
    throw new ImportRefused(`This is not YAML: ${(error as Error).message.split("\n")[0]}`);
  }
  const parsed = Config.safeParse(document);
  const config = parsed.success ? parsed.data : null;
  if (!config || (!config.endpoints?.length && !config["external-endpoints"]?.length)) {
    throw new ImportRefused(
      parsed.success || document === null || typeof document !== "object"
        ? "This is not a Gatus configuration: it has no endpoints."
        : `This is not a Gatus configuration: ${parsed.error.issues[0]?.path.join(".")} ${parsed.error.issues[0]?.message}.`,
    );
  }
  const skipped: Skip[] = [];
  const sites: PlannedSite[] = [];
  const groups = new Map<string, { siteKey: string; label: string }[]>();
  const ungrouped: { siteKey: string; label: string }[] = [];
  const order: string[] = [];
  const place = (group: string | undefined, entry: { siteKey: string; label: string }) => {
    if (!group) {
      ungrouped.push(entry);
      order.push("");
      return;
    }
    if (!groups.has(group)) {
      groups.set(group, []);
      order.push(group);
    }
    groups.get(group)?.push(entry);
  };
  for (const e of config.endpoints ?? []) {
    const planned = siteOf(e, skipped);
    if ("reason" in planned) {
      skipped.push(planned);
      continue;
    }
    planned.key = `endpoint/${e.group ?? ""}_${e.name}`;
    sites.push(planned);
    place(e.group, { siteKey: planned.key, label: e.name.trim().slice(0, 100) });
  }
  for (const e of config["external-endpoints"] ?? []) {
    const notes = ["push: Porchlight gives it a new secret address; point the job at it"];
    const seconds = goSeconds(e.heartbeat?.interval ?? "") ?? 300;
    const made = siteFrom({
      name: e.name.trim().slice(0, 100),
      url: "push://",
      pause: e.enabled === false,
      checkInterval: clamp(seconds, CHECK_INTERVAL.min, CHECK_INTERVAL.max, "heartbeat interval", notes),
    });
    if ("problem" in made) {
      skipped.push({ kind: "site", name: e.name, reason: made.problem });
      continue;
    }
    const key = `external/${e.group ?? ""}_${e.name}`;
    sites.push({ key, site: made.site, notes });
    place(e.group, { siteKey: key, label: e.name.trim().slice(0, 100) });
  }
  let next = 0;
  const entries: PlannedEntry[] = order.map((group) =>
    group === ""
      ? { item: ungrouped[next++] as { siteKey: string; label: string } }
      : { group: { name: group.slice(0, 100), description: "", collapsed: false, items: groups.get(group) ?? [] } },
  );
  // The name Gatus's dashboard shows: its header, else its title, else Gatus's own default header (a page named
  // "Status" would want /status, which is the landing page's).
  const title = config.ui?.header?.trim() || config.ui?.title?.trim() || "Health Status";
  const slug = options.slug ?? slugify(title, "health-status");
  return {
    source: "gatus",
    detected: "Gatus configuration",
    sites,
    pages: [
      {
        // A second file (another title or slug) is another page.
        key: `page:${slug}`,
        name: title.slice(0, 100),
        slug,
        description: (config.ui?.description ?? "").slice(0, 1000),
        customDomain: null,
        visibility: "public",
        entries,
        incidents: [],
      },
    ],
    windows: [],
    skipped,
  };
}
