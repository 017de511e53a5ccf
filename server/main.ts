import { mkdirSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import pino from "pino";
import { bootstrapOwner } from "./accounts/accounts.ts";
import { createAnonRunner } from "./anon/setup.ts";
import { createApp } from "./api/app.ts";
import { createLimiter } from "./api/rate-limit.ts";
import { systemClock } from "./api/time.ts";
import { runCommand, USAGE } from "./cli/commands.ts";
import { type Config, ConfigError, loadConfig, Region } from "./config.ts";
import { DomainLookup, loadBootstrap, refreshBootstrap } from "./engine/domain.ts";
import { Engine } from "./engine/engine.ts";
import type { RecordSummary } from "./engine/record.ts";
import { createLogger, type Logger } from "./log.ts";
import { openStore, type Store } from "./store/store.ts";

const io = {
  out: (line: string) => process.stdout.write(`${line}\n`),
  err: (line: string) => process.stderr.write(`${line}\n`),
};

async function startServer(config: Config): Promise<void> {
  // Buffered: one write per ~16 KB of log lines (sonic-boom writes at most 16 KiB at once) instead of one per
  // request; flushed every second and on shutdown, so a quiet server's lines still appear promptly.
  const destination = pino.destination({ dest: 1, sync: false, minLength: 16_000 });
  setInterval(() => destination.flush(), 1000).unref();
  const logger = createLogger(config.logLevel, destination);
  const store = await openStore(config);
  const token = await bootstrapOwner(store, config.ownerEmail, new Date());
  if (token) {
    // Printed once, outside the log stream, and never again: the store keeps only its hash.
    io.out(
      [
        "",
        `  Porchlight created the owner account ${config.ownerEmail} (plan stack) and its first API token:`,
        "",
        `    ${token}`,
        "",
        "  It is shown only this once. Use it as a bearer token, for example:",
        `    curl -H "Authorization: Bearer ${token}" ${config.publicUrl}/public/v1/sites`,
        "",
      ].join("\n"),
    );
  }
  // Counters in PostgreSQL when processes share one, so that a limit holds across all of them.
  const limiter = await createLimiter({ databaseUrl: config.databaseUrl });
  const { listener, fastPathCounts, recorded, mailer } = createApp({ store, config, logger, limiter });
  const anon = createAnonRunner({ store, config, logger, mailer, clock: systemClock });
  anon.start();
  logger.info({ mail: mailer.mode }, "anonymous utilities ready");
  const engine = config.engine ? createEngine(store, config, logger, config.region, recorded) : null;
  engine?.start();
  let countedSince = Date.now();
  const logCounts = () => {
    const counts = fastPathCounts.take();
    const seconds = Math.round((Date.now() - countedSince) / 1000);
    countedSince = Date.now();
    if (Object.keys(counts).length > 0) logger.info({ counts, seconds }, "reads served from memory");
  };
  setInterval(logCounts, 60_000).unref();
  const server = createServer(listener);
  server.listen(config.port, config.host, () => {
    const { port } = server.address() as AddressInfo;
    logger.info({ port, host: config.host, store: store.description }, "porchlight listening");
    destination.flush();
  });
  const stop = () => {
    logCounts();
    logger.info("shutting down");
    // The engine stops claiming at once and finishes its running checks while the server drains its requests.
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    void Promise.all([closed, engine?.stop(), anon.stop()])
      .then(() => Promise.all([limiter.close(), mailer.close()]))
      .then(() => store.close())
      .then(() => {
        destination.flushSync();
        process.exit(0);
      });
    setTimeout(() => process.exit(0), 10_000).unref();
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

/** An engine for a region, configured from the environment. */
function createEngine(
  store: Store,
  config: Config,
  logger: Logger,
  region: string,
  onRecorded?: (summary: RecordSummary) => void,
): Engine {
  return new Engine({
    store,
    region,
    clock: systemClock,
    logger,
    concurrency: config.checkConcurrency,
    retentionHours: config.resultRetentionHours,
    policy: { allowPrivate: config.allowPrivateTargets },
    domains: new DomainLookup({ bootstrap: loadBootstrap(config.dataDir) }),
    ...(onRecorded ? { onRecorded } : {}),
  });
}

/** `porchlight worker`: an engine alone, checking from one region, until SIGINT or SIGTERM. */
async function startWorker(config: Config, args: string[]): Promise<number> {
  const { values } = parseArgs({ args, strict: true, options: { region: { type: "string" } } });
  const region = values.region ?? config.region;
  const valid = Region.safeParse(region);
  if (!valid.success) {
    io.err(`--region ${JSON.stringify(region)}: ${valid.error.issues[0]?.message}`);
    return 2;
  }
  const logger = createLogger(config.logLevel);
  const store = await openStore(config);
  const engine = createEngine(store, config, logger, region);
  engine.start();
  const stop = () => {
    logger.info("shutting down");
    void engine
      .stop()
      .then(() => store.close())
      .finally(() => process.exit(0));
    setTimeout(() => process.exit(0), 10_000).unref();
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  return new Promise<number>(() => {});
}

/** The `porchlight` command. Returns an exit code, or never returns while serving. */
export async function main(argv: string[]): Promise<number> {
  if (argv[0] === "help" || argv[0] === "--help" || argv[0] === "-h") {
    io.out(USAGE);
    return 0;
  }
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      io.err(error.message);
      return 1;
    }
    throw error;
  }
  if (argv.length === 0 || argv[0] === "serve") {
    await startServer(config);
    return 0;
  }
  try {
    if (argv[0] === "worker") return await startWorker(config, argv.slice(1));
    if (argv[0] === "rdap" && argv[1] === "refresh") {
      const { values } = parseArgs({ args: argv.slice(2), strict: true, options: { from: { type: "string" } } });
      mkdirSync(config.dataDir, { recursive: true });
      const bootstrap = await refreshBootstrap(config.dataDir, values.from);
      io.out(
        `Saved the RDAP bootstrap (${bootstrap.services.length} services, published ${bootstrap.publication ?? "unknown"}) to ${config.dataDir}`,
      );
      return 0;
    }
  } catch (error) {
    const e = error as { code?: string; message?: string };
    io.err(e.message ?? String(error));
    return e.code?.startsWith("ERR_PARSE_ARGS") ? 2 : 1;
  }
  const store = await openStore(config);
  try {
    return await runCommand(store, argv, io);
  } finally {
    await store.close();
  }
}
