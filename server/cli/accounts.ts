import { AccountError, createToken, createUser, type NewUser, passwordLink } from "../accounts/accounts.ts";
import { linkUrl } from "../accounts/sign-in.ts";
import type { Store } from "../store/store.ts";

/** Where a command prints: one line per call. */
export interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
}

/** `user create`: prints what was created. Throws AccountError when refused. */
export async function userCreate(store: Store, input: NewUser, io: Io, now: Date): Promise<void> {
  const user = await createUser(store, input, now);
  io.out(`Created ${user.email}: ${user.role} of workspace ${user.workspaceId} (plan ${user.plan})`);
}

/** `token create`: prints the new token alone, so that `$(porchlight token create ...)` is the token. */
export async function tokenCreate(
  store: Store,
  email: string,
  name: string | undefined,
  io: Io,
  now: Date,
): Promise<void> {
  const { token } = await createToken(store, email, name, now);
  io.out(token);
}

/** `token list`: a tab-separated table with a header line. */
export async function tokenList(store: Store, email: string, io: Io): Promise<void> {
  const user = await store.accounts.findUserByEmail(email);
  if (!user) throw new AccountError(`No user with e-mail ${email}`);
  io.out(["ID", "NAME", "CREATED", "LAST USED", "STATE"].join("\t"));
  for (const t of await store.accounts.listTokens(user.id)) {
    const state = t.revoked_at ? `revoked ${t.revoked_at}` : "active";
    io.out([t.id, t.name, t.created_at, t.last_used_at ?? "never", state].join("\t"));
  }
}

/** `token revoke`: revoking a revoked token again is not an error; an unknown ID is. */
export async function tokenRevoke(store: Store, id: string, io: Io, now: Date): Promise<void> {
  const result = await store.accounts.revokeToken(id, now.toISOString());
  if (result === "missing") throw new AccountError(`No token with ID ${id}`);
  io.out(result === "revoked" ? `Revoked ${id}` : `${id} was already revoked`);
}

/** `user link`: a new one-time link to choose a dashboard password, printed alone. */
export async function userLink(store: Store, email: string, publicUrl: string, io: Io, now: Date): Promise<void> {
  io.out(linkUrl(publicUrl, "setup", await passwordLink(store, email, now)));
}
