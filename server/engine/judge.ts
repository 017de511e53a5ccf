import { DEFAULT_ALERT_RULE } from "../contract/alerts.ts";
import type { SiteState } from "../contract/site.ts";
import { DEFAULT_INCIDENT_POLICY } from "../contract/status-page.ts";
import { groupBy } from "../group-by.ts";
import { PRIVATE_TARGETS_SETTING, refusedByPolicy } from "../net/address-policy.ts";
import type { RuleSettings } from "../store/alerts.ts";
import type {
  AutomaticIncident,
  IncidentWrite,
  JudgedWrites,
  Showing,
  ShowingItem,
  StatDelta,
} from "../store/checks.ts";
import type { Flap, MonitoredSite, Reminded, SiteChange } from "../store/monitored.ts";
import type { AlertIntent } from "./alert-writes.ts";
import { type Condition, judgeConditions } from "./conditions.ts";
import { heldAt, type Interval, nextBoundary, outside } from "./maintenance.ts";
import type { Outcome } from "./outcome.ts";
import { THRESHOLDS } from "./thresholds.ts";
import { freshForMs, type Health, judgeHealth, type ResultSummary } from "./verdict.ts";

/** Conditions are judged again at least this often (and at once when a certificate or domain changes). */
export const CONDITIONS_EVERY_MS = 5 * 60_000;

const DAY = 86_400_000;
/** Whether two decoded values would be stored alike (their JSON is the same). */
const sameJson = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
const iso = (ms: number) => new Date(ms).toISOString();
const dayOf = (ms: number) => iso(ms).slice(0, 10);

/** Everything judging a set of sites needs, read beforehand (in the transaction that writes the judgement). */
export interface JudgeInput {
  now: number;
  /** The sites to judge (locked by the caller); the judgement keeps their order. */
  sites: MonitoredSite[];
  /** Each site's recent results in every region it is checked from (the regions' schedules), by site id. */
  recent: Map<string, ResultSummary[]>;
  /** What this batch's checks found, written meanwhile (none when sites are judged again by time alone). */
  outcomes: Outcome[];
  /** The chronic window of each site whose conditions are due (see conditionsDue); a missing one counts as empty. */
  windows: Map<string, { checks: number; slowOrFailed: number; firstAt?: string | null }>;
  /** The maintenance occurrences of each site that has some near now (see MAINTENANCE_REACH_MS). */
  maintenance: Map<string, Interval[]>;
  /** Each site's rule settings (repeats, confirmations, cool-down, flapping); a missing one is the defaults. */
  rules?: Map<string, RuleSettings>;
  /** Minutes between repeats of a still-down alert (without `rules`): for the sites whose rule repeats. */
  repeats?: Map<string, number>;
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
  /** Regions down and regions judged, when the site is down in some of its regions only. */
  regions?: { down: number; of: number };
  /** When the outage began (its incident's start for an item added meanwhile; its length when it ends). */
  downSince?: string | null;
  /**
   * With "ensure": when the site was judged before this judgement. Only items added since get the incident, once:
   * an owner who deletes it later has it stay deleted.
   */
  judgedBefore?: string | null;
  /** The rule's cool-down: minutes after an automatic incident resolved within which it re-opens. */
  cooldownMinutes?: number;
}

/**
 * What judging decided: the sites' and statistics' rows to write, the incident moves (incidentWrites makes their
 * rows, once what the pages show of those sites is read), and whether a status page shows something new.
 */
export interface Judgement extends Omit<JudgedWrites, "incidents" | "alerts"> {
  moves: IncidentIntent[];
  /** The moves that alert the sites' owners (alert-writes.ts makes their outbox rows, by each site's rule). */
  alerts: AlertIntent[];
  /** Whether something a status page shows beyond check times changed: a state, an incident. */
  pagesChanged: boolean;
}

/** A site's outcomes, oldest first. */
function oldestFirst(outcomes: Outcome[] | undefined): Outcome[] {
  return [...(outcomes ?? [])].sort((a, b) => a.at - b.at);
}

/** The latest certificate among a site's outcomes (oldest first), if any, and whether its expiry is new. */
function latestCertificate(site: MonitoredSite, mine: Outcome[]) {
  const cert = mine.findLast((o) => o.certificate)?.certificate;
  if (!cert) return null;
  return { cert, changed: site.certificate?.expiresAt !== cert.expiresAt };
}

/** Whether a site's conditions are judged this time: never judged, judged too long ago, or a new certificate. */
function conditionsDueFor(site: MonitoredSite, mine: Outcome[], now: number): boolean {
  const conditionsAt = latestCertificate(site, mine)?.changed ? null : site.conditionsAt;
  return !conditionsAt || now - Date.parse(conditionsAt) >= CONDITIONS_EVERY_MS;
}

/** The sites whose conditions judge() will judge, so that their chronic windows can be read beforehand. */
export function conditionsDue(sites: MonitoredSite[], outcomes: Outcome[], now: number): string[] {
  const bySite = groupBy(outcomes, (o) => o.check.siteId);
  return sites.filter((site) => conditionsDueFor(site, oldestFirst(bySite.get(site.id)), now)).map((s) => s.id);
}

/** The site's health, and when it can change by time alone (a region's latest result going stale), if ever. */
function healthOf(
  site: MonitoredSite,
  recent: ResultSummary[],
  now: number,
): { health: Health; rejudgeAt: number | null } {
  if (site.paused || !site.enabled) {
    const summary = site.paused ? "Paused: not checked." : "Disabled: not checked.";
    return { health: { state: "unknown", summary, downIn: [] }, rejudgeAt: null };
  }
  const { intervalMs, timeoutMs, regions } = site;
  const freshFor = freshForMs(intervalMs, timeoutMs);
  // A check the server refused by its own address policy, or could not run, says nothing of the site: "not checked".
  // Once the latest fresh result of every region is such, the site is unknown with the reason; else they are left out.
  const latest = regions
    .map((region) => recent.filter((r) => r.region === region && now - r.at <= freshFor).sort((a, b) => b.at - a.at)[0])
    .filter((r) => r !== undefined);
  const refusal = latest.find((r) => notChecked(r.error));
  const counted = recent.filter((r) => !notChecked(r.error));
  const health: Health =
    refusal && latest.every((r) => notChecked(r.error))
      ? { state: "unknown", summary: notCheckedSummary(refusal.error as string), downIn: [] }
      : judgeHealth({ now, intervalMs, timeoutMs, slowMs: site.slowMs, regions, results: counted });
  let rejudgeAt: number | null = null;
  for (const region of regions) {
    const latest = Math.max(...recent.filter((r) => r.region === region).map((r) => r.at), -Infinity);
    if (latest + freshFor > now) rejudgeAt = Math.min(rejudgeAt ?? Infinity, latest + freshFor);
  }
  return { health, rejudgeAt };
}

/** The start of a checker's error for a check that could not run here (no ping on the machine, no first push yet). */
export const NOT_CHECKED = "not checked:";

/**
 * Whether a check says nothing of the site: refused by the server's own address policy, or not runnable here
 * ("not checked: ..."). Such a check is never downtime; when it is all a site has, the site is unknown.
 */
export function notChecked(error: string | null | undefined): boolean {
  return refusedByPolicy(error) || (!!error && error.startsWith(NOT_CHECKED));
}

/**
 * What a site whose checks the server refuses by its address policy says: not checked, why, and the setting.
 * ("refused: shop.test is 127.0.0.1 (loopback, not a public address); checking … needs PORCHLIGHT_…=true")
 */
export function notCheckedSummary(error: string): string {
  if (error.startsWith(NOT_CHECKED)) return `Not checked: ${error.slice(NOT_CHECKED.length).trim()}.`;
  const why = /^refused: (.*?)(?:; checking .*)?$/.exec(error)?.[1] ?? error;
  return `Not checked: ${why}. This server refuses private, loopback and link-local targets unless ${PRIVATE_TARGETS_SETTING}=true.`;
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
function addDowntime(stats: Map<string, StatDelta>, site: MonitoredSite, now: number, held: Interval[]) {
  if (site.state !== "unhealthy" || !site.judgedAt) return;
  const since = Math.max(Date.parse(site.judgedAt), now - freshForMs(site.intervalMs, site.timeoutMs));
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
function checkedChanges(site: MonitoredSite, mine: Outcome[], now: number): SiteChange {
  const latest = mine.at(-1);
  if (!latest) return {};
  const change: SiteChange = {};
  // Another region's older result may be written after a newer one: the check time never goes back.
  if (!site.lastCheckTime || iso(latest.at) > site.lastCheckTime) {
    change.lastCheckTime = iso(latest.at);
    if (latest.responseMs !== null) change.lastResponseMs = latest.responseMs;
  }
  const seen = latestCertificate(site, mine);
  if (seen) {
    const { cert } = seen;
    change.certificate = {
      expiresAt: cert.expiresAt,
      issuer: cert.issuer,
      daysRemaining: Math.floor((Date.parse(cert.expiresAt) - now) / DAY),
    };
    change.certificateError = !cert.authorized;
    if (seen.changed) change.conditionsAt = null;
  }
  const wp = mine.findLast((o) => o.wordpress !== null)?.wordpress;
  const stored = site.wordpress;
  if (wp !== undefined && wp !== null && !stored?.manualOverride && stored?.value !== wp) {
    change.wordpress = { value: wp, manualOverride: false };
  }
  return change;
}

/**
 * The site's chronic window as judged: covered once its first recorded check is at least the window's length ago
 * (within one check interval), so that the condition waits for the whole window.
 */
function chronicWindow(site: MonitoredSite, input: JudgeInput) {
  const window = input.windows.get(site.id) ?? { checks: 0, slowOrFailed: 0, firstAt: null };
  const windowStart = input.now - THRESHOLDS.chronic.windowHours * 3_600_000;
  const firstAt = window.firstAt === undefined ? windowStart : window.firstAt ? Date.parse(window.firstAt) : null;
  const covered = firstAt !== null && firstAt <= windowStart + site.intervalMs;
  return { checks: window.checks, slowOrFailed: window.slowOrFailed, covered };
}

/** The site's standing conditions from its certificate (as changed now), domain and chronic window. */
function conditionsOf(site: MonitoredSite, change: SiteChange, input: JudgeInput): Condition[] {
  const ssl = change.certificate ?? site.certificate;
  const domain = site.domain;
  return judgeConditions({
    now: input.now,
    certificate: ssl ? { expiresAt: Date.parse(ssl.expiresAt), issuer: ssl.issuer } : null,
    domain: domain?.expiresAt ? { name: domain.domain, expiresAt: Date.parse(domain.expiresAt) } : null,
    window: chronicWindow(site, input),
    previous: site.conditions,
  });
}

/**
 * The rows of the judgement's incident moves (pure, like judge), by each page's incident policy: the automatic
 * incident of each status page showing a site opens as its outage begins (or, within the rule's cool-down after it
 * resolved, re-opens with a "down again" update), is told when the site goes out of sight, and resolves as the
 * outage ends; a page whose item was added while its site was already down gets the outage's incident on the site's
 * next judgement ("ensure"). `showing` is what the pages show of the moving sites.
 */
export function incidentWrites(moves: IncidentIntent[], showing: Showing, now: number): IncidentWrite[] {
  return moves.flatMap((intent) => siteIncidentWrites(intent, showing, now));
}

const unit = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** An outage's length in plain words: "less than a minute", "4 minutes", "1 hour 5 minutes", "2 days 3 hours". */
export function plainDuration(ms: number): string {
  const minutes = Math.floor(Math.max(0, ms) / 60_000);
  if (minutes < 1) return "less than a minute";
  if (minutes < 60) return unit(minutes, "minute");
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return minutes % 60 ? `${unit(hours, "hour")} ${unit(minutes % 60, "minute")}` : unit(hours, "hour");
  const days = Math.floor(hours / 24);
  return hours % 24 ? `${unit(days, "day")} ${unit(hours % 24, "hour")}` : unit(days, "day");
}

/** A template's words with {service} and {duration} filled in. */
export function fillTemplate(template: string, service: string, durationMs = 0): string {
  // Functions, not strings: a label's "$&" or "$$" is text, not a replacement pattern.
  const duration = plainDuration(durationMs);
  return template.replaceAll("{service}", () => service).replaceAll("{duration}", () => duration);
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
 * What an automatic update says in the owner's words (incident_updates.detail, never shown to visitors): the
 * failing check's error as the checker wrote it, and in how many regions.
 */
export function ownerDetail({ reason = null, regions }: IncidentIntent): string | null {
  if (!reason) return null;
  return regions ? `${reason} (down in ${regions.down} of ${regions.of} regions)` : reason;
}

/**
 * The legacy words of an automatic update (before page templates): kept for the update when a site goes out of sight
 * while down, which templates do not cover.
 */
export function visitorMessage(label: string, { move, reason = null, regions, state }: IncidentIntent): string {
  if (move === "resolve" && state === "degraded") return `${label} is working again, though not fully yet.`;
  if (move === "resolve") return `${label} is working again.`;
  if (move === "update") return `${label} is not being checked at the moment, so its state is unknown.`;
  const where = regions ? ` in ${regions.down} of ${regions.of} regions` : "";
  return `${label} is down${where}${reason ? `: ${plainReason(reason)}` : ""}.`;
}

function siteIncidentWrites(intent: IncidentIntent, showing: Showing, nowMs: number): IncidentWrite[] {
  const { siteId, move } = intent;
  const at = iso(nowMs);
  const downSince = intent.downSince ? Date.parse(intent.downSince) : nowMs;
  const mine = showing.incidents.filter((i) => i.site_id === siteId);
  const open = mine.filter((i) => i.resolved_at === null);
  const items = showing.items.filter((i) => i.site_id === siteId);
  const pages = groupBy(items, (i) => i.page_id);
  const policyFor = (pageId: number) => items.find((i) => i.page_id === pageId)?.policy ?? DEFAULT_INCIDENT_POLICY;
  /** The page's label for the site; once its items are hidden or gone, the incident's title. */
  const labelOf = (incident: AutomaticIncident) =>
    items.find((item) => item.page_id === incident.page_id)?.label ??
    incident.title?.replace(/ is (down|unavailable)$/, "") ??
    "The service";
  const detail = ownerDetail(intent);
  const impact = intent.regions ? "major" : "critical";
  const itemStatus = intent.regions ? "partial_outage" : "major_outage";
  const writes: IncidentWrite[] = [];
  const opening = (pageId: number, pageItems: ShowingItem[], startedAt: number): IncidentWrite => {
    const policy = policyFor(pageId);
    const label = (pageItems[0] as ShowingItem).label;
    const publishAt = policy.publish === "after" ? startedAt + policy.afterMinutes * 60_000 : null;
    const publishedAt = policy.publish === "immediately" || (publishAt !== null && publishAt <= nowMs) ? at : null;
    return {
      kind: "open",
      incident: {
        page_id: pageId,
        title: fillTemplate(policy.template.title, label).slice(0, 200),
        status: "investigating",
        started_at: iso(startedAt),
        resolved_at: null,
        created_at: at,
        updated_at: at,
        site_id: siteId,
        source: "automatic",
        impact,
        published_at: publishedAt,
        publish_at: publishAt === null ? null : iso(publishAt),
      },
      message: fillTemplate(policy.template.down, label),
      detail,
      at,
      items: pageItems.map((i) => ({ item_id: i.id, status: itemStatus })),
    };
  };
  if (move === "open") {
    for (const [pageId, pageItems] of pages) {
      const policy = policyFor(pageId);
      const label = (pageItems[0] as ShowingItem).label;
      const existing = open.find((i) => i.page_id === pageId);
      if (existing) {
        const message = fillTemplate(policy.template.down, label);
        writes.push({ kind: "append", pageId, incidentId: existing.id, status: existing.status, message, detail, at });
        continue;
      }
      // The cool-down: the page's latest automatic incident of this site, resolved within it, re-opens.
      const cooldownMs = (intent.cooldownMinutes ?? 0) * 60_000;
      const latest = mine
        .filter((i) => i.page_id === pageId && i.resolved_at !== null)
        .sort((a, b) => (b.resolved_at as string).localeCompare(a.resolved_at as string))[0];
      if (cooldownMs > 0 && latest && nowMs - Date.parse(latest.resolved_at as string) <= cooldownMs) {
        const message = fillTemplate(policy.template.downAgain, label);
        // Still waiting for the page's delay: its publication time moves on by the time the site was up, so it is
        // published once its outages add up to the delay (a site flapping for long is; two short blips are not).
        const waiting = latest.publish_at ? Date.parse(latest.publish_at) : null;
        const publishAt =
          waiting === null ? undefined : iso(waiting + (nowMs - Date.parse(latest.resolved_at as string)));
        writes.push({
          kind: "append",
          pageId,
          incidentId: latest.id,
          status: "investigating",
          message,
          detail,
          at,
          ...(publishAt === undefined ? {} : { publishAt }),
        });
        continue;
      }
      writes.push(opening(pageId, pageItems, nowMs));
    }
  } else if (move === "ensure") {
    // Items added while the site was down: their page gets the outage's incident, begun when the outage did.
    for (const [pageId, pageItems] of pages) {
      const since = intent.judgedBefore ?? iso(downSince);
      if (!pageItems.some((i) => i.created_at >= iso(downSince) && i.created_at >= since)) continue;
      const known = mine.some(
        (i) => i.page_id === pageId && (i.resolved_at === null || i.started_at >= iso(downSince)),
      );
      if (!known) writes.push(opening(pageId, pageItems, downSince));
    }
  } else {
    for (const incident of open) {
      const label = labelOf(incident);
      const status = move === "resolve" ? "resolved" : incident.status;
      const message =
        move === "resolve"
          ? fillTemplate(policyFor(incident.page_id).template.recovered, label, nowMs - downSince)
          : visitorMessage(label, intent);
      const pageId = incident.page_id;
      writes.push({ kind: "append", pageId, incidentId: incident.id, status, message, detail: null, at });
    }
  }
  return writes;
}

/**
 * The reminders of a certificate's and a domain's expiry (pure): an expiring event when the days left cross one of the
 * reminder days or the condition's levels (THRESHOLDS: one source with the conditions), once per crossing; a renewed
 * event, once, when the expiry moved later by more than a day after it had come within the reminders' reach. What it
 * judged is kept (`reminded`) for the next time.
 */
function expiryMoves(
  site: MonitoredSite,
  change: SiteChange,
  now: number,
): { alerts: AlertIntent[]; reminded: Reminded } {
  const before = site.reminded;
  const after: Reminded = { ...before };
  const alerts: AlertIntent[] = [];
  const ssl = change.certificate ?? site.certificate;
  const domain = site.domain;
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
  return { alerts, reminded: after };
}

/** What happens to a site's automatic incidents (see siteIncidentWrites). */
export type IncidentMove = "open" | "resolve" | "update" | "ensure" | null;

/** The rule settings of a site without a stored rule (contract defaults). */
const DEFAULT_SETTINGS: RuleSettings = {
  repeatMinutes: DEFAULT_ALERT_RULE.repeatMinutes,
  confirmations: DEFAULT_ALERT_RULE.confirmations,
  cooldownMinutes: DEFAULT_ALERT_RULE.cooldownMinutes,
  flapping: DEFAULT_ALERT_RULE.flapping,
};

/** The most failed checks in a row in any region where the site is down (recent results, newest first per region). */
function failedInARow(health: Health, recent: ResultSummary[]): number {
  let most = 0;
  for (const region of health.downIn) {
    const mine = recent.filter((r) => r.region === region).sort((a, b) => b.at - a.at);
    const streak = mine.findIndex((r) => r.ok);
    // A failure the job reported itself needs no confirmation, whatever the rule asks.
    most = Math.max(most, mine[0]?.confirmed ? Number.POSITIVE_INFINITY : streak === -1 ? mine.length : streak);
  }
  return most;
}

/**
 * A site's outage and what it tells its owner (outside maintenance), by its rule:
 * - an outage begins as the site turns unhealthy (a first verdict included: the quorum of its regions decided it):
 *   down_since is set and its automatic incidents open (or re-open within the cool-down);
 * - site.down is sent once the rule's confirmations (failed checks in a row) are reached, at once or on a later
 *   judgement; alerted_at marks that it was sent, and repeats (site.still_down) count from it;
 * - the outage ends as a site that was down is healthy or degraded again and its return is confirmed (Health.back:
 *   also across a spell of unknown); site.recovered only when site.down was sent;
 * - flapping: at the rule's outages-th outage within its window, one site.flapping, then no down, recovered or
 *   still-down alerts until the site has held one state for quietMinutes, then one site.flapping_ended (which, when
 *   the site is down, counts as its down alert: its recovery is told);
 * - site.degraded as a healthy (or not yet judged) site turns degraded outside an outage and outside flapping.
 * A pause or a verdict of unknown alerts nothing.
 */
function outageOf(
  site: MonitoredSite,
  health: Health,
  now: number,
  rule: RuleSettings,
  recent: ResultSummary[],
): { alerts: AlertIntent[]; change: SiteChange; move: IncidentMove } {
  const at = iso(now);
  const to = health.state;
  const alerts: AlertIntent[] = [];
  const change: SiteChange = {};
  const reason = health.reason ?? health.summary;
  // A copy: it is changed in place below, and compared with the site's at the end.
  let flap: Flap | null = site.flap ? structuredClone(site.flap) : null;
  let move: IncidentMove = null;
  let downSince = site.downSince;
  let alertedAt = site.alertedAt;
  const begins = to === "unhealthy" && downSince === null;
  const ends = downSince !== null && (to === "healthy" || to === "degraded") && health.back === true;
  const windowFrom = rule.flapping ? iso(now - rule.flapping.windowMinutes * 60_000) : at;
  // Only the window's outages are kept, flapping or not (a flapping site counts its outages in flapping.outages), so
  // a site that flaps for weeks keeps a short list.
  if (flap) flap.starts = flap.starts.filter((t) => t >= windowFrom);
  if (begins) {
    downSince = at;
    move = "open";
    if (rule.flapping) {
      flap = {
        starts: [...(flap?.starts ?? []), at],
        changedAt: at,
        ...(flap?.flapping ? { flapping: flap.flapping } : {}),
      };
      if (flap.flapping) {
        flap.flapping.outages++;
      } else if (flap.starts.length >= rule.flapping.outages) {
        flap.flapping = { since: flap.starts[0] as string, outages: flap.starts.length };
        alerts.push({
          siteId: site.id,
          type: "site.flapping",
          reason,
          downSince: at,
          flapping: {
            ...flap.flapping,
            state: "down",
            spanSeconds: Math.round((now - Date.parse(flap.flapping.since)) / 1000),
          },
        });
      }
    }
  } else if (ends) {
    move = "resolve";
    if (alertedAt !== null && !flap?.flapping) {
      alerts.push({ siteId: site.id, type: "site.recovered", reason: null, downSince });
    }
    downSince = null;
    alertedAt = null;
    if (flap) flap.changedAt = at;
  }
  const flapping = flap?.flapping !== undefined;
  if (to === "unhealthy" && downSince !== null && !flapping) {
    if (alertedAt === null) {
      if (failedInARow(health, recent) >= rule.confirmations) {
        alerts.push({ siteId: site.id, type: "site.down", reason, downSince });
        alertedAt = at;
      }
    } else if (rule.repeatMinutes && now - Date.parse(alertedAt) >= rule.repeatMinutes * 60_000) {
      alerts.push({ siteId: site.id, type: "site.still_down", reason, downSince });
      alertedAt = at;
    }
  }
  if (!flapping && downSince === null && (site.state === "healthy" || site.state === "unknown") && to === "degraded") {
    alerts.push({ siteId: site.id, type: "site.degraded", reason: health.summary, downSince: null });
  }
  // Flapping ends once the site has held one state for the quiet time (judged as it is checked).
  if (flap?.flapping && !begins && !ends) {
    const quietMs = (rule.flapping?.quietMinutes ?? 0) * 60_000;
    if (now - Date.parse(flap.changedAt) >= quietMs) {
      const down = downSince !== null;
      alerts.push({
        siteId: site.id,
        type: "site.flapping_ended",
        reason: down ? reason : null,
        downSince,
        flapping: {
          ...flap.flapping,
          state: down ? "down" : "up",
          spanSeconds: Math.round((Date.parse(flap.changedAt) - Date.parse(flap.flapping.since)) / 1000),
        },
      });
      // Ending down tells the owner it is down: its recovery will be told.
      if (down) alertedAt = at;
      flap = null;
    }
  }
  if (flap && !flap.flapping && flap.starts.length === 0) flap = null;
  if (downSince !== site.downSince) change.downSince = downSince;
  if (alertedAt !== site.alertedAt) change.alertedAt = alertedAt;
  if (!sameJson(flap, site.flap)) change.flap = flap;
  if (!move) {
    const lostSight = to === "unknown" && site.state !== "unknown";
    if (site.downSince !== null && lostSight) move = "update";
    else if (to === "unhealthy" && downSince !== null) move = "ensure";
  }
  return { alerts, change, move };
}

const CHRONIC_RANK = { ok: 0, warning: 1, critical: 2 } as const;

/**
 * Chronic performance's alert: when its condition's level rises (to warning, or to critical), once per rise, with the
 * condition's summary; a site that is down or in maintenance is not told of (judge).
 */
function chronicMove(site: MonitoredSite, conditions: Condition[]): AlertIntent | null {
  const find = (list: Condition[]) => list.find((c) => c.key === "chronic_performance");
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
      // Neither maintenance nor a check the server refused (not checked) counts.
      if (heldAt(held, o.at) || notChecked(o.error)) continue;
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
    const change: SiteChange = {
      state: health.state,
      healthSummary: health.summary,
      judgedAt: iso(now),
      rejudgeAt: rejudge === null ? null : iso(rejudge),
      ...checkedChanges(site, mine, now),
    };
    if (conditionsDueFor(site, mine, now)) {
      const conditions = conditionsOf(site, change, input);
      change.conditions = conditions;
      change.conditionsAt = iso(now);
      const reminders = expiryMoves(site, change, now);
      judgement.alerts.push(...reminders.alerts);
      if (Object.keys(reminders.reminded).length > 0 && !sameJson(reminders.reminded, site.reminded)) {
        change.reminded = reminders.reminded;
      }
      // Not while it is down (nor during maintenance): the outage says more, and explains the failures.
      const quiet = inMaintenance || health.state === "unhealthy" || site.downSince !== null;
      const chronic = quiet ? null : chronicMove(site, conditions);
      if (chronic) judgement.alerts.push(chronic);
    }
    // Maintenance: no outage begins or ends, nothing is alerted, no incident moves.
    const rule = input.rules?.get(site.id) ?? {
      ...DEFAULT_SETTINGS,
      repeatMinutes: input.repeats?.get(site.id) ?? null,
    };
    const outage = inMaintenance
      ? { alerts: [], change: {}, move: null }
      : outageOf(site, health, now, rule, input.recent.get(site.id) ?? []);
    judgement.alerts.push(...outage.alerts);
    Object.assign(change, outage.change);
    const wasInMaintenance = site.inMaintenance;
    if (inMaintenance !== wasInMaintenance) change.inMaintenance = inMaintenance;
    judgement.sites.push({ id: site.id, change });
    const { move } = outage;
    if (health.state !== site.state || inMaintenance !== wasInMaintenance || (move && move !== "ensure")) {
      judgement.pagesChanged = true;
    }
    if (move) {
      const { downIn, judged = 0, reason = null } = health;
      judgement.moves.push({
        siteId: site.id,
        move,
        summary: health.summary,
        reason,
        state: health.state,
        downSince: move === "resolve" ? site.downSince : (change.downSince ?? site.downSince),
        ...(move === "ensure" ? { judgedBefore: site.judgedAt } : {}),
        cooldownMinutes: rule.cooldownMinutes,
        // Only when some regions still reach it: down in all is down.
        ...(judged > 1 && downIn.length < judged ? { regions: { down: downIn.length, of: judged } } : {}),
      });
    }
  }
  judgement.stats = [...stats.values()];
  return judgement;
}
