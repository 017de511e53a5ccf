import { type Kysely, sql } from "kysely";
import type { SiteState } from "../contract/site.ts";
import { groupBy } from "../group-by.ts";
import type { Database } from "../store/schema.ts";
import { newId, type SiteRow, type Store } from "../store/store.ts";
import { type Condition, judgeConditions } from "./conditions.ts";
import { DOMAIN_CACHE, type DomainInfo } from "./domain.ts";
import { THRESHOLDS } from "./thresholds.ts";
import { type Health, incidentMove, judgeHealth, type ResultSummary } from "./verdict.ts";

const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();
const dayOf = (ms: number) => iso(ms).slice(0, 10);

/** A check the engine has claimed: the site's settings and its region's recent results. */
export interface DueCheck {
  siteId: string;
  region: string;
  dueAt: number;
  url: string;
  method: string;
  headers: { name: string; value: string }[];
  timeoutMs: number;
  intervalMs: number;
  successCodes: number[];
  errorCodes: number[];
  slowMs: number;
  /** The region's latest results, newest first (at most confirmFailures). */
  recent: ResultSummary[];
  /** When the domain was last looked up (ISO), null if never. */
  domainCheckedAt: string | null;
  /** The engine holding the lease. */
  owner: string;
}

/** What one check found, ready to store. */
export interface Outcome {
  check: DueCheck;
  at: number;
  ok: boolean;
  slow: boolean;
  statusCode: number | null;
  /** Total time of a check that got an answer, in whole ms; null when none came. */
  responseMs: number | null;
  error: string | null;
  timings: Record<string, number | null>;
  certificate: { expiresAt: string; issuer: string; authorized: boolean; error: string | null } | null;
  /** WordPress seen in the answer; null when there was no answer to look at. */
  wordpress: boolean | null;
}

export interface RecordSummary {
  /** Sites whose stored record changed. */
  sites: string[];
  /** Whether something a status page shows beyond check times changed: a state, an incident. */
  pagesChanged: boolean;
  /** Rows inserted or updated. */
  rows: number;
}

/** Conditions are judged again at least this often (and at once when a certificate or domain changes). */
export const CONDITIONS_EVERY_MS = 5 * 60_000;

/**
 * Claims up to `limit` due checks of a region with a lease, in one transaction. PostgreSQL skips rows another
 * engine holds locked (FOR UPDATE SKIP LOCKED); SQLite has one writer at a time anyway. A lease outlives the
 * longest check of the batch by a margin, so a check whose process died is claimed again after it.
 */
export async function claimDue(
  store: Store,
  opts: { region: string; owner: string; now: number; limit: number },
): Promise<DueCheck[]> {
  const now = iso(opts.now);
  return store.transaction(async (trx) => {
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
      ])
      .where("c.region", "=", opts.region)
      .where("c.next_check_at", "<=", now)
      .where((eb) => eb.or([eb("c.lease_until", "is", null), eb("c.lease_until", "<", now)]))
      .where("s.pause", "=", 0)
      .where("s.enabled", "=", 1)
      .orderBy("c.next_check_at")
      .limit(opts.limit)
      .$if(store.dialect === "postgres", (qb) => qb.forUpdate("c").skipLocked())
      .execute();
    if (rows.length === 0) return [];
    const longest = Math.max(...rows.map((r) => r.timeout)) * 1000;
    await trx
      .updateTable("site_checks")
      .set({ lease_owner: opts.owner, lease_until: iso(opts.now + longest + LEASE_MARGIN_MS) })
      .where("region", "=", opts.region)
      .where(
        "site_id",
        "in",
        rows.map((r) => r.site_id),
      )
      .execute();
    return rows.map((r) => ({
      siteId: r.site_id,
      region: r.region,
      dueAt: Date.parse(r.next_check_at),
      url: r.url,
      method: r.method,
      headers: JSON.parse(r.headers),
      timeoutMs: r.timeout * 1000,
      intervalMs: r.check_interval * 1000,
      successCodes: JSON.parse(r.success_codes),
      errorCodes: JSON.parse(r.error_codes),
      slowMs: r.slow_threshold_ms,
      recent: JSON.parse(r.recent),
      domainCheckedAt: r.domain_checked_at,
      owner: opts.owner,
    }));
  });
}

/** Time a lease outlives its longest check: room for the results to be written. */
export const LEASE_MARGIN_MS = 60_000;

/**
 * When a region checks a site next: one interval after it was due, or, when the engine fell behind by more than
 * that (it was down or overloaded), the first moment after now in the site's phase, so that catching up keeps the
 * spread of start times instead of checking every late site at once, and a late site is not checked twice.
 */
export function nextDue(check: DueCheck, now: number): number {
  const next = check.dueAt + check.intervalMs;
  if (next > now) return next;
  return check.dueAt + Math.ceil((now - check.dueAt + 1) / check.intervalMs) * check.intervalMs;
}

/**
 * Stores a batch of outcomes in one transaction: the raw results, each region's schedule and recent results,
 * then the verdict of every site concerned (state, summary, conditions, daily statistics, incidents).
 */
export async function recordOutcomes(store: Store, outcomes: Outcome[], now: number): Promise<RecordSummary> {
  if (outcomes.length === 0) return { sites: [], pagesChanged: false, rows: 0 };
  return store.transaction(async (trx) => {
    // Lock first (PostgreSQL; in id order so that two engines never deadlock), then write.
    const sites = await lockSites(store, trx, [...new Set(outcomes.map((o) => o.check.siteId))]);
    // Only while the lease is still this engine's: a batch written twice (a retry after a commit whose answer was
    // lost) or after the lease passed to another engine is skipped, so nothing is counted twice or overwritten.
    const live: Outcome[] = [];
    let rows = 0;
    for (const o of outcomes) {
      if (!sites.has(o.check.siteId)) continue;
      const summary: ResultSummary = {
        region: o.check.region,
        at: o.at,
        ok: o.ok,
        responseMs: o.responseMs,
        error: o.error,
      };
      const recent = [summary, ...o.check.recent].slice(0, THRESHOLDS.confirmFailures);
      const due = iso(o.check.dueAt);
      const updated = await trx
        .updateTable("site_checks")
        .set({
          recent: JSON.stringify(recent),
          // A site edited while its check ran was rescheduled to "soon": keep that.
          next_check_at: sql<string>`case when next_check_at = ${due} then ${iso(nextDue(o.check, now))} else next_check_at end`,
          lease_owner: null,
          lease_until: null,
        })
        .where("site_id", "=", o.check.siteId)
        .where("region", "=", o.check.region)
        .where("lease_owner", "=", o.check.owner)
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) === 0) continue;
      live.push(o);
      rows++;
    }
    for (let i = 0; i < live.length; i += 100) {
      const chunk = live.slice(i, i + 100);
      await trx
        .insertInto("check_results")
        .values(
          chunk.map((o) => ({
            site_id: o.check.siteId,
            region: o.check.region,
            at: iso(o.at),
            ok: o.ok ? 1 : 0,
            slow: o.slow ? 1 : 0,
            status_code: o.statusCode,
            response_ms: o.responseMs,
            error: o.error,
            timings: JSON.stringify(o.timings),
          })),
        )
        .execute();
      rows += chunk.length;
    }
    const recorded = new Set(live.map((o) => o.check.siteId));
    for (const id of sites.keys()) if (!recorded.has(id)) sites.delete(id);
    const judged = await judgeSites(store, trx, sites, live, now);
    return { sites: [...sites.keys()], pagesChanged: judged.pagesChanged, rows: rows + judged.rows };
  });
}

/**
 * Stores a site's domain registration and asks for its conditions to be judged again soon, with the new expiry.
 * A failed lookup (null) only stamps the time, so that it is tried again after DOMAIN_CACHE.failureTtlMs rather
 * than a day.
 */
export async function recordDomain(store: Store, siteId: string, info: DomainInfo | null, now: number) {
  const changes = info
    ? {
        domain_checked_at: iso(now),
        domain_info: JSON.stringify({ domain: info.domain, expiresAt: info.expiresAt, registrar: info.registrar }),
        domain_expiration: info.expiresAt,
        conditions_at: null,
        rejudge_at: iso(now),
      }
    : { domain_checked_at: iso(now - DOMAIN_CACHE.ttlMs + DOMAIN_CACHE.failureTtlMs) };
  await store.db.updateTable("sites").set(changes).where("id", "=", siteId).execute();
}

/** Judges again the sites whose verdict can change with time alone (results going stale, a pause, a domain). */
export async function sweep(store: Store, now: number, limit = 500): Promise<RecordSummary> {
  const due = await store.db
    .selectFrom("sites")
    .select("id")
    .where("rejudge_at", "<=", iso(now))
    .orderBy("rejudge_at")
    .limit(limit)
    .execute();
  if (due.length === 0) return { sites: [], pagesChanged: false, rows: 0 };
  return store.transaction(async (trx) => {
    const sites = await lockSites(
      store,
      trx,
      due.map((d) => d.id),
    );
    // Another engine may have judged them meanwhile.
    for (const [id, site] of sites) if (site.rejudge_at === null || site.rejudge_at > iso(now)) sites.delete(id);
    const judged = await judgeSites(store, trx, sites, [], now);
    return { sites: [...sites.keys()], ...judged };
  });
}

/** Deletes raw results older than the retention, a batch per transaction, so writers never wait long. */
export async function pruneResults(store: Store, before: number, batch = 5000): Promise<number> {
  let total = 0;
  for (;;) {
    const result = await store.db
      .deleteFrom("check_results")
      .where(
        "id",
        "in",
        store.db.selectFrom("check_results").select("id").where("at", "<", iso(before)).orderBy("at").limit(batch),
      )
      .executeTakeFirst();
    const n = Number(result.numDeletedRows);
    total += n;
    if (n < batch) return total;
  }
}

async function lockSites(store: Store, trx: Kysely<Database>, ids: string[]): Promise<Map<string, SiteRow>> {
  const sorted = [...ids].sort();
  const rows = await trx
    .selectFrom("sites")
    .selectAll()
    .where("id", "in", sorted)
    .orderBy("id")
    .$if(store.dialect === "postgres", (qb) => qb.forUpdate())
    .execute();
  return new Map(rows.map((r) => [r.id, r]));
}

type StatDelta = {
  checks_total: number;
  checks_up: number;
  slow_count: number;
  response_count: number;
  response_ms_sum: number;
  downtime_ms: number;
};

function addStat(stats: Map<string, StatDelta>, siteId: string, day: string, delta: Partial<StatDelta>) {
  const key = `${siteId}|${day}`;
  const s = stats.get(key) ?? {
    checks_total: 0,
    checks_up: 0,
    slow_count: 0,
    response_count: 0,
    response_ms_sum: 0,
    downtime_ms: 0,
  };
  for (const [name, value] of Object.entries(delta)) s[name as keyof StatDelta] += value;
  stats.set(key, s);
}

/** The verdict of each site from its regions' recent results, with everything that follows from it. */
async function judgeSites(
  store: Store,
  trx: Kysely<Database>,
  sites: Map<string, SiteRow>,
  outcomes: Outcome[],
  now: number,
): Promise<{ pagesChanged: boolean; rows: number }> {
  if (sites.size === 0) return { pagesChanged: false, rows: 0 };
  const ids = [...sites.keys()];
  const schedules = await trx
    .selectFrom("site_checks")
    .select(["site_id", "recent"])
    .where("site_id", "in", ids)
    .execute();
  const results = groupBy(
    schedules.flatMap((s) => (JSON.parse(s.recent) as ResultSummary[]).map((r) => ({ siteId: s.site_id, ...r }))),
    (r) => r.siteId,
  );
  const bySite = groupBy(outcomes, (o) => o.check.siteId);

  const stats = new Map<string, StatDelta>();
  const moves: { site: SiteRow; move: NonNullable<ReturnType<typeof incidentMove>>; health: Health }[] = [];
  const updates = new Map<string, Partial<SiteRow>>();
  const needConditions: string[] = [];
  for (const [id, site] of sites) {
    const mine = (bySite.get(id) ?? []).sort((a, b) => a.at - b.at);
    const intervalMs = site.check_interval * 1000;
    const timeoutMs = site.timeout * 1000;
    const regions: string[] = JSON.parse(site.regions);
    const freshFor = THRESHOLDS.freshIntervals * intervalMs + timeoutMs;
    let health: Health;
    let rejudgeAt: number | null = null;
    if (site.pause === 1 || site.enabled === 0) {
      health = {
        state: "unknown",
        summary: site.pause === 1 ? "Paused: not checked." : "Disabled: not checked.",
        downIn: [],
      };
    } else {
      const recent = results.get(id) ?? [];
      health = judgeHealth({ now, intervalMs, timeoutMs, slowMs: site.slow_threshold_ms, regions, results: recent });
      // The verdict can change by time alone when a region's latest result goes stale.
      for (const region of regions) {
        const latest = Math.max(...recent.filter((r) => r.region === region).map((r) => r.at), -Infinity);
        if (latest + freshFor > now) rejudgeAt = Math.min(rejudgeAt ?? Infinity, latest + freshFor);
      }
    }
    // Downtime: the time the site has been unhealthy since it was last judged, by UTC day.
    if (site.state === "unhealthy" && site.judged_at) {
      let from = Math.max(Date.parse(site.judged_at), now - freshFor);
      while (from < now) {
        const end = Math.min((Math.floor(from / DAY) + 1) * DAY, now);
        addStat(stats, id, dayOf(from), { downtime_ms: end - from });
        from = end;
      }
    }
    for (const o of mine) {
      addStat(stats, id, dayOf(o.at), {
        checks_total: 1,
        checks_up: o.ok ? 1 : 0,
        slow_count: o.slow ? 1 : 0,
        response_count: o.ok && o.responseMs !== null ? 1 : 0,
        response_ms_sum: o.ok && o.responseMs !== null ? o.responseMs : 0,
      });
    }
    const change: Partial<SiteRow> = {
      state: health.state,
      health_summary: health.summary,
      judged_at: iso(now),
      rejudge_at: rejudgeAt === null ? null : iso(rejudgeAt),
    };
    const latest = mine.at(-1);
    if (latest) {
      // Another region's older result may be written after a newer one: the check time never goes back.
      if (!site.last_check_time || iso(latest.at) > site.last_check_time) {
        change.last_check_time = iso(latest.at);
        if (latest.responseMs !== null) change.last_response_ms = latest.responseMs;
      }
      const cert = mine.findLast((o) => o.certificate)?.certificate;
      if (cert) {
        const before = site.ssl_info ? (JSON.parse(site.ssl_info) as { expiresAt: string }) : null;
        change.ssl_info = JSON.stringify({
          expiresAt: cert.expiresAt,
          issuer: cert.issuer,
          daysRemaining: Math.floor((Date.parse(cert.expiresAt) - now) / DAY),
        });
        change.has_certificate_error = cert.authorized ? 0 : 1;
        if (before?.expiresAt !== cert.expiresAt) change.conditions_at = null;
      }
      const wp = mine.findLast((o) => o.wordpress !== null)?.wordpress;
      const stored = site.wordpress
        ? (JSON.parse(site.wordpress) as { value: boolean; manualOverride: boolean })
        : null;
      if (wp !== undefined && wp !== null && !stored?.manualOverride && stored?.value !== wp) {
        change.wordpress = JSON.stringify({ value: wp, manualOverride: false });
      }
    }
    const conditionsAt = "conditions_at" in change ? change.conditions_at : site.conditions_at;
    if (!conditionsAt || now - Date.parse(conditionsAt) >= CONDITIONS_EVERY_MS) needConditions.push(id);
    updates.set(id, change);
    const move = incidentMove(site.state as SiteState, health.state);
    if (move) moves.push({ site, move, health });
  }

  if (needConditions.length > 0) {
    const windows = await trx
      .selectFrom("check_results")
      .select((eb) => [
        "site_id",
        eb.fn.countAll().as("checks"),
        eb.fn.sum(sql<number>`case when ok = 0 or slow = 1 then 1 else 0 end`).as("bad"),
      ])
      .where("site_id", "in", needConditions)
      .where("at", ">=", iso(now - THRESHOLDS.chronic.windowHours * 3_600_000))
      .groupBy("site_id")
      .execute();
    const windowOf = new Map(windows.map((w) => [w.site_id, w]));
    for (const id of needConditions) {
      const site = sites.get(id) as SiteRow;
      const change = updates.get(id) as Partial<SiteRow>;
      const ssl = JSON.parse(change.ssl_info ?? site.ssl_info ?? "null") as {
        expiresAt: string;
        issuer: string;
      } | null;
      const domain = JSON.parse(site.domain_info ?? "null") as { domain: string; expiresAt: string | null } | null;
      const w = windowOf.get(id);
      const conditions: Condition[] = judgeConditions({
        now,
        certificate: ssl ? { expiresAt: Date.parse(ssl.expiresAt), issuer: ssl.issuer } : null,
        domain: domain?.expiresAt ? { name: domain.domain, expiresAt: Date.parse(domain.expiresAt) } : null,
        window: { checks: Number(w?.checks ?? 0), slowOrFailed: Number(w?.bad ?? 0) },
        previous: JSON.parse(site.conditions),
      });
      change.conditions = JSON.stringify(conditions);
      change.conditions_at = iso(now);
    }
  }

  let rows = 0;
  for (const [id, change] of updates) {
    await trx.updateTable("sites").set(change).where("id", "=", id).execute();
    rows++;
  }
  const statRows = [...stats].sort(([a], [b]) => a.localeCompare(b));
  for (let i = 0; i < statRows.length; i += 50) {
    const chunk = statRows.slice(i, i + 50).map(([key, d]) => {
      const [siteId, day] = key.split("|") as [string, string];
      return {
        id: newId(),
        site_id: siteId,
        day,
        ...d,
        downtime_minutes: Math.floor(d.downtime_ms / 60_000),
        version: 0,
        created_at: iso(now),
        updated_at: iso(now),
      };
    });
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
    rows += chunk.length;
  }
  rows += await moveIncidents(store, trx, moves, now);
  // Every incident move is a change of state, so this covers incidents too.
  const pagesChanged = [...updates].some(([id, c]) => c.state !== sites.get(id)?.state);
  return { pagesChanged, rows };
}

/**
 * An automatic incident per status page showing the site: opened when the site turns unhealthy, updated when it
 * changes state while open, resolved when it recovers.
 */
async function moveIncidents(
  store: Store,
  trx: Kysely<Database>,
  moves: { site: SiteRow; move: "open" | "resolve" | "update"; health: Health }[],
  now: number,
): Promise<number> {
  if (moves.length === 0) return 0;
  const at = iso(now);
  const ids = moves.map((m) => m.site.id);
  const items = await trx
    .selectFrom("status_page_items")
    .select(["page_id", "site_id", "label"])
    .where("site_id", "in", ids)
    .where("visible", "=", 1)
    .execute();
  const open = await store.openAutomaticIncidents(trx, ids);
  let rows = 0;
  for (const { site, move, health } of moves) {
    const mine = open.filter((i) => i.site_id === site.id);
    if (move === "open") {
      const message = `Porchlight confirmed an outage. ${health.summary}`;
      for (const item of items.filter((i) => i.site_id === site.id)) {
        const existing = mine.find((i) => i.page_id === item.page_id);
        if (existing) {
          await store.appendIncidentUpdate(trx, item.page_id, existing.id, existing.status, message, at);
        } else {
          const incident = {
            page_id: item.page_id,
            title: `${item.label} is down`,
            status: "investigating",
            started_at: at,
            resolved_at: null,
            created_at: at,
            updated_at: at,
            site_id: site.id,
            source: "automatic",
          };
          await store.insertIncident(trx, incident, message);
        }
        rows += 2;
      }
    } else {
      for (const incident of mine) {
        const [status, message] =
          move === "resolve"
            ? ["resolved", `Recovered. ${health.summary}`]
            : [incident.status, `Checks are not reporting. ${health.summary}`];
        await store.appendIncidentUpdate(trx, incident.page_id, incident.id, status, message, at);
        rows += 2;
      }
    }
  }
  return rows;
}
