import { isAbsolute, resolve } from "node:path";
import ipaddr from "ipaddr.js";
import { z } from "zod";
import { AccountEmail } from "./contract/account.ts";

/** A region's name, for PORCHLIGHT_REGION and `porchlight worker --region`. */
export const Region = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,31}$/, "must be lowercase letters, digits and dashes (at most 32)");

const LogLevel = z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]);

/** The words and formats of the hosted and prerendered pages, for PORCHLIGHT_PAGE_LOCALE (the static build's too). */
export const PageLocale = z
  .string()
  .regex(/^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8})*$/, "must be a BCP 47 locale such as en or de-CH");

const Cidr = z.string().transform((value, ctx) => {
  try {
    return ipaddr.parseCIDR(value.includes("/") ? value : `${value}/${value.includes(":") ? 128 : 32}`);
  } catch {
    ctx.addIssue({ code: "custom", message: `"${value}" is not an IP address or CIDR range` });
    return z.NEVER;
  }
});

/** Every environment variable the server reads, with its default. The README's table mirrors this schema. */
export const ConfigSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8787),
  HOST: z.string().min(1).default("0.0.0.0"),
  PORCHLIGHT_DATA_DIR: z.string().min(1).default("./data"),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL")
    .optional(),
  PORCHLIGHT_PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
  LOG_LEVEL: LogLevel.default("info"),
  LOG_FORMAT: z.enum(["json", "pretty"]).optional(),
  PORCHLIGHT_OWNER_EMAIL: AccountEmail.default("owner@localhost"),
  PORCHLIGHT_TRUSTED_PROXIES: z
    .string()
    .default("")
    .transform((v) =>
      v
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .pipe(z.array(Cidr)),
  PORCHLIGHT_PASSWORD_ATTEMPTS: z.coerce.number().int().min(1).max(1000).default(10),
  PORCHLIGHT_PASSWORD_WINDOW_SECONDS: z.coerce.number().int().min(1).max(86400).default(900),
  // One scrypt check costs about 0.1 s of CPU on the 2-core machines here (README, Public status-page reads): 4 a
  // second is 0.4 of a core, and 2 at once leave a core (and 2 of libuv's 4 threads) to everything else.
  PORCHLIGHT_PASSWORD_HASHES_IN_FLIGHT: z.coerce.number().int().min(1).max(10_000).default(2),
  PORCHLIGHT_PASSWORD_HASHES_PER_SECOND: z.coerce.number().int().min(1).max(100_000).default(4),
  PORCHLIGHT_PASSWORD_PAGE_HASHES_PER_SECOND: z.coerce.number().int().min(1).max(100_000).default(1),
  PORCHLIGHT_VIEW_TTL_SECONDS: z.coerce.number().int().min(1).max(3600).default(10),
  PORCHLIGHT_REGION: Region.default("local"),
  PORCHLIGHT_ENGINE: z.enum(["on", "off"]).default("on"),
  PORCHLIGHT_ALLOW_PRIVATE_TARGETS: z.enum(["true", "false"]).default("false"),
  PORCHLIGHT_ALERT_LEASE_SECONDS: z.coerce.number().int().min(10).max(3600).default(60),
  PORCHLIGHT_SECRET_KEY: z.string().min(32, "must be at least 32 characters").optional(),
  PORCHLIGHT_TELEGRAM_API_URL: z.url({ protocol: /^https?$/ }).default("https://api.telegram.org"),
  PORCHLIGHT_PAGERDUTY_EVENTS_URL: z.url({ protocol: /^https?$/ }).default("https://events.pagerduty.com/v2/enqueue"),
  PORCHLIGHT_LANDING_PAGES: z.enum(["true", "false"]).default("true"),
  PORCHLIGHT_CHECK_CONCURRENCY: z.coerce.number().int().min(1).max(10_000).default(500),
  PORCHLIGHT_PAGE_LOCALE: PageLocale.default("en"),
  PORCHLIGHT_RESULT_RETENTION_HOURS: z.coerce.number().int().min(1).max(8760).default(48),
  SMTP_URL: z.url({ protocol: /^smtps?$/ }).optional(),
  PORCHLIGHT_MAIL_FROM: z.string().min(3).default("Porchlight <porchlight@localhost>"),
  PORCHLIGHT_SNAPSHOTS_PER_MINUTE: z.coerce.number().int().min(1).max(100_000).default(10),
  PORCHLIGHT_SNAPSHOT_POLLS_PER_MINUTE: z.coerce.number().int().min(1).max(100_000).default(120),
  PORCHLIGHT_REPORTS_PER_HOUR: z.coerce.number().int().min(1).max(100_000).default(3),
  PORCHLIGHT_API_REQUESTS_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(600),
  PORCHLIGHT_SNAPSHOT_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(4),
  PORCHLIGHT_SNAPSHOT_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(120).default(20),
  PORCHLIGHT_SNAPSHOT_REUSE_SECONDS: z.coerce.number().int().min(0).max(86_400).default(300),
  PORCHLIGHT_REPORT_INTERVAL_MINUTES: z.coerce.number().int().min(1).max(240).default(5),
  PORCHLIGHT_METRICS_TOKEN: z
    .string()
    .min(16, "must be at least 16 characters")
    .max(256)
    .regex(/^\S+$/, "must not contain white space")
    .optional(),
  PORCHLIGHT_SHUTDOWN_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(3600).default(10),
});

/**
 * What the variables make: the names, groups and units the code uses, with the values derived from them. The
 * Config type is this schema's output, so a setting is added here and in ConfigSchema, and nowhere else.
 */
function configSchema(cwd: string) {
  return ConfigSchema.transform((e) => ({
    port: e.PORT,
    host: e.HOST,
    dataDir: isAbsolute(e.PORCHLIGHT_DATA_DIR) ? e.PORCHLIGHT_DATA_DIR : resolve(cwd, e.PORCHLIGHT_DATA_DIR),
    databaseUrl: e.DATABASE_URL,
    publicUrl: (e.PORCHLIGHT_PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, ""),
    logLevel: e.LOG_LEVEL,
    /** How log lines read; undefined: pretty on a terminal, JSON otherwise (log.ts). */
    logFormat: e.LOG_FORMAT,
    ownerEmail: e.PORCHLIGHT_OWNER_EMAIL,
    trustedProxies: e.PORCHLIGHT_TRUSTED_PROXIES,
    passwordAttempts: e.PORCHLIGHT_PASSWORD_ATTEMPTS,
    passwordWindowSeconds: e.PORCHLIGHT_PASSWORD_WINDOW_SECONDS,
    /** Password checks (scrypt) this process runs: at once, started a second, and started a second for one page. */
    passwordHashes: {
      inFlight: e.PORCHLIGHT_PASSWORD_HASHES_IN_FLIGHT,
      perSecond: e.PORCHLIGHT_PASSWORD_HASHES_PER_SECOND,
      pagePerSecond: e.PORCHLIGHT_PASSWORD_PAGE_HASHES_PER_SECOND,
    },
    viewTtlSeconds: e.PORCHLIGHT_VIEW_TTL_SECONDS,
    region: e.PORCHLIGHT_REGION,
    engine: e.PORCHLIGHT_ENGINE === "on",
    allowPrivateTargets: e.PORCHLIGHT_ALLOW_PRIVATE_TARGETS === "true",
    /** How long a sender's claim on a delivery holds: how soon another process takes over a dead one's alerts. */
    alertLeaseMs: e.PORCHLIGHT_ALERT_LEASE_SECONDS * 1000,
    /** The key alert channels' credentials are sealed with; undefined: the data directory's key file. */
    secretKey: e.PORCHLIGHT_SECRET_KEY,
    /** Where the Telegram and PagerDuty channels post (a self-hosted Bot API server; a test's receiver). */
    alertApis: {
      telegram: e.PORCHLIGHT_TELEGRAM_API_URL.replace(/\/+$/, ""),
      pagerduty: e.PORCHLIGHT_PAGERDUTY_EVENTS_URL,
    },
    /** Whether the landing page (GET /) lists the public status pages; false leaves only its developer links. */
    landingPages: e.PORCHLIGHT_LANDING_PAGES === "true",
    checkConcurrency: e.PORCHLIGHT_CHECK_CONCURRENCY,
    resultRetentionHours: e.PORCHLIGHT_RESULT_RETENTION_HOURS,
    /** The words and formats of the hosted and prerendered pages. */
    pageLocale: e.PORCHLIGHT_PAGE_LOCALE,
    /** smtp:// or smtps:// URL of the mail server; without it, mail is written as .eml files under dataDir/mail. */
    smtpUrl: e.SMTP_URL,
    mailFrom: e.PORCHLIGHT_MAIL_FROM,
    /** Limits per client (IPv4 address or IPv6 /64) and, for the API, per token. */
    limits: {
      snapshotsPerMinute: e.PORCHLIGHT_SNAPSHOTS_PER_MINUTE,
      pollsPerMinute: e.PORCHLIGHT_SNAPSHOT_POLLS_PER_MINUTE,
      reportsPerHour: e.PORCHLIGHT_REPORTS_PER_HOUR,
      apiPerMinute: e.PORCHLIGHT_API_REQUESTS_PER_MINUTE,
    },
    snapshot: {
      concurrency: e.PORCHLIGHT_SNAPSHOT_CONCURRENCY,
      timeoutMs: e.PORCHLIGHT_SNAPSHOT_TIMEOUT_SECONDS * 1000,
      reuseMs: e.PORCHLIGHT_SNAPSHOT_REUSE_SECONDS * 1000,
    },
    reportIntervalMs: e.PORCHLIGHT_REPORT_INTERVAL_MINUTES * 60_000,
    /** A bearer token GET /metrics requires; undefined leaves /metrics open. */
    metricsToken: e.PORCHLIGHT_METRICS_TOKEN,
    /** How long `serve` and `worker` may take to stop on SIGINT or SIGTERM before they exit anyway, with 1. */
    shutdownTimeoutMs: e.PORCHLIGHT_SHUTDOWN_TIMEOUT_SECONDS * 1000,
  }));
}

/** The server's configuration, as configSchema makes it from the environment. */
export type Config = z.output<ReturnType<typeof configSchema>>;

export class ConfigError extends Error {}

/** Variables whose values are never shown, not even in an error about them. */
const SECRET_VARIABLES = new Set(["PORCHLIGHT_METRICS_TOKEN"]);

/**
 * The error for bad variables: one line per issue, `NAME="value": what it accepts`, with a secret's value and a
 * URL's password hidden (they must not reach a terminal or a log through an error message).
 */
export function invalidConfiguration(
  issues: readonly z.core.$ZodIssue[],
  env: Record<string, string | undefined>,
): ConfigError {
  const lines = issues.map((issue) => {
    const name = String(issue.path[0] ?? "environment");
    const shown = SECRET_VARIABLES.has(name) ? "***" : (env[name] ?? "").replace(/(\/\/[^/@:]*:)[^@/]*@/, "$1***@");
    return `${name}=${JSON.stringify(shown)}: ${issue.message}`;
  });
  return new ConfigError(`Invalid configuration:\n  ${lines.join("\n  ")}`);
}

/** The variables that are set: an empty one counts as unset. */
function presentVariables(env: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== ""),
  );
}

/** Parses the environment once. A bad value throws a ConfigError naming the variable and what it accepts. */
export function loadConfig(env: Record<string, string | undefined> = process.env, cwd = process.cwd()): Config {
  const parsed = configSchema(cwd).safeParse(presentVariables(env));
  if (!parsed.success) throw invalidConfiguration(parsed.error.issues, env);
  return parsed.data;
}
