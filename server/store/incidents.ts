import type { Insertable, Kysely } from "kysely";
import { type Connection, Queries } from "./connection.ts";
import type { Database, IncidentRow, IncidentUpdateRow } from "./schema.ts";

/** An item an owner named as affected by an incident. */
export interface IncidentItemRow {
  incident_id: number;
  item_id: number;
}

import type { PageQueries } from "./status-pages.ts";

/**
 * What addUpdate did: wrote the update, or nothing, because the incident is gone or `at` lies before its start or its
 * latest update (`bound`, the time it may not precede).
 */
export type AddUpdateResult =
  | { ok: true }
  | { ok: false; refused: "missing" }
  | { ok: false; refused: "before-start" | "before-latest"; bound: string };

/** Incidents and their updates; every change touches its page, so its views rebuild. */
export class IncidentQueries extends Queries {
  constructor(
    connection: Connection,
    private readonly pages: PageQueries,
  ) {
    super(connection);
  }

  /** A page's incidents newest first, with their updates newest first and the items named as affected. */
  async list(
    pageId: number,
    limit: number,
  ): Promise<{ incidents: IncidentRow[]; updates: IncidentUpdateRow[]; links: IncidentItemRow[] }> {
    const incidents = await this.db
      .selectFrom("incidents")
      .selectAll()
      .where("page_id", "=", pageId)
      .orderBy("started_at", "desc")
      .orderBy("id", "desc")
      .limit(limit)
      .execute();
    const ids = incidents.map((i) => i.id);
    return { incidents, updates: await this.updatesOf(ids), links: await this.linksOf(ids) };
  }

  /**
   * A site's incidents across its workspace's pages, newest first: the automatic ones about it and those an owner
   * named one of its items in.
   */
  async forSite(workspaceId: string, siteId: string, limit: number) {
    return this.db
      .selectFrom("incidents as i")
      .innerJoin("status_pages as p", "p.id", "i.page_id")
      .select([
        "i.id",
        "i.page_id",
        "p.name as page_name",
        "i.title",
        "i.status",
        "i.started_at",
        "i.resolved_at",
        "i.source",
      ])
      .where("p.workspace_id", "=", workspaceId)
      .where((eb) =>
        eb.or([
          eb("i.site_id", "=", siteId),
          eb(
            "i.id",
            "in",
            eb
              .selectFrom("incident_items as ii")
              .innerJoin("status_page_items as it", "it.id", "ii.item_id")
              .select("ii.incident_id")
              .where("it.site_id", "=", siteId),
          ),
        ]),
      )
      .orderBy("i.started_at", "desc")
      .orderBy("i.id", "desc")
      .limit(limit)
      .execute();
  }

  async get(pageId: number, id: number) {
    const incident = await this.db
      .selectFrom("incidents")
      .selectAll()
      .where("id", "=", id)
      .where("page_id", "=", pageId)
      .executeTakeFirst();
    if (!incident) return undefined;
    return { incident, updates: await this.updatesOf([id]), links: await this.linksOf([id]) };
  }

  /** The items named as affected by these incidents. */
  private async linksOf(ids: number[]): Promise<IncidentItemRow[]> {
    if (ids.length === 0) return [];
    return this.db.selectFrom("incident_items").selectAll().where("incident_id", "in", ids).execute();
  }

  private async updatesOf(ids: number[]): Promise<IncidentUpdateRow[]> {
    if (ids.length === 0) return [];
    return this.db
      .selectFrom("incident_updates")
      .selectAll()
      .where("incident_id", "in", ids)
      .orderBy("created_at", "desc")
      .orderBy("id", "desc")
      .execute();
  }

  /** Inserts an incident, its first update and the items it affects (ids of the page's items) in one transaction. */
  create(row: Insertable<Database["incidents"]>, message: string, itemIds: number[] = []): Promise<number> {
    return this.transaction(async (trx) => {
      const id = await this.insert(trx, row, message);
      await this.link(trx, id, itemIds);
      return id;
    });
  }

  /** Names the items an incident affects, in place of those named before. */
  private async link(trx: Kysely<Database>, incidentId: number, itemIds: number[]): Promise<void> {
    await trx.deleteFrom("incident_items").where("incident_id", "=", incidentId).execute();
    if (itemIds.length === 0) return;
    await trx
      .insertInto("incident_items")
      .values([...new Set(itemIds)].map((item_id) => ({ incident_id: incidentId, item_id })))
      .execute();
  }

  /**
   * Inserts an incident and its first update within the caller's transaction (the API's, or the engine's). The first
   * update is stamped when its status took effect: resolved_at for an incident recorded resolved, else started_at,
   * so that an incident entered after the fact shows its own times rather than the time it was typed.
   */
  async insert(trx: Kysely<Database>, row: Insertable<Database["incidents"]>, message: string) {
    const { id } = await trx.insertInto("incidents").values(row).returning("id").executeTakeFirstOrThrow();
    const firstAt = row.status === "resolved" && row.resolved_at ? row.resolved_at : row.started_at;
    await trx
      .insertInto("incident_updates")
      .values({ incident_id: id, status: row.status, message, created_at: firstAt })
      .execute();
    await this.pages.touch(row.page_id, row.created_at, trx);
    return id;
  }

  /**
   * Appends an update stamped `at` (now when omitted) and moves the incident to its status; resolving stamps
   * resolved_at with `at`, reopening clears it. Updates stay ordered: an `at` before the incident's start or its
   * latest update (equal is allowed; ties keep the order of entry, by id) is refused and nothing is written. Without
   * `at` the update is stamped now, or the latest update's time should the clock have stepped back. The incident's
   * row is locked while this is decided, so two updates posted at once cannot both pass the check.
   */
  async addUpdate(
    pageId: number,
    incidentId: number,
    update: { status: string; message: string; at?: string | undefined },
    now: string,
  ): Promise<AddUpdateResult> {
    return this.transaction(async (trx) => {
      const incident = await trx
        .selectFrom("incidents")
        .select(["started_at"])
        .where("id", "=", incidentId)
        .where("page_id", "=", pageId)
        .$if(this.dialect === "postgres", (qb) => qb.forUpdate())
        .executeTakeFirst();
      if (!incident) return { ok: false, refused: "missing" };
      const latest = await trx
        .selectFrom("incident_updates")
        .select(["created_at"])
        .where("incident_id", "=", incidentId)
        .orderBy("created_at", "desc")
        .orderBy("id", "desc")
        .limit(1)
        .executeTakeFirst();
      const latestAt = latest?.created_at ?? incident.started_at;
      let at = update.at;
      if (at === undefined) {
        at = Date.parse(latestAt) > Date.parse(now) ? latestAt : now;
      } else if (Date.parse(at) < Date.parse(incident.started_at)) {
        return { ok: false, refused: "before-start", bound: incident.started_at };
      } else if (Date.parse(at) < Date.parse(latestAt)) {
        return { ok: false, refused: "before-latest", bound: latestAt };
      }
      await this.write(trx, pageId, incidentId, update.status, update.message, at, now);
      return { ok: true };
    });
  }

  /** The open incidents the engine opened for these sites: deleting a site or its state changing moves them. */
  openAutomatic(trx: Kysely<Database>, siteIds: string[]) {
    return trx
      .selectFrom("incidents")
      .select(["id", "page_id", "site_id", "status", "title"])
      .where("site_id", "in", siteIds)
      .where("source", "=", "automatic")
      .where("resolved_at", "is", null)
      .execute();
  }

  /**
   * An update stamped now, within the caller's transaction: the engine's (an automatic incident moving, a removed
   * site's incidents resolved), whose clock is the only one that stamps them.
   */
  async appendUpdate(
    trx: Kysely<Database>,
    pageId: number,
    incidentId: number,
    status: string,
    message: string,
    now: string,
  ): Promise<void> {
    await this.write(trx, pageId, incidentId, status, message, now, now);
  }

  /** Writes an update that happened `at` (when resolving, the resolution's time), recorded `now`. */
  private async write(
    trx: Kysely<Database>,
    pageId: number,
    incidentId: number,
    status: string,
    message: string,
    at: string,
    now: string,
  ): Promise<void> {
    await trx
      .insertInto("incident_updates")
      .values({ incident_id: incidentId, status, message, created_at: at })
      .execute();
    const current = await trx
      .selectFrom("incidents")
      .select(["resolved_at"])
      .where("id", "=", incidentId)
      .executeTakeFirstOrThrow();
    const resolvedAt = status === "resolved" ? (current.resolved_at ?? at) : null;
    await trx
      .updateTable("incidents")
      .set({ status, resolved_at: resolvedAt, updated_at: now })
      .where("id", "=", incidentId)
      .execute();
    await this.pages.touch(pageId, now, trx);
  }

  /** Renames an incident, or names the items it affects (ids of the page's items), or both. */
  async update(
    pageId: number,
    incidentId: number,
    change: { title?: string | undefined; items?: number[] | undefined },
    now: string,
  ): Promise<void> {
    await this.transaction(async (trx) => {
      await trx
        .updateTable("incidents")
        .set({ ...(change.title === undefined ? {} : { title: change.title }), updated_at: now })
        .where("id", "=", incidentId)
        .where("page_id", "=", pageId)
        .execute();
      if (change.items) await this.link(trx, incidentId, change.items);
      await this.pages.touch(pageId, now, trx);
    });
  }

  async delete(pageId: number, incidentId: number, now: string): Promise<boolean> {
    return this.transaction(async (trx) => {
      const result = await trx
        .deleteFrom("incidents")
        .where("id", "=", incidentId)
        .where("page_id", "=", pageId)
        .executeTakeFirst();
      await this.pages.touch(pageId, now, trx);
      return Number(result.numDeletedRows) > 0;
    });
  }
}
