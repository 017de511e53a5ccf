import type { Context, MiddlewareHandler } from "hono";
import pg from "pg";
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes } from "rate-limiter-flexible";
import { hashToken } from "../accounts/secrets.ts";
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
  /** Ends the sweep timer and, when the limiter created it, its connection pool. */
  close(): Promise<void>;
}

export interface LimiterOptions {
  /** PostgreSQL URL: counters shared by every process on the database. Without it (or a pool), in memory. */
  databaseUrl?: string;
  /** An existing pool to use instead of a URL; the caller owns it and ends it. */
  pool?: pg.Pool;
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
async function createTable(pool: pg.Pool, tableName: string): Promise<void> {
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
  const owned = !options.pool && options.databaseUrl ? createPool(options.databaseUrl) : undefined;
  const pool = options.pool ?? owned;
  if (!pool) return createMemoryLimiter();
  try {
    await createTable(pool, tableName);
  } catch (error) {
    await owned?.end().catch(() => {});
    throw error;
  }
  const sweep = setInterval(() => {
    pool.query(`DELETE FROM "${tableName}" WHERE expire < $1`, [Date.now() - SWEEP_GRACE_MS]).catch(() => {
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
function limiterOver(store: { pool: pg.Pool; tableName: string } | undefined, close: () => Promise<void>): Limiter {
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
    close,
  };
}

function createPool(connectionString: string): pg.Pool {
  const pool = new pg.Pool({
    connectionString,
    max: 4,
    // Short, so that an unreachable database hands over to the insurance limiter instead of holding requests.
    connectionTimeoutMillis: 2000,
    query_timeout: 2000,
    idleTimeoutMillis: 30_000,
  });
  // An idle connection the server drops (restart, failover) must not crash the process; the next query reconnects.
  pool.on("error", () => {});
  return pool;
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
