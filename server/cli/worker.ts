import type { Config } from "../config.ts";
import { createLogger } from "../log.ts";
import { openStore } from "../store/store.ts";
import { createEngine } from "./engine.ts";
import { exitOnSignals } from "./shutdown.ts";

/** `porchlight worker`: an engine alone, checking from `region` until SIGINT or SIGTERM. Returns once started. */
export async function work(config: Config, region: string): Promise<void> {
  const logger = createLogger(config.logLevel);
  const store = await openStore(config);
  const engine = createEngine(store, config, logger, region);
  // Before the engine says it started: a signal sent on that line must find the handler.
  exitOnSignals({
    logger,
    timeoutMs: config.shutdownTimeoutMs,
    stop: () => engine.stop().finally(() => store.close()),
  });
  engine.start();
}
