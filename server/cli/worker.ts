import { createMailer } from "../anon/mail.ts";
import type { Config } from "../config.ts";
import { createProcessLog } from "../log.ts";
import { openStore } from "../store/store.ts";
import { createEngine, createSenders } from "./engine.ts";
import { exitOnSignals } from "./shutdown.ts";

/** `porchlight worker`: an engine alone, checking from `region` until SIGINT or SIGTERM. Returns once started. */
export async function work(config: Config, region: string): Promise<void> {
  const { output, logger } = createProcessLog(config);
  const store = await openStore(config);
  const engine = createEngine(store, config, logger, region);
  // The worker delivers alerts too: every engine's process shares the outbox.
  const mailer = createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom, dataDir: config.dataDir, logger });
  const senders = createSenders(store, config, logger, mailer);
  // Before the engine says it started: a signal sent on that line must find the handler.
  exitOnSignals({
    logger,
    timeoutMs: config.shutdownTimeoutMs,
    output,
    stop: () =>
      Promise.all([engine.stop(), senders.stop()]).finally(() => {
        mailer.close();
        return store.close();
      }),
  });
  engine.start();
  senders.start();
}
