import { afterAll, beforeAll, expect, test } from "vitest";
import type { NoticeSender } from "../../server/alerts/notice-sender.ts";
import type { AlertSender } from "../../server/alerts/sender.ts";
import { AlertEvent } from "../../server/contract/alerts.ts";
import type { Store } from "../../server/store/store.ts";
import { appWithEngine, testNoticeSender, testSender } from "../api/with-engine.ts";
import { client, describeStores, seedOwner, TestClock, useStore } from "../helpers.ts";
import { listen } from "../support/listen.ts";

/**
 * Issue 27: one incident per outage and alerts that calm down. One engine on a fixed clock checks a real local target
 * whose answer a test toggles (200 or 500) every 30 seconds; a real sender delivers to a real webhook receiver, which
 * counts every delivery; incidents are read from the store (the page's owner-only columns included).
 */
const STEP = 30_000;
const MINUTE = 60_000;

let failing = false;
let target: Awaited<ReturnType<typeof listen>>;
let receiver: Awaited<ReturnType<typeof listen>>;
let received: AlertEvent[] = [];

beforeAll(async () => {
  target = await listen((_req, res) => {
    res.statusCode = failing ? 500 : 200;
    res.end();
  });
  receiver = await listen((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      received.push(AlertEvent.parse(JSON.parse(Buffer.concat(chunks).toString())));
      res.end("thanks");
    });
  });
});
afterAll(async () => {
  for (const { server } of [target, receiver]) {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  }
});

/** The alerts about a site's state (chronic performance follows its own window). */
const STATE = ["site.down", "site.still_down", "site.recovered", "site.flapping", "site.flapping_ended"];

describeStores("calm alerts and one incident per outage", (kind) => {
  let store: Store;
  let clock: TestClock;
  let made: ReturnType<typeof appWithEngine>;
  let api: ReturnType<typeof client>;
  let sender: AlertSender;
  let notices: NoticeSender;

  useStore(kind, { each: true }, async (opened) => {
    ({ store } = opened);
    clock = new TestClock();
    made = appWithEngine(store, clock, { PORCHLIGHT_ALLOW_PRIVATE_TARGETS: "true" });
    api = client(made.app, (await seedOwner(store, "stack")).token);
    sender = testSender(store, clock);
    notices = testNoticeSender(store, clock);
    received = [];
    failing = false;
    return () => made.engine.stop();
  });

  /** A webhook channel, a page with the given policy, a site checked every 30 s (with its rule), first checks done. */
  const setUp = async (opts: { policy?: object; rule?: object; onPage?: boolean } = {}) => {
    const hook = await api.post("/public/v1/alert-channels", {
      name: "Hook",
      type: "webhook",
      config: { url: `${receiver.origin}/hook` },
    });
    expect(hook.status).toBe(201);
    const site = (
      await api.post("/public/v1/sites", { url: `${target.origin}/pay`, name: "Pay", checkInterval: 30, timeout: 5 })
    ).json.data;
    if (opts.rule) {
      const put = await api.call("PUT", `/public/v1/site/${site.id}/alert-rule`, opts.rule);
      expect(put.status).toBe(200);
    }
    const page = (await api.post("/public/v1/status-pages", { name: "Status", slug: "pay-status" })).json.data;
    await store.db
      .updateTable("status_pages")
      .set({ incident_policy: JSON.stringify(opts.policy ?? {}) })
      .where("id", "=", page.id)
      .execute();
    const item = opts.onPage !== false ? await addItem(page.id, site.id) : undefined;
    clock.advance(3000);
    await tick();
    return { site, page, item };
  };
  const addItem = async (pageId: number, siteId: string) => {
    const item = await api.post(`/public/v1/status-pages/${pageId}/items`, { siteId, label: "Payments" });
    expect(item.status).toBe(201);
    return item.json.data;
  };
  /** The engine checks what is due and judges by time, then the sender delivers everything due. */
  const tick = async () => {
    await made.engine.runOnce();
    while ((await sender.tick()) > 0);
    while ((await notices.tick()) > 0);
  };
  /** `n` steps of 30 s, each checked. */
  const steps = async (n: number) => {
    for (let i = 0; i < n; i++) {
      clock.advance(STEP);
      await tick();
    }
  };
  /** An outage of one minute (two failed checks), then a minute up. */
  const outage = async () => {
    failing = true;
    await steps(2);
    failing = false;
    await steps(2);
  };
  const types = () => received.map((e) => e.type).filter((t) => STATE.includes(t));
  const incidents = () =>
    store.db.selectFrom("incidents").selectAll().where("source", "=", "automatic").orderBy("id").execute();
  const updates = (id: number) =>
    store.db.selectFrom("incident_updates").selectAll().where("incident_id", "=", id).orderBy("id").execute();
  const state = async (siteId: string) => (await api.get(`/public/v1/site/${siteId}`)).json.data.state;

  test("a target flapping every minute for 30 minutes: one incident with its updates; down, recovered, down, recovered, flapping, then one summary once it holds", async () => {
    await setUp({ policy: { publish: "immediately" } });
    // The answer changes every minute: two failed checks (down), two good ones (back), for 30 minutes.
    for (let minute = 0; minute < 30; minute++) {
      failing = minute % 2 === 0;
      await steps(2);
    }
    failing = false;
    expect(types()).toEqual(["site.down", "site.recovered", "site.down", "site.recovered", "site.flapping"]);
    const flapping = received.find((e) => e.type === "site.flapping");
    expect(flapping?.flapping).toMatchObject({ outages: 3, state: "down" });
    expect(flapping?.summary).toMatch(/^Pay is flapping: 3 outages in 4 min\./);
    // While it flaps, the site keeps only the window's outages, not every one since it began.
    const flap = JSON.parse(
      (await store.db.selectFrom("sites").select("flap").executeTakeFirstOrThrow()).flap as string,
    ) as { starts: string[] };
    const windowStart = clock.now().getTime() - 30 * MINUTE;
    expect(flap.starts.every((t) => Date.parse(t) >= windowStart)).toBe(true);
    // Up and steady: nothing until it has held for the quiet time (30 minutes), then one summary.
    await steps(58);
    expect(types()).toHaveLength(5);
    await steps(4);
    expect(types()).toEqual([
      "site.down",
      "site.recovered",
      "site.down",
      "site.recovered",
      "site.flapping",
      "site.flapping_ended",
    ]);
    const ended = received.find((e) => e.type === "site.flapping_ended");
    expect(ended?.flapping).toMatchObject({ outages: 15, state: "up" });
    expect(ended?.summary).toMatch(/^Pay stopped flapping and is up: 15 outages over 29 min\./);
    // Each delivery counted once at the receiver.
    expect(new Set(received.map((e) => e.id)).size).toBe(received.length);
    // One incident, re-opened by each outage within the cool-down: its first update, then 14 times "again" and
    // 15 recoveries, in turn.
    const [incident, ...others] = await incidents();
    expect(others).toEqual([]);
    expect(incident).toMatchObject({ title: "Payments is unavailable", status: "resolved", impact: "critical" });
    expect(incident?.published_at).toBe(incident?.started_at);
    const words = (await updates(incident?.id as number)).map((u) => u.message);
    expect(words).toHaveLength(30);
    expect(words[0]).toBe("We are seeing problems reaching Payments and are looking into it.");
    expect(words[1]).toBe("Payments is available again. It was unavailable for 1 minute.");
    expect(words[2]).toBe("Payments became unavailable again shortly after it recovered. We are looking into it.");
    expect(words.filter((w) => w.includes("again shortly"))).toHaveLength(14);
    expect(words.filter((w) => w.includes("available again."))).toHaveLength(15);
    // Visitors read no HTTP code; the owner's detail keeps it.
    expect(words.some((w) => /HTTP|500/.test(w))).toBe(false);
    expect((await updates(incident?.id as number))[0]?.detail).toBe("HTTP 500");
    const items = await store.db.selectFrom("incident_items").selectAll().execute();
    expect(items).toEqual([expect.objectContaining({ incident_id: incident?.id, status: "major_outage" })]);
  });

  test("flapping that ends down tells the owner it is down, and its recovery is told", async () => {
    const { site } = await setUp({ rule: { flapping: { outages: 2, windowMinutes: 30, quietMinutes: 5 } } });
    for (let minute = 0; minute < 4; minute++) {
      failing = minute % 2 === 0;
      await steps(2);
    }
    failing = true;
    await steps(12);
    expect(await state(site.id)).toBe("unhealthy");
    expect(types()).toEqual(["site.down", "site.recovered", "site.flapping", "site.flapping_ended"]);
    const ended = received.at(-1);
    // Flapping began at the second outage; the third (the one it stays in) counts too.
    expect(ended?.flapping).toMatchObject({ outages: 3, state: "down" });
    expect(ended?.summary).toMatch(/stopped flapping and is DOWN/);
    failing = false;
    await steps(2);
    expect(types().at(-1)).toBe("site.recovered");
  });

  test("confirmations: the down alert waits for N failed checks in a row; a site back before sends neither alert", async () => {
    const { site } = await setUp({ rule: { confirmations: 4, flapping: null } });
    failing = true;
    await steps(3);
    expect(await state(site.id)).toBe("unhealthy");
    expect(types()).toEqual([]);
    failing = false;
    await steps(2);
    expect(await state(site.id)).toBe("healthy");
    expect(types()).toEqual([]);
    // Its outage still moved the page: the incident opened and resolved.
    expect(await incidents()).toEqual([expect.objectContaining({ status: "resolved" })]);
    failing = true;
    await steps(3);
    expect(types()).toEqual([]);
    await steps(1);
    expect(types()).toEqual(["site.down"]);
    failing = false;
    await steps(2);
    expect(types()).toEqual(["site.down", "site.recovered"]);
    const rule = (await api.get(`/public/v1/site/${site.id}/alert-rule`)).json.data;
    expect(rule).toMatchObject({ confirmations: 4, cooldownMinutes: 15, flapping: null, inherited: false });
  });

  test("cool-down: down again within it re-opens the incident; after it, or with 0, a new one opens", async () => {
    const { site } = await setUp({ rule: { cooldownMinutes: 10, flapping: null } });
    await outage();
    await steps(16); // 8 minutes after it resolved
    await outage();
    expect(await incidents()).toHaveLength(1);
    const [first] = await incidents();
    expect((await updates(first?.id as number)).map((u) => u.status)).toEqual([
      "investigating",
      "resolved",
      "investigating",
      "resolved",
    ]);
    await steps(22); // 11 minutes after
    await outage();
    expect(await incidents()).toHaveLength(2);
    await api.call("PUT", `/public/v1/site/${site.id}/alert-rule`, { cooldownMinutes: 0, flapping: null });
    await outage();
    expect(await incidents()).toHaveLength(3);
    expect((await incidents()).every((i) => i.status === "resolved")).toBe(true);
  });

  /** What the page's subscribers were told, in order: the notices' events. */
  const told = async () =>
    (await store.db.selectFrom("subscriber_notices").select("event").orderBy("id").execute()).map((n) => n.event);

  test("subscribers of a flapping site hear it went down, then resolved once it holds (5 minutes); a re-opening after that is told", async () => {
    await setUp({ policy: { publish: "immediately" }, rule: { flapping: null } });
    // Down and back every minute for 10 minutes: each recovery resolves the incident, each outage re-opens it.
    for (let minute = 0; minute < 10; minute++) {
      failing = minute % 2 === 0;
      await steps(2);
    }
    failing = false;
    const [incident] = await incidents();
    expect((await updates(incident?.id as number)).filter((u) => u.status === "resolved")).toHaveLength(5);
    // Published once; every resolution so far was followed by a re-opening within the hold: nothing more.
    expect(await told()).toEqual(["published"]);
    await steps(8); // up 4.5 minutes since it last resolved
    expect(await told()).toEqual(["published"]);
    await steps(2);
    expect(await told()).toEqual(["published", "resolved"]);
    await steps(10);
    expect(await told()).toEqual(["published", "resolved"]);
    // Down again within the cool-down (15 minutes), after subscribers heard it was resolved: they hear it re-opened.
    failing = true;
    await steps(2);
    expect(await told()).toEqual(["published", "resolved", "updated"]);
    expect((await incidents()).map((i) => i.status)).toEqual(["investigating"]);
    failing = false;
    await steps(14);
    expect(await told()).toEqual(["published", "resolved", "updated", "resolved"]);
    // Each notice names the update it tells: the last resolution, not an earlier one.
    const last = await store.db
      .selectFrom("subscriber_notices")
      .select("update_id")
      .orderBy("id", "desc")
      .executeTakeFirstOrThrow();
    const resolutions = (await updates(incident?.id as number)).filter((u) => u.status === "resolved");
    expect(last.update_id).toBe(resolutions.at(-1)?.id);
  });

  test("an owner's update while the engine holds its resolution replaces it: told once, or not at all when quiet", async () => {
    const { page } = await setUp({ policy: { publish: "immediately" }, rule: { flapping: null } });
    await outage();
    const [first] = await incidents();
    const resolve = (id: number, notify: boolean) =>
      api.post(`/public/v1/status-pages/${page.id}/incidents/${id}/updates`, {
        status: "resolved",
        message: "Fixed for good.",
        notify,
      });
    expect((await resolve(first?.id as number, true)).status).toBe(201);
    expect(await told()).toEqual(["published", "resolved"]);
    await steps(20);
    expect(await told()).toEqual(["published", "resolved"]);
    // Past the cool-down, a new incident; the owner resolves it quietly while the engine holds its resolution.
    await steps(20);
    await outage();
    const [, second] = await incidents();
    expect(second?.id).not.toBe(first?.id);
    expect((await resolve(second?.id as number, false)).status).toBe(201);
    await steps(20);
    expect(await told()).toEqual(["published", "resolved", "published"]);
  });

  test("a site deleted during its published outage tells subscribers the incident is resolved, at once and once", async () => {
    const { site, item } = await setUp({ policy: { publish: "immediately" }, rule: { flapping: null } });
    failing = true;
    await steps(2);
    expect(await told()).toEqual(["published"]);
    expect((await api.delete(`/public/v1/site/${site.id}`)).status).toBe(200);
    expect(await told()).toEqual(["published", "resolved"]);
    const [incident] = await incidents();
    const last = (await updates(incident?.id as number)).at(-1);
    expect(last?.message).toBe("The site was removed from monitoring.");
    const notice = await store.db
      .selectFrom("subscriber_notices")
      .select(["update_id", "key", "items"])
      .orderBy("id", "desc")
      .executeTakeFirstOrThrow();
    expect(notice.update_id).toBe(last?.id);
    // Written while the site's item was still there: a subscriber who chose that service is told.
    expect(JSON.parse(notice.items)).toEqual([item.id]);
    await steps(20);
    expect(await told()).toEqual(["published", "resolved"]);
  });

  test("a site deleted while the engine holds its incident's resolution tells it at once, naming its service, once", async () => {
    const { site, item } = await setUp({ policy: { publish: "immediately" }, rule: { flapping: null } });
    await outage();
    // Resolved a minute ago: subscribers hear of it once it has held 5 minutes.
    const [incident] = await incidents();
    expect(incident?.status).toBe("resolved");
    expect(incident?.resolution_due_at).not.toBeNull();
    expect(await told()).toEqual(["published"]);
    expect((await api.delete(`/public/v1/site/${site.id}`)).status).toBe(200);
    expect(await told()).toEqual(["published", "resolved"]);
    const notice = await store.db
      .selectFrom("subscriber_notices")
      .select(["update_id", "items"])
      .orderBy("id", "desc")
      .executeTakeFirstOrThrow();
    expect(JSON.parse(notice.items)).toEqual([item.id]);
    expect(notice.update_id).toBe((await updates(incident?.id as number)).at(-1)?.id);
    expect((await incidents())[0]?.resolution_due_at).toBeNull();
    // The hold's sweep finds nothing left to tell.
    await steps(20);
    expect(await told()).toEqual(["published", "resolved"]);
  });

  test("a site deleted while its incident waits to be published tells subscribers nothing", async () => {
    const { site } = await setUp({ policy: { publish: "after", afterMinutes: 5 } });
    failing = true;
    await steps(2);
    expect((await incidents()).map((i) => i.published_at)).toEqual([null]);
    expect((await api.delete(`/public/v1/site/${site.id}`)).status).toBe(200);
    await steps(20);
    expect(await told()).toEqual([]);
    expect((await incidents()).map((i) => i.status)).toEqual(["resolved"]);
  });

  test("published after N minutes: a shorter outage stays owner-only for good; a longer one is published by time", async () => {
    await setUp({ policy: { publish: "after", afterMinutes: 5 } });
    failing = true;
    await steps(6); // 3 minutes
    failing = false;
    await steps(2);
    let [short] = await incidents();
    expect(short).toMatchObject({ status: "resolved", published_at: null });
    await steps(20);
    [short] = await incidents();
    expect(short?.published_at).toBeNull();
    // 15 minutes later (beyond the cool-down) a longer outage: published once it has lasted 5 minutes.
    await steps(10);
    failing = true;
    await steps(11); // down after the second failed check: 4.5 minutes of outage
    const long = (await incidents())[1];
    expect(long?.published_at).toBeNull();
    const startedAt = Date.parse(long?.started_at as string);
    await steps(2);
    const published = (await incidents())[1];
    expect(published?.resolved_at).toBeNull();
    expect(Date.parse(published?.published_at as string) - startedAt).toBeGreaterThanOrEqual(5 * MINUTE);
    expect(Date.parse(published?.published_at as string) - startedAt).toBeLessThanOrEqual(5 * MINUTE + STEP);
  });

  test("published after N minutes counts the outages' time: a target flapping until they add up to it is published", async () => {
    await setUp({ policy: { publish: "after", afterMinutes: 5 } });
    for (let minute = 0; minute < 4; minute++) {
      failing = minute % 2 === 0;
      await steps(2);
    }
    // Two outages of a minute each.
    expect((await incidents())[0]?.published_at).toBeNull();
    for (let minute = 0; minute < 12; minute++) {
      failing = minute % 2 === 0;
      await steps(2);
    }
    // Eight outages of a minute: more than the delay, added up.
    const [incident, ...others] = await incidents();
    expect(others).toEqual([]);
    expect(incident?.published_at).not.toBeNull();
  });

  test("two short outages within the cool-down re-open one incident, but do not add up to a public one", async () => {
    await setUp({ policy: { publish: "after", afterMinutes: 5 }, rule: { cooldownMinutes: 15, flapping: null } });
    for (const gap of [16, 16]) {
      failing = true;
      await steps(2);
      failing = false;
      await steps(gap); // 8 minutes up
    }
    await made.engine.sweep();
    const [incident, ...others] = await incidents();
    expect(others).toEqual([]);
    expect(incident).toMatchObject({ status: "resolved", published_at: null });
  });

  test("published by time alone: the engine's sweep publishes with nothing else changing", async () => {
    await setUp({ policy: { publish: "after", afterMinutes: 2 } });
    failing = true;
    await steps(2);
    expect((await incidents())[0]?.published_at).toBeNull();
    clock.advance(2 * MINUTE);
    await made.engine.sweep();
    expect((await incidents())[0]?.published_at).toBe(clock.now().toISOString());
  });

  test("a page switched to drafts while an incident waits for its delay keeps it for the owner", async () => {
    const { page } = await setUp({ policy: { publish: "after", afterMinutes: 2 } });
    failing = true;
    await steps(2);
    await store.db
      .updateTable("status_pages")
      .set({ incident_policy: JSON.stringify({ publish: "draft" }) })
      .where("id", "=", page.id)
      .execute();
    await steps(8);
    expect(await incidents()).toEqual([expect.objectContaining({ status: "investigating", published_at: null })]);
  });

  test("drafts: an automatic incident stays unpublished however long the outage", async () => {
    await setUp({ policy: { publish: "draft" } });
    failing = true;
    await steps(40);
    failing = false;
    await steps(2);
    expect(await incidents()).toEqual([expect.objectContaining({ status: "resolved", published_at: null })]);
  });

  test("an item added while its site is already down: its page gets the outage's incident, from when it began", async () => {
    const { site, page } = await setUp({ onPage: false, policy: { publish: "after", afterMinutes: 5 } });
    failing = true;
    await steps(2);
    const downSince = (
      await store.db.selectFrom("sites").select("down_since").where("id", "=", site.id).executeTakeFirst()
    )?.down_since;
    expect(downSince).not.toBeNull();
    expect(await incidents()).toEqual([]);
    await steps(12); // 6 minutes down: beyond the page's delay
    await addItem(page.id, site.id);
    await steps(1);
    const [incident, ...others] = await incidents();
    expect(others).toEqual([]);
    expect(incident).toMatchObject({
      started_at: downSince,
      status: "investigating",
      published_at: clock.now().toISOString(),
    });
    await steps(4);
    expect(await incidents()).toHaveLength(1);
    failing = false;
    await steps(2);
    expect((await incidents())[0]?.status).toBe("resolved");
  });

  test("that incident, deleted by its owner, stays deleted while the outage goes on", async () => {
    const { site, page } = await setUp({ onPage: false, policy: { publish: "immediately" } });
    failing = true;
    await steps(4);
    await addItem(page.id, site.id);
    await steps(1);
    const [incident] = await incidents();
    expect(incident).toBeDefined();
    const deleted = await api.delete(`/public/v1/status-pages/${page.id}/incidents/${incident?.id}`);
    expect(deleted.status, deleted.text).toBe(200);
    await steps(6);
    expect(await incidents()).toEqual([]);
  });

  test("the rule's new fields: defaults answered, bounds refused with a 400 naming the field, null turns flapping off", async () => {
    const got = (await api.get("/public/v1/alert-rules/default")).json.data;
    expect(got).toMatchObject({
      confirmations: 2,
      cooldownMinutes: 15,
      flapping: { outages: 3, windowMinutes: 30, quietMinutes: 30 },
    });
    for (const bad of [
      { confirmations: 1 },
      { confirmations: 21 },
      { cooldownMinutes: -1 },
      { cooldownMinutes: 1441 },
      { flapping: { outages: 1 } },
      { flapping: { windowMinutes: 4 } },
      { flapping: { quietMinutes: 1441 } },
      { flapping: { outages: 3, extra: true } },
    ]) {
      const res = await api.call("PUT", "/public/v1/alert-rules/default", bad);
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.json)).toContain(Object.keys(bad)[0] as string);
    }
    const put = await api.call("PUT", "/public/v1/alert-rules/default", {
      confirmations: 5,
      cooldownMinutes: 0,
      flapping: null,
    });
    expect(put.status).toBe(200);
    expect((await api.get("/public/v1/alert-rules/default")).json.data).toMatchObject({
      confirmations: 5,
      cooldownMinutes: 0,
      flapping: null,
    });
    const partial = await api.call("PUT", "/public/v1/alert-rules/default", { flapping: { outages: 4 } });
    expect(partial.json.data.flapping).toEqual({ outages: 4, windowMinutes: 30, quietMinutes: 30 });
  });
});
