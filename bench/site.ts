/**
 * npm run bench:site — the static build of the status pages (`astro build`, as `npm run build` runs it) on a real
 * SQLite store of BENCH_PAGES pages (default 2,000), each with 10 items (90 days of history) and 20 incidents with
 * two updates each. Prints pages per second (whole build, and the per-page rate once the build's fixed start-up,
 * measured by a build of BENCH_SMALL pages in the same run, is taken out), the build's peak RSS, and the bytes a
 * visitor transfers for one page: its HTML and the page script, gzipped and as brotli.
 * The builds write to a RAM file system (/dev/shm) when there is one, BENCH_OUT_DIR otherwise or when set: the
 * shared disk of this machine kind varies between runs (creating a file was seen to take from 0.08 to 0.7 ms, and a
 * page is four files), which would swamp what the build itself costs. The run also times writing the large build's
 * files with plain writeFileSync, where it built and on the disk, so the disk's share is measured, not assumed.
 * Figures are only comparable within a run: the machine is shared and noisy.
 */
import { spawnSync } from "node:child_process";
import {
  accessSync,
  constants as fsConstants,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { createApp } from "../server/app.ts";
import { loadConfig } from "../server/config.ts";
import { createLogger } from "../server/log.ts";
import { openStore, type Store } from "../server/store/store.ts";
import { pageScriptFile } from "../server/views/embed-assets.ts";
import { copyStatusPage, markChecked, ownerCaller, seedStats } from "../test/support/fixtures.ts";

const PAGES = Math.max(1, Number(process.env.BENCH_PAGES ?? 2000));
const SMALL = Math.max(1, Number(process.env.BENCH_SMALL ?? 20));
const ITEMS = 10;
const INCIDENTS = 20;
const PAGES_PER_SECOND_BAR = 500;
const PAGE_BYTES_BAR = 30 * 1024;

/** One page made through the API (so its rows are what the product writes), then copied in bulk to `count`. */
async function seed(dataDir: string, count: number): Promise<void> {
  const config = loadConfig({ PORCHLIGHT_DATA_DIR: dataDir, LOG_LEVEL: "silent" });
  const store: Store = await openStore({ dataDir: config.dataDir });
  try {
    const { app } = createApp({ store, config, logger: createLogger(config.logLevel) });
    const now = new Date();
    const call = await ownerCaller(store, app, "bench@example.com");
    const first = await call("POST", "/public/v1/status-pages", {
      name: "Acme 0",
      slug: "acme-0",
      description: "Live status of Acme's services.",
    });
    for (let i = 0; i < ITEMS; i++) {
      const site = await call("POST", "/public/v1/sites", { url: `https://s${i}.example.com`, name: `Service ${i}` });
      await seedStats(store, String(site.id), now, 90);
      await markChecked(store, String(site.id), {
        state: "healthy",
        last_check_time: now.toISOString(),
        last_response_ms: 120 + i,
      });
      await call("POST", `/public/v1/status-pages/${first.id}/items`, { siteId: site.id, label: `Service ${i}` });
    }
    for (let i = 0; i < INCIDENTS; i++) {
      const incident = await call("POST", `/public/v1/status-pages/${first.id}/incidents`, {
        title: `Incident ${i}: slow responses`,
        message: "We are investigating slow responses.",
        startedAt: new Date(now.getTime() - (i + 1) * 86_400_000).toISOString(),
      });
      await call("POST", `/public/v1/status-pages/${first.id}/incidents/${incident.id}/updates`, {
        status: "resolved",
        message: "Response times are back to normal.",
      });
    }
    const copies = Array.from({ length: count - 1 }, (_, k) => ({ slug: `acme-${k + 1}`, name: `Acme ${k + 1}` }));
    await copyStatusPage(store, Number(first.id), copies);
  } finally {
    await store.close();
  }
}

/** `astro build` in a child process: its wall time and peak RSS (GNU time's maximum resident set, in KiB). */
function build(dataDir: string, outDir: string): { seconds: number; rssMiB: number } {
  const started = performance.now();
  const run = spawnSync(
    "/usr/bin/time",
    ["-f", "maxrss=%M", process.execPath, "node_modules/.bin/astro", "build", "--outDir", outDir],
    {
      env: { ...process.env, PORCHLIGHT_DATA_DIR: dataDir, ASTRO_TELEMETRY_DISABLED: "1", NODE_ENV: "production" },
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  const seconds = (performance.now() - started) / 1000;
  if (run.status !== 0) throw new Error(`astro build failed:\n${run.stdout}\n${run.stderr}`);
  const rss = /maxrss=(\d+)/.exec(run.stderr)?.[1];
  return { seconds, rssMiB: rss ? Number(rss) / 1024 : Number.NaN };
}

/** Where the builds write: BENCH_OUT_DIR, else /dev/shm when writable, else the temporary directory. */
function outRoot(): string {
  if (process.env.BENCH_OUT_DIR) return process.env.BENCH_OUT_DIR;
  try {
    accessSync("/dev/shm", fsConstants.W_OK);
    return "/dev/shm";
  } catch {
    return tmpdir();
  }
}

/** Seconds to write these files (relative path, bytes) under a fresh directory of `parent` with writeFileSync. */
function timeWrites(parent: string, files: [string, Buffer][]): number {
  const root = mkdtempSync(join(parent, "porchlight-bench-writes-"));
  try {
    const started = performance.now();
    for (const [path, bytes] of files) {
      mkdirSync(join(root, path, ".."), { recursive: true });
      writeFileSync(join(root, path), bytes);
    }
    return (performance.now() - started) / 1000;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** Every file under `dir`, with its path relative to it. */
function readTree(dir: string, prefix = ""): [string, Buffer][] {
  return readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((entry) => {
    const path = join(prefix, entry.name);
    return entry.isDirectory() ? readTree(dir, path) : [[path, readFileSync(join(dir, path))] as [string, Buffer]];
  });
}

const kb = (bytes: number) => `${bytes.toLocaleString("en")} B`;

async function main(): Promise<void> {
  const scriptFile = pageScriptFile("dist/embed");
  if (!scriptFile) throw new Error("run npm run build first (dist/embed)");
  const root = mkdtempSync(join(tmpdir(), "porchlight-bench-site-"));
  const out = mkdtempSync(join(outRoot(), "porchlight-bench-site-out-"));
  console.log(`building into ${out}`);
  try {
    const figures: Record<string, { pages: number; seconds: number; rssMiB: number }> = {};
    for (const [name, count] of [
      ["small", SMALL],
      ["large", PAGES],
    ] as const) {
      const dataDir = join(root, `data-${name}`);
      const seeding = performance.now();
      await seed(dataDir, count);
      console.log(`seeded ${count} pages in ${((performance.now() - seeding) / 1000).toFixed(1)} s`);
      const result = build(dataDir, join(out, `out-${name}`));
      figures[name] = { pages: count, ...result };
      console.log(`built ${count} pages in ${result.seconds.toFixed(2)} s, peak RSS ${result.rssMiB.toFixed(0)} MiB`);
    }
    const small = figures.small as { pages: number; seconds: number };
    const large = figures.large as { pages: number; seconds: number; rssMiB: number };
    const whole = large.pages / large.seconds;
    const marginal = (large.pages - small.pages) / Math.max(0.001, large.seconds - small.seconds);
    const html = readFileSync(join(out, "out-large", "acme-0", "index.html"));
    const files = readTree(join(out, "out-large"));
    const writesHere = timeWrites(out, files);
    const writesDisk = timeWrites(tmpdir(), files);
    const script = readFileSync(join("dist/embed", scriptFile));
    const gz = (b: Uint8Array) => gzipSync(b, { level: 9 }).length;
    const br = (b: Uint8Array) => brotliCompressSync(b, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
    const pageGz = gz(html) + gz(script);
    console.log("");
    console.log(
      `pages per second, whole build (${large.pages} pages, ${large.seconds.toFixed(2)} s): ${whole.toFixed(0)}`,
    );
    console.log(
      `pages per second, per page beyond the fixed start-up (${small.pages}-page build: ${small.seconds.toFixed(2)} s): ${marginal.toFixed(0)}`,
    );
    console.log(`peak RSS of the ${large.pages}-page build: ${large.rssMiB.toFixed(0)} MiB`);
    console.log(
      `writing the build's ${files.length} files alone (writeFileSync): ${writesHere.toFixed(2)} s where it built, ${writesDisk.toFixed(2)} s on the disk (${tmpdir()}), that is ${(large.pages / writesDisk).toFixed(0)} pages per second at most there`,
    );
    console.log(
      `one page (10 items, 20 incidents): HTML ${kb(html.length)} raw, ${kb(gz(html))} gzip, ${kb(br(html))} br`,
    );
    console.log(`its script: ${kb(script.length)} raw, ${kb(gz(script))} gzip, ${kb(br(script))} br`);
    console.log(`transferred for one page, gzip: ${kb(pageGz)}; br: ${kb(br(html) + br(script))}`);
    console.log(
      `load average ${loadavg()
        .map((x) => x.toFixed(2))
        .join(" ")} at the end`,
    );
    console.log(
      `bar: ${PAGES_PER_SECOND_BAR} pages per second: whole build ${whole >= PAGES_PER_SECOND_BAR ? "met" : "NOT MET"}, per page ${marginal >= PAGES_PER_SECOND_BAR ? "met" : "NOT MET"}`,
    );
    console.log(`bar: at most ${kb(PAGE_BYTES_BAR)} gzip for a page: ${pageGz <= PAGE_BYTES_BAR ? "met" : "NOT MET"}`);
    console.log("(a benchmark, not a test: the exit code is 0 whether or not the bars are met)");
  } finally {
    rmSync(root, { recursive: true, force: true });
    rmSync(out, { recursive: true, force: true });
  }
}

await main();
