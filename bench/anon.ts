/**
 * npm run bench:anon — domain snapshots end to end: BENCH_SNAPSHOTS (default 400) snapshots of distinct domains
 * asked for over HTTP from the API (a real server on a SQLite store), taken by the runner with the anonymous
 * surface's fetcher in the path (DNS answer checked, socket pinned to the checked address, TLS verified against
 * the benchmark's own CA, RDAP through the same policy), and polled until ready. The targets are local: an HTTPS
 * site and an RDAP server on 127.0.0.2, the one address the benchmark allows explicitly (production allows none).
 *
 * Prints the time from request to ready (p50, p99) for BENCH_SEQUENTIAL (default 50) snapshots asked one at a
 * time, then for BENCH_SNAPSHOTS asked all at once: snapshots per second (first request to last ready), and the
 * time as the store saw it (created to finished) and as a client polling every BENCH_POLL_MS (default 100) saw it.
 * BENCH_CONCURRENCY sets PORCHLIGHT_SNAPSHOT_CONCURRENCY (default: the server's default, 4). Figures are only
 * comparable within a run: the machine is shared and noisy.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { createServer as createHttpServer, type Server } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { createMailer } from "../server/anon/mail.ts";
import { createAnonRunner } from "../server/anon/setup.ts";
import { createApp } from "../server/app.ts";
import { loadConfig } from "../server/config.ts";
import { createLogger } from "../server/log.ts";
import { openStore } from "../server/store/store.ts";
import { makeCertificates } from "../test/support/certificates.ts";
import { snapshotTimes } from "../test/support/fixtures.ts";
import { quantile } from "./stats.ts";

const COUNT = Math.max(1, Number(process.env.BENCH_SNAPSHOTS ?? 400));
const POLL_MS = Math.max(1, Number(process.env.BENCH_POLL_MS ?? 100));
const SEQUENTIAL = Math.max(1, Number(process.env.BENCH_SEQUENTIAL ?? 50));
const TARGET = "127.0.0.2";

function listen(server: Server, host: string): Promise<number> {
  return new Promise((resolve) => server.listen(0, host, () => resolve((server.address() as AddressInfo).port)));
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), "porchlight-bench-anon-"));
  const certs = makeCertificates();
  const site = createHttpsServer(certs.valid, (_req, res) => {
    res.writeHead(200, { "content-type": "text/html", "cf-ray": "8a1b2c3d4e5f-AMS" });
    res.end('<html><head><meta name="generator" content="WordPress 6.6"></head><body>shop</body></html>');
  });
  const rdap = createHttpServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/rdap+json" });
    res.end(
      JSON.stringify({
        events: [{ eventAction: "expiration", eventDate: "2030-01-02T00:00:00Z" }],
        entities: [{ roles: ["registrar"], vcardArray: ["vcard", [["fn", {}, "text", "Bench Registrar"]]] }],
      }),
    );
  });
  const sitePort = await listen(site, TARGET);
  const rdapPort = await listen(rdap, TARGET);
  const config = loadConfig({
    PORCHLIGHT_DATA_DIR: dataDir,
    LOG_LEVEL: "silent",
    PORCHLIGHT_SNAPSHOTS_PER_MINUTE: "100000",
    PORCHLIGHT_SNAPSHOT_POLLS_PER_MINUTE: "100000",
    ...(process.env.BENCH_CONCURRENCY ? { PORCHLIGHT_SNAPSHOT_CONCURRENCY: process.env.BENCH_CONCURRENCY } : {}),
  });
  const logger = createLogger("silent");
  const store = await openStore({ dataDir });
  const mailer = createMailer({ from: config.mailFrom, dataDir, logger });
  const { listener } = createApp({ store, config, logger, mailer });
  const api = createHttpServer(listener);
  const base = `http://127.0.0.1:${await listen(api, "127.0.0.1")}`;
  const runner = createAnonRunner({
    store,
    config,
    logger,
    mailer,
    clock: { now: () => new Date() },
    policy: { resolve: async () => [TARGET], allowAddresses: new Set([TARGET]), extraCa: [certs.ca] },
    bootstrap: { services: [[["com"], [`http://${TARGET}:${rdapPort}/`]]] },
    ports: { https: sitePort, http: sitePort },
    pollMs: 20,
  });
  runner.start();
  try {
    console.log(
      `bench:anon  ${COUNT} snapshots, runner concurrency ${config.snapshot.concurrency}, client polls every ${POLL_MS} ms; load average ${loadavg()
        .map((x) => x.toFixed(2))
        .join(" ")} at start`,
    );
    /** Asks for one snapshot and polls it every `pollMs` until ready; the time from request to ready. */
    const one = async (domain: string, pollMs: number): Promise<number> => {
      const asked = performance.now();
      const res = await fetch(`${base}/public/anon/domain-snapshot`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ domain }),
      });
      if (res.status !== 202) throw new Error(`POST answered ${res.status}: ${await res.text()}`);
      const { data } = (await res.json()) as { data: { snapshotId: string } };
      for (;;) {
        await new Promise((r) => setTimeout(r, pollMs));
        const poll = (await (await fetch(`${base}/public/anon/domain-snapshot/${data.snapshotId}`)).json()) as {
          data: { status: string; error?: string; snapshot?: { snapshot: { cdn: string; reachable: boolean } } };
        };
        if (poll.data.status === "failed") throw new Error(`snapshot failed: ${poll.data.error}`);
        if (poll.data.status === "ready") {
          if (!poll.data.snapshot?.snapshot.reachable || poll.data.snapshot.snapshot.cdn !== "Cloudflare") {
            throw new Error(`unexpected snapshot: ${JSON.stringify(poll.data.snapshot)}`);
          }
          return performance.now() - asked;
        }
      }
    };

    // One at a time: the latency of a snapshot on an idle server (polled every 5 ms).
    const alone: number[] = [];
    for (let i = 0; i < SEQUENTIAL; i++) alone.push(await one(`alone-${i}.example.com`, 5));
    alone.sort((a, b) => a - b);

    // All at once: throughput, and the latency a client sees behind the queue.
    const started = performance.now();
    const observed = await Promise.all(Array.from({ length: COUNT }, (_, i) => one(`site-${i}.example.com`, POLL_MS)));
    const seconds = (performance.now() - started) / 1000;
    const rows = await snapshotTimes(store, "site-");
    const stored = rows.map((r) => Date.parse(r.finished_at ?? "") - Date.parse(r.created_at)).sort((a, b) => a - b);
    observed.sort((a, b) => a - b);
    const ms = (sorted: number[]) =>
      `p50 ${quantile(sorted, 0.5).toFixed(0)} ms, p99 ${quantile(sorted, 0.99).toFixed(0)} ms`;
    console.log("");
    console.log(`one at a time (${SEQUENTIAL}), request to ready: ${ms(alone)}`);
    console.log(
      `all at once (${COUNT}): ${(COUNT / seconds).toFixed(1)} snapshots per second (first request to last ready, ${seconds.toFixed(2)} s)`,
    );
    console.log(`  request to ready, as the store saw it (created to finished): ${ms(stored)}`);
    console.log(`  request to ready, as a client polling every ${POLL_MS} ms saw it: ${ms(observed)}`);
    console.log(
      `load average ${loadavg()
        .map((x) => x.toFixed(2))
        .join(" ")} at the end`,
    );
    console.log("(a benchmark, not a test: queueing behind the runner's concurrency is part of request-to-ready)");
  } finally {
    await runner.stop();
    await new Promise((r) => api.close(r));
    site.closeAllConnections();
    rdap.closeAllConnections();
    await Promise.all([new Promise((r) => site.close(r)), new Promise((r) => rdap.close(r))]);
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
