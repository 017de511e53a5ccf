import { randomBytes } from "node:crypto";
import type { Kysely } from "kysely";
import type { z } from "zod";
import type { ApiToken } from "../contract/session.ts";
import { type Connection, newId, Queries } from "./connection.ts";
import type { Database, TokenRow } from "./schema.ts";

/** A token as its owner's list shows it (never its secret). */
export function apiToken(row: TokenRow): z.input<typeof ApiToken> {
  return {
    id: row.id,
    name: row.name,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
  };
}

/** The caller behind a valid token. */
export interface Principal {
  tokenId: string;
  userId: string;
  email: string;
  workspaceId: string;
  role: string;
  plan: string;
}

/** Users, workspaces and API tokens; the principals of recent tokens are kept in memory (SQLite). */
export class AccountQueries extends Queries {
  private readonly principals = new Map<string, { principal: Principal; lastUsedAt: number }>();
  private principalsVersion: number | undefined;
  private principalsCheckedAt = 0;
  private principalsEpoch = 0;

  /**
   * @param othersWrote a number that changes when another connection commits to the database. With it, the
   *   store keeps the principals of recent tokens in memory and drops them all whenever it changes; without it
   *   (PostgreSQL), every request looks its token up.
   */
  constructor(
    connection: Connection,
    private readonly othersWrote?: () => number,
  ) {
    super(connection);
  }

  async countUsers(): Promise<number> {
    const row = await this.db
      .selectFrom("users")
      .select((eb) => eb.fn.countAll().as("n"))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async findUserByEmail(email: string) {
    return this.db
      .selectFrom("users")
      .innerJoin("workspaces", "workspaces.id", "users.workspace_id")
      .select(["users.id", "users.email", "users.role", "users.workspace_id", "workspaces.plan"])
      .where("users.email", "=", email.toLowerCase())
      .executeTakeFirst();
  }

  /** Creates a user who owns a new workspace, or who joins an existing one with a role. */
  async createUser(
    input: { email: string; plan: string } | { email: string; workspaceId: string; role: string },
    now: string,
    trx: Kysely<Database> = this.db,
  ): Promise<{ id: string; workspaceId: string; role: string }> {
    const id = newId();
    let workspaceId: string;
    let role: string;
    if ("plan" in input) {
      workspaceId = newId();
      role = "owner";
      await trx
        .insertInto("workspaces")
        .values({ id: workspaceId, name: input.email, plan: input.plan, created_at: now })
        .execute();
    } else {
      workspaceId = input.workspaceId;
      role = input.role;
    }
    await trx
      .insertInto("users")
      .values({ id, email: input.email.toLowerCase(), workspace_id: workspaceId, role, created_at: now })
      .execute();
    return { id, workspaceId, role };
  }

  async createToken(
    userId: string,
    name: string,
    tokenHash: string,
    now: string,
    trx: Kysely<Database> = this.db,
  ): Promise<string> {
    const id = `tok_${randomBytes(8).toString("hex")}`;
    await trx
      .insertInto("api_tokens")
      .values({ id, user_id: userId, name, token_hash: tokenHash, created_at: now })
      .execute();
    return id;
  }

  async listTokens(userId: string): Promise<TokenRow[]> {
    return this.db
      .selectFrom("api_tokens")
      .selectAll()
      .where("user_id", "=", userId)
      .orderBy("created_at", "desc")
      .orderBy("id")
      .execute();
  }

  /** Revokes a token; with `userId`, only that user's (a token of someone else is "missing"). */
  async revokeToken(id: string, now: string, userId?: string): Promise<"revoked" | "already" | "missing"> {
    const row = await this.db
      .selectFrom("api_tokens")
      .select(["revoked_at", "user_id"])
      .where("id", "=", id)
      .executeTakeFirst();
    if (row && userId !== undefined && row.user_id !== userId) return "missing";
    if (!row) return "missing";
    if (row.revoked_at) return "already";
    await this.db.updateTable("api_tokens").set({ revoked_at: now }).where("id", "=", id).execute();
    this.forgetPrincipals();
    return "revoked";
  }

  /**
   * The principal behind a token hash, or null when unknown or revoked. A revocation takes effect at once: through
   * this store it clears the cache, and through another process it changes the database, which clears it within
   * a millisecond. last_used_at is written at most once a minute per token.
   */
  async authenticate(tokenHash: string, now: Date): Promise<Principal | null> {
    const cached = this.cachedPrincipal(tokenHash);
    if (cached) {
      if (now.getTime() - cached.lastUsedAt > 60_000) await this.touchToken(cached.principal.tokenId, now, cached);
      return cached.principal;
    }
    // What the cache may keep is decided by what was true before the lookup: if a revocation lands while it runs
    // (here or in another process), the answer is used once but not kept.
    const epoch = this.principalsEpoch;
    const version = this.othersWrote?.();
    const row = await this.db
      .selectFrom("api_tokens as t")
      .innerJoin("users as u", "u.id", "t.user_id")
      .innerJoin("workspaces as w", "w.id", "u.workspace_id")
      .select([
        "t.id",
        "t.revoked_at",
        "t.last_used_at",
        "u.id as user_id",
        "u.email",
        "u.role",
        "w.id as ws",
        "w.plan",
      ])
      .where("t.token_hash", "=", tokenHash)
      .executeTakeFirst();
    if (!row || row.revoked_at) return null;
    const principal = {
      tokenId: row.id,
      userId: row.user_id,
      email: row.email,
      workspaceId: row.ws,
      role: row.role,
      plan: row.plan,
    };
    const entry = { principal, lastUsedAt: row.last_used_at ? Date.parse(row.last_used_at) : 0 };
    if (now.getTime() - entry.lastUsedAt > 60_000) await this.touchToken(row.id, now, entry);
    if (this.othersWrote && epoch === this.principalsEpoch && version === this.othersWrote()) {
      if (this.principals.size >= 10_000) this.principals.clear();
      this.principals.set(tokenHash, entry);
    }
    return principal;
  }

  /**
   * The principal of a token that this store has looked up before and that is still good, without I/O; undefined
   * when a lookup is needed (never seen, dropped because the database changed, or due a last_used_at write).
   */
  peekPrincipal(tokenHash: string, now: Date): Principal | undefined {
    const cached = this.cachedPrincipal(tokenHash);
    return cached && now.getTime() - cached.lastUsedAt <= 60_000 ? cached.principal : undefined;
  }

  private cachedPrincipal(tokenHash: string) {
    if (!this.othersWrote) return undefined;
    // The check reads SQLite's WAL index (about 20 µs); once a millisecond keeps a revocation by another process
    // effective within a millisecond, less than a request takes.
    const checkedAt = performance.now();
    if (checkedAt - this.principalsCheckedAt >= 1) {
      this.principalsCheckedAt = checkedAt;
      const version = this.othersWrote();
      if (version !== this.principalsVersion) {
        this.forgetPrincipals();
        this.principalsVersion = version;
      }
    }
    return this.principals.get(tokenHash);
  }

  /** Drops every cached principal: a token's user changed role or left (sessions.ts). */
  forgetPrincipals(): void {
    this.principals.clear();
    this.principalsEpoch++;
  }

  private async touchToken(id: string, now: Date, entry: { lastUsedAt: number }): Promise<void> {
    entry.lastUsedAt = now.getTime();
    await this.db.updateTable("api_tokens").set({ last_used_at: now.toISOString() }).where("id", "=", id).execute();
  }
}
