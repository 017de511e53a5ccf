import type { Insertable, Kysely } from "kysely";
import { AffectedStatus, IncidentImpact, IncidentStatus } from "../contract/status-page.ts";
import { groupBy } from "../group-by.ts";
import { type Connection, Queries } from "./connection.ts";
import type { Database, IncidentRow, IncidentUpdateRow } from "./schema.ts";
import type { PageQueries } from "./status-pages.ts";
import type { SubscriberQueries } from "./subscribers.ts";

/** An item an owner named as affected by an incident. */
interface IncidentItemRow {
  incident_id: number;
  item_id: number;
  /** What the incident says of the item while open: an AffectedStatus. */
  status: string;
}

/** An incident's update as the store reads it. */
export interface StoredIncidentUpdate {
  id: number;
  status: IncidentStatus;
  message: string;
  createdAt: string;
  /** The owner's detail (an automatic update's failed check); never shown to visitors. */
  detail: string | null;
}

/** An incident as the store reads it: its columns decoded, with its updates and the items named as affected. */
export interface StoredIncident {
  id: number;
  pageId: number;
  title: string;
  status: IncidentStatus;
  startedAt: string;
  resolvedAt: string | null;
  /** The site an automatic incident is about. */
  siteId: string | null;
  source: "automatic" | "manual";
  /** none should the column hold a value this release does not write. */
  impact: IncidentImpact;
  /** When visitors could first read it; null: a draft, or waiting for the page's publication delay. */
  publishedAt: string | null;
  /** Newest first. */
  updates: StoredIncidentUpdate[];
  /** The items the owner named as affected, with what the incident says of each (undefined: a value not written). */
  named: Map<number, AffectedStatus | undefined>;
}

/** A stored status, read as investigating should a row hold anything else. */
const statusOf = (value: string): IncidentStatus => IncidentStatus.catch("investigating").parse(value);

/** Incident rows with their update and item rows (any incidents'), decoded; in the order of `rows`. */
export function storedIncidents(
  rows: IncidentRow[],
  updates: IncidentUpdateRow[],
  links: IncidentItemRow[],
): StoredIncident[] {
  const updatesOf = groupBy(updates, (u) => u.incident_id);
  const linksOf = groupBy(links, (l) => l.incident_id);
  return rows.map((row) => ({
    id: row.id,
    pageId: row.page_id,
    title: row.title,
    status: statusOf(row.status),
    startedAt: row.started_at,
    resolvedAt: row.resolved_at,
    siteId: row.site_id,
    source: row.source === "automatic" ? "automatic" : "manual",
    impact: IncidentImpact.catch("none").parse(row.impact),
    publishedAt: row.published_at,
    updates: (updatesOf.get(row.id) ?? []).map((u) => ({
      id: u.id,
      status: statusOf(u.status),
      message: u.message,
      createdAt: u.created_at,
      detail: u.detail,
    })),
    named: new Map(
      (linksOf.get(row.id) ?? []).map((l) => {
        const status = AffectedStatus.safeParse(l.status);
        return [l.item_id, status.success ? status.data : undefined];
      }),
    ),
  }));
}

/** An item an incident affects and what it says of it (an AffectedStatus); an id alone takes the column's default. */
export type AffectedItem = number | { id: number; status: string };

/** Worst first: when an item is named twice, the worse status counts. */
const AFFECTED_ORDER = ["major_outage", "partial_outage", "degraded", "maintenance", "operational"];

/**
 * How long the engine's resolution of an incident waits before subscribers are told: a service that goes down
 * again within it re-opens the incident without a word (a flapping service mails nothing per flap), and one that
 * stays up is told resolved once.
 */
export const RESOLUTION_HOLD_MS = 5 * 60_000;

/**
 * What editUpdate did: moved or reworded the update, or nothing, because the incident or the update is gone, or `at`
 * would put it out of the incident's order (`refused`, bounded by `bound`).
 */
export type EditUpdateResult =
  | { ok: true }
  | { ok: false; refused: "missing" }
  | { ok: false; refused: "missing-update" }
  | { ok: false; refused: "before-start" | "before-previous" | "after-next"; bound: string };

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
    private readonly subscribers: SubscriberQueries,
  ) {
    super(connection);
  }

  /**
   * A page's incidents newest first, with their updates newest first and the items named as affected; with
   * `published`, only those visitors may read (published_at set), as the public views list them.
   */
  async list(pageId: number, limit: number, published = false): Promise<StoredIncident[]> {
    const incidents = await this.db
      .selectFrom("incidents")
      .selectAll()
      .where("page_id", "=", pageId)
      .$if(published, (qb) => qb.where("published_at", "is not", null))
      .orderBy("started_at", "desc")
      .orderBy("id", "desc")
      .limit(limit)
      .execute();
    const ids = incidents.map((i) => i.id);
    return storedIncidents(incidents, await this.updatesOf(ids), await this.linksOf(ids));
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

  async get(pageId: number, id: number): Promise<StoredIncident | undefined> {
    const incident = await this.db
      .selectFrom("incidents")
      .selectAll()
      .where("id", "=", id)
      .where("page_id", "=", pageId)
      .executeTakeFirst();
    if (!incident) return undefined;
    return storedIncidents([incident], await this.updatesOf([id]), await this.linksOf([id]))[0];
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

  /**
   * Inserts an incident, its first update and the items it affects (the page's items) in one transaction; with
   * `notify`, a published one's notice to subscribers too.
   */
  create(
    row: Insertable<Database["incidents"]>,
    message: string,
    items: AffectedItem[] = [],
    notify = false,
  ): Promise<number> {
    return this.transaction(async (trx) => {
      const id = await this.insert(trx, row, message);
      await this.link(trx, id, items);
      if (notify && row.published_at) {
        const event = row.status === "resolved" ? "resolved" : "published";
        await this.notice(trx, row.page_id, id, event, `incident:${id}:published`, row.published_at);
      }
      return id;
    });
  }

  /** Writes the notice of an incident's latest update, in the caller's transaction (subscribers.writeNotice). */
  async notice(
    trx: Kysely<Database>,
    pageId: number,
    incidentId: number,
    event: "published" | "updated" | "resolved",
    key: string,
    at: string,
  ): Promise<void> {
    const updateId = await this.latestUpdate(trx, incidentId);
    await this.subscribers.writeNotice(trx, { pageId, incidentId, updateId, event, key, at });
  }

  /** The id of an incident's latest update (by time, then entry). */
  private async latestUpdate(trx: Kysely<Database>, incidentId: number): Promise<number> {
    const latest = await trx
      .selectFrom("incident_updates")
      .select("id")
      .where("incident_id", "=", incidentId)
      .orderBy("created_at", "desc")
      .orderBy("id", "desc")
      .limit(1)
      .executeTakeFirstOrThrow();
    return latest.id;
  }

  /** Names the items an incident affects, in place of those named before; an item named twice counts once, worst. */
  private async link(trx: Kysely<Database>, incidentId: number, items: AffectedItem[]): Promise<void> {
    await trx.deleteFrom("incident_items").where("incident_id", "=", incidentId).execute();
    if (items.length === 0) return;
    const byId = new Map<number, string | undefined>();
    for (const item of items) {
      const [id, status] = typeof item === "number" ? [item, undefined] : [item.id, item.status];
      const before = byId.get(id);
      const rank = (s: string | undefined) => (s === undefined ? 0 : AFFECTED_ORDER.length - AFFECTED_ORDER.indexOf(s));
      if (!byId.has(id) || rank(status) > rank(before)) byId.set(id, status);
    }
    await trx
      .insertInto("incident_items")
      .values(
        [...byId].map(([item_id, status]) => ({
          incident_id: incidentId,
          item_id,
          ...(status === undefined ? {} : { status }),
        })),
      )
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
    update: { status: string; message: string; at?: string | undefined; notify?: boolean },
    now: string,
  ): Promise<AddUpdateResult> {
    return this.transaction(async (trx) => {
      const incident = await trx
        .selectFrom("incidents")
        .select(["started_at", "published_at"])
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
      const updateId = await this.write(trx, pageId, incidentId, update.status, update.message, at, now);
      // The owner's word replaces a resolution the engine was holding: told now (or, with notify false, not at all).
      await this.dropHeldResolution(trx, incidentId);
      if (update.notify !== false && incident.published_at !== null) {
        const event = update.status === "resolved" ? "resolved" : "updated";
        await this.notice(trx, pageId, incidentId, event, `incident:${incidentId}:update:${updateId}`, now);
      }
      return { ok: true };
    });
  }

  /** Forgets a held resolution of the engine's (tellHeldResolutions): what was said since supersedes it. */
  async dropHeldResolution(trx: Kysely<Database>, incidentId: number): Promise<void> {
    await trx
      .updateTable("incidents")
      .set({ resolution_due_at: null })
      .where("id", "=", incidentId)
      .where("resolution_due_at", "is not", null)
      .execute();
  }

  /**
   * Tells subscribers of the engine's resolutions whose hold (RESOLUTION_HOLD_MS) has passed with the incident
   * still resolved. Any process may run it at any time: each incident is locked and read as it stands (a
   * re-opening has cleared its hold), and its notice's key is the resolving update's. Returns how many it told.
   */
  tellHeldResolutions(now: string): Promise<number> {
    return this.transaction(async (trx) => {
      // Locked, so each row read is as it stands: a re-opening meanwhile has cleared its hold (and is not read).
      const due = await trx
        .selectFrom("incidents")
        .select(["id", "page_id", "status", "published_at"])
        .where("resolution_due_at", "<=", now)
        .orderBy("resolution_due_at")
        .limit(100)
        .$if(this.dialect === "postgres", (qb) => qb.forUpdate().skipLocked())
        .execute();
      let told = 0;
      for (const held of due) if (await this.tellHeld(trx, held, now)) told++;
      return told;
    });
  }

  /**
   * Tells now the resolutions the engine holds for a site's incidents, within the caller's transaction (deleting the
   * site): nothing can re-open them, and the site's items, which say whom to tell, go with it.
   */
  async tellHeldResolutionsOf(trx: Kysely<Database>, siteId: string, now: string): Promise<void> {
    const held = await trx
      .selectFrom("incidents")
      .select(["id", "page_id", "status", "published_at"])
      .where("site_id", "=", siteId)
      .where("resolution_due_at", "is not", null)
      .$if(this.dialect === "postgres", (qb) => qb.forUpdate())
      .execute();
    for (const incident of held) await this.tellHeld(trx, incident, now);
  }

  /**
   * Clears a locked incident's held resolution and, while it is resolved and published, tells it: keyed by the
   * resolving update, as every resolution's notice is, so that it is told once whoever tells it. Returns whether it
   * told it.
   */
  private async tellHeld(
    trx: Kysely<Database>,
    held: { id: number; page_id: number; status: string; published_at: string | null },
    now: string,
  ): Promise<boolean> {
    await this.dropHeldResolution(trx, held.id);
    if (held.status !== "resolved" || held.published_at === null) return false;
    await this.tellResolution(trx, held.page_id, held.id, await this.latestUpdate(trx, held.id), now);
    return true;
  }

  /** Writes the notice of an incident's resolution by `updateId`, within the caller's transaction. */
  async tellResolution(trx: Kysely<Database>, pageId: number, incidentId: number, updateId: number, at: string) {
    const key = `incident:${incidentId}:update:${updateId}`;
    await this.subscribers.writeNotice(trx, { pageId, incidentId, updateId, event: "resolved", key, at });
  }

  /**
   * The open incidents the engine opened for these sites, locked (PostgreSQL) until the caller's transaction ends:
   * deleting a site resolves them, and an owner's update meanwhile waits, then finds them resolved.
   */
  openAutomatic(trx: Kysely<Database>, siteIds: string[]) {
    return trx
      .selectFrom("incidents")
      .select(["id", "page_id", "site_id", "status", "title", "published_at"])
      .where("site_id", "in", siteIds)
      .where("source", "=", "automatic")
      .where("resolved_at", "is", null)
      .$if(this.dialect === "postgres", (qb) => qb.forUpdate())
      .execute();
  }

  /**
   * An update stamped now, within the caller's transaction: the engine's (an automatic incident moving, a removed
   * site's incidents resolved), whose clock is the only one that stamps them.
   */
  appendUpdate(
    trx: Kysely<Database>,
    pageId: number,
    incidentId: number,
    status: string,
    message: string,
    now: string,
  ): Promise<number> {
    return this.write(trx, pageId, incidentId, status, message, now, now);
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
  ): Promise<number> {
    const { id } = await trx
      .insertInto("incident_updates")
      .values({ incident_id: incidentId, status, message, created_at: at })
      .returning("id")
      .executeTakeFirstOrThrow();
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
    return id;
  }

  /** Renames an incident, sets its impact, or names the items it affects (the page's items), or several. */
  async update(
    pageId: number,
    incidentId: number,
    change: { title?: string | undefined; impact?: string | undefined; items?: AffectedItem[] | undefined },
    now: string,
  ): Promise<void> {
    await this.transaction(async (trx) => {
      await trx
        .updateTable("incidents")
        .set({
          ...(change.title === undefined ? {} : { title: change.title }),
          ...(change.impact === undefined ? {} : { impact: change.impact }),
          updated_at: now,
        })
        .where("id", "=", incidentId)
        .where("page_id", "=", pageId)
        .execute();
      if (change.items) await this.link(trx, incidentId, change.items);
      await this.pages.touch(pageId, now, trx);
    });
  }

  /**
   * Lets visitors read an incident from `now`, telling its subscribers unless `notify` is false; one already
   * published keeps its time. False when it is gone.
   */
  async publish(pageId: number, incidentId: number, now: string, notify = true): Promise<boolean> {
    return this.transaction(async (trx) => {
      const result = await trx
        .updateTable("incidents")
        .set({ published_at: now, updated_at: now })
        .where("id", "=", incidentId)
        .where("page_id", "=", pageId)
        .where("published_at", "is", null)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) > 0) {
        await this.pages.touch(pageId, now, trx);
        if (notify) {
          // A draft resolved before it was published is told as resolved.
          const { status } = await trx
            .selectFrom("incidents")
            .select("status")
            .where("id", "=", incidentId)
            .executeTakeFirstOrThrow();
          const event = status === "resolved" ? "resolved" : "published";
          await this.notice(trx, pageId, incidentId, event, `incident:${incidentId}:published`, now);
        }
        return true;
      }
      const found = await trx
        .selectFrom("incidents")
        .select("id")
        .where("id", "=", incidentId)
        .where("page_id", "=", pageId)
        .executeTakeFirst();
      return found !== undefined;
    });
  }

  /**
   * Rewords an update or moves it to `at`, keeping the incident's updates in order: `at` may not precede the
   * update before it nor follow the one after it (equal is allowed), nor precede the incident's start, except for
   * the opening update (the oldest, stamped at the start), which moves the start with it. The update that resolved
   * the incident (stamped at its resolved_at) moves resolved_at with it. The row is locked while this is decided.
   */
  async editUpdate(
    pageId: number,
    incidentId: number,
    updateId: number,
    change: { message?: string | undefined; at?: string | undefined },
    now: string,
  ): Promise<EditUpdateResult> {
    return this.transaction(async (trx) => {
      const incident = await trx
        .selectFrom("incidents")
        .select(["started_at", "resolved_at"])
        .where("id", "=", incidentId)
        .where("page_id", "=", pageId)
        .$if(this.dialect === "postgres", (qb) => qb.forUpdate())
        .executeTakeFirst();
      if (!incident) return { ok: false, refused: "missing" };
      const updates = await trx
        .selectFrom("incident_updates")
        .select(["id", "status", "created_at"])
        .where("incident_id", "=", incidentId)
        .orderBy("created_at")
        .orderBy("id")
        .execute();
      const index = updates.findIndex((u) => u.id === updateId);
      const update = updates[index];
      if (!update) return { ok: false, refused: "missing-update" };
      const at = change.at;
      const incidentChange: { started_at?: string; resolved_at?: string } = {};
      if (at !== undefined && at !== update.created_at) {
        const ms = Date.parse(at);
        const previous = updates[index - 1];
        const next = updates[index + 1];
        const opening = index === 0 && update.created_at === incident.started_at;
        if (!opening && ms < Date.parse(incident.started_at)) {
          return { ok: false, refused: "before-start", bound: incident.started_at };
        }
        if (previous && ms < Date.parse(previous.created_at)) {
          return { ok: false, refused: "before-previous", bound: previous.created_at };
        }
        if (next && ms > Date.parse(next.created_at)) {
          return { ok: false, refused: "after-next", bound: next.created_at };
        }
        if (opening) incidentChange.started_at = at;
        if (update.status === "resolved" && incident.resolved_at === update.created_at) incidentChange.resolved_at = at;
      }
      await trx
        .updateTable("incident_updates")
        .set({
          ...(change.message === undefined ? {} : { message: change.message }),
          ...(at === undefined ? {} : { created_at: at }),
        })
        .where("id", "=", updateId)
        .execute();
      await trx
        .updateTable("incidents")
        .set({ ...incidentChange, updated_at: now })
        .where("id", "=", incidentId)
        .execute();
      await this.pages.touch(pageId, now, trx);
      return { ok: true };
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
