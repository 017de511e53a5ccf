/** The caller's own account: who they are, and their password. */
import { verifyPassword } from "../../accounts/secrets.ts";
import { secretHash } from "../../accounts/sign-in.ts";
import { Envelope, envelope } from "../../contract/common.ts";
import { ChangePassword, Me, Session } from "../../contract/session.ts";
import { isSession } from "../../http/auth.ts";
import { badRequest } from "../../http/errors.ts";
import { rateLimited } from "../../http/rate-limit.ts";
import { route } from "../../http/route.ts";
import { meOf, type SessionKit } from "./kit.ts";

export function meRoutes({ hashWithin, startSession, sessionAnswer, countAttempt, store, clock }: SessionKit) {
  return [
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
  ];
}
