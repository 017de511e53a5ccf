import type { Kysely, Selectable } from "kysely";
import type { Interval } from "../contract/maintenance.ts";
import { groupBy } from "../group-by.ts";
import { type Connection, Queries } from "./connection.ts";
import type { Database } from "./schema.ts";
import type { SubscriberQueries } from "./subscribers.ts";

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
  /** When the window was made (the Statuspage API's created_at). */
  created_at: string;
  sites: string[];
}

const iso = (ms: number) => new Date(ms).toISOString();
/** At most this many occurrences are read for pages: a window repeating hourly has 336 in 14 days. */
const SHOWN_LIMIT = 2000;
/**
 * A window's occurrences as rows: those beginning before it was ended early (endedAt) end by then at the latest, and
 * one that ends before it begins is gone.
 */
const occurrenceRows = (windowId: string, occurrences: Interval[], endedAt: string | null) => {
  const cut = endedAt === null ? Number.NEGATIVE_INFINITY : Date.parse(endedAt);
  return occurrences
    .map((o) => (o.start < cut ? { start: o.start, end: Math.min(o.end, cut) } : o))
    .filter((o) => o.end > o.start)
    .map((o) => ({ window_id: windowId, starts_at: iso(o.start), ends_at: iso(o.end) }));
};

/** Why a save wrote nothing, thrown to roll its transaction back. */
class Outcome extends Error {
  constructor(readonly outcome: "changed" | "gone" | "sites") {
    super(outcome);
  }
}

/** A workspace's maintenance windows, and their occurrences as judging and the status pages read them. */
export class MaintenanceQueries extends Queries {
  constructor(
    connection: Connection,
    private readonly subscribers: SubscriberQueries,
  ) {
    super(connection);
  }

  /** The sites each window covers, in id order, by window id. */
  private async sitesOf(windowIds: string[]): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>();
    if (windowIds.length === 0) return out;
    const links = await this.db
      .selectFrom("maintenance_window_sites")
      .select(["window_id", "site_id"])
      .where("window_id", "in", [...new Set(windowIds)])
      .orderBy("site_id")
      .execute();
    for (const [id, rows] of groupBy(links, (l) => l.window_id))
      out.set(
        id,
        rows.map((l) => l.site_id),
      );
    return out;
  }

  private async withSites(rows: WindowRow[]): Promise<StoredWindow[]> {
    const sites = await this.sitesOf(rows.map((r) => r.id));
    return rows.map((r) => ({ ...r, sites: sites.get(r.id) ?? [] }));
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
    return this.withSites(rows);
  }

  async get(workspaceId: string, id: string): Promise<StoredWindow | undefined> {
    const row = await this.db
      .selectFrom("maintenance_windows")
      .selectAll()
      .where("workspace_id", "=", workspaceId)
      .where("id", "=", id)
      .executeTakeFirst();
    return row && (await this.withSites([row]))[0];
  }

  async count(workspaceId: string, trx: Kysely<Database> = this.db): Promise<number> {
    const row = await trx
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
   * covered or covers are judged again at once (their maintenance state may have changed). A change applies only to
   * the version it was made from (`expected`, its updated_at): "changed" when another change came first, "gone" when
   * the window was deleted, "sites" when one of its sites was deleted meanwhile; nothing is written then.
   */
  async save(
    stored: StoredWindow,
    occurrences: Interval[],
    expected: string | null,
  ): Promise<StoredWindow | "changed" | "gone" | "sites"> {
    const { sites, ...window } = stored;
    try {
      return await this.transaction(async (trx) => {
        const before = await trx
          .selectFrom("maintenance_window_sites")
          .select("site_id")
          .where("window_id", "=", window.id)
          .execute();
        // The sites first, in one order (as delete does), then the window: no two saves wait on each other in turn.
        const locked = await this.lockSites(trx, window.workspace_id, [...before.map((b) => b.site_id), ...sites]);
        // Subscribers hear of a window when it is made and when its schedule or services change, not of a new
        // title (a repeating window's next time moves on by itself: only a change of plan announces it again).
        let replanned = true;
        if (expected !== null) {
          const current = await trx
            .selectFrom("maintenance_windows")
            .select(["updated_at", "start", "time_zone", "duration_minutes", "recurrence"])
            .where("id", "=", window.id)
            .$if(this.dialect === "postgres", (qb) => qb.forUpdate())
            .executeTakeFirst();
          if (!current) throw new Outcome("gone");
          if (current.updated_at !== expected) throw new Outcome("changed");
          const sitesBefore = before.map((b) => b.site_id).sort();
          replanned =
            current.start !== window.start ||
            current.time_zone !== window.time_zone ||
            current.duration_minutes !== window.duration_minutes ||
            current.recurrence !== window.recurrence ||
            sitesBefore.join() !== [...sites].sort().join();
        }
        if (!sites.every((id) => locked.has(id))) throw new Outcome("sites");
        if (expected === null) {
          await trx.insertInto("maintenance_windows").values(window).execute();
        } else {
          await trx.updateTable("maintenance_windows").set(window).where("id", "=", window.id).execute();
          await trx.deleteFrom("maintenance_window_sites").where("window_id", "=", window.id).execute();
          await trx.deleteFrom("maintenance_occurrences").where("window_id", "=", window.id).execute();
        }
        await trx
          .insertInto("maintenance_window_sites")
          .values(sites.map((site_id) => ({ window_id: window.id, site_id })))
          .execute();
        const rows = await this.insertOccurrences(trx, window.id, occurrences, window.ended_at);
        await this.rejudge(trx, [...before.map((b) => b.site_id), ...sites], window.updated_at);
        // Subscribers hear of the next occurrence when it is yet to begin, once per time it is set for: a change
        // that keeps it where it was tells no one again; one that moves it tells its new time.
        const next = !replanned
          ? undefined
          : rows
              .filter((r) => r.ends_at > window.updated_at)
              .reduce<(typeof rows)[number] | undefined>(
                (a, r) => (a && a.starts_at <= r.starts_at ? a : r),
                undefined,
              );
        if (next && next.starts_at > window.updated_at) {
          await this.subscribers.writeMaintenanceNotices(trx, {
            windowId: window.id,
            sites,
            event: "maintenance_scheduled",
            startsAt: next.starts_at,
            endsAt: next.ends_at,
            at: window.updated_at,
          });
        }
        return { ...window, sites: [...sites].sort() };
      });
    } catch (error) {
      if (error instanceof Outcome) return error.outcome;
      throw error;
    }
  }

  /**
   * Writes a new window on new sites within the caller's transaction (an import's): nothing to lock or compare, and
   * no subscriber yet to tell (the sites were made in the same transaction).
   */
  async insertNew(trx: Kysely<Database>, stored: StoredWindow, occurrences: Interval[]): Promise<void> {
    const { sites, ...window } = stored;
    await trx.insertInto("maintenance_windows").values(window).execute();
    await trx
      .insertInto("maintenance_window_sites")
      .values(sites.map((site_id) => ({ window_id: window.id, site_id })))
      .execute();
    await this.insertOccurrences(trx, window.id, occurrences, window.ended_at);
    await this.rejudge(trx, sites, window.updated_at);
  }

  async delete(workspaceId: string, id: string, now: string): Promise<boolean> {
    return this.transaction(async (trx) => {
      const sites = await this.lockWindowSites(trx, workspaceId, id);
      const result = await trx
        .deleteFrom("maintenance_windows")
        .where("workspace_id", "=", workspaceId)
        .where("id", "=", id)
        .executeTakeFirst();
      if (Number(result.numDeletedRows) === 0) return false;
      await this.rejudge(trx, sites, now);
      return true;
    });
  }

  /**
   * Ends the window's occurrence under way at `now`: it ends then (and stays ended when the window is expanded
   * again), later occurrences stay, and its sites are judged again at once. "none" when none is under way,
   * undefined when the window is not the workspace's.
   */
  async endNow(workspaceId: string, id: string, now: string): Promise<StoredWindow | "none" | undefined> {
    return this.transaction(async (trx) => {
      // The sites first, then the window, in the order save and delete lock them.
      const siteIds = await this.lockWindowSites(trx, workspaceId, id);
      const window = await trx
        .selectFrom("maintenance_windows")
        .selectAll()
        .where("workspace_id", "=", workspaceId)
        .where("id", "=", id)
        .$if(this.dialect === "postgres", (qb) => qb.forUpdate())
        .executeTakeFirst();
      if (!window) return undefined;
      const underWay = await trx
        .selectFrom("maintenance_occurrences")
        .select("starts_at")
        .where("window_id", "=", id)
        .where("starts_at", "<=", now)
        .where("ends_at", ">", now)
        .executeTakeFirst();
      const cut = await trx
        .updateTable("maintenance_occurrences")
        .set({ ends_at: now })
        .where("window_id", "=", id)
        .where("starts_at", "<=", now)
        .where("ends_at", ">", now)
        .executeTakeFirst();
      if (Number(cut.numUpdatedRows) === 0) return "none";
      await trx
        .updateTable("maintenance_windows")
        .set({ ended_at: now, updated_at: now })
        .where("id", "=", id)
        .execute();
      await this.rejudge(trx, siteIds, now);
      if (underWay && window.recurrence === null) {
        await this.subscribers.writeMaintenanceNotices(trx, {
          windowId: id,
          sites: siteIds,
          event: "maintenance_ended",
          startsAt: underWay.starts_at,
          endsAt: now,
          at: now,
        });
      }
      return { ...window, ended_at: now, updated_at: now, sites: siteIds.sort() };
    });
  }

  /** The sites a window covers, locked for update (lockSites); their ids. */
  private async lockWindowSites(trx: Kysely<Database>, workspaceId: string, id: string): Promise<string[]> {
    const sites = await trx
      .selectFrom("maintenance_window_sites")
      .select("site_id")
      .where("window_id", "=", id)
      .execute();
    const ids = sites.map((s) => s.site_id);
    await this.lockSites(trx, workspaceId, ids);
    return ids;
  }

  /** Locks the workspace's sites among `ids` for update, in id order (PostgreSQL); the ones that exist. */
  private async lockSites(trx: Kysely<Database>, workspaceId: string, ids: string[]): Promise<Set<string>> {
    const unique = [...new Set(ids)].sort();
    if (unique.length === 0) return new Set();
    const rows = await trx
      .selectFrom("sites")
      .select("id")
      .where("workspace_id", "=", workspaceId)
      .where("id", "in", unique)
      .orderBy("id")
      .$if(this.dialect === "postgres", (qb) => qb.forUpdate())
      .execute();
    return new Set(rows.map((r) => r.id));
  }

  private async insertOccurrences(
    trx: Kysely<Database>,
    windowId: string,
    occurrences: Interval[],
    endedAt: string | null,
  ) {
    const rows = occurrenceRows(windowId, occurrences, endedAt);
    for (let i = 0; i < rows.length; i += 200) {
      await trx
        .insertInto("maintenance_occurrences")
        .values(rows.slice(i, i + 200))
        .execute();
    }
    return rows;
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

  /** Windows due to be expanded further (refill_at passed), the longest due first. */
  async dueForExpansion(now: string, limit: number): Promise<WindowRow[]> {
    return this.db
      .selectFrom("maintenance_windows")
      .selectAll()
      .where("refill_at", "<=", now)
      .orderBy("refill_at")
      .orderBy("id")
      .limit(limit)
      .execute();
  }

  /** Replaces a window's occurrences by a new expansion, unless the window changed meanwhile. */
  async refill(window: WindowRow, occurrences: Interval[], refillAt: string): Promise<void> {
    await this.transaction(async (trx) => {
      const result = await trx
        .updateTable("maintenance_windows")
        .set({ refill_at: refillAt })
        .where("id", "=", window.id)
        .where("updated_at", "=", window.updated_at)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 0) return;
      await trx.deleteFrom("maintenance_occurrences").where("window_id", "=", window.id).execute();
      await this.insertOccurrences(trx, window.id, occurrences, window.ended_at);
    });
  }

  /** Tries a window's expansion again later (one that failed), keeping its occurrences. */
  async postponeRefill(id: string, refillAt: string): Promise<void> {
    await this.db.updateTable("maintenance_windows").set({ refill_at: refillAt }).where("id", "=", id).execute();
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

  /** The current or next occurrence of each window (ends after now), by window id: one row per window. */
  async nextOccurrences(windowIds: string[], now: string): Promise<Map<string, Interval>> {
    const out = new Map<string, Interval>();
    if (windowIds.length === 0) return out;
    const rows = await this.db
      .selectFrom("maintenance_occurrences as o")
      .innerJoin("maintenance_windows as w", "w.id", "o.window_id")
      .select(({ fn }) => ["o.window_id", "w.duration_minutes", fn.min<string>("o.starts_at").as("starts_at")])
      .where("o.window_id", "in", windowIds)
      .where("o.ends_at", ">", now)
      .groupBy(["o.window_id", "w.duration_minutes"])
      .execute();
    for (const row of rows) {
      const start = Date.parse(row.starts_at);
      out.set(row.window_id, { start, end: start + row.duration_minutes * 60_000 });
    }
    return out;
  }

  /** The occurrences under way at `now` or beginning before `until` of the windows covering these sites. */
  async shownFor(siteIds: string[], now: string, until: string): Promise<ShownOccurrence[]> {
    if (siteIds.length === 0) return [];
    if (siteIds.length > 500) {
      // Within every driver's limit of parameters (the static build asks for every page's sites at once).
      const parts = await Promise.all(
        Array.from({ length: Math.ceil(siteIds.length / 500) }, (_, i) =>
          this.shownFor(siteIds.slice(i * 500, i * 500 + 500), now, until),
        ),
      );
      const seen = new Set<string>();
      return parts
        .flat()
        .filter((o) => !seen.has(`${o.window_id} ${o.starts_at}`) && seen.add(`${o.window_id} ${o.starts_at}`))
        .sort((a, b) => a.starts_at.localeCompare(b.starts_at) || a.window_id.localeCompare(b.window_id));
    }
    const rows = await this.db
      .selectFrom("maintenance_occurrences as o")
      .innerJoin("maintenance_windows as w", "w.id", "o.window_id")
      .select(["o.window_id", "w.title", "w.description", "o.starts_at", "o.ends_at", "w.created_at"])
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
      .limit(SHOWN_LIMIT)
      .execute();
    const sites = await this.sitesOf(rows.map((r) => r.window_id));
    return rows.map((r) => ({ ...r, sites: sites.get(r.window_id) ?? [] }));
  }
}
