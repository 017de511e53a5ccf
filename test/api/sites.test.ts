import { expect, test } from "vitest";
import { z } from "zod";
import { Envelope, Pagination } from "../../server/contract/common.ts";
import { DEFAULT_SUCCESS_CODES, parseStatDays, Site, SiteDetail } from "../../server/contract/site.ts";
import type { Store } from "../../server/store/store.ts";
import {
  type App,
  client,
  describeStores,
  makeApp,
  seedMember,
  seedOwner,
  seedStats,
  type TestClock,
  useStore,
} from "../helpers.ts";

const DetailEnvelope = Envelope(SiteDetail);
const SiteList = Envelope(z.object({ sites: z.array(Site), pagination: Pagination }));

test.each([
  [undefined, 30],
  [[], 30],
  [["7"], 7],
  [["7.9"], 7],
  [["0.5"], 30],
  [["0"], 30],
  [["-3"], 30],
  [["abc"], 30],
  [["1e2"], 30],
  [[" 5"], 30],
  [["91"], 90],
  [["1000000"], 90],
  [["90"], 90],
  [["1"], 1],
  [["5", "6"], 30],
  [["10000000000000000"], 90],
  [["9".repeat(400)], 90],
  [["9".repeat(5000)], 90],
  [[`${"1".repeat(5000)}x`], 30],
  [[""], 30],
])("parseStatDays(%j) is %i", (values, expected) => {
  expect(parseStatDays(values as string[] | undefined)).toBe(expected);
});

describeStores("sites API", (kind) => {
  let store: Store;
  let app: App;
  let clock: TestClock;
  let owner: Awaited<ReturnType<typeof seedOwner>>;
  let api: ReturnType<typeof client>;

  useStore(kind, async (opened) => {
    ({ store } = opened);
    ({ app, clock } = makeApp(store));
    owner = await seedOwner(store, "free");
    api = client(app, owner.token);
  });

  const createSite = async (body: Record<string, unknown> = {}) => {
    const res = await api.post("/public/v1/sites", { url: "https://example.com/health", name: "Example", ...body });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    return DetailEnvelope.parse(res.json).data;
  };

  test("a new site has every SiteDetail field, defaults, and an honest unknown state", async () => {
    const site = await createSite();
    expect(site).toMatchObject({
      _id: site.id,
      __v: 0,
      url: "https://example.com/health",
      protocol: "https",
      headers: [],
      name: "Example",
      checkInterval: 300,
      checkIntervalMs: 300_000,
      parentGroup: "",
      pause: false,
      notes: "",
      timeout: 30,
      method: "GET",
      successCodes: DEFAULT_SUCCESS_CODES,
      errorCodes: [],
      hasCertificateError: false,
      isFrozen: false,
      lastCheckTime: null,
      domainExpiration: null,
      legacyStatus: "active",
      enabled: true,
      regions: ["local"],
      sslInfo: null,
      domain: null,
      state: "unknown",
      status: "unknown",
      stat: [],
      conditions: [],
      uptimeSummary: { uptimePercentage: null, downtimePercentage: null, totalDowntimeMinutes: 0, daysCount: 0 },
      role: { name: "owner" },
    });
    expect(site.role.permissions).toContain("sites:write");
    expect(site).not.toHaveProperty("wordpress");
    expect(site.createdAt).toBe(clock.now().toISOString());
  });

  test("GET answers the spec 2.1 envelope and parses against the contract", async () => {
    const site = await createSite();
    const res = await api.get(`/public/v1/site/${site.id}`);
    expect(res.status).toBe(200);
    const body = DetailEnvelope.parse(res.json);
    expect(body).toMatchObject({ success: true, code: 200 });
    expect(body.data.id).toBe(site.id);
  });

  test("GET sends a strong ETag: 304 without a body while nothing changed, a new ETag after a change", async () => {
    const site = await createSite();
    const path = `/public/v1/site/${site.id}`;
    const first = await api.get(path);
    expect(first.status).toBe(200);
    const etag = first.headers.get("etag") as string;
    expect(etag).toMatch(/^"[\w-]{27}"$/);
    expect(first.headers.get("cache-control")).toBe("private, no-cache");
    const again = await api.get(path, { "if-none-match": etag });
    expect(again.status).toBe(304);
    expect(again.text).toBe("");
    expect(again.headers.get("etag")).toBe(etag);
    expect((await api.patch(path, { name: "Renamed" })).status).toBe(200);
    const changed = await api.get(path, { "if-none-match": etag });
    expect(changed.status).toBe(200);
    expect(DetailEnvelope.parse(changed.json).data.name).toBe("Renamed");
    const newer = changed.headers.get("etag") as string;
    expect(newer).not.toBe(etag);
    expect((await api.get(path, { "if-none-match": newer })).status).toBe(304);
  });

  test("the list sends an ETag too: the dashboard's poll of it gets 304 while nothing changed", async () => {
    const site = await createSite();
    const path = "/public/v1/sites?perPage=50";
    const first = await api.get(path);
    const etag = first.headers.get("etag") as string;
    expect(etag).toMatch(/^"[\w-]{27}"$/);
    const again = await api.get(path, { "if-none-match": etag });
    expect(again.status).toBe(304);
    expect(again.text).toBe("");
    expect((await api.patch(`/public/v1/site/${site.id}`, { name: "Renamed" })).status).toBe(200);
    const changed = await api.get(path, { "if-none-match": etag });
    expect(changed.status).toBe(200);
    expect(changed.headers.get("etag")).not.toBe(etag);
  });

  test("PATCH changes writable fields, counts __v, derives status from pause, and never updates legacyStatus", async () => {
    const site = await createSite();
    const res = await api.patch(`/public/v1/site/${site.id}`, {
      pause: true,
      name: "Renamed",
      checkInterval: 30,
      timeout: 10,
      method: "HEAD",
      headers: [{ name: "X-Probe", value: "porchlight" }],
      regions: ["eu", "us", "eu"],
      url: "http://example.org/",
    });
    expect(res.status).toBe(200);
    const updated = DetailEnvelope.parse(res.json).data;
    expect(updated).toMatchObject({
      __v: 1,
      pause: true,
      status: "paused",
      state: "unknown",
      name: "Renamed",
      checkInterval: 30,
      checkIntervalMs: 30_000,
      timeout: 10,
      method: "HEAD",
      protocol: "http",
      regions: ["eu", "us"],
      legacyStatus: "active",
    });
    const again = DetailEnvelope.parse((await api.patch(`/public/v1/site/${site.id}`, { pause: false })).json).data;
    expect(again).toMatchObject({ __v: 2, status: "unknown", legacyStatus: "active" });
  });

  test.each([
    [{ status: "up" }, "status"],
    [{ state: "healthy" }, "state"],
    [{ legacyStatus: "x" }, "legacyStatus"],
    [{ __v: 9 }, "__v"],
    [{ checkInterval: 29 }, "checkInterval"],
    [{ checkInterval: 30.5 }, "checkInterval"],
    [{ timeout: 0 }, "timeout"],
    [{ timeout: 100, checkInterval: 60 }, "timeout"],
    [{ method: "TRACE" }, "method"],
    [{ url: "ftp://example.com" }, "url"],
    [{ url: "file:///etc/passwd" }, "url"],
    [{ url: "https://user:pw@example.com" }, "url"],
    [{ headers: [{ name: "Bad Header", value: "x" }] }, "headers.0.name"],
    [{ headers: [{ name: "X", value: "a\r\nInjected: yes" }] }, "headers.0.value"],
    [{ successCodes: [99] }, "successCodes.0"],
    [{ pause: "yes" }, "pause"],
    [{ name: "" }, "name"],
    [{ regions: [] }, "regions"],
    [{ slowThresholdMs: 10 }, "slowThresholdMs"],
    [{ slowThresholdMs: 120_001 }, "slowThresholdMs"],
    [{ wordpress: { value: true } }, "wordpress.manualOverride"],
    [{ wordpress: { value: "yes", manualOverride: true } }, "wordpress.value"],
    [{ conditions: [] }, "conditions"],
  ])("PATCH %j is a 400 naming %s, and changes nothing", async (patch, field) => {
    const site = await createSite();
    const res = await api.patch(`/public/v1/site/${site.id}`, patch);
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ success: false, code: 400, error: "validation_failed" });
    expect(res.json.details.map((d: { field: string }) => d.field)).toContain(field);
    const after = DetailEnvelope.parse((await api.get(`/public/v1/site/${site.id}`)).json).data;
    expect(after.__v).toBe(0);
  });

  test("PATCH refuses a timeout above the stored checkInterval", async () => {
    const site = await createSite({ checkInterval: 60, timeout: 30 });
    const res = await api.patch(`/public/v1/site/${site.id}`, { timeout: 90 });
    expect(res.status).toBe(400);
    expect(res.json.details[0].field).toBe("timeout");
  });

  test("POST requires url and name", async () => {
    const res = await api.post("/public/v1/sites", { url: "https://example.com" });
    expect(res.status).toBe(400);
    expect(res.json.details).toEqual([{ field: "name", message: expect.any(String) }]);
  });

  test("list is newest first and paginated", async () => {
    const other = await seedOwner(store, "free");
    const c = client(app, other.token);
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      clock.advance(1000);
      const res = await c.post("/public/v1/sites", { url: `https://s${i}.example.com`, name: `S${i}` });
      ids.push(res.json.data.id);
    }
    const first = await c.get("/public/v1/sites");
    expect(first.json.data.pagination).toEqual({ page: 1, perPage: 10, total: 12, totalPages: 2 });
    expect(first.json.data.sites.map((s: { id: string }) => s.id)).toEqual(ids.slice(2).reverse());
    const second = await c.get("/public/v1/sites?page=2&perPage=10");
    expect(second.json.data.sites.map((s: { id: string }) => s.id)).toEqual(ids.slice(0, 2).reverse());
    const bad = await c.get("/public/v1/sites?perPage=11");
    expect(bad.status).toBe(400);
    expect(bad.json.message).toContain("10, 25 or 50");
  });

  test("another workspace's site answers 404 exactly like a missing one", async () => {
    const site = await createSite();
    const stranger = client(app, (await seedOwner(store)).token);
    const theirs = await stranger.get(`/public/v1/site/${site.id}`);
    const missing = await stranger.get("/public/v1/site/ffffffffffffffffffffffff");
    expect(theirs.status).toBe(404);
    expect(theirs.json).toEqual(missing.json);
    expect((await stranger.patch(`/public/v1/site/${site.id}`, { name: "x" })).status).toBe(404);
    expect((await stranger.delete(`/public/v1/site/${site.id}`)).status).toBe(404);
    expect((await api.get(`/public/v1/site/${site.id}`)).status).toBe(200);
  });

  test("a viewer reads but cannot write; the role field names the caller's role", async () => {
    const site = await createSite();
    const viewer = client(app, (await seedMember(store, owner.email, "viewer")).token);
    const read = await viewer.get(`/public/v1/site/${site.id}`);
    expect(read.status).toBe(200);
    expect(read.json.data.role).toEqual({
      name: "viewer",
      permissions: ["sites:read", "status_pages:read", "alerts:read"],
    });
    const write = await viewer.patch(`/public/v1/site/${site.id}`, { name: "nope" });
    expect(write.status).toBe(403);
    expect(write.json.error).toBe("forbidden");
    const editor = client(app, (await seedMember(store, owner.email, "editor")).token);
    expect((await editor.patch(`/public/v1/site/${site.id}`, { name: "ok" })).status).toBe(200);
  });

  test("DELETE removes the site and its statistics", async () => {
    const site = await createSite();
    await seedStats(store, site.id, clock.now(), 3);
    expect((await api.delete(`/public/v1/site/${site.id}`)).status).toBe(200);
    expect((await api.get(`/public/v1/site/${site.id}`)).status).toBe(404);
    expect(await store.sites.dailyStats([site.id], "2000-01-01")).toEqual([]);
  });

  test("stat and uptimeSummary follow statDays: default 30, invalid 30, fractions down, capped at 90", async () => {
    const site = await createSite();
    // 120 days of data, each with 100 checks; on day i (0 = today) (i % 10) checks failed.
    await seedStats(store, site.id, clock.now(), 120);
    clock.advance(60_000); // statistics written by another process show once the cached record expires
    const days = async (q: string) => {
      const res = await api.get(`/public/v1/site/${site.id}${q}`);
      expect(res.status).toBe(200);
      return DetailEnvelope.parse(res.json).data;
    };
    expect((await days("")).stat).toHaveLength(30);
    expect((await days("?statDays=7")).stat).toHaveLength(7);
    expect((await days("?statDays=7.9")).stat).toHaveLength(7);
    expect((await days("?statDays=abc")).stat).toHaveLength(30);
    expect((await days("?statDays=0")).stat).toHaveLength(30);
    expect((await days("?statDays=-4")).stat).toHaveLength(30);
    expect((await days("?statDays=7&statDays=8")).stat).toHaveLength(30);
    expect((await days("?statDays[]=7")).stat).toHaveLength(30);
    expect((await days("?statDays[0]=7")).stat).toHaveLength(30);
    expect((await days("?statDays=91")).stat).toHaveLength(90);
    expect((await days("?statDays=100000")).stat).toHaveLength(90);
    const week = await days("?statDays=7");
    const today = clock.now().toISOString().slice(0, 10);
    expect(week.stat.at(-1)?.date).toBe(today);
    expect((week.stat[0]?.date ?? "") < today).toBe(true);
    // Failures today..6 days ago: 0+1+…+6 = 21 of 700 checks.
    expect(week.uptimeSummary).toEqual({
      uptimePercentage: 97,
      downtimePercentage: 3,
      totalDowntimeMinutes: 21 * 5,
      daysCount: 7,
    });
    expect(week.stat.at(-1)).toMatchObject({ site: site.id, upRate: 1, downRate: 0 });
  });

  test("daysCount counts only days that have data", async () => {
    const site = await createSite();
    await seedStats(store, site.id, clock.now(), 3);
    clock.advance(60_000);
    const res = await api.get(`/public/v1/site/${site.id}?statDays=30`);
    expect(res.json.data.uptimeSummary.daysCount).toBe(3);
    expect(res.json.data.stat).toHaveLength(3);
  });

  test("tags: trimmed, lower-cased, repeats once, order kept; the list, the overview and the tag counts filter by them", async () => {
    const created = await createSite({ name: "Tagged", tags: [" Production ", "EU west", "production", "api_v2.1"] });
    expect(created.tags).toEqual(["production", "eu west", "api_v2.1"]);
    expect((await createSite({ name: "Untagged" })).tags).toEqual([]);
    const other = await createSite({ name: "Other", tags: ["staging", "eu west"] });
    const patched = await api.patch(`/public/v1/site/${other.id}`, { tags: ["Staging", "EU West", "api_v2.1"] });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.json.data.tags).toEqual(["staging", "eu west", "api_v2.1"]);
    // A patch without tags keeps them.
    expect((await api.patch(`/public/v1/site/${other.id}`, { name: "Other 2" })).json.data.tags).toEqual([
      "staging",
      "eu west",
      "api_v2.1",
    ]);

    const names = (res: { json: { data: { sites: { name?: string; site?: { name: string } }[] } } }) =>
      res.json.data.sites.map((s) => s.name ?? s.site?.name).sort();
    const listed = await api.get("/public/v1/sites?tag=EU%20West&perPage=50");
    expect(listed.status, listed.text).toBe(200);
    expect(names(listed)).toEqual(["Other 2", "Tagged"]);
    expect(listed.json.data.pagination.total).toBe(2);
    expect(names(await api.get("/public/v1/sites?tag=production&perPage=50"))).toEqual(["Tagged"]);
    // An underscore and a dot are themselves, not patterns; a tag's part matches nothing.
    expect(names(await api.get("/public/v1/sites?tag=api_v2.1&perPage=50"))).toEqual(["Other 2", "Tagged"]);
    expect(names(await api.get("/public/v1/sites?tag=apixv2x1&perPage=50"))).toEqual([]);
    expect(names(await api.get("/public/v1/sites?tag=prod&perPage=50"))).toEqual([]);
    const overview = await api.get("/public/v1/sites/overview?tag=STAGING");
    expect(overview.status, overview.text).toBe(200);
    expect(names(overview)).toEqual(["Other 2"]);
    expect(overview.json.data.sites[0].site.tags).toEqual(["staging", "eu west", "api_v2.1"]);

    const tags = await api.get("/public/v1/sites/tags");
    expect(tags.status, tags.text).toBe(200);
    expect(tags.json.data.tags).toEqual([
      { tag: "api_v2.1", count: 2 },
      { tag: "eu west", count: 2 },
      { tag: "production", count: 1 },
      { tag: "staging", count: 1 },
    ]);
    // Another workspace's tags are not counted.
    const stranger = client(app, (await seedOwner(store, "free")).token);
    expect((await stranger.get("/public/v1/sites/tags")).json.data.tags).toEqual([]);
    expect((await stranger.get("/public/v1/sites?tag=production")).json.data.sites).toEqual([]);
  });

  test("bad tags are refused naming the tag; a bad tag filter too", async () => {
    for (const [tags, field] of [
      [Array.from({ length: 11 }, (_, i) => `t${i}`), "tags"],
      [["ok", "   "], "tags.1"],
      [["x".repeat(33)], "tags.0"],
      [["a/b"], "tags.0"],
      [['quote"d'], "tags.0"],
      ["production", "tags"],
    ] as const) {
      const res = await api.post("/public/v1/sites", { url: "https://example.com", name: "Bad", tags });
      expect(res.status, JSON.stringify(tags)).toBe(400);
      expect(res.json).toMatchObject({ success: false, error: "validation_failed" });
      expect(res.json.details.map((d: { field: string }) => d.field)).toContain(field);
    }
    const res = await api.get("/public/v1/sites?tag=a%2Fb");
    expect(res.status).toBe(400);
    expect(res.json.details[0].field).toBe("tag");
  });

  test("the list parses against its schema", async () => {
    const res = await api.get("/public/v1/sites?perPage=50");
    expect(res.status).toBe(200);
    expect(SiteList.parse(res.json).data.sites.length).toBeGreaterThan(0);
  });
});
