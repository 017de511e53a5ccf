import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { bootstrapOwner } from "../accounts/accounts.ts";
import { linkUrl } from "../accounts/sign-in.ts";
import { createAnonRunner } from "../anon/setup.ts";
import { createApp } from "../app.ts";
import { systemClock } from "../clock.ts";
import type { Config } from "../config.ts";
import { RESERVED_SLUGS } from "../contract/status-page.ts";
import type { RecordSummary } from "../engine/record.ts";
import { createLimiter } from "../http/rate-limit.ts";
import { createProcessLog } from "../log.ts";
import { openStore } from "../store/store.ts";
import { createEngine, createSenders } from "./engine.ts";
import { firstStartMessage, listeningUrl, startLine } from "./first-start.ts";
import { Refusal } from "./refusal.ts";
import { exitOnSignals } from "./shutdown.ts";

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
}

/**
 * `porchlight serve`: the API, the hosted pages, the anonymous utilities and (unless PORCHLIGHT_ENGINE=off) an
 * engine, until SIGINT or SIGTERM. Returns once it listens; on an empty database it then creates the owner and
 * prints the first token, after the "porchlight listening" line and the start line (startLine). Throws a Refusal when it cannot listen.
 */
export async function serve(config: Config): Promise<void> {
  // Never blocking: lines a reader does not take are dropped, not waited for (log.ts).
  const { output, logger } = createProcessLog(config);
  const store = await openStore(config);
  // Counters in PostgreSQL when processes share one, so that a limit holds across all of them.
  const limiter = await createLimiter({ databaseUrl: config.databaseUrl });
  // The engine reports its writes to the app (read models); the app reads the engine's health (/readyz) and its
  // checks (/metrics). Made before the server listens, started after.
  let recorded: (summary: RecordSummary) => void = () => {};
  const engine = config.engine ? createEngine(store, config, logger, config.region, (s) => recorded(s)) : null;
  const app = createApp({ store, config, logger, limiter, ...(engine ? { engine } : {}) });
  recorded = app.recorded;
  const { listener, fastPathCounts, mailer } = app;
  const server = createServer(listener);
  try {
    await listen(server, config.port, config.host);
  } catch (error) {
    await Promise.all([limiter.close(), mailer.close()]);
    await store.close();
    await output.drain(1000);
    throw new Refusal(`Porchlight cannot listen on ${config.host} port ${config.port}: ${(error as Error).message}`);
  }
  const anon = createAnonRunner({ store, config, logger, mailer, clock: systemClock });
  anon.start();
  logger.info({ mail: mailer.mode }, "anonymous utilities ready");
  // A page made before a slug became reserved (dashboard, for one) is hidden behind the route that took it.
  for (const { slug } of await store.views.pageSlugs()) {
    if (RESERVED_SLUGS.has(slug)) {
      logger.warn(
        { slug },
        "a status page's slug is now reserved and its hosted page unreachable: give it another slug",
      );
    }
  }
  engine?.start();
  // Where the engine runs, its alerts go out and its pages' subscribers are told.
  const senders = engine ? createSenders(store, config, logger, mailer) : null;
  senders?.start();
  let countedSince = Date.now();
  const logCounts = () => {
    const counts = fastPathCounts.take();
    const seconds = Math.round((Date.now() - countedSince) / 1000);
    countedSince = Date.now();
    if (Object.keys(counts).length > 0) logger.info({ counts, seconds }, "reads served from memory");
  };
  setInterval(logCounts, 60_000).unref();
  exitOnSignals({
    logger,
    timeoutMs: config.shutdownTimeoutMs,
    output,
    stop: async () => {
      logCounts();
      // The engine stops claiming at once and finishes its running checks while the server drains its requests.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.all([closed, engine?.stop(), anon.stop(), senders?.stop()]);
      // Push calls answered while draining are written before the store closes.
      await Promise.all([limiter.close(), mailer.close(), app.pushInbox.close()]);
      await store.close();
    },
  });
  // Only once listening: a server that cannot listen must not have made a token nobody saw.
  const first = await bootstrapOwner(store, config.ownerEmail, new Date());
  const { port } = server.address() as AddressInfo;
  logger.info({ port, host: config.host, store: store.description }, "porchlight listening");
  // A server on a port the system chose (0) is reached where it listens; otherwise where the owner said it is.
  const base = config.port === 0 ? listeningUrl(config.host, port) : config.publicUrl;
  logger.info(startLine(base));
  if (first) {
    // Through the log stream, so that it lands after the lines above whatever the buffering, as the last thing a
    // starting server prints. Shown this once: the store keeps only the token's hash.
    output.write(
      firstStartMessage({
        ownerEmail: config.ownerEmail,
        token: first.token,
        setupUrl: linkUrl(base, "setup", first.setupToken),
        host: config.host,
        port,
      }),
    );
  }
}
