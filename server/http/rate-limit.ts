import type { Context, MiddlewareHandler } from "hono";
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes } from "rate-limiter-flexible";
import { hashToken } from "../accounts/secrets.ts";
import { type CounterPool, counterPool, deleteExpiredCounters } from "../store/rate-limits.ts";
import { ApiError } from "./errors.ts";

/**
 * One limit: at most `points` per key in a fixed window of `windowSeconds`, counted from the key's first point.
 * `name` keeps the rule's counters apart from every other rule's and names the policy in the RateLimit headers,
 * so it is lowercase letters, digits and dashes (at most 32), e.g. "snapshot", "report", "poll", "api".
 */
export interface LimitRule {
  name: string;
  points: number;
  windowSeconds: number;
}

/** A key's standing under a rule, after a consume or a peek. */
export interface LimitState {
  rule: LimitRule;
  /** consume: whether this request is within the limit. peek: whether the next point would be. */
  allowed: boolean;
  /** Points left in the current window, 0 when refused. */
  remaining: number;
  /** Whole seconds (rounded up) until the window ends and its points are free again; 0 when nothing is counted. */
  resetSeconds: number;
}

export interface Limiter {
  /**
   * Counts `points` (default 1, a positive integer) against `key` under `rule`. Over the limit answers
   * `allowed: false`; it does not throw for that. Refused requests still count, so a client that keeps knocking
   * stays refused until the window ends.
   */
  consume(rule: LimitRule, key: string, points?: number): Promise<LimitState>;
  /** The key's standing without counting anything. */
  peek(rule: LimitRule, key: string): Promise<LimitState>;
  /**
   * Gives back `points` (default 1) counted against `key` under `rule`: for an attempt that was counted before it
   * was judged and turned out not to be a failure (a right password, or one never checked). A key refused in
   * memory stays refused until its window ends.
   */
  refund(rule: LimitRule, key: string, points?: number): Promise<void>;
  /** Ends the sweep timer and, when the limiter created it, its connection pool. */
  close(): Promise<void>;
}

export interface LimiterOptions {
  /** PostgreSQL URL: counters shared by every process on the database. Without it (or a pool), in memory. */
  databaseUrl?: string;
  /** An existing pool to use instead of a URL; the caller owns it and ends it. */
  pool?: CounterPool;
  /** Default porchlight_rate_limits. */
  tableName?: string;
}

export const RATE_LIMIT_TABLE = "porchlight_rate_limits";

const RULE_NAME = /^[a-z][a-z0-9-]{0,31}$/;
const TABLE_NAME = /^[a-z_][a-z0-9_]{0,62}$/;
/** The store's key column is varchar(255); longer caller keys are replaced by their digest. */
const MAX_PLAIN_KEY = 128;
/** Errors two processes get when both run CREATE TABLE IF NOT EXISTS on a database that had no table. */
const CREATE_RACE_CODES = new Set(["23505", "42P07", "42710"]);
const CREATE_ATTEMPTS = 5;
const SWEEP_EVERY_MS = 5 * 60_000;
/** Rows are kept an hour past their window, as the library's own sweep does, then deleted. */
const SWEEP_GRACE_MS = 60 * 60_000;

type Backend = RateLimiterMemory | RateLimiterPostgres;

function checkRule(rule: LimitRule): void {
  if (!RULE_NAME.test(rule.name)) throw new TypeError(`rate limit rule name "${rule.name}" must match ${RULE_NAME}`);
  if (!Number.isInteger(rule.points) || rule.points < 1) {
    throw new TypeError(`rate limit rule "${rule.name}": points must be a positive integer`);
  }
  if (!Number.isInteger(rule.windowSeconds) || rule.windowSeconds < 1) {
    throw new TypeError(`rate limit rule "${rule.name}": windowSeconds must be a positive integer`);
  }
}

function storedKey(key: string): string {
  return key.length <= MAX_PLAIN_KEY ? key : `sha256:${hashToken(key)}`;
}

function resetSecondsOf(rule: LimitRule, res: RateLimiterRes): number {
  if (!(res.msBeforeNext > 0)) return 0;
  // Another process's clock may run ahead; a window never lasts longer than the rule says.
  return Math.min(rule.windowSeconds, Math.ceil(res.msBeforeNext / 1000));
}

function stateOf(rule: LimitRule, res: RateLimiterRes, allowed: boolean): LimitState {
  // A key blocked in memory (see inMemoryBlockOnConsumed) is refused with consumedPoints 0: a refusal is 0 left.
  const remaining = allowed ? Math.max(0, rule.points - res.consumedPoints) : 0;
  return { rule, allowed, remaining, resetSeconds: resetSecondsOf(rule, res) };
}

/**
 * Creates the counters' table the way the library does, waiting for its ready callback. PostgreSQL's CREATE
 * TABLE IF NOT EXISTS is not safe against a concurrent creator: the loser fails on the catalog (23505 on pg_type,
 * 42710 "type already exists", or 42P07) once the winner commits. The table then exists, so the next try passes.
 */
async function createTable(pool: CounterPool, tableName: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await new Promise<void>((resolve, reject) => {
        new RateLimiterPostgres(
          { storeClient: pool, storeType: "pool", tableName, points: 1, duration: 1, clearExpiredByTimeout: false },
          (error) => (error ? reject(error) : resolve()),
        );
      });
      return;
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (attempt >= CREATE_ATTEMPTS || typeof code !== "string" || !CREATE_RACE_CODES.has(code)) throw error;
    }
  }
}

/**
 * The limiter for the anonymous utilities and the authenticated API (rate-limiter-flexible, fixed windows).
 *
 * Without a database the counters live in this process's memory (SQLite deployments run one process). With
 * PostgreSQL they live in one table (`porchlight_rate_limits`), so several processes on one database share them;
 * the table is created here, before the limiter is returned, and creating it from several processes at once is
 * safe. If the database is unreachable at start, this rejects: the deployment is broken and should say so.
 *
 * At run time a failing database fails open, to per-process limits: every rule has a memory insurance limiter
 * with the same points and window, which answers while PostgreSQL does not (connections time out after 2 s). A
 * database hiccup then neither turns every request into a 500 nor lifts the limits; a client spreading requests
 * over N processes gets at most N times its limit until the database is back. Failing closed would make the
 * monitoring service's own outage page and API unusable whenever the counters' store is.
 */
export async function createLimiter(options: LimiterOptions = {}): Promise<Limiter> {
  const tableName = options.tableName ?? RATE_LIMIT_TABLE;
  if (!TABLE_NAME.test(tableName)) throw new TypeError(`rate limit table name "${tableName}" must match ${TABLE_NAME}`);
  const owned = !options.pool && options.databaseUrl ? counterPool(options.databaseUrl) : undefined;
  const pool = options.pool ?? owned;
  if (!pool) return createMemoryLimiter();
  try {
    await createTable(pool, tableName);
  } catch (error) {
    await owned?.end().catch(() => {});
    throw error;
  }
  const sweep = setInterval(() => {
    deleteExpiredCounters(pool, tableName, Date.now() - SWEEP_GRACE_MS).catch(() => {
      // Not critical: the next sweep deletes what this one could not.
    });
  }, SWEEP_EVERY_MS);
  sweep.unref();
  return limiterOver({ pool, tableName }, async () => {
    clearInterval(sweep);
    await owned?.end();
  });
}

/** The in-memory limiter (createLimiter's without a database), ready at once. */
export function createMemoryLimiter(): Limiter {
  return limiterOver(undefined, async () => {});
}

/** The limiter over PostgreSQL's table when `store` is given, else over this process's memory. */
function limiterOver(store: { pool: CounterPool; tableName: string } | undefined, close: () => Promise<void>): Limiter {
  const backends = new Map<string, { rule: LimitRule; backend: Backend }>();
  const backendFor = (rule: LimitRule): Backend => {
    const known = backends.get(rule.name);
    if (known) {
      if (known.rule.points !== rule.points || known.rule.windowSeconds !== rule.windowSeconds) {
        throw new TypeError(`rate limit rule "${rule.name}" is already defined with other points or window`);
      }
      return known.backend;
    }
    checkRule(rule);
    const base = { keyPrefix: rule.name, points: rule.points, duration: rule.windowSeconds };
    const backend = store
      ? new RateLimiterPostgres({
          ...base,
          storeClient: store.pool,
          storeType: "pool",
          tableName: store.tableName,
          tableCreated: true,
          clearExpiredByTimeout: false,
          insuranceLimiter: new RateLimiterMemory(base),
          // A key already over its limit is refused from memory until its window ends, so a client hammering
          // the endpoint costs this process no database round trip per request.
          inMemoryBlockOnConsumed: rule.points + 1,
        })
      : new RateLimiterMemory(base);
    backends.set(rule.name, { rule: { ...rule }, backend });
    return backend;
  };

  return {
    async consume(rule, key, points = 1) {
      if (!Number.isInteger(points) || points < 1) throw new TypeError("points must be a positive integer");
      const backend = backendFor(rule);
      try {
        return stateOf(rule, await backend.consume(storedKey(key), points), true);
      } catch (rejection) {
        // The library refuses with a RateLimiterRes; anything else is a real error (the insurance limiter
        // already answered for database errors).
        if (rejection instanceof RateLimiterRes) return stateOf(rule, rejection, false);
        throw rejection;
      }
    },
    async peek(rule, key) {
      const res = await backendFor(rule).get(storedKey(key));
      if (!res) return { rule, allowed: true, remaining: rule.points, resetSeconds: 0 };
      return stateOf(rule, res, res.consumedPoints < rule.points);
    },
    async refund(rule, key, points = 1) {
      if (!Number.isInteger(points) || points < 1) throw new TypeError("points must be a positive integer");
      await backendFor(rule).reward(storedKey(key), points);
    },
    close,
  };
}

/**
 * The RateLimit-Policy and RateLimit fields of the IETF httpapi draft "RateLimit header fields for HTTP"
 * (draft-ietf-httpapi-ratelimit-headers-11, structured-field lists of named policies:
 * https://datatracker.ietf.org/doc/draft-ietf-httpapi-ratelimit-headers/), e.g.
 * `RateLimit-Policy: "snapshot";q=10;w=60` and `RateLimit: "snapshot";r=7;t=42`.
 */
export function limitHeaders(state: LimitState): Record<string, string> {
  const { name, points, windowSeconds } = state.rule;
  return {
    "RateLimit-Policy": `"${name}";q=${points};w=${windowSeconds}`,
    RateLimit: `"${name}";r=${state.remaining};t=${state.resetSeconds}`,
  };
}

/** The 429 answer for a refused state: the envelope's "Rate Limited", the RateLimit headers and Retry-After (≥ 1 s). */
export function rateLimited(state: LimitState): ApiError {
  return new ApiError(429, "rate_limited", "Rate Limited", undefined, {
    ...limitHeaders(state),
    "Retry-After": String(Math.max(1, state.resetSeconds)),
  });
}

/** Counts one point against `key` under `rule`; throws rateLimited() when refused, else answers the state. */
async function admit(limiter: Limiter, rule: LimitRule, key: string): Promise<LimitState> {
  const state = await limiter.consume(rule, key);
  if (!state.allowed) throw rateLimited(state);
  return state;
}

/**
 * Counts one point against `key` under `rule` for a handler: over the limit it throws rateLimited(), for the
 * app's error handler to answer; otherwise it sets the RateLimit headers on the response the handler will make.
 */
export async function enforceLimit(c: Context, limiter: Limiter, rule: LimitRule, key: string): Promise<LimitState> {
  const state = await admit(limiter, rule, key);
  for (const [name, value] of Object.entries(limitHeaders(state))) c.header(name, value);
  return state;
}

/**
 * Middleware counting one point per request under `rule` for the key `keyOf` names (a client key from
 * clientKey(clientAddress(c, proxies)), or a token id). Over the limit it throws rateLimited(), for the app's
 * error handler to answer; otherwise the response carries the RateLimit headers. Several of these on one route
 * add their policies to the same fields, as the draft's lists allow.
 */
export function rateLimit(
  limiter: Limiter,
  rule: LimitRule,
  keyOf: (c: Context) => string | Promise<string>,
): MiddlewareHandler {
  checkRule(rule);
  return async (c, next) => {
    const state = await admit(limiter, rule, await keyOf(c));
    await next();
    for (const [name, value] of Object.entries(limitHeaders(state))) c.res.headers.append(name, value);
  };
}

/** How much costly work (a status-page password's scrypt) one process runs, in total and per key (a page). */
export interface WorkBudgetOptions {
  /** Running at once in this process, at most. */
  inFlight: number;
  /** Started a second in this process, at most (token buckets hold BURST_SECONDS' worth). */
  perSecond: number;
  /** Running at once for one key, at most. */
  keyInFlight: number;
  /** Started a second for one key, at most. */
  keyPerSecond: number;
  /** Requests one key may have waiting for a turn, and as many again asking first; more are refused at once. */
  keyQueue: number;
  /** Requests all keys together may have waiting; more are refused at once. */
  queue: number;
  /** A request whose turn is not expected within this time (from the rates) is refused at once. */
  maxWaitMs: number;
  /** How long a key is suspect after a turn whose work failed (a wrong password). */
  suspectMs: number;
  /** Milliseconds, never running backwards by much (default performance.now). */
  now?: () => number;
}

/**
 * A request's turn. Granted: do the work, then call done() once, saying whether it failed (a wrong password
 * makes its key suspect). Refused: nothing was spent; ask again after retryAfterSeconds
 * (asking to go first, see WorkBudget).
 */
export type Turn = { granted: true; done: (failed: boolean) => void } | { granted: false; retryAfterSeconds: number };

/** Every token bucket holds this many seconds' worth of its rate (at least one token). */
const BURST_SECONDS = 2;

/** A token bucket refilled continuously at `perSecond`. */
class Bucket {
  private readonly capacity: number;
  private readonly perMs: number;
  private tokens: number;
  private at: number;

  constructor(perSecond: number, now: number) {
    this.capacity = Math.max(1, perSecond * BURST_SECONDS);
    this.perMs = perSecond / 1000;
    this.tokens = this.capacity;
    this.at = now;
  }

  level(now: number): number {
    // A clock set back does not take tokens away.
    this.tokens = Math.min(this.capacity, this.tokens + Math.max(0, now - this.at) * this.perMs);
    this.at = now;
    return this.tokens;
  }

  take(): void {
    this.tokens -= 1;
  }

  full(now: number): boolean {
    return this.level(now) >= this.capacity;
  }

  /** Milliseconds until `n` tokens in all (those there now included) will have been available. */
  msUntil(n: number, now: number): number {
    return Math.max(0, (n - this.level(now)) / this.perMs);
  }
}

/** A class of work: all of it, or the suspect keys' share. */
interface Lane {
  running: number;
  inFlight: number;
  bucket: Bucket;
}

interface KeyState {
  running: number;
  bucket: Bucket;
  /** Requests waiting, in order; those asking first go before all the others. */
  waiting: ((turn: Turn) => void)[];
  first: ((turn: Turn) => void)[];
  /** When its last failure happened (-Infinity: never). */
  failedAt: number;
}

function queued(state: KeyState): number {
  return state.first.length + state.waiting.length;
}

/** Key states kept before idle ones are swept. */
const SWEEP_KEYS_ABOVE = 1000;

/**
 * Turns for costly work in this process, bounded in total and per key, handed out so that a flood on some keys
 * cannot starve the others.
 *
 * - Each key (a page) gets at most keyInFlight running and keyPerSecond started.
 * - All keys together get at most inFlight running and perSecond started.
 * - Keys whose work failed within suspectMs (a page receiving wrong passwords) are suspect, and together get at
 *   most half of the slots and half of the rate: the other half is always there for keys nobody is failing on.
 * - A request that cannot start at once waits in its key's queue, if the queue has room and the rates promise a
 *   turn within maxWaitMs; otherwise it is refused at once, before any work, with the seconds to wait. Freed
 *   capacity goes first to keys that are not suspect, then to suspect ones, round-robin within each: a key gets a
 *   second turn only after every other waiting key of its class got one. A request once queued keeps its place.
 * - Within a key, a request asking to go first (a client the budget refused before, coming back as told) waits in
 *   a queue of its own that goes before the others: a flood of new requests cannot keep it out for ever.
 *
 * Per process on purpose: what it bounds is this process's CPU.
 */
export class WorkBudget {
  private readonly all: Lane;
  private readonly suspects: Lane;
  private readonly keys = new Map<string, KeyState>();
  private waitingCount = 0;
  /** Keys with waiting requests, in the order they get their next turns. */
  private ring: string[] = [];
  private wake: ReturnType<typeof setTimeout> | undefined;
  private readonly now: () => number;

  constructor(private readonly options: WorkBudgetOptions) {
    for (const name of ["inFlight", "perSecond", "keyInFlight", "keyPerSecond"] as const) {
      if (!(options[name] > 0)) throw new TypeError(`work budget: ${name} must be positive`);
    }
    this.now = options.now ?? (() => performance.now());
    const now = this.now();
    this.all = { running: 0, inFlight: options.inFlight, bucket: new Bucket(options.perSecond, now) };
    this.suspects = {
      running: 0,
      inFlight: Math.max(1, Math.floor(options.inFlight / 2)),
      bucket: new Bucket(options.perSecond / 2, now),
    };
  }

  /** Work running now. */
  get running(): number {
    return this.all.running;
  }

  /** Requests waiting for a turn now. */
  get waiting(): number {
    return this.waitingCount;
  }

  /** A turn for `key`: at once, after a wait in its queue (before the others' when `first`), or refused at once. */
  turn(key: string, first = false): Promise<Turn> {
    const now = this.now();
    const state = this.stateOf(key, now);
    const queue = first ? state.first : state.waiting;
    if (!this.startsNow(state, now)) {
      const full = queue.length >= this.options.keyQueue || this.waitingCount >= this.options.queue;
      if (full || this.tokenWaitMs(state, first, now) > this.options.maxWaitMs) {
        // When a request coming back to go first would expect its turn.
        const seconds = Math.ceil(this.tokenWaitMs(state, true, now) / 1000);
        return Promise.resolve({ granted: false, retryAfterSeconds: Math.min(60, Math.max(1, seconds)) });
      }
    }
    return new Promise<Turn>((resolve) => {
      queue.push(resolve);
      this.waitingCount++;
      if (queued(state) === 1) this.ring.push(key);
      this.pump();
    });
  }

  private stateOf(key: string, now: number): KeyState {
    let state = this.keys.get(key);
    if (!state) {
      if (this.keys.size >= SWEEP_KEYS_ABOVE) {
        for (const [k, s] of this.keys) if (this.idle(s, now)) this.keys.delete(k);
      }
      const bucket = new Bucket(this.options.keyPerSecond, now);
      state = { running: 0, bucket, waiting: [], first: [], failedAt: -Infinity };
      this.keys.set(key, state);
    }
    return state;
  }

  private suspect(state: KeyState, now: number): boolean {
    return now - state.failedAt < this.options.suspectMs;
  }

  /** Nothing running or waiting, nothing remembered that a new state would not: safe to forget. */
  private idle(state: KeyState, now: number): boolean {
    return state.running === 0 && queued(state) === 0 && state.bucket.full(now) && !this.suspect(state, now);
  }

  private startable(state: KeyState, now: number): boolean {
    const lanes = this.suspect(state, now) ? [this.all, this.suspects] : [this.all];
    return (
      state.running < this.options.keyInFlight &&
      state.bucket.level(now) >= 1 &&
      lanes.every((lane) => lane.running < lane.inFlight && lane.bucket.level(now) >= 1)
    );
  }

  /** Whether a new request for this key starts at once: it can, and no waiting request it must not overtake can. */
  private startsNow(state: KeyState, now: number): boolean {
    if (queued(state) > 0 || !this.startable(state, now)) return false;
    return !this.ring.some((key) => this.startable(this.keys.get(key) as KeyState, now));
  }

  /**
   * How long a new request for this key should expect to wait for its tokens: its key's earlier requests go first,
   * and each round serves one request of every waiting key it does not go before. From the rates only: when the
   * slots free up is not known in advance.
   */
  private tokenWaitMs(state: KeyState, first: boolean, now: number): number {
    const ahead = first ? state.first.length : queued(state);
    const own = queued(state) === 0 ? 1 : 0;
    const suspect = this.suspect(state, now);
    let clean = 0;
    let suspects = 0;
    for (const key of this.ring) {
      if (this.suspect(this.keys.get(key) as KeyState, now)) suspects++;
      else clean++;
    }
    const rounds = ahead + 1;
    const waits = [
      state.bucket.msUntil(rounds, now),
      this.all.bucket.msUntil(rounds * (clean + (suspect ? suspects : 0) + own), now),
    ];
    if (suspect) waits.push(this.suspects.bucket.msUntil(rounds * (suspects + own), now));
    return Math.max(...waits);
  }

  /** Hands free capacity to waiting keys (clean ones first), then sets a timer for the next token if some wait. */
  private pump(): void {
    const now = this.now();
    for (;;) {
      let index = this.ring.findIndex((key) => {
        const state = this.keys.get(key) as KeyState;
        return !this.suspect(state, now) && this.startable(state, now);
      });
      if (index < 0) index = this.ring.findIndex((key) => this.startable(this.keys.get(key) as KeyState, now));
      if (index < 0) break;
      this.start(this.ring[index] as string, index, now);
    }
    this.scheduleWake(now);
  }

  private start(key: string, index: number, now: number): void {
    const state = this.keys.get(key) as KeyState;
    const resolve = (state.first.shift() ?? state.waiting.shift()) as (turn: Turn) => void;
    this.waitingCount--;
    this.ring.splice(index, 1);
    // To the back: every other waiting key gets a turn before this one gets another.
    if (queued(state) > 0) this.ring.push(key);
    const lanes = this.suspect(state, now) ? [this.all, this.suspects] : [this.all];
    for (const lane of lanes) {
      lane.bucket.take();
      lane.running++;
    }
    state.bucket.take();
    state.running++;
    let over = false;
    resolve({
      granted: true,
      done: (failed) => {
        if (over) return;
        over = true;
        for (const lane of lanes) lane.running--;
        state.running--;
        const at = this.now();
        if (failed) state.failedAt = at;
        if (this.idle(state, at)) this.keys.delete(key);
        this.pump();
      },
    });
  }

  /** When requests wait for tokens rather than slots (a finished turn pumps), pump again once a token is due. */
  private scheduleWake(now: number): void {
    if (this.wake) clearTimeout(this.wake);
    this.wake = undefined;
    let ms = Number.POSITIVE_INFINITY;
    for (const key of this.ring) {
      const state = this.keys.get(key) as KeyState;
      const lanes = this.suspect(state, now) ? [this.all, this.suspects] : [this.all];
      if (state.running >= this.options.keyInFlight || lanes.some((lane) => lane.running >= lane.inFlight)) continue;
      ms = Math.min(ms, Math.max(state.bucket.msUntil(1, now), ...lanes.map((lane) => lane.bucket.msUntil(1, now))));
    }
    if (!Number.isFinite(ms)) return;
    this.wake = setTimeout(() => this.pump(), Math.max(1, Math.ceil(ms)));
    this.wake.unref?.();
  }
}
