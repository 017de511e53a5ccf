import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { performance } from "node:perf_hooks";
import type { Clock } from "../clock.ts";
import { SESSION_IDLE_MS, SESSION_MAX_MS } from "../contract/session.ts";
import type { Logger } from "../log.ts";
import { DnsCache } from "../net/dns-cache.ts";
import type { CheckPolicy } from "../net/http-check.ts";
import type { Store } from "../store/store.ts";
import { type CheckerRegistry, runCheck } from "./checkers/index.ts";
import { DOMAIN_CACHE, DomainLookup } from "./domain.ts";
import {
  claimDue,
  type DueCheck,
  type Outcome,
  pruneResults,
  type RecordSummary,
  recordDomain,
  recordOutcomes,
  refillMaintenance,
  sweep,
} from "./record.ts";

export interface EngineOptions {
  store: Store;
  /** The region this engine checks from (PORCHLIGHT_REGION). */
  region: string;
  clock: Clock;
  logger: Logger;
  /** Checks running at once, at most. */
  concurrency: number;
  /** Raw results are kept this long. */
  retentionHours: number;
  policy: CheckPolicy;
  /** Domain registrations; null leaves them unknown. */
  domains: DomainLookup | null;
  /** Called after every write, so the API's cached reads of these sites rebuild. */
  onRecorded?: (summary: RecordSummary) => void;
  /** How often to look for due checks, and to write buffered results. */
  pollMs?: number;
  flushMs?: number;
  /** No claim round finished for this long: health() says the engine is not claiming (default ENGINE_TIMERS). */
  stalledAfterMs?: number;
  /** The checker of each kind (default CHECKERS). */
  checkers?: CheckerRegistry;
  /** Opens a sealed credential (a basic-auth password); without it, such a site is not checked. */
  unseal?: (sealed: string) => string;
}

/**
 * What /readyz and /metrics read from an engine. `claiming` is false before start(), after stop(), and when no claim
 * round has finished for stalledAfterMs (a stuck loop, or a store that keeps failing the claim query).
 */
export interface EngineHealth {
  region: string;
  /**
   * `not-started`: neither start() nor a claim round yet. `stopped`: stop() was called. `running` otherwise, stalled
   * or not (see `claiming`).
   */
  state: "not-started" | "running" | "stopped";
  claiming: boolean;
  /** When the last claim round finished (ISO 8601), null before the first. */
  lastClaimAt: string | null;
  /** Seconds since the last claim round finished (since start() before the first); null before start(). */
  secondsSinceClaim: number | null;
  checksRunning: number;
}

/** One finished check, for metrics: its region, result and times, never the site's URL or id. */
export interface CheckObservation {
  region: string;
  /** up: judged up; down: an answer judged down; error: no answer (DNS, connect, TLS, timeout, refused address). */
  result: "up" | "down" | "error";
  /** The whole check, redirects included. */
  seconds: number;
  /** How late the check was claimed: claim time minus due time. */
  lagSeconds: number;
}

/** Timer periods of the engine's background work. */
export const ENGINE_TIMERS = {
  pollMs: 200,
  flushMs: 250,
  sweepMs: 5000,
  pruneMs: 10 * 60_000,
  // Fifty claim intervals: a slow PostgreSQL query or a long GC pause must not take a process out of rotation, a
  // loop that has stopped must.
  stalledAfterMs: 10_000,
} as const;
/** Results written in one transaction, at most; and kept in memory while the store cannot be written, at most. */
const FLUSH_BATCH = 1000;
const MAX_BUFFERED = 20 * FLUSH_BATCH;
/** Domain lookups under way at once, at most (each is bounded in time by DOMAIN_CACHE.timeoutMs). */
const DOMAIN_LOOKUPS = { concurrency: 4 } as const;

/** Figures the benchmark and the logs read. */
export class EngineStats {
  checks = 0;
  transactions = 0;
  rows = 0;
  /** Scheduler lag of the most recent claimed checks (ms): claim time minus due time; at most LAG_SAMPLES. */
  lags: number[] = [];
  private next = 0;

  lag(ms: number): void {
    if (this.lags.length < LAG_SAMPLES) this.lags.push(ms);
    else this.lags[this.next] = ms;
    this.next = (this.next + 1) % LAG_SAMPLES;
  }
}

/** Lags kept for the benchmark and the logs, so a long-running engine's memory stays bounded. */
const LAG_SAMPLES = 100_000;

/**
 * The monitoring engine of one region: claims due checks from the store with a lease, runs them concurrently,
 * buffers their outcomes and writes them in batched transactions (see record.ts), judges stale sites again,
 * prunes old raw results, and looks up domain registrations. Every engine process, in any region, runs this.
 */
export class Engine {
  readonly owner = `${hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`;
  readonly stats = new EngineStats();
  private readonly buffer: Outcome[] = [];
  private readonly running = new Set<Promise<void>>();
  private readonly lookups = new Set<Promise<void>>();
  private claiming: Promise<number> = Promise.resolve(0);
  private readonly timers: NodeJS.Timeout[] = [];
  private flushing: Promise<void> = Promise.resolve();
  /** Set by stop(): no more claims, also from a claim loop already under way. */
  private halted = false;
  private readonly policy: CheckPolicy;
  private startedAt: number | null = null;
  private lastClaimAt: number | null = null;
  private readonly checkListeners = new Set<(observation: CheckObservation) => void>();

  constructor(private readonly o: EngineOptions) {
    this.policy = { resolve: new DnsCache(() => o.clock.now().getTime()).resolve, ...o.policy };
  }

  private now(): number {
    return this.o.clock.now().getTime();
  }

  /** Starts the loops; returns at once. */
  start(): void {
    this.startedAt = this.now();
    const every = (ms: number, task: () => Promise<unknown>, name: string) => {
      let busy = false;
      const timer = setInterval(() => {
        if (busy) return;
        busy = true;
        task()
          .catch((err) => this.o.logger.error({ err, task: name }, "engine task failed"))
          .finally(() => {
            busy = false;
          });
      }, ms);
      this.timers.push(timer);
    };
    every(this.o.pollMs ?? ENGINE_TIMERS.pollMs, () => this.claimAndLaunch(), "claim");
    every(this.o.flushMs ?? ENGINE_TIMERS.flushMs, () => this.flush(), "flush");
    every(ENGINE_TIMERS.sweepMs, () => this.sweep(), "sweep");
    every(ENGINE_TIMERS.pruneMs, () => this.prune(), "prune");
    let last = { checks: 0, transactions: 0 };
    every(
      60_000,
      async () => {
        const { checks, transactions } = this.stats;
        if (checks > last.checks) {
          this.o.logger.info(
            { region: this.o.region, checks: checks - last.checks, transactions: transactions - last.transactions },
            "engine: checks in the last minute",
          );
        }
        last = { checks, transactions };
      },
      "report",
    );
    this.o.logger.info({ region: this.o.region, owner: this.owner }, "engine started");
  }

  /** Whether the claim loop is alive, by the engine's clock (see EngineHealth). */
  health(): EngineHealth {
    const now = this.now();
    const since = this.lastClaimAt ?? this.startedAt;
    const stalledAfterMs = this.o.stalledAfterMs ?? ENGINE_TIMERS.stalledAfterMs;
    return {
      region: this.o.region,
      state: this.halted ? "stopped" : since === null ? "not-started" : "running",
      claiming: !this.halted && since !== null && now - since <= stalledAfterMs,
      lastClaimAt: this.lastClaimAt === null ? null : new Date(this.lastClaimAt).toISOString(),
      secondsSinceClaim: since === null ? null : Math.max(0, now - since) / 1000,
      checksRunning: this.running.size,
    };
  }

  /** Calls `listener` after every check; returns the function that stops it. */
  observeChecks(listener: (observation: CheckObservation) => void): () => void {
    this.checkListeners.add(listener);
    return () => this.checkListeners.delete(listener);
  }

  /**
   * Stops claiming, lets running checks finish, writes what they found, and hands back any lease still held so
   * that another engine can check those sites at once.
   */
  async stop(): Promise<void> {
    this.halted = true;
    for (const t of this.timers) clearInterval(t);
    await this.claiming;
    await Promise.allSettled([...this.running, ...this.lookups]);
    await this.flush();
    await this.o.store.checks
      .releaseLeases(this.owner)
      .catch((err) => this.o.logger.warn({ err }, "releasing leases failed; they expire by themselves"));
  }

  /**
   * One full round, for tests driven by a fake clock: every due check is claimed, run and recorded, then stale
   * sites are judged again.
   */
  async runOnce(): Promise<void> {
    for (;;) {
      const launched = await this.claimAndLaunch();
      await Promise.allSettled([...this.running, ...this.lookups]);
      await this.flush();
      if (launched === 0) break;
    }
    await this.sweep();
  }

  /** Claims as many due checks as there is room for and starts them; returns how many. */
  claimAndLaunch(): Promise<number> {
    const claiming = this.claimRounds();
    this.claiming = claiming.catch(() => 0);
    return claiming;
  }

  private async claimRounds(): Promise<number> {
    let launched = 0;
    for (;;) {
      if (this.halted) return launched;
      const room = this.o.concurrency - this.running.size;
      // A full engine is alive: its running checks end within their timeouts.
      if (room <= 0) return this.claimed(launched);
      const now = this.now();
      const due = await claimDue(this.o.store, { region: this.o.region, owner: this.owner, now, limit: room });
      for (const check of due) {
        const lagMs = Math.max(0, now - check.dueAt);
        this.stats.lag(lagMs);
        const run: Promise<void> = this.check(check, lagMs).finally(() => this.running.delete(run));
        this.running.add(run);
        this.lookUpDomain(check);
      }
      launched += due.length;
      if (due.length < room) return this.claimed(launched);
    }
  }

  private claimed(launched: number): number {
    this.lastClaimAt = this.now();
    return launched;
  }

  private async check(check: DueCheck, lagMs: number): Promise<void> {
    const at = this.now();
    const started = performance.now();
    const result = await runCheck(
      check,
      {
        policy: this.policy,
        region: this.o.region,
        now: () => this.now(),
        ...(this.o.unseal ? { unseal: this.o.unseal } : {}),
      },
      this.o.checkers,
    );
    this.stats.checks++;
    if (this.checkListeners.size > 0) {
      const observation: CheckObservation = {
        region: this.o.region,
        result: result.ok ? "up" : result.responseMs !== null ? "down" : "error",
        seconds: (performance.now() - started) / 1000,
        lagSeconds: lagMs / 1000,
      };
      for (const listener of this.checkListeners) listener(observation);
    }
    this.buffer.push({ check, at, ...result });
    if (this.buffer.length >= FLUSH_BATCH) void this.flush();
  }

  /** Writes the buffered outcomes, one transaction at a time. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      while (this.buffer.length > 0) {
        const batch = this.buffer.splice(0, FLUSH_BATCH);
        let summary: RecordSummary;
        try {
          summary = await recordOutcomes(this.o.store, batch, this.now());
        } catch (err) {
          // Kept for the next flush (a result whose lease has meanwhile passed to another engine is skipped
          // then), but bounded: when the store stays down, the oldest are dropped and their sites checked again.
          this.buffer.unshift(...batch);
          const dropped = this.buffer.splice(0, Math.max(0, this.buffer.length - MAX_BUFFERED));
          this.o.logger.error(
            { err, results: batch.length, dropped: dropped.length },
            "writing check results failed; will retry",
          );
          return;
        }
        this.report(summary);
      }
    });
    return this.flushing;
  }

  async sweep(): Promise<void> {
    this.report(await sweep(this.o.store, this.now()));
  }

  /**
   * Deletes old raw results and dashboard sessions past their limits, and expands the maintenance windows whose
   * occurrences run out soon.
   */
  async prune(): Promise<number> {
    const deleted = await pruneResults(this.o.store, this.now() - this.o.retentionHours * 3_600_000);
    await this.o.store.sessions.deleteExpiredSessions(
      new Date(this.now() - SESSION_IDLE_MS),
      new Date(this.now() - SESSION_MAX_MS),
    );
    if (deleted > 0) this.o.logger.info({ deleted }, "pruned old check results");
    const { expanded, failed } = await refillMaintenance(this.o.store, this.now());
    if (expanded > 0) this.o.logger.info({ expanded }, "expanded maintenance windows further");
    for (const { id, problem } of failed) {
      this.o.logger.warn(
        { window: id, problem },
        "a maintenance window could not be expanded further; tried again in a day",
      );
    }
    return deleted;
  }

  private report(summary: RecordSummary): void {
    if (summary.sites.length === 0) return;
    this.stats.transactions++;
    this.stats.rows += summary.rows;
    this.o.onRecorded?.(summary);
  }

  /**
   * Domain registrations are looked up in the background, at most daily per site (and cached by domain, so one
   * lookup serves every site of a domain and every check until it is stored).
   */
  private lookUpDomain(check: DueCheck): void {
    const domains = this.o.domains;
    if (!domains || this.lookups.size >= DOMAIN_LOOKUPS.concurrency) return;
    if (check.domainCheckedAt && this.now() - Date.parse(check.domainCheckedAt) < DOMAIN_CACHE.ttlMs) return;
    let host: string;
    try {
      host = new URL(check.url).hostname;
    } catch {
      return;
    }
    const domain = DomainLookup.registrable(host);
    if (!domain) return;
    const task: Promise<void> = domains
      .lookup(domain)
      .then((info) => recordDomain(this.o.store, check.siteId, info, this.now()))
      .catch(async (err) => {
        this.o.logger.warn({ domain, err: String(err) }, "domain lookup failed");
        await recordDomain(this.o.store, check.siteId, null, this.now());
      })
      .catch((err) => this.o.logger.error({ err }, "storing a domain lookup failed"))
      .finally(() => this.lookups.delete(task));
    this.lookups.add(task);
  }
}
