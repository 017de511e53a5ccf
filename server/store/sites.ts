import { type Insertable, sql } from "kysely";
import { RESCHEDULING_COLUMNS, scheduleSoon } from "./checks.ts";
import { type Connection, Queries } from "./connection.ts";
import type { IncidentQueries } from "./incidents.ts";
import type { Database, SiteRow, StatRow } from "./schema.ts";

/** Sites and their daily statistics; inserts and changes schedule checks (checks.ts). */
export class SiteQueries extends Queries {
  constructor(
    connection: Connection,
    private readonly incidents: IncidentQueries,
  ) {
    super(connection);
  }

  async list(workspaceId: string, offset: number, limit: number): Promise<{ rows: SiteRow[]; total: number }> {
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

  async get(workspaceId: string, id: string): Promise<SiteRow | undefined> {
    return this.db
      .selectFrom("sites")
      .selectAll()
      .where("id", "=", id)
      .where("workspace_id", "=", workspaceId)
      .executeTakeFirst();
  }

  async getById(id: string): Promise<SiteRow | undefined> {
    return this.db.selectFrom("sites").selectAll().where("id", "=", id).executeTakeFirst();
  }

  /** Inserts a site and schedules its first check in each of its regions within seconds. */
  async insert(row: Insertable<Database["sites"]>): Promise<void> {
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
  async update(workspaceId: string, id: string, changes: Partial<SiteRow>, now: string): Promise<SiteRow | undefined> {
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
  async delete(workspaceId: string, id: string, now = new Date().toISOString()): Promise<boolean> {
    return this.transaction(async (trx) => {
      // Locked first, as judging locks it (checks.lockSites), so that no incident opens or moves meanwhile.
      const site = await trx
        .selectFrom("sites")
        .select("id")
        .where("id", "=", id)
        .where("workspace_id", "=", workspaceId)
        .$if(this.dialect === "postgres", (qb) => qb.forUpdate())
        .executeTakeFirst();
      if (!site) return false;
      for (const incident of await this.incidents.openAutomatic(trx, [id])) {
        const message = "The site was removed from monitoring.";
        await this.incidents.appendUpdate(trx, incident.page_id, incident.id, "resolved", message, now);
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
}
