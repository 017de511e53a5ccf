import type { Kysely } from "kysely";
import type { AccountQueries, Principal } from "./accounts.ts";
import { type Connection, newId, Queries } from "./connection.ts";
import type { Database } from "./schema.ts";

/** A signed-in browser's principal: who, in which workspace, and the session's CSRF token. */
export interface SessionPrincipal extends Principal {
  sessionId: string;
  csrfToken: string;
}

export type LinkKind = "setup" | "reset" | "invite";

/** What an unused, unexpired one-time link stands for. */
export interface AccountLink {
  id: string;
  kind: LinkKind;
  workspaceId: string;
  userId: string | null;
  email: string;
  role: string | null;
}

/** The user a dashboard sign-in names, with what checking it needs. */
export interface Credentials {
  id: string;
  email: string;
  workspaceId: string;
  role: string;
  passwordHash: string | null;
  totpSecret: string | null;
}

/**
 * Dashboard sessions, one-time account links (setup, reset, invitation) and the members of a workspace. Session ids
 * and link tokens are stored as their SHA-256 only: the database never holds what a browser or an e-mail carries.
 */
export class SessionQueries extends Queries {
  /** @param accounts whose cached token principals a change of role or membership drops. */
  constructor(
    connection: Connection,
    private readonly accounts: AccountQueries,
  ) {
    super(connection);
  }

  async credentials(email: string): Promise<Credentials | undefined> {
    const row = await this.db
      .selectFrom("users")
      .select(["id", "email", "workspace_id", "role", "password_hash", "totp_secret"])
      .where("email", "=", email.toLowerCase())
      .executeTakeFirst();
    return row && credentialsOf(row);
  }

  async credentialsById(userId: string): Promise<Credentials | undefined> {
    const row = await this.db
      .selectFrom("users")
      .select(["id", "email", "workspace_id", "role", "password_hash", "totp_secret"])
      .where("id", "=", userId)
      .executeTakeFirst();
    return row && credentialsOf(row);
  }

  async createSession(
    userId: string,
    idHash: string,
    csrfToken: string,
    now: string,
    trx: Kysely<Database> = this.db,
  ): Promise<void> {
    await trx
      .insertInto("sessions")
      .values({ id: idHash, user_id: userId, csrf_token: csrfToken, created_at: now, last_seen_at: now })
      .execute();
  }

  /**
   * The principal of a live session: created after `createdAfter` (the absolute limit) and used after `seenAfter`
   * (the idle limit). last_seen_at moves at most once a minute.
   */
  async session(idHash: string, now: Date, seenAfter: Date, createdAfter: Date): Promise<SessionPrincipal | null> {
    const row = await this.db
      .selectFrom("sessions as s")
      .innerJoin("users as u", "u.id", "s.user_id")
      .innerJoin("workspaces as w", "w.id", "u.workspace_id")
      .select(["s.id", "s.csrf_token", "s.created_at", "s.last_seen_at", "u.id as user_id", "u.email", "u.role"])
      .select(["w.id as ws", "w.plan"])
      .where("s.id", "=", idHash)
      .executeTakeFirst();
    if (!row) return null;
    if (row.last_seen_at <= seenAfter.toISOString() || row.created_at <= createdAfter.toISOString()) {
      await this.db.deleteFrom("sessions").where("id", "=", idHash).execute();
      return null;
    }
    if (now.getTime() - Date.parse(row.last_seen_at) > 60_000) {
      await this.db.updateTable("sessions").set({ last_seen_at: now.toISOString() }).where("id", "=", idHash).execute();
    }
    return {
      tokenId: `session:${row.id.slice(0, 16)}`,
      sessionId: row.id,
      csrfToken: row.csrf_token,
      userId: row.user_id,
      email: row.email,
      workspaceId: row.ws,
      role: row.role,
      plan: row.plan,
    };
  }

  /** When a session began, or undefined when it has ended. */
  async sessionStart(idHash: string): Promise<string | undefined> {
    const row = await this.db.selectFrom("sessions").select("created_at").where("id", "=", idHash).executeTakeFirst();
    return row?.created_at;
  }

  async workspaceName(workspaceId: string): Promise<string | undefined> {
    const row = await this.db.selectFrom("workspaces").select("name").where("id", "=", workspaceId).executeTakeFirst();
    return row?.name;
  }

  /** Whether any user has this address (an invitation cannot make a second). */
  async emailTaken(email: string, trx: Kysely<Database> = this.db): Promise<boolean> {
    const row = await trx.selectFrom("users").select("id").where("email", "=", email.toLowerCase()).executeTakeFirst();
    return row !== undefined;
  }

  async deleteSession(idHash: string): Promise<void> {
    await this.db.deleteFrom("sessions").where("id", "=", idHash).execute();
  }

  /** Signs a user out everywhere; returns how many sessions ended. */
  async deleteSessions(userId: string, trx: Kysely<Database> = this.db): Promise<number> {
    const result = await trx.deleteFrom("sessions").where("user_id", "=", userId).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** Forgets sessions past either limit (housekeeping). */
  async deleteExpiredSessions(seenBefore: Date, createdBefore: Date): Promise<void> {
    await this.db
      .deleteFrom("sessions")
      .where((eb) =>
        eb.or([
          eb("last_seen_at", "<=", seenBefore.toISOString()),
          eb("created_at", "<=", createdBefore.toISOString()),
        ]),
      )
      .execute();
  }

  /** Sets a password and ends every session of the user, in one transaction. */
  async setPassword(userId: string, passwordHash: string, now: string, trx?: Kysely<Database>): Promise<void> {
    const run = async (t: Kysely<Database>) => {
      await t
        .updateTable("users")
        .set({ password_hash: passwordHash, password_changed_at: now })
        .where("id", "=", userId)
        .execute();
      await this.deleteSessions(userId, t);
    };
    await (trx ? run(trx) : this.transaction(run));
  }

  async setTotpSecret(userId: string, sealed: string | null): Promise<void> {
    await this.db.updateTable("users").set({ totp_secret: sealed }).where("id", "=", userId).execute();
  }

  async createLink(
    link: Omit<AccountLink, "id"> & { tokenHash: string; expiresAt: string },
    now: string,
    trx: Kysely<Database> = this.db,
  ): Promise<string> {
    const id = `lnk_${newId().slice(0, 16)}`;
    await trx
      .insertInto("account_links")
      .values({
        id,
        kind: link.kind,
        token_hash: link.tokenHash,
        workspace_id: link.workspaceId,
        user_id: link.userId,
        email: link.email.toLowerCase(),
        role: link.role,
        created_at: now,
        expires_at: link.expiresAt,
      })
      .execute();
    return id;
  }

  /**
   * Uses a link once: marks it used and runs `then` in the same transaction, so a link followed twice at the same
   * moment works once. Returns null when it is unknown, used, expired or of another kind.
   */
  async useLink<T>(
    tokenHash: string,
    kinds: readonly LinkKind[],
    now: string,
    then: (link: AccountLink, trx: Kysely<Database>) => Promise<T>,
  ): Promise<T | null> {
    return this.transaction(async (trx) => {
      const row = await trx
        .selectFrom("account_links")
        .selectAll()
        .where("token_hash", "=", tokenHash)
        .where("used_at", "is", null)
        .where("expires_at", ">", now)
        .executeTakeFirst();
      if (!row || !kinds.includes(row.kind as LinkKind)) return null;
      const claimed = await trx
        .updateTable("account_links")
        .set({ used_at: now })
        .where("id", "=", row.id)
        .where("used_at", "is", null)
        .executeTakeFirst();
      if (Number(claimed.numUpdatedRows) !== 1) return null;
      return then(
        {
          id: row.id,
          kind: row.kind as LinkKind,
          workspaceId: row.workspace_id,
          userId: row.user_id,
          email: row.email,
          role: row.role,
        },
        trx,
      );
    });
  }

  /** What a link stands for, without using it (the dashboard shows whom an invitation is for). */
  async peekLink(tokenHash: string, now: string): Promise<AccountLink | null> {
    const row = await this.db
      .selectFrom("account_links")
      .selectAll()
      .where("token_hash", "=", tokenHash)
      .where("used_at", "is", null)
      .where("expires_at", ">", now)
      .executeTakeFirst();
    return row
      ? {
          id: row.id,
          kind: row.kind as LinkKind,
          workspaceId: row.workspace_id,
          userId: row.user_id,
          email: row.email,
          role: row.role,
        }
      : null;
  }

  /** Ends the unused links of a kind for an address in a workspace (a new invitation replaces the last). */
  async expireLinks(workspaceId: string, kind: LinkKind, email: string, now: string): Promise<void> {
    await this.db
      .updateTable("account_links")
      .set({ expires_at: now })
      .where("workspace_id", "=", workspaceId)
      .where("kind", "=", kind)
      .where("email", "=", email.toLowerCase())
      .where("used_at", "is", null)
      .execute();
  }

  async pendingInvitations(workspaceId: string, now: string) {
    return this.db
      .selectFrom("account_links")
      .select(["id", "email", "role", "created_at", "expires_at"])
      .where("workspace_id", "=", workspaceId)
      .where("kind", "=", "invite")
      .where("used_at", "is", null)
      .where("expires_at", ">", now)
      .orderBy("created_at", "desc")
      .orderBy("id")
      .execute();
  }

  async revokeInvitation(workspaceId: string, id: string, now: string): Promise<boolean> {
    const result = await this.db
      .updateTable("account_links")
      .set({ expires_at: now })
      .where("workspace_id", "=", workspaceId)
      .where("id", "=", id)
      .where("kind", "=", "invite")
      .where("used_at", "is", null)
      .where("expires_at", ">", now)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** What a workspace has: status pages, sites, members. */
  async usage(workspaceId: string): Promise<{ pages: number; sites: number; members: number }> {
    const count = async (table: "status_pages" | "sites" | "users") => {
      const row = await this.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as("n"))
        .where("workspace_id", "=", workspaceId)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    };
    return { pages: await count("status_pages"), sites: await count("sites"), members: await count("users") };
  }

  async members(workspaceId: string) {
    return this.db
      .selectFrom("users")
      .select(["id", "email", "role", "created_at", "password_hash", "totp_secret"])
      .where("workspace_id", "=", workspaceId)
      .orderBy("created_at")
      .orderBy("id")
      .execute();
  }

  async setRole(workspaceId: string, userId: string, role: string): Promise<boolean> {
    const result = await this.db
      .updateTable("users")
      .set({ role })
      .where("workspace_id", "=", workspaceId)
      .where("id", "=", userId)
      .where("role", "!=", "owner")
      .executeTakeFirst();
    this.accounts.forgetPrincipals();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Removes a member (never the owner) with their tokens and sessions. */
  async removeMember(workspaceId: string, userId: string): Promise<boolean> {
    const removed = await this.transaction(async (trx) => {
      const user = await trx
        .selectFrom("users")
        .select("role")
        .where("workspace_id", "=", workspaceId)
        .where("id", "=", userId)
        .executeTakeFirst();
      if (!user || user.role === "owner") return false;
      await trx.deleteFrom("api_tokens").where("user_id", "=", userId).execute();
      await trx.deleteFrom("sessions").where("user_id", "=", userId).execute();
      await trx.deleteFrom("account_links").where("user_id", "=", userId).execute();
      await trx.deleteFrom("users").where("id", "=", userId).execute();
      return true;
    });
    this.accounts.forgetPrincipals();
    return removed;
  }
}

function credentialsOf(row: {
  id: string;
  email: string;
  workspace_id: string;
  role: string;
  password_hash: string | null;
  totp_secret: string | null;
}): Credentials {
  return {
    id: row.id,
    email: row.email,
    workspaceId: row.workspace_id,
    role: row.role,
    passwordHash: row.password_hash,
    totpSecret: row.totp_secret,
  };
}
