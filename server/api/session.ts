/**
 * Signing in to the dashboard: sessions behind an HttpOnly cookie, one-time links (first setup, password reset,
 * invitation), password changes and the optional TOTP second factor. Every write made with the cookie passes the
 * CSRF check in app.ts (http/auth.ts); sign-in passes its same-origin half.
 */

import { type SessionDeps, sessionKit } from "./session/kit.ts";
import { linkRoutes } from "./session/links.ts";
import { meRoutes } from "./session/me.ts";
import { sessionsRoutes } from "./session/sessions.ts";
import { totpRoutes } from "./session/totp.ts";

export { meOf, type SessionDeps, SIGN_IN_LIMITS, sessionOnly } from "./session/kit.ts";

/** The dashboard's sign-in routes, by resource (session/): one password budget shared by all of them. */
export function sessionRoutes(deps: SessionDeps) {
  const kit = sessionKit(deps);
  return [...sessionsRoutes(kit), ...meRoutes(kit), ...linkRoutes(kit), ...totpRoutes(kit)];
}
