import { closeSync, mkdirSync, openSync } from "node:fs";
import { join } from "node:path";
import SQLite from "better-sqlite3";
import { Kysely, type LogEvent, PostgresDialect, SqliteDialect, sql } from "kysely";
import pg from "pg";
import { AccountQueries } from "./accounts.ts";
import { AlertQueries } from "./alerts.ts";
import { AnonQueries } from "./anon-jobs.ts";
import { CheckQueries } from "./checks.ts";
import { Connection, type Db, type Dialect, isUniqueViolation } from "./connection.ts";
import { ImportQueries } from "./imports.ts";
import { IncidentQueries } from "./incidents.ts";
import { MaintenanceQueries } from "./maintenance.ts";
import { migrateToLatest } from "./migrations.ts";
import { ViewQueries } from "./public-views.ts";
import type { Database } from "./schema.ts";
import { SessionQueries } from "./sessions.ts";
import { SiteQueries } from "./sites.ts";
import { PageQueries } from "./status-pages.ts";
import { SubscriberQueries } from "./subscribers.ts";

export interface StoreOptions {
  dataDir: string;
  databaseUrl?: string | undefined;
  /** Called with every query's SQL; tests count queries with it. */
  onQuery?: (sql: string) => void;
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
 * Every query Porchlight makes, written once with Kysely for both SQLite and PostgreSQL and split by aggregate:
 * accounts and tokens, sites, status pages (with their items), incidents, what the public views read, the engine's
 * schedule and results (checks), and the anonymous utilities' jobs (anon). Methods take the current time as an
 * argument so that callers own the clock.
 */
export class Store extends Connection {
  readonly accounts: AccountQueries;
  readonly sessions: SessionQueries;
  readonly pages: PageQueries;
  readonly alerts: AlertQueries;
  readonly maintenance: MaintenanceQueries;
  readonly incidents: IncidentQueries;
  readonly sites: SiteQueries;
  readonly views: ViewQueries;
  readonly checks: CheckQueries;
  readonly anon: AnonQueries;
  readonly subscribers: SubscriberQueries;
  readonly imports: ImportQueries;

  /**
   * @param othersWrote a number that changes when another connection commits to the database (SQLite): the
   *   accounts keep recent tokens' principals in memory until it does.
   */
  constructor(
    db: Db,
    dialect: Dialect,
    readonly description: string,
    othersWrote?: () => number,
  ) {
    super(db, dialect);
    this.accounts = new AccountQueries(this, othersWrote);
    this.sessions = new SessionQueries(this, this.accounts);
    this.pages = new PageQueries(this);
    this.alerts = new AlertQueries(this);
    this.subscribers = new SubscriberQueries(this);
    this.maintenance = new MaintenanceQueries(this, this.subscribers);
    this.incidents = new IncidentQueries(this, this.pages, this.subscribers);
    this.sites = new SiteQueries(this, this.incidents);
    this.views = new ViewQueries(this, this.sites, this.incidents);
    this.checks = new CheckQueries(this, this.pages, this.incidents, this.alerts);
    this.anon = new AnonQueries(this);
    this.imports = new ImportQueries(this);
  }

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
}
