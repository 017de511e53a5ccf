/**
 * npm run bench:alerts — alerts under load, with the engine and the alert sender wired as `porchlight worker` wires
 * them (createEngine, createSender) on a SQLite store. The check target and the webhook receiver each run in a child
 * process (this file again, with a role), so the CPU time measured here is the engine's and the sender's.
 *
 * Part 1, an outage: BENCH_ALERT_SITES sites (default 10,000), each checked every BENCH_ALERT_INTERVAL seconds
 * (default 30; phases spread over the interval, as the engine leaves them), one webhook channel and the default rule.
 * Once every site is healthy and a quiet window (BENCH_ALERT_WINDOW seconds, default 30) is measured, the target
 * starts failing (HTTP 500; BENCH_ALERT_FAILURE=reset closes the connection instead): each site is confirmed down by
 * its second failed check and alerts. Prints the time from each confirming check (the event's occurredAt, which is
 * its outbox row's created_at: the write of that check's verdict) to the receiver's receipt, from the first and from
 * the last confirming check to the last webhook received, how many were delivered, the CPU time per alert (and
 * beyond what checking alone costs, from the quiet window's rate), and the check lag meanwhile. It waits at most
 * BENCH_ALERT_WAIT seconds (default 120) after the last confirmation could have come; what is then undelivered is
 * reported with the rate reached.
 *
 * Part 2, receivers that hang: the same engine keeps checking the same sites (healthy again) through three windows of
 * BENCH_ALERT_WINDOW seconds: nothing to deliver; 1,000 deliveries (BENCH_ALERT_HANGING) to a receiver that never
 * answers through the production sender, the same events to a second channel that answers at once; 1,000 to a
 * receiver that never answers through a sender that takes them all at once (BENCH_ALERT_WIDE, default 1,000). Prints
 * check lag p50/p99 and the event loop's delay in each and their ratios to the first, how many requests the hanging
 * receiver held at most, and what the answering channel received meanwhile.
 *
 * Check lag is the engine's own figure: claim time minus due time (a check starts when it is claimed). In the outage's
 * row, the checks are those from the first confirmation to the last webhook; its CPU share and loop delay run from the
 * target's failure to the end of the wait. No figure is judged here; figures compare within one run only (the
 * machine is shared).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { createToken, createUser } from "../server/accounts/accounts.ts";
import { SecretBox } from "../server/accounts/sealed.ts";
import { AlertSender } from "../server/alerts/sender.ts";
import { createApp } from "../server/app.ts";
import { createEngine, createSender } from "../server/cli/engine.ts";
import { systemClock } from "../server/clock.ts";
import { loadConfig } from "../server/config.ts";
import { SiteCreate } from "../server/contract/site.ts";
import { alertWrites } from "../server/engine/alert-writes.ts";
import { createLogger } from "../server/log.ts";
import { newId } from "../server/store/connection.ts";
import { newSiteRecord } from "../server/store/site-columns.ts";
import { openStore, type Store } from "../server/store/store.ts";
import { insertScheduledSites } from "../test/support/fixtures.ts";
import { ask, child, load, quantile, round, sleep } from "./stats.ts";

const SITES = Number(process.env.BENCH_ALERT_SITES ?? 10_000);
const INTERVAL_S = Number(process.env.BENCH_ALERT_INTERVAL ?? 30);
const WINDOW_S = Number(process.env.BENCH_ALERT_WINDOW ?? 30);
const WAIT_S = Number(process.env.BENCH_ALERT_WAIT ?? 120);
const HANGING = Math.min(SITES, Number(process.env.BENCH_ALERT_HANGING ?? 1000));
const WIDE = Number(process.env.BENCH_ALERT_WIDE ?? 1000);
const FAILURE = process.env.BENCH_ALERT_FAILURE === "reset" ? "reset" : "500";

// ---------------------------------------------------------------------------------------------------------------
// The children: the check target and the webhook receiver, each answering the parent's questions over IPC.

/** The check target: 200, or once told to fail, 500 (or a closed connection). */
function runTarget(): void {
  let failing = false;
  const body = Buffer.from("<!doctype html><title>ok</title><p>Everything is fine.</p>");
  const server = createServer((req, res) => {
    if (!failing) {
      res.writeHead(200, { "content-type": "text/html", "content-length": body.length });
      res.end(body);
    } else if (FAILURE === "reset") {
      req.socket.destroy();
    } else {
      res.writeHead(500, { "content-type": "text/plain" });
      res.end("broken");
    }
  });
  process.on("message", (message: { failing: boolean }) => {
    failing = message.failing;
    process.send?.({ failing });
  });
  server.listen(0, "127.0.0.1", () => process.send?.({ port: (server.address() as AddressInfo).port }));
}

/**
 * The webhook receiver: /hook takes every event at once and notes when (and the event's id and occurredAt); any
 * other path never answers, and counts the requests it holds open.
 */
function runReceiver(): void {
  const received: [at: number, occurredAt: number, id: string][] = [];
  const ids = new Set<string>();
  const open = new Map<string, number>();
  const most = new Map<string, number>();
  const total = new Map<string, number>();
  const server = createServer((req, res) => {
    const path = req.url ?? "/";
    if (path !== "/hook") {
      const now = (open.get(path) ?? 0) + 1;
      open.set(path, now);
      most.set(path, Math.max(most.get(path) ?? 0, now));
      total.set(path, (total.get(path) ?? 0) + 1);
      req.resume();
      res.on("close", () => open.set(path, (open.get(path) ?? 1) - 1));
      return;
    }
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const at = Date.now();
      const event = JSON.parse(Buffer.concat(chunks).toString()) as { id: string; occurredAt: string };
      if (!ids.has(event.id)) {
        ids.add(event.id);
        received.push([at, Date.parse(event.occurredAt), event.id]);
      }
      res.end("ok");
    });
  });
  server.keepAliveTimeout = 60_000;
  process.on("message", (message: { ask: "count" | "report" }) => {
    const hanging = Object.fromEntries([...total.keys()].map((p) => [p, { open: open.get(p), most: most.get(p) }]));
    const counts = { delivered: received.length, hanging, total: Object.fromEntries(total) };
    process.send?.(message.ask === "report" ? { ...counts, received } : counts);
  });
  server.listen(0, "127.0.0.1", () => process.send?.({ port: (server.address() as AddressInfo).port }));
}

interface ReceiverCounts {
  delivered: number;
  hanging: Record<string, { open: number; most: number }>;
  total: Record<string, number>;
}

// ---------------------------------------------------------------------------------------------------------------
// The engine's checks, as it reports them, and windows over them.

/** Every finished check: when it ended (Date.now()), its lag (claim minus due) and its duration, in ms. */
const ended: number[] = [];
const lags: number[] = [];
const durations: number[] = [];
/** 0 up, 1 down (an answer judged down), 2 error (no answer). */
const results: number[] = [];

/** A measured stretch of time: CPU and the event loop's delay over it, and the checks that ended in it. */
class Window {
  readonly from = Date.now();
  readonly #cpu = process.cpuUsage();
  readonly #loop = monitorEventLoopDelay({ resolution: 10 });
  #figures: Record<string, number | string> | undefined;

  constructor(readonly name: string) {
    this.#loop.enable();
  }

  /**
   * Ends it and answers its figures: CPU and the event loop's delay since it began; the checks that ended in
   * [checksFrom, checksTo] (default: since it began, until now).
   */
  end(checksTo = Date.now(), checksFrom = this.from): Record<string, number | string> {
    if (this.#figures) return this.#figures;
    this.#loop.disable();
    const cpu = process.cpuUsage(this.#cpu);
    const ms = Math.max(1, Date.now() - this.from);
    const from = checksFrom;
    const to = checksTo;
    const lag: number[] = [];
    const took: number[] = [];
    let down = 0;
    let unanswered = 0;
    for (let i = 0; i < ended.length; i++) {
      const at = ended[i] as number;
      if (at >= from && at <= to) {
        lag.push(lags[i] as number);
        took.push(durations[i] as number);
        if (results[i] === 1) down++;
        else if (results[i] === 2) unanswered++;
      }
    }
    this.#figures = {
      window: this.name,
      seconds: round((to - from) / 1000),
      "checks/s": round((lag.length / Math.max(1, to - from)) * 1000),
      "lag p50 ms": round(quantile(lag, 0.5), 0),
      "lag p99 ms": round(quantile(lag, 0.99), 0),
      "lag max ms": round(quantile(lag, 1), 0),
      "check p99 ms": round(quantile(took, 0.99), 0),
      "down / no answer": `${down} / ${unanswered}`,
      "loop delay p99 ms": round(this.#loop.percentile(99) / 1e6, 0),
      "CPU % of a core": round(((cpu.user + cpu.system) / 1000 / ms) * 100),
      cpuMs: round((cpu.user + cpu.system) / 1000, 0),
    };
    return this.#figures;
  }
}

// ---------------------------------------------------------------------------------------------------------------

/** The sites, all checking `url`, in one workspace, due over the coming interval; their ids. */
async function seed(store: Store, workspaceId: string, url: string): Promise<string[]> {
  const now = Date.now();
  const ids: string[] = [];
  for (let i = 0; i < SITES; i += 500) {
    const rows = [];
    const schedule = [];
    for (let j = i; j < Math.min(i + 500, SITES); j++) {
      const id = j.toString(16).padStart(24, "0");
      ids.push(id);
      rows.push(
        newSiteRecord(
          workspaceId,
          // Not parsed: the interval may be compressed below what the API accepts.
          {
            ...SiteCreate.parse({ url, name: `Site ${j}`, timeout: 10, successCodes: [200] }),
            checkInterval: INTERVAL_S,
          },
          new Date(now).toISOString(),
          id,
        ),
      );
      const due = new Date(now + Math.floor((j / SITES) * INTERVAL_S * 1000)).toISOString();
      schedule.push({ site_id: id, region: "local", next_check_at: due, recent: "[]" });
    }
    await insertScheduledSites(store, rows, schedule);
  }
  return ids;
}

/** A down alert for each site to every enabled channel, written to the outbox as the engine writes them. */
async function queueAlerts(store: Store, siteIds: string[]): Promise<number> {
  return store.transaction(async (trx) => {
    const routes = await store.alerts.routes(trx, siteIds);
    const rows = alertWrites(
      siteIds.map((siteId) => ({ siteId, type: "site.down" as const, reason: "HTTP 500", downSince: null })),
      routes,
      new Date().toISOString(),
      newId,
    );
    await store.alerts.insertOutbox(trx, rows);
    return rows.length;
  });
}

/** The attempts a channel's deliveries recorded so far, and their errors. */
async function attemptsOf(store: Store, workspaceId: string, channelId: string) {
  const rows = await store.alerts.deliveries({ workspaceId, channelId, limit: 100_000 });
  const errors = new Map<string, number>();
  for (const row of rows) if (row.last_error) errors.set(row.last_error, (errors.get(row.last_error) ?? 0) + 1);
  return {
    "attempts recorded": rows.reduce((sum, row) => sum + row.attempts, 0),
    "deliveries attempted": rows.filter((row) => row.attempts > 0).length,
    "last errors": JSON.stringify(Object.fromEntries(errors)),
  };
}

async function main(): Promise<void> {
  const cores = availableParallelism();
  console.log(
    `bench:alerts — ${SITES} sites every ${INTERVAL_S} s (${round(SITES / INTERVAL_S)} checks/s), target failing with ${FAILURE === "reset" ? "closed connections" : "HTTP 500"}; ${cores} cores, load average ${load()}, Node ${process.version}`,
  );
  const dataDir = mkdtempSync(join(tmpdir(), "porchlight-bench-alerts-"));
  const target = await child<{ port: number }>(fileURLToPath(import.meta.url), "target");
  const receiver = await child<{ port: number }>(fileURLToPath(import.meta.url), "receiver");
  const receiverOrigin = `http://127.0.0.1:${receiver.first.port}`;
  const config = loadConfig({
    PORCHLIGHT_DATA_DIR: dataDir,
    LOG_LEVEL: process.env.LOG_LEVEL ?? "error",
    PORCHLIGHT_ALLOW_PRIVATE_TARGETS: "true",
  });
  const logger = createLogger(config.logLevel);
  const store = await openStore(config);
  const { app } = createApp({ store, config, logger });
  const user = await createUser(store, { email: "bench-alerts@example.com", plan: "stack" }, new Date());
  const { token } = await createToken(store, user.email, "bench", new Date());
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await app.request(path, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { data: { id: string } }).data;
  };
  const channel = (name: string, path: string) =>
    call("POST", "/public/v1/alert-channels", { name, type: "webhook", config: { url: `${receiverOrigin}${path}` } });

  const hook = await channel("Hook", "/hook");
  const seeded = Date.now();
  const siteIds = await seed(store, user.workspaceId, `http://127.0.0.1:${target.first.port}/`);
  console.log(`seeded ${SITES} sites in ${round((Date.now() - seeded) / 1000)} s`);

  const engine = createEngine(store, config, logger, "local");
  engine.observeChecks((o) => {
    ended.push(Date.now());
    lags.push(o.lagSeconds * 1000);
    durations.push(o.seconds * 1000);
    results.push(o.result === "up" ? 0 : o.result === "down" ? 1 : 2);
  });
  const sender = createSender(store, config, logger, { send: async () => ({ messageId: "none" }) });
  engine.start();
  sender.start();

  const healthy = async () =>
    (await store.sites.list(user.workspaceId, 0, SITES)).rows.filter((s) => s.state === "healthy").length;
  // Every site checked once (their due times spread over the interval), then healthy.
  await sleep(INTERVAL_S * 1000 + 2000);
  for (let i = 0; i < 30 && (await healthy()) < SITES; i++) await sleep(1000);
  console.log(`healthy: ${await healthy()}/${SITES}`);

  // ---- Part 1: the outage.
  const quiet = new Window("part 1: all healthy, nothing to deliver");
  await sleep(WINDOW_S * 1000);
  const quietFigures = quiet.end();
  const baseCpuPerMs = (quietFigures.cpuMs as number) / (Date.now() - quiet.from);

  const flipped = Date.now();
  await ask(target.process, { failing: true });
  const outage = new Window("part 1: outage, from the first confirming check to the last webhook");
  const cpuAtFlip = process.cpuUsage();
  // The first failure is within an interval, the confirming one an interval later.
  const deadline = flipped + (2 * INTERVAL_S + 5 + WAIT_S) * 1000;
  let counts = await ask<ReceiverCounts>(receiver.process, { ask: "count" });
  while (counts.delivered < SITES && Date.now() < deadline) {
    await sleep(1000);
    counts = await ask<ReceiverCounts>(receiver.process, { ask: "count" });
  }
  const cpu = process.cpuUsage(cpuAtFlip);
  const outageMs = Date.now() - flipped;
  const report = await ask<ReceiverCounts & { received: [number, number, string][] }>(receiver.process, {
    ask: "report",
  });
  const received = report.received;
  if (received.length === 0) throw new Error("no webhook arrived: is the target failing, and the sender running?");
  const lastReceived = Math.max(...received.map(([at]) => at));
  // Each outbox row was written with its confirming check's verdict (created_at, the event's occurredAt).
  const outboxState = await store.alerts.deliveries({
    workspaceId: user.workspaceId,
    channelId: hook.id,
    limit: SITES * 2,
  });
  const confirmed = outboxState.map((row) => Date.parse(row.created_at));
  const firstConfirmed = Math.min(...confirmed);
  const lastConfirmed = Math.max(...confirmed);
  const latency = received.map(([at, occurred]) => at - occurred);
  // The checks that ended while alerts were being delivered: from the first confirmation to the last webhook.
  const outageFigures = outage.end(lastReceived, firstConfirmed);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  const beyondChecking = cpuMs - baseCpuPerMs * outageMs;
  const delivered = received.length;
  const states: Record<string, number> = {};
  for (const row of outboxState) states[row.state] = (states[row.state] ?? 0) + 1;
  const rate = delivered / Math.max(1, (lastReceived - firstConfirmed) / 1000);
  const outageResult = {
    "alerts expected": SITES,
    "outbox rows": outboxState.length,
    "webhooks received (distinct events)": delivered,
    "outbox rows by state": JSON.stringify(states),
    "confirming checks spread over (s)": round((lastConfirmed - firstConfirmed) / 1000),
    "first confirming check -> last webhook (s)": round((lastReceived - firstConfirmed) / 1000),
    "last confirming check -> last webhook (s)": round((lastReceived - lastConfirmed) / 1000),
    "per alert, confirming check -> received: p50 (s)": round(quantile(latency, 0.5) / 1000, 2),
    "per alert, p99 (s)": round(quantile(latency, 0.99) / 1000, 2),
    "per alert, max (s)": round(quantile(latency, 1) / 1000, 2),
    "delivered per second": round(rate),
    ...(delivered < SITES
      ? { "all delivered at this rate after (s, projected)": round((SITES - delivered) / Math.max(rate, 0.001)) }
      : {}),
    "CPU ms per alert (all work, flip to last webhook)": round(cpuMs / Math.max(1, delivered), 2),
    "CPU ms per alert beyond checking (quiet window's rate subtracted)": round(
      beyondChecking / Math.max(1, delivered),
      2,
    ),
  };
  console.log("\npart 1: the outage");
  console.table(outageResult);

  // ---- Part 2: receivers that hang. The sites recover first, told to no one: the default rule now sends only down
  // alerts (none come: the sites stay healthy), so the hanging channels get the deliveries queued below and nothing
  // else (no recovery, no chronic performance alert after the outage), and the undelivered ones are dropped.
  await call("PUT", "/public/v1/alert-rules/default", {
    channels: "all",
    events: { down: true, recovered: false, degraded: false, certificate: false, domain: false, performance: false },
  });
  await call("DELETE", `/public/v1/alert-channels/${hook.id}`);
  await ask(target.process, { failing: false });
  await sleep(INTERVAL_S * 1000 + 2000);
  for (let i = 0; i < 30 && (await healthy()) < SITES; i++) await sleep(1000);
  console.log(`\npart 2: healthy again: ${await healthy()}/${SITES}`);

  const calm = new Window("part 2: nothing to deliver");
  await sleep(WINDOW_S * 1000);
  const calmFigures = calm.end();

  // The same events also go to a second channel whose receiver answers at once: what a hanging channel costs the
  // others' alerts.
  const hangA = await channel("Hang", "/hang-a");
  const answering = await channel("Hook again", "/hook");
  const beforeA = await ask<ReceiverCounts>(receiver.process, { ask: "count" });
  const queuedA = await queueAlerts(store, siteIds.slice(0, HANGING));
  const hanging = new Window(`part 2: ${queuedA / 2} deliveries to a hanging receiver, production sender`);
  await sleep(WINDOW_S * 1000);
  const hangingFigures = hanging.end();
  const afterA = await ask<ReceiverCounts>(receiver.process, { ask: "count" });
  const recordedA = await attemptsOf(store, user.workspaceId, hangA.id);
  await sender.stop();
  await call("DELETE", `/public/v1/alert-channels/${hangA.id}`);
  await call("DELETE", `/public/v1/alert-channels/${answering.id}`);

  const hangB = await channel("Hang wide", "/hang-b");
  // As createSender makes the production one, but taking WIDE deliveries at once.
  const wideSender = new AlertSender({
    store,
    clock: systemClock,
    logger,
    secrets: new SecretBox(config.secretKey, config.dataDir),
    delivery: {
      mailer: { send: async () => ({ messageId: "none" }) },
      allowPrivate: true,
      timeoutMs: config.alertLeaseMs / 2,
    },
    providers: { apis: config.alertApis },
    leaseMs: config.alertLeaseMs,
    // Twice WIDE: one channel may hold half of a sender's slots.
    concurrency: 2 * WIDE,
  });
  const queuedB = await queueAlerts(store, siteIds.slice(0, HANGING));
  wideSender.start();
  const wide = new Window(`part 2: ${queuedB} deliveries to a hanging receiver, a sender taking ${WIDE} at once`);
  await sleep(WINDOW_S * 1000);
  const wideFigures = wide.end();
  const afterB = await ask<ReceiverCounts>(receiver.process, { ask: "count" });
  const recordedB = await attemptsOf(store, user.workspaceId, hangB.id);

  await engine.stop();
  console.table(
    [quietFigures, outageFigures, calmFigures, hangingFigures, wideFigures].map(({ cpuMs: _cpu, ...rest }) => rest),
  );
  const ratio = (a: Record<string, number | string>, b: Record<string, number | string>, key: string) =>
    `${round((a[key] as number) / Math.max(1, b[key] as number), 2)}x`;
  console.table({
    "outage / quiet": {
      "lag p50": ratio(outageFigures, quietFigures, "lag p50 ms"),
      "lag p99": ratio(outageFigures, quietFigures, "lag p99 ms"),
    },
    "hanging, production sender / nothing to deliver": {
      "lag p50": ratio(hangingFigures, calmFigures, "lag p50 ms"),
      "lag p99": ratio(hangingFigures, calmFigures, "lag p99 ms"),
    },
    "hanging, wide sender / nothing to deliver": {
      "lag p50": ratio(wideFigures, calmFigures, "lag p50 ms"),
      "lag p99": ratio(wideFigures, calmFigures, "lag p99 ms"),
    },
  });
  console.table({
    "production sender": {
      "requests to the hanging receiver": afterA.total["/hang-a"] ?? 0,
      "most open at once": afterA.hanging["/hang-a"]?.most ?? 0,
      ...recordedA,
      "meanwhile delivered to the answering channel": `${afterA.delivered - beforeA.delivered} of ${queuedA / 2}`,
    },
    "wide sender": {
      "requests to the hanging receiver": afterB.total["/hang-b"] ?? 0,
      "most open at once": afterB.hanging["/hang-b"]?.most ?? 0,
      ...recordedB,
      "meanwhile delivered to the answering channel": "(none)",
    },
  });
  console.log(`load average at the end ${load()} (${cores} cores)`);
  // The hanging deliveries still under way would be cut off by their timeout; nothing here waits for them.
  target.process.kill();
  receiver.process.kill();
  rmSync(dataDir, { recursive: true, force: true });
  process.exit(0);
}

const role = process.argv[2];
if (role === "target") runTarget();
else if (role === "receiver") runReceiver();
else await main();
