import type { Context } from "hono";
import { getCookie } from "hono/cookie";
import { hashToken, looksLikeToken } from "../accounts/secrets.ts";
import {
  looksLikeSecret,
  SECURE_SESSION_COOKIE,
  SESSION_COOKIE,
  SESSION_IDLE_MS,
  SESSION_MAX_MS,
  sameText,
  secretHash,
} from "../accounts/sign-in.ts";
import type { Clock } from "../clock.ts";
import type { Principal } from "../store/accounts.ts";
import type { SessionPrincipal } from "../store/sessions.ts";
import { ApiError } from "./errors.ts";
import { header } from "./headers.ts";

/** The token of an Authorization header: null when absent, "invalid" when not a bearer token of ours. */
export function bearerToken(authorization: string | undefined): string | null | "invalid" {
  if (authorization === undefined) return null;
  const token = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization)?.[1];
  return token && looksLikeToken(token) ? token : "invalid";
}

/** What principalFrom reads. */
interface AuthStore {
  accounts: { authenticate(tokenHash: string, now: Date): Promise<Principal | null> };
  sessions: {
    session(idHash: string, now: Date, seenAfter: Date, createdAfter: Date): Promise<SessionPrincipal | null>;
  };
}

/** Whether this server's sessions are HTTPS ones: its public address is https:, or the request came by TLS. */
export function secureSessions(c: Context, publicUrl: string): boolean {
  return publicUrl.startsWith("https:") || new URL(c.req.url).protocol === "https:";
}

/**
 * The principal of the request's dashboard session cookie, or null (none, unknown, or past either limit). Over
 * HTTPS only the `__Host-` cookie counts: a plain-named one could have been planted by a sibling subdomain.
 */
export async function sessionFrom(
  c: Context,
  store: AuthStore,
  clock: Clock,
  publicUrl: string,
): Promise<SessionPrincipal | null> {
  const cookie = getCookie(c, secureSessions(c, publicUrl) ? SECURE_SESSION_COOKIE : SESSION_COOKIE);
  if (!looksLikeSecret(cookie)) return null;
  const now = clock.now();
  return store.sessions.session(
    secretHash(cookie),
    now,
    new Date(now.getTime() - SESSION_IDLE_MS),
    new Date(now.getTime() - SESSION_MAX_MS),
  );
}

/**
 * The principal behind the request: its bearer token when an Authorization header was sent, else its dashboard
 * session cookie. null when neither names anyone; "invalid" when an Authorization header was sent and does not
 * name a live token.
 */
export async function principalFrom(
  c: Context,
  store: AuthStore,
  clock: Clock,
  publicUrl: string,
): Promise<Principal | SessionPrincipal | null | "invalid"> {
  const token = bearerToken(header(c, "authorization"));
  if (token === "invalid") return token;
  if (token === null) return sessionFrom(c, store, clock, publicUrl);
  return (await store.accounts.authenticate(hashToken(token), clock.now())) ?? "invalid";
}

export function isSession(principal: Principal): principal is SessionPrincipal {
  return "sessionId" in principal;
}

export const CSRF_HEADER = "x-csrf-token";

const csrfRefused = (why: string) =>
  new ApiError(403, "csrf_failed", `Refused as a possible cross-site request: ${why}`);

/**
 * A browser's request must come from the dashboard's own origin: Sec-Fetch-Site, when the browser sends it, says
 * same-origin (or none: typed by the user), and Origin, when sent, is this server's. Every cookie-authenticated
 * write passes this, and sign-in too (so no other site can sign a browser into an attacker's account).
 */
export function checkSameOrigin(c: Context, publicUrl: string): void {
  const site = header(c, "sec-fetch-site");
  if (site !== undefined && site !== "same-origin" && site !== "none") throw csrfRefused(`Sec-Fetch-Site is ${site}`);
  const origin = header(c, "origin");
  if (origin === undefined) return;
  const own = new Set([new URL(publicUrl).origin, new URL(c.req.url).origin]);
  const host = header(c, "host");
  if (host) own.add(`${new URL(c.req.url).protocol}//${host}`);
  if (!own.has(origin)) throw csrfRefused("the Origin is another site");
}

/** A write made with the session cookie: same origin, and the session's CSRF token in X-CSRF-Token. */
export function checkCsrf(c: Context, principal: SessionPrincipal, publicUrl: string): void {
  checkSameOrigin(c, publicUrl);
  const sent = header(c, CSRF_HEADER);
  if (sent === undefined || !sameText(sent, principal.csrfToken)) {
    throw csrfRefused("send the session's csrfToken in the X-CSRF-Token header");
  }
}
