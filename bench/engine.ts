/**
 * npm run bench:engine — the real engine on the SQLite store against local targets: N sites (BENCH_SITES, default
 * 10,000) checked every BENCH_INTERVAL seconds (default 60, the bar's load: 167 checks/s), for BENCH_DURATION
 * seconds (default 60) per protocol, once with plain HTTP targets and once with HTTPS. The targets run in a child
 * process, so the CPU time measured here is the engine's (checks, verdicts and store writes). Lower the interval
 * to compress the load and find the ceiling. Figures are only comparable within a run: the machine is shared.
 *
 * Prints checks/s, CPU ms per check and the share of one core, peak RSS, scheduler lag p50/p99 (claim time minus
 * due time), store transactions/s and rows written per check.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createUser } from "../server/accounts/accounts.ts";
import { newSiteRow } from "../server/api/sites.ts";
import { systemClock } from "../server/clock.ts";
import { SiteCreate } from "../server/contract/site.ts";
import { Engine } from "../server/engine/engine.ts";
import { createLogger } from "../server/log.ts";
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
const ports = await new Promise<{ http: number; https: number }>((resolve) =>
  targets.stdout?.once("data", (d) => resolve(JSON.parse(String(d)))),
);

/** Seeds the sites in one workspace, 500 to a transaction; the workspace's id. */
async function seed(store: Store, url: string): Promise<string> {
  const owner = await createUser(store, { email: `bench-${Date.now()}@example.com`, plan: "stack" }, new Date());
  const now = Date.now();
  for (let i = 0; i < sites; i += 500) {
    const rows = [];
    const schedule = [];
    for (let j = i; j < Math.min(i + 500, sites); j++) {
      const id = j.toString(16).padStart(24, "0");
      const at = new Date(now).toISOString();
      rows.push(
        newSiteRow(
          owner.workspaceId,
          // Not parsed: the benchmark may compress the interval below what the API accepts.
          {
            ...SiteCreate.parse({ url, name: `Site ${j}`, timeout: 10, successCodes: [200] }),
            checkInterval: intervalS,
          },
          at,
          id,
        ),
      );
      // Steady state: phases spread over the interval, as the engine's jitter leaves them.
      const due = new Date(now + Math.floor((j / sites) * intervalS * 1000)).toISOString();
      schedule.push({ site_id: id, region: "local", next_check_at: due, recent: "[]" });
    }
    await insertScheduledSites(store, rows, schedule);
  }
  return owner.workspaceId;
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;

async function run(protocol: "http" | "https") {
  const dataDir = mkdtempSync(join(tmpdir(), "porchlight-bench-engine-"));
  const store = await openStore({ dataDir });
  const url = protocol === "http" ? `http://127.0.0.1:${ports.http}/` : `https://localhost:${ports.https}/`;
  const workspaceId = await seed(store, url);
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
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  clearInterval(sampler);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  const { checks, transactions, rows } = engine.stats;
  const lags = [...engine.stats.lags].sort((a, b) => a - b);
  const { rows: all } = await store.sites.list(workspaceId, 0, sites);
  const state = all.filter((site) => site.last_check_time !== null);
  await store.close();
  rmSync(dataDir, { recursive: true, force: true });
  return {
    protocol,
    "checks/s": Math.round((checks / wallMs) * 1000 * 10) / 10,
    "CPU ms/check": Math.round((cpuMs / checks) * 100) / 100,
    "core share": `${Math.round((cpuMs / wallMs) * 1000) / 10}%`,
    "peak RSS MB": Math.round(peakRss / 1048576),
    "lag p50 ms": quantile(lags, 0.5),
    "lag p99 ms": quantile(lags, 0.99),
    "tx/s": Math.round((transactions / wallMs) * 1000 * 10) / 10,
    "rows/check": Math.round((rows / checks) * 100) / 100,
    checks,
    healthy: `${state.filter((s) => s.state === "healthy").length}/${state.length}`,
  };
}

console.log(
  `bench:engine — ${sites} sites every ${intervalS} s (${Math.round((sites / intervalS) * 10) / 10} checks/s due), ${durationS} s per protocol, concurrency ${concurrency}`,
);
const results = [];
for (const protocol of ["http", "https"] as const) {
  results.push(await run(protocol));
  console.log(results.at(-1));
}
console.table(results);
targets.kill();
