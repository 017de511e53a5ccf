/**
 * npm run bench:passwords — what a flood of wrong status-page passwords costs a legitimate visitor, with the work
 * budget (PORCHLIGHT_PASSWORD_HASHES_*) on and off, in one run on one machine.
 *
 * First it measures one scrypt check here (CPU and wall time, one at a time). Then, for each mode, it starts
 * `porchlight serve` (SQLite, no engine, 127.0.0.1 trusted as a proxy so that X-Forwarded-For names the clients),
 * creates password pages, and sends BENCH_RATE wrong guesses a second (default 100), each from a new address of
 * 198.18.0.0/15 and with a new wrong password, at one page, moving to the next page every round. During each
 * round a visitor with the right password, from an address of its own, unlocks another page (its first unlock
 * there: a hash), the attacked page (its first unlock: a hash), and the attacked page again (a second visitor:
 * the password is known by then). A visitor answered 429 waits Retry-After and asks again, as the element does;
 * the time until the page shows is what is measured, given up after BENCH_GIVE_UP seconds. The server's CPU
 * time comes from /proc.
 *
 * "off" raises every budget out of reach (10,000 at once, 100,000 a second), which is how checks ran before the
 * budget existed. Figures compare within one run only: the machine is shared and noisy.
 *
 * Environment: BENCH_MODES (default "on,off"), BENCH_RATE (guesses a second, default 100), BENCH_ROUNDS (default
 * 6), BENCH_ROUND_SECONDS (at least, default 2), BENCH_GIVE_UP (seconds, default 15), BENCH_HASHES (hashes
 * measured for the cost, default 20).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { Agent, request } from "node:http";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { createToken, createUser } from "../server/accounts/accounts.ts";
import { hashPassword, verifyPassword } from "../server/accounts/secrets.ts";
import { openStore } from "../server/store/store.ts";
import { cpuSeconds, freePort } from "./process.ts";

const modes = (process.env.BENCH_MODES ?? "on,off").split(",").map((m) => m.trim()) as ("on" | "off")[];
const rate = Number(process.env.BENCH_RATE ?? 100);
const rounds = Number(process.env.BENCH_ROUNDS ?? 6);
const roundMs = Number(process.env.BENCH_ROUND_SECONDS ?? 2) * 1000;
const giveUpMs = Number(process.env.BENCH_GIVE_UP ?? 15) * 1000;
const hashCount = Number(process.env.BENCH_HASHES ?? 20);
const PASSWORD = "correct horse battery staple";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

const ms = (x: number) => (Number.isNaN(x) ? "-" : x >= 10_000 ? `${(x / 1000).toFixed(1)} s` : `${Math.round(x)} ms`);

/** A GET answered with its status and Retry-After; status 0 when it failed or timed out. */
function get(
  agent: Agent,
  port: number,
  path: string,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<{ status: number; retryAfter: number }> {
  return new Promise((resolve) => {
    const req = request({ agent, host: "127.0.0.1", port, path, headers, timeout: timeoutMs }, (res) => {
      res.resume();
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, retryAfter: Number(res.headers["retry-after"] ?? 0) }),
      );
    });
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", () => resolve({ status: 0, retryAfter: 0 }));
    req.end();
  });
}

/** One scrypt check here, one at a time: CPU and wall time each. */
async function hashCost(): Promise<{ cpuMs: number; wallMs: number }> {
  const stored = await hashPassword(PASSWORD);
  await verifyPassword("warm up", stored);
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < hashCount; i++) await verifyPassword(`wrong ${i}`, stored);
  const used = process.cpuUsage(cpu);
  return { cpuMs: (used.user + used.system) / 1000 / hashCount, wallMs: (performance.now() - started) / hashCount };
}

interface ModeResult {
  mode: string;
  idle: number[];
  other: number[];
  sameFirst: number[];
  sameSecond: number[];
  gaveUp: number;
  visitor429: number;
  attack: Record<string, number>;
  sent: number;
  cpu: number;
  seconds: number;
}

async function runMode(mode: "on" | "off"): Promise<ModeResult> {
  const dir = mkdtempSync(join(tmpdir(), "porchlight-bench-passwords-"));
  const store = await openStore({ dataDir: dir });
  await createUser(store, { email: "bench@example.com", plan: "stack" }, new Date());
  const { token } = await createToken(store, "bench@example.com", "bench", new Date());
  await store.close();
  const port = await freePort();
  const off = mode === "off";
  const server: ChildProcess = spawn(process.execPath, ["bin/porchlight.js", "serve"], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: "127.0.0.1",
      PORCHLIGHT_DATA_DIR: dir,
      DATABASE_URL: "",
      PORCHLIGHT_ENGINE: "off",
      PORCHLIGHT_TRUSTED_PROXIES: "127.0.0.1",
      LOG_LEVEL: "warn",
      PORCHLIGHT_API_REQUESTS_PER_MINUTE: "1000000",
      ...(off
        ? {
            PORCHLIGHT_PASSWORD_HASHES_IN_FLIGHT: "10000",
            PORCHLIGHT_PASSWORD_HASHES_PER_SECOND: "100000",
            PORCHLIGHT_PASSWORD_PAGE_HASHES_PER_SECOND: "100000",
          }
        : {}),
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const visitorAgent = new Agent({ keepAlive: false });
  const attackAgent = new Agent({ keepAlive: true, maxSockets: 2048 });
  try {
    for (let i = 0; ; i++) {
      if ((await get(visitorAgent, port, "/healthz", {}, 1000)).status === 200) break;
      if (i > 400) throw new Error("the server did not start");
      await sleep(50);
    }
    const create = async (slug: string) => {
      const body = JSON.stringify({ name: slug, slug, visibility: "password", password: PASSWORD });
      const res = await fetch(`http://127.0.0.1:${port}/public/v1/status-pages`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body,
      });
      if (res.status !== 201) throw new Error(`creating ${slug}: ${res.status} ${await res.text()}`);
      return `/public/v1/status-page/${slug}`;
    };
    const idlePages: string[] = [];
    const attacked: string[] = [];
    const others: string[] = [];
    for (let i = 0; i < 5; i++) idlePages.push(await create(`idle-${i}`));
    for (let i = 0; i < rounds; i++) {
      attacked.push(await create(`attacked-${i}`));
      others.push(await create(`other-${i}`));
    }

    let visitors = 0;
    let gaveUp = 0;
    let visitor429 = 0;
    /** A visitor's unlock: until the page shows, waiting Retry-After on each 429, as the element does. */
    const unlock = async (path: string): Promise<number> => {
      const address = `192.0.2.${1 + (visitors++ % 250)}`;
      const started = performance.now();
      for (;;) {
        const left = giveUpMs - (performance.now() - started);
        if (left <= 0) break;
        const res = await get(
          visitorAgent,
          port,
          path,
          { "x-status-page-password": PASSWORD, "x-forwarded-for": address },
          left,
        );
        if (res.status === 200) return performance.now() - started;
        if (res.status !== 429) break;
        visitor429++;
        await sleep(Math.min(Math.max(1, res.retryAfter) * 1000, giveUpMs - (performance.now() - started)));
      }
      gaveUp++;
      return giveUpMs;
    };

    const idle: number[] = [];
    for (const page of idlePages) idle.push(await unlock(page));

    // The flood: open loop, BENCH_RATE a second whatever the answers, each guess from a new address.
    const attack: Record<string, number> = {};
    let target = attacked[0] as string;
    let sent = 0;
    let flooding = true;
    const outstanding = new Set<Promise<void>>();
    const flood = (async () => {
      const started = performance.now();
      while (flooding) {
        const due = Math.floor(((performance.now() - started) / 1000) * rate);
        for (; sent < due; sent++) {
          const address = `198.${18 + ((sent >> 16) & 1)}.${(sent >> 8) & 255}.${sent & 255}`;
          const p = get(
            attackAgent,
            port,
            target,
            { "x-status-page-password": `guess ${sent}`, "x-forwarded-for": address },
            giveUpMs * 4,
          ).then((res) => {
            const key = res.status === 0 ? "failed" : String(res.status);
            attack[key] = (attack[key] ?? 0) + 1;
            outstanding.delete(p);
          });
          outstanding.add(p);
        }
        await sleep(5);
      }
    })();

    const other: number[] = [];
    const sameFirst: number[] = [];
    const sameSecond: number[] = [];
    const cpuStart = cpuSeconds(server.pid as number);
    const phaseStart = performance.now();
    for (let r = 0; r < rounds; r++) {
      const roundStart = performance.now();
      target = attacked[r] as string;
      await sleep(500);
      const [o, s] = await Promise.all([unlock(others[r] as string), unlock(target)]);
      other.push(o);
      sameFirst.push(s);
      sameSecond.push(await unlock(target));
      await sleep(Math.max(0, roundMs - (performance.now() - roundStart)));
    }
    flooding = false;
    await flood;
    const seconds = (performance.now() - phaseStart) / 1000;
    const cpu = cpuSeconds(server.pid as number) - cpuStart;
    // What is still queued in the server is the flood's too; it is not waited for.
    return {
      mode,
      idle,
      other,
      sameFirst,
      sameSecond,
      gaveUp,
      visitor429,
      attack: { ...attack, unanswered: outstanding.size },
      sent,
      cpu,
      seconds,
    };
  } finally {
    attackAgent.destroy();
    visitorAgent.destroy();
    server.kill("SIGKILL");
    await new Promise((resolve) => server.once("exit", resolve));
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main() {
  const cost = await hashCost();
  const load = loadavg()
    .map((x) => x.toFixed(2))
    .join(" ");
  console.log(
    `bench:passwords  node ${process.version}, ${availableParallelism()} cores, load average ${load} at the start`,
  );
  console.log(
    `one scrypt check (N=2^15, r=8, p=1), one at a time, mean of ${hashCount}: ${cost.cpuMs.toFixed(1)} ms CPU, ${cost.wallMs.toFixed(1)} ms wall`,
  );
  console.log(
    `flood: ${rate} wrong guesses a second, each from a new address; ${rounds} rounds of at least ${roundMs / 1000} s, a new attacked page each round; visitors give up after ${giveUpMs / 1000} s\n`,
  );
  const results: ModeResult[] = [];
  for (const mode of modes) {
    const result = await runMode(mode);
    results.push(result);
    const row = (name: string, values: number[]) =>
      console.log(
        `  ${name.padEnd(44)} p50 ${ms(percentile(values, 50)).padStart(8)}  p99 ${ms(percentile(values, 99)).padStart(8)}`,
      );
    console.log(`budget ${mode}${mode === "off" ? " (limits raised out of reach)" : " (the defaults)"}`);
    row("first unlock, no flood", result.idle);
    row("first unlock of another page, under the flood", result.other);
    row("first unlock of the flooded page", result.sameFirst);
    row("second visitor of the flooded page", result.sameSecond);
    console.log(
      `  visitors answered 429 on the way: ${result.visitor429}; gave up: ${result.gaveUp} of ${result.idle.length + 3 * rounds}`,
    );
    console.log(
      `  flood: ${result.sent} sent in ${result.seconds.toFixed(1)} s, answers ${JSON.stringify(result.attack)}`,
    );
    console.log(
      `  server CPU during the flood: ${result.cpu.toFixed(1)} s in ${result.seconds.toFixed(1)} s (${(result.cpu / result.seconds).toFixed(2)} cores)\n`,
    );
  }
  const on = results.find((r) => r.mode === "on");
  const off = results.find((r) => r.mode === "off");
  if (on && off) {
    const ratio = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(2)}x` : "-");
    console.log("on / off:");
    for (const [name, key] of [
      ["first unlock of another page, p50", "other"],
      ["first unlock of the flooded page, p50", "sameFirst"],
      ["second visitor of the flooded page, p50", "sameSecond"],
    ] as const) {
      console.log(`  ${name.padEnd(44)} ${ratio(percentile(on[key], 50), percentile(off[key], 50))}`);
    }
    console.log(`  ${"server CPU a second".padEnd(44)} ${ratio(on.cpu / on.seconds, off.cpu / off.seconds)}`);
  }
}

await main();
