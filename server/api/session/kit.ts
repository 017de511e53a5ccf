/** What the dashboard's sign-in routes share: their dependencies, limits, errors and the helpers they sign in with. */
import type { Context } from "hono";
import { setCookie } from "hono/cookie";
import type { z } from "zod";
import type { AccountMailer } from "../../accounts/emails.ts";
import type { SecretBox } from "../../accounts/sealed.ts";
import { hashPassword, verifyPassword } from "../../accounts/secrets.ts";
import { newSecret, SESSION_MAX_MS, secretHash, sessionCookieName, totpMatches } from "../../accounts/sign-in.ts";
import type { Clock } from "../../clock.ts";
import type { Config } from "../../config.ts";
import { ROLE_PERMISSIONS, type RoleName } from "../../contract/account.ts";
import type { Me } from "../../contract/session.ts";
import { secureSessions } from "../../http/auth.ts";
import { clientAddress, clientKey } from "../../http/client-address.ts";
import { ApiError, badRequest, conflict } from "../../http/errors.ts";
import { type Limiter, type LimitRule, rateLimited, WorkBudget } from "../../http/rate-limit.ts";
import type { Logger } from "../../log.ts";
import type { Principal } from "../../store/accounts.ts";
import type { Transaction } from "../../store/connection.ts";
import type { Store } from "../../store/store.ts";

export interface SessionDeps {
  store: Store;
  clock: Clock;
  config: Pick<Config, "publicUrl" | "trustedProxies" | "passwordHashes">;
  limiter: Limiter;
  mailer: AccountMailer;
  secrets: SecretBox;
  logger: Logger;
}

/** Failed sign-ins: per account, and per client (an IPv4 address or an IPv6 /64), in 15 minutes. */
export const SIGN_IN_LIMITS = {
  account: { name: "sign-in-account", points: 10, windowSeconds: 900 },
  client: { name: "sign-in-client", points: 30, windowSeconds: 900 },
} satisfies Record<string, LimitRule>;
/** One-time links tried that name nothing, per client in 15 minutes (a right one gives its point back). */
export const LINK_LIMIT: LimitRule = { name: "account-link-client", points: 20, windowSeconds: 900 };
/** Reset e-mails: per address and per client, in an hour. */
export const RESET_LIMITS = {
  account: { name: "reset-account", points: 3, windowSeconds: 3600 },
  client: { name: "reset-client", points: 10, windowSeconds: 3600 },
} satisfies Record<string, LimitRule>;

export const taken = () => conflict("email", "already belongs to a member of a workspace");
export const invalidCredentials = () =>
  new ApiError(401, "invalid_credentials", "The e-mail address or password is wrong.");
export const linkGone = () =>
  new ApiError(404, "not_found", "This link is unknown, used or expired: ask for a new one (Forgot password)");

export function meOf(principal: Principal, totpEnabled: boolean): z.input<typeof Me> {
  const role = principal.role as RoleName;
  return {
    id: principal.userId,
    email: principal.email,
    role,
    permissions: [...ROLE_PERMISSIONS[role]],
    workspaceId: principal.workspaceId,
    plan: principal.plan as z.input<typeof Me>["plan"],
    totpEnabled,
  };
}

/** What a leaked API token must not do to its member's account: only a signed-in browser (or the CLI) may. */
export function sessionOnly(principal: Principal, what: string): void {
  if (!("sessionId" in principal)) {
    throw new ApiError(403, "forbidden", `${what} needs a dashboard session: an API token cannot do it`);
  }
}

/** The sign-in routes' dependencies and the helpers they share (one password budget per process). */
export type SessionKit = ReturnType<typeof sessionKit>;

export function sessionKit(deps: SessionDeps) {
  const { store, clock, config, limiter, secrets } = deps;
  const isSecure = (c: Context) => secureSessions(c, config.publicUrl);
  /**
   * Sign-in happens on the server's own address, never on a page's custom domain: a cookie set there would belong to
   * a host the page's owner controls.
   */
  const ownHost = async (c: Context) => {
    // As the name resolves: a trailing dot names the same host.
    const host = (c.req.header("host") ?? "").toLowerCase().replace(/:\d+$/, "").replace(/\.+$/, "");
    if (host && host !== new URL(config.publicUrl).hostname && (await store.views.slugForDomain(host))) {
      throw new ApiError(403, "forbidden", `Sign in at ${config.publicUrl}/dashboard/, not on a status page's domain`);
    }
  };
  let dummy: Promise<string> | undefined;
  /** A hash to verify against when there is none, so an unknown address costs what a known one does. */
  const dummyHash = () => {
    dummy ??= hashPassword(newSecret());
    return dummy;
  };
  const clientOf = (c: Context) => clientKey(clientAddress(c, config.trustedProxies));
  /**
   * Sign-in's scrypt work in this process, apart from the status pages' (PORCHLIGHT_PASSWORD_HASHES_*, the same
   * figures): a flood of guesses from many addresses is answered 429 before anything is hashed, and one account
   * under attack gets at most half of it.
   */
  const { inFlight, perSecond, pagePerSecond } = config.passwordHashes;
  const budget = new WorkBudget({
    inFlight,
    perSecond,
    keyInFlight: Math.max(1, Math.floor(inFlight / 2)),
    keyPerSecond: pagePerSecond,
    keyQueue: 2,
    queue: 64,
    maxWaitMs: 2000,
    suspectMs: 60_000,
  });
  /** Checks a password within the budget: null when there is no turn now (the caller answers 429). */
  const verifyWithin = async (key: string, candidate: string, stored: string) => {
    const turn = await budget.turn(key);
    if (!turn.granted) return { busy: turn.retryAfterSeconds } as const;
    let ok = false;
    try {
      ok = await verifyPassword(candidate, stored);
    } finally {
      turn.done(!ok);
    }
    return { ok } as const;
  };
  /** A new password's hash within the same budget; throws 429 when there is no turn now. */
  const hashWithin = async (key: string, password: string) => {
    const turn = await budget.turn(key);
    if (!turn.granted) throw busy(turn.retryAfterSeconds);
    try {
      return await hashPassword(password);
    } finally {
      turn.done(false);
    }
  };
  const busy = (seconds: number) =>
    new ApiError(429, "rate_limited", "Too many sign-ins are being checked: try again shortly", undefined, {
      "Retry-After": String(Math.max(1, seconds)),
    });

  /** Starts a session for a user: the cookie, and the answer the dashboard keeps (with the CSRF token). */
  const startSession = async (c: Context, userId: string, trx?: Transaction) => {
    const secret = newSecret();
    const csrf = newSecret();
    const now = clock.now();
    await store.sessions.createSession(userId, secretHash(secret), csrf, now.toISOString(), trx);
    setCookie(c, sessionCookieName(isSecure(c)), secret, {
      httpOnly: true,
      sameSite: "Lax",
      path: "/",
      secure: isSecure(c),
      maxAge: SESSION_MAX_MS / 1000,
    });
    return { csrf, expiresAt: new Date(now.getTime() + SESSION_MAX_MS).toISOString() };
  };

  const sessionAnswer = async (userId: string, csrf: string, expiresAt: string) => {
    const user = await store.sessions.credentialsById(userId);
    const found = user && (await store.accounts.findUserByEmail(user.email));
    if (!user || !found) throw invalidCredentials();
    const principal: Principal = {
      tokenId: "",
      userId: user.id,
      email: user.email,
      workspaceId: user.workspaceId,
      role: user.role,
      plan: found.plan,
    };
    return { user: meOf(principal, user.totpSecret !== null), csrfToken: csrf, expiresAt };
  };

  /** Counts a sign-in attempt against both limits before it is judged (so parallel guesses cannot slip past). */
  const countAttempt = async (c: Context, email: string) => {
    const keys = [
      [SIGN_IN_LIMITS.account, secretHash(email)],
      [SIGN_IN_LIMITS.client, clientOf(c)],
    ] as const;
    const states = [];
    for (const [rule, key] of keys) states.push(await limiter.consume(rule, key));
    const refused = states.filter((s) => !s.allowed).sort((a, b) => b.resetSeconds - a.resetSeconds)[0];
    return {
      refused,
      refund: async () => {
        for (const [rule, key] of keys) await limiter.refund(rule, key);
      },
    };
  };

  /**
   * A code that turns the second factor on or off: counted like a sign-in attempt (10 wrong per account in 15
   * minutes), so a stolen session cannot guess its way to the member's second factor.
   */
  const checkCode = async (c: Context, email: string, secret: string, code: string) => {
    const attempt = await countAttempt(c, email);
    if (attempt.refused) throw rateLimited(attempt.refused);
    if (!totpMatches(secret, code, clock.now())) {
      throw badRequest("Invalid body: code is wrong or has expired", [
        { field: "code", message: "is wrong or has expired" },
      ]);
    }
    await attempt.refund();
  };

  const openTotp = (sealed: string | null): string | null => {
    if (sealed === null) return null;
    return secrets.open(sealed);
  };

  return {
    ...deps,
    isSecure,
    ownHost,
    dummyHash,
    clientOf,
    verifyWithin,
    hashWithin,
    busy,
    startSession,
    sessionAnswer,
    countAttempt,
    checkCode,
    openTotp,
  };
}
