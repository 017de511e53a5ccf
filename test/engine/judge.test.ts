/**
 * The engine's judging step without a database: site rows, recent results and outcomes in, every write out. Each
 * row pins one thing the verdict decides (state, incident, statistics, conditions), so a broken judge fails here.
 */
import { afterEach, describe, expect, test, vi } from "vitest";
import { IncidentPolicy } from "../../server/contract/status-page.ts";
import {
  CONDITIONS_EVERY_MS,
  conditionsDue,
  type IncidentIntent,
  incidentWrites,
  type JudgeInput,
  judge,
  visitorMessage,
} from "../../server/engine/judge.ts";
import type { DueCheck, Outcome } from "../../server/engine/outcome.ts";
import type { ResultSummary } from "../../server/engine/verdict.ts";
import type { AutomaticIncident, Showing, ShowingItem } from "../../server/store/checks.ts";
import { changeColumns, type MonitoredSite, monitoredSite } from "../../server/store/monitored.ts";
import type { SiteRow } from "../../server/store/schema.ts";

const IMMEDIATELY = IncidentPolicy.parse({ publish: "immediately" });

const NOW = Date.parse("2026-11-21T12:00:00Z");
const MIN = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();
/** Fresh for two intervals (60 s) plus the timeout (30 s). */
const FRESH_MS = 2 * MIN + 30_000;

/** A site as stored (its row, with `overrides`), read as the store gives it to the judge. */
function site(overrides: Partial<SiteRow> = {}): MonitoredSite {
  return monitoredSite({
    id: "site-a",
    workspace_id: "w",
    version: 0,
    url: "https://shop.test/",
    name: "Shop",
    method: "GET",
    headers: "[]",
    check_interval: 60,
    timeout: 30,
    parent_group: "",
    pause: 0,
    notes: "",
    success_codes: "[200]",
    error_codes: "[]",
    enabled: 1,
    regions: '["local"]',
    has_certificate_error: 0,
    is_frozen: 0,
    legacy_status: "active",
    state: "healthy",
    health_summary: "Up: 120 ms in local.",
    last_check_time: iso(NOW - MIN),
    last_response_ms: 120,
    ssl_info: null,
    domain_info: null,
    domain_expiration: null,
    wordpress: null,
    created_at: iso(NOW - 86_400_000),
    updated_at: iso(NOW - 86_400_000),
    slow_threshold_ms: 2000,
    conditions: "[]",
    judged_at: iso(NOW - MIN),
    down_since: null,
    reminded: null,
    // An outage stored before a rule's confirmations: its down alert was sent as it began.
    alerted_at: overrides.down_since ?? null,
    flap: null,
    tags: "[]",
    settings: "{}",
    push_token_hash: null,
    push_since: null,
    push_last_at: null,
    push_last_status: null,
    push_last_message: null,
    push_last_ms: null,
    in_maintenance: 0,
    rejudge_at: null,
    // Judged a moment ago: conditions are not due unless a row says so.
    conditions_at: iso(NOW - MIN),
    domain_checked_at: null,
    ...overrides,
  });
}

/** Results of one region, newest first: "u" up (120 ms), "d" down, or an up check's response time. */
function results(region: string, pattern: (string | number)[], newest = NOW): ResultSummary[] {
  return pattern.map((p, i) => ({
    region,
    at: newest - i * MIN,
    ok: p !== "d",
    responseMs: p === "d" ? null : typeof p === "number" ? p : 120,
    error: p === "d" ? "HTTP 500" : null,
  }));
}

function outcome(siteId: string, at: number, overrides: Partial<Outcome> = {}): Outcome {
  const check = { siteId, region: "local", dueAt: at, owner: "e1", recent: [] } as unknown as DueCheck;
  return {
    check,
    at,
    ok: true,
    slow: false,
    statusCode: 200,
    responseMs: 120,
    error: null,
    timings: { totalMs: 120 },
    certificate: null,
    wordpress: null,
    ...overrides,
  };
}

/** What judging reads, and what the pages show of the sites (read for the moving ones only, as record.ts does). */
type Given = JudgeInput & {
  items: (Pick<ShowingItem, "page_id" | "site_id" | "label"> & Partial<ShowingItem>)[];
  openIncidents: (Pick<AutomaticIncident, "id" | "page_id" | "site_id" | "status"> & Partial<AutomaticIncident>)[];
};

function input(overrides: Partial<Given> = {}): Given {
  return {
    now: NOW,
    sites: [site()],
    recent: new Map([["site-a", results("local", ["u", "u"])]]),
    outcomes: [],
    windows: new Map(),
    maintenance: new Map(),
    repeats: new Map(),
    items: [{ page_id: 7, site_id: "site-a", label: "Shop" }],
    openIncidents: [],
    ...overrides,
  };
}

/**
 * Both pure steps as the engine runs them: judge, then the incident moves' rows from what the pages show of the
 * moving sites (the given items and incidents of the sites that move, nothing of the others).
 */
function judged(given: Given) {
  const j = judge(given);
  const moving = new Set(j.moves.map((m) => m.siteId));
  // Pages that publish at once, items added long ago, incidents open since an hour: what these tests were written for.
  const showing: Showing = {
    items: given.items
      .filter((i) => moving.has(i.site_id))
      .map((i, n) => ({ id: n + 1, created_at: iso(NOW - 86_400_000), policy: IMMEDIATELY, ...i })),
    incidents: given.openIncidents
      .filter((i) => i.site_id !== null && moving.has(i.site_id))
      .map((i) => ({ started_at: iso(NOW - 3_600_000), resolved_at: null, ...i })),
  };
  return { ...j, incidents: incidentWrites(j.moves, showing, given.now) };
}

/** A site's change as the columns it writes (the store encodes it so). */
const changeOf = (j: ReturnType<typeof judge>, id = "site-a") => {
  const change = j.sites.find((s) => s.id === id)?.change;
  return change && changeColumns(change);
};

afterEach(() => {
  vi.useRealTimers();
});

describe("judge: state and incidents", () => {
  test("a healthy site stays healthy: its summary and times are written, nothing else moves", () => {
    const j = judged(input());
    expect(changeOf(j)).toEqual({
      state: "healthy",
      health_summary: "Up: 120 ms in local.",
      judged_at: iso(NOW),
      rejudge_at: iso(NOW + FRESH_MS),
    });
    expect(j.incidents).toEqual([]);
    expect(j.moves).toEqual([]);
    expect(j.stats).toEqual([]);
    expect(j.pagesChanged).toBe(false);
  });

  test("only the sites whose incidents move are named, so what the pages show is read for them alone", () => {
    const j = judge(
      input({
        sites: [
          site(),
          site({ id: "site-b" }),
          site({ id: "site-c", state: "unhealthy", down_since: iso(NOW - 10 * MIN) }),
        ],
        recent: new Map([
          ["site-a", results("local", ["u", "u"])],
          ["site-b", results("local", ["d", "d"])],
          ["site-c", results("local", ["u", "u"])],
        ]),
      }),
    );
    expect(j.moves).toEqual([
      {
        siteId: "site-b",
        move: "open",
        summary: expect.stringContaining("Down"),
        reason: "HTTP 500",
        state: "unhealthy",
        downSince: iso(NOW),
        cooldownMinutes: 15,
      },
      {
        siteId: "site-c",
        move: "resolve",
        summary: expect.stringContaining("Up"),
        reason: null,
        state: "healthy",
        downSince: iso(NOW - 10 * MIN),
        cooldownMinutes: 15,
      },
    ]);
  });

  test("healthy to unhealthy opens one automatic incident per page showing the site", () => {
    const j = judged(
      input({
        recent: new Map([["site-a", results("local", ["d", "d"])]]),
        items: [
          { page_id: 7, site_id: "site-a", label: "Shop" },
          { page_id: 8, site_id: "site-a", label: "Our shop" },
          { page_id: 9, site_id: "site-b", label: "Blog" },
        ],
      }),
    );
    expect(changeOf(j)).toMatchObject({ state: "unhealthy", health_summary: "Down in local: HTTP 500." });
    expect(j.pagesChanged).toBe(true);
    const at = iso(NOW);
    expect(j.incidents).toEqual([
      {
        kind: "open",
        incident: {
          page_id: 7,
          title: "Shop is unavailable",
          status: "investigating",
          started_at: at,
          resolved_at: null,
          created_at: at,
          updated_at: at,
          site_id: "site-a",
          source: "automatic",
          impact: "critical",
          published_at: at,
          publish_at: null,
        },
        // The page's template in plain words; the failing check's error is the owner's detail.
        message: "We are seeing problems reaching Shop and are looking into it.",
        detail: "HTTP 500",
        at,
        items: [{ item_id: 1, status: "major_outage" }],
      },
      expect.objectContaining({
        kind: "open",
        incident: expect.objectContaining({ page_id: 8, title: "Our shop is unavailable" }),
      }),
    ]);
  });

  test("turning unhealthy with an automatic incident still open on a page updates that one instead", () => {
    const j = judged(
      input({
        recent: new Map([["site-a", results("local", ["d", "d"])]]),
        openIncidents: [{ id: 41, page_id: 7, site_id: "site-a", status: "identified" }],
      }),
    );
    expect(j.incidents).toEqual([
      {
        kind: "append",
        pageId: 7,
        incidentId: 41,
        status: "identified",
        message: "We are seeing problems reaching Shop and are looking into it.",
        detail: "HTTP 500",
        at: iso(NOW),
      },
    ]);
  });

  test("recovery resolves the open automatic incident", () => {
    const j = judged(
      input({
        sites: [site({ state: "unhealthy", down_since: iso(NOW - 10 * MIN) })],
        openIncidents: [{ id: 41, page_id: 7, site_id: "site-a", status: "investigating" }],
      }),
    );
    expect(changeOf(j)?.state).toBe("healthy");
    expect(j.pagesChanged).toBe(true);
    expect(j.incidents).toEqual([
      {
        kind: "append",
        pageId: 7,
        incidentId: 41,
        status: "resolved",
        message: "Shop is available again. It was unavailable for 10 minutes.",
        detail: null,
        at: iso(NOW),
      },
    ]);
  });

  test("another site's open incident is left alone", () => {
    const j = judged(
      input({
        sites: [site({ state: "unhealthy" })],
        openIncidents: [{ id: 42, page_id: 7, site_id: "site-b", status: "investigating" }],
      }),
    );
    expect(j.incidents).toEqual([]);
  });

  test("a paused site is unknown and not judged again by time; an open incident says it is not being checked", () => {
    const j = judged(
      input({
        sites: [site({ state: "unhealthy", pause: 1, down_since: iso(NOW - 10 * MIN) })],
        openIncidents: [{ id: 41, page_id: 7, site_id: "site-a", status: "investigating" }],
      }),
    );
    expect(changeOf(j)).toMatchObject({ state: "unknown", health_summary: "Paused: not checked.", rejudge_at: null });
    expect(j.incidents).toEqual([
      expect.objectContaining({
        kind: "append",
        incidentId: 41,
        status: "investigating",
        message: "Shop is not being checked at the moment, so its state is unknown.",
      }),
    ]);
  });

  test("a disabled site is unknown, whatever its results", () => {
    const j = judged(input({ sites: [site({ enabled: 0 })] }));
    expect(changeOf(j)).toMatchObject({ state: "unknown", health_summary: "Disabled: not checked.", rejudge_at: null });
    expect(j.pagesChanged).toBe(true);
  });

  test.each([
    ["down in one of three regions: degraded, no incident", ["d", "u", "u"], "degraded", 0],
    ["down in two of three regions: a majority, unhealthy", ["d", "d", "u"], "unhealthy", 1],
    ["down in all three", ["d", "d", "d"], "unhealthy", 1],
  ])("multi-region quorum: %s", (_name, pattern, state, opened) => {
    const regions = ["a", "b", "c"];
    const recent = regions.flatMap((region, i) => results(region, [pattern[i] as string, pattern[i] as string]));
    const j = judged(
      input({ sites: [site({ regions: JSON.stringify(regions) })], recent: new Map([["site-a", recent]]) }),
    );
    expect(changeOf(j)?.state).toBe(state);
    expect(j.incidents.filter((w) => w.kind === "open")).toHaveLength(opened);
  });

  test.each([
    [
      "one failed check, not yet confirmed",
      results("local", ["d", "u"]),
      "A check failed in local, not yet confirmed: HTTP 500.",
    ],
    [
      "slow beyond the site's threshold",
      results("local", [2500, "u"]),
      "Slow in local: 2,500 ms, above the 2,000 ms threshold.",
    ],
  ])("degraded: %s, and no incident opens", (_name, recent, summary) => {
    const j = judged(input({ recent: new Map([["site-a", recent]]) }));
    expect(changeOf(j)).toMatchObject({ state: "degraded", health_summary: summary });
    expect(j.pagesChanged).toBe(true);
    expect(j.incidents).toEqual([]);
  });

  test("a region's results go stale: unknown, and the site is judged again when the last fresh one expires", () => {
    const stale = judged(input({ recent: new Map([["site-a", results("local", ["u"], NOW - FRESH_MS - 1)]]) }));
    expect(changeOf(stale)).toMatchObject({ state: "unknown", rejudge_at: null });
    const later = judged(
      input({
        sites: [site({ regions: '["a","b"]' })],
        recent: new Map([["site-a", [...results("a", ["u"], NOW - 10_000), ...results("b", ["u"], NOW - 40_000)]]]),
      }),
    );
    expect(changeOf(later)?.rejudge_at).toBe(iso(NOW - 40_000 + FRESH_MS));
  });
});

describe("judge: statistics", () => {
  test("each outcome counts on its UTC day: checks, up, slow, response times of successful checks", () => {
    const midnight = Date.parse("2026-11-21T00:00:00Z");
    const j = judged(
      input({
        now: midnight + MIN,
        recent: new Map([["site-a", results("local", ["u", "u"], midnight + MIN)]]),
        outcomes: [
          outcome("site-a", midnight - 30_000, { responseMs: 100 }),
          outcome("site-a", midnight + 10_000, { responseMs: 2500, slow: true }),
          outcome("site-a", midnight + 30_000, { ok: false, responseMs: 90, statusCode: 500, error: "HTTP 500" }),
        ],
      }),
    );
    const byDay = Object.fromEntries(j.stats.map((s) => [s.day, s]));
    expect(byDay).toEqual({
      "2026-11-20": {
        site_id: "site-a",
        day: "2026-11-20",
        checks_total: 1,
        checks_up: 1,
        slow_count: 0,
        response_count: 1,
        response_ms_sum: 100,
        downtime_ms: 0,
      },
      "2026-11-21": {
        site_id: "site-a",
        day: "2026-11-21",
        checks_total: 2,
        checks_up: 1,
        slow_count: 1,
        response_count: 1,
        response_ms_sum: 2500,
        downtime_ms: 0,
      },
    });
  });

  test("downtime since the last verdict of an unhealthy site is split at midnight (UTC)", () => {
    const midnight = Date.parse("2026-11-21T00:00:00Z");
    const j = judged(
      input({
        now: midnight + 20_000,
        sites: [site({ state: "unhealthy", judged_at: iso(midnight - 40_000) })],
        recent: new Map([["site-a", results("local", ["d", "d"], midnight + 20_000)]]),
      }),
    );
    expect(j.stats.map((s) => [s.day, s.downtime_ms, s.checks_total])).toEqual([
      ["2026-11-20", 40_000, 0],
      ["2026-11-21", 20_000, 0],
    ]);
  });

  test("downtime reaches back no further than results stay fresh", () => {
    const j = judged(
      input({
        sites: [site({ state: "unhealthy", judged_at: iso(NOW - 3_600_000) })],
        recent: new Map([["site-a", results("local", ["d", "d"])]]),
      }),
    );
    expect(j.stats.map((s) => s.downtime_ms)).toEqual([FRESH_MS]);
  });

  test("a site that was not unhealthy has no downtime; outcomes of other sites are not its own", () => {
    const j = judged(input({ outcomes: [outcome("site-b", NOW)] }));
    expect(j.stats).toEqual([]);
  });
});

describe("judge: what a check saw", () => {
  test("the check time never goes back; the latest response time goes with it", () => {
    const newer = judged(input({ outcomes: [outcome("site-a", NOW - 1000, { responseMs: 77 })] }));
    expect(changeOf(newer)).toMatchObject({ last_check_time: iso(NOW - 1000), last_response_ms: 77 });
    const older = judged(
      input({
        sites: [site({ last_check_time: iso(NOW) })],
        outcomes: [outcome("site-a", NOW - 1000, { responseMs: 77 })],
      }),
    );
    expect(changeOf(older)).not.toHaveProperty("last_check_time");
    expect(changeOf(older)).not.toHaveProperty("last_response_ms");
  });

  test("a new certificate is stored and makes the conditions due at once, judged from it", () => {
    const expiresAt = iso(NOW + 5 * 86_400_000);
    const certificate = { expiresAt, issuer: "Test CA", authorized: false, error: "self-signed" };
    const outcomes = [outcome("site-a", NOW - 1000, { certificate })];
    expect(conditionsDue([site()], outcomes, NOW)).toEqual(["site-a"]);
    const j = judged(input({ outcomes }));
    const change = changeOf(j);
    expect(JSON.parse(change?.ssl_info ?? "null")).toEqual({ expiresAt, issuer: "Test CA", daysRemaining: 5 });
    expect(change?.has_certificate_error).toBe(1);
    expect(change?.conditions_at).toBe(iso(NOW));
    expect(JSON.parse(change?.conditions ?? "[]")).toEqual([
      expect.objectContaining({ key: "ssl_expiry", level: "critical" }),
    ]);
  });

  test("the same certificate again does not make the conditions due", () => {
    const expiresAt = iso(NOW + 50 * 86_400_000);
    const stored = JSON.stringify({ expiresAt, issuer: "Test CA", daysRemaining: 50 });
    const certificate = { expiresAt, issuer: "Test CA", authorized: true, error: null };
    const outcomes = [outcome("site-a", NOW - 1000, { certificate })];
    expect(conditionsDue([site({ ssl_info: stored })], outcomes, NOW)).toEqual([]);
    const change = changeOf(judged(input({ sites: [site({ ssl_info: stored })], outcomes })));
    expect(change?.has_certificate_error).toBe(0);
    expect(change).not.toHaveProperty("conditions");
    expect(change).not.toHaveProperty("conditions_at");
  });

  test("WordPress seen is stored, unless the owner set it by hand", () => {
    const outcomes = [outcome("site-a", NOW - 1000, { wordpress: true })];
    expect(changeOf(judged(input({ outcomes })))?.wordpress).toBe(
      JSON.stringify({ value: true, manualOverride: false }),
    );
    const manual = site({ wordpress: JSON.stringify({ value: false, manualOverride: true }) });
    expect(changeOf(judged(input({ sites: [manual], outcomes })))).not.toHaveProperty("wordpress");
  });
});

describe("judge: conditions", () => {
  test.each([
    ["never judged", null, true],
    ["judged just now", iso(NOW - 1000), false],
    ["judged CONDITIONS_EVERY_MS ago", iso(NOW - CONDITIONS_EVERY_MS), true],
  ])("due when %s", (_name, conditionsAt, due) => {
    const s = site({ conditions_at: conditionsAt });
    expect(conditionsDue([s], [], NOW)).toEqual(due ? ["site-a"] : []);
    expect(changeOf(judged(input({ sites: [s] })))?.conditions_at).toBe(due ? iso(NOW) : undefined);
  });

  test("the chronic window read beforehand decides chronic_performance; the domain's expiry, domain_expiry", () => {
    const domain = JSON.stringify({ domain: "shop.test", expiresAt: iso(NOW + 20 * 86_400_000), registrar: "R" });
    const j = judged(
      input({
        sites: [site({ conditions_at: null, domain_info: domain })],
        windows: new Map([["site-a", { checks: 20, slowOrFailed: 10 }]]),
      }),
    );
    const conditions = JSON.parse(changeOf(j)?.conditions ?? "[]");
    expect(conditions.map((c: { key: string; level: string }) => [c.key, c.level])).toEqual([
      ["domain_expiry", "warning"],
      ["chronic_performance", "critical"],
    ]);
  });
});

describe("judge is pure", () => {
  test("several sites are judged in their given order; the input is not changed", () => {
    const given = input({
      sites: [site({ id: "site-b", state: "unknown" }), site()],
      recent: new Map([
        ["site-a", results("local", ["u", "u"])],
        ["site-b", results("local", ["d", "d"])],
      ]),
      items: [{ page_id: 7, site_id: "site-b", label: "Blog" }],
      outcomes: [outcome("site-a", NOW - 1000), outcome("site-b", NOW - 2000, { ok: false })],
    });
    const copy = structuredClone(given);
    const j = judged(given);
    expect(j.sites.map((s) => [s.id, s.change.state])).toEqual([
      ["site-b", "unhealthy"],
      ["site-a", "healthy"],
    ]);
    expect(j.incidents).toEqual([
      expect.objectContaining({ kind: "open", incident: expect.objectContaining({ title: "Blog is unavailable" }) }),
    ]);
    expect(given).toEqual(copy);
  });

  test("time comes from the input only, never from the clock", () => {
    const given = input({
      recent: new Map([["site-a", results("local", ["d", "d"])]]),
      outcomes: [outcome("site-a", NOW - 1000)],
    });
    const first = judged(given);
    vi.useFakeTimers();
    vi.setSystemTime(NOW + 3 * 86_400_000);
    expect(judged(given)).toEqual(first);
    expect(changeOf(first)?.judged_at).toBe(iso(NOW));
  });
});

describe("what an automatic incident tells visitors", () => {
  const intent = (extra: Partial<IncidentIntent>): IncidentIntent => ({
    siteId: "site-a",
    move: "open",
    summary: "Down in eu-west-2 (2 of 3 regions): connect ECONNREFUSED 10.0.0.7:443.",
    ...extra,
  });

  test.each([
    ["HTTP 503", "Shop is down: it answered with an error (HTTP 503)."],
    ["HTTP 500 is listed as an error code", "Shop is down: it answered with an error (HTTP 500)."],
    ["timed out after 10000 ms", "Shop is down: it did not answer in time."],
    ["DNS: host not found", "Shop is down: its address could not be found."],
    ["TLS handshake failed (ERR_SSL_WRONG_VERSION_NUMBER)", "Shop is down: its secure connection failed."],
    ["certificate: certificate has expired", "Shop is down: its secure connection failed."],
    ["connection refused", "Shop is down: it could not be reached."],
    ["connection reset by the server", "Shop is down: it broke off the connection."],
    ["invalid HTTP response", "Shop is down: it answered with something that is not a web page."],
    ["EADDRNOTAVAIL: connect EADDRNOTAVAIL 10.0.0.7:443", "Shop is down: its checks failed."],
    [null, "Shop is down."],
  ])("%s: %s", (reason, words) => {
    expect(visitorMessage("Shop", intent({ reason }))).toBe(words);
  });

  test("no product, region or address: several regions are counted, not named", () => {
    const words = visitorMessage("Shop", intent({ reason: "connection refused", regions: { down: 2, of: 3 } }));
    expect(words).toBe("Shop is down in 2 of 3 regions: it could not be reached.");
    expect(words).not.toMatch(/Porchlight|eu-west|10\.0\.0\.7|local/);
    expect(visitorMessage("Shop", intent({ move: "resolve" }))).toBe("Shop is working again.");
    expect(visitorMessage("Shop", intent({ move: "update" }))).toBe(
      "Shop is not being checked at the moment, so its state is unknown.",
    );
  });

  test("a site down in two of its three regions says so on opening", () => {
    const j = judged(
      input({
        sites: [site({ regions: JSON.stringify(["a", "b", "c"]) })],
        recent: new Map([
          ["site-a", [...results("a", ["d", "d"]), ...results("b", ["d", "d"]), ...results("c", ["u", "u"])]],
        ]),
      }),
    );
    expect(j.incidents).toEqual([
      expect.objectContaining({
        kind: "open",
        incident: expect.objectContaining({ impact: "major" }),
        message: "We are seeing problems reaching Shop and are looking into it.",
        detail: "HTTP 500 (down in 2 of 3 regions)",
        items: [{ item_id: 1, status: "partial_outage" }],
      }),
    ]);
  });

  test("down in every region it is checked from: simply down, no count", () => {
    const j = judged(
      input({
        sites: [site({ regions: JSON.stringify(["a", "b"]) })],
        recent: new Map([["site-a", [...results("a", ["d", "d"]), ...results("b", ["d", "d"])]]]),
      }),
    );
    expect(j.incidents).toEqual([
      expect.objectContaining({
        kind: "open",
        incident: expect.objectContaining({ impact: "critical" }),
        detail: "HTTP 500",
        items: [{ item_id: 1, status: "major_outage" }],
      }),
    ]);
  });

  test("back but degraded: working again, not fully; a hidden item's incident keeps its label", () => {
    const j = judged(
      input({
        sites: [site({ state: "unhealthy", regions: JSON.stringify(["a", "b"]), down_since: iso(NOW - 10 * MIN) })],
        recent: new Map([["site-a", [...results("a", ["d", "d"]), ...results("b", ["u", "u"])]]]),
        // The page no longer shows the item (hidden): the label comes from the incident's title.
        items: [],
        openIncidents: [{ id: 41, page_id: 7, site_id: "site-a", status: "investigating", title: "Our shop is down" }],
      }),
    );
    expect(changeOf(j)?.state).toBe("degraded");
    expect(j.incidents).toEqual([
      expect.objectContaining({
        incidentId: 41,
        status: "resolved",
        message: "Our shop is available again. It was unavailable for 10 minutes.",
      }),
    ]);
  });
});

describe("judge: the moves that alert the owner (issue 18)", () => {
  const down = results("local", ["d", "d", "d"]);
  const up = results("local", ["u", "u", "u"]);

  test("healthy to unhealthy alerts down with the failure, and stamps when the outage began", () => {
    const j = judge(input({ recent: new Map([["site-a", down]]) }));
    expect(j.alerts).toEqual([{ siteId: "site-a", type: "site.down", reason: "HTTP 500", downSince: iso(NOW) }]);
    expect(changeOf(j)?.down_since).toBe(iso(NOW));
  });

  test("still unhealthy alerts nothing more, and keeps the outage's start", () => {
    const since = iso(NOW - 10 * MIN);
    const j = judge(
      input({ sites: [site({ state: "unhealthy", down_since: since })], recent: new Map([["site-a", down]]) }),
    );
    expect(j.alerts).toEqual([]);
    expect(changeOf(j)).not.toHaveProperty("down_since");
  });

  test("unhealthy to healthy alerts recovered with when it went down, and clears the start", () => {
    const since = iso(NOW - 42 * MIN);
    const j = judge(
      input({ sites: [site({ state: "unhealthy", down_since: since })], recent: new Map([["site-a", up]]) }),
    );
    expect(j.alerts).toEqual([{ siteId: "site-a", type: "site.recovered", reason: null, downSince: since }]);
    expect(changeOf(j)?.down_since).toBeNull();
  });

  test("healthy to degraded alerts degraded (the rule decides whether anyone hears it); a pause alerts nothing", () => {
    const degraded = judge(input({ recent: new Map([["site-a", results("local", ["d", "u", "u"])]]) }));
    expect(degraded.alerts.map((a) => a.type)).toEqual(["site.degraded"]);
    const paused = judge(
      input({
        sites: [site({ state: "unhealthy", pause: 1, down_since: iso(NOW) })],
        recent: new Map([["site-a", down]]),
      }),
    );
    expect(paused.alerts).toEqual([]);
    // Paused, it is judged neither down nor up: the outage's start waits for its next verdict.
    expect(changeOf(paused)).not.toHaveProperty("down_since");
  });
});

describe("judge: an alerted outage lasts through unknown (issue 18)", () => {
  const since = iso(NOW - 30 * MIN);
  const stale = results("local", ["d"], NOW - 10 * MIN);

  test("unhealthy, then unknown (stale results): no alert, and the outage's start is kept", () => {
    const j = judge(
      input({ sites: [site({ state: "unhealthy", down_since: since })], recent: new Map([["site-a", stale]]) }),
    );
    expect(changeOf(j)?.state).toBe("unknown");
    expect(j.alerts).toEqual([]);
    expect(changeOf(j)).not.toHaveProperty("down_since");
  });

  test("unknown after an alerted outage, then unhealthy again: not a second down", () => {
    const j = judge(
      input({
        sites: [site({ state: "unknown", down_since: since })],
        recent: new Map([["site-a", results("local", ["d", "d", "d"])]]),
      }),
    );
    expect(changeOf(j)?.state).toBe("unhealthy");
    expect(j.alerts).toEqual([]);
  });

  test("unknown after an alerted outage, then healthy: the recovery is told, from when it went down", () => {
    const j = judge(
      input({
        sites: [site({ state: "unknown", down_since: since })],
        recent: new Map([["site-a", results("local", ["u", "u"])]]),
      }),
    );
    expect(j.alerts).toEqual([{ siteId: "site-a", type: "site.recovered", reason: null, downSince: since }]);
    expect(changeOf(j)?.down_since).toBeNull();
  });
});

describe("judge: expiry reminders and renewals (issue 18)", () => {
  const DAY = 86_400_000;
  /** A site whose certificate expires `left` days (and an hour) from now, its conditions due, last reminded `last`. */
  const withCertificate = (left: number, last?: { expiresAt: string; daysLeft: number }) =>
    site({
      conditions_at: null,
      ssl_info: JSON.stringify({
        expiresAt: iso(NOW + left * DAY + 3_600_000),
        issuer: "Test CA",
        daysRemaining: left,
      }),
      reminded: last ? JSON.stringify({ certificate: last }) : null,
    });
  const reminders = (s: MonitoredSite) =>
    judge(input({ sites: [s] })).alerts.filter((a) => a.type.startsWith("certificate"));
  const expiresAt = (left: number) => iso(NOW + left * DAY + 3_600_000);

  test("far from expiry: nothing, but what was judged is kept", () => {
    const j = judge(input({ sites: [withCertificate(100)] }));
    expect(j.alerts).toEqual([]);
    expect(JSON.parse(changeOf(j)?.reminded as string)).toEqual({
      certificate: { expiresAt: expiresAt(100), daysLeft: 100 },
    });
  });

  test("a reminder day or a level crossed reminds once; the days between do not", () => {
    expect(reminders(withCertificate(30, { expiresAt: expiresAt(30), daysLeft: 31 }))).toEqual([
      {
        siteId: "site-a",
        type: "certificate.expiring",
        reason: "Test CA",
        downSince: null,
        expiry: { expiresAt: expiresAt(30), daysLeft: 30 },
      },
    ]);
    expect(reminders(withCertificate(29, { expiresAt: expiresAt(29), daysLeft: 30 }))).toEqual([]);
    expect(reminders(withCertificate(30, { expiresAt: expiresAt(30), daysLeft: 30 }))).toEqual([]);
    // The warning level (21 days) is a reminder too, and so are 14, 7, 3, 1 and the day itself.
    for (const day of [21, 14, 7, 3, 1, 0]) {
      expect(
        reminders(withCertificate(day, { expiresAt: expiresAt(day), daysLeft: day + 1 })),
        `day ${day}`,
      ).toHaveLength(1);
    }
    // First seen already close: one reminder, not one per mark passed.
    expect(reminders(withCertificate(5))).toHaveLength(1);
  });

  test("a later expiry after reminders is a renewal, told once; one far away renewed is not news", () => {
    const renewed = reminders(withCertificate(90, { expiresAt: expiresAt(5), daysLeft: 5 }));
    expect(renewed).toEqual([
      {
        siteId: "site-a",
        type: "certificate.renewed",
        reason: "Test CA",
        downSince: null,
        expiry: { expiresAt: expiresAt(90), daysLeft: 90 },
      },
    ]);
    expect(reminders(withCertificate(90, { expiresAt: expiresAt(90), daysLeft: 90 }))).toEqual([]);
    expect(reminders(withCertificate(400, { expiresAt: expiresAt(60), daysLeft: 60 }))).toEqual([]);
  });

  test("a domain's registration is reminded the same way, by its own levels", () => {
    const s = site({
      conditions_at: null,
      domain_info: JSON.stringify({ domain: "shop.test", expiresAt: iso(NOW + 7 * DAY + 3_600_000) }),
      reminded: JSON.stringify({ domain: { expiresAt: iso(NOW + 7 * DAY + 3_600_000), daysLeft: 8 } }),
    });
    expect(judge(input({ sites: [s] })).alerts).toEqual([
      expect.objectContaining({
        type: "domain.expiring",
        reason: "shop.test",
        expiry: expect.objectContaining({ daysLeft: 7 }),
      }),
    ]);
  });
});

describe("alerts of chronic performance and repeats (issue 18)", () => {
  const due = { conditions_at: iso(NOW - CONDITIONS_EVERY_MS) };
  const chronic = (level: string) =>
    JSON.stringify([
      { key: "chronic_performance", scope: "performance", level, summary: "", since: iso(NOW), evaluatedAt: iso(NOW) },
    ]);
  test("a rise of the chronic condition's level alerts once, with its summary; not again at the same level, not while down", () => {
    const windows = new Map([["site-a", { checks: 20, slowOrFailed: 5 }]]);
    const rise = judge(input({ sites: [site(due)], windows }));
    expect(rise.alerts).toEqual([
      expect.objectContaining({
        type: "performance.chronic",
        reason: expect.stringMatching(/25% of the last 24 hours/),
      }),
    ]);
    expect(judge(input({ sites: [site({ ...due, conditions: chronic("warning") })], windows })).alerts).toEqual([]);
    const critical = new Map([["site-a", { checks: 20, slowOrFailed: 12 }]]);
    const again = judge(input({ sites: [site({ ...due, conditions: chronic("warning") })], windows: critical }));
    expect(again.alerts.map((a) => a.type)).toEqual(["performance.chronic"]);
    const down = site({ ...due, state: "unhealthy", down_since: iso(NOW - 10 * MIN) });
    const recent = new Map([["site-a", results("local", ["d", "d"])]]);
    expect(judge(input({ sites: [down], windows: critical, recent })).alerts).toEqual([]);
  });

  test("a still-down site repeats at its rule's interval, counted from the last alert; none without a repeat", () => {
    const recent = new Map([["site-a", results("local", ["d", "d"])]]);
    const down = (alertedAgo: number) =>
      site({ state: "unhealthy", down_since: iso(NOW - 60 * MIN), alerted_at: iso(NOW - alertedAgo * MIN) });
    const repeats = new Map([["site-a", 30]]);
    const told = judge(input({ sites: [down(30)], recent, repeats }));
    expect(told.alerts).toEqual([expect.objectContaining({ type: "site.still_down", downSince: iso(NOW - 60 * MIN) })]);
    expect(told.sites[0]?.change.alertedAt).toBe(iso(NOW));
    expect(judge(input({ sites: [down(29)], recent, repeats })).alerts).toEqual([]);
    expect(judge(input({ sites: [down(300)], recent })).alerts).toEqual([]);
  });

  test("in maintenance: no alert, no incident, no statistics; as it ends on a site still down, both", () => {
    const recent = new Map([["site-a", results("local", ["d", "d"])]]);
    const held = new Map([["site-a", [{ start: NOW - 30 * MIN, end: NOW + 30 * MIN }]]]);
    const during = judged(
      input({ sites: [site()], recent, maintenance: held, outcomes: [outcome("site-a", NOW, { ok: false })] }),
    );
    expect(during.alerts).toEqual([]);
    expect(during.incidents).toEqual([]);
    expect(during.stats).toEqual([]);
    expect(changeOf(during)).toMatchObject({ in_maintenance: 1, state: "unhealthy" });
    // A paused site, which nothing checks, is judged again as the window ends (its items read maintenance until then).
    const paused = judge(input({ sites: [site({ pause: 1 })], maintenance: held }));
    expect(changeOf(paused)).toMatchObject({ in_maintenance: 1, rejudge_at: iso(NOW + 30 * MIN) });
    expect(paused.pagesChanged).toBe(true);
    const ended = judged(input({ sites: [site({ state: "unhealthy", in_maintenance: 1 })], recent }));
    expect(ended.alerts.map((a) => a.type)).toEqual(["site.down"]);
    expect(ended.incidents.map((i) => i.kind)).toEqual(["open"]);
  });
});

describe("judge: what the engine keeps between verdicts is written only when it changes, and never changed in place", () => {
  test("a flap inside its window and reminders already judged stay as stored; the site read is left as it was", () => {
    const flap = { starts: [iso(NOW - 20 * MIN)], changedAt: iso(NOW - 15 * MIN) };
    const expiresAt = iso(NOW + 100 * 86_400_000 + 3_600_000);
    const stored = site({
      flap: JSON.stringify(flap),
      conditions_at: null,
      ssl_info: JSON.stringify({ expiresAt, issuer: "Test CA", daysRemaining: 100 }),
      reminded: JSON.stringify({ certificate: { expiresAt, daysLeft: 100 } }),
    });
    const before = structuredClone(stored);
    const rules = new Map([
      [
        "site-a",
        {
          repeatMinutes: null,
          confirmations: 1,
          cooldownMinutes: 0,
          flapping: { outages: 3, windowMinutes: 60, quietMinutes: 30 },
        },
      ],
    ]);
    const j = judge(input({ sites: [stored], rules }));
    const change = j.sites[0]?.change ?? {};
    expect(change).not.toHaveProperty("flap");
    expect(change).not.toHaveProperty("reminded");
    expect(change).toHaveProperty("conditions");
    expect(stored).toEqual(before);
    // Out of its window, the outage is forgotten: the flap is cleared, and that is written.
    const later = judge(input({ sites: [site({ flap: JSON.stringify(flap) })], rules, now: NOW + 60 * MIN }));
    expect(later.sites[0]?.change.flap).toBeNull();
    // A recovery moves the flap's last change in place on the judge's own copy: written, the site read untouched.
    const down = site({ state: "unhealthy", down_since: iso(NOW - 20 * MIN), flap: JSON.stringify(flap) });
    const recovered = judge(input({ sites: [down], rules }));
    expect(recovered.sites[0]?.change.flap).toEqual({ ...flap, changedAt: iso(NOW) });
    expect(down.flap).toEqual(flap);
  });
});
