/**
 * npm run bench:api — Porchlight's hot read routes against a bare node:http server sending the same bytes, in one
 * run on one machine, and the page's Statuspage summary.json against the page's own JSON. Seeds a page with 10 items and 20 incidents and a site with 90 days of statistics,
 * starts `porchlight serve` and the bare server as separate processes, and loads each with autocannon from this
 * process. Figures are only comparable within a run: the machine is shared and noisy.
 *
 * Each route is measured in interleaved rounds (Porchlight, bare, Porchlight, bare, ...) and the rounds averaged,
 * so that a machine that speeds up or slows down during the run affects both sides alike.
 *
 * Environment: BENCH_DURATION (seconds per round, default 5), BENCH_ROUNDS (default 3), BENCH_CONNECTIONS
 * (default 50), BENCH_ONLY (a route name, to run one), BENCH_PROFILE (a directory: the Porchlight process writes
 * a V8 CPU profile there), LOG_LEVEL (the server's, default info).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { createToken, createUser } from "../server/accounts/accounts.ts";
import { openStore, type Store } from "../server/store/store.ts";
import { insertStats } from "../test/support/fixtures.ts";
import { freePort, waitFor } from "./process.ts";

const duration = Number(process.env.BENCH_DURATION ?? 5);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);

function daysOfStats(siteId: string, now: Date) {
  return Array.from({ length: 90 }, (_, i) => {
    const day = new Date(now.getTime() - i * 86_400_000).toISOString().slice(0, 10);
    return {
      id: `${siteId}:${day}`,
      site_id: siteId,
      day,
      checks_total: 288,
      checks_up: 288 - (i % 4),
      downtime_minutes: (i % 4) * 5,
      version: 1,
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
    };
  });
}

async function seed(store: Store, base: string) {
  const now = new Date();
  await createUser(store, { email: "bench@example.com", plan: "stack" }, now);
  const { token } = await createToken(store, "bench@example.com", "bench", now);
  const call = async (method: string, path: string, body: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { data: { id: string | number } }).data;
  };
  const page = await call("POST", "/public/v1/status-pages", { name: "Bench", slug: "bench" });
  let siteId = "";
  for (let i = 0; i < 10; i++) {
    const site = await call("POST", "/public/v1/sites", { url: `https://s${i}.example.com`, name: `Service ${i}` });
    siteId = String(site.id);
    await insertStats(store, daysOfStats(siteId, now));
    await call("POST", `/public/v1/status-pages/${page.id}/items`, { siteId });
  }
  for (let i = 0; i < 20; i++) {
    const incident = await call("POST", `/public/v1/status-pages/${page.id}/incidents`, {
      title: `Incident ${i}: elevated error rates`,
      message: "We are investigating reports of errors.",
    });
    await call("POST", `/public/v1/status-pages/${page.id}/incidents/${incident.id}/updates`, {
      status: "resolved",
      message: "A fix has been deployed and error rates are back to normal.",
    });
  }
  return { token, siteId };
}

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
}

async function load(url: string, headers: Record<string, string>): Promise<Figures> {
  const result = await autocannon({ url, connections, duration, headers });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx + result.errors,
  };
}

function average(runs: Figures[]): Figures {
  const mean = (pick: (f: Figures) => number) => runs.reduce((sum, f) => sum + pick(f), 0) / runs.length;
  return {
    rps: mean((f) => f.rps),
    p50: Math.round(mean((f) => f.p50) * 10) / 10,
    p99: Math.round(mean((f) => f.p99) * 10) / 10,
    non2xx: runs.reduce((sum, f) => sum + f.non2xx, 0),
  };
}

function bareServer(bodies: Record<string, Buffer>, dir: string, port: number): ChildProcess {
  const files: Record<string, string> = {};
  for (const [path, bytes] of Object.entries(bodies)) {
    const file = join(dir, `${Object.keys(files).length}.json`);
    writeFileSync(file, bytes);
    files[path] = file;
  }
  const code = `
    const http = require("node:http"); const fs = require("node:fs");
    const bodies = new Map(Object.entries(${JSON.stringify(files)}).map(([p, f]) => [p, fs.readFileSync(f)]));
    http.createServer((req, res) => {
      const body = bodies.get(req.url);
      res.writeHead(200, { "content-type": "application/json; charset=utf-8", "content-length": body.length });
      res.end(body);
    }).listen(${port}, "127.0.0.1");`;
  return spawn(process.execPath, ["-e", code], { stdio: "ignore" });
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), "porchlight-bench-"));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const profile = process.env.BENCH_PROFILE ? [`--cpu-prof`, `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
  const server = spawn(process.execPath, [...profile, "bin/porchlight.js", "serve"], {
    env: {
      LOG_LEVEL: "info",
      ...process.env,
      PORT: String(port),
      HOST: "127.0.0.1",
      PORCHLIGHT_DATA_DIR: dir,
      DATABASE_URL: "",
      // One token makes every request: its limit (600 a minute by default) would turn the run into 429s. The
      // limiter still counts each request, so its cost is in the figures.
      PORCHLIGHT_API_REQUESTS_PER_MINUTE: "1000000",
    },
    stdio: "ignore",
  });
  const children: ChildProcess[] = [server];
  try {
    await waitFor(`${base}/healthz`);
    const store = await openStore({ dataDir: dir });
    const { token, siteId } = await seed(store, base);
    await store.close();

    const routes: { name: string; path: string; headers: Record<string, string>; bar: number }[] = [
      { name: "status page", path: "/public/v1/status-page/bench", headers: {}, bar: 0.8 },
      // Statuspage's v2 summary of the same page: the bar is against the page's JSON (below); against bare
      // bytes, a body of 3 KB leaves the per-request work (routing, metrics, the log line) a larger share.
      { name: "summary.json", path: "/bench/api/v2/summary.json", headers: {}, bar: 0.5 },
      {
        name: "site detail",
        path: `/public/v1/site/${siteId}?statDays=90`,
        headers: { authorization: `Bearer ${token}` },
        bar: 0.5,
      },
    ];
    const bodies: Record<string, Buffer> = {};
    for (const r of routes) {
      const res = await fetch(`${base}${r.path}`, { headers: r.headers as Record<string, string> });
      if (res.status !== 200) throw new Error(`${r.path}: ${res.status}`);
      bodies[r.path] = Buffer.from(await res.arrayBuffer());
    }
    const barePort = await freePort();
    children.push(bareServer(bodies, dir, barePort));
    await waitFor(`http://127.0.0.1:${barePort}${routes[0]?.path}`);

    console.log(
      `bench:api  node ${process.version}, ${connections} connections, ${rounds} interleaved rounds of ${duration} s per server, Porchlight on SQLite with LOG_LEVEL=${process.env.LOG_LEVEL ?? "info"}`,
    );
    console.log("route         body      server       req/s     p50 ms  p99 ms  errors  ratio   bar");
    let failed = false;
    const measured: Record<string, number> = {};
    for (const r of routes.filter((x) => !process.env.BENCH_ONLY || x.name === process.env.BENCH_ONLY)) {
      const oursRuns: Figures[] = [];
      const bareRuns: Figures[] = [];
      for (let i = 0; i < rounds; i++) {
        oursRuns.push(await load(`${base}${r.path}`, r.headers));
        bareRuns.push(await load(`http://127.0.0.1:${barePort}${r.path}`, {}));
      }
      const ours = average(oursRuns);
      const bare = average(bareRuns);
      const ratio = ours.rps / bare.rps;
      measured[r.name] = ours.rps;
      const size = `${(bodies[r.path]?.length ?? 0).toLocaleString("en")} B`;
      const row = (who: string, f: Figures, extra: string) =>
        `${r.name.padEnd(13)} ${size.padEnd(9)} ${who.padEnd(11)} ${f.rps.toFixed(0).padStart(7)}  ${String(f.p50).padStart(7)} ${String(f.p99).padStart(7)} ${String(f.non2xx).padStart(7)}  ${extra}`;
      console.log(
        row(
          "porchlight",
          ours,
          `${(ratio * 100).toFixed(1)}%  >= ${r.bar * 100}%: ${ratio >= r.bar ? "met" : "NOT met"}`,
        ),
      );
      console.log(row("bare http", bare, ""));
      if (ratio < r.bar || ours.non2xx > 0) failed = true;
    }
    const [summary, page] = [measured["summary.json"], measured["status page"]];
    if (summary !== undefined && page !== undefined) {
      const ratio = summary / page;
      console.log(
        `summary.json against the page's own JSON: ${(ratio * 100).toFixed(1)}%  >= 80%: ${ratio >= 0.8 ? "met" : "NOT met"}`,
      );
      if (ratio < 0.8) failed = true;
    }
    console.log(
      failed
        ? "result: a bar was not met (figures vary with machine load; rerun before concluding)"
        : "result: every bar met",
    );
  } finally {
    for (const c of children) c.kill("SIGTERM");
    await new Promise((resolve) => server.once("exit", resolve));
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
