import { z } from "zod";
import { Pagination, Timestamp } from "./common.ts";
import {
  DnsSettings,
  HttpAssertions,
  HttpRequest,
  HttpRequestInput,
  misplacedSetting,
  monitorUrlProblem,
  Protocol,
  PushSettings,
  PushState,
} from "./monitor.ts";

export const SITE_STATES = ["healthy", "degraded", "unhealthy", "unknown"] as const;
export const SiteState = z.enum(SITE_STATES).meta({ description: "The monitoring engine's verdict" });
export type SiteState = z.infer<typeof SiteState>;
export const SiteStatus = z
  .enum(["up", "down", "paused", "unknown"])
  .meta({ description: "Visitor-facing label derived from state and pause; never set directly" });
export type SiteStatus = z.infer<typeof SiteStatus>;

export const HTTP_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;

/** All registered 2xx codes: the default list of codes that count as success. */
export const DEFAULT_SUCCESS_CODES = [200, 201, 202, 203, 204, 205, 206, 207, 208, 226];

export const CHECK_INTERVAL = { min: 30, max: 86_400, default: 300 } as const;
export const TIMEOUT = { min: 1, max: 120, default: 30 } as const;
/** A successful check slower than slowThresholdMs makes the site degraded. */
export const SLOW_THRESHOLD_MS = { min: 50, max: 120_000, default: 2000 } as const;

export const SiteId = z
  .string()
  .regex(/^[0-9a-f]{24}$/, "Choose a site by its id (24 hexadecimal characters).")
  .meta({ description: "Site identifier", example: "6743a1f0c2d4e5f60718293a" });

const HttpCode = z.int().min(100).max(599);

/** A header sent with every check: an RFC 9110 token name and a value without line breaks. */
export const CheckHeader = z.strictObject({
  name: z
    .string()
    .min(1)
    .max(256)
    .regex(
      /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/,
      "Use a header name of letters, digits and - _ . ! # $ % & ' * + ^ ` | ~ only.",
    ),
  value: z
    .string()
    .max(4096)
    .regex(/^[^\r\n\0]*$/, "Remove the line breaks."),
});

/** Every scheme Porchlight checks (contract/monitor.ts), no credentials in the address (put them in headers). */
export const SiteUrl = z
  .string()
  .max(2048)
  .superRefine((value, ctx) => {
    const problem = monitorUrlProblem(value);
    if (problem !== null) ctx.addIssue({ code: "custom", message: problem });
  })
  .meta({
    description:
      "What to check: http(s)://host/path, tcp://host:port, tls://host:port, dns://name, icmp://host, or push:// (a heartbeat)",
    example: "https://example.com/health",
  });

/** Tags on a site: at most this many, each 1 to 32 characters. */
export const TAGS = { max: 10, maxLength: 32 } as const;

/**
 * A tag as stored: trimmed and lower-cased, of letters, digits, spaces, dashes, underscores and dots. The
 * character set keeps a tag's JSON form its own text between quotes, which is how the stores find it (sites.ts).
 */
export const SiteTag = z
  .string()
  .trim()
  .toLowerCase()
  .min(1)
  .max(TAGS.maxLength)
  .regex(/^[\p{L}\p{M}\p{N} ._-]*$/u, "Use only letters, digits, spaces, dashes (-), underscores (_) and dots (.).")
  .meta({ description: "A tag: letters, digits, spaces, - _ and . (stored lower-case)", example: "production" });

/** A site's tags: repeats (after trimming and lower-casing) count once, in the order given. */
export const SiteTags = z
  .array(SiteTag)
  .max(TAGS.max)
  .overwrite((tags) => [...new Set(tags)])
  .meta({
    description: `At most ${TAGS.max} tags, each 1 to ${TAGS.maxLength} characters of letters, digits, spaces, - _ and .; trimmed and lower-cased, repeats removed, order kept`,
    example: ["production", "eu"],
  });

const Region = z
  .string()
  .regex(
    /^[a-z0-9][a-z0-9-]{0,31}$/,
    "Use a region name of lower-case letters, digits and dashes, at most 32 characters.",
  );

/** The fields an owner may write. Everything else in SiteDetail is computed. */
const writable = {
  url: SiteUrl,
  name: z.string().trim().min(1).max(100),
  method: z.enum(HTTP_METHODS).meta({ description: "HTTP method of the check" }),
  headers: z.array(CheckHeader).max(20).meta({ description: "Extra request headers of the check, at most 20" }),
  checkInterval: z
    .int()
    .min(CHECK_INTERVAL.min)
    .max(CHECK_INTERVAL.max)
    .meta({ description: `Seconds between checks, ${CHECK_INTERVAL.min} to ${CHECK_INTERVAL.max}` }),
  timeout: z
    .int()
    .min(TIMEOUT.min)
    .max(TIMEOUT.max)
    .meta({ description: `Seconds a check may take before it counts as failed, ${TIMEOUT.min} to ${TIMEOUT.max}` }),
  parentGroup: z.string().max(100),
  pause: z.boolean(),
  notes: z.string().max(2000),
  successCodes: z.array(HttpCode).max(500).meta({ description: "HTTP codes counted as success" }),
  errorCodes: z.array(HttpCode).max(500).meta({
    description:
      "HTTP codes counted as failure (this list wins over successCodes); a code in neither list is up below 400 and down from 400",
  }),
  enabled: z.boolean(),
  regions: z.array(Region).min(1).max(16).meta({ description: "Regions the site is checked from" }),
  slowThresholdMs: z
    .int()
    .min(SLOW_THRESHOLD_MS.min)
    .max(SLOW_THRESHOLD_MS.max)
    .meta({
      description: `A successful check slower than this (ms) makes the site degraded, ${SLOW_THRESHOLD_MS.min} to ${SLOW_THRESHOLD_MS.max}`,
    }),
  tags: SiteTags,
  assertions: HttpAssertions.meta({ description: "http(s) sites: what the answer must hold beyond its status code" }),
  request: HttpRequestInput.meta({
    description: "http(s) sites: a request body, basic auth (its password sealed) and whether redirects are followed",
  }),
  dns: DnsSettings.meta({ description: "dns sites: the record type, the resolver and the expected values" }),
  push: PushSettings.meta({ description: "push sites: the grace after checkInterval" }),
};

/** WordPress detection as stored: the engine's finding, or the owner's when manualOverride is true. */
export const WordPress = z.object({ value: z.boolean(), manualOverride: z.boolean() });

function timeoutWithinInterval(site: { timeout?: number; checkInterval?: number }) {
  return site.timeout === undefined || site.checkInterval === undefined || site.timeout <= site.checkInterval;
}
const timeoutRule = { message: "The timeout must not be longer than the check interval.", path: ["timeout"] };

/** Settings of one kind of check go with an address of that kind only (assertions with http(s), dns with dns://...). */
function settingsMatchProtocol(
  site: { url?: string | undefined; assertions?: unknown; request?: unknown; dns?: unknown; push?: unknown },
  ctx: z.RefinementCtx,
) {
  if (site.url === undefined) return;
  const misplaced = misplacedSetting(site.url, site);
  if (misplaced) ctx.addIssue({ code: "custom", path: [misplaced.field], message: misplaced.message });
}

export const SiteCreate = z
  .strictObject({
    url: writable.url,
    name: writable.name,
    method: writable.method.default("GET"),
    headers: writable.headers.default([]),
    checkInterval: writable.checkInterval.default(CHECK_INTERVAL.default),
    timeout: writable.timeout.default(TIMEOUT.default),
    parentGroup: writable.parentGroup.default(""),
    pause: writable.pause.default(false),
    notes: writable.notes.default(""),
    successCodes: writable.successCodes.default(DEFAULT_SUCCESS_CODES),
    errorCodes: writable.errorCodes.default([]),
    enabled: writable.enabled.default(true),
    regions: writable.regions.default(["local"]),
    slowThresholdMs: writable.slowThresholdMs.default(SLOW_THRESHOLD_MS.default),
    tags: writable.tags.default([]),
    assertions: writable.assertions.optional(),
    request: writable.request.optional(),
    dns: writable.dns.optional(),
    push: writable.push.optional(),
  })
  .refine(timeoutWithinInterval, timeoutRule)
  .superRefine(settingsMatchProtocol)
  .meta({ id: "SiteCreate" });
export type SiteCreate = z.infer<typeof SiteCreate>;

export const SitePatch = z
  .strictObject({
    url: writable.url.optional(),
    name: writable.name.optional(),
    method: writable.method.optional(),
    headers: writable.headers.optional(),
    checkInterval: writable.checkInterval.optional(),
    timeout: writable.timeout.optional(),
    parentGroup: writable.parentGroup.optional(),
    pause: writable.pause.optional(),
    notes: writable.notes.optional(),
    successCodes: writable.successCodes.optional(),
    errorCodes: writable.errorCodes.optional(),
    enabled: writable.enabled.optional(),
    regions: writable.regions.optional(),
    slowThresholdMs: writable.slowThresholdMs.optional(),
    tags: writable.tags.optional().meta({ description: "Replaces the site's tags" }),
    assertions: writable.assertions.optional().meta({ description: "Replaces the assertions (http(s) sites)" }),
    request: writable.request.optional().meta({
      description:
        "Replaces the request settings (http(s) sites); a basicAuth without password keeps the stored password",
    }),
    dns: writable.dns.optional().meta({ description: "Replaces the DNS settings (dns sites)" }),
    push: writable.push.optional().meta({ description: "Replaces the push settings (push sites)" }),
    wordpress: z.strictObject({ value: z.boolean(), manualOverride: z.boolean() }).optional().meta({
      description:
        "Set manualOverride true to fix value yourself (the engine then leaves it alone); false hands it back to detection",
    }),
  })
  .refine(timeoutWithinInterval, timeoutRule)
  .superRefine(settingsMatchProtocol)
  .meta({ id: "SitePatch" });
export type SitePatch = z.infer<typeof SitePatch>;

export const UptimeSummary = z.object({
  uptimePercentage: z.number().nullable().meta({ description: "null when the window holds no data" }),
  downtimePercentage: z.number().nullable().meta({ description: "null when the window holds no data" }),
  totalDowntimeMinutes: z.number(),
  daysCount: z.int().meta({ description: "Days in the window that actually had data" }),
});

export const StatEntry = z.object({
  _id: z.string(),
  site: z.string(),
  date: z.iso.date().meta({ description: "UTC day, YYYY-MM-DD" }),
  upRate: z.number().min(0).max(1),
  downRate: z.number().min(0).max(1),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  __v: z.int(),
  responseTimeMs: z.number().nullable().meta({ description: "Mean response time of the day's successful checks" }),
  checks: z.int().meta({ description: "Checks recorded that day, all regions" }),
  downtimeMinutes: z.number().meta({ description: "Minutes the site was unhealthy that day" }),
});
export type StatEntry = z.infer<typeof StatEntry>;

export const Condition = z.object({
  key: z.string().meta({ example: "ssl_expiry" }),
  scope: z.string(),
  level: z.enum(["ok", "warning", "critical"]),
  summary: z.string(),
  since: Timestamp,
  evaluatedAt: Timestamp,
});

export const Role = z.object({
  name: z.enum(["owner", "admin", "editor", "viewer"]),
  permissions: z.array(z.string()),
});

/** A site as stored and listed: configuration and the engine's latest verdict. */
export const Site = z
  .object({
    _id: SiteId,
    id: SiteId,
    __v: z.int().meta({ description: "Counts updates of the record" }),
    url: z.string(),
    protocol: Protocol,
    headers: z.array(CheckHeader),
    name: z.string(),
    checkInterval: writable.checkInterval,
    checkIntervalMs: z.int().meta({ description: "checkInterval in milliseconds" }),
    parentGroup: z.string(),
    pause: z.boolean(),
    notes: z.string(),
    timeout: writable.timeout,
    method: writable.method,
    successCodes: z.array(z.int()),
    errorCodes: z.array(z.int()),
    hasCertificateError: z.boolean(),
    isFrozen: z.boolean(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    lastCheckTime: Timestamp.nullable().meta({ description: "null until the first check" }),
    domainExpiration: Timestamp.nullable().meta({ description: "Domain expiry; null until known" }),
    legacyStatus: z.string().meta({
      description: "Backwards compatibility only: set at creation and never updated. Use state and status.",
      deprecated: true,
    }),
    enabled: z.boolean(),
    regions: z.array(z.string()),
    healthSummary: z.string(),
    sslInfo: z
      .object({ expiresAt: Timestamp, issuer: z.string(), daysRemaining: z.number() })
      .nullable()
      .meta({ description: "null until a certificate has been seen" }),
    domain: z
      .object({ domain: z.string(), expiresAt: Timestamp.nullable(), registrar: z.string().nullable() })
      .nullable()
      .meta({ description: "null until the domain has been looked up" }),
    wordpress: WordPress.optional().meta({
      description: "Present once detection has run or the owner has set it (manualOverride)",
    }),
    slowThresholdMs: writable.slowThresholdMs,
    tags: z.array(z.string()).meta({ description: "The site's tags, lower-case, in the order they were given" }),
    assertions: HttpAssertions.nullable().meta({ description: "http(s) sites' assertions; null for other kinds" }),
    request: HttpRequest.nullable().meta({
      description: "http(s) sites' body, basic auth (the password never shown) and redirect rule; null for other kinds",
    }),
    dns: DnsSettings.nullable().meta({ description: "dns sites' question and expected values; null for other kinds" }),
    push: PushState.nullable().meta({ description: "push sites' grace and last call; null for other kinds" }),
    state: SiteState,
    status: SiteStatus,
  })
  .meta({ id: "Site" });
export type Site = z.infer<typeof Site>;

export const SiteDetail = Site.extend({
  role: Role,
  uptimeSummary: UptimeSummary,
  stat: z.array(StatEntry).meta({ description: "One entry per day with data in the statDays window, oldest first" }),
  conditions: z.array(Condition),
}).meta({ id: "SiteDetail" });
export type SiteDetail = z.infer<typeof SiteDetail>;

/** The answer to adding a site: its detail, and a push site's secret address, shown this once. */
export const SiteCreated = SiteDetail.extend({
  pushUrl: z
    .string()
    .optional()
    .meta({ description: "push sites only: the address the job calls; shown in this answer only, keep it secret" }),
}).meta({ id: "SiteCreated" });

/** What a site's healthSummary says before the engine has judged it. */
export const NOT_CHECKED_SUMMARY = "Not checked yet.";

export const STAT_DAYS = { default: 30, min: 1, max: 90 } as const;

/**
 * Spec 4.1: statDays is never an error. Omitted, non-numeric, below 1 or repeated gives 30; fractions round down
 * (a fraction below 1 rounds to 0 and so gives 30); above 90 gives 90.
 */
export function parseStatDays(values: string[] | undefined): number {
  if (values?.length !== 1) return STAT_DAYS.default;
  const raw = values[0] ?? "";
  if (!/^\d+(\.\d*)?$/.test(raw)) return STAT_DAYS.default;
  const days = Math.floor(Number(raw));
  if (days < STAT_DAYS.min) return STAT_DAYS.default;
  return Math.min(days, STAT_DAYS.max);
}

/** The statDays query parameter: accepts anything, parses by the rules of parseStatDays. */
export const StatDays = z
  .union([z.string(), z.array(z.string())])
  .optional()
  .transform((v) => parseStatDays(v === undefined ? undefined : [v].flat()))
  .meta({
    description:
      "Days of history, 1 to 90 (default 30). Never an error: invalid or repeated values give 30, fractions round down, values above 90 give 90.",
    example: "30",
  });

/** A target the add/edit form asks about before saving: would the server check it, or refuse it by its policy? */
export const TargetCheck = z.strictObject({ url: SiteUrl }).meta({ id: "SiteTargetCheck" });

export const TargetCheckResult = z
  .object({
    allowed: z.boolean().meta({ description: "false: the server refuses to check this target by its address policy" }),
    reason: z.string().nullable().meta({
      description: "Why it is refused, naming the address and its range; null when allowed",
      example:
        "localhost is 127.0.0.1 (loopback, not a public address): this server checks private, loopback and link-local targets only with PORCHLIGHT_ALLOW_PRIVATE_TARGETS=true",
    }),
    setting: z
      .literal("PORCHLIGHT_ALLOW_PRIVATE_TARGETS")
      .nullable()
      .meta({ description: "The server setting that would allow it (the operator's); null when allowed" }),
  })
  .meta({ id: "SiteTargetCheckResult" });
export type TargetCheckResult = z.infer<typeof TargetCheckResult>;

/** How many of the workspace's sites carry each tag, for a filter. */
export const SiteTagCount = z
  .object({ tag: z.string(), count: z.int().meta({ description: "Sites carrying the tag" }) })
  .meta({ id: "SiteTagCount" });
export type SiteTagCount = z.infer<typeof SiteTagCount>;

export const RecentCheck = z
  .object({
    at: Timestamp,
    region: z.string(),
    ok: z.boolean(),
    slow: z.boolean(),
    statusCode: z.int().nullable(),
    responseMs: z.int().nullable(),
    error: z.string().nullable(),
    found: z.string().nullable().meta({
      description: "What a passing check saw: a DNS check's answer (its values, as compared); null for other kinds",
    }),
  })
  .meta({ id: "RecentCheck" });
export type RecentCheck = z.infer<typeof RecentCheck>;

export const SiteIncident = z
  .object({
    id: z.int(),
    pageId: z.int(),
    pageName: z.string(),
    title: z.string(),
    status: z.enum(["investigating", "identified", "monitoring", "resolved"]),
    automatic: z.boolean().meta({ description: "Opened by the engine (true) or by a member" }),
    startedAt: Timestamp,
    resolvedAt: Timestamp.nullable(),
  })
  .meta({ id: "SiteIncident" });
export type SiteIncident = z.infer<typeof SiteIncident>;

/** Days of history in the overview: the dashboard's uptime column and sparkline. */
export const OVERVIEW_DAYS = 30;

const OverviewDay = z.object({
  day: z.string().meta({ description: "UTC day, YYYY-MM-DD" }),
  uptime: z.number().nullable().meta({ description: "Percent of checks up that day; null without checks" }),
  responseMs: z.int().nullable().meta({ description: "Mean response time that day; null without a response" }),
});

/** Hours of raw results in the overview: a new site's sparkline draws these until it has two days. */
export const OVERVIEW_HOURS = 24;

const OverviewHour = z.object({
  at: Timestamp.meta({ description: "The start of the UTC hour" }),
  responseMs: z.int().meta({ description: "Mean response time of that hour's successful checks" }),
});

export const SiteOverview = z
  .object({
    site: Site,
    uptime: z.number().nullable().meta({ description: "Percent of checks up over the 30 days; null without checks" }),
    days: z.array(OverviewDay).meta({ description: "The last 30 UTC days, oldest first, today included" }),
    recent: z.array(OverviewHour).meta({
      description:
        "The last 24 UTC hours (the current one included), oldest first: each hour's mean response time of successful checks, from the raw results; an hour without a successful check is left out",
    }),
  })
  .meta({ id: "SiteOverview" });
export type SiteOverview = z.infer<typeof SiteOverview>;

/** A page of sites (GET /sites). */
export const SiteList = z.object({ sites: z.array(Site), pagination: Pagination });
export type SiteList = z.infer<typeof SiteList>;

/** A page of sites with their recent history (GET /sites/overview). */
export const SiteOverviewList = z.object({ sites: z.array(SiteOverview), pagination: Pagination });
export type SiteOverviewList = z.infer<typeof SiteOverviewList>;

/** The tags on a workspace's sites (GET /sites/tags). */
export const SiteTagList = z.object({ tags: z.array(SiteTagCount) });
export type SiteTagList = z.infer<typeof SiteTagList>;
