/**
 * npm run bench:push — push (heartbeat) calls at a fixed rate against `porchlight serve` on SQLite, and a plain
 * read at the same rate in the same run for comparison. Seeds BENCH_SITES push sites (checked every minute), then
 * calls their push addresses BENCH_RATE times a second for BENCH_DURATION seconds, spread over 100 client addresses
 * (as scheduler hosts behind a trusted proxy), so that neither the per-token nor the per-client limit is reached.
 * Prints: calls acknowledged, latency, the server's CPU milliseconds per 1,000 calls and its RSS, and whether every
 * site's verdict ended up (healthy, naming the job's last duration). Figures are only comparable within a run.
 *
 * Environment: BENCH_SITES (default 1000), BENCH_RATE (calls a second, default 1000), BENCH_DURATION (seconds,
 * default 60), BENCH_CONNECTIONS (default 50).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { createToken, createUser } from "../server/accounts/accounts.ts";
import { openStore } from "../server/store/store.ts";
import { cpuSeconds, freePort, rssMiB, waitFor } from "./process.ts";

const sites = Number(process.env.BENCH_SITES ?? 1000);
const rate = Number(process.env.BENCH_RATE ?? 1000);
const duration = Number(process.env.BENCH_DURATION ?? 60);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const CLIENTS = 100;

interface Run {
  /** Calls answered (2xx or not). */
  sent: number;
  ok: number;
  refused: number;
  rps: number;
  p50: number;
  p99: number;
  cpuMsPer1000: number;
  rssMiB: number;
}

/** Calls the paths round-robin at `rate` a second, each from one of CLIENTS addresses, and measures the server. */
async function load(base: string, paths: string[], method: string, pid: number): Promise<Run> {
  let next = 0;
  const before = cpuSeconds(pid);
  const result = await autocannon({
    url: base,
    connections,
    duration,
    overallRate: rate,
    requests: [
      {
        method: method as "GET" | "POST",
        setupRequest: (req) => {
          const i = next++;
          return {
            ...req,
            path: paths[i % paths.length] as string,
            headers: { ...req.headers, "x-forwarded-for": `10.7.${i % CLIENTS}.1` },
          };
        },
      },
    ],
  });
  const after = cpuSeconds(pid);
  // Answered calls: a call still in flight when the run stops is neither acknowledged nor refused.
  const sent = result.requests.total;
  return {
    sent,
    ok: result["2xx"],
    refused: result.non2xx + result.errors + result.timeouts,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    cpuMsPer1000: Math.round(((after - before) * 1000 * 1000) / Math.max(sent, 1)),
    rssMiB: rssMiB(pid),
  };
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), "porchlight-bench-push-"));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server: ChildProcess = spawn(process.execPath, ["bin/porchlight.js", "serve"], {
    env: {
      ...process.env,
      LOG_LEVEL: "warn",
      PORT: String(port),
      HOST: "127.0.0.1",
      PORCHLIGHT_PUBLIC_URL: base,
      PORCHLIGHT_DATA_DIR: dir,
      DATABASE_URL: "",
      // The bench is the proxy: each call names its scheduler host in X-Forwarded-For.
      PORCHLIGHT_TRUSTED_PROXIES: "127.0.0.1",
      PORCHLIGHT_API_REQUESTS_PER_MINUTE: "1000000",
    },
    stdio: "ignore",
  });
  try {
    await waitFor(`${base}/healthz`);
    const now = new Date();
    const store = await openStore({ dataDir: dir });
    await createUser(store, { email: "bench@example.com", plan: "stack" }, now);
    const { token } = await createToken(store, "bench@example.com", "bench", now);
    await store.close();
    const auth = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    const paths: string[] = [];
    for (let i = 0; i < sites; i++) {
      const res = await fetch(`${base}/public/v1/sites`, {
        method: "POST",
        headers: auth,
        body: JSON.stringify({ name: `Job ${i}`, url: "push://", checkInterval: 60, timeout: 30 }),
      });
      if (res.status !== 201) throw new Error(`adding a push site: ${res.status} ${await res.text()}`);
      const { data } = (await res.json()) as { data: { pushUrl: string } };
      paths.push(`${new URL(data.pushUrl).pathname}?ms=42`);
    }

    console.log(
      `bench:push  node ${process.version}, ${sites} push sites, ${rate} calls/s for ${duration} s from ${CLIENTS} client addresses, ${connections} connections, Porchlight on SQLite`,
    );
    const pid = server.pid as number;
    const push = await load(base, paths, "POST", pid);
    const read = await load(base, ["/healthz"], "GET", pid);
    const row = (name: string, r: Run) =>
      `${name.padEnd(12)} ${String(r.sent).padStart(7)} ${String(r.ok).padStart(7)} ${String(r.refused).padStart(7)} ${r.rps.toFixed(0).padStart(7)} ${String(r.p50).padStart(7)} ${String(r.p99).padStart(7)} ${String(r.cpuMsPer1000).padStart(10)} ${String(r.rssMiB).padStart(7)}`;
    console.log("route       answered     2xx  other    req/s  p50 ms  p99 ms  cpu ms/1k  RSS MiB");
    console.log(row("push call", push));
    console.log(row("GET /healthz", read));
    console.log(`push/healthz CPU per call: ${(push.cpuMsPer1000 / Math.max(read.cpuMsPer1000, 1)).toFixed(2)}x`);

    // Every site was called within its interval: once the engine has checked each, every one is up.
    const deadline = Date.now() + 150_000;
    let states: Record<string, number> = {};
    while (Date.now() < deadline) {
      states = {};
      for (let page = 1; page <= Math.ceil(sites / 50); page++) {
        const res = await fetch(`${base}/public/v1/sites?perPage=50&page=${page}`, { headers: auth });
        for (const s of ((await res.json()) as { data: { sites: { state: string }[] } }).data.sites) {
          states[s.state] = (states[s.state] ?? 0) + 1;
        }
      }
      if (states.healthy === sites) break;
      await new Promise((r) => setTimeout(r, 2000));
    }
    const verdictsRight = states.healthy === sites;
    const acknowledged = push.ok === push.sent && push.refused === 0;
    console.log(`verdicts: ${JSON.stringify(states)} (${verdictsRight ? "all up, as called" : "NOT all up"})`);
    console.log(`result: ${acknowledged && verdictsRight ? "every call acknowledged, every verdict right" : "FAILED"}`);
    if (!acknowledged || !verdictsRight) process.exitCode = 1;
  } finally {
    server.kill("SIGTERM");
    await new Promise((resolve) => server.once("exit", resolve));
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
