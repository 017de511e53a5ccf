/**
 * The routes the dashboard's site screens read, on both stores: the overview (30 days of uptime and mean response
 * times per site, polled with ETag), a site's raw recent checks, and a site's incidents across the pages.
 */
import { expect, test } from "vitest";
import { client, describeStores, makeApp, seedOwner, seedStatusPage, TestClock, useStore } from "../helpers.ts";

describeStores("the dashboard's site reads", (kind) => {
  const opened = useStore(kind);

  test("the overview: each site's 30-day uptime and daily means, and 304 while nothing changed", async () => {
    const { app, clock } = makeApp(opened.store);
    const owner = await seedOwner(opened.store);
    const call = client(app, owner.token);
    const { ids } = await seedStatusPage(call, opened.store, clock.now(), "ov", {}, ["Web", "Api"]);
    const first = await call.get("/public/v1/sites/overview?perPage=25");
    expect(first.status).toBe(200);
    const { sites, pagination } = first.json.data;
    expect(pagination).toEqual({ page: 1, perPage: 25, total: 2, totalPages: 1 });
    expect(sites.map((s: { site: { id: string } }) => s.site.id).sort()).toEqual([...ids].sort());
    const web = sites.find((s: { site: { name: string } }) => s.site.name === "Web");
    expect(web.days).toHaveLength(30);
    expect(web.days.at(-1).day).toBe(clock.now().toISOString().slice(0, 10));
    // seedStats: 100 checks a day, (day index mod 10) of them down: 30 days hold 3 × (0+1+…+9) = 135 down of 3,000.
    expect(web.uptime).toBe(95.5);
    expect(web.days.at(-1)).toMatchObject({ uptime: 100 });
    const etag = first.headers.get("etag") as string;
    expect(first.headers.get("cache-control")).toBe("private, no-cache");
    const again = await call.get("/public/v1/sites/overview?perPage=25", { "if-none-match": etag });
    expect(again.status).toBe(304);
    expect(again.text).toBe("");
    await call.patch(`/public/v1/site/${ids[0]}`, { name: "Web 2" });
    const changed = await call.get("/public/v1/sites/overview?perPage=25", { "if-none-match": etag });
    expect(changed.status).toBe(200);
    // Another workspace sees none of them.
    const stranger = client(app, (await seedOwner(opened.store)).token);
    expect((await stranger.get("/public/v1/sites/overview")).json.data.sites).toEqual([]);
  });

  test("the overview's recent hours: each hour's mean of successful checks, oldest first, for the sparkline's first day", async () => {
    // Half past noon: the window is 13:00 yesterday to now, 24 whole UTC hours with the current one.
    const { app, clock } = makeApp(opened.store, { clock: new TestClock(new Date("2026-11-21T12:30:00.000Z")) });
    const owner = await seedOwner(opened.store);
    const call = client(app, owner.token);
    const add = async (name: string) =>
      (await call.post("/public/v1/sites", { url: `https://${name}.example`, name })).json.data.id as string;
    const [web, api, quiet] = [await add("web"), await add("api"), await add("quiet")];
    const result = (siteId: string, at: string, responseMs: number, ok = 1) => ({
      site_id: siteId,
      region: "local",
      at,
      ok,
      slow: 0,
      status_code: ok ? 200 : null,
      response_ms: responseMs,
      error: ok ? null : "timeout",
      timings: "{}",
    });
    await opened.store.db
      .insertInto("check_results")
      .values([
        // Before the window by a minute: left out.
        result(web, "2026-11-20T12:59:00.000Z", 5000),
        // The window's first hour.
        result(web, "2026-11-20T13:00:00.000Z", 40),
        // Only a failed check: the hour is left out, and a failure's time never counts.
        result(web, "2026-11-21T10:15:00.000Z", 9000, 0),
        result(web, "2026-11-21T11:05:00.000Z", 91),
        result(web, "2026-11-21T11:06:00.000Z", 92),
        result(web, "2026-11-21T11:30:00.000Z", 9000, 0),
        result(web, "2026-11-21T12:20:00.000Z", 200),
        result(web, "2026-11-21T12:10:00.000Z", 100),
        result(api, "2026-11-21T12:01:00.000Z", 50),
      ])
      .execute();
    const res = await call.get("/public/v1/sites/overview?perPage=25");
    expect(res.status).toBe(200);
    const recentOf = (id: string) => res.json.data.sites.find((s: { site: { id: string } }) => s.site.id === id).recent;
    expect(recentOf(web)).toEqual([
      { at: "2026-11-20T13:00:00.000Z", responseMs: 40 },
      // 91.5 rounds up on both stores (PostgreSQL's avg is numeric).
      { at: "2026-11-21T11:00:00.000Z", responseMs: 92 },
      { at: "2026-11-21T12:00:00.000Z", responseMs: 150 },
    ]);
    expect(recentOf(api)).toEqual([{ at: "2026-11-21T12:00:00.000Z", responseMs: 50 }]);
    expect(recentOf(quiet)).toEqual([]);
    // An hour later the window has moved on: yesterday's 13:00 is out.
    clock.advance(3_600_000);
    const later = await call.get("/public/v1/sites/overview?perPage=25");
    const webLater = later.json.data.sites.find((s: { site: { id: string } }) => s.site.id === web);
    expect(webLater.recent.map((h: { at: string }) => h.at)).toEqual([
      "2026-11-21T11:00:00.000Z",
      "2026-11-21T12:00:00.000Z",
    ]);
  });

  test("recent checks: the last hours' raw results, newest first; hours bounded; another workspace's is a 404", async () => {
    const { app, clock } = makeApp(opened.store);
    const owner = await seedOwner(opened.store);
    const call = client(app, owner.token);
    const site = (await call.post("/public/v1/sites", { url: "https://example.com", name: "S" })).json.data;
    const at = (minutes: number) => new Date(clock.now().getTime() - minutes * 60_000).toISOString();
    await opened.store.db
      .insertInto("check_results")
      .values([
        {
          site_id: site.id,
          region: "local",
          at: at(5),
          ok: 1,
          slow: 0,
          status_code: 200,
          response_ms: 120,
          error: null,
          timings: "{}",
        },
        {
          site_id: site.id,
          region: "local",
          at: at(2),
          ok: 0,
          slow: 0,
          status_code: null,
          response_ms: null,
          error: "connection refused",
          timings: "{}",
        },
        {
          site_id: site.id,
          region: "local",
          at: at(60 * 30),
          ok: 1,
          slow: 0,
          status_code: 200,
          response_ms: 90,
          error: null,
          timings: "{}",
        },
      ])
      .execute();
    const recent = await call.get(`/public/v1/site/${site.id}/checks?hours=24`);
    expect(recent.status).toBe(200);
    expect(recent.json.data).toEqual([
      {
        at: at(2),
        region: "local",
        ok: false,
        slow: false,
        statusCode: null,
        responseMs: null,
        error: "connection refused",
        found: null,
      },
      {
        at: at(5),
        region: "local",
        ok: true,
        slow: false,
        statusCode: 200,
        responseMs: 120,
        error: null,
        found: null,
      },
    ]);
    expect((await call.get(`/public/v1/site/${site.id}/checks?hours=48`)).json.data).toHaveLength(3);
    for (const bad of ["0", "169", "x", "1.5"]) {
      const res = await call.get(`/public/v1/site/${site.id}/checks?hours=${bad}`);
      expect(res.status, bad).toBe(400);
      expect(res.json.details[0].field).toBe("hours");
    }
    const stranger = client(app, (await seedOwner(opened.store)).token);
    expect((await stranger.get(`/public/v1/site/${site.id}/checks`)).status).toBe(404);
  });

  test("a site's incidents: those naming its items, on every page, newest first; not another site's", async () => {
    const { app, clock } = makeApp(opened.store);
    const owner = await seedOwner(opened.store);
    const call = client(app, owner.token);
    const page = await seedStatusPage(call, opened.store, clock.now(), "inc", {}, ["One", "Two"]);
    const items = (await call.get(`/public/v1/status-pages/${page.id}`)).json.data.items;
    const one = items.find((i: { label: string }) => i.label === "One");
    const opened1 = await call.post(`/public/v1/status-pages/${page.id}/incidents`, {
      title: "Slow one",
      message: "m",
      items: [one.id],
    });
    expect(opened1.status).toBe(201);
    await call.post(`/public/v1/status-pages/${page.id}/incidents`, { title: "Page-wide", message: "m" });
    const list = await call.get(`/public/v1/site/${page.ids[0]}/incidents`);
    expect(list.status).toBe(200);
    expect(list.json.data).toEqual([
      expect.objectContaining({ title: "Slow one", status: "investigating", automatic: false, resolvedAt: null }),
    ]);
    expect((await call.get(`/public/v1/site/${page.ids[1]}/incidents`)).json.data).toEqual([]);
  });
});
