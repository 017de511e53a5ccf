import type { AlertIntent } from "../alerts/events.ts";
import type { SiteState } from "../contract/site.ts";
import { groupBy } from "../group-by.ts";
import type { AutomaticIncident, IncidentWrite, JudgedWrites, Showing, StatDelta } from "../store/checks.ts";
import type { SiteRow } from "../store/schema.ts";
import { judgeConditions } from "./conditions.ts";
import { heldAt, type Interval, nextBoundary, outside } from "./maintenance.ts";
import type { Outcome } from "./outcome.ts";
import { THRESHOLDS } from "./thresholds.ts";
import { freshForMs, type Health, judgeHealth, type ResultSummary } from "./verdict.ts";

/** Conditions are judged again at least this often (and at once when a certificate or domain changes). */
export const CONDITIONS_EVERY_MS = 5 * 60_000;

const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();
const dayOf = (ms: number) => iso(ms).slice(0, 10);

/** Everything judging a set of sites needs, read beforehand (in the transaction that writes the judgement). */
export interface JudgeInput {
  now: number;
  /** The sites to judge, as stored (locked by the caller); the judgement keeps their order. */
  sites: SiteRow[];
  /** Each site's recent results in every region it is checked from (the regions' schedules), by site id. */
  recent: Map<string, ResultSummary[]>;
  /** What this batch's checks found, written meanwhile (none when sites are judged again by time alone). */
  outcomes: Outcome[];
  /** The chronic window of each site whose conditions are due (see conditionsDue); a missing one counts as empty. */
  windows: Map<string, { checks: number; slowOrFailed: number }>;
  /** The maintenance occurrences of each site that has some near now (see MAINTENANCE_REACH_MS). */
  maintenance: Map<string, Interval[]>;
  /** Minutes between repeats of a still-down alert, for the sites whose rule repeats. */
  repeats: Map<string, number>;
}

/** How far around now judging reads maintenance occurrences: their effect on downtime and the next boundary. */
export const MAINTENANCE_REACH_MS = DAY;

/**
 * A site whose automatic incidents move (see outageMove), with what their updates tell visitors: the latest
 * failure and how many of the site's regions it is down in (see visitorMessage).
 */
export interface IncidentIntent {
  siteId: string;
  move: NonNullable<IncidentMove>;
  summary: string;
  /** The latest failed check's error (open), or null. */
  reason?: string | null;
  /** The state the site moved to. */
  state?: SiteState;
  /** Regions down and regions judged, when the site is checked from more than one. */
  regions?: { down: number; of: number };
}

/**
 * What judging decided: the sites' and statistics' rows to write, the incident moves (incidentWrites makes their
 * rows, once what the pages show of those sites is read), and whether a status page shows something new.
 */
export interface Judgement extends Omit<JudgedWrites, "incidents" | "alerts"> {
  moves: IncidentIntent[];
  /** The moves that alert the sites' owners (alerts/events.ts makes their outbox rows, by each site's rule). */
  alerts: AlertIntent[];
  /** Whether something a status page shows beyond check times changed: a state, an incident. */
  pagesChanged: boolean;
}

/** A site's outcomes, oldest first. */
function oldestFirst(outcomes: Outcome[] | undefined): Outcome[] {
  return [...(outcomes ?? [])].sort((a, b) => a.at - b.at);
}

/** The latest certificate among a site's outcomes (oldest first), if any, and whether its expiry is new. */
function latestCertificate(site: SiteRow, mine: Outcome[]) {
  const cert = mine.findLast((o) => o.certificate)?.certificate;
  if (!cert) return null;
  const before = site.ssl_info ? (JSON.parse(site.ssl_info) as { expiresAt: string }) : null;
  return { cert, changed: before?.expiresAt !== cert.expiresAt };
}

/** Whether a site's conditions are judged this time: never judged, judged too long ago, or a new certificate. */
function conditionsDueFor(site: SiteRow, mine: Outcome[], now: number): boolean {
  const conditionsAt = latestCertificate(site, mine)?.changed ? null : site.conditions_at;
  return !conditionsAt || now - Date.parse(conditionsAt) >= CONDITIONS_EVERY_MS;
}

/** The sites whose conditions judge() will judge, so that their chronic windows can be read beforehand. */
export function conditionsDue(sites: SiteRow[], outcomes: Outcome[], now: number): string[] {
  const bySite = groupBy(outcomes, (o) => o.check.siteId);
  return sites.filter((site) => conditionsDueFor(site, oldestFirst(bySite.get(site.id)), now)).map((s) => s.id);
}

/** The site's health, and when it can change by time alone (a region's latest result going stale), if ever. */
function healthOf(site: SiteRow, recent: ResultSummary[], now: number): { health: Health; rejudgeAt: number | null } {
  if (site.pause === 1 || site.enabled === 0) {
    const summary = site.pause === 1 ? "Paused: not checked." : "Disabled: not checked.";
    return { health: { state: "unknown", summary, downIn: [] }, rejudgeAt: null };
  }
  const intervalMs = site.check_interval * 1000;
  const timeoutMs = site.timeout * 1000;
  const regions: string[] = JSON.parse(site.regions);
  const health = judgeHealth({ now, intervalMs, timeoutMs, slowMs: site.slow_threshold_ms, regions, results: recent });
  const freshFor = freshForMs(intervalMs, timeoutMs);
  let rejudgeAt: number | null = null;
  for (const region of regions) {
    const latest = Math.max(...recent.filter((r) => r.region === region).map((r) => r.at), -Infinity);
    if (latest + freshFor > now) rejudgeAt = Math.min(rejudgeAt ?? Infinity, latest + freshFor);
  }
  return { health, rejudgeAt };
}

/** Adds a site's day's figures to the deltas, by site and UTC day. */
function addStat(stats: Map<string, StatDelta>, siteId: string, day: string, delta: Partial<StatDelta>) {
  const key = `${siteId}|${day}`;
  const s = stats.get(key) ?? {
    site_id: siteId,
    day,
    checks_total: 0,
    checks_up: 0,
    slow_count: 0,
    response_count: 0,
    response_ms_sum: 0,
    downtime_ms: 0,
  };
  for (const [name, value] of Object.entries(delta) as [keyof StatDelta, number][]) {
    (s[name] as number) += value;
  }
  stats.set(key, s);
}

/**
 * Downtime: the time the site has been unhealthy since it was last judged (within freshness), by UTC day, leaving
 * out maintenance.
 */
function addDowntime(stats: Map<string, StatDelta>, site: SiteRow, now: number, held: Interval[]) {
  if (site.state !== "unhealthy" || !site.judged_at) return;
  const since = Math.max(Date.parse(site.judged_at), now - freshForMs(site.check_interval * 1000, site.timeout * 1000));
  for (const span of outside(held, since, now)) {
    let from = span.start;
    while (from < span.end) {
      const end = Math.min((Math.floor(from / DAY) + 1) * DAY, span.end);
      addStat(stats, site.id, dayOf(from), { downtime_ms: end - from });
      from = end;
    }
  }
}

/** What the site's latest outcomes change beyond its state: check time, certificate, WordPress. */
function checkedChanges(site: SiteRow, mine: Outcome[], now: number): Partial<SiteRow> {
  const latest = mine.at(-1);
  if (!latest) return {};
  const change: Partial<SiteRow> = {};
  // Another region's older result may be written after a newer one: the check time never goes back.
  if (!site.last_check_time || iso(latest.at) > site.last_check_time) {
    change.last_check_time = iso(latest.at);
    if (latest.responseMs !== null) change.last_response_ms = latest.responseMs;
  }
  const seen = latestCertificate(site, mine);
  if (seen) {
    const { cert } = seen;
    change.ssl_info = JSON.stringify({
      expiresAt: cert.expiresAt,
      issuer: cert.issuer,
      daysRemaining: Math.floor((Date.parse(cert.expiresAt) - now) / DAY),
    });
    change.has_certificate_error = cert.authorized ? 0 : 1;
    if (seen.changed) change.conditions_at = null;
  }
  const wp = mine.findLast((o) => o.wordpress !== null)?.wordpress;
  const stored = site.wordpress ? (JSON.parse(site.wordpress) as { value: boolean; manualOverride: boolean }) : null;
  if (wp !== undefined && wp !== null && !stored?.manualOverride && stored?.value !== wp) {
    change.wordpress = JSON.stringify({ value: wp, manualOverride: false });
  }
  return change;
}

/** The site's standing conditions from its certificate (as changed now), domain and chronic window. */
function conditionsOf(site: SiteRow, change: Partial<SiteRow>, input: JudgeInput): string {
  const ssl = JSON.parse(change.ssl_info ?? site.ssl_info ?? "null") as { expiresAt: string; issuer: string } | null;
  const domain = JSON.parse(site.domain_info ?? "null") as { domain: string; expiresAt: string | null } | null;
  const conditions = judgeConditions({
    now: input.now,
    certificate: ssl ? { expiresAt: Date.parse(ssl.expiresAt), issuer: ssl.issuer } : null,
    domain: domain?.expiresAt ? { name: domain.domain, expiresAt: Date.parse(domain.expiresAt) } : null,
    window: input.windows.get(site.id) ?? { checks: 0, slowOrFailed: 0 },
    previous: JSON.parse(site.conditions),
  });
  return JSON.stringify(conditions);
}

/**
 * The rows of the judgement's incident moves (pure, like judge): the automatic incident of each status page showing
 * a site is opened when it turns unhealthy (or updated when one is still open), updated when it changes state while
 * open, resolved when it recovers. `showing` is what the pages show of the moving sites.
 */
export function incidentWrites(moves: IncidentIntent[], showing: Showing, now: number): IncidentWrite[] {
  return moves.flatMap((intent) => siteIncidentWrites(intent, showing, iso(now)));
}

/**
 * A failure in a visitor's words: what happened, not the checker's codes or the server's addresses (an HTTP status
 * stays, in brackets: people search for it).
 */
function plainReason(reason: string): string {
  const status = /^HTTP (\d{3})/.exec(reason)?.[1];
  if (status) return `it answered with an error (HTTP ${status})`;
  if (/timed out/.test(reason)) return "it did not answer in time";
  if (/^DNS/.test(reason)) return "its address could not be found";
  if (/TLS|certificate/.test(reason)) return "its secure connection failed";
  if (/reset|closed/.test(reason)) return "it broke off the connection";
  if (/connection|unreachable/.test(reason)) return "it could not be reached";
  if (/invalid HTTP/.test(reason)) return "it answered with something that is not a web page";
  return "its checks failed";
}

/**
 * What an automatic incident's update says to the visitors of a page, about the item as that page labels it: in
 * plain words, naming no product and no region (a site checked from several regions says in how many of them it
 * is down).
 */
export function visitorMessage(label: string, { move, reason = null, regions, state }: IncidentIntent): string {
  if (move === "resolve" && state === "degraded") return `${label} is working again, though not fully yet.`;
  if (move === "resolve") return `${label} is working again.`;
  if (move === "update") return `${label} is not being checked at the moment, so its state is unknown.`;
  const where = regions ? ` in ${regions.down} of ${regions.of} regions` : "";
  return `${label} is down${where}${reason ? `: ${plainReason(reason)}` : ""}.`;
}

function siteIncidentWrites(intent: IncidentIntent, showing: Showing, at: string) {
  const { siteId, move } = intent;
  const open = showing.openIncidents.filter((i) => i.site_id === siteId);
  const items = showing.items.filter((i) => i.site_id === siteId);
  /** The page's label for the site; once its item is hidden or gone, the one the incident was opened with. */
  const labelOf = (incident: AutomaticIncident) =>
    items.find((item) => item.page_id === incident.page_id)?.label ??
    incident.title?.replace(/ is down$/, "") ??
    "The service";
  const writes: IncidentWrite[] = [];
  if (move === "open") {
    for (const item of items) {
      const message = visitorMessage(item.label, intent);
      const existing = open.find((i) => i.page_id === item.page_id);
      if (existing) {
        writes.push({
          kind: "append",
          pageId: item.page_id,
          incidentId: existing.id,
          status: existing.status,
          message,
          at,
        });
      } else {
        const incident = {
          page_id: item.page_id,
          title: `${item.label} is down`,
          status: "investigating",
          started_at: at,
          resolved_at: null,
          created_at: at,
          updated_at: at,
          site_id: siteId,
          source: "automatic",
        };
        writes.push({ kind: "open", incident, message });
      }
    }
  } else {
    for (const incident of open) {
      const status = move === "resolve" ? "resolved" : incident.status;
      const message = visitorMessage(labelOf(incident), intent);
      writes.push({ kind: "append", pageId: incident.page_id, incidentId: incident.id, status, message, at });
    }
  }
  return writes;
}

type Reminded = Partial<Record<"certificate" | "domain", { expiresAt: string; daysLeft: number }>>;

/**
 * The reminders of a certificate's and a domain's expiry (pure): an expiring event when the days left cross one of the
 * reminder days or the condition's levels (THRESHOLDS: one source with the conditions), once per crossing; a renewed
 * event, once, when the expiry moved later by more than a day after it had come within the reminders' reach. What it
 * judged is kept (`reminded`) for the next time.
 */
function expiryMoves(
  site: SiteRow,
  change: Partial<SiteRow>,
  now: number,
): { alerts: AlertIntent[]; reminded: string | null } {
  const before = JSON.parse(site.reminded ?? "{}") as Reminded;
  const after: Reminded = { ...before };
  const alerts: AlertIntent[] = [];
  const ssl = JSON.parse(change.ssl_info ?? site.ssl_info ?? "null") as { expiresAt: string; issuer: string } | null;
  const domain = JSON.parse(site.domain_info ?? "null") as { domain: string; expiresAt: string | null } | null;
  const reach = Math.max(...THRESHOLDS.reminderDays);
  const kinds = [
    ["certificate", ssl?.expiresAt ?? null, ssl?.issuer ?? null, THRESHOLDS.ssl],
    ["domain", domain?.expiresAt ?? null, domain?.domain ?? null, THRESHOLDS.domain],
  ] as const;
  for (const [kind, expiresAt, reason, levels] of kinds) {
    if (!expiresAt) continue;
    const at = Date.parse(expiresAt);
    const daysLeft = Math.floor((at - now) / DAY);
    const last = before[kind];
    const expiry = { expiresAt: new Date(at).toISOString(), daysLeft };
    after[kind] = expiry;
    if (last && at - Date.parse(last.expiresAt) > DAY) {
      if (last.daysLeft <= reach)
        alerts.push({ siteId: site.id, type: `${kind}.renewed`, reason, downSince: null, expiry });
      continue;
    }
    // Days left last time for this same expiry; a first sight counts from beyond every mark.
    const lastLeft = last && last.expiresAt === expiry.expiresAt ? last.daysLeft : Number.POSITIVE_INFINITY;
    const marks = [...THRESHOLDS.reminderDays, levels.warningDays, levels.criticalDays];
    if (marks.some((mark) => daysLeft <= mark && lastLeft > mark)) {
      alerts.push({ siteId: site.id, type: `${kind}.expiring`, reason, downSince: null, expiry });
    }
  }
  return { alerts, reminded: Object.keys(after).length > 0 ? JSON.stringify(after) : site.reminded };
}

/**
 * The move of a site that alerts its owner, if any: down as it turns unhealthy (a first verdict included: the quorum of
 * its regions decided it, as for the state); still down, when the rule repeats, each repeat interval after the last
 * down alert while it stays unhealthy; recovered as a site whose outage was alerted is healthy or degraded again and
 * its return is confirmed (Health.back: also across a spell of unknown, the outage counted from when it began);
 * degraded as a healthy (or not yet judged) site turns degraded outside an outage. A pause or a verdict of unknown
 * alerts nothing.
 */
function alertMove(site: SiteRow, health: Health, now: number, repeatMinutes: number | undefined): AlertIntent | null {
  const from = site.state;
  const to = health.state;
  // down_since marks an outage that was alerted: it lasts through unknown (a pause, stale results, a restart), so an
  // outage seen again after one is not a second one, and a recovery after one is still told.
  const alerted = site.down_since !== null;
  if (to === "unhealthy" && !alerted) {
    return { siteId: site.id, type: "site.down", reason: health.reason ?? health.summary, downSince: iso(now) };
  }
  const lastTold = Date.parse(site.alerted_at ?? site.down_since ?? "");
  if (to === "unhealthy" && repeatMinutes && now - lastTold >= repeatMinutes * 60_000) {
    const reason = health.reason ?? health.summary;
    return { siteId: site.id, type: "site.still_down", reason, downSince: site.down_since };
  }
  if (alerted && (to === "healthy" || to === "degraded") && health.back) {
    return { siteId: site.id, type: "site.recovered", reason: null, downSince: site.down_since };
  }
  if (!alerted && (from === "healthy" || from === "unknown") && to === "degraded") {
    return { siteId: site.id, type: "site.degraded", reason: health.summary, downSince: null };
  }
  return null;
}

/** What happens to a site's automatic incidents (see outageMove). */
export type IncidentMove = "open" | "resolve" | "update" | null;

/**
 * What an outage does to the pages' automatic incidents, as it does to alerts: one opens as an outage begins (the
 * down alert's move: outside maintenance, or as a window ends on a site still down), is told when the site goes out
 * of sight while down, and resolves as the outage ends (the recovery's move: a confirmed return). A site that flaps,
 * or comes back from unknown still failing, keeps its one incident.
 */
function outageMove(site: SiteRow, health: Health, alert: AlertIntent | null, inMaintenance: boolean): IncidentMove {
  if (alert?.type === "site.down") return "open";
  if (alert?.type === "site.recovered") return "resolve";
  const lostSight = health.state === "unknown" && site.state !== "unknown";
  return site.down_since !== null && lostSight && !inMaintenance ? "update" : null;
}

const CHRONIC_RANK = { ok: 0, warning: 1, critical: 2 } as const;

/**
 * Chronic performance's alert: when its condition's level rises (to warning, or to critical), once per rise, with the
 * condition's summary; a site that is down or in maintenance is not told of (judge).
 */
function chronicMove(site: SiteRow, conditions: string): AlertIntent | null {
  type Stored = { key: string; level: keyof typeof CHRONIC_RANK; summary: string };
  const find = (json: string) => (JSON.parse(json) as Stored[]).find((c) => c.key === "chronic_performance");
  const before = find(site.conditions);
  const after = find(conditions);
  if (!after || CHRONIC_RANK[after.level] <= CHRONIC_RANK[before?.level ?? "ok"]) return null;
  return { siteId: site.id, type: "performance.chronic", reason: after.summary, downSince: null };
}

/**
 * The verdict on each site with everything that follows from it (pure: no store, no clock): its state, summary,
 * check time, certificate, WordPress and conditions; the day's statistics (checks, and downtime while unhealthy);
 * and which automatic incidents move. The store writes the result in the transaction that read the input.
 */
export function judge(input: JudgeInput): Judgement {
  const { now } = input;
  const bySite = groupBy(input.outcomes, (o) => o.check.siteId);
  const stats = new Map<string, StatDelta>();
  const judgement: Judgement = { sites: [], stats: [], moves: [], alerts: [], pagesChanged: false };
  for (const site of input.sites) {
    const mine = oldestFirst(bySite.get(site.id));
    const { health, rejudgeAt } = healthOf(site, input.recent.get(site.id) ?? [], now);
    // Maintenance: checks run and are recorded, but neither they nor the time count in the statistics, alerts wait
    // for its end, and no incident opens.
    const held = input.maintenance.get(site.id) ?? [];
    const inMaintenance = heldAt(held, now);
    addDowntime(stats, site, now, held);
    for (const o of mine) {
      if (heldAt(held, o.at)) continue;
      addStat(stats, site.id, dayOf(o.at), {
        checks_total: 1,
        checks_up: o.ok ? 1 : 0,
        slow_count: o.slow ? 1 : 0,
        response_count: o.ok && o.responseMs !== null ? 1 : 0,
        response_ms_sum: o.ok && o.responseMs !== null ? o.responseMs : 0,
      });
    }
    // Judged again when a maintenance occurrence begins or ends, also when nothing is checked (a paused site).
    const boundary = nextBoundary(held, now);
    const rejudge = boundary === null ? rejudgeAt : Math.min(rejudgeAt ?? boundary, boundary);
    const change: Partial<SiteRow> = {
      state: health.state,
      health_summary: health.summary,
      judged_at: iso(now),
      rejudge_at: rejudge === null ? null : iso(rejudge),
      ...checkedChanges(site, mine, now),
    };
    if (conditionsDueFor(site, mine, now)) {
      change.conditions = conditionsOf(site, change, input);
      change.conditions_at = iso(now);
      const reminders = expiryMoves(site, change, now);
      judgement.alerts.push(...reminders.alerts);
      if (reminders.reminded !== site.reminded) change.reminded = reminders.reminded;
      // Not while it is down (nor during maintenance): the outage says more, and explains the failures.
      const quiet = inMaintenance || health.state === "unhealthy" || site.down_since !== null;
      const chronic = quiet ? null : chronicMove(site, change.conditions);
      if (chronic) judgement.alerts.push(chronic);
    }
    const alert = inMaintenance ? null : alertMove(site, health, now, input.repeats.get(site.id));
    if (alert) {
      judgement.alerts.push(alert);
      if (alert.type === "site.down") change.down_since = iso(now);
      if (alert.type === "site.down" || alert.type === "site.still_down") change.alerted_at = iso(now);
      if (alert.type === "site.recovered") {
        change.down_since = null;
        change.alerted_at = null;
      }
    }
    const wasInMaintenance = site.in_maintenance === 1;
    if (inMaintenance !== wasInMaintenance) change.in_maintenance = inMaintenance ? 1 : 0;
    judgement.sites.push({ id: site.id, change });
    const move = outageMove(site, health, alert, inMaintenance);
    if (health.state !== site.state || inMaintenance !== wasInMaintenance || move) judgement.pagesChanged = true;
    if (move) {
      const { downIn, judged = 0, reason = null } = health;
      judgement.moves.push({
        siteId: site.id,
        move,
        summary: health.summary,
        reason,
        state: health.state,
        // Only when some regions still reach it: down in all is down.
        ...(judged > 1 && downIn.length < judged ? { regions: { down: downIn.length, of: judged } } : {}),
      });
    }
  }
  judgement.stats = [...stats.values()];
  return judgement;
}
