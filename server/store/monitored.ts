import type { z } from "zod";
import {
  DNS_DEFAULTS,
  type DnsSettings,
  type HttpAssertions,
  NO_ASSERTIONS,
  PUSH_DEFAULTS,
  type PushSettings,
  protocolOf,
  REQUEST_DEFAULTS,
  type StoredHttpRequest,
} from "../contract/monitor.ts";
import type { Condition, SiteState } from "../contract/site.ts";
import type { SiteRow } from "./schema.ts";

/** What the verdict needs of one check result, as each region's schedule keeps its latest (site_checks.recent). */
export interface ResultSummary {
  region: string;
  /** When the check started, in ms since the epoch. */
  at: number;
  ok: boolean;
  responseMs: number | null;
  error: string | null;
  /** A ping check answered only in part: the share of echo requests lost (omitted when none was). */
  lossPercent?: number;
  /** A failure that is down at once, unconfirmed by another (the job reported it: Outcome.confirmed). */
  confirmed?: boolean;
}

/** A push site's heartbeat as last stored (push calls are coalesced: see server/api/push.ts). */
export interface PushHeartbeat {
  graceSeconds: number;
  /** The last call (ms since the epoch); null before the first. */
  lastCallAt: number | null;
  lastStatus: "up" | "down" | null;
  /** The job's own words with its last call (?msg=), if any. */
  lastMessage: string | null;
  /** The job's own duration with its last call (?ms=), if any. */
  lastMs: number | null;
  /** Since when silence counts: the site's creation or its token's last rotation (ms since the epoch). */
  since: number;
}

/** A check claimed from the store (CheckQueries.claimDue): the site's settings and its region's recent results. */
export interface ClaimedCheck {
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
  /** http(s) sites: what the answer must hold beyond its status code. */
  assertions: HttpAssertions;
  /** http(s) sites: the body, basic auth (its password sealed) and whether redirects are followed. */
  request: StoredHttpRequest;
  /** dns sites: the question and the expected answer. */
  dns: DnsSettings;
  /** push sites: the last heartbeat; null for other kinds. */
  push: PushHeartbeat | null;
  /** The region's latest results, newest first (at most 20: enough for a rule's largest confirmation threshold). */
  recent: ResultSummary[];
  /** When the domain was last looked up (ISO), null if never. */
  domainCheckedAt: string | null;
}

/** The columns a claim reads (checks.ts claimDue). */
export type ClaimedColumns = Pick<
  SiteRow,
  | "url"
  | "method"
  | "headers"
  | "timeout"
  | "check_interval"
  | "success_codes"
  | "error_codes"
  | "slow_threshold_ms"
  | "domain_checked_at"
  | "settings"
  | "created_at"
  | "push_since"
  | "push_last_at"
  | "push_last_status"
  | "push_last_message"
  | "push_last_ms"
> & { site_id: string; region: string; next_check_at: string; recent: string };

/** A claimed site as the checkers read it, its kind's settings with the defaults filled in ('{}': none set). */
export function claimedCheck(r: ClaimedColumns): ClaimedCheck {
  const stored = JSON.parse(r.settings) as {
    assertions?: HttpAssertions;
    request?: StoredHttpRequest;
    dns?: DnsSettings;
    push?: PushSettings;
  };
  const isPush = protocolOf(r.url) === "push";
  return {
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
    assertions: { ...NO_ASSERTIONS, ...stored.assertions },
    request: { ...REQUEST_DEFAULTS, ...stored.request },
    dns: { ...DNS_DEFAULTS, ...stored.dns },
    push: isPush
      ? {
          graceSeconds: stored.push?.graceSeconds ?? PUSH_DEFAULTS.graceSeconds,
          lastCallAt: r.push_last_at === null ? null : Date.parse(r.push_last_at),
          lastStatus: r.push_last_status === "down" ? "down" : r.push_last_status === "up" ? "up" : null,
          lastMessage: r.push_last_message,
          lastMs: r.push_last_ms,
          since: Date.parse(r.push_since ?? r.created_at),
        }
      : null,
    recent: JSON.parse(r.recent),
    domainCheckedAt: r.domain_checked_at,
  };
}

/** The certificate a site's checks last saw, as kept for its conditions and reminders. */
export interface KeptCertificate {
  expiresAt: string;
  issuer: string;
  /** Whole days left when it was seen. */
  daysRemaining: number;
}

/** A site's domain registration as last looked up. */
export interface KeptDomain {
  domain: string;
  expiresAt: string | null;
  registrar?: string | null;
}

/** The expiries as last judged for reminders, so each reminder is sent once per crossing. */
export type Reminded = Partial<Record<"certificate" | "domain", { expiresAt: string; daysLeft: number }>>;

/** A site's flapping as the engine follows it; absent when it is not flapping and had no outage in the window. */
export interface Flap {
  /** When its recent outages began (within the rule's window), oldest first. */
  starts: string[];
  /** When it last changed between up and down. */
  changedAt: string;
  /** Since when it flaps (the first outage of the window that made it flap), and its outages since; else absent. */
  flapping?: { since: string; outages: number };
}

/**
 * A site as the judge reads it (engine/judge.ts): its schedule, its last verdict and what the engine keeps between
 * verdicts, decoded from the stored columns. The judge never sees how they are stored.
 */
export interface MonitoredSite {
  id: string;
  enabled: boolean;
  paused: boolean;
  intervalMs: number;
  timeoutMs: number;
  slowMs: number;
  /** The regions it is checked from. */
  regions: string[];
  state: SiteState;
  /** When its outage began: set as it turns unhealthy, cleared as it leaves. */
  downSince: string | null;
  /** When it last alerted that it is down (the first time, or a repeat). */
  alertedAt: string | null;
  judgedAt: string | null;
  /** When it is to be judged again by time alone (a sweep), if ever. */
  rejudgeAt: string | null;
  lastCheckTime: string | null;
  conditionsAt: string | null;
  /** Whether it was in a maintenance window when last judged. */
  inMaintenance: boolean;
  certificate: KeptCertificate | null;
  domain: KeptDomain | null;
  /** Whether it runs WordPress, and whether the owner said so (then the checks never change it). */
  wordpress: { value: boolean; manualOverride: boolean } | null;
  conditions: z.infer<typeof Condition>[];
  flap: Flap | null;
  reminded: Reminded;
}

/** What a judgement changes of a site; what is absent stays as it is. */
export interface SiteChange {
  state?: SiteState;
  healthSummary?: string;
  judgedAt?: string;
  rejudgeAt?: string | null;
  lastCheckTime?: string;
  lastResponseMs?: number;
  certificate?: KeptCertificate;
  /** Whether the certificate last seen failed verification. */
  certificateError?: boolean;
  conditionsAt?: string | null;
  wordpress?: { value: boolean; manualOverride: boolean };
  conditions?: z.infer<typeof Condition>[];
  reminded?: Reminded;
  downSince?: string | null;
  alertedAt?: string | null;
  flap?: Flap | null;
  inMaintenance?: boolean;
}

const decoded = <T>(text: string | null): T | null => (text === null ? null : (JSON.parse(text) as T));

/** A stored site as the judge reads it. */
export function monitoredSite(row: SiteRow): MonitoredSite {
  return {
    id: row.id,
    enabled: row.enabled === 1,
    paused: row.pause === 1,
    intervalMs: row.check_interval * 1000,
    timeoutMs: row.timeout * 1000,
    slowMs: row.slow_threshold_ms,
    regions: JSON.parse(row.regions),
    state: row.state as SiteState,
    downSince: row.down_since,
    alertedAt: row.alerted_at,
    judgedAt: row.judged_at,
    rejudgeAt: row.rejudge_at,
    lastCheckTime: row.last_check_time,
    conditionsAt: row.conditions_at,
    inMaintenance: row.in_maintenance === 1,
    certificate: decoded(row.ssl_info),
    domain: decoded(row.domain_info),
    wordpress: decoded(row.wordpress),
    conditions: JSON.parse(row.conditions),
    flap: decoded(row.flap),
    reminded: decoded(row.reminded) ?? {},
  };
}

/** The columns a change writes (store/checks.ts writeJudged). */
export function changeColumns(change: SiteChange): Partial<SiteRow> {
  const columns: Partial<SiteRow> = {};
  const set = <K extends keyof SiteRow>(key: K, value: SiteRow[K] | undefined) => {
    if (value !== undefined) columns[key] = value;
  };
  const json = (value: unknown) => (value === undefined ? undefined : value === null ? null : JSON.stringify(value));
  set("state", change.state);
  set("health_summary", change.healthSummary);
  set("judged_at", change.judgedAt);
  set("rejudge_at", change.rejudgeAt);
  set("last_check_time", change.lastCheckTime);
  set("last_response_ms", change.lastResponseMs);
  set("ssl_info", json(change.certificate));
  set("has_certificate_error", change.certificateError === undefined ? undefined : change.certificateError ? 1 : 0);
  set("conditions_at", change.conditionsAt);
  set("wordpress", json(change.wordpress));
  if (change.conditions !== undefined) columns.conditions = JSON.stringify(change.conditions);
  set("reminded", json(change.reminded));
  set("down_since", change.downSince);
  set("alerted_at", change.alertedAt);
  set("flap", json(change.flap));
  set("in_maintenance", change.inMaintenance === undefined ? undefined : change.inMaintenance ? 1 : 0);
  return columns;
}
