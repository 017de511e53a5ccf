import { createHmac } from "node:crypto";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { AlertSender } from "../../server/alerts/sender.ts";
import { AlertEvent } from "../../server/contract/alerts.ts";
import { Engine } from "../../server/engine/engine.ts";
import { createLogger } from "../../server/log.ts";
import type { Store } from "../../server/store/store.ts";
import { testSender } from "../api/with-engine.ts";
import { client, describeStores, makeApp, seedOwner, TestClock, useStore } from "../helpers.ts";
import { listen } from "../support/listen.ts";

/**
 * Issue 18: a site checked from several regions alerts as the verdict of their quorum decides its state (verdict.ts:
 * down in a region after two failed checks there; unhealthy when a majority of the regions with fresh results are
 * down). Three engines, one per region, over one store and one fixed clock, check a real local target that fails in
 * the regions a test names (it tells them apart by the User-Agent); a real sender delivers to a real webhook receiver,
 * and the tests read what the receiver got.
 */
const REGIONS = ["eu", "us", "ap"] as const;
type Region = (typeof REGIONS)[number];
const MINUTE = 60_000;

/** The regions where the target answers 503 (the others get 200). */
let failing = new Set<Region>();
let target: Awaited<ReturnType<typeof listen>>;
let receiver: Awaited<ReturnType<typeof listen>>;
/** What the receiver got, in order. */
let received: { headers: Record<string, string | string[] | undefined>; event: AlertEvent; body: string }[] = [];
/**
 * The alerts of a change of state, the ones these tests are about (others, such as chronic performance or expiry
 * reminders, follow their own conditions, which failing checks move too).
 */
const STATE_EVENTS: readonly string[] = ["site.down", "site.recovered", "site.degraded"];

beforeAll(async () => {
  target = await listen((req, res) => {
    const region = /region ([a-z0-9-]+)\)/.exec(String(req.headers["user-agent"]))?.[1];
    res.statusCode = failing.has(region as Region) ? 503 : 200;
    res.end();
  });
  receiver = await listen((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString();
      const event = AlertEvent.parse(JSON.parse(body));
      if (STATE_EVENTS.includes(event.type)) received.push({ headers: req.headers, event, body });
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

describeStores("alerts by the quorum of a site's regions", (kind) => {
  let store: Store;
  let clock: TestClock;
  let api: ReturnType<typeof client>;
  let engines: Record<Region, Engine>;
  let sender: AlertSender;

  useStore(kind, { each: true }, async (opened) => {
    ({ store } = opened);
    clock = new TestClock();
    failing = new Set();
    received = [];
    const made = makeApp(store, { clock, env: { PORCHLIGHT_ALLOW_PRIVATE_TARGETS: "true" } });
    api = client(made.app, (await seedOwner(store, "stack")).token);
    const engine = (region: Region) =>
      new Engine({
        store,
        region,
        clock,
        logger: createLogger("silent"),
        concurrency: 10,
        retentionHours: 48,
        policy: { allowPrivate: true, resolve: async () => ["127.0.0.1"] },
        domains: null,
        onRecorded: made.recorded,
      });
    engines = { eu: engine("eu"), us: engine("us"), ap: engine("ap") };
    sender = testSender(store, clock);
    return () => Promise.all(Object.values(engines).map((e) => e.stop()));
  });

  /**
   * A webhook channel to the receiver, and a site checked every minute from the three regions, with its own rule's
   * events when given; the first checks done (healthy everywhere).
   */
  const setUp = async (events?: Record<string, boolean>) => {
    const channel = (
      await api.post("/public/v1/alert-channels", {
        name: "Hook",
        type: "webhook",
        config: { url: `${receiver.origin}/hook` },
      })
    ).json.data;
    const site = (
      await api.post("/public/v1/sites", {
        url: `${target.origin}/shop`,
        name: "Shop",
        checkInterval: 60,
        timeout: 5,
        regions: [...REGIONS],
      })
    ).json.data;
    if (events) {
      const rule = await api.call("PUT", `/public/v1/site/${site.id}/alert-rule`, { channels: "all", events });
      expect(rule.status).toBe(200);
    }
    clock.advance(3000);
    await checkIn(REGIONS);
    expect(await health(site.id)).toMatchObject({ state: "healthy" });
    return { channel, site };
  };
  /** The engines of `regions` check (in that order, each writing its verdict), then the sender delivers. */
  const checkIn = async (regions: readonly Region[]) => {
    for (const region of regions) await engines[region].runOnce();
    while ((await sender.tick()) > 0);
  };
  /** A minute passes; every region (or only those given) checks. */
  const minute = async (regions: readonly Region[] = REGIONS) => {
    clock.advance(MINUTE);
    await checkIn(regions);
  };
  const health = async (siteId: string) => {
    const { state, healthSummary } = (await api.get(`/public/v1/site/${siteId}`)).json.data;
    return { state, healthSummary };
  };
  const types = () => received.map((r) => r.event.type);
  const outbox = () =>
    store.db
      .selectFrom("alert_outbox")
      .select(["type", "state"])
      .where("type", "in", STATE_EVENTS)
      .orderBy("id")
      .execute();

  test("failing in 1 of 3 regions is degraded, not down: no alert by default", async () => {
    const { site } = await setUp();
    failing = new Set(["us"]);
    await minute();
    expect(await health(site.id)).toEqual({
      state: "degraded",
      healthSummary: "A check failed in us, not yet confirmed: HTTP 503.",
    });
    for (let i = 0; i < 4; i++) {
      await minute();
      expect(await health(site.id)).toEqual({
        state: "degraded",
        healthSummary: "Down in us (1 of 3 regions): HTTP 503.",
      });
    }
    failing = new Set();
    await minute();
    expect((await health(site.id)).state).toBe("healthy");
    expect(received).toEqual([]);
    expect(await outbox()).toEqual([]);
  });

  test("failing in 1 of 3 regions with degraded in the rule: one site.degraded, never a down", async () => {
    const { site } = await setUp({ degraded: true });
    failing = new Set(["us"]);
    for (let i = 0; i < 5; i++) await minute();
    expect((await health(site.id)).state).toBe("degraded");
    failing = new Set();
    await minute();
    expect((await health(site.id)).state).toBe("healthy");
    expect(types()).toEqual(["site.degraded"]);
    expect(received[0]?.event).toMatchObject({
      site: { id: site.id, name: "Shop" },
      reason: "A check failed in us, not yet confirmed: HTTP 503.",
      downtimeSeconds: null,
    });
  });

  test("failing in 2 of 3 regions: one site.down, signed, with the reason; back in enough regions: one site.recovered", async () => {
    const { channel, site } = await setUp();
    failing = new Set(["eu", "us"]);
    await minute();
    // One failure in each: not yet confirmed anywhere.
    expect((await health(site.id)).state).toBe("degraded");
    expect(received).toEqual([]);
    await minute();
    const downAt = clock.now().getTime();
    expect(await health(site.id)).toEqual({ state: "unhealthy", healthSummary: "Down in eu, us: HTTP 503." });
    expect(types()).toEqual(["site.down"]);
    // Still down: nothing more.
    for (let i = 0; i < 3; i++) await minute();
    expect(types()).toEqual(["site.down"]);

    const [down] = received;
    expect(down?.event).toMatchObject({
      version: 1,
      type: "site.down",
      site: { id: site.id, name: "Shop", url: `${target.origin}/shop` },
      summary: "Shop is down.",
      reason: "HTTP 503",
      downtimeSeconds: null,
      occurredAt: new Date(downAt).toISOString(),
    });
    expect(down?.headers["x-porchlight-event"]).toBe("site.down");
    expect(down?.headers["x-porchlight-event-id"]).toBe(down?.event.id);
    const timestamp = String(down?.headers["x-porchlight-timestamp"]);
    expect(down?.headers["x-porchlight-signature"]).toBe(
      `v1=${createHmac("sha256", channel.secret).update(`${timestamp}.${down?.body}`).digest("hex")}`,
    );

    // us answers again: down in eu alone, 1 of 3, is degraded; the return is told once us answered twice in a row
    // (with ap, 2 of 3 regions back).
    failing = new Set(["eu"]);
    await minute();
    expect(await health(site.id)).toEqual({
      state: "degraded",
      healthSummary: "Down in eu (1 of 3 regions): HTTP 503.",
    });
    expect(types()).toEqual(["site.down"]);
    await minute();
    const recoveredAt = clock.now().getTime();
    expect(types()).toEqual(["site.down", "site.recovered"]);
    const recovered = received[1]?.event;
    expect(recovered).toMatchObject({
      type: "site.recovered",
      reason: null,
      downtimeSeconds: (recoveredAt - downAt) / 1000,
      occurredAt: new Date(recoveredAt).toISOString(),
    });
    expect(recovered?.downtimeSeconds).toBe(300);
    expect(recovered?.id).not.toBe(down?.event.id);
    failing = new Set();
    await minute();
    expect((await health(site.id)).state).toBe("healthy");
    expect(types()).toEqual(["site.down", "site.recovered"]);
    expect(await outbox()).toEqual([
      { type: "site.down", state: "delivered" },
      { type: "site.recovered", state: "delivered" },
    ]);
  });

  test("within one outage the down regions change, a down region answers once, a region stops reporting: one down, one recovered", async () => {
    const { site } = await setUp();
    const stillDown = async () => {
      expect((await health(site.id)).state).toBe("unhealthy");
      expect(types()).toEqual(["site.down"]);
    };
    failing = new Set(["eu", "us"]);
    await minute();
    await minute();
    const downAt = clock.now().getTime();
    await stillDown();
    // ap fails too: down everywhere.
    failing = new Set(["eu", "us", "ap"]);
    await minute();
    await stillDown();
    await minute();
    expect((await health(site.id)).healthSummary).toBe("Down in ap, eu, us: HTTP 503.");
    await stillDown();
    // eu answers once: us and ap are still a majority.
    failing = new Set(["us", "ap"]);
    await minute();
    expect((await health(site.id)).healthSummary).toBe("Down in ap, us: HTTP 503.");
    await stillDown();
    failing = new Set(["eu", "us", "ap"]);
    await minute();
    await stillDown();
    await minute();
    await stillDown();
    // us stops reporting: once its results go stale it no longer votes; eu and ap are 2 of 2.
    for (let i = 0; i < 3; i++) {
      await minute(["eu", "ap"]);
      await stillDown();
    }
    expect((await health(site.id)).healthSummary).toBe("Down in ap, eu: HTTP 503.");
    // us reports again (its first fresh failure is not yet confirmed): eu and ap are 2 of 3.
    await minute();
    await stillDown();
    await minute();
    await stillDown();

    // Back everywhere: healthy at once; the return is told once a majority answered twice in a row.
    failing = new Set();
    await minute();
    expect((await health(site.id)).state).toBe("healthy");
    expect(types()).toEqual(["site.down"]);
    await minute();
    const recoveredAt = clock.now().getTime();
    expect(types()).toEqual(["site.down", "site.recovered"]);
    expect(received[1]?.event.downtimeSeconds).toBe((recoveredAt - downAt) / 1000);
    expect(new Set(received.map((r) => r.event.id)).size).toBe(2);
  });

  test("flapping across the quorum: the state follows each crossing, but the owner is told down once, and back once it stays back", async () => {
    const { site } = await setUp();
    const outages: { downAt: number; recoveredAt: number }[] = [];
    failing = new Set(["eu", "us"]);
    await minute();
    for (let cycle = 0; cycle < 3; cycle++) {
      // us fails again: its first failure is not yet confirmed (1 of 3 down), its second makes 2 of 3.
      failing = new Set(["eu", "us"]);
      await minute();
      const downAt = clock.now().getTime();
      expect((await health(site.id)).state).toBe("unhealthy");
      await minute();
      // us answers once: eu alone is down, 1 of 3.
      failing = new Set(["eu"]);
      await minute();
      expect((await health(site.id)).state).toBe("degraded");
      outages.push({ downAt, recoveredAt: clock.now().getTime() });
      failing = new Set(["eu", "us"]);
      await minute();
      expect((await health(site.id)).state).toBe("degraded");
    }
    // Each return lasted one check: never confirmed, so one outage throughout.
    expect(types()).toEqual(["site.down"]);
    failing = new Set();
    await minute();
    await minute();
    const back = clock.now().getTime();
    expect(types()).toEqual(["site.down", "site.recovered"]);
    const first = outages[0] as { downAt: number };
    expect(received[1]?.event.downtimeSeconds).toBe((back - first.downAt) / 1000);
    expect(new Set(received.map((r) => r.event.id)).size).toBe(2);
  });

  test("an outage through unknown (every region stops reporting, then reports it still failing) is one outage", async () => {
    const { site } = await setUp();
    failing = new Set(["eu", "us", "ap"]);
    await minute();
    await minute();
    const downAt = clock.now().getTime();
    expect((await health(site.id)).state).toBe("unhealthy");
    // No region reports for five minutes (an outage of the engines): the site is judged again by time, unknown.
    clock.advance(5 * MINUTE);
    await engines.eu.sweep();
    expect((await health(site.id)).state).toBe("unknown");
    // They report again, the site still failing everywhere: still the same outage, told neither as over nor anew.
    await minute();
    await minute();
    expect((await health(site.id)).state).toBe("unhealthy");
    expect(types()).toEqual(["site.down"]);
    failing = new Set();
    await minute();
    expect((await health(site.id)).state).toBe("healthy");
    await minute();
    const recoveredAt = clock.now().getTime();
    expect(types()).toEqual(["site.down", "site.recovered"]);
    expect(received[1]?.event.downtimeSeconds).toBe((recoveredAt - downAt) / 1000);
  });
});
