import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { AlertSender } from "../../server/alerts/sender.ts";
import { AlertEvent } from "../../server/contract/alerts.ts";
import { PublicStatusPage } from "../../server/contract/status-page.ts";
import { instantOf, localStart } from "../../server/engine/maintenance.ts";
import { refillMaintenance } from "../../server/engine/record.ts";
import type { StoredWindow } from "../../server/store/maintenance.ts";
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
    // 02:30 on 25 October 2026 happens twice in Berlin (03:00 summer time goes back to 02:00): the first, as RFC 5545 says.
    expect(new Date(instantOf(wall("2026-10-25T02:30"), "Europe/Berlin")).toISOString()).toBe(
      "2026-10-25T00:30:00.000Z",
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
        // A delivery cut off mid-way (its sender stopped as a test ended) is not received: only whole bodies count.
        const body = Buffer.concat(chunks).toString();
        if (req.complete && body !== "") received.push(AlertEvent.parse(JSON.parse(body)));
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

  /** A site that fails its checks, a webhook channel to the receiver, and a page showing the site. */
  const failingSiteOnPage = async (slug: string) => {
    const { id } = await site(targets.fail);
    await api.post("/public/v1/alert-channels", {
      name: "Hook",
      type: "webhook",
      config: { url: `${receiver.origin}/hook` },
    });
    const page = (await api.post("/public/v1/status-pages", { name: "Acme", slug })).json.data;
    const item = (await api.post(`/public/v1/status-pages/${page.id}/items`, { siteId: id })).json.data;
    const view = async () =>
      PublicStatusPage.parse((await (await made.app.request(`/public/v1/status-page/${slug}`)).json()) as unknown);
    return { id, item, view };
  };

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
    // Values rrule would read without complaint, and more often than hourly.
    for (const recurrence of [
      "FREQ=DAILY;BYHOUR=25",
      "FREQ=MONTHLY;BYMONTHDAY=0",
      "FREQ=YEARLY;BYMONTH=13",
      "FREQ=HOURLY;BYMINUTE=0,30",
      "FREQ=HOURLY;BYSECOND=5",
      "FREQ=WEEKLY;INTERVAL=0",
      "FREQ=WEEKLY;BYDAY=XX",
    ]) {
      expect(await field({ ...base, recurrence })).toBe("recurrence");
    }
    const hourly = await window({ ...base, recurrence: "rrule:freq=hourly;byminute=15;count=3" });
    expect(hourly.json.data.recurrence).toBe("FREQ=HOURLY;BYMINUTE=15;COUNT=3");
    for (const start of ["2026-12-06T01:00:60Z", "2026-12-06T01:00+24:00", "1999-12-31T23:00"]) {
      expect(await field({ ...base, start })).toBe("start");
    }
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
    expect((await api.get("/public/v1/maintenance-windows")).json.data.windows).toHaveLength(1);
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

  test("occurrences are expanded ahead, at most 1,000, and further by the engine's housekeeping halfway through", async () => {
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
    const refillAt = async () =>
      (
        await store.db
          .selectFrom("maintenance_windows")
          .select("refill_at")
          .where("id", "=", hourly.id)
          .executeTakeFirstOrThrow()
      ).refill_at;
    const starts = async () =>
      (
        await store.db
          .selectFrom("maintenance_occurrences")
          .select("starts_at")
          .where("window_id", "=", hourly.id)
          .orderBy("starts_at")
          .execute()
      ).map((o) => o.starts_at);
    const first = await starts();
    expect(first).toHaveLength(1000);
    expect(first[0]).toBe("2026-11-21T12:30:00.000Z");
    const reach = Date.parse(first.at(-1) as string);
    // Expanded again halfway to what it reached, by the housekeeping (every 10 minutes in each engine).
    const half = Date.parse("2026-11-21T12:00:00Z") + (reach - Date.parse("2026-11-21T12:00:00Z")) / 2;
    expect(await refillAt()).toBe(new Date(half).toISOString());
    await made.engine.prune();
    expect(await starts()).toEqual(first);
    clock.advance(half - clock.now().getTime());
    await made.engine.prune();
    const later = await starts();
    expect(Date.parse(later.at(-1) as string)).toBeGreaterThan(reach);
    expect(Date.parse(later[0] as string)).toBeGreaterThan(clock.now().getTime() - 3_600_000);
    // A one-off window far away: one occurrence, expanded again only within 30 days of the 400-day horizon.
    const once = (await window({ title: "Once", sites: [id], start: "2027-01-01T00:00", durationMinutes: 5 })).json
      .data;
    expect(once.next).toEqual({ startsAt: "2027-01-01T00:00:00.000Z", endsAt: "2027-01-01T00:05:00.000Z" });
  });

  test("a window that can no longer be expanded keeps its occurrences, is tried again a day later, and holds up no other", async () => {
    const { id } = await site(targets.ok);
    const body = { title: "W", sites: [id], start: "2026-11-22T02:00", durationMinutes: 30, recurrence: "FREQ=WEEKLY" };
    const [a, b] = [(await window(body)).json.data, (await window(body)).json.data];
    // a's rule is made one that rrule cannot expand in time (as a rule near the limit can become on a loaded machine).
    await store.db
      .updateTable("maintenance_windows")
      .set({ recurrence: "FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30", refill_at: "2026-01-01T00:00:00.000Z" })
      .where("id", "=", a.id)
      .execute();
    await store.db
      .updateTable("maintenance_windows")
      .set({ refill_at: "2026-01-02T00:00:00.000Z" })
      .where("id", "=", b.id)
      .execute();
    const result = await refillMaintenance(store, clock.now().getTime());
    expect(result.expanded).toBe(1);
    expect(result.failed).toEqual([{ id: a.id, problem: expect.stringMatching(/too long/) }]);
    const rows = await store.db
      .selectFrom("maintenance_windows")
      .select(["id", "refill_at"])
      .orderBy("refill_at")
      .execute();
    expect(rows.find((r) => r.id === a.id)?.refill_at).toBe(new Date(clock.now().getTime() + 86_400_000).toISOString());
    expect(
      await store.db.selectFrom("maintenance_occurrences").select("starts_at").where("window_id", "=", a.id).execute(),
    ).not.toEqual([]);
  });

  test("a change made from an older version is a 409; a site deleted while the window is saved is a 400; the zone is stored canonical", async () => {
    const { id } = await site(targets.ok);
    const created = (
      await window({
        title: "W",
        sites: [id],
        start: "2026-11-22T02:00",
        timeZone: "europe/BERLIN",
        durationMinutes: 30,
      })
    ).json.data;
    expect(created.timeZone).toBe("Europe/Berlin");
    // Another change lands between this one's read and its write.
    const before = created.updatedAt as string;
    clock.advance(1000);
    expect((await api.patch(`/public/v1/maintenance-windows/${created.id}`, { title: "First" })).status).toBe(200);
    const stale = await store.maintenance.save(
      {
        ...((await store.maintenance.get(owner.workspaceId, created.id)) as StoredWindow),
        title: "Second",
        updated_at: clock.now().toISOString(),
      },
      [],
      before,
    );
    expect(stale).toBe("changed");
    expect((await api.get(`/public/v1/maintenance-windows/${created.id}`)).json.data.title).toBe("First");
    const current = (await store.maintenance.get(owner.workspaceId, created.id)) as StoredWindow;
    await api.delete(`/public/v1/site/${id}`);
    expect(await store.maintenance.save({ ...current, sites: [id] }, [], current.updated_at)).toBe("sites");
    await api.delete(`/public/v1/maintenance-windows/${created.id}`);
    expect(await store.maintenance.save(current, [], current.updated_at)).toBe("gone");
  });

  test("expansions wait in one worker, two per workspace: a burst is served or refused with 429, and another workspace still gets its turn", async () => {
    const { id } = await site(targets.ok);
    const other = client(made.app, (await seedOwner(store, "stack")).token);
    const theirs = (await other.post("/public/v1/sites", { url: targets.ok, name: "Theirs" })).json.data;
    const body = { start: "2026-11-22T02:00", durationMinutes: 30, recurrence: "FREQ=WEEKLY;BYDAY=SU" };
    const [burst, second] = await Promise.all([
      Promise.all(Array.from({ length: 12 }, (_, i) => window({ ...body, title: `W${i}`, sites: [id] }))),
      other.post("/public/v1/maintenance-windows", { ...body, title: "Theirs", sites: [theirs.id] }),
    ]);
    expect(burst.filter((r) => r.status !== 201 && r.status !== 429).map((r) => r.json)).toEqual([]);
    expect(burst.filter((r) => r.status === 201).length).toBeGreaterThanOrEqual(2);
    const refused = burst.find((r) => r.status === 429);
    expect(refused?.headers.get("retry-after")).toBe("1");
    expect(second.status).toBe(201);
  });

  test("a window whose sites were all deleted asks for sites; an hourly rule begun in 2000 expands as fast as a new one", async () => {
    const { id } = await site(targets.ok);
    const w = (await window({ title: "W", sites: [id], start: "2026-11-22T02:00", durationMinutes: 30 })).json.data;
    await api.delete(`/public/v1/site/${id}`);
    expect((await api.get(`/public/v1/maintenance-windows/${w.id}`)).json.data.sites).toEqual([]);
    const patched = await api.patch(`/public/v1/maintenance-windows/${w.id}`, { title: "New" });
    expect(patched.status).toBe(400);
    expect(patched.json.details[0].field).toBe("sites");
    const { id: again } = await site(targets.ok);
    expect((await api.patch(`/public/v1/maintenance-windows/${w.id}`, { title: "New", sites: [again] })).status).toBe(
      200,
    );
    const old = await window({
      title: "Old",
      sites: [again],
      start: "2000-01-01T00:15",
      durationMinutes: 5,
      recurrence: "FREQ=HOURLY",
    });
    expect(old.status).toBe(201);
    expect(old.json.data.next).toEqual({ startsAt: "2026-11-21T12:15:00.000Z", endsAt: "2026-11-21T12:20:00.000Z" });
    const late = await window({ title: "Late", sites: [again], start: "9999-12-31T23:59-14:00", durationMinutes: 5 });
    expect(late.status).toBe(400);
    expect(late.json.details[0].field).toBe("start");
  });

  test("in a window: checks recorded, no alert, no incident, no downtime; the page reads maintenance; at its end, one alert and the incident", async () => {
    const { id, item, view } = await failingSiteOnPage("acme-mw");
    // From 12:01 for 20 minutes (the clock reads 12:00).
    const created = await window({
      title: "Database upgrade",
      description: "Checkout may be slow.",
      sites: [id],
      start: "2026-11-21T12:01Z",
      durationMinutes: 20,
    });
    expect(created.status).toBe(201);
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
    expect(incidents).toEqual([{ title: "Shop is unavailable", status: "investigating" }]);
    const after = await view();
    expect(after.items[0]?.status).toBe("major_outage");
    expect(after.maintenance).toEqual([]);
    await minute(3);
    expect(await store.db.selectFrom("alert_outbox").selectAll().execute()).toHaveLength(1);
  });

  test("ended early: the page and the engine see it end at once, a one-off is over, a recurring one keeps its later occurrences", async () => {
    const { id, view } = await failingSiteOnPage("acme-end");
    // Entered as 13:01 in Berlin (12:01 UTC), for an hour; the clock reads 12:00 UTC.
    const once = (
      await window({
        title: "Upgrade",
        sites: [id],
        start: "2026-11-21T13:01",
        timeZone: "Europe/Berlin",
        durationMinutes: 60,
      })
    ).json.data;
    expect(once).toMatchObject({ start: "2026-11-21T13:01", timeZone: "Europe/Berlin" });
    expect(once.next).toEqual({ startsAt: "2026-11-21T12:01:00.000Z", endsAt: "2026-11-21T13:01:00.000Z" });
    // Not under way yet: nothing to end.
    const early = await api.post(`/public/v1/maintenance-windows/${once.id}/end`);
    expect(early.status).toBe(409);
    expect(early.json).toMatchObject({ success: false, error: "conflict" });
    await minute(5);
    expect((await view()).items[0]?.status).toBe("maintenance");
    expect(await store.db.selectFrom("alert_outbox").selectAll().execute()).toEqual([]);

    const ended = await api.post(`/public/v1/maintenance-windows/${once.id}/end`);
    expect(ended.status, ended.text).toBe(200);
    expect(ended.json.data).toMatchObject({ id: once.id, active: false, next: null, start: "2026-11-21T13:01" });
    expect((await view()).maintenance).toEqual([]);
    // The engine judges the site at once: the site is down, so the alert that waited goes out.
    await made.engine.runOnce();
    expect((await store.db.selectFrom("alert_outbox").select("type").execute()).map((r) => r.type)).toEqual([
      "site.down",
    ]);
    expect((await view()).items[0]?.status).toBe("major_outage");
    // Expanding the window again (an edit) does not bring the ended occurrence back.
    const edited = await api.patch(`/public/v1/maintenance-windows/${once.id}`, { title: "Upgrade (done)" });
    expect(edited.json.data).toMatchObject({ title: "Upgrade (done)", active: false, next: null });
    expect((await api.post(`/public/v1/maintenance-windows/${once.id}/end`)).status).toBe(409);
    // New times re-plan it (an end by mistake, undone by planning two hours from now on): under way again.
    const replanned = await api.patch(`/public/v1/maintenance-windows/${once.id}`, {
      start: "2026-11-21T13:05",
      durationMinutes: 120,
    });
    expect(replanned.status, replanned.text).toBe(200);
    expect(replanned.json.data).toMatchObject({ active: true, next: { endsAt: "2026-11-21T14:05:00.000Z" } });
    expect((await api.post(`/public/v1/maintenance-windows/${once.id}/end`)).status).toBe(200);

    // A daily window under way since 11:50 UTC: ended now, tomorrow's stays.
    const daily = (
      await window({
        title: "Backup",
        sites: [id],
        start: "2026-11-21T11:50Z",
        durationMinutes: 60,
        recurrence: "FREQ=DAILY",
      })
    ).json.data;
    expect(daily.active).toBe(true);
    const stopped = await api.post(`/public/v1/maintenance-windows/${daily.id}/end`);
    expect(stopped.status, stopped.text).toBe(200);
    expect(stopped.json.data).toMatchObject({
      active: false,
      next: { startsAt: "2026-11-22T11:50:00.000Z", endsAt: "2026-11-22T12:50:00.000Z" },
    });
    expect((await api.post("/public/v1/maintenance-windows/mw_nope/end")).status).toBe(404);
    const viewer = client(made.app, (await seedMember(store, owner.email, "viewer")).token);
    expect((await viewer.post(`/public/v1/maintenance-windows/${daily.id}/end`)).status).toBe(403);
  });

  test("an edit changes title, sites, start, zone, duration and recurrence; the answer keeps the start as entered", async () => {
    const a = (await site(targets.ok)).id;
    const b = (await site(targets.ok)).id;
    const w = (await window({ title: "One", sites: [a], start: "2026-12-01T02:00", durationMinutes: 30 })).json.data;
    expect(w).toMatchObject({ timeZone: "UTC", next: { startsAt: "2026-12-01T02:00:00.000Z" } });
    const res = await api.patch(`/public/v1/maintenance-windows/${w.id}`, {
      title: "Two",
      sites: [b],
      start: "2026-12-06T02:00",
      timeZone: "Europe/Berlin",
      durationMinutes: 90,
      recurrence: "FREQ=WEEKLY;BYDAY=SU",
    });
    expect(res.status, res.text).toBe(200);
    expect(res.json.data).toMatchObject({
      title: "Two",
      sites: [b],
      start: "2026-12-06T02:00",
      timeZone: "Europe/Berlin",
      durationMinutes: 90,
      recurrence: "FREQ=WEEKLY;BYDAY=SU",
      next: { startsAt: "2026-12-06T01:00:00.000Z", endsAt: "2026-12-06T02:30:00.000Z" },
    });
    const zone = await api.patch(`/public/v1/maintenance-windows/${w.id}`, { timeZone: "Europe/Atlantis" });
    expect(zone.status).toBe(400);
    expect(zone.json.details[0].field).toBe("timeZone");
  });

  test("every item under way reads maintenance, also beyond the 10 windows a page lists", async () => {
    const page = (await api.post("/public/v1/status-pages", { name: "Many", slug: "many-mw" })).json.data;
    for (let i = 0; i < 11; i++) {
      const { id } = await site(targets.ok);
      await api.post(`/public/v1/status-pages/${page.id}/items`, { siteId: id, label: `S${i}` });
      await window({ title: `W${i}`, sites: [id], start: "2026-11-21T11:00Z", durationMinutes: 120 });
    }
    const view = PublicStatusPage.parse(await (await made.app.request("/public/v1/status-page/many-mw")).json());
    expect(view.maintenance).toHaveLength(10);
    expect(view.items.map((item) => item.status)).toEqual(Array(11).fill("maintenance"));
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
