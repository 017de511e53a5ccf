/**
 * Delivers the outbox (engine/alert-writes.ts writes it with the state change that caused each alert): claims due rows with a
 * lease, so that many processes share the work and a process that dies loses its claims when they expire, not its
 * alerts; delivers each through its channel's provider; records every attempt; retries a failure with backoff and
 * jitter (backoff.ts) until the delivery window closes. At least once: a receiver that acknowledged an event whose
 * acknowledgement was not recorded (the process died in between) gets it again, with the same event id
 * (X-Porchlight-Event-Id, PagerDuty's dedup key, the e-mail's X-Porchlight-Event-Id) to recognise it by.
 */
import { randomBytes } from "node:crypto";
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
  /** Opens a channel's sealed settings (accounts/sealed.ts's SecretBox, passed in by the entry that runs it). */
  secrets: { open(sealed: string): string };
  delivery: DeliveryDeps;
  providers: ProviderContext;
  /** Deliveries under way at once (a slow receiver holds one of them, never the others nor the engine's checks). */
  concurrency?: number;
  /** How long a claim holds: longer than a delivery's time bound. */
  leaseMs?: number;
  /** Jitter's source; tests fix it. */
  random?: () => number;
}

const iso = (ms: number) => new Date(ms).toISOString();
/** How long a stop waits for the deliveries under way. */
const STOP_WAIT_MS = 3000;
/** How long finished deliveries (and their attempts) stay in the log, alerts' and subscribers' alike; pruned hourly. */
export const KEEP_LOG_MS = 30 * 86_400_000;
export const PRUNE_EVERY_MS = 3_600_000;

export class AlertSender {
  readonly owner = `sender_${randomBytes(6).toString("hex")}`;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #stopped = true;
  #prunedAt = Number.NEGATIVE_INFINITY;
  /** Deliveries under way. */
  readonly #inFlight = new Set<Promise<void>>();
  /** Deliveries under way by channel: one channel holds at most half of the slots. */
  readonly #byChannel = new Map<string, number>();
  /** The claim under way, if any: one at a time; a call meanwhile asks for another pass after it. */
  #filling: Promise<void> | undefined;
  #again = false;

  constructor(private readonly deps: SenderDeps) {}

  get #slots(): number {
    return this.deps.concurrency ?? 16;
  }

  /**
   * Delivers what is due until stop(): every free slot takes the next due delivery as soon as a quarter of the slots
   * are free (claims come in batches, each a short write), and every `everyMs` besides. A slow or hanging receiver
   * holds its slot until its delivery's time bound, and one channel at most half of the slots, so the other
   * channels' deliveries go on beside it.
   */
  start(everyMs = 1000): void {
    this.#stopped = false;
    const loop = () => {
      if (this.#stopped) return;
      this.#fill();
      this.#timer = setTimeout(loop, everyMs);
    };
    loop();
  }

  /** Stops claiming; waits a moment for the deliveries under way, whose claims expire if they do not finish. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    // A delivery may take a mail's 30 s; a stop does not wait that long: what it does not finish is claimed again when
    // its lease expires (at least once).
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      Promise.allSettled([this.#filling, ...this.#inFlight]),
      new Promise((resolve) => (timer = setTimeout(resolve, STOP_WAIT_MS))),
    ]);
    clearTimeout(timer);
  }

  /** Claims due deliveries into the free slots, and starts them. */
  #fill(): void {
    if (this.#filling) {
      this.#again = true;
      return;
    }
    this.#filling = this.#claimIntoSlots()
      .catch((error: unknown) => {
        this.deps.logger.error({ err: error }, "claiming alert deliveries failed");
      })
      .finally(() => {
        this.#filling = undefined;
        if (this.#again && !this.#stopped) {
          this.#again = false;
          this.#fill();
        }
      });
  }

  async #claimIntoSlots(): Promise<void> {
    while (!this.#stopped) {
      const free = this.#slots - this.#inFlight.size;
      if (free <= 0) return;
      const claimed = await this.#claim(free);
      for (const row of claimed) {
        const delivery: Promise<void> = this.#deliverOrHandBack(row).finally(() => {
          this.#inFlight.delete(delivery);
          if (!this.#stopped && this.#slots - this.#inFlight.size >= Math.max(1, this.#slots / 4)) this.#fill();
        });
        this.#inFlight.add(delivery);
      }
      if (claimed.length < free) return;
    }
  }

  /**
   * One round, as tests drive it: claims as many due deliveries as may run at once, delivers them, and returns how
   * many it claimed.
   */
  async tick(): Promise<number> {
    const claimed = await this.#claim(this.#slots);
    await Promise.all(claimed.map((row) => this.#deliverOrHandBack(row)));
    return claimed.length;
  }

  /** Up to `limit` due deliveries, claimed with a lease; once an hour, the log pruned first. */
  async #claim(limit: number): Promise<OutboxClaim[]> {
    const { store, clock } = this.deps;
    const now = clock.now().getTime();
    if (now - this.#prunedAt >= PRUNE_EVERY_MS) {
      this.#prunedAt = now;
      await store.alerts.prune(iso(now - KEEP_LOG_MS));
    }
    // A read first: the claim's transaction takes SQLite's write lock, which the engine needs.
    if (!(await store.alerts.anyDue(iso(now)))) return [];
    return store.alerts.claimDue({
      owner: this.owner,
      now: iso(now),
      leaseUntil: iso(now + (this.deps.leaseMs ?? 60_000)),
      limit,
      perChannel: Math.max(1, Math.ceil(this.#slots / 2)),
      underWay: this.#byChannel,
    });
  }

  /** Delivers a claim; one whose outcome the store could not record is handed back for later, not left leased. */
  async #deliverOrHandBack(row: OutboxClaim): Promise<void> {
    const { store, clock, logger } = this.deps;
    const channel = row.channel_id;
    this.#byChannel.set(channel, (this.#byChannel.get(channel) ?? 0) + 1);
    try {
      await this.#deliverOne(row).catch(async (error: unknown) => {
        logger.error({ err: error, outboxId: row.id }, "an alert's delivery could not be recorded");
        const later = iso(clock.now().getTime() + retryDelayMs(row.attempts + 1, this.#random()));
        await store.alerts.release(row.id, this.owner, later).catch(() => {});
      });
    } finally {
      const left = (this.#byChannel.get(channel) ?? 1) - 1;
      if (left > 0) this.#byChannel.set(channel, left);
      else this.#byChannel.delete(channel);
    }
  }

  #random(): number {
    return (this.deps.random ?? Math.random)();
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
        // Not final: another process, with the key the settings were sealed under, may deliver it.
        result = {
          ok: false,
          statusCode: null,
          error:
            "this process cannot open the channel's settings: its PORCHLIGHT_SECRET_KEY differs from the one they were sealed with",
          responseTimeMs: 0,
          response: "",
        };
        this.deps.logger.error({ channelId: row.channel_id }, result.error as string);
      } else {
        const provider = PROVIDERS[row.channel_type as ChannelType] as (typeof PROVIDERS)["webhook"];
        const event = JSON.parse(row.event) as AlertEvent;
        const outbound = provider.format(event, config as ChannelConfig["webhook"], providers, clock.now().getTime());
        result = await deliver(outbound, this.deps.delivery);
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
      nextAttemptAt: state === "pending" ? iso(at + retryDelayMs(attempts, this.#random())) : null,
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
