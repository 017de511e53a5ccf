// Issue 28: the sites list's decisions (screens/sites/list.ts), with tables of cases: severity, the order by each
// column, the overview's counts, the duplicate-address warning, codes and tags as typed, and the bulk runner's limit.
import { describe, expect, test } from "vitest";
import {
  addressKey,
  addTags,
  countBySeverity,
  eachLimited,
  formatCodes,
  latestResponse,
  parseCodes,
  type Sort,
  sameAddress,
  severityOf,
  sortRows,
  splitTags,
} from "../../../components/porchlight-dashboard/screens/sites/list.ts";
import type { SiteOverview } from "../../../server/contract/site.ts";

type Status = SiteOverview["site"]["status"];
type State = SiteOverview["site"]["state"];

/** A row with only what the list reads; the rest of the site is never looked at. */
function row(
  name: string,
  status: Status,
  state: State,
  more: { uptime?: number | null; ms?: (number | null)[]; last?: string | null; id?: string } = {},
): SiteOverview {
  const site = {
    id: more.id ?? name,
    name,
    url: `https://${name.toLowerCase()}.example`,
    status,
    state,
    lastCheckTime: more.last === undefined ? "2026-01-01T00:00:00.000Z" : more.last,
    tags: [],
  } as unknown as SiteOverview["site"];
  return {
    site,
    uptime: more.uptime === undefined ? 100 : more.uptime,
    days: (more.ms ?? [null]).map((responseMs, i) => ({ day: `2026-01-0${i + 1}`, uptime: null, responseMs })),
    recent: [],
  };
}

const names = (rows: SiteOverview[]) => rows.map((r) => r.site.name);

describe("severity", () => {
  test.each([
    ["down", "unhealthy", "down"],
    ["up", "degraded", "degraded"],
    ["up", "healthy", "up"],
    ["unknown", "unknown", "unknown"],
    ["paused", "healthy", "paused"],
    ["paused", "unhealthy", "paused"],
  ] as const)("status %s, state %s → %s", (status, state, severity) => {
    expect(severityOf({ status, state })).toBe(severity);
  });

  test("counts every severity, zero included", () => {
    const rows = [
      row("A", "down", "unhealthy"),
      row("B", "down", "unhealthy"),
      row("C", "up", "degraded"),
      row("D", "up", "healthy"),
      row("E", "paused", "healthy"),
    ];
    expect(countBySeverity(rows)).toEqual({ down: 2, degraded: 1, unknown: 0, up: 1, paused: 1 });
  });
});

describe("the list's order", () => {
  const rows = [
    row("paused one", "paused", "healthy", { uptime: 50, ms: [10] }),
    row("beta", "up", "healthy", { uptime: 99.5, ms: [120, 80], last: "2026-01-01T00:00:03.000Z" }),
    row("Alpha", "up", "healthy", { uptime: 100, ms: [300], last: "2026-01-01T00:00:01.000Z" }),
    row("new", "unknown", "unknown", { uptime: null, last: null }),
    row("slow", "up", "degraded", { uptime: 98, ms: [2500] }),
    row("broken", "down", "unhealthy", { uptime: 10, ms: [null] }),
  ];

  test("by default the most severe first (down, degraded, not checked, up, paused), ties by name", () => {
    expect(names(sortRows(rows))).toEqual(["broken", "slow", "new", "Alpha", "beta", "paused one"]);
  });

  test.each<[Sort, string[]]>([
    [{ key: "status", direction: "descending" }, ["paused one", "Alpha", "beta", "new", "slow", "broken"]],
    [{ key: "name", direction: "ascending" }, ["Alpha", "beta", "broken", "new", "paused one", "slow"]],
    [{ key: "name", direction: "descending" }, ["slow", "paused one", "new", "broken", "beta", "Alpha"]],
    // No data yet sorts last either way.
    [{ key: "uptime", direction: "ascending" }, ["broken", "paused one", "slow", "beta", "Alpha", "new"]],
    [{ key: "uptime", direction: "descending" }, ["Alpha", "beta", "slow", "paused one", "broken", "new"]],
    [{ key: "response", direction: "descending" }, ["slow", "Alpha", "beta", "paused one", "broken", "new"]],
    [{ key: "lastCheck", direction: "ascending" }, ["broken", "paused one", "slow", "Alpha", "beta", "new"]],
  ])("sorted by %o", (sort, expected) => {
    expect(names(sortRows(rows, sort))).toEqual(expected);
  });

  test("equal names keep one order, by id", () => {
    const twins = [row("Same", "up", "healthy", { id: "b" }), row("Same", "up", "healthy", { id: "a" })];
    expect(sortRows(twins).map((r) => r.site.id)).toEqual(["a", "b"]);
  });

  test("the response time is the latest day's that had one", () => {
    expect(latestResponse({ days: [] })).toBeNull();
    expect(latestResponse(row("x", "up", "healthy", { ms: [5, 7, null] }))).toBe(7);
  });
});

describe("the duplicate-address warning", () => {
  const sites = [
    { id: "1", name: "Home", url: "https://Example.com/" },
    { id: "2", name: "Health", url: "https://example.com:443/health?full=1" },
  ];

  test.each([
    ["https://example.com", "Home"],
    ["HTTPS://EXAMPLE.COM/#top", "Home"],
    ["https://example.com/health/?full=1", "Health"],
    ["  https://example.com/health?full=1  ", "Health"],
    ["http://example.com", undefined],
    ["https://example.com/health", undefined],
    ["https://example.com/health?full=2", undefined],
    ["not a url", undefined],
    ["ftp://example.com", undefined],
  ])("%s → %s", (url, name) => {
    expect(sameAddress(url, sites, null)?.name).toBe(name);
  });

  test("a site being edited is not its own duplicate", () => {
    expect(sameAddress("https://example.com", sites, "1")).toBeUndefined();
    expect(addressKey("https://example.com:8443/a/")).toBe("https://example.com:8443/a");
  });
});

describe("status codes as typed", () => {
  test.each<[string, (number | string)[]]>([
    ["200", [200]],
    ["200-204, 301", [200, 201, 202, 203, 204, 301]],
    ["204-200", [200, 201, 202, 203, 204]],
    ["200 200,  401", [200, 401]],
    ["", []],
    // Not a code: passed on as typed, for the API's message beside the field.
    ["200, abc", [200, "abc"]],
  ])("%j → %j", (text, codes) => {
    expect(parseCodes(text)).toEqual(codes);
  });

  test.each<[number[], string]>([
    [[200, 201, 202, 203, 204, 205, 206, 207, 208, 226], "200-208, 226"],
    [[404, 200, 200], "200, 404"],
    [[], ""],
  ])("%j reads %j", (codes, text) => {
    expect(formatCodes(codes)).toBe(text);
    expect(parseCodes(text)).toEqual([...new Set(codes)].sort((a, b) => a - b));
  });
});

describe("tags as typed", () => {
  test("split on commas, trimmed, empty parts dropped", () => {
    expect(splitTags(" api, eu ,,prod ")).toEqual(["api", "eu", "prod"]);
  });

  test("added once, whatever the case, in the order given", () => {
    expect(addTags(["api"], ["API", "eu", "eu"])).toEqual(["api", "eu"]);
  });
});

describe("a bulk action", () => {
  test("runs at most `limit` at once, every item once, and lists the failures in the items' order", async () => {
    let running = 0;
    let most = 0;
    const seen: number[] = [];
    const items = Array.from({ length: 10 }, (_, i) => i);
    const failures = await eachLimited(items, 3, async (i) => {
      running++;
      most = Math.max(most, running);
      // Later items finish first, so a failure list in finishing order would be reversed.
      await new Promise((resolve) => setTimeout(resolve, 10 - i));
      running--;
      seen.push(i);
      if (i % 4 === 1) throw new Error(`no ${i}`);
    });
    expect(most).toBe(3);
    expect(seen.sort((a, b) => a - b)).toEqual(items);
    expect(failures.map((f) => [f.item, (f.error as Error).message])).toEqual([
      [1, "no 1"],
      [5, "no 5"],
      [9, "no 9"],
    ]);
  });

  test("nothing to do resolves at once", async () => {
    expect(await eachLimited([], 4, async () => {})).toEqual([]);
  });
});
