import type { Kysely, Selectable } from "kysely";
import type { Interval } from "../contract/maintenance.ts";
import { groupBy } from "../group-by.ts";
import { Queries } from "./connection.ts";
import type { Database } from "./schema.ts";

export type WindowRow = Selectable<Database["maintenance_windows"]>;

/** A window with the sites it covers. */
export interface StoredWindow extends WindowRow {
  sites: string[];
}

/** One occurrence of a window, with the window's public text and sites: what status pages show. */
export interface ShownOccurrence {
  window_id: string;
  title: string;
  description: string;
  starts_at: string;
  ends_at: string;
  sites: string[];
}

const iso = (ms: number) => new Date(ms).toISOString();
const occurrenceRows = (windowId: string, occurrences: Interval[]) =>
  occurrences.map((o) => ({ window_id: windowId, starts_at: iso(o.start), ends_at: iso(o.end) }));

/** A workspace's maintenance windows, and their occurrences as judging and the status pages read them. */
export class MaintenanceQueries extends Queries {
  private async withSites(db: Kysely<Database>, rows: WindowRow[]): Promise<StoredWindow[]> {
    if (rows.length === 0) return [];
    const links = await db
      .selectFrom("maintenance_window_sites")
      .select(["window_id", "site_id"])
      .where(
        "window_id",
        "in",
        rows.map((r) => r.id),
      )
      .orderBy("site_id")
      .execute();
    const bySite = groupBy(links, (l) => l.window_id);
    return rows.map((r) => ({ ...r, sites: (bySite.get(r.id) ?? []).map((l) => l.site_id) }));
  }

  /** Newest first. */
  async list(workspaceId: string): Promise<StoredWindow[]> {
    const rows = await this.db
      .selectFrom("maintenance_windows")
      .selectAll()
      .where("workspace_id", "=", workspaceId)
      .orderBy("created_at", "desc")
      .orderBy("id", "desc")
      .execute();
    return this.withSites(this.db, rows);
  }

  async get(workspaceId: string, id: string): Promise<StoredWindow | undefined> {
    const row = await this.db
      .selectFrom("maintenance_windows")
      .selectAll()
      .where("workspace_id", "=", workspaceId)
      .where("id", "=", id)
      .executeTakeFirst();
    return row && (await this.withSites(this.db, [row]))[0];
  }

  async count(workspaceId: string): Promise<number> {
    const row = await this.db
      .selectFrom("maintenance_windows")
      .select((eb) => eb.fn.countAll<number | string>().as("n"))
      .where("workspace_id", "=", workspaceId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** The ids among `ids` that are the workspace's sites. */
  async workspaceSites(workspaceId: string, ids: string[]): Promise<Set<string>> {
    const rows = await this.db
      .selectFrom("sites")
      .select("id")
      .where("workspace_id", "=", workspaceId)
      .where("id", "in", ids)
      .execute();
    return new Set(rows.map((r) => r.id));
  }

  /**
   * Writes a window whole (a new one, or a change), its sites and its occurrences, in one transaction; the sites it
   * covered or covers are judged again at once (their maintenance state may have changed).
   */
  async save(stored: StoredWindow, occurrences: Interval[], create: boolean): Promise<StoredWindow> {
    return this.transaction(async (trx) => {
      const { sites, ...window } = stored;
      const before = await trx
        .selectFrom("maintenance_window_sites")
        .select("site_id")
        .where("window_id", "=", window.id)
        .execute();
      if (create) {
        await trx.insertInto("maintenance_windows").values(window).execute();
      } else {
        await trx.updateTable("maintenance_windows").set(window).where("id", "=", window.id).execute();
        await trx.deleteFrom("maintenance_window_sites").where("window_id", "=", window.id).execute();
        await trx.deleteFrom("maintenance_occurrences").where("window_id", "=", window.id).execute();
      }
      if (sites.length > 0) {
        await trx
          .insertInto("maintenance_window_sites")
          .values(sites.map((site_id) => ({ window_id: window.id, site_id })))
          .execute();
      }
      await this.insertOccurrences(trx, window.id, occurrences);
      await this.rejudge(trx, [...before.map((b) => b.site_id), ...sites], window.updated_at);
      return { ...window, sites: [...sites].sort() };
    });
  }

  async delete(workspaceId: string, id: string, now: string): Promise<boolean> {
    return this.transaction(async (trx) => {
      const sites = await trx
        .selectFrom("maintenance_window_sites")
        .select("site_id")
        .where("window_id", "=", id)
        .execute();
      const result = await trx
        .deleteFrom("maintenance_windows")
        .where("workspace_id", "=", workspaceId)
        .where("id", "=", id)
        .executeTakeFirst();
      if (Number(result.numDeletedRows) === 0) return false;
      await this.rejudge(
        trx,
        sites.map((s) => s.site_id),
        now,
      );
      return true;
    });
  }

  private async insertOccurrences(trx: Kysely<Database>, windowId: string, occurrences: Interval[]) {
    const rows = occurrenceRows(windowId, occurrences);
    for (let i = 0; i < rows.length; i += 200) {
      await trx
        .insertInto("maintenance_occurrences")
        .values(rows.slice(i, i + 200))
        .execute();
    }
  }

  /** Asks the engine to judge sites again now (the sweep). */
  private async rejudge(trx: Kysely<Database>, siteIds: string[], now: string) {
    if (siteIds.length === 0) return;
    await trx
      .updateTable("sites")
      .set({ rejudge_at: now })
      .where("id", "in", [...new Set(siteIds)])
      .execute();
  }

  /** Windows whose occurrences run out before `before`: expanded again (refill). */
  async dueForExpansion(before: string, limit: number): Promise<WindowRow[]> {
    return this.db
      .selectFrom("maintenance_windows")
      .selectAll()
      .where("expanded_until", "<", before)
      .orderBy("expanded_until")
      .limit(limit)
      .execute();
  }

  /** Replaces a window's occurrences by a new expansion, unless the window changed meanwhile. */
  async refill(window: WindowRow, occurrences: Interval[], until: string): Promise<void> {
    await this.transaction(async (trx) => {
      const result = await trx
        .updateTable("maintenance_windows")
        .set({ expanded_until: until })
        .where("id", "=", window.id)
        .where("updated_at", "=", window.updated_at)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 0) return;
      await trx.deleteFrom("maintenance_occurrences").where("window_id", "=", window.id).execute();
      await this.insertOccurrences(trx, window.id, occurrences);
    });
  }

  /** Each site's occurrences that overlap [from, to), in the caller's transaction (judging). */
  async occurrencesOf(
    trx: Kysely<Database>,
    siteIds: string[],
    from: string,
    to: string,
  ): Promise<Map<string, Interval[]>> {
    const out = new Map<string, Interval[]>();
    if (siteIds.length === 0) return out;
    const rows = await trx
      .selectFrom("maintenance_occurrences as o")
      .innerJoin("maintenance_window_sites as s", "s.window_id", "o.window_id")
      .select(["s.site_id", "o.starts_at", "o.ends_at"])
      .where("s.site_id", "in", siteIds)
      .where("o.ends_at", ">", from)
      .where("o.starts_at", "<", to)
      .execute();
    for (const row of rows) {
      const list = out.get(row.site_id) ?? [];
      list.push({ start: Date.parse(row.starts_at), end: Date.parse(row.ends_at) });
      out.set(row.site_id, list);
    }
    return out;
  }

  /** The current or next occurrence of each window (ends after now), by window id. */
  async nextOccurrences(windowIds: string[], now: string): Promise<Map<string, Interval>> {
    const out = new Map<string, Interval>();
    if (windowIds.length === 0) return out;
    const rows = await this.db
      .selectFrom("maintenance_occurrences")
      .select(["window_id", "starts_at", "ends_at"])
      .where("window_id", "in", windowIds)
      .where("ends_at", ">", now)
      .orderBy("starts_at")
      .execute();
    for (const row of rows) {
      if (!out.has(row.window_id)) {
        out.set(row.window_id, { start: Date.parse(row.starts_at), end: Date.parse(row.ends_at) });
      }
    }
    return out;
  }

  /** The occurrences under way at `now` or beginning before `until` of the windows covering these sites. */
  async shownFor(siteIds: string[], now: string, until: string): Promise<ShownOccurrence[]> {
    if (siteIds.length === 0) return [];
    const rows = await this.db
      .selectFrom("maintenance_occurrences as o")
      .innerJoin("maintenance_windows as w", "w.id", "o.window_id")
      .select(["o.window_id", "w.title", "w.description", "o.starts_at", "o.ends_at"])
      .where((eb) =>
        eb.exists(
          eb
            .selectFrom("maintenance_window_sites as s")
            .select("s.site_id")
            .whereRef("s.window_id", "=", "o.window_id")
            .where("s.site_id", "in", siteIds),
        ),
      )
      .where("o.ends_at", ">", now)
      .where("o.starts_at", "<", until)
      .orderBy("o.starts_at")
      .orderBy("o.window_id")
      .execute();
    if (rows.length === 0) return [];
    const links = await this.db
      .selectFrom("maintenance_window_sites")
      .select(["window_id", "site_id"])
      .where("window_id", "in", [...new Set(rows.map((r) => r.window_id))])
      .execute();
    const bySite = groupBy(links, (l) => l.window_id);
    return rows.map((r) => ({ ...r, sites: (bySite.get(r.window_id) ?? []).map((l) => l.site_id) }));
  }
}
