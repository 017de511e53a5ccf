/**
 * A workspace's members and invitations, the caller's API tokens, and the plan with its usage: what the dashboard's
 * account screens show, scriptable like everything else.
 */
import { z } from "zod";
import { type AccountMailer, invitationEmail } from "../accounts/emails.ts";
import { generateToken, hashToken } from "../accounts/secrets.ts";
import { LINK_LIFETIME_MS, linkUrl, newSecret, secretHash } from "../accounts/sign-in.ts";
import type { Clock } from "../clock.ts";
import { type Plan, STATUS_PAGE_LIMITS, Usage } from "../contract/account.ts";
import { Envelope, envelope } from "../contract/common.ts";
import {
  ApiToken,
  ApiTokenCreate,
  Invitation,
  InvitationCreate,
  InvitationId,
  Member,
  MemberId,
  MemberList,
  MemberPatch,
  NewApiToken,
  TokenId,
} from "../contract/session.ts";
import { ApiError, conflict, notFound } from "../http/errors.ts";
import { route } from "../http/route.ts";
import type { Logger } from "../log.ts";
import { apiToken } from "../store/accounts.ts";
import type { Store } from "../store/store.ts";
import { sessionOnly } from "./session.ts";

export interface MemberDeps {
  store: Store;
  clock: Clock;
  publicUrl: string;
  mailer: AccountMailer;
  logger: Logger;
}

type MemberRow = Awaited<ReturnType<Store["sessions"]["members"]>>[number];

const memberView = (m: MemberRow, role = m.role): z.input<typeof Member> => ({
  id: m.id,
  email: m.email,
  role: role as "owner",
  createdAt: m.created_at,
  hasPassword: m.password_hash !== null,
  totpEnabled: m.totp_secret !== null,
});

export function memberRoutes({ store, clock, publicUrl, mailer, logger }: MemberDeps) {
  /** A member of the caller's workspace who is not its owner (whose role and membership never change). */
  const changeable = async (workspaceId: string, memberId: string, what: string) => {
    const member = (await store.sessions.members(workspaceId)).find((m) => m.id === memberId);
    if (!member) throw notFound("Member");
    if (member.role === "owner") throw new ApiError(403, "forbidden", `The owner ${what}`);
    return member;
  };
  return [
    route({
      method: "get",
      path: "/public/v1/members",
      operationId: "listMembers",
      summary: "The workspace's members and pending invitations",
      tag: "Members",
      access: "token",
      permission: "members:manage",
      response: {
        status: 200,
        description: "Members, oldest first, and pending invitations, newest first",
        schema: Envelope(MemberList),
      },
      errors: [401, 403],
      handler: async ({ principal }) => {
        const members = await store.sessions.members(principal.workspaceId);
        const invitations = await store.sessions.pendingInvitations(principal.workspaceId, clock.now().toISOString());
        return envelope(200, "OK", {
          members: members.map((m) => memberView(m)),
          invitations: invitations.map((i) => ({
            id: i.id,
            email: i.email,
            role: (i.role ?? "viewer") as "viewer",
            createdAt: i.created_at,
            expiresAt: i.expires_at,
          })),
        });
      },
    }),
    route({
      method: "post",
      path: "/public/v1/invitations",
      operationId: "inviteMember",
      summary: "Invite someone by e-mail, with a role",
      description:
        "E-mails a one-time link (valid 7 days) that creates the member with the role once they choose a password. A new invitation to the same address replaces the last. 409 when the address already has an account.",
      tag: "Members",
      access: "token",
      permission: "members:manage",
      body: InvitationCreate,
      response: { status: 201, description: "Invited", schema: Envelope(Invitation) },
      errors: [400, 401, 403, 409],
      handler: async ({ body, principal }) => {
        const email = body.email.toLowerCase();
        if (await store.sessions.emailTaken(email)) throw conflict("email", "already has a Porchlight account");
        const now = clock.now();
        const token = newSecret();
        const expiresAt = new Date(now.getTime() + LINK_LIFETIME_MS.invite).toISOString();
        await store.sessions.expireLinks(principal.workspaceId, "invite", email, now.toISOString());
        const id = await store.sessions.createLink(
          {
            kind: "invite",
            workspaceId: principal.workspaceId,
            userId: null,
            email,
            role: body.role,
            tokenHash: secretHash(token),
            expiresAt,
          },
          now.toISOString(),
        );
        const workspace = (await store.sessions.workspaceName(principal.workspaceId)) ?? principal.email;
        void mailer
          .send({
            to: email,
            ...invitationEmail({
              url: linkUrl(publicUrl, "invite", token),
              inviter: principal.email,
              workspace,
              role: body.role,
            }),
          })
          .catch((err: unknown) => logger.warn({ err: (err as Error).message }, "invitation e-mail failed"));
        return envelope(201, "Invited", { id, email, role: body.role, createdAt: now.toISOString(), expiresAt });
      },
    }),
    route({
      method: "delete",
      path: "/public/v1/invitations/{invitationId}",
      operationId: "revokeInvitation",
      summary: "Withdraw a pending invitation",
      tag: "Members",
      access: "token",
      permission: "members:manage",
      params: z.object({ invitationId: InvitationId.meta({ description: "The invitation's id" }) }),
      response: { status: 204, description: "Withdrawn: the link no longer works", schema: z.undefined() },
      errors: [401, 403, 404],
      handler: async ({ params, principal, c }) => {
        const done = await store.sessions.revokeInvitation(
          principal.workspaceId,
          params.invitationId,
          clock.now().toISOString(),
        );
        if (!done) throw notFound("Invitation");
        return c.body(null, 204);
      },
    }),
    route({
      method: "patch",
      path: "/public/v1/members/{memberId}",
      operationId: "updateMember",
      summary: "Change a member's role",
      description: "The owner's role cannot change (403).",
      tag: "Members",
      access: "token",
      permission: "members:manage",
      params: z.object({ memberId: MemberId.meta({ description: "The member's id" }) }),
      body: MemberPatch,
      response: { status: 200, description: "Changed", schema: Envelope(Member) },
      errors: [400, 401, 403, 404],
      handler: async ({ params, body, principal }) => {
        const member = await changeable(principal.workspaceId, params.memberId, "keeps the role of owner");
        await store.sessions.setRole(principal.workspaceId, member.id, body.role);
        return envelope(200, "Role changed", memberView(member, body.role));
      },
    }),
    route({
      method: "delete",
      path: "/public/v1/members/{memberId}",
      operationId: "removeMember",
      summary: "Remove a member",
      description: "Their sessions end and their API tokens stop working at once. The owner cannot be removed (403).",
      tag: "Members",
      access: "token",
      permission: "members:manage",
      params: z.object({ memberId: MemberId.meta({ description: "The member's id" }) }),
      response: { status: 204, description: "Removed", schema: z.undefined() },
      errors: [401, 403, 404],
      handler: async ({ params, principal, c }) => {
        const member = await changeable(principal.workspaceId, params.memberId, "cannot be removed");
        await store.sessions.removeMember(principal.workspaceId, member.id);
        return c.body(null, 204);
      },
    }),
    route({
      method: "get",
      path: "/public/v1/workspace/usage",
      operationId: "getUsage",
      summary: "The workspace's plan and what it uses of it",
      tag: "Members",
      access: "token",
      response: { status: 200, description: "Plan and usage", schema: Envelope(Usage) },
      errors: [401],
      handler: async ({ principal }) => {
        const usage = await store.sessions.usage(principal.workspaceId);
        const limit = STATUS_PAGE_LIMITS[principal.plan as Plan];
        return envelope(200, "OK", {
          plan: principal.plan as Plan,
          statusPages: { used: usage.pages, limit: Number.isFinite(limit) ? limit : null },
          sites: { used: usage.sites },
          members: { used: usage.members },
        });
      },
    }),
    route({
      method: "get",
      path: "/public/v1/tokens",
      operationId: "listTokens",
      summary: "The caller's API tokens",
      description: "Newest first, revoked ones included, never the tokens themselves (only their hashes are stored).",
      tag: "Members",
      access: "token",
      response: { status: 200, description: "Tokens", schema: Envelope(z.array(ApiToken)) },
      errors: [401],
      handler: async ({ principal }) => {
        const rows = await store.accounts.listTokens(principal.userId);
        return envelope(200, "OK", rows.map(apiToken));
      },
    }),
    route({
      method: "post",
      path: "/public/v1/tokens",
      operationId: "createToken",
      summary: "Create an API token for the caller",
      description:
        "The token acts as its member, with the member's role. This answer is the only one that shows it. Only with a dashboard session (an API token cannot make more tokens: 403; the CLI's `porchlight token create` can).",
      tag: "Members",
      access: "token",
      body: ApiTokenCreate,
      response: { status: 201, description: "Created", schema: Envelope(NewApiToken) },
      errors: [400, 401, 403],
      handler: async ({ body, principal }) => {
        sessionOnly(principal, "Creating an API token");
        const token = generateToken();
        const now = clock.now().toISOString();
        const id = await store.accounts.createToken(principal.userId, body.name, hashToken(token), now);
        return envelope(201, "Created: store the token now, it is not shown again", {
          id,
          name: body.name,
          createdAt: now,
          lastUsedAt: null,
          revokedAt: null,
          token,
        });
      },
    }),
    route({
      method: "delete",
      path: "/public/v1/tokens/{tokenId}",
      operationId: "revokeToken",
      summary: "Revoke one of the caller's API tokens",
      description: "It stops working at once, in every process.",
      tag: "Members",
      access: "token",
      params: z.object({ tokenId: TokenId.meta({ description: "The token's id" }) }),
      response: { status: 204, description: "Revoked", schema: z.undefined() },
      errors: [401, 403, 404],
      handler: async ({ params, principal, c }) => {
        const result = await store.accounts.revokeToken(params.tokenId, clock.now().toISOString(), principal.userId);
        if (result === "missing") throw notFound("Token");
        return c.body(null, 204);
      },
    }),
  ];
}
