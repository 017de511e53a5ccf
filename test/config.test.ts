import { expect, test } from "vitest";
import { ConfigError, loadConfig } from "../server/config.ts";

test("defaults: port 8787, ./data, SQLite, info logs", () => {
  const config = loadConfig({}, "/srv/app");
  expect(config).toMatchObject({
    port: 8787,
    host: "0.0.0.0",
    dataDir: "/srv/app/data",
    databaseUrl: undefined,
    publicUrl: "http://localhost:8787",
    logLevel: "info",
    ownerEmail: "owner@localhost",
    trustedProxies: [],
    passwordAttempts: 10,
    passwordWindowSeconds: 900,
    viewTtlSeconds: 10,
    region: "local",
    engine: true,
    allowPrivateTargets: false,
    landingPages: true,
    checkConcurrency: 500,
    resultRetentionHours: 48,
    shutdownTimeoutMs: 10_000,
  });
});

test("the shutdown deadline is given in seconds", () => {
  expect(loadConfig({ PORCHLIGHT_SHUTDOWN_TIMEOUT_SECONDS: "30" }).shutdownTimeoutMs).toBe(30_000);
});

test("the engine's settings are parsed", () => {
  expect(
    loadConfig({
      PORCHLIGHT_REGION: "eu-west",
      PORCHLIGHT_ENGINE: "off",
      PORCHLIGHT_ALLOW_PRIVATE_TARGETS: "true",
      PORCHLIGHT_CHECK_CONCURRENCY: "50",
      PORCHLIGHT_RESULT_RETENTION_HOURS: "6",
    }),
  ).toMatchObject({
    region: "eu-west",
    engine: false,
    allowPrivateTargets: true,
    checkConcurrency: 50,
    resultRetentionHours: 6,
  });
});

test("values are parsed: numbers, URLs, proxies, absolute data dirs", () => {
  const config = loadConfig({
    PORT: "9000",
    PORCHLIGHT_DATA_DIR: "/var/lib/porchlight",
    DATABASE_URL: "postgres://u@db:5432/porchlight",
    PORCHLIGHT_PUBLIC_URL: "https://status.example.com/",
    PORCHLIGHT_TRUSTED_PROXIES: "10.0.0.0/8, ::1",
  });
  expect(config.port).toBe(9000);
  expect(config.dataDir).toBe("/var/lib/porchlight");
  expect(config.databaseUrl).toBe("postgres://u@db:5432/porchlight");
  expect(config.publicUrl).toBe("https://status.example.com");
  expect(config.trustedProxies.map(([addr, bits]) => `${addr.toString()}/${bits}`)).toEqual(["10.0.0.0/8", "::1/128"]);
});

test.each([
  ["PORT", "eighty"],
  ["PORT", "70000"],
  ["DATABASE_URL", "mysql://x"],
  ["PORCHLIGHT_PUBLIC_URL", "ftp://x"],
  ["LOG_LEVEL", "loud"],
  ["PORCHLIGHT_OWNER_EMAIL", "not-an-email"],
  ["PORCHLIGHT_TRUSTED_PROXIES", "10.0.0.0/8,banana"],
  ["PORCHLIGHT_PASSWORD_ATTEMPTS", "0"],
  ["PORCHLIGHT_REGION", "EU West"],
  ["PORCHLIGHT_ENGINE", "maybe"],
  ["PORCHLIGHT_ALLOW_PRIVATE_TARGETS", "yes"],
  ["PORCHLIGHT_LANDING_PAGES", "no"],
  ["PORCHLIGHT_CHECK_CONCURRENCY", "0"],
  ["PORCHLIGHT_RESULT_RETENTION_HOURS", "0"],
  ["PORCHLIGHT_SHUTDOWN_TIMEOUT_SECONDS", "0"],
  ["PORCHLIGHT_SHUTDOWN_TIMEOUT_SECONDS", "1.5"],
])("a bad %s (%s) stops start-up with a message naming it", (name, value) => {
  expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
  expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`${name}=`));
});

test("a bad DATABASE_URL is named without its password", () => {
  let message = "";
  try {
    loadConfig({ DATABASE_URL: "mysql://app:s3cret@db/porch" });
  } catch (error) {
    message = (error as Error).message;
  }
  expect(message).toContain('DATABASE_URL="mysql://app:***@db/porch"');
  expect(message).not.toContain("s3cret");
});

test("a metrics token with white space, which no Authorization header could carry, stops start-up unshown", () => {
  expect(loadConfig({ PORCHLIGHT_METRICS_TOKEN: "0123456789abcdef-token" }).metricsToken).toBe(
    "0123456789abcdef-token",
  );
  for (const token of ["0123456789 abcdef", "0123456789abcdef ", "0123456789\tabcdef"]) {
    expect(() => loadConfig({ PORCHLIGHT_METRICS_TOKEN: token })).toThrow(
      'PORCHLIGHT_METRICS_TOKEN="***": must not contain white space',
    );
  }
});

test("the landing page's list of public pages can be turned off", () => {
  expect(loadConfig({ PORCHLIGHT_LANDING_PAGES: "false" }).landingPages).toBe(false);
  expect(loadConfig({ PORCHLIGHT_LANDING_PAGES: "true" }).landingPages).toBe(true);
});

test("empty variables count as unset", () => {
  expect(loadConfig({ PORT: "", DATABASE_URL: "" }).port).toBe(8787);
});

test("the settings are grouped and counted in the units the code uses", () => {
  expect(
    loadConfig({
      PORCHLIGHT_PASSWORD_HASHES_IN_FLIGHT: "3",
      PORCHLIGHT_PASSWORD_HASHES_PER_SECOND: "5",
      PORCHLIGHT_PASSWORD_PAGE_HASHES_PER_SECOND: "2",
      PORCHLIGHT_SNAPSHOTS_PER_MINUTE: "11",
      PORCHLIGHT_SNAPSHOT_POLLS_PER_MINUTE: "121",
      PORCHLIGHT_REPORTS_PER_HOUR: "4",
      PORCHLIGHT_API_REQUESTS_PER_MINUTE: "601",
      PORCHLIGHT_SNAPSHOT_CONCURRENCY: "5",
      PORCHLIGHT_SNAPSHOT_TIMEOUT_SECONDS: "21",
      PORCHLIGHT_SNAPSHOT_REUSE_SECONDS: "0",
      PORCHLIGHT_REPORT_INTERVAL_MINUTES: "6",
      PORCHLIGHT_PAGE_LOCALE: "de-CH",
    }),
  ).toMatchObject({
    passwordHashes: { inFlight: 3, perSecond: 5, pagePerSecond: 2 },
    limits: { snapshotsPerMinute: 11, pollsPerMinute: 121, reportsPerHour: 4, apiPerMinute: 601 },
    snapshot: { concurrency: 5, timeoutMs: 21_000, reuseMs: 0 },
    reportIntervalMs: 360_000,
    pageLocale: "de-CH",
  });
  expect(loadConfig({})).toMatchObject({
    passwordHashes: { inFlight: 2, perSecond: 4, pagePerSecond: 1 },
    limits: { snapshotsPerMinute: 10, pollsPerMinute: 120, reportsPerHour: 3, apiPerMinute: 600 },
    snapshot: { concurrency: 4, timeoutMs: 20_000, reuseMs: 300_000 },
    reportIntervalMs: 300_000,
    pageLocale: "en",
    smtpUrl: undefined,
    mailFrom: "Porchlight <porchlight@localhost>",
    metricsToken: undefined,
  });
});

test("the public URL defaults to this port on localhost", () => {
  expect(loadConfig({ PORT: "9000" }).publicUrl).toBe("http://localhost:9000");
});
