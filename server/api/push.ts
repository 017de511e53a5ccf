import { createHash, randomBytes } from "node:crypto";
import type { Context } from "hono";
import { z } from "zod";
import type { Clock } from "../clock.ts";
import { Envelope, envelope } from "../contract/common.ts";
import { PushAck, PushCall } from "../contract/monitor.ts";
import { clientAddress, clientKey, type Range } from "../http/client-address.ts";
import { notFound } from "../http/errors.ts";
import { createMemoryLimiter, enforceLimit, type Limiter, type LimitRule } from "../http/rate-limit.ts";
import { type Route, route } from "../http/route.ts";
import type { Logger } from "../log.ts";
import type { Store } from "../store/store.ts";

/**
 * A push token: 32 characters of base64url (192 random bits), shown once; the store keeps its SHA-256 only, so a
 * copy of the database lets nobody call as the job.
 */
export function newPushToken(): { token: string; hash: string; hint: string } {
  const token = randomBytes(24).toString("base64url");
  return { token, hash: pushTokenHash(token), hint: token.slice(-4) };
}

export const pushTokenHash = (token: string) => createHash("sha256").update(token).digest("hex");

/** The address a push site's job calls. */
export const pushUrl = (publicUrl: string, token: string) => `${publicUrl}/public/v1/push/${token}`;

/**
 * Push limits, per process and in memory (a database-backed counter would cost a write per call): a job calling
 * every second stays far inside its token's; a client sending many tokens' calls (a scheduler host) gets ten times
 * that; a flood of guessed tokens is refused by the client's limit before it costs a lookup.
 */
export const PUSH_LIMITS = {
  token: { name: "push-token", points: 120, windowSeconds: 60 },
  client: { name: "push-client", points: 1200, windowSeconds: 60 },
} as const satisfies Record<string, LimitRule>;

/** How often coalesced calls are written, and how long a token's lookup is remembered. */
export const PUSH_TIMERS = { flushMs: 1000, knownMs: 30_000 } as const;

const TokenParams = z.object({
  token: z
    .string()
    .regex(/^[A-Za-z0-9_-]{32}$/)
    .meta({ description: "The push site's secret token, from its pushUrl" }),
});

interface PendingCall {
  tokenHash: string;
  at: string;
  status: "up" | "down";
  message: string | null;
  ms: number | null;
}

/**
 * Push calls in memory until written: the latest per token, written together every PUSH_TIMERS.flushMs, so a job
 * calling many times a second costs one write a second, and a thousand jobs one transaction. Which tokens exist is
 * remembered for PUSH_TIMERS.knownMs (existing or not), so repeated calls cost no read either.
 */
export class PushInbox {
  private readonly pending = new Map<string, PendingCall>();
  private readonly known = new Map<string, { exists: boolean; until: number }>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly changed: () => void,
    private readonly logger?: Logger,
  ) {}

  /** Whether a token's hash names a push site (remembered a while). */
  async exists(tokenHash: string): Promise<boolean> {
    const now = this.clock.now().getTime();
    const cached = this.known.get(tokenHash);
    if (cached && cached.until > now) return cached.exists;
    const exists = (await this.store.sites.pushTarget(tokenHash)) !== undefined;
    if (this.known.size > 100_000) this.known.clear();
    this.known.set(tokenHash, { exists, until: now + PUSH_TIMERS.knownMs });
    return exists;
  }

  /** Forgets what was remembered of a token (rotated or deleted with its site). */
  forget(tokenHash: string): void {
    this.known.delete(tokenHash);
  }

  /** Keeps a call to write with the next flush; a later call of the same token replaces it. */
  add(call: PendingCall): void {
    this.pending.set(call.tokenHash, call);
    this.schedule();
  }

  /** Arms the flush timer unless it is armed already. */
  private schedule(): void {
    this.timer ??= setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, PUSH_TIMERS.flushMs);
    this.timer.unref?.();
  }

  /** Writes what is pending (a test, or the server stopping, calls it at once). */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      if (this.pending.size === 0) return;
      const calls = [...this.pending.values()];
      this.pending.clear();
      try {
        const due = await this.store.sites.recordPushes(calls, this.clock.now().toISOString());
        if (due.length > 0) this.changed();
      } catch (err) {
        // Kept for the next flush unless a newer call of the same token arrived meanwhile.
        for (const call of calls) if (!this.pending.has(call.tokenHash)) this.pending.set(call.tokenHash, call);
        this.logger?.error({ err, calls: calls.length }, "writing push calls failed; will retry");
        this.schedule();
      }
    });
    return this.flushing;
  }

  /** Stops the timer and writes what is pending. */
  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.flush();
  }
}

export interface PushDeps {
  inbox: PushInbox;
  clock: Clock;
  trustedProxies: Range[];
  limiter?: Limiter;
}

/**
 * The address a push site's job calls: GET or POST, with `?status=down&msg=...&ms=...` optionally. Anyone may
 * call it; only the token says which site. A token that names no site answers 404, the same as a malformed one.
 */
export function pushRoutes({ inbox, clock, trustedProxies, limiter = createMemoryLimiter() }: PushDeps): Route[] {
  const handler = async ({
    params,
    query,
    c,
  }: {
    params: { token: string };
    query: z.output<typeof PushCall>;
    c: Context;
  }) => {
    await enforceLimit(c, limiter, PUSH_LIMITS.client, clientKey(clientAddress(c, trustedProxies)));
    const tokenHash = pushTokenHash(params.token);
    if (!(await inbox.exists(tokenHash))) throw notFound("Push");
    await enforceLimit(c, limiter, PUSH_LIMITS.token, tokenHash);
    inbox.add({
      tokenHash,
      at: clock.now().toISOString(),
      status: query.status,
      message: query.msg?.trim() || null,
      ms: query.ms ?? null,
    });
    return envelope(200, "Received", { received: true as const, status: query.status });
  };
  const common = {
    path: "/public/v1/push/{token}",
    tag: "Sites" as const,
    access: "none" as const,
    rateLimit: "client" as const,
    params: TokenParams,
    query: PushCall,
    response: { status: 200, description: "The call is recorded", schema: Envelope(PushAck) },
    errors: [400, 404, 429],
    description:
      "A push (heartbeat) site's job calls its secret address when it runs. Optional query: status (up, the default, or down), msg (the job's words, up to 200 characters, shown to the owner), ms (how long the job took). Calls are written at most once a second per site; 120 calls a minute per token and 1,200 per client address are accepted.",
  };
  return [
    route({ ...common, method: "get", operationId: "pushGet", summary: "A push site's job reports in", handler }),
    route({
      ...common,
      method: "post",
      operationId: "pushPost",
      summary: "A push site's job reports in (POST)",
      handler,
    }),
  ];
}
