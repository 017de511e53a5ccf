import { SecretBox } from "../accounts/sealed.ts";
import type { AlertMailer } from "../alerts/deliver.ts";
import { NoticeSender } from "../alerts/notice-sender.ts";
import { noticeWordsFor } from "../alerts/notice-words.ts";
import { AlertSender } from "../alerts/sender.ts";
import { createMailer } from "../anon/mail.ts";
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
  const secrets = new SecretBox(config.secretKey, config.dataDir);
  return new Engine({
    store,
    unseal: (sealed) => secrets.open(sealed),
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

/**
 * The alerts' sender of a process that runs an engine (serve, worker): it delivers the outbox the engine writes,
 * through `mailer` for e-mail; not started.
 */
export function createSender(store: Store, config: Config, logger: Logger, mailer: AlertMailer): AlertSender {
  return new AlertSender({
    store,
    clock: systemClock,
    logger,
    secrets: new SecretBox(config.secretKey, config.dataDir),
    // A delivery ends well within its claim: at most half of it (the default claim of 60 s leaves a mail its 30 s).
    delivery: { mailer, allowPrivate: config.allowPrivateTargets, timeoutMs: config.alertLeaseMs / 2 },
    providers: { apis: config.alertApis },
    leaseMs: config.alertLeaseMs,
  });
}

/** The two senders of a process that runs an engine; started together, stopped together. */
export interface Senders {
  alerts: AlertSender;
  notices: NoticeSender;
  start(): void;
  /** Stops both (each waits a moment for what it has under way), then closes the notices' own mailer. */
  stop(): Promise<void>;
}

/**
 * The senders of a process that runs an engine (serve, worker), not started: the owners' alerts through `mailer`
 * (the process's, which sign-in links and reports use too) and the subscribers' notices through a mailer of their
 * own. Each mailer keeps its own pool of SMTP connections (SMTP_POOL_CONNECTIONS), so a fan-out to thousands of
 * subscribers holds only the notices' connections and an owner's alert never queues behind it.
 */
export function createSenders(store: Store, config: Config, logger: Logger, mailer: AlertMailer): Senders {
  const noticeMailer = createMailer({
    smtpUrl: config.smtpUrl,
    from: config.mailFrom,
    dataDir: config.dataDir,
    logger,
  });
  const alerts = createSender(store, config, logger, mailer);
  const notices = createNoticeSender(store, config, logger, noticeMailer);
  return {
    alerts,
    notices,
    start() {
      alerts.start();
      notices.start();
    },
    async stop() {
      try {
        await Promise.all([alerts.stop(), notices.stop()]);
      } finally {
        noticeMailer.close();
      }
    },
  };
}

/**
 * Subscriber messages one process has under way at once: its own slots, beside the alert sender's, over the mailer's
 * own pooled connections (bench:subscribers measured 8 against 32: see the benchmarks).
 */
const NOTICE_SLOTS = 32;

/**
 * The subscribers' sender of a process that runs an engine: it fans out the notices incident changes write and
 * delivers them and the sign-ups' confirmations, with slots of its own beside the alerts'; not started.
 */
function createNoticeSender(store: Store, config: Config, logger: Logger, mailer: AlertMailer): NoticeSender {
  const secrets = new SecretBox(config.secretKey, config.dataDir);
  return new NoticeSender({
    store,
    clock: systemClock,
    logger,
    mailer,
    token: (nonce) => secrets.token(nonce),
    unseal: (sealed) => secrets.open(sealed),
    publicUrl: config.publicUrl,
    words: noticeWordsFor(config.pageLocale),
    delivery: { allowPrivate: config.allowPrivateTargets, timeoutMs: config.alertLeaseMs / 2 },
    concurrency: NOTICE_SLOTS,
    leaseMs: config.alertLeaseMs,
  });
}
