import { z } from "zod";
import { AccountEmail, Plan, RoleName } from "../contract/account.ts";
import type { Store } from "../store/store.ts";
import { generateToken, hashToken } from "./secrets.ts";
import { LINK_LIFETIME_MS, newSecret, secretHash } from "./sign-in.ts";

/** A request the account commands refuse, with a message for the person who typed it. */
export class AccountError extends Error {}

function check<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const r = schema.safeParse(value);
  if (!r.success) throw new AccountError(`${what}: ${r.error.issues[0]?.message ?? "invalid"}`);
  return r.data;
}

export interface NewUser {
  email: string;
  plan?: string | undefined;
  join?: string | undefined;
  role?: string | undefined;
}

/**
 * Creates a user. Without `join`, the user owns a new workspace on `plan` (default free). With `join`, the user
 * becomes a member of that owner's workspace with `role` (admin, editor or viewer; a workspace has one owner).
 */
export async function createUser(store: Store, input: NewUser, now: Date) {
  const email = check(AccountEmail, input.email, "--email").toLowerCase();
  if (await store.accounts.findUserByEmail(email)) throw new AccountError(`A user with e-mail ${email} already exists`);
  if (input.join === undefined) {
    if (input.role !== undefined) throw new AccountError("--role goes with --join");
    const plan = check(Plan, input.plan ?? "free", "--plan");
    const created = await store.accounts.createUser({ email, plan }, now.toISOString());
    return { ...created, email, plan };
  }
  if (input.plan !== undefined) throw new AccountError("--plan belongs to the workspace; it cannot go with --join");
  const owner = await store.accounts.findUserByEmail(check(AccountEmail, input.join, "--join"));
  if (!owner) throw new AccountError(`No user with e-mail ${input.join}`);
  const role = check(RoleName.exclude(["owner"]), input.role ?? "viewer", "--role");
  const created = await store.accounts.createUser({ email, workspaceId: owner.workspace_id, role }, now.toISOString());
  return { ...created, email, plan: owner.plan };
}

/** Issues a token for a user; the plain token is returned once and never stored. */
export async function createToken(store: Store, email: string, name: string | undefined, now: Date) {
  const user = await store.accounts.findUserByEmail(check(AccountEmail, email, "--email"));
  if (!user) throw new AccountError(`No user with e-mail ${email}`);
  const tokenName = check(z.string().trim().min(1).max(100), name ?? "cli", "--name");
  const token = generateToken();
  const id = await store.accounts.createToken(user.id, tokenName, hashToken(token), now.toISOString());
  return { id, token };
}

/** What a first start made: the owner's first API token and the secret of their setup link (each shown once). */
export interface FirstOwner {
  token: string;
  setupToken: string;
}

/**
 * On an empty database, creates the owner (plan stack), a first token and a one-time link to choose a dashboard
 * password (valid 7 days), exactly once even when several processes start together. Returns both secrets, or null
 * when there was nothing to do.
 */
export async function bootstrapOwner(store: Store, email: string, now: Date): Promise<FirstOwner | null> {
  if ((await store.accounts.countUsers()) > 0) return null;
  const at = now.toISOString();
  return store.once("bootstrap_owner", at, async (trx) => {
    const user = await store.accounts.createUser({ email, plan: "stack" }, at, trx);
    const token = generateToken();
    await store.accounts.createToken(user.id, "first start", hashToken(token), at, trx);
    const setupToken = newSecret();
    await store.sessions.createLink(
      {
        kind: "setup",
        workspaceId: user.workspaceId,
        userId: user.id,
        email,
        role: null,
        tokenHash: secretHash(setupToken),
        expiresAt: new Date(now.getTime() + LINK_LIFETIME_MS.setup).toISOString(),
      },
      at,
      trx,
    );
    return { token, setupToken };
  });
}

/**
 * A new one-time link for a user to choose a dashboard password (a lost first-start link, a forgotten password on
 * a server without mail): valid 7 days; earlier unused ones stop working. Returns the link's secret.
 */
export async function passwordLink(store: Store, email: string, now: Date): Promise<string> {
  const user = await store.accounts.findUserByEmail(check(AccountEmail, email, "--email"));
  if (!user) throw new AccountError(`No user with e-mail ${email}`);
  const at = now.toISOString();
  await store.sessions.expireLinks(user.workspace_id, "setup", user.email, at);
  const secret = newSecret();
  await store.sessions.createLink(
    {
      kind: "setup",
      workspaceId: user.workspace_id,
      userId: user.id,
      email: user.email,
      role: null,
      tokenHash: secretHash(secret),
      expiresAt: new Date(now.getTime() + LINK_LIFETIME_MS.setup).toISOString(),
    },
    at,
  );
  return secret;
}
