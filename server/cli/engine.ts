import { systemClock } from "../clock.ts";
import type { Config } from "../config.ts";
import { DomainLookup, loadBootstrap } from "../engine/domain.ts";
import { Engine } from "../engine/engine.ts";
import type { RecordSummary } from "../engine/record.ts";
import type { Logger } from "../log.ts";
import type { Store } from "../store/store.ts";

/** An engine checking from `region`, configured from the configuration; not started. */
export function createEngine(
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
