/**
 * Delivers the outbox (events.ts writes it with the state change that caused each alert): claims due rows with a
 * lease, so that many processes share the work and a process that dies loses its claims when they expire, not its
 * alerts; delivers each through its channel's provider; records every attempt; retries a failure with backoff and
 * jitter (backoff.ts) until the delivery window closes. At least once: a receiver that acknowledged an event whose
 * acknowledgement was not recorded (the process died in between) gets it again, with the same event id
 * (X-Porchlight-Event-Id, PagerDuty's dedup key, the e-mail's X-Porchlight-Event-Id) to recognise it by.
 */
import { randomBytes } from "node:crypto";
import type { SecretBox } from "../accounts/sealed.ts";
import type { Clock } from "../clock.ts";
import type { AlertEvent, ChannelConfig, ChannelType, DeliveryResult } from "../contract/alerts.ts";
import type { Logger } from "../log.ts";
import type { OutboxClaim } from "../store/alerts.ts";
import type { Store } from "../store/store.ts";
import { DELIVERY_WINDOW_MS, retryDelayMs } from "./backoff.ts";
import { type DeliveryDeps, deliver } from "./deliver.ts";
import type { ProviderContext } from "./outbound.ts";
import { PROVIDERS } from "./providers/index.ts";

export interface SenderDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
  secrets: SecretBox;
  delivery: DeliveryDeps;
  providers: ProviderContext;
  /** Deliveries under way at once (a slow receiver holds one of them, never the engine's checks). */
  concurrency?: number;
  /** How long a claim holds: longer than a delivery's time bound. */
  leaseMs?: number;
  /** Jitter's source; tests fix it. */
  random?: () => number;
}

const iso = (ms: number) => new Date(ms).toISOString();

export class AlertSender {
  readonly owner = `sender_${randomBytes(6).toString("hex")}`;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #round: Promise<number> | undefined;
  #stopped = true;

  constructor(private readonly deps: SenderDeps) {}

  /** Delivers what is due every `everyMs`, until stop(). */
  start(everyMs = 1000): void {
    this.#stopped = false;
    const loop = () => {
      if (this.#stopped) return;
      this.#round = this.tick()
        .catch((error: unknown) => {
          this.deps.logger.error({ err: error }, "alert delivery round failed");
          return 0;
        })
        .finally(() => {
          if (!this.#stopped) this.#timer = setTimeout(loop, everyMs);
        });
    };
    loop();
  }

  /** Stops after the round under way; its claims that did not finish expire. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#round;
  }

  /** One round: claims the due deliveries (as many as may run at once) and delivers them. Returns how many. */
  async tick(): Promise<number> {
    const { store, clock } = this.deps;
    const concurrency = this.deps.concurrency ?? 16;
    const now = clock.now().getTime();
    const claimed = await store.alerts.claimDue({
      owner: this.owner,
      now: iso(now),
      leaseUntil: iso(now + (this.deps.leaseMs ?? 60_000)),
      limit: concurrency * 4,
    });
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < claimed.length; i = next++) await this.#deliverOne(claimed[i] as OutboxClaim);
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, claimed.length) }, worker));
    return claimed.length;
  }

  async #deliverOne(row: OutboxClaim): Promise<void> {
    const { store, clock, secrets, providers } = this.deps;
    let result: DeliveryResult;
    let final = false;
    const started = clock.now().getTime();
    if (!row.channel_enabled) {
      result = { ok: false, statusCode: null, error: "the channel is turned off", responseTimeMs: 0, response: "" };
      final = true;
    } else {
      let config: ChannelConfig[ChannelType] | null = null;
      try {
        config = JSON.parse(secrets.open(row.channel_config)) as ChannelConfig[ChannelType];
      } catch {
        config = null;
      }
      if (config === null) {
        result = {
          ok: false,
          statusCode: null,
          error: "the channel's settings cannot be opened (was PORCHLIGHT_SECRET_KEY changed?)",
          responseTimeMs: 0,
          response: "",
        };
        final = true;
      } else {
        const provider = PROVIDERS[row.channel_type as ChannelType] as (typeof PROVIDERS)["webhook"];
        const event = JSON.parse(row.event) as AlertEvent;
        result = await deliver(
          provider.format(event, config as ChannelConfig["webhook"], providers),
          this.deps.delivery,
        );
      }
    }
    const at = clock.now().getTime();
    const attempts = row.attempts + 1;
    const expired = at - Date.parse(row.created_at) >= DELIVERY_WINDOW_MS;
    const state = result.ok ? "delivered" : final || expired ? "failed" : "pending";
    const recorded = await store.alerts.finishDelivery({
      id: row.id,
      owner: this.owner,
      state,
      attempts,
      nextAttemptAt: state === "pending" ? iso(at + retryDelayMs(attempts, (this.deps.random ?? Math.random)())) : null,
      at: iso(at),
      result,
      startedAt: iso(started),
    });
    if (!recorded) {
      this.deps.logger.warn({ outboxId: row.id }, "an alert's claim expired before its delivery was recorded");
    } else if (state === "failed") {
      this.deps.logger.warn(
        { outboxId: row.id, channelId: row.channel_id, error: result.error },
        "an alert was not delivered; giving up",
      );
    }
  }
}
