import { randomBytes } from "node:crypto";
import { type Kysely, sql } from "kysely";
import type { Database } from "./schema.ts";

export type Dialect = "sqlite" | "postgres";
export type Db = Kysely<Database>;

/** A random identifier: 24 hexadecimal characters (the shape of spec 2.2's _id). */
export function newId(): string {
  return randomBytes(12).toString("hex");
}

/** True when a write failed on a UNIQUE constraint, in either dialect. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string } | null;
  return e?.code === "23505" || e?.code === "SQLITE_CONSTRAINT_UNIQUE" || e?.code === "SQLITE_CONSTRAINT_PRIMARYKEY";
}

/**
 * A transaction of the store: its methods take one so that several of them write together. Code outside
 * server/store/ only passes it along; queries are built here (the architecture test finds any built elsewhere).
 */
export type Transaction = Kysely<Database>;

/** The database and its dialect, with the two things whose SQL differs between dialects: transactions and locks. */
export class Connection {
  constructor(
    readonly db: Db,
    readonly dialect: Dialect,
  ) {}

  /**
   * Runs fn in one transaction. On SQLite it begins IMMEDIATE: a transaction that reads and then writes would
   * otherwise fail at once with SQLITE_BUSY when another process holds the write lock, instead of waiting for it
   * (busy_timeout).
   */
  transaction<T>(fn: (trx: Transaction) => Promise<T>): Promise<T> {
    if (this.dialect === "postgres") return this.db.transaction().execute(fn);
    return this.db.connection().execute(async (conn) => {
      await sql`begin immediate`.execute(conn);
      try {
        const result = await fn(conn);
        await sql`commit`.execute(conn);
        return result;
      } catch (error) {
        await sql`rollback`.execute(conn);
        throw error;
      }
    });
  }

  /** Locks a workspace row for the rest of the transaction (PostgreSQL; SQLite serialises writers already). */
  async lockWorkspace(trx: Kysely<Database>, workspaceId: string): Promise<void> {
    if (this.dialect === "postgres") {
      await sql`select id from workspaces where id = ${workspaceId} for update`.execute(trx);
    }
  }
}

/** The base of each aggregate's queries: the shared connection, its transactions and its dialect. */
export abstract class Queries {
  constructor(protected readonly connection: Connection) {}

  protected get db(): Db {
    return this.connection.db;
  }

  protected get dialect(): Dialect {
    return this.connection.dialect;
  }

  protected transaction<T>(fn: (trx: Transaction) => Promise<T>): Promise<T> {
    return this.connection.transaction(fn);
  }
}
