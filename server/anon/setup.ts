import type { Clock } from "../clock.ts";
import type { Config } from "../config.ts";
import { DomainLookup, loadBootstrap, type RdapBootstrap } from "../engine/domain.ts";
import type { Logger } from "../log.ts";
import type { Store } from "../store/store.ts";
import { anonDomainLookupOptions, type FetchPolicy } from "./fetcher.ts";
import { AnonRunner } from "./jobs.ts";
import type { Mailer } from "./mail.ts";

/** One fetch of a snapshot (https, then http if it gave no answer): each gets at most this, within the job's bound. */
export const FETCH_TIMEOUT_MS = 8000;

/**
 * The runner of the anonymous jobs as the server runs it: every outbound request under the address policy (no
 * exceptions unless `policy` adds them: tests and the benchmark allow their own loopback targets).
 */
export function createAnonRunner(deps: {
  store: Store;
  config: Config;
  logger: Logger;
  mailer: Mailer;
  clock: Clock;
  policy?: Partial<FetchPolicy>;
  bootstrap?: RdapBootstrap;
  /** The site's ports when not 443 and 80 (tests, the benchmark). */
  ports?: { https: number; http: number };
  pollMs?: number;
}): AnonRunner {
  const { config } = deps;
  const policy: FetchPolicy = {
    timeoutMs: Math.min(FETCH_TIMEOUT_MS, config.snapshot.timeoutMs),
    ...deps.policy,
  };
  const domains = new DomainLookup({
    bootstrap: deps.bootstrap ?? loadBootstrap(config.dataDir),
    ...anonDomainLookupOptions(policy),
  });
  return new AnonRunner({
    store: deps.store,
    clock: deps.clock,
    logger: deps.logger,
    mailer: deps.mailer,
    snapshot: { policy, domains, now: () => deps.clock.now().getTime(), ...(deps.ports ? { ports: deps.ports } : {}) },
    publicUrl: config.publicUrl,
    concurrency: config.snapshot.concurrency,
    timeoutMs: config.snapshot.timeoutMs,
    reportIntervalMs: config.reportIntervalMs,
    ...(deps.pollMs ? { pollMs: deps.pollMs } : {}),
  });
}
