import type { ServerResponse } from "node:http";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { Store } from "../../server/store/store.ts";
import { appWithEngine, downAlerts, localTargets, testSender } from "../api/with-engine.ts";
import { client, describeStores, seedOwner, TestClock, useStore } from "../helpers.ts";
import { listen } from "../support/listen.ts";

/**
 * Issue 18: a receiver that hangs holds the sender's deliveries, never the engine's checks. With 1,000 deliveries to
 * a receiver that never answers, the engine's rounds still check and judge every site and write new alerts; the
 * sender holds as many requests open as one channel may (8: half of the 16 it runs at once), cuts each off at its
 * time bound, records
 * the attempt and tries it again later, with backoff, until the delivery window closes. No time is measured here
 * (the engine runs on a test clock): the check lag meanwhile is `npm run bench:alerts`'s.
 */
const HANGING = 1000;
const SITES = 20;
/**
 * createSender bounds a delivery by half the claim's lease (PORCHLIGHT_ALERT_LEASE_SECONDS, 60 by default, at least
 * 10) and by 10 s: the default cut-off is 10 s, the shortest 5 s. The engine's rounds below take a small part of it.
 */
const LEASE_MS = 60_000;
const DEFAULT_CUT_OFF_MS = 10_000;
const SHORTEST_CUT_OFF_MS = 5_000;

/** Waits until `ready()` holds; the test's own time limit bounds the wait. */
async function until(ready: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await ready())) await new Promise((resolve) => setTimeout(resolve, 10));
}

describeStores("a receiver that hangs holds deliveries, not checks", (kind) => {
  let store: Store;
  let clock: TestClock;
  let made: ReturnType<typeof appWithEngine>;
  let api: ReturnType<typeof client>;
  let targets: Awaited<ReturnType<typeof localTargets>>;
  let receiver: Awaited<ReturnType<typeof listen>>;
  /** Requests the receiver holds open now, the most it held at once, and how many came. */
  const held = new Set<ServerResponse>();
  let most = 0;
  let came = 0;

  beforeAll(async () => {
    targets = await localTargets();
    // Takes each request's body, then never answers.
    receiver = await listen((req, res) => {
      came++;
      held.add(res);
      most = Math.max(most, held.size);
      res.on("close", () => held.delete(res));
      req.resume();
    });
  });
  afterAll(async () => {
    targets?.close();
    receiver?.server.closeAllConnections();
    await new Promise((resolve) => receiver?.server.close(resolve));
  });

  useStore(kind, { each: true }, async (opened) => {
    ({ store } = opened);
    clock = new TestClock();
    made = appWithEngine(store, clock, { PORCHLIGHT_ALLOW_PRIVATE_TARGETS: "true" });
    api = client(made.app, (await seedOwner(store, "stack")).token);
    most = 0;
    came = 0;
    return async () => {
      await made.engine.stop();
      receiver.server.closeAllConnections();
    };
  });

  /** A sender as createSender makes it, on the test clock, with a fixed jitter; `concurrency` as given. */
  const sender = (options: { concurrency?: number; cutOffMs?: number } = {}) =>
    testSender(store, clock, {
      timeoutMs: options.cutOffMs ?? DEFAULT_CUT_OFF_MS,
      leaseMs: LEASE_MS,
      ...(options.concurrency ? { concurrency: options.concurrency } : {}),
    });

  /**
   * SITES healthy sites and one that fails, all checked once; a webhook channel to the hanging receiver; `alerts`
   * down alerts for it in the outbox (as the engine writes them), all due now.
   */
  const setUp = async (alerts: number) => {
    const channel = (
      await api.post("/public/v1/alert-channels", {
        name: "Hang",
        type: "webhook",
        config: { url: `${receiver.origin}/hook` },
      })
    ).json.data;
    const healthy: string[] = [];
    for (let i = 0; i < SITES; i++) {
      const site = await api.post("/public/v1/sites", { url: targets.ok, name: `Site ${i}`, checkInterval: 60 });
      healthy.push(site.json.data.id);
    }
    const failing = (await api.post("/public/v1/sites", { url: targets.fail, name: "Shop", checkInterval: 60 })).json
      .data;
    clock.advance(3000);
    await made.engine.runOnce();
    const site = await store.db
      .selectFrom("sites")
      .select(["workspace_id", "url"])
      .where("id", "=", healthy[0] as string)
      .executeTakeFirstOrThrow();
    const now = clock.now().toISOString();
    const ids = Array.from({ length: alerts }, (_, i) => `evt_hang_${String(i).padStart(4, "0")}`);
    await store.transaction((trx) =>
      store.alerts.insertOutbox(
        trx,
        downAlerts({
          ids,
          now,
          workspaceId: site.workspace_id,
          channelId: channel.id,
          site: { id: healthy[0] as string, name: "Site 0", url: site.url },
        }),
      ),
    );
    return { channel, healthy, failing: failing.id as string };
  };

  const outbox = () => store.db.selectFrom("alert_outbox").selectAll().orderBy("id").execute();
  const attempts = () => store.db.selectFrom("alert_attempts").selectAll().orderBy("id").execute();

  /**
   * Three engine rounds, a minute apart, while the deliveries hang: each checks and judges every site (its check
   * time is the round's), and the failing site goes down and writes its alert to the outbox.
   */
  const engineRounds = async (healthy: string[], failing: string) => {
    const checksBefore = (await store.db.selectFrom("check_results").select("id").execute()).length;
    for (let round = 1; round <= 3; round++) {
      clock.advance(60_000);
      await made.engine.runOnce();
      const sites = await store.db
        .selectFrom("sites")
        .select(["id", "state", "last_check_time"])
        .where("id", "in", [...healthy, failing])
        .execute();
      expect(sites).toHaveLength(SITES + 1);
      for (const site of sites) {
        expect(site.last_check_time).toBe(clock.now().toISOString());
        expect(site.state).toBe(site.id === failing ? "unhealthy" : "healthy");
      }
      const checks = (await store.db.selectFrom("check_results").select("id").execute()).length;
      expect(checks).toBe(checksBefore + round * (SITES + 1));
    }
    const down = (await outbox()).filter((row) => row.site_id === failing);
    expect(down).toEqual([expect.objectContaining({ type: "site.down", state: "pending", lease_owner: null })]);
  };

  test(`${HANGING} deliveries to a receiver that never answers: the engine checks on, the sender holds 8 (the channel's half of its slots) and cuts them off`, async () => {
    const { healthy, failing } = await setUp(HANGING);
    const delivering = sender({ cutOffMs: SHORTEST_CUT_OFF_MS });
    const round = delivering.tick();
    await until(() => held.size === 8);

    await engineRounds(healthy, failing);

    // Still hanging: the sender started no other delivery, and the rest wait unclaimed.
    expect(held.size).toBe(8);
    expect(came).toBe(8);
    const during = await outbox();
    const mine = during.filter((row) => row.lease_owner === delivering.owner);
    expect(mine).toHaveLength(8);
    expect(during.filter((row) => row.state === "pending" && row.lease_owner === null)).toHaveLength(HANGING - 8 + 1);
    expect(during.filter((row) => row.state !== "pending")).toEqual([]);
    expect(await attempts()).toEqual([]);

    // Cut off at the bound: each attempt recorded as failed, the delivery pending again 30 s later (jitter fixed).
    expect(await round).toBe(8);
    await until(() => held.size === 0);
    const cutOff = (await outbox()).filter((row) => mine.some((m) => m.id === row.id));
    for (const row of cutOff) {
      expect(row).toMatchObject({ state: "pending", attempts: 1, lease_owner: null, last_status: null });
      expect(row.last_error).toBe(`timed out after ${SHORTEST_CUT_OFF_MS} ms`);
      expect(Date.parse(row.next_attempt_at) - clock.now().getTime()).toBe(30_000);
    }
    expect((await attempts()).map((a) => [a.ok, a.status_code, a.error])).toEqual(
      Array.from({ length: 8 }, () => [0, null, `timed out after ${SHORTEST_CUT_OFF_MS} ms`]),
    );
    expect(most).toBe(8);
  }, 60_000);

  test("while one channel's receiver hangs, another channel's deliveries go on beside it (one channel holds at most half of the slots)", async () => {
    const { channel } = await setUp(HANGING);
    const answered: string[] = [];
    const quick = await listen((req, res) => {
      answered.push(String(req.headers["x-porchlight-event-id"]));
      req.resume();
      res.end("ok");
    });
    try {
      const other = (
        await api.post("/public/v1/alert-channels", {
          name: "Quick",
          type: "webhook",
          config: { url: `${quick.origin}/hook` },
        })
      ).json.data;
      // The quick channel's deliveries come after the hanging channel's thousand, in the order they are claimed.
      const rows = (await outbox()).filter((row) => row.channel_id === channel.id).slice(0, 40);
      await store.transaction((trx) =>
        store.alerts.insertOutbox(
          trx,
          rows.map((row) => ({
            deliveryId: row.event_id.replace("evt_hang_", "evt_quick_"),
            workspaceId: row.workspace_id,
            channelId: other.id,
            siteId: row.site_id,
            event: JSON.parse(row.event),
            at: row.created_at,
          })),
        ),
      );
      const delivering = sender();
      delivering.start(20);
      await until(() => answered.length === 40);
      // All forty delivered while the hanging channel holds its eight, none of them cut off yet.
      expect(held.size).toBe(8);
      expect(most).toBe(8);
      expect(new Set(answered).size).toBe(40);
      await delivering.stop();
    } finally {
      quick.server.closeAllConnections();
      await new Promise((resolve) => quick.server.close(resolve));
    }
  }, 60_000);

  test(`${HANGING} deliveries hanging at once (a sender that takes them all): the engine checks on`, async () => {
    const { healthy, failing } = await setUp(HANGING);
    // One channel may hold half of a sender's slots.
    const delivering = sender({ concurrency: 2 * HANGING });
    const round = delivering.tick();
    await until(() => held.size === HANGING);

    await engineRounds(healthy, failing);

    expect(held.size).toBe(HANGING);
    expect(came).toBe(HANGING);
    expect((await outbox()).filter((row) => row.lease_owner === delivering.owner)).toHaveLength(HANGING);
    expect(await round).toBe(HANGING);
    const rows = (await outbox()).filter((row) => row.site_id !== failing);
    expect(rows.every((row) => row.state === "pending" && row.attempts === 1 && row.lease_owner === null)).toBe(true);
    expect(new Set(rows.map((row) => row.last_error))).toEqual(new Set([`timed out after ${DEFAULT_CUT_OFF_MS} ms`]));
  }, 90_000);

  test("a delivery that hangs every time is tried again with backoff, one request at a time, and given up after 24 hours", async () => {
    await setUp(1);
    // A short bound keeps the test short; the schedule does not depend on it.
    const delivering = sender({ cutOffMs: 50 });
    const waits: number[] = [];
    for (let i = 0; i < 100; i++) {
      const [row] = (await outbox()).filter((r) => r.event_id.startsWith("evt_hang_"));
      if (row?.state !== "pending") break;
      const wait = Math.max(0, Date.parse(row.next_attempt_at) - clock.now().getTime());
      if (row.attempts > 0) waits.push(wait);
      clock.advance(wait);
      // The last attempt's cut-off closed its request; on a loaded machine the receiver may hear of it a moment
      // later, and a new attempt in that moment would read as two at once.
      await until(() => held.size === 0);
      expect(await delivering.tick()).toBe(1);
      // Not again before its time.
      expect(await delivering.tick()).toBe(0);
    }
    const [row] = (await outbox()).filter((r) => r.event_id.startsWith("evt_hang_"));
    expect(row?.state).toBe("failed");
    expect(Date.parse(row?.finished_at as string) - Date.parse(row?.created_at as string)).toBeGreaterThanOrEqual(
      24 * 3_600_000,
    );
    // 30 s, 60 s, … doubling to an hour, then hourly: about 30 attempts.
    expect(waits.slice(0, 8)).toEqual([30_000, 60_000, 120_000, 240_000, 480_000, 960_000, 1_920_000, 3_600_000]);
    expect(row?.attempts).toBe(waits.length + 1);
    expect(row?.attempts).toBeGreaterThan(20);
    expect(row?.attempts).toBeLessThan(40);
    expect(came).toBe(row?.attempts);
    expect(most).toBe(1);
    expect(new Set((await attempts()).map((a) => a.error))).toEqual(new Set(["timed out after 50 ms"]));
  }, 60_000);
});
