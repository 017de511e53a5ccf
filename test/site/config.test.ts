import { availableParallelism } from "node:os";
import { describe, expect, test } from "vitest";
import { ConfigError, loadConfig } from "../../server/config.ts";
import { loadSiteConfig, MAX_DEFAULT_THREADS } from "../../site/config.ts";
import { siteBase, siteUrl } from "../../site/options.ts";
import { buildThreads } from "../../site/page-pool.ts";

const defaultThreads = Math.min(availableParallelism(), MAX_DEFAULT_THREADS);

/** The message loadSiteConfig throws for `env`, or "" when it parses. */
const failure = (env: NodeJS.ProcessEnv): string => {
  try {
    loadSiteConfig(env);
    return "";
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
};

describe("the static build's variables", () => {
  test("defaults: served from /, no public origin, the local store, one thread per core (at most 8), en", () => {
    expect(loadSiteConfig({})).toEqual({
      base: "/",
      siteUrl: undefined,
      apiUrl: undefined,
      apiToken: undefined,
      siteApiUrl: undefined,
      buildThreads: defaultThreads,
      pageLocale: "en",
    });
  });

  test("empty variables count as unset, except PORCHLIGHT_SITE_API_URL, which is taken as it is", () => {
    expect(
      loadSiteConfig({
        PORCHLIGHT_SITE_BASE: "",
        PORCHLIGHT_SITE_URL: "",
        PORCHLIGHT_API_URL: "",
        PORCHLIGHT_API_TOKEN: "",
        PORCHLIGHT_SITE_API_URL: "",
        PORCHLIGHT_BUILD_THREADS: "",
        PORCHLIGHT_PAGE_LOCALE: "",
      }),
    ).toEqual({
      base: "/",
      siteUrl: undefined,
      apiUrl: undefined,
      apiToken: undefined,
      siteApiUrl: "",
      buildThreads: defaultThreads,
      pageLocale: "en",
    });
  });

  test("values are taken: the API, its token, where pages refresh from, threads, locale", () => {
    expect(
      loadSiteConfig({
        PORCHLIGHT_API_URL: "https://api.example.com/",
        PORCHLIGHT_API_TOKEN: "pl_test",
        PORCHLIGHT_SITE_API_URL: "https://live.example.com/",
        PORCHLIGHT_BUILD_THREADS: "0",
        PORCHLIGHT_PAGE_LOCALE: "de-CH",
      }),
    ).toMatchObject({
      // The API's own URL is the data loader's to trim (site/data.ts); the others are used as they are.
      apiUrl: "https://api.example.com/",
      apiToken: "pl_test",
      siteApiUrl: "https://live.example.com/",
      buildThreads: 0,
      pageLocale: "de-CH",
    });
    expect(loadSiteConfig({ PORCHLIGHT_BUILD_THREADS: "999" }).buildThreads).toBe(999);
    expect(loadSiteConfig({ PORCHLIGHT_BUILD_THREADS: "007" }).buildThreads).toBe(7);
  });

  test.each([
    ["/", "/"],
    ["status", "/status/"],
    ["/status", "/status/"],
    ["status/", "/status/"],
    ["//sub/path//", "/sub/path/"],
    ["///", "/"],
  ])("the base %j is served as %j", (value, base) => {
    expect(loadSiteConfig({ PORCHLIGHT_SITE_BASE: value }).base).toBe(base);
    expect(siteBase({ PORCHLIGHT_SITE_BASE: value })).toBe(base);
  });

  test.each([
    ["https://status.example.com", "https://status.example.com"],
    ["https://status.example.com/", "https://status.example.com"],
    ["https://example.com/status//", "https://example.com/status"],
    ["/", undefined],
  ])("the site URL %j is used as %j (no trailing slash)", (value, url) => {
    expect(loadSiteConfig({ PORCHLIGHT_SITE_URL: value }).siteUrl).toBe(url);
    expect(siteUrl({ PORCHLIGHT_SITE_URL: value })).toBe(url);
  });

  test.each(["-1", "1.5", "two", "0x2", " 2", "2 ", "1000", "1e2"])(
    "a bad PORCHLIGHT_BUILD_THREADS (%j) stops the build with a message naming it and the value",
    (value) => {
      const message = `PORCHLIGHT_BUILD_THREADS must be a whole number from 0 to 999, not "${value}"`;
      expect(failure({ PORCHLIGHT_BUILD_THREADS: value })).toBe(message);
      expect(() => buildThreads({ PORCHLIGHT_BUILD_THREADS: value })).toThrow(message);
    },
  );

  test.each(["de_CH", "english", "e", "en-"])(
    "a bad PORCHLIGHT_PAGE_LOCALE (%j) stops the build with the message the server gives",
    (value) => {
      const message = `Invalid configuration:\n  PORCHLIGHT_PAGE_LOCALE=${JSON.stringify(value)}: must be a BCP 47 locale such as en or de-CH`;
      expect(failure({ PORCHLIGHT_PAGE_LOCALE: value })).toBe(message);
      expect(() => loadConfig({ PORCHLIGHT_PAGE_LOCALE: value })).toThrow(message);
    },
  );

  test("two bad values are both named, one a line", () => {
    expect(failure({ PORCHLIGHT_BUILD_THREADS: "x", PORCHLIGHT_PAGE_LOCALE: "de_CH" })).toBe(
      [
        'PORCHLIGHT_BUILD_THREADS must be a whole number from 0 to 999, not "x"',
        "Invalid configuration:",
        '  PORCHLIGHT_PAGE_LOCALE="de_CH": must be a BCP 47 locale such as en or de-CH',
      ].join("\n"),
    );
  });

  test("only the build's variables are read: a bad server variable is the server's to refuse", () => {
    expect(failure({ PORT: "eighty", DATABASE_URL: "mysql://x" })).toBe("");
  });

  test("an environment is parsed once; another one is parsed on its own", () => {
    const env: NodeJS.ProcessEnv = { PORCHLIGHT_SITE_BASE: "status" };
    const first = loadSiteConfig(env);
    env.PORCHLIGHT_SITE_BASE = "other";
    expect(loadSiteConfig(env)).toBe(first);
    expect(loadSiteConfig({ ...env }).base).toBe("/other/");
  });
});
