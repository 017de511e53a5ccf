import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { SecretBox } from "../../server/accounts/sealed.ts";
import { NoticeSender } from "../../server/alerts/notice-sender.ts";
import { AlertSender } from "../../server/alerts/sender.ts";
import { createApp } from "../../server/app.ts";
import type { AlertEvent } from "../../server/contract/alerts.ts";
import { Engine } from "../../server/engine/engine.ts";
import type { RecordSummary } from "../../server/engine/record.ts";
import { createLogger } from "../../server/log.ts";
import type { AlertDelivery } from "../../server/store/alerts.ts";
import type { Store } from "../../server/store/store.ts";
import { freePort, type TestClock, testConfig } from "../helpers.ts";

/**
 * The app with a real engine beside it, wired as `porchlight serve` wires them: the engine reports its writes to
 * the app (`recorded`), and the app reads the engine's health and checks (`engine`).
 */
export function appWithEngine(store: Store, clock: TestClock, env: Record<string, string> = {}) {
  let recorded: (summary: RecordSummary) => void = () => {};
  const engine = new Engine({
    store,
    region: "local",
    clock,
    logger: createLogger("silent"),
    concurrency: 50,
    retentionHours: 48,
    policy: { allowPrivate: true, resolve: async () => ["127.0.0.1"] },
    domains: null,
    onRecorded: (summary) => recorded(summary),
  });
  const made = createApp({
    store,
    config: testConfig(env),
    logger: createLogger("silent"),
    clock,
    checkResponses: true,
    engine,
  });
  recorded = made.recorded;
  return { ...made, engine };
}

/**
 * Local check targets: `/ok` answers 200, `/fail` 500, and `refused` is an address where nothing listens (no answer
 * at all). `close()` stops the server.
 */
export async function localTargets() {
  const server: Server = createServer((req, res) => {
    res.statusCode = req.url === "/ok" ? 200 : 500;
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    ok: `${base}/ok`,
    fail: `${base}/fail`,
    refused: `http://127.0.0.1:${await freePort()}/`,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

/**
 * An alert sender as the engine's process runs one, on the test's clock: private receivers allowed (they are local
 * servers), e-mail to nowhere, no jitter (random 0.5); its slots, delivery bound and lease as given.
 */
export function testSender(
  store: Store,
  clock: TestClock,
  options: { concurrency?: number; timeoutMs?: number; leaseMs?: number } = {},
): AlertSender {
  const config = testConfig({ PORCHLIGHT_ALLOW_PRIVATE_TARGETS: "true" });
  return new AlertSender({
    store,
    clock,
    logger: createLogger("silent"),
    secrets: new SecretBox(config.secretKey, config.dataDir),
    delivery: {
      mailer: { send: async () => ({ messageId: "x" }) },
      allowPrivate: true,
      ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    },
    providers: { apis: config.alertApis },
    random: () => 0.5,
    ...(options.concurrency ? { concurrency: options.concurrency } : {}),
    ...(options.leaseMs ? { leaseMs: options.leaseMs } : {}),
  });
}

/**
 * The subscribers' sender as the engine's process runs one, on the test's clock, with e-mail to nowhere: it runs
 * the sweeps (maintenance under way, the engine's held resolutions) and fans notices out.
 */
export function testNoticeSender(store: Store, clock: TestClock): NoticeSender {
  const config = testConfig({ PORCHLIGHT_ALLOW_PRIVATE_TARGETS: "true" });
  const secrets = new SecretBox(config.secretKey, config.dataDir);
  return new NoticeSender({
    store,
    clock,
    logger: createLogger("silent"),
    mailer: { send: async () => ({ messageId: "x" }) },
    token: (nonce) => secrets.token(nonce),
    unseal: (sealed) => secrets.open(sealed),
    publicUrl: "http://status.test",
    delivery: { allowPrivate: true },
    random: () => 0.5,
  });
}

/**
 * Down alerts as the engine writes them to the outbox, one per id, all due `now`: for tests that need many
 * deliveries at once without taking as many sites down.
 */
export function downAlerts(opts: {
  ids: string[];
  now: string;
  workspaceId: string;
  channelId: string;
  site: { id: string; name: string; url: string };
}): AlertDelivery[] {
  return opts.ids.map((id) => {
    const event: AlertEvent = {
      version: 1,
      id,
      type: "site.down",
      occurredAt: opts.now,
      site: opts.site,
      summary: `${opts.site.name} is down.`,
      reason: "HTTP 503",
      downtimeSeconds: null,
      expiry: null,
    };
    return {
      deliveryId: id,
      workspaceId: opts.workspaceId,
      channelId: opts.channelId,
      siteId: opts.site.id,
      event,
      at: opts.now,
    };
  });
}
