import { Hono } from "hono";
import pg from "pg";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test, vi } from "vitest";
import { ErrorEnvelope } from "../../server/contract/common.ts";
import { clientAddress, clientKey } from "../../server/http/client-address.ts";
import { ApiError } from "../../server/http/errors.ts";
import {
  createLimiter,
  type Limiter,
  type LimitRule,
  type LimitState,
  limitHeaders,
  RATE_LIMIT_TABLE,
  rateLimit,
  rateLimited,
  type Turn,
  WorkBudget,
  type WorkBudgetOptions,
} from "../../server/http/rate-limit.ts";
import { createPostgresDatabase, fromAddress, hasPostgres, testConfig } from "../helpers.ts";

const snapshot: LimitRule = { name: "snapshot", points: 3, windowSeconds: 60 };
const report: LimitRule = { name: "report", points: 3, windowSeconds: 3600 };

/** Consumes `n` points one by one and answers every state. */
async function consumeTimes(limiter: Limiter, rule: LimitRule, key: string, n: number): Promise<LimitState[]> {
  const states: LimitState[] = [];
  for (let i = 0; i < n; i++) states.push(await limiter.consume(rule, key));
  return states;
}

describe("rate limiter in memory", () => {
  let limiter: Limiter;
  beforeAll(async () => {
    limiter = await createLimiter({});
  });
  afterAll(() => limiter.close());

  test("N requests pass with falling remaining points; the N+1th is refused with 0 left and a reset in the window", async () => {
    const states = await consumeTimes(limiter, snapshot, "198.51.100.1", 4);
    expect(states.map((s) => [s.allowed, s.remaining])).toEqual([
      [true, 2],
      [true, 1],
      [true, 0],
      [false, 0],
    ]);
    const refused = states[3] as LimitState;
    expect(refused.rule).toEqual(snapshot);
    expect(Number.isInteger(refused.resetSeconds)).toBe(true);
    expect(refused.resetSeconds).toBeGreaterThanOrEqual(59);
    expect(refused.resetSeconds).toBeLessThanOrEqual(60);
    // Refusals count too: knocking again does not get through.
    expect((await limiter.consume(snapshot, "198.51.100.1")).allowed).toBe(false);
  });

  test("rules and keys keep separate counters", async () => {
    const other: LimitRule = { name: "poll", points: 3, windowSeconds: 60 };
    await consumeTimes(limiter, snapshot, "198.51.100.2", 4);
    expect((await limiter.consume(snapshot, "198.51.100.2")).allowed).toBe(false);
    expect(await limiter.consume(snapshot, "198.51.100.3")).toMatchObject({ allowed: true, remaining: 2 });
    expect(await limiter.consume(other, "198.51.100.2")).toMatchObject({ allowed: true, remaining: 2 });
    expect(await limiter.consume(report, "198.51.100.2")).toMatchObject({ allowed: true, remaining: 2 });
  });

  test("long keys are told apart by their whole text", async () => {
    const long = "k".repeat(500);
    await consumeTimes(limiter, snapshot, `${long}a`, 3);
    expect((await limiter.consume(snapshot, `${long}a`)).allowed).toBe(false);
    expect((await limiter.consume(snapshot, `${long}b`)).allowed).toBe(true);
  });

  test("a consume of several points counts them all", async () => {
    expect(await limiter.consume(snapshot, "198.51.100.4", 2)).toMatchObject({ allowed: true, remaining: 1 });
    expect(await limiter.consume(snapshot, "198.51.100.4", 2)).toMatchObject({ allowed: false, remaining: 0 });
  });

  test("peek reports without consuming", async () => {
    const key = "198.51.100.5";
    expect(await limiter.peek(snapshot, key)).toEqual({ rule: snapshot, allowed: true, remaining: 3, resetSeconds: 0 });
    await limiter.consume(snapshot, key);
    for (let i = 0; i < 5; i++) {
      expect(await limiter.peek(snapshot, key)).toMatchObject({ allowed: true, remaining: 2 });
    }
    expect(await limiter.consume(snapshot, key)).toMatchObject({ allowed: true, remaining: 1 });
    await limiter.consume(snapshot, key);
    const full = await limiter.peek(snapshot, key);
    expect(full).toMatchObject({ allowed: false, remaining: 0 });
    expect(full.resetSeconds).toBeGreaterThan(0);
  });

  test("the window ends and frees its points", async () => {
    const quick: LimitRule = { name: "quick", points: 1, windowSeconds: 1 };
    expect((await limiter.consume(quick, "198.51.100.6")).allowed).toBe(true);
    const refused = await limiter.consume(quick, "198.51.100.6");
    expect(refused).toMatchObject({ allowed: false, resetSeconds: 1 });
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(await limiter.consume(quick, "198.51.100.6")).toMatchObject({ allowed: true, remaining: 0 });
  });

  test("refund gives counted points back, and never lifts a refusal already made", async () => {
    const key = "198.51.100.8";
    await consumeTimes(limiter, snapshot, key, 2);
    await limiter.refund(snapshot, key);
    expect(await limiter.peek(snapshot, key)).toMatchObject({ allowed: true, remaining: 2 });
    await consumeTimes(limiter, snapshot, key, 3);
    expect((await limiter.consume(snapshot, key)).allowed).toBe(false);
    await expect(limiter.refund(snapshot, key, 0)).rejects.toThrow(TypeError);
  });

  test("a rule name means one rule: redefining it, or an invalid rule, is a programming error", async () => {
    await limiter.consume({ name: "fixed", points: 2, windowSeconds: 60 }, "k");
    await expect(limiter.consume({ name: "fixed", points: 5, windowSeconds: 60 }, "k")).rejects.toThrow(TypeError);
    await expect(limiter.consume({ name: 'bad"name', points: 1, windowSeconds: 60 }, "k")).rejects.toThrow(TypeError);
    await expect(limiter.consume({ name: "zero", points: 0, windowSeconds: 60 }, "k")).rejects.toThrow(TypeError);
    await expect(limiter.consume(snapshot, "k", 0)).rejects.toThrow(TypeError);
  });
});

describe("rate limit headers and the 429 answer", () => {
  const state = (remaining: number, resetSeconds: number, allowed = remaining > 0): LimitState => ({
    rule: { name: "snapshot", points: 10, windowSeconds: 60 },
    allowed,
    remaining,
    resetSeconds,
  });

  test("RateLimit-Policy and RateLimit follow the draft's structured-field form", () => {
    expect(limitHeaders(state(7, 42))).toEqual({
      "RateLimit-Policy": '"snapshot";q=10;w=60',
      RateLimit: '"snapshot";r=7;t=42',
    });
    expect(limitHeaders(state(0, 0))).toEqual({
      "RateLimit-Policy": '"snapshot";q=10;w=60',
      RateLimit: '"snapshot";r=0;t=0',
    });
  });

  test("rateLimited() is a 429 rate_limited ApiError with the headers and Retry-After of at least 1 s", () => {
    const error = rateLimited(state(0, 42, false));
    expect(error).toBeInstanceOf(ApiError);
    expect(error.status).toBe(429);
    expect(error.kind).toBe("rate_limited");
    expect(error.message).toBe("Rate Limited");
    expect(error.headers).toEqual({
      "RateLimit-Policy": '"snapshot";q=10;w=60',
      RateLimit: '"snapshot";r=0;t=42',
      "Retry-After": "42",
    });
    expect(rateLimited(state(0, 0, false)).headers?.["Retry-After"]).toBe("1");
  });

  test("a real refusal carries its own numbers", async () => {
    const limiter = await createLimiter({});
    const rule: LimitRule = { name: "api", points: 1, windowSeconds: 60 };
    await limiter.consume(rule, "token-1");
    const refused = await limiter.consume(rule, "token-1");
    const headers = rateLimited(refused).headers ?? {};
    expect(headers.RateLimit).toBe(`"api";r=0;t=${refused.resetSeconds}`);
    expect(Number(headers["Retry-After"])).toBe(refused.resetSeconds);
    expect(refused.resetSeconds).toBeGreaterThanOrEqual(1);
    await limiter.close();
  });

  test("a database unreachable at start is an error, not a silently unlimited service", async () => {
    await expect(createLimiter({ databaseUrl: "postgres://postgres@127.0.0.1:1/porchlight" })).rejects.toThrow();
  });
});

/** The app's error handler, as server/app.ts answers an ApiError. */
function envelopeApp(): Hono {
  const app = new Hono();
  app.onError((err, c) => {
    if (!(err instanceof ApiError)) throw err;
    const body: ErrorEnvelope = { success: false, message: err.message, code: err.status, error: err.kind };
    return c.json(body, err.status as 429, err.headers);
  });
  return app;
}

describe("rate limiting a route by client address", () => {
  const config = testConfig({ PORCHLIGHT_TRUSTED_PROXIES: "10.0.0.0/8" });
  let limiter: Limiter;
  let app: Hono;
  beforeAll(async () => {
    limiter = await createLimiter({});
    app = envelopeApp();
    const byClient = (c: Parameters<typeof clientAddress>[0]) => clientKey(clientAddress(c, config.trustedProxies));
    app.get("/snapshot", rateLimit(limiter, snapshot, byClient), (c) => c.json({ ok: true }));
    app.post(
      "/report",
      rateLimit(limiter, { name: "report", points: config.limits.reportsPerHour, windowSeconds: 3600 }, byClient),
      (c) => c.json({ ok: true }),
    );
    app.get(
      "/defaults",
      rateLimit(
        limiter,
        { name: "snapshot-default", points: config.limits.snapshotsPerMinute, windowSeconds: 60 },
        byClient,
      ),
      (c) => c.json({ ok: true }),
    );
  });
  afterAll(() => limiter.close());

  const get = (path: string, peer: string, headers: Record<string, string> = {}) =>
    app.request(path, { headers }, fromAddress(peer));

  test("allowed answers carry the RateLimit fields; the refusal is the 429 envelope with Retry-After", async () => {
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await get("/snapshot", "192.0.2.10"));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 429]);
    expect(answers.map((r) => r.headers.get("ratelimit")?.replace(/;t=\d+$/, ""))).toEqual([
      '"snapshot";r=2',
      '"snapshot";r=1',
      '"snapshot";r=0',
      '"snapshot";r=0',
    ]);
    for (const r of answers) expect(r.headers.get("ratelimit-policy")).toBe('"snapshot";q=3;w=60');
    const refused = answers[3] as Response;
    const body = await refused.json();
    expect(body).toEqual({ success: false, message: "Rate Limited", code: 429, error: "rate_limited" });
    expect(ErrorEnvelope.parse(body)).toEqual(body);
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.headers.get("ratelimit")).toBe(`"snapshot";r=0;t=${retryAfter}`);
    expect(answers[0]?.headers.get("retry-after")).toBeNull();
  });

  test("IPv6 clients are counted by /64: one /64 shares a counter, the next /64 has its own", async () => {
    const statuses = [];
    for (const peer of [
      "2001:db8:1:2::1",
      "2001:db8:1:2:ffff::9",
      "2001:db8:1:2:aaaa:bbbb:cccc:dddd",
      "2001:db8:1:2::2",
    ]) {
      statuses.push((await get("/snapshot", peer)).status);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect((await get("/snapshot", "2001:db8:1:3::1")).status).toBe(200);
    // The same client written as an IPv4-mapped IPv6 address is the IPv4 client.
    await get("/snapshot", "192.0.2.20");
    await get("/snapshot", "::ffff:192.0.2.20");
    await get("/snapshot", "192.0.2.20");
    expect((await get("/snapshot", "::ffff:192.0.2.20")).status).toBe(429);
  });

  test("X-Forwarded-For from anyone but a configured proxy is ignored", async () => {
    const statuses = [];
    for (let i = 1; i <= 4; i++) {
      statuses.push((await get("/snapshot", "198.51.100.77", { "x-forwarded-for": `203.0.113.${i}` })).status);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
  });

  test("behind a configured proxy, each forwarded client has its own counter", async () => {
    const viaProxy = (client: string) => get("/snapshot", "10.1.2.3", { "x-forwarded-for": client });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await viaProxy("203.0.113.50")).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect((await viaProxy("203.0.113.51")).status).toBe(200);
    // The proxy's own address is not the client's: another proxy peer forwarding the same client is still refused.
    expect((await get("/snapshot", "10.9.9.9", { "x-forwarded-for": "203.0.113.50" })).status).toBe(429);
  });

  test("the default limits: 3 reports an hour and 10 snapshots a minute per client", async () => {
    expect(config.limits.reportsPerHour).toBe(3);
    expect(config.limits.snapshotsPerMinute).toBe(10);
    const reports = [];
    for (let i = 0; i < 4; i++)
      reports.push(await app.request("/report", { method: "POST" }, fromAddress("192.0.2.99")));
    expect(reports.map((r) => r.status)).toEqual([200, 200, 200, 429]);
    expect(reports[3]?.headers.get("ratelimit-policy")).toBe('"report";q=3;w=3600');
    const snapshots = [];
    for (let i = 0; i < 11; i++) snapshots.push((await get("/defaults", "192.0.2.99")).status);
    expect(snapshots).toEqual([...Array(10).fill(200), 429]);
  });
});

const describePostgres = hasPostgres ? describe : describe.skip;

describePostgres(`rate limiter on PostgreSQL${hasPostgres ? "" : " (skipped: no PostgreSQL)"}`, () => {
  let database: Awaited<ReturnType<typeof createPostgresDatabase>>;
  let first: Limiter;
  let second: Limiter;
  beforeAll(async () => {
    database = await createPostgresDatabase();
    // Two limiters with their own pools, as two processes on one database have.
    first = await createLimiter({ databaseUrl: database.url });
    second = await createLimiter({ databaseUrl: database.url });
  });
  afterAll(async () => {
    await first?.close();
    await second?.close();
    await database?.drop();
  });

  test("the counters live in the porchlight_rate_limits table", async () => {
    await first.consume(snapshot, "203.0.113.200");
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const { rows } = await client.query(`select key, points from ${RATE_LIMIT_TABLE}`);
      expect(rows).toContainEqual({ key: "snapshot:203.0.113.200", points: 1 });
    } finally {
      await client.end();
    }
  });

  test("two limiters on one database share counters", async () => {
    const key = "2001:db8:aa:bb::/64";
    expect(await first.consume(snapshot, key)).toMatchObject({ allowed: true, remaining: 2 });
    expect(await second.consume(snapshot, key)).toMatchObject({ allowed: true, remaining: 1 });
    expect(await second.peek(snapshot, key)).toMatchObject({ allowed: true, remaining: 1 });
    expect(await first.consume(snapshot, key)).toMatchObject({ allowed: true, remaining: 0 });
    const refused = await second.consume(snapshot, key);
    expect(refused).toMatchObject({ allowed: false, remaining: 0 });
    expect(refused.resetSeconds).toBeGreaterThanOrEqual(59);
    expect(refused.resetSeconds).toBeLessThanOrEqual(60);
    expect(await first.peek(snapshot, key)).toMatchObject({ allowed: false, remaining: 0 });
    expect((await first.consume(snapshot, key)).allowed).toBe(false);
    // Other keys and other rules are untouched.
    expect(await second.consume(snapshot, "2001:db8:aa:cc::/64")).toMatchObject({ allowed: true, remaining: 2 });
    expect(await second.consume(report, key)).toMatchObject({ allowed: true, remaining: 2 });
  });

  test("a refund in one process is seen by the other", async () => {
    const key = "203.0.113.210";
    await consumeTimes(first, snapshot, key, 3);
    await second.refund(snapshot, key);
    expect(await first.peek(snapshot, key)).toMatchObject({ allowed: true, remaining: 1 });
    expect((await second.consume(snapshot, key)).allowed).toBe(true);
    expect((await first.consume(snapshot, key)).allowed).toBe(false);
  });

  test("a long key is stored within the key column and shared like any other", async () => {
    const key = `token:${"x".repeat(1000)}`;
    await consumeTimes(first, snapshot, key, 3);
    expect(await second.peek(snapshot, key)).toMatchObject({ allowed: false, remaining: 0 });
    expect((await second.consume(snapshot, key)).allowed).toBe(false);
  });

  test("limiters starting together on a new database all create the table and work", async () => {
    // The CREATE TABLE race shows only sometimes, so several fresh databases, each with eight limiters at once
    // on connections opened beforehand.
    for (let round = 0; round < 8; round++) {
      const fresh = await createPostgresDatabase();
      const pools = Array.from({ length: 8 }, () => new pg.Pool({ connectionString: fresh.url, max: 2 }));
      try {
        for (const pool of pools) pool.on("error", () => {});
        await Promise.all(pools.map((pool) => pool.query("select 1")));
        const limiters = await Promise.all(pools.map((pool) => createLimiter({ pool })));
        const states = [];
        for (const limiter of limiters)
          states.push(await limiter.consume({ name: "race", points: 8, windowSeconds: 60 }, "k"));
        expect(states.map((s) => s.remaining)).toEqual([7, 6, 5, 4, 3, 2, 1, 0]);
        await Promise.all(limiters.map((limiter) => limiter.close()));
      } finally {
        await Promise.all(pools.map((pool) => pool.end()));
        await fresh.drop();
      }
    }
  });

  test("when the database goes away, limits fail open to this process's memory", async () => {
    const doomed = await createPostgresDatabase();
    const limiter = await createLimiter({ databaseUrl: doomed.url });
    try {
      const rule: LimitRule = { name: "outage", points: 2, windowSeconds: 60 };
      expect((await limiter.consume(rule, "k")).allowed).toBe(true);
      await doomed.drop();
      const started = Date.now();
      const states = await consumeTimes(limiter, rule, "k", 3);
      // The insurance counts from zero: two pass, the third is refused, all within the connection timeout.
      expect(states.map((s) => s.allowed)).toEqual([true, true, false]);
      expect(await limiter.peek(rule, "k")).toMatchObject({ allowed: false, remaining: 0 });
      expect(Date.now() - started).toBeLessThan(15_000);
    } finally {
      await limiter.close();
      await doomed.drop();
    }
  });
});

describe("the work budget", () => {
  /** The budget's clock, moved by hand together with the fake timers that wake waiting requests. */
  let now = 0;
  const advance = async (ms: number) => {
    now += ms;
    await vi.advanceTimersByTimeAsync(ms);
  };
  beforeEach(() => {
    now = 0;
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const budget = (options: Partial<WorkBudgetOptions> = {}) =>
    new WorkBudget({
      inFlight: 2,
      perSecond: 4,
      keyInFlight: 1,
      keyPerSecond: 1,
      keyQueue: 2,
      queue: 64,
      maxWaitMs: 2000,
      suspectMs: 60_000,
      now: () => now,
      ...options,
    });

  /** Asks for `n` turns for `key` and sorts them as they settle: started, refused, still waiting. */
  function ask(work: WorkBudget, key: string, n: number) {
    const started: Extract<Turn, { granted: true }>[] = [];
    const refused: number[] = [];
    const all = Array.from({ length: n }, () =>
      work.turn(key).then((turn) => {
        if (turn.granted) started.push(turn);
        else refused.push(turn.retryAfterSeconds);
      }),
    );
    return { started, refused, all: Promise.all(all) };
  }
  const settle = () => vi.advanceTimersByTimeAsync(0);

  test("a key gets keyInFlight at once and queues keyQueue more; the rest are refused at once with Retry-After", async () => {
    const work = budget();
    const flood = ask(work, "page-a", 10);
    await settle();
    expect(flood.started).toHaveLength(1);
    expect(work.waiting).toBe(2);
    expect(flood.refused).toHaveLength(7);
    for (const seconds of flood.refused) expect(seconds).toBeGreaterThanOrEqual(1);
    // A finished turn lets the next waiting request of the key start, while its bucket (2 s worth) has tokens.
    flood.started[0]?.done(true);
    await settle();
    expect(flood.started).toHaveLength(2);
    // The bucket is empty now: the third waits for the clock, one token a second.
    flood.started[1]?.done(true);
    await settle();
    expect(flood.started).toHaveLength(2);
    await advance(1000);
    expect(flood.started).toHaveLength(3);
    expect(work.waiting).toBe(0);
  });

  test("at most inFlight run at once; a new key starts at once while a flooded one holds only its share", async () => {
    const work = budget();
    const flood = ask(work, "page-a", 50);
    await settle();
    const other = ask(work, "page-b", 1);
    await settle();
    expect(other.started).toHaveLength(1);
    expect(work.running).toBe(2);
    const third = ask(work, "page-c", 1);
    await settle();
    expect(third.started).toHaveLength(0);
    expect(work.waiting).toBe(3);
    // The slot page-b frees goes to page-c, not to page-a's queue: page-a already has its turn running.
    other.started[0]?.done(false);
    await settle();
    expect(third.started).toHaveLength(1);
    expect(flood.started).toHaveLength(1);
  });

  test("freed slots go round-robin: each waiting key gets a turn before any gets a second", async () => {
    const work = budget({ inFlight: 1, perSecond: 100, keyPerSecond: 100, keyQueue: 3 });
    const order: string[] = [];
    const hold = ask(work, "first", 1);
    await settle();
    const asks = ["a", "a", "a", "b", "b", "c"].map((key) =>
      work.turn(key).then((turn) => {
        order.push(key);
        if (turn.granted) turn.done(false);
      }),
    );
    await settle();
    hold.started[0]?.done(false);
    await Promise.all(asks);
    expect(order).toEqual(["a", "b", "c", "a", "b", "a"]);
  });

  test("the rate holds in total: perSecond over all keys, with a burst of two seconds' worth", async () => {
    const work = budget({ inFlight: 100, keyInFlight: 100, keyPerSecond: 100, keyQueue: 0, queue: 0 });
    const started = ask(work, "k", 20);
    await settle();
    expect(started.started).toHaveLength(8);
    expect(started.refused).toHaveLength(12);
    expect(Math.max(...started.refused)).toBeLessThanOrEqual(60);
    await advance(1000);
    const later = ask(work, "k", 20);
    await settle();
    expect(later.started).toHaveLength(4);
  });

  test("a request whose turn the rates cannot promise within maxWaitMs is refused at once", async () => {
    const work = budget({ keyQueue: 10, maxWaitMs: 2500 });
    const flood = ask(work, "page-a", 10);
    await settle();
    // Two tokens at once (one runs, one waits for the slot), then one a second: 1 s and 2 s are within 2.5 s.
    expect(flood.started).toHaveLength(1);
    expect(work.waiting).toBe(3);
    expect(flood.refused).toHaveLength(6);
  });

  test("suspect keys (recent failures) share half the slots and half the rate; clean keys keep the rest", async () => {
    const work = budget({ inFlight: 4, perSecond: 10, keyInFlight: 4, keyPerSecond: 100, keyQueue: 100 });
    for (let i = 0; i < 10; i++) {
      const one = ask(work, `attacked-${i}`, 1);
      await settle();
      one.started[0]?.done(true);
    }
    await advance(2000);
    // Ten suspect pages flooded at once: together they run 2 of the 4 slots.
    const floods = Array.from({ length: 10 }, (_, i) => ask(work, `attacked-${i}`, 20));
    await settle();
    expect(work.running).toBe(2);
    const quiet = ask(work, "quiet", 2);
    await settle();
    expect(quiet.started).toHaveLength(2);
    expect(work.running).toBe(4);
    // With the clock stopped, the suspects get the burst of their half of the rate (5 a second, 2 s worth) and no more.
    let suspectTurns = 0;
    for (let round = 0; round < 20; round++) {
      for (const flood of floods) {
        for (const turn of flood.started.splice(0)) {
          suspectTurns++;
          turn.done(true);
        }
      }
      await settle();
    }
    expect(suspectTurns).toBe(10);
    expect(work.waiting).toBeGreaterThan(0);
    await advance(1000);
    const more = floods.reduce((sum, flood) => sum + flood.started.length, 0);
    expect(more).toBeGreaterThanOrEqual(1);
    expect(more).toBeLessThanOrEqual(2);
  });

  test("a request asking to go first (a client refused before, coming back) goes before a full queue of new ones", async () => {
    const work = budget();
    const flood = ask(work, "page-a", 10);
    await settle();
    expect(work.waiting).toBe(2);
    flood.started[0]?.done(true);
    await settle();
    expect(flood.started).toHaveLength(2);
    // The key's bucket is empty and one new request still waits; a returning one goes before it.
    const back = work.turn("page-a", true);
    await settle();
    expect(work.waiting).toBe(2);
    flood.started[1]?.done(true);
    await advance(1000);
    expect(await back).toMatchObject({ granted: true });
    expect(flood.started).toHaveLength(2);
    expect(work.waiting).toBe(1);
    // Told when to come back: when a returning request could expect a turn, at least a second.
    expect(Math.min(...flood.refused)).toBeGreaterThanOrEqual(1);
    expect(Math.max(...flood.refused)).toBeLessThanOrEqual(2);
  });

  test("finishing turns does not refill a key's bucket: only time does", async () => {
    const work = budget({ keyQueue: 0 });
    for (let i = 0; i < 2; i++) {
      const one = ask(work, "k", 1);
      await settle();
      one.started[0]?.done(false);
    }
    const third = ask(work, "k", 1);
    await settle();
    expect(third.refused).toHaveLength(1);
  });
});
