/** The dashboard session: who is signed in with this browser, signing in and out, here or everywhere. */
import { deleteCookie, getCookie } from "hono/cookie";
import { z } from "zod";
import {
  looksLikeSecret,
  SECURE_SESSION_COOKIE,
  SESSION_COOKIE,
  SESSION_MAX_MS,
  secretHash,
  sessionCookieName,
  totpMatches,
} from "../../accounts/sign-in.ts";
import { Envelope, envelope } from "../../contract/common.ts";
import { Session, SignIn } from "../../contract/session.ts";
import { checkSameOrigin, isSession, sessionFrom } from "../../http/auth.ts";
import { ApiError } from "../../http/errors.ts";
import { rateLimited } from "../../http/rate-limit.ts";
import { route } from "../../http/route.ts";
import { invalidCredentials, meOf, type SessionKit } from "./kit.ts";

export function sessionsRoutes({
  isSecure,
  ownHost,
  dummyHash,
  verifyWithin,
  busy,
  startSession,
  sessionAnswer,
  countAttempt,
  openTotp,
  store,
  clock,
  config,
  logger,
}: SessionKit) {
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
  ];
}
