/**
 * npm run bench:engine — the real engine on the SQLite store against local targets: N sites (BENCH_SITES, default
 * 10,000) checked every BENCH_INTERVAL seconds (default 60, the bar's load: 167 checks/s), for BENCH_DURATION
 * seconds (default 60) per run. One run per kind of site, each with N sites of that kind alone: plain HTTP, HTTPS,
 * HTTP with assertions (keyword, JSON query and header on a JSON /health), TCP connects, DNS queries to a local DNS
 * server, and push sites whose job calls in every half interval; then a mixed run of N sites, a quarter each of
 * HTTP with assertions, TCP, DNS and push. BENCH_RUNS picks runs by name (comma-separated). The targets run in a
 * child process, so the CPU time measured here is the engine's (checks, verdicts and store writes; for push, the
 * coalesced writes of the calls too, but not their HTTP route: see bench:push). Lower the interval to compress the
 * load and find the ceiling. Figures are only comparable within a run: the machine is shared.
 *
 * Prints per run: checks/s, CPU ms per check and the share of one core, peak RSS, scheduler lag p50/p99 (claim time
 * minus due time), store transactions/s, rows written per check, and the sites up at the end by kind. For the mixed
 * run, the CPU per check the single-kind runs predict (their mean) beside the one measured.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createUser } from "../server/accounts/accounts.ts";
import { newPushToken, PushInbox } from "../server/api/push.ts";
import { systemClock } from "../server/clock.ts";
import { SiteCreate } from "../server/contract/site.ts";
import { Engine } from "../server/engine/engine.ts";
import { createLogger } from "../server/log.ts";
import { newSiteRecord } from "../server/store/site-columns.ts";
import { openStore, type Store } from "../server/store/store.ts";
import { makeCertificates } from "../test/support/certificates.ts";
import { insertScheduledSites } from "../test/support/fixtures.ts";

const sites = Number(process.env.BENCH_SITES ?? 10_000);
const intervalS = Number(process.env.BENCH_INTERVAL ?? 60);
const durationS = Number(process.env.BENCH_DURATION ?? 60);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 500);

const certs = makeCertificates();
const targets = spawn("node", ["--import", "tsx", "bench/engine-targets.ts"], {
  env: { ...process.env, BENCH_TLS_KEY: certs.valid.key, BENCH_TLS_CERT: certs.valid.cert },
  stdio: ["ignore", "pipe", "inherit"],
});
const ports = await new Promise<{ http: number; https: number; tcp: number; dns: number }>((resolve) =>
  targets.stdout?.once("data", (d) => resolve(JSON.parse(String(d)))),
);

/** Each kind's site, as an owner would add it. */
const KINDS = {
  http: { url: `http://127.0.0.1:${ports.http}/`, successCodes: [200] },
  https: { url: `https://localhost:${ports.https}/`, successCodes: [200] },
  "http+assertions": {
    url: `http://127.0.0.1:${ports.http}/health`,
    successCodes: [200],
    assertions: {
      keyword: { text: '"ok"' },
      json: { path: "$.checks[0].status", equals: "ok" },
      header: { name: "x-served-by", contains: "bench" },
    },
  },
  tcp: { url: `tcp://127.0.0.1:${ports.tcp}` },
  dns: {
    url: "dns://bench.test",
    dns: { recordType: "A", resolver: `127.0.0.1:${ports.dns}`, expected: ["127.0.0.1"], match: "exact" },
  },
  push: { url: "push://" },
} as const;
type Kind = keyof typeof KINDS;

const RUNS: Record<string, Kind[]> = {
  http: ["http"],
  https: ["https"],
  "http+assertions": ["http+assertions"],
  tcp: ["tcp"],
  dns: ["dns"],
  push: ["push"],
  mixed: ["http+assertions", "tcp", "dns", "push"],
};

/** Seeds the sites in one workspace, 500 to a transaction, site j of kind mix[j % mix.length]. */
async function seed(store: Store, mix: Kind[]): Promise<{ workspaceId: string; pushHashes: string[] }> {
  const owner = await createUser(store, { email: `bench-${Date.now()}@example.com`, plan: "stack" }, new Date());
  const now = Date.now();
  const pushHashes: string[] = [];
  for (let i = 0; i < sites; i += 500) {
    const rows = [];
    const schedule = [];
    for (let j = i; j < Math.min(i + 500, sites); j++) {
      const id = j.toString(16).padStart(24, "0");
      const at = new Date(now).toISOString();
      const kind = mix[j % mix.length] as Kind;
      const push = kind === "push" ? newPushToken() : undefined;
      if (push) pushHashes.push(push.hash);
      const row = newSiteRecord(
        owner.workspaceId,
        // Not parsed: the benchmark may compress the interval below what the API accepts.
        { ...SiteCreate.parse({ ...KINDS[kind], name: `Site ${j}`, timeout: 10 }), checkInterval: intervalS },
        at,
        id,
        push,
      );
      // Steady state for push sites too: up, their job called a moment ago. (A site not yet judged is checked at
      // once on its first call: 10,000 of those at the start would be a burst that only a fresh install sees.)
      rows.push(push ? { ...row, state: "healthy", push_last_at: at, push_last_status: "up" } : row);
      // Steady state: phases spread over the interval, as the engine's jitter leaves them.
      const due = new Date(now + Math.floor((j / sites) * intervalS * 1000)).toISOString();
      schedule.push({ site_id: id, region: "local", next_check_at: due, recent: "[]" });
    }
    await insertScheduledSites(store, rows, schedule);
  }
  return { workspaceId: owner.workspaceId, pushHashes };
}

/**
 * The push sites' jobs: each calls once every half interval, spread evenly, through the inbox the push route
 * feeds (coalesced, written once a second). Stops with the returned function, after a last flush.
 */
function callPushes(store: Store, hashes: string[]): () => Promise<void> {
  const inbox = new PushInbox(store, systemClock, () => {});
  if (hashes.length === 0) return () => inbox.close();
  const tickMs = 100;
  const perTick = (hashes.length * tickMs) / ((intervalS * 1000) / 2);
  let owed = 0;
  let next = 0;
  const call = (hash: string) =>
    inbox.add({ tokenHash: hash, at: new Date().toISOString(), status: "up", message: null, ms: 42 });
  const timer = setInterval(() => {
    owed += perTick;
    for (; owed >= 1; owed--) call(hashes[next++ % hashes.length] as string);
  }, tickMs);
  return async () => {
    clearInterval(timer);
    await inbox.close();
  };
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;

async function run(name: string, mix: Kind[]) {
  const dataDir = mkdtempSync(join(tmpdir(), "porchlight-bench-engine-"));
  const store = await openStore({ dataDir });
  const { workspaceId, pushHashes } = await seed(store, mix);
  const stopCalls = callPushes(store, pushHashes);
  const engine = new Engine({
    store,
    region: "local",
    clock: systemClock,
    logger: createLogger("warn"),
    concurrency,
    retentionHours: 48,
    policy: { allowPrivate: true, extraCa: [certs.ca], resolve: async () => ["127.0.0.1"] },
    domains: null,
  });
  global.gc?.();
  let peakRss = process.memoryUsage.rss();
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage.rss());
  }, 100);
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  engine.start();
  await new Promise((r) => setTimeout(r, durationS * 1000));
  await engine.stop();
  await stopCalls();
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  clearInterval(sampler);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  const { checks, transactions, rows } = engine.stats;
  const lags = [...engine.stats.lags].sort((a, b) => a - b);
  const { rows: all } = await store.sites.list(workspaceId, 0, sites);
  const up = new Map<string, [number, number]>();
  for (const site of all) {
    if (site.last_check_time === null) continue;
    const kind = mix[Number.parseInt(site.id, 16) % mix.length] as Kind;
    const [healthy, checked] = up.get(kind) ?? [0, 0];
    up.set(kind, [healthy + (site.state === "healthy" ? 1 : 0), checked + 1]);
  }
  await store.close();
  rmSync(dataDir, { recursive: true, force: true });
  return {
    run: name,
    "checks/s": Math.round((checks / wallMs) * 1000 * 10) / 10,
    "CPU ms/check": Math.round((cpuMs / checks) * 100) / 100,
    "core share": `${Math.round((cpuMs / wallMs) * 1000) / 10}%`,
    "peak RSS MB": Math.round(peakRss / 1048576),
    "lag p50 ms": quantile(lags, 0.5),
    "lag p99 ms": quantile(lags, 0.99),
    "tx/s": Math.round((transactions / wallMs) * 1000 * 10) / 10,
    "rows/check": Math.round((rows / checks) * 100) / 100,
    checks,
    "up/checked": [...up].map(([kind, [healthy, checked]]) => `${kind} ${healthy}/${checked}`).join(", "),
  };
}

const chosen = (process.env.BENCH_RUNS ?? Object.keys(RUNS).join(",")).split(",").map((r) => r.trim());
for (const name of chosen)
  if (!RUNS[name]) throw new Error(`BENCH_RUNS: no run named ${name}; runs: ${Object.keys(RUNS)}`);
console.log(
  `bench:engine — node ${process.version}, ${sites} sites every ${intervalS} s (${Math.round((sites / intervalS) * 10) / 10} checks/s due), ${durationS} s per run, concurrency ${concurrency}; runs: ${chosen.join(", ")}`,
);
const results: Awaited<ReturnType<typeof run>>[] = [];
for (const name of chosen) {
  results.push(await run(name, RUNS[name] as Kind[]));
  console.log(results.at(-1));
}
console.table(results);
const mixed = results.find((r) => r.run === "mixed");
const single = (kind: Kind) => results.find((r) => r.run === kind)?.["CPU ms/check"];
const parts = (RUNS.mixed as Kind[]).map(single);
if (mixed && parts.every((p) => p !== undefined)) {
  const predicted = (parts as number[]).reduce((a, b) => a + b, 0) / parts.length;
  console.log(
    `mixed: ${mixed["CPU ms/check"]} CPU ms/check measured, ${Math.round(predicted * 100) / 100} predicted by the single-kind runs (ratio ${Math.round((mixed["CPU ms/check"] / predicted) * 100) / 100})`,
  );
}
targets.kill();
