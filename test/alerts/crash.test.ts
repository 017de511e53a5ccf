import type { ChildProcess } from "node:child_process";
import { createHmac } from "node:crypto";
import { afterAll, beforeAll, expect, test } from "vitest";
import { downAlerts } from "../api/with-engine.ts";
import {
  client,
  describeStores,
  makeApp,
  type StoreKind,
  seedOwner,
  spawnPorchlight,
  stopChild,
  testConfig,
  useStore,
} from "../helpers.ts";
import { listen } from "../support/listen.ts";

/**
 * Issue 18, durable delivery: `porchlight worker` processes (an engine and its alert sender each) killed with SIGKILL
 * at random moments while they deliver, 20 times; after the last ones run to the end, every alert reached the
 * receiver, one that came twice came with the same event id and the same event (at least once: a receiver that
 * acknowledged an event whose acknowledgement was not yet recorded gets it again, and knows it by its id), and none
 * came again once its delivery was recorded. On SQLite one worker runs at a time (one writer); on PostgreSQL three
 * run at once, so their claims meet (FOR UPDATE SKIP LOCKED) and they take over each other's expired leases.
 */
/**
 * Alerts to deliver: enough that the work outlasts the kills. Three PostgreSQL workers at once deliver the 400 that
 * suffice for one SQLite worker within about 18 kills, now that each free slot takes the next delivery at once.
 */
const alertsOf = (kind: StoreKind) => (kind.name === "postgres" ? 1200 : 400);
const KILLS = 20;
/** The claims' lease: a killed process's claims are taken over after it. */
const LEASE_SECONDS = 10;
/** Deliveries a sender has under way at once (its round), at most. */
const ROUND = 16;
/** Worker processes running at once. */
const workersOf = (kind: StoreKind) => (kind.name === "postgres" ? 3 : 1);

let receiver: Awaited<ReturnType<typeof listen>>;
/** Every request the receiver got: when it arrived (this process's clock), its headers and body. */
interface Receipt {
  at: number;
  id: string;
  timestamp: string;
  signature: string;
  body: string;
}
let receipts: Receipt[] = [];
/** Every delivery the receiver acknowledged (answered after its pause), by event id: how many times. */
let acknowledged = new Map<string, number>();

beforeAll(async () => {
  receiver = await listen((req, res) => {
    const at = Date.now();
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      if (req.url !== "/hook") {
        res.end("ok");
        return;
      }
      const id = String(req.headers["x-porchlight-event-id"]);
      receipts.push({
        at,
        id,
        timestamp: String(req.headers["x-porchlight-timestamp"]),
        signature: String(req.headers["x-porchlight-signature"]),
        body: Buffer.concat(chunks).toString(),
      });
      // A receiver that takes a moment, a different one each time: kills land before sending, while the receiver
      // works, and between its acknowledgement and the sender's record of it.
      setTimeout(
        () => {
          acknowledged.set(id, (acknowledged.get(id) ?? 0) + 1);
          res.end("ok");
        },
        5 + Math.floor(Math.random() * 50),
      );
    });
  });
});
afterAll(async () => {
  receiver?.server.closeAllConnections();
  await new Promise((resolve) => receiver?.server.close(resolve));
});

const killed = (child: ChildProcess) => stopChild(child, "SIGKILL");

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const total = (counts: Map<string, number>) => [...counts.values()].reduce((sum, n) => sum + n, 0);

describeStores("alert delivery through SIGKILL", (kind) => {
  const opened = useStore(kind);
  const WORKERS = workersOf(kind);
  const ALERTS = alertsOf(kind);

  const env = () => ({
    DATABASE_URL: opened.databaseUrl ?? "",
    PORCHLIGHT_DATA_DIR: opened.dataDir,
    PORCHLIGHT_ALLOW_PRIVATE_TARGETS: "true",
    PORCHLIGHT_SECRET_KEY: testConfig().secretKey as string,
    PORCHLIGHT_ALERT_LEASE_SECONDS: String(LEASE_SECONDS),
    LOG_LEVEL: "warn",
  });

  const pending = async () =>
    Number(
      (
        await opened.store.db
          .selectFrom("alert_outbox")
          .select((eb) => eb.fn.countAll().as("n"))
          .where("state", "=", "pending")
          .executeTakeFirstOrThrow()
      ).n,
    );

  test(`${KILLS} workers (${WORKERS} at once) killed at random moments while delivering ${ALERTS} alerts: each delivered, repeats only by id, none after its record`, async () => {
    const { store } = opened;
    receipts = [];
    acknowledged = new Map();
    const { app } = makeApp(store, { env: { PORCHLIGHT_ALLOW_PRIVATE_TARGETS: "true" } });
    const api = client(app, (await seedOwner(store, "stack")).token);
    const channel = (
      await api.post("/public/v1/alert-channels", {
        name: "Hook",
        type: "webhook",
        config: { url: `${receiver.origin}/hook` },
      })
    ).json.data;
    const site = (await api.post("/public/v1/sites", { url: `${receiver.origin}/site`, name: "Shop" })).json.data;
    const { workspace_id } = await store.db
      .selectFrom("sites")
      .select("workspace_id")
      .where("id", "=", site.id)
      .executeTakeFirstOrThrow();
    const now = new Date().toISOString();
    const ids = Array.from({ length: ALERTS }, (_, i) => `evt_crash_${String(i).padStart(4, "0")}`);
    await store.db.transaction().execute((trx) =>
      store.alerts.insertOutbox(
        trx,
        downAlerts({
          ids,
          now,
          workspaceId: workspace_id,
          channelId: channel.id,
          site: { id: site.id, name: "Shop", url: site.url },
        }),
      ),
    );

    // Who holds which claim, sampled every few milliseconds for the whole run: each sender (one per process) is
    // known by its lease owner, first seen in the phase whose processes were started last (all of them alive until
    // that phase's kills begin, so two of its owners holding claims in one sample are two live processes claiming at
    // once).
    let phase = 0;
    let killing = false;
    const firstSeen = new Map<string, number>();
    const holders = new Map<number, Set<string>>();
    let concurrent = 0;
    let samples = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const at = new Date().toISOString();
        const leased = await store.db
          .selectFrom("alert_outbox")
          .select(["id", "lease_owner"])
          .where("state", "=", "pending")
          .where("lease_owner", "is not", null)
          .where("lease_until", ">", at)
          .execute();
        const live = new Set<string>();
        for (const { id, lease_owner } of leased) {
          const owner = lease_owner as string;
          if (!firstSeen.has(owner)) firstSeen.set(owner, phase);
          if (firstSeen.get(owner) === phase) live.add(owner);
          const held = holders.get(id) ?? new Set<string>();
          held.add(owner);
          holders.set(id, held);
        }
        if (!killing && live.size >= 2) concurrent++;
        samples++;
        await sleep(3);
      }
    })();
    const ownersOf = (p: number) => [...firstSeen.values()].filter((seen) => seen === p).length;
    /** Until a sample has been taken from start to end after now (so no claim made before now is seen later). */
    const sampled = async () => {
      const from = samples;
      const started = Date.now();
      while (samples < from + 2 && Date.now() - started < 2000) await sleep(1);
    };
    /** Every process started, to stop the ones still running whatever happens. */
    const spawned: ChildProcess[] = [];
    const worker = () => {
      const running = spawnPorchlight(["worker", "--region", "local"], env());
      spawned.push(running.child);
      return running;
    };

    let kills = 0;
    let last: ReturnType<typeof worker>[] = [];
    try {
      while (kills < KILLS && (await pending()) > 0) {
        // A wave of workers; once each of them claims (its sender's lease is seen), each is killed at a random
        // moment within its round.
        phase++;
        const wave = Array.from({ length: Math.min(WORKERS, KILLS - kills) }, worker);
        const started = Date.now();
        while (ownersOf(phase) < wave.length && Date.now() - started < (LEASE_SECONDS + 5) * 1000) await sleep(5);
        killing = true;
        await Promise.all(
          wave.map(async ({ child }) => {
            await sleep(Math.floor(Math.random() * 150));
            await killed(child);
          }),
        );
        kills += wave.length;
        // Claims made just before a kill are the killed process's, not the next phase's.
        await sampled();
        killing = false;
      }
      const beforeLast = acknowledged.size;
      const takenOverBefore = [...holders.values()].filter((held) => held.size > 1).length;
      // The last workers run until nothing is pending: the killed ones' claims expire and they take them over.
      phase++;
      last = Array.from({ length: WORKERS }, worker);
      const deadline = Date.now() + (LEASE_SECONDS + 60) * 1000;
      while ((await pending()) > 0 && Date.now() < deadline) await sleep(250);
      sampling = false;
      await sampler;

      const output = last.map((worker) => worker.output()).join("\n");
      expect(await pending(), output).toBe(0);
      const rows = await store.db
        .selectFrom("alert_outbox")
        .select(["id", "event_id", "state", "event", "finished_at"])
        .orderBy("event_id")
        .execute();
      expect(rows.filter((r) => r.state !== "delivered")).toEqual([]);

      // Every alert reached the receiver.
      expect([...acknowledged.keys()].sort()).toEqual(ids);
      expect([...new Set(receipts.map((r) => r.id))].sort()).toEqual(ids);
      // A repeat is the same event, signed anew: each request's id is its event's, its body the stored event.
      const secret = channel.secret as string;
      const byId = new Map(rows.map((r) => [r.event_id, r]));
      for (const receipt of receipts) {
        const row = byId.get(receipt.id);
        expect(receipt.body).toBe(row?.event);
        expect(receipt.signature).toBe(
          `v1=${createHmac("sha256", secret).update(`${receipt.timestamp}.${receipt.body}`).digest("hex")}`,
        );
      }
      // No event acknowledged and recorded as delivered was sent again: each delivery has one successful attempt on
      // record, and no request for it arrived after that record.
      const successes = await store.db.selectFrom("alert_attempts").select(["outbox_id"]).where("ok", "=", 1).execute();
      expect(successes.map((s) => s.outbox_id).sort((a, b) => a - b)).toEqual(
        rows.map((r) => r.id).sort((a, b) => a - b),
      );
      const late = receipts.filter((r) => r.at > Date.parse(byId.get(r.id)?.finished_at as string));
      expect(late).toEqual([]);
      // Repeats come only from deliveries under way when their process was killed: at most a round's worth per kill.
      const repeats = total(acknowledged) - acknowledged.size;
      expect(repeats).toBeLessThanOrEqual(kills * ROUND);
      // The killed workers did deliver (the kills landed while they worked), and the last ones finished the rest,
      // taking over claims of killed ones.
      expect(kills).toBe(KILLS);
      expect(beforeLast).toBeGreaterThan(KILLS);
      expect([...holders.values()].filter((held) => held.size > 1).length).toBeGreaterThan(0);
      if (WORKERS > 1) {
        // Processes claimed side by side: two live senders held claims at the same moment.
        expect(concurrent).toBeGreaterThan(0);
      }
      console.info(
        `[${kind.name}] ${kills} kills in ${phase - 1} waves; ${receipts.length} requests for ${ALERTS} alerts ` +
          `(${repeats} repeats); ${takenOverBefore} claims taken over during the kills, ` +
          `${[...holders.values()].filter((held) => held.size > 1).length} in all; ${concurrent} samples with ` +
          `concurrent claims; ${firstSeen.size} senders seen`,
      );
    } finally {
      sampling = false;
      await sampler.catch(() => {});
      await Promise.all(spawned.map((child) => stopChild(child, "SIGTERM")));
    }
  }, 180_000);
});
