import type { FinishedCheck } from "../store/checks.ts";
import { newId, type Transaction } from "../store/connection.ts";
import type { MonitoredSite } from "../store/monitored.ts";
import type { Store } from "../store/store.ts";
import { alertWrites } from "./alert-writes.ts";
import { DOMAIN_CACHE, type DomainInfo } from "./domain.ts";
import { conditionsDue, incidentWrites, judge, MAINTENANCE_REACH_MS } from "./judge.ts";
import { expandWindow, specOf } from "./maintenance.ts";
import type { DueCheck, Outcome } from "./outcome.ts";
import { THRESHOLDS } from "./thresholds.ts";
import type { ResultSummary } from "./verdict.ts";

export { CONDITIONS_EVERY_MS } from "./judge.ts";
export type { DueCheck, Outcome } from "./outcome.ts";

const iso = (ms: number) => new Date(ms).toISOString();

export interface RecordSummary {
  /** Sites whose stored record changed. */
  sites: string[];
  /** Whether something a status page shows beyond check times changed: a state, an incident. */
  pagesChanged: boolean;
  /** Rows inserted or updated. */
  rows: number;
}

const NOTHING: RecordSummary = { sites: [], pagesChanged: false, rows: 0 };

/** Time a lease outlives its longest check: room for the results to be written. */
export const LEASE_MARGIN_MS = 60_000;

/**
 * Claims up to `limit` due checks of a region with a lease (see CheckQueries.claimDue): a lease outlives the
 * longest check of the batch by LEASE_MARGIN_MS, so a check whose process died is claimed again after it.
 */
export async function claimDue(
  store: Store,
  opts: { region: string; owner: string; now: number; limit: number },
): Promise<DueCheck[]> {
  const rows = await store.checks.claimDue({ ...opts, leaseMarginMs: LEASE_MARGIN_MS });
  return rows.map((claimed) => ({ ...claimed, owner: opts.owner }));
}

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

/** An outcome as the store writes it: the region's schedule and recent results, and the raw result. */
function finished(o: Outcome, now: number): FinishedCheck & { outcome: Outcome } {
  const summary: ResultSummary = {
    region: o.check.region,
    at: o.at,
    ok: o.ok,
    responseMs: o.responseMs,
    error: o.error,
  };
  const lost = o.timings.lossPercent;
  if (o.ok && typeof lost === "number" && lost > 0) summary.lossPercent = lost;
  if (!o.ok && o.confirmed) summary.confirmed = true;
  return {
    outcome: o,
    siteId: o.check.siteId,
    region: o.check.region,
    owner: o.check.owner,
    dueAt: iso(o.check.dueAt),
    nextAt: iso(nextDue(o.check, now)),
    // Enough for the largest confirmation threshold a rule may set (AlertRule.confirmations).
    recent: JSON.stringify([summary, ...o.check.recent].slice(0, Math.max(THRESHOLDS.confirmFailures, 20))),
    result: {
      site_id: o.check.siteId,
      region: o.check.region,
      at: iso(o.at),
      ok: o.ok ? 1 : 0,
      slow: o.slow ? 1 : 0,
      status_code: o.statusCode,
      response_ms: o.responseMs,
      error: o.error,
      timings: JSON.stringify(o.timings),
      found: o.found ?? null,
    },
  };
}

/**
 * Stores a batch of outcomes in one transaction: the raw results, each region's schedule and recent results,
 * then the verdict of every site concerned (state, summary, conditions, daily statistics, incidents). Outcomes
 * whose lease is no longer their engine's are skipped (see CheckQueries.finishChecks).
 */
export async function recordOutcomes(store: Store, outcomes: Outcome[], now: number): Promise<RecordSummary> {
  if (outcomes.length === 0) return NOTHING;
  return store.transaction(async (trx) => {
    // Lock first, then write.
    const sites = await store.checks.lockSites(trx, [...new Set(outcomes.map((o) => o.check.siteId))]);
    const written = await store.checks.finishChecks(
      trx,
      outcomes.filter((o) => sites.has(o.check.siteId)).map((o) => finished(o, now)),
    );
    const live = written.map((w) => w.outcome);
    const recorded = new Set(live.map((o) => o.check.siteId));
    for (const id of sites.keys()) if (!recorded.has(id)) sites.delete(id);
    const judged = await judgeSites(store, trx, sites, live, now);
    // Each written outcome is two rows: its schedule's update and its raw result.
    return { sites: [...sites.keys()], pagesChanged: judged.pagesChanged, rows: 2 * live.length + judged.rows };
  });
}

/**
 * Stores a site's domain registration and asks for its conditions to be judged again soon, with the new expiry.
 * A failed lookup (null) only stamps the time, so that it is tried again after DOMAIN_CACHE.failureTtlMs rather
 * than a day.
 */
export async function recordDomain(store: Store, siteId: string, info: DomainInfo | null, now: number) {
  const checkedAt = info ? now : now - DOMAIN_CACHE.ttlMs + DOMAIN_CACHE.failureTtlMs;
  await store.checks.recordDomain(siteId, { checkedAt: iso(checkedAt), info }, iso(now));
}

/** Judges again the sites whose verdict can change with time alone (results going stale, a pause, a domain). */
export async function sweep(store: Store, now: number, limit = 500): Promise<RecordSummary> {
  // Automatic incidents whose page publishes them after a delay: by time alone, whatever else changes.
  const published = await store.checks.publishDue(iso(now));
  const due = await store.checks.dueForJudging(iso(now), limit);
  if (due.length === 0) return published > 0 ? { sites: [], pagesChanged: true, rows: published } : NOTHING;
  return store.transaction(async (trx) => {
    const sites = await store.checks.lockSites(trx, due);
    // Another engine may have judged them meanwhile.
    for (const [id, site] of sites) if (site.rejudgeAt === null || site.rejudgeAt > iso(now)) sites.delete(id);
    const judged = await judgeSites(store, trx, sites, [], now);
    return { sites: [...sites.keys()], ...judged, pagesChanged: judged.pagesChanged || published > 0 };
  });
}

/**
 * Expands further the maintenance windows that are due (refill_at passed), a few per call; a window changed meanwhile
 * keeps its own. A window that fails (a rule that now takes too long, a busy worker) keeps its occurrences and is
 * tried again in a day, so that it never holds up the others. Returns the windows expanded and those that failed.
 */
export async function refillMaintenance(
  store: Store,
  now: number,
  limit = 20,
): Promise<{ expanded: number; failed: { id: string; problem: string }[] }> {
  const due = await store.maintenance.dueForExpansion(iso(now), limit);
  let expanded = 0;
  const failed: { id: string; problem: string }[] = [];
  for (const window of due) {
    const expansion = await expandWindow(specOf(window), now);
    if (expansion.ok) {
      await store.maintenance.refill(window, expansion.occurrences, iso(expansion.refillAt));
      expanded++;
    } else {
      await store.maintenance.postponeRefill(window.id, iso(now + 86_400_000));
      failed.push({ id: window.id, problem: expansion.problem });
    }
  }
  return { expanded, failed };
}

/** Deletes raw results older than the retention, a batch per transaction, so writers never wait long. */
export function pruneResults(store: Store, before: number, batch = 5000): Promise<number> {
  return store.checks.pruneResults(iso(before), batch);
}

/**
 * The verdict of each (locked) site, in the caller's transaction: reads what judging needs, judges (pure), reads
 * what the status pages show of the sites whose automatic incidents move (only those), makes the incidents' rows
 * (pure), writes it all.
 */
async function judgeSites(
  store: Store,
  trx: Transaction,
  sites: Map<string, MonitoredSite>,
  outcomes: Outcome[],
  now: number,
): Promise<{ pagesChanged: boolean; rows: number }> {
  if (sites.size === 0) return { pagesChanged: false, rows: 0 };
  const rows = [...sites.values()];
  const data = await store.checks.judgingData(trx, [...sites.keys()], {
    windowsOf: conditionsDue(rows, outcomes, now),
    windowFrom: iso(now - THRESHOLDS.chronic.windowHours * 3_600_000),
  });
  const ids = [...sites.keys()];
  const [maintenance, rules] = await Promise.all([
    store.maintenance.occurrencesOf(trx, ids, iso(now - MAINTENANCE_REACH_MS), iso(now + MAINTENANCE_REACH_MS)),
    store.alerts.settings(trx, ids),
  ]);
  const judgement = judge({
    now,
    sites: rows,
    recent: data.recent,
    outcomes,
    windows: data.windows,
    maintenance,
    rules,
  });
  const showing = await store.checks.showing(
    trx,
    judgement.moves.map((m) => m.siteId),
    iso(now),
  );
  const incidents = incidentWrites(judgement.moves, showing, now);
  if (incidents.length > 0) judgement.pagesChanged = true;
  // The alerts, by each site's rule, in the same transaction as the state they tell of.
  const routes = await store.alerts.routes(
    trx,
    judgement.alerts.map((a) => a.siteId),
  );
  const alerts = alertWrites(judgement.alerts, routes, iso(now), newId);
  const written = await store.checks.writeJudged(trx, { ...judgement, incidents, alerts }, iso(now));
  return { pagesChanged: judgement.pagesChanged, rows: written };
}
