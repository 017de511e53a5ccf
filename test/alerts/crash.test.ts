import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { AlertEvent } from "../../server/contract/alerts.ts";
import type { Store } from "../../server/store/store.ts";
import { client, makeApp, seedOwner, spawnPorchlight, sqliteKind, testConfig } from "../helpers.ts";
import { listen } from "../support/listen.ts";

/**
 * Issue 18, durable delivery: `porchlight worker` processes (an engine and its alert sender each) killed with SIGKILL
 * at random moments while they deliver, 20 times; after a last one runs to the end, every alert reached the
 * receiver, and one that came twice came with the same event id (at least once: a receiver that acknowledged an event
 * whose acknowledgement was not yet recorded gets it again, and knows it by its id).
 */
const ALERTS = 400;
const KILLS = 20;
/** The claims' lease: a killed process's claims are taken over after it. */
const LEASE_SECONDS = 10;

let store: Store;
let dataDir: string;
let cleanup: () => Promise<void>;
let receiver: Awaited<ReturnType<typeof listen>>;
/** Every delivery the receiver acknowledged, by event id: how many times. */
const acknowledged = new Map<string, number>();

beforeAll(async () => {
  ({ store, dataDir, cleanup } = await sqliteKind.open());
  receiver = await listen((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      if (req.url !== "/hook") {
        res.end("ok");
        return;
      }
      // A receiver that takes a moment: kills land between sending and recording.
      setTimeout(() => {
        const id = String(req.headers["x-porchlight-event-id"]);
        acknowledged.set(id, (acknowledged.get(id) ?? 0) + 1);
        res.end("ok");
      }, 20);
    });
  });
});
afterAll(async () => {
  await new Promise((resolve) => receiver?.server.close(resolve));
  await cleanup?.();
});

const env = () => ({
  DATABASE_URL: "",
  PORCHLIGHT_DATA_DIR: dataDir,
  PORCHLIGHT_ALLOW_PRIVATE_TARGETS: "true",
  PORCHLIGHT_SECRET_KEY: testConfig().secretKey as string,
  PORCHLIGHT_ALERT_LEASE_SECONDS: String(LEASE_SECONDS),
  LOG_LEVEL: "warn",
});

const killed = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.kill("SIGKILL");
  });

const pending = async () =>
  Number(
    (
      await store.db
        .selectFrom("alert_outbox")
        .select((eb) => eb.fn.countAll().as("n"))
        .where("state", "=", "pending")
        .executeTakeFirstOrThrow()
    ).n,
  );

test(`${KILLS} workers killed at random moments while delivering ${ALERTS} alerts: after a last one, each delivered, repeats by id`, async () => {
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
      ids.map((id) => {
        const event: AlertEvent = {
          version: 1,
          id,
          type: "site.down",
          occurredAt: now,
          site: { id: site.id, name: "Shop", url: site.url },
          summary: "Shop is down.",
          reason: "HTTP 503",
          downtimeSeconds: null,
          expiry: null,
        };
        return {
          event_id: id,
          workspace_id,
          channel_id: channel.id,
          site_id: site.id,
          type: event.type,
          event: JSON.stringify(event),
          state: "pending" as const,
          attempts: 0,
          next_attempt_at: now,
          lease_owner: null,
          lease_until: null,
          created_at: now,
        };
      }),
    ),
  );

  let kills = 0;
  while (kills < KILLS && (await pending()) > 0) {
    const { child } = spawnPorchlight(["worker", "--region", "local"], env());
    // Once it delivers (its first acknowledgement), at a random moment within its next rounds.
    const before = [...acknowledged.values()].reduce((sum, n) => sum + n, 0);
    const started = Date.now();
    while ([...acknowledged.values()].reduce((sum, n) => sum + n, 0) === before && Date.now() - started < 15_000) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 150)));
    await killed(child);
    kills++;
  }
  const beforeLast = acknowledged.size;
  // The last worker runs until nothing is pending: the killed ones' claims expire and it takes them over.
  const last = spawnPorchlight(["worker", "--region", "local"], env());
  try {
    const deadline = Date.now() + (LEASE_SECONDS + 60) * 1000;
    while ((await pending()) > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 250));
  } finally {
    last.child.kill("SIGTERM");
    await new Promise((resolve) => last.child.once("exit", resolve));
  }

  expect(await pending()).toBe(0);
  const rows = await store.db.selectFrom("alert_outbox").select(["event_id", "state"]).execute();
  expect(rows.filter((r) => r.state !== "delivered")).toEqual([]);
  // Every alert reached the receiver; a repeat is the same event id (never a new event), and only a few, each
  // from a delivery under way when its process was killed.
  expect([...acknowledged.keys()].sort()).toEqual(ids);
  const repeats = [...acknowledged.values()].reduce((sum, n) => sum + n - 1, 0);
  expect(repeats).toBeLessThanOrEqual(kills * 16);
  // The killed workers did deliver (the kills landed while they worked), and the last one finished the rest.
  expect(kills).toBe(KILLS);
  expect(beforeLast).toBeGreaterThan(KILLS);
}, 180_000);
