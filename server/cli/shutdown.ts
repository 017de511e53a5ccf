import type { Logger, LogOutput } from "../log.ts";

export interface ShutdownOptions {
  logger: Logger;
  /** How long `stop` may take; past it the process exits anyway, with 1. */
  timeoutMs: number;
  /** Stops the process's work; resolves once everything it holds is closed. */
  stop: () => Promise<unknown>;
}

/**
 * Runs `stop` against the deadline and answers the exit code: 0 when it finished in time, 1 (logged as a forced
 * exit) when it failed or was still running at `timeoutMs`.
 */
export async function shutdown({ logger, timeoutMs, stop }: ShutdownOptions): Promise<0 | 1> {
  let timer: NodeJS.Timeout | undefined;
  // Not unref'd: a stop that hangs on nothing the event loop waits for must still end in the forced exit.
  const deadline = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), timeoutMs);
  });
  try {
    const outcome = await Promise.race([stop().then(() => "stopped" as const), deadline]);
    if (outcome === "late") {
      logger.error({ timeoutMs }, "shutdown did not finish in time; forced exit");
      return 1;
    }
    logger.info("stopped");
    return 0;
  } catch (err) {
    logger.error({ err }, "shutdown failed; forced exit");
    return 1;
  } finally {
    clearTimeout(timer);
  }
}

/** How long the exit waits for log lines still on their way out, past the deadline at most. */
export const LOG_DRAIN_MS = 500;

/**
 * Makes SIGINT and SIGTERM stop the process through `shutdown`, then exit with its code. A second signal while
 * stopping exits at once, with 1. Before each exit the log lines still buffered get until the deadline (at least
 * LOG_DRAIN_MS) to leave, and are dropped after that: a log reader that does not read never holds the exit.
 */
export function exitOnSignals(options: ShutdownOptions & { output?: Pick<LogOutput, "drain"> }): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      options.logger.error({ signal }, "second signal while shutting down; forced exit");
      process.exit(1);
    }
    stopping = true;
    const deadline = Date.now() + options.timeoutMs;
    options.logger.info({ signal }, "shutting down");
    void shutdown(options).then(async (code) => {
      await options.output?.drain(Math.max(LOG_DRAIN_MS, deadline - Date.now()));
      process.exit(code);
    });
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
}
