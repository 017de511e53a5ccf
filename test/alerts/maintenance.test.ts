import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { AlertSender } from "../../server/alerts/sender.ts";
import { AlertEvent } from "../../server/contract/alerts.ts";
import { PublicStatusPage } from "../../server/contract/status-page.ts";
import { instantOf, localStart } from "../../server/engine/maintenance.ts";
import type { Store } from "../../server/store/store.ts";
import { appWithEngine, localTargets, testSender } from "../api/with-engine.ts";
import { client, describeStores, seedMember, seedOwner, TestClock, useStore } from "../helpers.ts";
import { listen } from "../support/listen.ts";

/**
 * Issue 18, maintenance windows: one-off and recurring (an RRULE in a time zone) on sites. In a window, checks run
 * and are recorded, alerts wait for its end, no incident opens, its time and checks stay out of the statistics, and
 * the pages read the items as maintenance and list the window; a window that ends on a site still down alerts once.
 * Also the repeat interval for a site that stays down.
 */
describe("maintenance time (pure): wall times in a zone, whatever the process's zone", () => {
  test("a local time is placed by its zone's offset on that date, a gap moves on, an offset start is read locally", () => {
    const wall = (s: string) => Date.parse(`${s}:00Z`);
    // Berlin: +1 in winter, +2 in summer; 02:30 on 29 March 2026 does not exist (02:00 → 03:00).
    expect(new Date(instantOf(wall("2026-01-04T02:00"), "Europe/Berlin")).toISOString()).toBe(
      "2026-01-04T01:00:00.000Z",
    );
    expect(new Date(instantOf(wall("2026-07-05T02:00"), "Europe/Berlin")).toISOString()).toBe(
      "2026-07-05T00:00:00.000Z",
    );
    expect(new Date(instantOf(wall("2026-03-29T02:30"), "Europe/Berlin")).toISOString()).toBe(
      "2026-03-29T01:30:00.000Z",
    );
    expect(new Date(instantOf(wall("2026-11-21T12:00"), "America/New_York")).toISOString()).toBe(
      "2026-11-21T17:00:00.000Z",
    );
    expect(localStart("2026-07-05T00:00:00Z", "Europe/Berlin")).toBe("2026-07-05T02:00");
    expect(localStart("2026-07-05T02:00", "Europe/Berlin")).toBe("2026-07-05T02:00");
  });
});

describeStores("maintenance windows", (kind) => {
  let store: Store;
  let clock: TestClock;
  let made: ReturnType<typeof appWithEngine>;
  let api: ReturnType<typeof client>;
  let owner: Awaited<ReturnType<typeof seedOwner>>;
  let sender: AlertSender;
  let targets: Awaited<ReturnType<typeof localTargets>>;
  let receiver: Awaited<ReturnType<typeof listen>>;
  let received: AlertEvent[] = [];

  beforeAll(async () => {
    targets = await localTargets();
    receiver = await listen((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        received.push(AlertEvent.parse(JSON.parse(Buffer.concat(chunks).toString())));
        res.end("ok");
      });
    });
  });
  afterAll(async () => {
    targets?.close();
    await new Promise((resolve) => receiver?.server.close(resolve));
  });

  useStore(kind, { each: true }, async (opened) => {
    ({ store } = opened);
    clock = new TestClock();
    made = appWithEngine(store, clock, { PORCHLIGHT_ALLOW_PRIVATE_TARGETS: "true" });
    owner = await seedOwner(store, "stack");
    api = client(made.app, owner.token);
    sender = testSender(store, clock);
    received = [];
    return () => made.engine.stop();
  });

  const site = async (url: string) =>
    (await api.post("/public/v1/sites", { url, name: "Shop", checkInterval: 60, timeout: 5 })).json.data;
  const minute = async (n = 1) => {
    for (let i = 0; i < n; i++) {
      clock.advance(60_000);
      await made.engine.runOnce();
    }
  };
  const window = (body: Record<string, unknown>) => api.post("/public/v1/maintenance-windows", body);

  test("bad input is a 400 naming the field; another workspace's site, a viewer, an unknown id are refused", async () => {
    const { id } = await site(targets.ok);
    const base = { title: "Upgrade", sites: [id], start: "2026-11-22T02:00", durationMinutes: 60 };
    const field = async (body: Record<string, unknown>) => {
      const res = await window(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      return res.json.details?.[0]?.field as string;
    };
    expect(await field({ ...base, recurrence: "FREQ=NEVER" })).toBe("recurrence");
    expect(await field({ ...base, recurrence: "FREQ=MINUTELY" })).toBe("recurrence");
    expect(await field({ ...base, recurrence: "FREQ=WEEKLY;DTSTART=20260101T000000Z" })).toBe("recurrence");
    expect(await field({ ...base, recurrence: "RRULE:" })).toBe("recurrence");
    // A rule that never occurs again makes rrule search to the year 9999: refused after the time limit, not a hang.
    const never = await window({ ...base, recurrence: "FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30" });
    expect(never.status).toBe(400);
    expect(never.json.message).toMatch(/too long|never/);
    expect(await field({ ...base, timeZone: "Mars/Olympus" })).toBe("timeZone");
    expect(await field({ ...base, start: "2026-02-30T02:00" })).toBe("start");
    expect(await field({ ...base, start: "tomorrow" })).toBe("start");
    expect(await field({ ...base, durationMinutes: 0 })).toBe("durationMinutes");
    expect(await field({ ...base, sites: [] })).toBe("sites");
    expect(await field({ ...base, sites: ["nope"] })).toBe("sites.0");
    const other = client(made.app, (await seedOwner(store, "stack")).token);
    const theirs = (await other.post("/public/v1/sites", { url: targets.ok, name: "Theirs" })).json.data;
    expect(await field({ ...base, sites: [theirs.id] })).toBe("sites.0");
    const viewer = client(made.app, (await seedMember(store, owner.email, "viewer")).token);
    expect((await viewer.post("/public/v1/maintenance-windows", base)).status).toBe(403);
    expect((await viewer.get("/public/v1/maintenance-windows")).status).toBe(200);
    expect((await api.get("/public/v1/maintenance-windows/mw_nope")).status).toBe(404);
    expect((await api.patch("/public/v1/maintenance-windows/mw_nope", { title: "x" })).status).toBe(404);
    expect((await api.delete("/public/v1/maintenance-windows/mw_nope")).status).toBe(404);
    expect((await api.get("/public/v1/maintenance-windows")).json.data.windows).toEqual([]);
  });

  test("a weekly window at 02:00 in Berlin stays at 02:00 local across the change of time; changed and deleted", async () => {
    const { id } = await site(targets.ok);
    // The clock reads Saturday 21 November 2026; Sundays at 02:00 Berlin time (01:00 UTC in winter).
    const created = await window({
      title: "Weekly upgrade",
      sites: [id, id],
      start: "2026-11-22T02:00",
      timeZone: "Europe/Berlin",
      durationMinutes: 90,
      recurrence: "RRULE:FREQ=WEEKLY;BYDAY=SU",
    });
    expect(created.status).toBe(201);
    const w = created.json.data;
    expect(w).toMatchObject({
      sites: [id],
      start: "2026-11-22T02:00",
      recurrence: "FREQ=WEEKLY;BYDAY=SU",
      active: false,
      next: { startsAt: "2026-11-22T01:00:00.000Z", endsAt: "2026-11-22T02:30:00.000Z" },
    });
    // Occurrences across the spring change, at 02:00 on 28 March 2027: before it, winter time; on that day 02:00
    // does not exist and the window begins at 03:00 (summer time, 01:00 UTC); after it, summer time.
    const occurrences = await store.db
      .selectFrom("maintenance_occurrences")
      .select("starts_at")
      .where("window_id", "=", w.id)
      .where("starts_at", ">=", "2027-03-21")
      .where("starts_at", "<", "2027-04-05")
      .orderBy("starts_at")
      .execute();
    expect(occurrences.map((o) => o.starts_at)).toEqual([
      "2027-03-21T01:00:00.000Z",
      "2027-03-28T01:00:00.000Z",
      "2027-04-04T00:00:00.000Z",
    ]);

    // An instant with an offset is read as the local time it is in the zone.
    const changed = await api.patch(`/public/v1/maintenance-windows/${w.id}`, {
      start: "2026-11-21T12:30:00Z",
      recurrence: null,
      durationMinutes: 30,
    });
    expect(changed.status).toBe(200);
    expect(changed.json.data).toMatchObject({
      start: "2026-11-21T13:30",
      recurrence: null,
      next: { startsAt: "2026-11-21T12:30:00.000Z", endsAt: "2026-11-21T13:00:00.000Z" },
    });
    clock.advance(45 * 60_000);
    expect((await api.get(`/public/v1/maintenance-windows/${w.id}`)).json.data.active).toBe(true);
    expect((await api.delete(`/public/v1/maintenance-windows/${w.id}`)).status).toBe(200);
    expect((await api.get(`/public/v1/maintenance-windows/${w.id}`)).status).toBe(404);
    expect(await store.db.selectFrom("maintenance_occurrences").selectAll().execute()).toEqual([]);
  });

  test("occurrences are expanded ahead, at most 1,000, and further by the engine's housekeeping as they run out", async () => {
    const { id } = await site(targets.ok);
    const hourly = (
      await window({
        title: "Hourly",
        sites: [id],
        start: "2026-11-21T12:30",
        durationMinutes: 5,
        recurrence: "FREQ=HOURLY",
      })
    ).json.data;
    const stored = () =>
      store.db
        .selectFrom("maintenance_windows")
        .select("expanded_until")
        .where("id", "=", hourly.id)
        .executeTakeFirstOrThrow();
    const count = async () =>
      (
        await store.db
          .selectFrom("maintenance_occurrences")
          .select("starts_at")
          .where("window_id", "=", hourly.id)
          .execute()
      ).length;
    expect(await count()).toBe(1000);
    // The 1,000th hourly start: 999 hours after the first.
    const reach = (await stored()).expanded_until;
    expect(reach).toBe(new Date(Date.parse("2026-11-21T12:30:00Z") + 999 * 3_600_000).toISOString());
    // Within 30 days of running out, the housekeeping (every 10 minutes in each engine) expands it again from now.
    clock.advance(15 * 86_400_000);
    await made.engine.prune();
    expect((await stored()).expanded_until > reach).toBe(true);
    const first = await store.db
      .selectFrom("maintenance_occurrences")
      .select("starts_at")
      .where("window_id", "=", hourly.id)
      .orderBy("starts_at")
      .executeTakeFirstOrThrow();
    expect(Date.parse(first.starts_at)).toBeGreaterThan(clock.now().getTime() - 3_600_000);
    // At most 1,000 expanded, of which the ones begun before now (a day's margin for zones) are dropped.
    expect(await count()).toBeGreaterThan(950);
    expect(await count()).toBeLessThanOrEqual(1000);
    // A one-off window far away is not expanded again and again: it has one occurrence and reaches the horizon.
    const once = (await window({ title: "Once", sites: [id], start: "2027-01-01T00:00", durationMinutes: 5 })).json
      .data;
    expect(once.next).toEqual({ startsAt: "2027-01-01T00:00:00.000Z", endsAt: "2027-01-01T00:05:00.000Z" });
  });

  test("in a window: checks recorded, no alert, no incident, no downtime; the page reads maintenance; at its end, one alert and the incident", async () => {
    const { id } = await site(targets.fail);
    await api.post("/public/v1/alert-channels", {
      name: "Hook",
      type: "webhook",
      config: { url: `${receiver.origin}/hook` },
    });
    const page = (await api.post("/public/v1/status-pages", { name: "Acme", slug: "acme-mw" })).json.data;
    const item = (await api.post(`/public/v1/status-pages/${page.id}/items`, { siteId: id })).json.data;
    // From 12:01 for 20 minutes (the clock reads 12:00).
    const created = await window({
      title: "Database upgrade",
      description: "Checkout may be slow.",
      sites: [id],
      start: "2026-11-21T12:01Z",
      durationMinutes: 20,
    });
    expect(created.status).toBe(201);
    const view = async () =>
      PublicStatusPage.parse((await (await made.app.request("/public/v1/status-page/acme-mw")).json()) as unknown);
    // Scheduled: listed, not yet active.
    expect((await view()).maintenance).toEqual([
      expect.objectContaining({ title: "Database upgrade", active: false, items: [item.id] }),
    ]);

    await minute(10);
    const checks = await store.db.selectFrom("check_results").select("ok").where("site_id", "=", id).execute();
    expect(checks.length).toBeGreaterThanOrEqual(9);
    expect(checks.every((c) => c.ok === 0)).toBe(true);
    const during = (await api.get(`/public/v1/site/${id}`)).json.data;
    expect(during.state).toBe("unhealthy");
    expect(await store.db.selectFrom("alert_outbox").selectAll().execute()).toEqual([]);
    expect(await store.db.selectFrom("incidents").selectAll().execute()).toEqual([]);
    const shown = await view();
    expect(shown.items[0]?.status).toBe("maintenance");
    expect(shown.maintenance[0]).toMatchObject({ active: true, description: "Checkout may be slow." });
    // Neither the checks nor the time count: no data at all for the day so far.
    const stat = (await api.get(`/public/v1/site/${id}`)).json.data.stat as { downtimeMinutes: number }[];
    expect(stat.reduce((sum, day) => sum + day.downtimeMinutes, 0)).toBe(0);
    expect(shown.items[0]?.uptime).toBeNull();

    // The window ends with the site still down: one down alert, and the page's incident opens.
    await minute(12);
    const rows = await store.db.selectFrom("alert_outbox").select("type").execute();
    expect(rows.map((r) => r.type)).toEqual(["site.down"]);
    await sender.tick();
    expect(received.map((e) => e.type)).toEqual(["site.down"]);
    const incidents = await store.db.selectFrom("incidents").select(["title", "status"]).execute();
    expect(incidents).toEqual([{ title: "Shop is down", status: "investigating" }]);
    const after = await view();
    expect(after.items[0]?.status).toBe("outage");
    expect(after.maintenance).toEqual([]);
    await minute(3);
    expect(await store.db.selectFrom("alert_outbox").selectAll().execute()).toHaveLength(1);
  });

  test("a rule's repeat interval tells again that a site is still down, every interval, until it recovers", async () => {
    const { id } = await site(targets.fail);
    await api.post("/public/v1/alert-channels", {
      name: "Hook",
      type: "webhook",
      config: { url: `${receiver.origin}/hook` },
    });
    expect((await api.call("PUT", "/public/v1/alert-rules/default", { repeatMinutes: 5 })).status).toBe(200);
    expect((await api.get("/public/v1/alert-rules/default")).json.data.repeatMinutes).toBe(5);
    expect((await api.call("PUT", "/public/v1/alert-rules/default", { repeatMinutes: 1 })).status).toBe(400);
    await minute(13);
    const types = (await store.db.selectFrom("alert_outbox").select("type").orderBy("id").execute()).map((r) => r.type);
    expect(types).toEqual(["site.down", "site.still_down", "site.still_down"]);
    await sender.tick();
    const still = received.find((e) => e.type === "site.still_down") as AlertEvent;
    expect(still.summary).toBe("Shop is still down, for 5 min.");
    expect(still.downtimeSeconds).toBe(300);
    // A site's own rule without a repeat wins over the workspace's.
    expect((await api.call("PUT", `/public/v1/site/${id}/alert-rule`, { repeatMinutes: null })).status).toBe(200);
    await minute(10);
    expect(await store.db.selectFrom("alert_outbox").selectAll().execute()).toHaveLength(3);
  });
});
