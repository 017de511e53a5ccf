import { createHash } from "node:crypto";
import SQLite from "better-sqlite3";

/** A row of Uptime Kuma's, read by column name: which columns a database has depends on its upgrade history. */
export type KumaRecord = Record<string, unknown>;

/** What the importer reads of an Uptime Kuma database (`kuma.db`), as rows. */
export interface KumaDump {
  /** "2.x" when knex's migrations table is there (Uptime Kuma 2 runs knex migrations; 1.23 never did). */
  version: "1.23" | "2.x";
  /** A stable name for the installation the file comes from: a hash of its JWT secret (setting jwtSecret). */
  install: string;
  monitors: KumaRecord[];
  /** Status-page sections (table `group`) and their monitors (monitor_group), each in their weight order. */
  sections: KumaRecord[];
  sectionMonitors: KumaRecord[];
  pages: KumaRecord[];
  domains: KumaRecord[];
  incidents: KumaRecord[];
  maintenances: KumaRecord[];
  maintenanceMonitors: KumaRecord[];
  maintenancePages: KumaRecord[];
}

/** Why a file is not an Uptime Kuma database that can be read; the message is the owner's to read. */
export class ForeignFile extends Error {}

const REQUIRED = ["monitor", "status_page", "group", "monitor_group", "setting"];

/**
 * Reads an Uptime Kuma SQLite database, opened read-only (the file is never written: not even a journal), and
 * refuses with ForeignFile a file that is not SQLite, is damaged, or lacks Uptime Kuma's tables.
 */
export function readKumaFile(path: string): KumaDump {
  let db: SQLite.Database;
  try {
    db = new SQLite(path, { readonly: true, fileMustExist: true });
    // Someone else's file: its views and triggers may not call functions with side effects while it is read.
    db.pragma("trusted_schema = OFF");
  } catch (error) {
    throw new ForeignFile(`The file cannot be opened: ${(error as Error).message}`);
  }
  try {
    const tables = new Set(
      (db.prepare("select name from sqlite_master where type = 'table'").all() as { name: string }[]).map(
        (t) => t.name,
      ),
    );
    const missing = REQUIRED.filter((t) => !tables.has(t));
    if (missing.length > 0) {
      throw new ForeignFile(
        `This is a SQLite database but not Uptime Kuma's: it has no ${missing.map((t) => `"${t}"`).join(", ")} table${missing.length > 1 ? "s" : ""}.`,
      );
    }
    const problem = (db.prepare("pragma quick_check(1)").get() as { quick_check: string }).quick_check;
    if (problem !== "ok") throw new ForeignFile(`The database is damaged (${problem}): restore a good copy first.`);
    const all = (table: string, order = "id") =>
      tables.has(table) ? (db.prepare(`select * from "${table}" order by ${order}`).all() as KumaRecord[]) : [];
    const secret = tables.has("setting")
      ? (db.prepare("select value from setting where key = 'jwtSecret'").get() as { value?: string } | undefined)
      : undefined;
    return {
      version: tables.has("knex_migrations") ? "2.x" : "1.23",
      install: createHash("sha256")
        .update(secret?.value ?? "")
        .digest("hex")
        .slice(0, 16),
      monitors: all("monitor"),
      sections: all("group", "weight, id"),
      sectionMonitors: all("monitor_group", "weight, id"),
      pages: all("status_page"),
      domains: all("status_page_cname"),
      incidents: all("incident"),
      maintenances: all("maintenance"),
      maintenanceMonitors: all("monitor_maintenance"),
      maintenancePages: all("maintenance_status_page"),
    };
  } catch (error) {
    if (error instanceof ForeignFile) throw error;
    const code = (error as { code?: string }).code ?? "";
    if (code === "SQLITE_NOTADB") throw new ForeignFile("This file is not a SQLite database: choose kuma.db.");
    if (code.startsWith("SQLITE_CORRUPT")) throw new ForeignFile("The database is damaged: restore a good copy first.");
    throw new ForeignFile(`The database cannot be read: ${(error as Error).message}`);
  } finally {
    db.close();
  }
}
