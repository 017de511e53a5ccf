import { type Insertable, type Kysely, sql } from "kysely";
import type { IncidentPolicy } from "../contract/status-page.ts";
import type { AlertDelivery, AlertQueries } from "./alerts.ts";
import { type Connection, newId, Queries } from "./connection.ts";
import { type IncidentQueries, RESOLUTION_HOLD_MS } from "./incidents.ts";
import {
  type ClaimedCheck,
  changeColumns,
  claimedCheck,
  type MonitoredSite,
  monitoredSite,
  type ResultSummary,
  type SiteChange,
} from "./monitored.ts";
import type { Database } from "./schema.ts";
import { incidentPolicyOf, type PageQueries } from "./status-pages.ts";

/** A new, resumed or reconfigured site is checked at a random moment within this many ms: soon, but spread. */
export const FIRST_CHECK_SPREAD_MS = 3000;

/** Site columns whose change means the site should be checked (and judged) again soon. */
export const RESCHEDULING_COLUMNS = new Set([
  "url",
  "method",
  "headers",
  "check_interval",
  "timeout",
  "success_codes",
  "error_codes",
  "pause",
  "enabled",
  "regions",
  "slow_threshold_ms",
  "settings",
]);

/**
 * Makes the site's schedule match its regions (one row per region) and due within FIRST_CHECK_SPREAD_MS of now.
 * Leases are left alone: a check already running finishes and is recorded.
 */
export async function scheduleSoon(trx: Kysely<Database>, siteId: string, regions: string[], now: string) {
  const at = new Date(Date.parse(now) + Math.floor(Math.random() * FIRST_CHECK_SPREAD_MS)).toISOString();
  await trx.deleteFrom("site_checks").where("site_id", "=", siteId).where("region", "not in", regions).execute();
  await trx
    .insertInto("site_checks")
    .values(regions.map((region) => ({ site_id: siteId, region, next_check_at: at, recent: "[]" })))
    .onConflict((oc) => oc.columns(["site_id", "region"]).doUpdateSet({ next_check_at: at }))
    .execute();
}

const iso = (ms: number) => new Date(ms).toISOString();

/** A check that ran, to be written while its lease is still `owner`'s. */
export interface FinishedCheck {
  siteId: string;
  region: string;
  /** The engine that claimed it. */
  owner: string;
  /** When it was due (ISO), as claimed: an edit meanwhile moved next_check_at, and that is kept. */
  dueAt: string;
  /** When the region checks the site next (ISO). */
  nextAt: string;
  /** The region's recent results after this one (JSON text for site_checks.recent). */
  recent: string;
  /** The raw result row. */
  result: Insertable<Database["check_results"]>;
}

/** A site's daily statistics to add, for one UTC day. */
export interface StatDelta {
  site_id: string;
  day: string;
  checks_total: number;
  checks_up: number;
  slow_count: number;
  response_count: number;
  response_ms_sum: number;
  downtime_ms: number;
}

/** An automatic incident of a site: open, or resolved recently enough to re-open within a cool-down. */
export interface AutomaticIncident {
  id: number;
  page_id: number;
  site_id: string | null;
  status: string;
  /** Where the page's label comes from once its item is hidden or gone. */
  title?: string;
  started_at: string;
  resolved_at: string | null;
  /** When the engine publishes it, if it waits for its page's delay. */
  publish_at?: string | null;
}

/** A visible item showing a site, with its page's incident policy (JSON text of IncidentPolicy). */
export interface ShowingItem {
  id: number;
  page_id: number;
  site_id: string;
  label: string;
  created_at: string;
  /** Its page's incident policy. */
  policy: IncidentPolicy;
}

/**
 * One automatic incident write: a new incident with its first update and its items' statuses, or an update to one
 * (an update whose status is not resolved re-opens a resolved incident). `detail` is the owner's only.
 */
export type IncidentWrite =
  | {
      kind: "open";
      incident: Insertable<Database["incidents"]>;
      message: string;
      detail: string | null;
      at: string;
      items: { item_id: number; status: string }[];
    }
  | {
      kind: "append";
      pageId: number;
      incidentId: number;
      status: string;
      message: string;
      detail: string | null;
      at: string;
      /** A re-opening's new publication time for an incident still unpublished (its page's policy "after"). */
      publishAt?: string | null;
    };

/** Everything judging changes, written in the caller's transaction by writeJudged. */
export interface JudgedWrites {
  /** Each judged site's changed columns, in the order the sites were locked. */
  sites: { id: string; change: SiteChange }[];
  stats: StatDelta[];
  /** In order: incident ids follow it. */
  incidents: IncidentWrite[];
  /** The alerts the state changes cause, one delivery per event and channel. */
  alerts: AlertDelivery[];
}

/** What judging a set of sites reads besides the sites themselves. */
export interface JudgingData {
  /** Every region's recent results of each site, by site id. */
  recent: Map<string, ResultSummary[]>;
  /**
   * Checks, and slow or failed ones, since the window's start, of the sites asked for; and when each was first
   * checked (its oldest raw result), so that the condition waits for a whole window.
   */
  windows: Map<string, { checks: number; slowOrFailed: number; firstAt: string | null }>;
}

/**
 * What the status pages show of some sites: the visible items showing them (with their pages' policies), and their
 * automatic incidents that are open or resolved within the longest cool-down (a day).
 */
export interface Showing {
  items: ShowingItem[];
  incidents: AutomaticIncident[];
}

/** The longest cool-down a rule may set, in minutes (AlertRule.cooldownMinutes). */
const MAX_COOLDOWN_MINUTES = 1440;

/**
 * The engine's schedule and what it writes: claiming due checks with a lease, the raw results and each region's
 * recent ones, the judged sites, their daily statistics and automatic incidents, domain registrations, pruning.
 * PostgreSQL locks rows (FOR UPDATE, SKIP LOCKED for claims) so that engines in many processes share the work;
 * SQLite has one writer at a time anyway.
 */
export class CheckQueries extends Queries {
  constructor(
    connection: Connection,
    private readonly pages: PageQueries,
    private readonly incidents: IncidentQueries,
    private readonly alerts: AlertQueries,
  ) {
    super(connection);
  }

  /**
   * Claims up to `limit` due checks of a region with a lease, in one transaction. PostgreSQL skips rows another
   * engine holds locked (FOR UPDATE SKIP LOCKED). The lease outlives the longest check of the batch (its site's
   * timeout) by `leaseMarginMs`, so a check whose process died is claimed again after it.
   */
  claimDue(opts: {
    region: string;
    owner: string;
    now: number;
    limit: number;
    leaseMarginMs: number;
  }): Promise<ClaimedCheck[]> {
    const now = iso(opts.now);
    return this.transaction(async (trx) => {
      const rows = await trx
        .selectFrom("site_checks as c")
        .innerJoin("sites as s", "s.id", "c.site_id")
        .select([
          "c.site_id",
          "c.region",
          "c.next_check_at",
          "c.recent",
          "s.url",
          "s.method",
          "s.headers",
          "s.timeout",
          "s.check_interval",
          "s.success_codes",
          "s.error_codes",
          "s.slow_threshold_ms",
          "s.domain_checked_at",
          "s.settings",
          "s.created_at",
          "s.push_since",
          "s.push_last_at",
          "s.push_last_status",
          "s.push_last_message",
          "s.push_last_ms",
        ])
        .where("c.region", "=", opts.region)
        .where("c.next_check_at", "<=", now)
        .where((eb) => eb.or([eb("c.lease_until", "is", null), eb("c.lease_until", "<", now)]))
        .where("s.pause", "=", 0)
        .where("s.enabled", "=", 1)
        .orderBy("c.next_check_at")
        .limit(opts.limit)
        .$if(this.dialect === "postgres", (qb) => qb.forUpdate("c").skipLocked())
        .execute();
      if (rows.length === 0) return [];
      const longest = Math.max(...rows.map((r) => r.timeout)) * 1000;
      await trx
        .updateTable("site_checks")
        .set({ lease_owner: opts.owner, lease_until: iso(opts.now + longest + opts.leaseMarginMs) })
        .where("region", "=", opts.region)
        .where(
          "site_id",
          "in",
          rows.map((r) => r.site_id),
        )
        .execute();
      return rows.map(claimedCheck);
    });
  }

  /** Hands back every lease `owner` holds (an engine stopping), so that another engine can check those sites at once. */
  async releaseLeases(owner: string): Promise<void> {
    await this.db
      .updateTable("site_checks")
      .set({ lease_owner: null, lease_until: null })
      .where("lease_owner", "=", owner)
      .execute();
  }

  /**
   * Locks the sites for the rest of the transaction and reads them (PostgreSQL; in id order so that two engines
   * never deadlock), by id.
   */
  async lockSites(trx: Kysely<Database>, ids: string[]): Promise<Map<string, MonitoredSite>> {
    const sorted = [...ids].sort();
    const rows = await trx
      .selectFrom("sites")
      .selectAll()
      .where("id", "in", sorted)
      .orderBy("id")
      .$if(this.dialect === "postgres", (qb) => qb.forUpdate())
      .execute();
    return new Map(rows.map((r) => [r.id, monitoredSite(r)]));
  }

  /**
   * Writes finished checks: each region's recent results and next due time, and the lease given back, then the raw
   * results. Only while the lease is still the check's owner's: a batch written twice (a retry after a commit whose
   * answer was lost) or after the lease passed to another engine is skipped, so nothing is counted twice or
   * overwritten. Returns the checks written.
   */
  async finishChecks<T extends FinishedCheck>(trx: Kysely<Database>, checks: T[]): Promise<T[]> {
    const live: T[] = [];
    for (const check of checks) {
      const updated = await trx
        .updateTable("site_checks")
        .set({
          recent: check.recent,
          // A site edited while its check ran was rescheduled to "soon": keep that.
          next_check_at: sql<string>`case when next_check_at = ${check.dueAt} then ${check.nextAt} else next_check_at end`,
          lease_owner: null,
          lease_until: null,
        })
        .where("site_id", "=", check.siteId)
        .where("region", "=", check.region)
        .where("lease_owner", "=", check.owner)
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) > 0) live.push(check);
    }
    for (let i = 0; i < live.length; i += 100) {
      const chunk = live.slice(i, i + 100);
      await trx
        .insertInto("check_results")
        .values(chunk.map((c) => c.result))
        .execute();
    }
    return live;
  }

  /** The ids of sites due to be judged again by time alone (rejudge_at passed), the longest due first. */
  async dueForJudging(now: string, limit: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom("sites")
      .select("id")
      .where("rejudge_at", "<=", now)
      .orderBy("rejudge_at")
      .limit(limit)
      .execute();
    return rows.map((r) => r.id);
  }

  /**
   * What judging these sites reads, in the caller's transaction: their regions' recent results, and the chronic
   * window (checks since `windowFrom`) of the sites in `windowsOf`.
   */
  async judgingData(
    trx: Kysely<Database>,
    siteIds: string[],
    opts: { windowsOf: string[]; windowFrom: string },
  ): Promise<JudgingData> {
    const schedules = await trx
      .selectFrom("site_checks")
      .select(["site_id", "recent"])
      .where("site_id", "in", siteIds)
      .execute();
    const recent = new Map<string, ResultSummary[]>();
    for (const { site_id, recent: kept } of schedules) {
      recent.set(site_id, [...(recent.get(site_id) ?? []), ...(JSON.parse(kept) as ResultSummary[])]);
    }
    const windows = new Map<string, { checks: number; slowOrFailed: number; firstAt: string | null }>();
    if (opts.windowsOf.length > 0) {
      const rows = await trx
        .selectFrom("check_results")
        .select((eb) => [
          "site_id",
          eb.fn.countAll().as("checks"),
          eb.fn.sum(sql<number>`case when ok = 0 or slow = 1 then 1 else 0 end`).as("bad"),
        ])
        .where("site_id", "in", opts.windowsOf)
        .where("at", ">=", opts.windowFrom)
        // Checks the server refused by its address policy, or could not run ("not checked: ..."), were not checks
        // of the site (engine/judge.ts, notChecked).
        .where((eb) =>
          eb.or([
            eb("error", "is", null),
            eb.and([
              eb("error", "not like", "refused:%PORCHLIGHT_ALLOW_PRIVATE_TARGETS%"),
              eb("error", "not like", "not checked:%"),
            ]),
          ]),
        )
        .groupBy("site_id")
        .execute();
      const firsts = await trx
        .selectFrom("check_results")
        .select((eb) => ["site_id", eb.fn.min("at").as("first")])
        .where("site_id", "in", opts.windowsOf)
        .groupBy("site_id")
        .execute();
      for (const id of opts.windowsOf) {
        const w = rows.find((r) => r.site_id === id);
        const first = firsts.find((f) => f.site_id === id)?.first;
        windows.set(id, {
          checks: Number(w?.checks ?? 0),
          slowOrFailed: Number(w?.bad ?? 0),
          firstAt: first ? String(first) : null,
        });
      }
    }
    return { recent, windows };
  }

  /**
   * What the status pages show of sites whose automatic incidents move, in the caller's transaction: read only for
   * those sites, and only when some move, so a judgement that changes no state costs no more.
   */
  async showing(trx: Kysely<Database>, siteIds: string[], now: string): Promise<Showing> {
    if (siteIds.length === 0) return { items: [], incidents: [] };
    const items = await trx
      .selectFrom("status_page_items as i")
      .innerJoin("status_pages as p", "p.id", "i.page_id")
      .select(["i.id", "i.page_id", "i.site_id", "i.label", "i.created_at", "p.incident_policy"])
      .where("i.site_id", "in", siteIds)
      .where("i.visible", "=", 1)
      .orderBy("i.page_id")
      .orderBy("i.position")
      .orderBy("i.id")
      .execute();
    const since = iso(Date.parse(now) - MAX_COOLDOWN_MINUTES * 60_000);
    const incidents = await trx
      .selectFrom("incidents")
      .select(["id", "page_id", "site_id", "status", "title", "started_at", "resolved_at", "publish_at"])
      .where("site_id", "in", siteIds)
      .where("source", "=", "automatic")
      .where((eb) => eb.or([eb("resolved_at", "is", null), eb("resolved_at", ">=", since)]))
      .orderBy("id")
      .execute();
    return {
      items: items.map(({ incident_policy, ...item }) => ({ ...item, policy: incidentPolicyOf(incident_policy) })),
      incidents,
    };
  }

  /**
   * Publishes the automatic incidents whose publication time (publish_at) has come while they are open, each
   * touching its page, unless their page publishes drafts now; an incident resolved before it stays owner-only.
   * Returns how many.
   */
  async publishDue(now: string): Promise<number> {
    const waiting = await this.db
      .selectFrom("incidents as i")
      .innerJoin("status_pages as p", "p.id", "i.page_id")
      .select(["i.id", "i.page_id", "p.incident_policy"])
      .where("i.source", "=", "automatic")
      .where("i.published_at", "is", null)
      .where("i.resolved_at", "is", null)
      .where("i.publish_at", "<=", now)
      .execute();
    // A page switched to drafts meanwhile keeps them for its owner to publish.
    const due = waiting.filter((w) => !/"publish"\s*:\s*"draft"/.test(w.incident_policy));
    if (due.length === 0) return 0;
    return this.transaction(async (trx) => {
      // Another engine may have published them meanwhile, or they resolved: only those still due.
      const published = await trx
        .updateTable("incidents")
        .set({ published_at: now, updated_at: now })
        .where(
          "id",
          "in",
          due.map((d) => d.id),
        )
        .where("published_at", "is", null)
        .where("resolved_at", "is", null)
        .returning(["id", "page_id"])
        .execute();
      for (const pageId of new Set(published.map((d) => d.page_id))) await this.pages.touch(pageId, now, trx);
      for (const d of published) {
        await this.incidents.notice(trx, d.page_id, d.id, "published", `incident:${d.id}:published`, now);
      }
      return published.length;
    });
  }

  /**
   * Writes what judging decided, in the caller's transaction: the sites' changed columns, the daily statistics
   * (added to the day's row, in key order), the automatic incidents (each touching its page). Returns the rows
   * written.
   */
  async writeJudged(trx: Kysely<Database>, writes: JudgedWrites, now: string): Promise<number> {
    let rows = 0;
    for (const { id, change } of writes.sites) {
      await trx.updateTable("sites").set(changeColumns(change)).where("id", "=", id).execute();
      rows++;
    }
    rows += await this.addStats(trx, writes.stats, now);
    await this.alerts.insertOutbox(trx, writes.alerts);
    rows += writes.alerts.length;
    for (const write of writes.incidents) {
      await this.writeIncident(trx, write, now);
      rows += 2;
    }
    return rows;
  }

  /** An automatic incident's write: a new incident with its items and first update, or an update to one. */
  private async writeIncident(trx: Kysely<Database>, write: IncidentWrite, now: string): Promise<void> {
    if (write.kind === "open") {
      const { id } = await trx.insertInto("incidents").values(write.incident).returning("id").executeTakeFirstOrThrow();
      if (write.items.length > 0) {
        await trx
          .insertInto("incident_items")
          .values(write.items.map((i) => ({ incident_id: id, item_id: i.item_id, status: i.status })))
          .execute();
      }
      await trx
        .insertInto("incident_updates")
        .values({
          incident_id: id,
          status: write.incident.status,
          message: write.message,
          detail: write.detail,
          created_at: write.at,
        })
        .execute();
      await this.pages.touch(write.incident.page_id, now, trx);
      if (write.incident.published_at) {
        const key = `incident:${id}:published`;
        await this.incidents.notice(trx, write.incident.page_id, id, "published", key, now);
      }
      return;
    }
    const update = await trx
      .insertInto("incident_updates")
      .values({
        incident_id: write.incidentId,
        status: write.status,
        message: write.message,
        detail: write.detail,
        created_at: write.at,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    // Locked (PostgreSQL) against the sweep that tells held resolutions, so that a re-opening and that sweep see
    // each other's word.
    const current = await trx
      .selectFrom("incidents")
      .select(["resolved_at", "published_at", "resolution_due_at"])
      .where("id", "=", write.incidentId)
      .$if(this.dialect === "postgres", (qb) => qb.forUpdate())
      .executeTakeFirstOrThrow();
    const resolving = write.status === "resolved";
    const published = current.published_at !== null;
    // Resolving keeps an earlier resolution time; any other status re-opens.
    const resolvedAt = resolving ? (current.resolved_at ?? write.at) : null;
    // Subscribers hear of the engine's resolution once the service has stayed up RESOLUTION_HOLD_MS; a re-opening
    // meanwhile drops it unheard, and one after it is told (they were told it was resolved).
    const holdUntil =
      resolving && published && current.resolved_at === null ? iso(Date.parse(now) + RESOLUTION_HOLD_MS) : null;
    const reopening = !resolving && current.resolved_at !== null;
    await trx
      .updateTable("incidents")
      .set({
        status: write.status,
        resolved_at: resolvedAt,
        updated_at: now,
        ...(write.publishAt !== undefined ? { publish_at: write.publishAt } : {}),
        ...(holdUntil !== null || reopening ? { resolution_due_at: holdUntil } : {}),
      })
      .where("id", "=", write.incidentId)
      .execute();
    await this.pages.touch(write.pageId, now, trx);
    // The engine's own updates between (still down, degraded again) tell subscribers nothing: its incident's
    // publication, its held resolution and a re-opening after a resolution they heard of do.
    if (published && reopening && current.resolution_due_at === null) {
      const key = `incident:${write.incidentId}:update:${update.id}`;
      await this.incidents.notice(trx, write.pageId, write.incidentId, "updated", key, now);
    }
  }

  private async addStats(trx: Kysely<Database>, deltas: StatDelta[], now: string): Promise<number> {
    const key = (d: StatDelta) => `${d.site_id}|${d.day}`;
    const sorted = [...deltas].sort((a, b) => key(a).localeCompare(key(b)));
    for (let i = 0; i < sorted.length; i += 50) {
      const chunk = sorted.slice(i, i + 50).map((d) => ({
        id: newId(),
        ...d,
        downtime_minutes: Math.floor(d.downtime_ms / 60_000),
        version: 0,
        created_at: now,
        updated_at: now,
      }));
      await trx
        .insertInto("daily_stats")
        .values(chunk)
        .onConflict((oc) =>
          oc.columns(["site_id", "day"]).doUpdateSet((eb) => ({
            checks_total: eb("daily_stats.checks_total", "+", eb.ref("excluded.checks_total")),
            checks_up: eb("daily_stats.checks_up", "+", eb.ref("excluded.checks_up")),
            slow_count: eb("daily_stats.slow_count", "+", eb.ref("excluded.slow_count")),
            response_count: eb("daily_stats.response_count", "+", eb.ref("excluded.response_count")),
            response_ms_sum: eb("daily_stats.response_ms_sum", "+", eb.ref("excluded.response_ms_sum")),
            downtime_ms: eb("daily_stats.downtime_ms", "+", eb.ref("excluded.downtime_ms")),
            downtime_minutes: sql<number>`(daily_stats.downtime_ms + excluded.downtime_ms) / 60000`,
            version: eb("daily_stats.version", "+", 1),
            updated_at: eb.ref("excluded.updated_at"),
          })),
        )
        .execute();
    }
    return sorted.length;
  }

  /**
   * Stores a site's domain registration, looked up at `checkedAt`, and asks for its conditions to be judged again
   * at `now` with the new expiry. A failed lookup (null) only stamps `checkedAt`.
   */
  async recordDomain(
    siteId: string,
    lookup: { checkedAt: string; info: { domain: string; expiresAt: string | null; registrar: string | null } | null },
    now: string,
  ): Promise<void> {
    const { checkedAt, info } = lookup;
    const changes = info
      ? {
          domain_checked_at: checkedAt,
          domain_info: JSON.stringify({ domain: info.domain, expiresAt: info.expiresAt, registrar: info.registrar }),
          domain_expiration: info.expiresAt,
          conditions_at: null,
          rejudge_at: now,
        }
      : { domain_checked_at: checkedAt };
    await this.db.updateTable("sites").set(changes).where("id", "=", siteId).execute();
  }

  /** A site's raw results since `since`, newest first, at most `limit` (what the dashboard's recent checks show). */
  async recentResults(siteId: string, since: string, limit: number) {
    return this.db
      .selectFrom("check_results")
      .select(["at", "region", "ok", "slow", "status_code", "response_ms", "error", "found"])
      .where("site_id", "=", siteId)
      .where("at", ">=", since)
      .orderBy("at", "desc")
      .orderBy("id", "desc")
      .limit(limit)
      .execute();
  }

  /**
   * Each site's mean response time of successful checks per UTC hour since `since`, for a page of sites in one query;
   * hours without a successful check have no row. `hour` is "YYYY-MM-DDTHH": `at` is ISO text on both stores, so its
   * first 13 characters name the hour on SQLite and PostgreSQL alike.
   */
  async hourlyResponse(siteIds: string[], since: string) {
    if (siteIds.length === 0) return [];
    const hour = sql<string>`substr(at, 1, 13)`;
    const rows = await this.db
      .selectFrom("check_results")
      .select((eb) => ["site_id", hour.as("hour"), eb.fn.avg<number | string>("response_ms").as("mean")])
      .where("site_id", "in", siteIds)
      .where("at", ">=", since)
      .where("ok", "=", 1)
      .where("response_ms", "is not", null)
      .groupBy(["site_id", hour])
      .orderBy("hour")
      .execute();
    // PostgreSQL's avg is numeric, which the driver hands over as text.
    return rows.map((r) => ({ siteId: r.site_id, hour: r.hour, responseMs: Math.round(Number(r.mean)) }));
  }

  /** Deletes raw results older than `before`, a batch per transaction, so writers never wait long; returns how many. */
  async pruneResults(before: string, batch: number): Promise<number> {
    let total = 0;
    for (;;) {
      const result = await this.db
        .deleteFrom("check_results")
        .where(
          "id",
          "in",
          this.db.selectFrom("check_results").select("id").where("at", "<", before).orderBy("at").limit(batch),
        )
        .executeTakeFirst();
      const n = Number(result.numDeletedRows);
      total += n;
      if (n < batch) return total;
    }
  }
}
