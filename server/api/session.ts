/**
 * Signing in to the dashboard: sessions behind an HttpOnly cookie, one-time links (first setup, password reset,
 * invitation), password changes and the optional TOTP second factor. Every write made with the cookie passes the
 * CSRF check in app.ts (http/auth.ts); sign-in passes its same-origin half.
 */
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { z } from "zod";
import { type AccountMailer, resetEmail } from "../accounts/emails.ts";
import type { SecretBox } from "../accounts/sealed.ts";
import { hashPassword, verifyPassword } from "../accounts/secrets.ts";
import {
  LINK_LIFETIME_MS,
  linkUrl,
  looksLikeSecret,
  newSecret,
  newTotpSecret,
  SECURE_SESSION_COOKIE,
  SESSION_COOKIE,
  SESSION_MAX_MS,
  secretHash,
  sessionCookieName,
  totpMatches,
  totpUri,
} from "../accounts/sign-in.ts";
import type { Clock } from "../clock.ts";
import type { Config } from "../config.ts";
import { ROLE_PERMISSIONS, type RoleName } from "../contract/account.ts";
import { Envelope, envelope } from "../contract/common.ts";
import {
  ChangePassword,
  LinkInfo,
  LinkQuery,
  Me,
  ResetRequest,
  Session,
  SetPassword,
  SignIn,
  TotpDisable,
  TotpEnable,
  TotpSetup,
} from "../contract/session.ts";
import { checkSameOrigin, isSession, secureSessions, sessionFrom } from "../http/auth.ts";
import { clientAddress, clientKey } from "../http/client-address.ts";
import { ApiError, badRequest, conflict } from "../http/errors.ts";
import { enforceLimit, type Limiter, type LimitRule, rateLimited, WorkBudget } from "../http/rate-limit.ts";
import { route } from "../http/route.ts";
import type { Logger } from "../log.ts";
import type { Principal } from "../store/accounts.ts";
import { isUniqueViolation, type Transaction } from "../store/connection.ts";
import type { Store } from "../store/store.ts";

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
const LINK_LIMIT: LimitRule = { name: "account-link-client", points: 20, windowSeconds: 900 };
/** Reset e-mails: per address and per client, in an hour. */
const RESET_LIMITS = {
  account: { name: "reset-account", points: 3, windowSeconds: 3600 },
  client: { name: "reset-client", points: 10, windowSeconds: 3600 },
} satisfies Record<string, LimitRule>;

const taken = () => conflict("email", "already belongs to a member of a workspace");
const invalidCredentials = () => new ApiError(401, "invalid_credentials", "The e-mail address or password is wrong.");
const linkGone = () =>
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

export function sessionRoutes({ store, clock, config, limiter, mailer, secrets, logger }: SessionDeps) {
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

  return [
    route({
      method: "get",
      path: "/public/v1/session",
      operationId: "getSession",
      summary: "The dashboard session of this browser",
      description:
        "Who is signed in with the session cookie, and the session's CSRF token; data is null when this browser is not signed in (asking is not an error, so the answer is 200 either way).",
      tag: "Account",
      access: "none",
      response: { status: 200, description: "The session, or null", schema: Envelope(Session.nullable()) },
      errors: [],
      handler: async ({ c }) => {
        c.header("cache-control", "no-store");
        const session = await sessionFrom(c, store, clock, config.publicUrl);
        if (!session) return envelope(200, "Not signed in", null);
        const user = await store.sessions.credentialsById(session.userId);
        const created = await store.sessions.sessionStart(session.sessionId);
        const expiresAt = new Date(Date.parse(created ?? clock.now().toISOString()) + SESSION_MAX_MS);
        return envelope(200, "Signed in", {
          user: meOf(session, (user?.totpSecret ?? null) !== null),
          csrfToken: session.csrfToken,
          expiresAt: expiresAt.toISOString(),
        });
      },
    }),
    route({
      method: "post",
      path: "/public/v1/session",
      operationId: "signIn",
      summary: "Sign in to the dashboard",
      description:
        "Checks an e-mail address and password (and, when the member turned it on, a TOTP code) and starts a session: an HttpOnly, SameSite=Lax cookie (Secure over HTTPS) that ends after 7 days unused or 30 days after sign-in. Failed attempts are limited per account (10) and per client (30) in 15 minutes; beyond, 429 with Retry-After. A wrong address and a wrong password answer alike. A right password without the member's TOTP code answers 401 totp_required.",
      tag: "Account",
      access: "none",
      rateLimit: "attempts",
      body: SignIn,
      response: { status: 200, description: "Signed in: the cookie is set", schema: Envelope(Session) },
      errors: [400, 401, 403, 429],
      errorHeaders: { 429: ["Retry-After"] },
      handler: async ({ body, c }) => {
        checkSameOrigin(c, config.publicUrl);
        await ownHost(c);
        const email = body.email.trim().toLowerCase();
        const attempt = await countAttempt(c, email);
        if (attempt.refused) throw rateLimited(attempt.refused);
        const user = await store.sessions.credentials(email);
        const checked = await verifyWithin(secretHash(email), body.password, user?.passwordHash ?? (await dummyHash()));
        if (checked.busy !== undefined) {
          // Never checked: the attempt gives its points back.
          await attempt.refund();
          throw busy(checked.busy);
        }
        if (!user?.passwordHash || !checked.ok) throw invalidCredentials();
        const totp = openTotp(user.totpSecret);
        if (totp !== null) {
          if (body.totp === undefined) {
            await attempt.refund();
            throw new ApiError(401, "totp_required", "Enter the 6-digit code of your authenticator app");
          }
          if (!totpMatches(totp, body.totp, clock.now())) {
            throw new ApiError(401, "invalid_credentials", "The authenticator code is wrong or has expired");
          }
        }
        await attempt.refund();
        const { csrf, expiresAt } = await startSession(c, user.id);
        logger.info({ userId: user.id }, "signed in");
        return envelope(200, "Signed in", await sessionAnswer(user.id, csrf, expiresAt));
      },
    }),
    route({
      method: "delete",
      path: "/public/v1/session",
      operationId: "signOut",
      summary: "Sign out of this browser",
      description:
        "Ends the session at once (the cookie no longer works anywhere, even if kept) and clears the cookie.",
      tag: "Account",
      access: "none",
      response: { status: 204, description: "Signed out", schema: z.undefined() },
      errors: [403],
      handler: async ({ c }) => {
        checkSameOrigin(c, config.publicUrl);
        // Both names: a browser may hold a plain cookie from before the server moved to HTTPS.
        for (const name of [SECURE_SESSION_COOKIE, SESSION_COOKIE]) {
          const cookie = getCookie(c, name);
          if (looksLikeSecret(cookie)) await store.sessions.deleteSession(secretHash(cookie));
          if (cookie !== undefined)
            deleteCookie(c, name, { path: "/", secure: name === SECURE_SESSION_COOKIE || isSecure(c) });
        }
        deleteCookie(c, sessionCookieName(isSecure(c)), { path: "/", secure: isSecure(c) });
        return c.body(null, 204);
      },
    }),
    route({
      method: "post",
      path: "/public/v1/me/sign-out-everywhere",
      operationId: "signOutEverywhere",
      summary: "End every dashboard session of the caller",
      description: "Every browser signed in as the caller is signed out at once, this one included. API tokens stay.",
      tag: "Account",
      access: "token",
      response: {
        status: 200,
        description: "Sessions ended",
        schema: Envelope(z.object({ ended: z.int().meta({ description: "Sessions that ended" }) })),
      },
      errors: [401, 403],
      handler: async ({ principal, c }) => {
        const ended = await store.sessions.deleteSessions(principal.userId);
        if (isSession(principal)) deleteCookie(c, sessionCookieName(isSecure(c)), { path: "/", secure: isSecure(c) });
        return envelope(200, "Signed out everywhere", { ended });
      },
    }),
    route({
      method: "get",
      path: "/public/v1/me",
      operationId: "getMe",
      summary: "The caller: address, role, what the role allows, plan",
      tag: "Account",
      access: "token",
      response: { status: 200, description: "The caller", schema: Envelope(Me) },
      errors: [401],
      handler: async ({ principal }) => {
        const user = await store.sessions.credentialsById(principal.userId);
        return envelope(200, "OK", meOf(principal, (user?.totpSecret ?? null) !== null));
      },
    }),
    route({
      method: "post",
      path: "/public/v1/account-links/inspect",
      operationId: "inspectAccountLink",
      summary: "What a setup, reset or invitation link is for",
      description:
        "The address (and, for an invitation, the role and workspace) a one-time link is for, without using it. 404 when it is unknown, used or expired.",
      tag: "Account",
      access: "none",
      body: LinkQuery,
      response: { status: 200, description: "The link", schema: Envelope(LinkInfo) },
      errors: [400, 404],
      handler: async ({ body }) => {
        const link = await store.sessions.peekLink(secretHash(body.token), clock.now().toISOString());
        if (!link) throw linkGone();
        const workspace = await store.sessions.workspaceName(link.workspaceId);
        return envelope(200, "OK", {
          kind: link.kind,
          email: link.email,
          role: link.role as RoleName | null,
          workspace: workspace ?? "",
        });
      },
    }),
    route({
      method: "post",
      path: "/public/v1/account-links/use",
      operationId: "useAccountLink",
      summary: "Set a password with a one-time link, and sign in",
      description:
        "With a setup or reset link, sets the member's password and signs every other session out; with an invitation, creates the member with the invited role. Then starts a session, as sign-in does. The link works once. A reset link of a member with TOTP on also needs `totp`, the authenticator's current code (401 totp_required without it): a mailbox alone does not get past the second factor. Links that name nothing count against 20 per client in 15 minutes; beyond, 429.",
      tag: "Account",
      access: "none",
      rateLimit: "attempts",
      body: SetPassword,
      response: { status: 200, description: "Password set, signed in", schema: Envelope(Session) },
      errors: [400, 401, 403, 404, 409],
      errorHeaders: { 429: ["Retry-After"] },
      handler: async ({ body, c }) => {
        checkSameOrigin(c, config.publicUrl);
        await ownHost(c);
        // The link first, the password's hash after: a made-up token costs a lookup, never a hash.
        const counted = await limiter.consume(LINK_LIMIT, clientOf(c));
        if (!counted.allowed) throw rateLimited(counted);
        const link = await store.sessions.peekLink(secretHash(body.token), clock.now().toISOString());
        if (!link) throw linkGone();
        await limiter.refund(LINK_LIMIT, clientOf(c));
        if (link.kind === "reset" && link.userId) {
          const totp = openTotp((await store.sessions.credentialsById(link.userId))?.totpSecret ?? null);
          if (totp !== null) {
            if (body.totp === undefined) {
              throw new ApiError(401, "totp_required", "Enter the 6-digit code of your authenticator app");
            }
            const attempt = await countAttempt(c, link.email);
            if (attempt.refused) throw rateLimited(attempt.refused);
            if (!totpMatches(totp, body.totp, clock.now())) {
              throw new ApiError(401, "invalid_credentials", "The authenticator code is wrong or has expired");
            }
            await attempt.refund();
          }
        }
        const passwordHash = await hashWithin(secretHash(link.email), body.password);
        const now = clock.now().toISOString();
        let session: { csrf: string; expiresAt: string } | undefined;
        const userId = await store.sessions.useLink(
          secretHash(body.token),
          ["setup", "reset", "invite"],
          now,
          async (link, trx) => {
            let id = link.userId;
            if (link.kind === "invite") {
              if (await store.sessions.emailTaken(link.email, trx)) throw taken();
              try {
                const created = await store.accounts.createUser(
                  { email: link.email, workspaceId: link.workspaceId, role: link.role ?? "viewer" },
                  now,
                  trx,
                );
                id = created.id;
              } catch (error) {
                // Two invitations to one address accepted at the same moment: the second finds it taken.
                if (isUniqueViolation(error)) throw taken();
                throw error;
              }
            }
            if (id === null) return null;
            await store.sessions.setPassword(id, passwordHash, now, trx);
            session = await startSession(c, id, trx);
            return id;
          },
        );
        if (!userId || !session) throw linkGone();
        store.accounts.forgetPrincipals();
        return envelope(200, "Password set", await sessionAnswer(userId, session.csrf, session.expiresAt));
      },
    }),
    route({
      method: "post",
      path: "/public/v1/password-reset",
      operationId: "requestPasswordReset",
      summary: "E-mail a password reset link",
      description:
        "Sends a one-time link (valid for an hour) to the address when it belongs to a member. The answer is the same either way, so it does not tell who is a member. Limited to 3 per address and 10 per client an hour.",
      tag: "Account",
      access: "none",
      rateLimit: "client",
      body: ResetRequest,
      response: {
        status: 202,
        description: "If the address is a member's, the link is on its way",
        schema: Envelope(z.object({})),
      },
      errors: [400, 403, 429],
      errorHeaders: { 429: ["Retry-After"] },
      handler: async ({ body, c }) => {
        checkSameOrigin(c, config.publicUrl);
        const email = body.email.toLowerCase();
        await enforceLimit(c, limiter, RESET_LIMITS.client, clientOf(c));
        const perAddress = await limiter.consume(RESET_LIMITS.account, secretHash(email));
        if (!perAddress.allowed) throw rateLimited(perAddress);
        // Everything about the address happens after the answer: its time must not tell a member's from another.
        void (async () => {
          const user = await store.sessions.credentials(email);
          if (!user) return;
          const token = newSecret();
          const now = clock.now();
          await store.sessions.expireLinks(user.workspaceId, "reset", email, now.toISOString());
          await store.sessions.createLink(
            {
              kind: "reset",
              workspaceId: user.workspaceId,
              userId: user.id,
              email,
              role: null,
              tokenHash: secretHash(token),
              expiresAt: new Date(now.getTime() + LINK_LIFETIME_MS.reset).toISOString(),
            },
            now.toISOString(),
          );
          await mailer.send({ to: email, ...resetEmail(linkUrl(config.publicUrl, "reset", token)) });
        })().catch((err: unknown) => logger.warn({ err: (err as Error).message }, "password reset e-mail failed"));
        return envelope(202, "If the address is a member's, a reset link is on its way", {});
      },
    }),
    route({
      method: "post",
      path: "/public/v1/me/password",
      operationId: "changePassword",
      summary: "Change the caller's password",
      description:
        "Checks the current password, sets the new one and signs every session out; with a session cookie, this browser gets a new session in the answer.",
      tag: "Account",
      access: "token",
      body: ChangePassword,
      response: { status: 200, description: "Password changed", schema: Envelope(Session.partial()) },
      errors: [400, 401, 403, 429],
      handler: async ({ body, principal, c }) => {
        const attempt = await countAttempt(c, principal.email);
        if (attempt.refused) throw rateLimited(attempt.refused);
        const user = await store.sessions.credentialsById(principal.userId);
        if (!user?.passwordHash || !(await verifyPassword(body.currentPassword, user.passwordHash))) {
          throw badRequest("Invalid body: currentPassword is wrong", [
            { field: "currentPassword", message: "is wrong" },
          ]);
        }
        await attempt.refund();
        const passwordHash = await hashWithin(secretHash(user.email), body.password);
        await store.sessions.setPassword(user.id, passwordHash, clock.now().toISOString());
        if (!isSession(principal)) return envelope(200, "Password changed", {});
        const { csrf, expiresAt } = await startSession(c, user.id);
        return envelope(200, "Password changed", await sessionAnswer(user.id, csrf, expiresAt));
      },
    }),
    route({
      method: "post",
      path: "/public/v1/me/totp/setup",
      operationId: "startTotp",
      summary: "Start turning on a TOTP second factor",
      description:
        "A new secret for an authenticator app, and a sealed copy to send back with its first code (POST /public/v1/me/totp). Nothing changes until then. Only with a dashboard session (an API token gets 403).",
      tag: "Account",
      access: "token",
      response: { status: 200, description: "A new secret", schema: Envelope(TotpSetup) },
      errors: [401, 403],
      handler: async ({ principal }) => {
        sessionOnly(principal, "Setting up a second factor");
        const secret = newTotpSecret();
        const sealed = secrets.seal(`${principal.userId}:${secret}`);
        return envelope(200, "Scan the code, then send its first 6 digits", {
          secret,
          uri: totpUri(secret, principal.email, "Porchlight"),
          sealed,
        });
      },
    }),
    route({
      method: "post",
      path: "/public/v1/me/totp",
      operationId: "enableTotp",
      summary: "Turn the TOTP second factor on",
      description:
        "With the sealed secret of the setup answer and a current code from the app. Sign-in then asks for a code.",
      tag: "Account",
      access: "token",
      body: TotpEnable,
      response: { status: 200, description: "On", schema: Envelope(Me) },
      errors: [400, 401, 403, 409],
      handler: async ({ body, principal, c }) => {
        sessionOnly(principal, "Turning the second factor on");
        if ((await store.sessions.credentialsById(principal.userId))?.totpSecret) {
          throw conflict(
            "code",
            "the second factor is on already: turn it off (with a code) before setting up another",
          );
        }
        let secret: string | undefined;
        try {
          const [owner, value] = secrets.open(body.sealed).split(":");
          if (owner === principal.userId) secret = value;
        } catch {
          // Not sealed by this server: refused below.
        }
        if (!secret)
          throw badRequest("Invalid body: sealed is not a setup of yours", [
            { field: "sealed", message: "is not a setup of yours" },
          ]);
        await checkCode(c, principal.email, secret, body.code);
        await store.sessions.setTotpSecret(principal.userId, secrets.seal(secret));
        return envelope(200, "Second factor on", meOf(principal, true));
      },
    }),
    route({
      method: "post",
      path: "/public/v1/me/totp/disable",
      operationId: "disableTotp",
      summary: "Turn the TOTP second factor off",
      description: "With a current code from the app. Only with a dashboard session (an API token gets 403).",
      tag: "Account",
      access: "token",
      body: TotpDisable,
      response: { status: 200, description: "Off", schema: Envelope(Me) },
      errors: [400, 401, 403],
      handler: async ({ body, principal, c }) => {
        sessionOnly(principal, "Turning the second factor off");
        const user = await store.sessions.credentialsById(principal.userId);
        const secret = openTotp(user?.totpSecret ?? null);
        if (secret === null) return envelope(200, "Second factor off", meOf(principal, false));
        await checkCode(c, principal.email, secret, body.code);
        await store.sessions.setTotpSecret(principal.userId, null);
        return envelope(200, "Second factor off", meOf(principal, false));
      },
    }),
  ];
}
