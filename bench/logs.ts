/**
 * npm run bench:logs — what a log reader that stops reading costs requests and the exit, in one run on one machine.
 *
 * For each mode it starts `porchlight serve` (SQLite, no engine, info logs) with stdout on a pipe and sends requests
 * whose log lines are long (a 1,000-character path, ~1.1 KB a line), BENCH_CONCURRENCY at a time for BENCH_SECONDS,
 * timing each request: "read" (the pipe is read as it fills: the healthy case), "unread" (never read once the server
 * listens: the pipe fills, then the process's buffer, then lines are dropped) and "gone" (the reader closed its end).
 * Then SIGTERM, timing the exit against PORCHLIGHT_SHUTDOWN_TIMEOUT_SECONDS (BENCH_TIMEOUT, default 3). Figures compare
 * within one run only: the machine is shared and noisy.
 *
 * Environment: BENCH_SECONDS (default 5), BENCH_CONCURRENCY (default 20), BENCH_TIMEOUT (default 3).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { Agent, request } from "node:http";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 20);
const timeoutSeconds = Number(process.env.BENCH_TIMEOUT ?? 3);
const PORT_BASE = 31_000 + Math.floor(Math.random() * 1000);

type Mode = "read" | "unread" | "gone";

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

async function run(mode: Mode, port: number) {
  const dataDir = mkdtempSync(join(tmpdir(), "porchlight-bench-logs-"));
  const child = spawn(process.execPath, ["bin/porchlight.js", "serve"], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: "127.0.0.1",
      DATABASE_URL: "",
      PORCHLIGHT_DATA_DIR: dataDir,
      PORCHLIGHT_ENGINE: "off",
      LOG_LEVEL: "info",
      PORCHLIGHT_SHUTDOWN_TIMEOUT_SECONDS: String(timeoutSeconds),
    },
    stdio: ["ignore", "pipe", "ignore"],
  });
  const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
    child.on("exit", (code) => resolve({ code, at: Date.now() })),
  );
  let stdout = "";
  let bytesRead = 0;
  const onData = (chunk: Buffer) => {
    bytesRead += chunk.length;
    if (!stdout.includes("porchlight listening")) stdout += chunk;
  };
  child.stdout.on("data", onData);
  while (!stdout.includes("porchlight listening")) await new Promise((resolve) => setTimeout(resolve, 50));
  if (mode === "unread") {
    child.stdout.off("data", onData);
    child.stdout.pause();
  }
  if (mode === "gone") child.stdout.destroy();

  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const path = `/no-such-page-${"x".repeat(1000)}`;
  const once = () =>
    new Promise<number>((resolve, reject) => {
      const started = performance.now();
      request({ host: "127.0.0.1", port, path, agent }, (res) => {
        res.resume();
        res.on("end", () => resolve(performance.now() - started));
      })
        .on("error", reject)
        .end();
    });
  const latencies: number[] = [];
  const until = Date.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < until) latencies.push(await once());
    }),
  );
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const sent = Date.now();
  child.kill("SIGTERM");
  const { code, at } = await exited;
  rmSync(dataDir, { recursive: true, force: true });
  return {
    mode,
    requests: latencies.length,
    perSecond: Math.round(latencies.length / seconds),
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    max: latencies[latencies.length - 1] ?? 0,
    logMB: bytesRead / 1e6,
    exitCode: code,
    exitMs: at - sent,
  };
}

console.log(
  `bench:logs — ${seconds} s per mode, ${concurrency} at a time, shutdown timeout ${timeoutSeconds} s, load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`,
);
const results = [];
for (const [i, mode] of (["read", "unread", "gone"] as const).entries()) {
  const r = await run(mode, PORT_BASE + i);
  results.push(r);
  console.log(
    `${mode.padEnd(7)} ${String(r.requests).padStart(7)} requests (${r.perSecond}/s)  p50 ${r.p50.toFixed(1)} ms  p99 ${r.p99.toFixed(
      1,
    )} ms  max ${r.max.toFixed(1)} ms  log read ${r.logMB.toFixed(1)} MB  SIGTERM → exit ${r.exitCode} in ${r.exitMs} ms`,
  );
}
const [read] = results;
if (!read) throw new Error("no result");
for (const r of results.slice(1)) {
  console.log(
    `${r.mode} / read: p50 ×${(r.p50 / read.p50).toFixed(2)}, p99 ×${(r.p99 / read.p99).toFixed(2)}, throughput ×${(
      r.perSecond / read.perSecond
    ).toFixed(2)}`,
  );
}
console.log(
  `load after: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`,
);
