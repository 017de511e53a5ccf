import { z } from "zod";
import { Timestamp } from "./common.ts";

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
  .regex(/^[0-9a-f]{24}$/, "must be a site id (24 hexadecimal characters)")
  .meta({ description: "Site identifier", example: "6743a1f0c2d4e5f60718293a" });

const HttpCode = z.int().min(100).max(599);

/** A header sent with every check: an RFC 9110 token name and a value without line breaks. */
export const CheckHeader = z.strictObject({
  name: z
    .string()
    .min(1)
    .max(256)
    .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, "must be a valid HTTP header name"),
  value: z
    .string()
    .max(4096)
    .regex(/^[^\r\n\0]*$/, "must not contain line breaks or NUL"),
});

/** http(s) only, no credentials in the address (put them in headers, which are never shown to visitors). */
export const SiteUrl = z
  .string()
  .max(2048)
  .refine((value) => {
    try {
      const u = new URL(value);
      return (u.protocol === "http:" || u.protocol === "https:") && u.hostname !== "";
    } catch {
      return false;
    }
  }, "must be an absolute http:// or https:// URL")
  .refine((value) => {
    try {
      const u = new URL(value);
      return u.username === "" && u.password === "";
    } catch {
      return true;
    }
  }, "must not contain a user name or password; send credentials in headers")
  .meta({ description: "Monitored address, http or https", example: "https://example.com/health" });

const Region = z.string().regex(/^[a-z0-9][a-z0-9-]{0,31}$/, "must be lowercase letters, digits and dashes");

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
};

/** WordPress detection as stored: the engine's finding, or the owner's when manualOverride is true. */
export const WordPress = z.object({ value: z.boolean(), manualOverride: z.boolean() });

function timeoutWithinInterval(site: { timeout?: number; checkInterval?: number }) {
  return site.timeout === undefined || site.checkInterval === undefined || site.timeout <= site.checkInterval;
}
const timeoutRule = { message: "timeout must not exceed checkInterval", path: ["timeout"] };

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
  })
  .refine(timeoutWithinInterval, timeoutRule)
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
    wordpress: z.strictObject({ value: z.boolean(), manualOverride: z.boolean() }).optional().meta({
      description:
        "Set manualOverride true to fix value yourself (the engine then leaves it alone); false hands it back to detection",
    }),
  })
  .refine(timeoutWithinInterval, timeoutRule)
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
    protocol: z.enum(["http", "https"]).meta({ description: "Derived from url" }),
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
