import { type Insertable, type Kysely, sql } from "kysely";
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

  /** A page of the workspace's sites, newest first; with `tag`, only those carrying it (a stored, lower-case tag). */
  async list(
    workspaceId: string,
    offset: number,
    limit: number,
    tag?: string,
  ): Promise<{ rows: SiteRow[]; total: number }> {
    const mine = this.db
      .selectFrom("sites")
      .where("workspace_id", "=", workspaceId)
      .$if(tag !== undefined, (qb) => qb.where(this.carries(tag as string)));
    const [rows, count] = await Promise.all([
      mine.selectAll().orderBy("created_at", "desc").orderBy("id", "desc").offset(offset).limit(limit).execute(),
      mine.select((eb) => eb.fn.countAll().as("n")).executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(count.n) };
  }

  /**
   * Whether a site's tags hold `tag`: its JSON text holds the tag between quotes, which is exact because a tag has
   * no quote, backslash or control character to escape (contract SiteTag).
   */
  private carries(tag: string) {
    const find = sql.raw(this.dialect === "postgres" ? "strpos" : "instr");
    return sql<boolean>`${find}(tags, ${JSON.stringify(tag)}) > 0`;
  }

  /** Each tag of the workspace's sites with how many carry it, by tag. */
  async tagCounts(workspaceId: string): Promise<{ tag: string; count: number }[]> {
    const rows = await this.db
      .selectFrom("sites")
      .select("tags")
      .where("workspace_id", "=", workspaceId)
      .where("tags", "<>", "[]")
      .execute();
    const counts = new Map<string, number>();
    for (const row of rows)
      for (const tag of JSON.parse(row.tags) as string[]) counts.set(tag, (counts.get(tag) ?? 0) + 1);
    return [...counts]
      .map(([tag, count]) => ({ tag, count }))
      .sort((a, b) => (a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0));
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

  /** Inserts a site and schedules its first check in each of its regions within seconds (in `within` if given). */
  async insert(row: Insertable<Database["sites"]>, within?: Kysely<Database>): Promise<void> {
    const write = async (trx: Kysely<Database>) => {
      await trx.insertInto("sites").values(row).execute();
      await scheduleSoon(trx, row.id, JSON.parse(row.regions), row.created_at);
    };
    await (within ? write(within) : this.transaction(write));
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
   * is left with an outage nobody can end. Subscribers told of such an incident are told of its end at once, and so
   * are those of one whose resolution the engine holds (checks.ts): with the site gone there is no flapping to hold
   * it against.
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
        const update = await this.incidents.appendUpdate(trx, incident.page_id, incident.id, "resolved", message, now);
        if (incident.published_at !== null) {
          await this.incidents.tellResolution(trx, incident.page_id, incident.id, update, now);
        }
      }
      // And a resolution the engine was holding (flapping) is told now, while the site's items still say whom to tell.
      await this.incidents.tellHeldResolutionsOf(trx, id, now);
      await trx.deleteFrom("sites").where("id", "=", id).execute();
      return true;
    });
  }

  /** The push site a token's hash names: its id and last call's status; undefined when none. */
  async pushTarget(tokenHash: string): Promise<{ id: string; lastStatus: string | null; state: string } | undefined> {
    return this.db
      .selectFrom("sites")
      .select(["id", "push_last_status as lastStatus", "state"])
      .where("push_token_hash", "=", tokenHash)
      .executeTakeFirst();
  }

  /**
   * Writes push calls, coalesced to the latest per token (api/push.ts), in one transaction. A call older than the
   * one already written (another process's inbox flushed later) changes nothing. A call that changes what the
   * site's checker would find (the job says down, or up again, or the site is down or not yet judged) makes its
   * check due now, even while a check is running (finishChecks keeps a due time moved meanwhile), so the verdict
   * follows within the engine's next claim instead of an interval later. Returns the sites made due.
   */
  async recordPushes(
    calls: { tokenHash: string; at: string; status: "up" | "down"; message: string | null; ms: number | null }[],
    now: string,
  ): Promise<string[]> {
    if (calls.length === 0) return [];
    return this.transaction(async (trx) => {
      const due: string[] = [];
      for (const call of calls) {
        const before = await trx
          .selectFrom("sites")
          .select(["id", "push_last_status", "push_last_at", "state"])
          .where("push_token_hash", "=", call.tokenHash)
          .executeTakeFirst();
        if (!before || (before.push_last_at !== null && before.push_last_at >= call.at)) continue;
        await trx
          .updateTable("sites")
          .set({
            push_last_at: call.at,
            push_last_status: call.status,
            push_last_message: call.message,
            push_last_ms: call.ms,
          })
          .where("id", "=", before.id)
          .execute();
        if (before.push_last_status !== call.status || before.state === "unhealthy" || before.state === "unknown") {
          await trx.updateTable("site_checks").set({ next_check_at: now }).where("site_id", "=", before.id).execute();
          due.push(before.id);
        }
      }
      return due;
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
