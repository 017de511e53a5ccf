/** One-time links (setup, password reset, invitation): inspected, used to set a password; reset links asked for. */
import { z } from "zod";
import { resetEmail } from "../../accounts/emails.ts";
import { LINK_LIFETIME_MS, linkUrl, newSecret, secretHash, totpMatches } from "../../accounts/sign-in.ts";
import type { RoleName } from "../../contract/account.ts";
import { Envelope, envelope } from "../../contract/common.ts";
import { LinkInfo, LinkQuery, ResetRequest, Session, SetPassword } from "../../contract/session.ts";
import { checkSameOrigin } from "../../http/auth.ts";
import { ApiError } from "../../http/errors.ts";
import { enforceLimit, rateLimited } from "../../http/rate-limit.ts";
import { route } from "../../http/route.ts";
import { isUniqueViolation } from "../../store/connection.ts";
import { LINK_LIMIT, linkGone, RESET_LIMITS, type SessionKit, taken } from "./kit.ts";

export function linkRoutes({
  ownHost,
  clientOf,
  hashWithin,
  startSession,
  sessionAnswer,
  countAttempt,
  openTotp,
  store,
  clock,
  config,
  limiter,
  mailer,
  logger,
}: SessionKit) {
  return [
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
  ];
}
