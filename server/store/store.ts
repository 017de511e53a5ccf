import { randomBytes } from "node:crypto";
import { closeSync, mkdirSync, openSync } from "node:fs";
import { join } from "node:path";
import SQLite from "better-sqlite3";
import { type Insertable, Kysely, type LogEvent, PostgresDialect, type Selectable, SqliteDialect, sql } from "kysely";
import pg from "pg";
import { RESCHEDULING_COLUMNS, scheduleSoon } from "./checks.ts";
import { migrateToLatest } from "./migrations.ts";
import type { Database } from "./schema.ts";

export type Dialect = "sqlite" | "postgres";
export type SiteRow = Selectable<Database["sites"]>;
export type PageRow = Selectable<Database["status_pages"]>;
export type ItemRow = Selectable<Database["status_page_items"]>;
export type IncidentRow = Selectable<Database["incidents"]>;
export type IncidentUpdateRow = Selectable<Database["incident_updates"]>;
export type StatRow = Selectable<Database["daily_stats"]>;
export type TokenRow = Selectable<Database["api_tokens"]>;
export type Db = Kysely<Database>;

export interface StoreOptions {
  dataDir: string;
  databaseUrl?: string | undefined;
  /** Called with every query's SQL; tests count queries with it. */
  onQuery?: (sql: string) => void;
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

/** A random identifier: 24 hexadecimal characters (the shape of spec 2.2's _id). */
export function newId(): string {
  return randomBytes(12).toString("hex");
}

/** True when a write failed on a UNIQUE constraint, in either dialect. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string } | null;
  return e?.code === "23505" || e?.code === "SQLITE_CONSTRAINT_UNIQUE" || e?.code === "SQLITE_CONSTRAINT_PRIMARYKEY";
}

/** How many distinct prepared statements the SQLite store keeps. */
const STATEMENT_CACHE_SIZE = 500;

/**
 * Kysely's SQLite driver prepares every query anew, which was the largest cost of a site read. Statements are
 * reusable in better-sqlite3 (calls are synchronous), so keep the most recent ones by SQL text.
 */
function withStatementCache(sqlite: SQLite.Database) {
  const cache = new Map<string, SQLite.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(sqlText: string) {
      let statement = cache.get(sqlText);
      if (statement) {
        cache.delete(sqlText);
      } else {
        statement = sqlite.prepare(sqlText);
        if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
      }
      cache.set(sqlText, statement);
      return statement;
    },
  };
}

function queryLog({ onQuery }: StoreOptions) {
  return onQuery ? (event: LogEvent) => onQuery(event.query.sql) : undefined;
}

/** Opens the store named by the configuration (PostgreSQL when a URL is given, else SQLite in the data dir). */
export async function openStore(options: StoreOptions): Promise<Store> {
  if (options.databaseUrl) {
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: 10 });
    // An idle connection that the server ends (a restart, a failover) must not crash the process: the pool drops
    // it and the next query opens a new one; /readyz reports the outage meanwhile.
    pool.on("error", () => {});
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }), log: queryLog(options) });
    const store = new Store(db, "postgres", `postgres ${new URL(options.databaseUrl).pathname.slice(1)}`);
    await store.migrate();
    return store;
  }
  // The database holds token and password hashes and the headers owners give their sites: for the owner only. The
  // modes apply to what this creates; SQLite gives the -wal and -shm files the database file's mode.
  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  const file = join(options.dataDir, "porchlight.db");
  closeSync(openSync(file, "a", 0o600));
  const sqlite = new SQLite(file);
  sqlite.pragma("journal_mode = WAL");
  // FULL in WAL mode: a commit the API has acknowledged survives power loss, not only a process crash.
  sqlite.pragma("synchronous = FULL");
  sqlite.pragma("foreign_keys = ON");
  sqlite.pragma("busy_timeout = 5000");
  const db = new Kysely<Database>({
    dialect: new SqliteDialect({ database: withStatementCache(sqlite) }),
    log: queryLog(options),
  });
  // data_version changes whenever another connection (another process: the command line revoking a token) commits.
  const dataVersion = sqlite.prepare("pragma data_version").pluck();
  const store = new Store(db, "sqlite", `sqlite ${file}`, () => dataVersion.get() as number);
  await store.migrate();
  return store;
}

/**
 * Every query Porchlight makes, written once with Kysely for both SQLite and PostgreSQL. Methods take the current
 * time as an argument so that callers own the clock.
 */
export class Store {
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
    readonly db: Db,
    readonly dialect: Dialect,
    readonly description: string,
    private readonly othersWrote?: () => number,
  ) {}

  async migrate(): Promise<void> {
    await migrateToLatest(this.db as Kysely<unknown>, this.dialect);
  }

  async ping(): Promise<void> {
    await sql`select 1`.execute(this.db);
  }

  async close(): Promise<void> {
    await this.db.destroy();
  }

  /**
   * Runs fn in one transaction. On SQLite it begins IMMEDIATE: a transaction that reads and then writes would
   * otherwise fail at once with SQLITE_BUSY when another process holds the write lock, instead of waiting for it
   * (busy_timeout).
   */
  transaction<T>(fn: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
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

  // ---- accounts -------------------------------------------------------------------------------------------

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

  async revokeToken(id: string, now: string): Promise<"revoked" | "already" | "missing"> {
    const row = await this.db.selectFrom("api_tokens").select("revoked_at").where("id", "=", id).executeTakeFirst();
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

  private forgetPrincipals(): void {
    this.principals.clear();
    this.principalsEpoch++;
  }

  private async touchToken(id: string, now: Date, entry: { lastUsedAt: number }): Promise<void> {
    entry.lastUsedAt = now.getTime();
    await this.db.updateTable("api_tokens").set({ last_used_at: now.toISOString() }).where("id", "=", id).execute();
  }

  /**
   * Runs `create` once per database, however many processes start at the same moment: the first to insert the
   * bootstrap marker wins, the others see it and skip.
   */
  async once<T>(key: string, now: string, create: (trx: Kysely<Database>) => Promise<T>): Promise<T | null> {
    try {
      return await this.transaction(async (trx) => {
        await trx.insertInto("meta").values({ key, value: now }).execute();
        return create(trx);
      });
    } catch (error) {
      if (isUniqueViolation(error)) return null;
      throw error;
    }
  }

  // ---- sites ----------------------------------------------------------------------------------------------

  async listSites(workspaceId: string, offset: number, limit: number): Promise<{ rows: SiteRow[]; total: number }> {
    const [rows, count] = await Promise.all([
      this.db
        .selectFrom("sites")
        .selectAll()
        .where("workspace_id", "=", workspaceId)
        .orderBy("created_at", "desc")
        .orderBy("id", "desc")
        .offset(offset)
        .limit(limit)
        .execute(),
      this.db
        .selectFrom("sites")
        .select((eb) => eb.fn.countAll().as("n"))
        .where("workspace_id", "=", workspaceId)
        .executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(count.n) };
  }

  async getSite(workspaceId: string, id: string): Promise<SiteRow | undefined> {
    return this.db
      .selectFrom("sites")
      .selectAll()
      .where("id", "=", id)
      .where("workspace_id", "=", workspaceId)
      .executeTakeFirst();
  }

  async getSiteById(id: string): Promise<SiteRow | undefined> {
    return this.db.selectFrom("sites").selectAll().where("id", "=", id).executeTakeFirst();
  }

  /** Inserts a site and schedules its first check in each of its regions within seconds. */
  async insertSite(row: Insertable<Database["sites"]>): Promise<void> {
    await this.transaction(async (trx) => {
      await trx.insertInto("sites").values(row).execute();
      await scheduleSoon(trx, row.id, JSON.parse(row.regions), row.created_at);
    });
  }

  /**
   * Writes the changed columns and counts the update in `version`; undefined when not the workspace's site. A
   * change to what or where a site is checked (or a resume) schedules a check within seconds and asks the engine
   * to judge the site again.
   */
  async updateSite(
    workspaceId: string,
    id: string,
    changes: Partial<SiteRow>,
    now: string,
  ): Promise<SiteRow | undefined> {
    const reschedule = Object.keys(changes).some((key) => RESCHEDULING_COLUMNS.has(key));
    // Another address: what was learned about the old one's certificate and domain no longer applies.
    const forget =
      changes.url !== undefined
        ? { ssl_info: null, has_certificate_error: 0, domain_checked_at: null, conditions_at: null }
        : {};
    return this.transaction(async (trx) => {
      const row = await trx
        .updateTable("sites")
        .set({
          ...changes,
          ...(reschedule ? { rejudge_at: now, ...forget } : {}),
          updated_at: now,
          version: sql`version + 1`,
        })
        .where("id", "=", id)
        .where("workspace_id", "=", workspaceId)
        .returningAll()
        .executeTakeFirst();
      if (row && reschedule) await scheduleSoon(trx, row.id, JSON.parse(row.regions), now);
      return row;
    });
  }

  /**
   * Deletes a site; its open automatic incidents are resolved first (with an update saying why), so that no page
   * is left with an outage nobody can end.
   */
  async deleteSite(workspaceId: string, id: string, now = new Date().toISOString()): Promise<boolean> {
    return this.transaction(async (trx) => {
      const site = await trx
        .selectFrom("sites")
        .select("id")
        .where("id", "=", id)
        .where("workspace_id", "=", workspaceId)
        .executeTakeFirst();
      if (!site) return false;
      for (const incident of await this.openAutomaticIncidents(trx, [id])) {
        const message = "The site was removed from monitoring.";
        await this.appendIncidentUpdate(trx, incident.page_id, incident.id, "resolved", message, now);
      }
      await trx.deleteFrom("sites").where("id", "=", id).execute();
      return true;
    });
  }

  /** Daily statistics of some sites from a UTC day on, oldest first. */
  async dailyStats(siteIds: string[], fromDay: string): Promise<StatRow[]> {
    if (siteIds.length === 0) return [];
    return this.db
      .selectFrom("daily_stats")
      .selectAll()
      .where("site_id", "in", siteIds)
      .where("day", ">=", fromDay)
      .orderBy("day")
      .execute();
  }

  // ---- status pages ---------------------------------------------------------------------------------------

  async countPages(workspaceId: string, trx: Kysely<Database> = this.db): Promise<number> {
    const row = await trx
      .selectFrom("status_pages")
      .select((eb) => eb.fn.countAll().as("n"))
      .where("workspace_id", "=", workspaceId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async listPages(workspaceId: string, offset: number, limit: number): Promise<PageRow[]> {
    return this.db
      .selectFrom("status_pages")
      .selectAll()
      .where("workspace_id", "=", workspaceId)
      .orderBy("created_at", "desc")
      .orderBy("id", "desc")
      .offset(offset)
      .limit(limit)
      .execute();
  }

  async getPage(workspaceId: string, id: number): Promise<PageRow | undefined> {
    return this.db
      .selectFrom("status_pages")
      .selectAll()
      .where("id", "=", id)
      .where("workspace_id", "=", workspaceId)
      .executeTakeFirst();
  }

  async getPageBySlug(slug: string): Promise<PageRow | undefined> {
    return this.db.selectFrom("status_pages").selectAll().where("slug", "=", slug).executeTakeFirst();
  }

  async insertPage(trx: Kysely<Database>, row: Omit<PageRow, "id">): Promise<PageRow> {
    return trx.insertInto("status_pages").values(row).returningAll().executeTakeFirstOrThrow();
  }

  async updatePage(workspaceId: string, id: number, changes: Partial<PageRow>): Promise<PageRow | undefined> {
    return this.db
      .updateTable("status_pages")
      .set(changes)
      .where("id", "=", id)
      .where("workspace_id", "=", workspaceId)
      .returningAll()
      .executeTakeFirst();
  }

  /**
   * Deletes a page with its items and incidents (foreign keys cascade); sites and their data stay. The name is part
   * of the delete itself, so a rename that lands after the caller read the page cannot be deleted by the old name.
   */
  async deletePage(workspaceId: string, id: number, name: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom("status_pages")
      .where("id", "=", id)
      .where("workspace_id", "=", workspaceId)
      .where("name", "=", name)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async listItems(pageIds: number[]): Promise<ItemRow[]> {
    if (pageIds.length === 0) return [];
    return this.db
      .selectFrom("status_page_items")
      .selectAll()
      .where("page_id", "in", pageIds)
      .orderBy("position")
      .orderBy("id")
      .execute();
  }

  async insertItem(row: Omit<ItemRow, "id">): Promise<ItemRow> {
    return this.db.insertInto("status_page_items").values(row).returningAll().executeTakeFirstOrThrow();
  }

  async nextItemPosition(pageId: number): Promise<number> {
    const row = await this.db
      .selectFrom("status_page_items")
      .select((eb) => eb.fn.max("position").as("p"))
      .where("page_id", "=", pageId)
      .executeTakeFirst();
    return row?.p === null || row?.p === undefined ? 0 : Number(row.p) + 1;
  }

  async updateItem(pageId: number, id: number, changes: Partial<ItemRow>): Promise<ItemRow | undefined> {
    return this.db
      .updateTable("status_page_items")
      .set(changes)
      .where("id", "=", id)
      .where("page_id", "=", pageId)
      .returningAll()
      .executeTakeFirst();
  }

  async deleteItem(pageId: number, id: number): Promise<boolean> {
    const result = await this.db
      .deleteFrom("status_page_items")
      .where("id", "=", id)
      .where("page_id", "=", pageId)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** Marks a page changed, so caches of its public view know to rebuild. */
  async touchPage(pageId: number, now: string, trx: Kysely<Database> = this.db): Promise<void> {
    await trx.updateTable("status_pages").set({ updated_at: now }).where("id", "=", pageId).execute();
  }

  // ---- incidents ------------------------------------------------------------------------------------------

  /** A page's incidents newest first, with their updates newest first. */
  async listIncidents(
    pageId: number,
    limit: number,
  ): Promise<{ incidents: IncidentRow[]; updates: IncidentUpdateRow[] }> {
    const incidents = await this.db
      .selectFrom("incidents")
      .selectAll()
      .where("page_id", "=", pageId)
      .orderBy("started_at", "desc")
      .orderBy("id", "desc")
      .limit(limit)
      .execute();
    return { incidents, updates: await this.incidentUpdates(incidents.map((i) => i.id)) };
  }

  async getIncident(pageId: number, id: number) {
    const incident = await this.db
      .selectFrom("incidents")
      .selectAll()
      .where("id", "=", id)
      .where("page_id", "=", pageId)
      .executeTakeFirst();
    if (!incident) return undefined;
    return { incident, updates: await this.incidentUpdates([id]) };
  }

  private async incidentUpdates(ids: number[]): Promise<IncidentUpdateRow[]> {
    if (ids.length === 0) return [];
    return this.db
      .selectFrom("incident_updates")
      .selectAll()
      .where("incident_id", "in", ids)
      .orderBy("created_at", "desc")
      .orderBy("id", "desc")
      .execute();
  }

  /** Inserts an incident and its first update in one transaction. */
  createIncident(row: Insertable<Database["incidents"]>, message: string): Promise<number> {
    return this.transaction((trx) => this.insertIncident(trx, row, message));
  }

  /** Inserts an incident and its first update within the caller's transaction (the API's, or the engine's). */
  async insertIncident(trx: Kysely<Database>, row: Insertable<Database["incidents"]>, message: string) {
    const { id } = await trx.insertInto("incidents").values(row).returning("id").executeTakeFirstOrThrow();
    await trx
      .insertInto("incident_updates")
      .values({ incident_id: id, status: row.status, message, created_at: row.created_at })
      .execute();
    await this.touchPage(row.page_id, row.created_at, trx);
    return id;
  }

  /** Appends an update and moves the incident to its status; resolving stamps resolved_at, reopening clears it. */
  async addIncidentUpdate(pageId: number, incidentId: number, status: string, message: string, now: string) {
    await this.transaction((trx) => this.appendIncidentUpdate(trx, pageId, incidentId, status, message, now));
  }

  /** The open incidents the engine opened for these sites: deleting a site or its state changing moves them. */
  openAutomaticIncidents(trx: Kysely<Database>, siteIds: string[]) {
    return trx
      .selectFrom("incidents")
      .select(["id", "page_id", "site_id", "status"])
      .where("site_id", "in", siteIds)
      .where("source", "=", "automatic")
      .where("resolved_at", "is", null)
      .execute();
  }

  /** addIncidentUpdate within the caller's transaction. */
  async appendIncidentUpdate(
    trx: Kysely<Database>,
    pageId: number,
    incidentId: number,
    status: string,
    message: string,
    now: string,
  ): Promise<void> {
    await trx
      .insertInto("incident_updates")
      .values({ incident_id: incidentId, status, message, created_at: now })
      .execute();
    const current = await trx
      .selectFrom("incidents")
      .select(["resolved_at"])
      .where("id", "=", incidentId)
      .executeTakeFirstOrThrow();
    const resolvedAt = status === "resolved" ? (current.resolved_at ?? now) : null;
    await trx
      .updateTable("incidents")
      .set({ status, resolved_at: resolvedAt, updated_at: now })
      .where("id", "=", incidentId)
      .execute();
    await this.touchPage(pageId, now, trx);
  }

  async updateIncident(pageId: number, incidentId: number, title: string, now: string): Promise<void> {
    await this.transaction(async (trx) => {
      await trx
        .updateTable("incidents")
        .set({ title, updated_at: now })
        .where("id", "=", incidentId)
        .where("page_id", "=", pageId)
        .execute();
      await this.touchPage(pageId, now, trx);
    });
  }

  async deleteIncident(pageId: number, incidentId: number, now: string): Promise<boolean> {
    return this.transaction(async (trx) => {
      const result = await trx
        .deleteFrom("incidents")
        .where("id", "=", incidentId)
        .where("page_id", "=", pageId)
        .executeTakeFirst();
      await this.touchPage(pageId, now, trx);
      return Number(result.numDeletedRows) > 0;
    });
  }

  // ---- public view ----------------------------------------------------------------------------------------

  /** Everything a page's public view is built from, in five queries whatever the number of items. */
  async pageViewData(page: PageRow, fromDay: string, incidentLimit: number) {
    const items = await this.db
      .selectFrom("status_page_items as i")
      .innerJoin("sites as s", "s.id", "i.site_id")
      .select(["i.id", "i.site_id", "i.label", "s.state", "s.pause", "s.last_check_time", "s.last_response_ms"])
      .where("i.page_id", "=", page.id)
      .where("i.visible", "=", 1)
      .orderBy("i.position")
      .orderBy("i.id")
      .execute();
    const stats = await this.dailyStats(
      items.map((i) => i.site_id),
      fromDay,
    );
    const { incidents, updates } = await this.listIncidents(page.id, incidentLimit);
    return { items, stats, incidents, updates };
  }

  /**
   * What pageViewData reads, for every public page at once (the static build): five queries whatever the number of
   * pages. Stats start at `fromDay` for all pages (each page keeps its own days); incidents are each page's newest
   * `incidentLimit`, cut in SQL by a window function.
   */
  async publicPagesViewData(fromDay: string, incidentLimit: number) {
    const pages = await this.db
      .selectFrom("status_pages")
      .selectAll()
      .where("visibility", "=", "public")
      .orderBy("slug")
      .execute();
    const publicIds = this.db.selectFrom("status_pages").select("id").where("visibility", "=", "public");
    const items = await this.db
      .selectFrom("status_page_items as i")
      .innerJoin("sites as s", "s.id", "i.site_id")
      .select([
        "i.page_id",
        "i.id",
        "i.site_id",
        "i.label",
        "s.state",
        "s.pause",
        "s.last_check_time",
        "s.last_response_ms",
      ])
      .where("i.page_id", "in", publicIds)
      .where("i.visible", "=", 1)
      .orderBy("i.page_id")
      .orderBy("i.position")
      .orderBy("i.id")
      .execute();
    const stats = await this.db
      .selectFrom("daily_stats")
      .selectAll()
      .where("site_id", "in", (eb) =>
        eb.selectFrom("status_page_items").select("site_id").where("page_id", "in", publicIds).where("visible", "=", 1),
      )
      .where("day", ">=", fromDay)
      .orderBy("day")
      .execute();
    const ranked = this.db
      .selectFrom("incidents")
      .selectAll()
      .select(sql<number>`row_number() over (partition by page_id order by started_at desc, id desc)`.as("rank"))
      .where("page_id", "in", publicIds);
    const newest = this.db.selectFrom(ranked.as("r")).where("r.rank", "<=", incidentLimit);
    const incidents: IncidentRow[] = (await newest.selectAll().orderBy("r.rank").execute()).map(
      ({ rank: _rank, ...row }) => row,
    );
    const updates = await this.db
      .selectFrom("incident_updates")
      .selectAll()
      .where("incident_id", "in", newest.select("r.id"))
      .orderBy("created_at", "desc")
      .orderBy("id", "desc")
      .execute();
    return { pages, items, stats, incidents, updates };
  }
}
