import { utcDayBefore } from "../clock.ts";
import { ROLE_PERMISSIONS, type RoleName } from "../contract/account.ts";
import { envelope } from "../contract/common.ts";
import {
  DNS_DEFAULTS,
  type DnsSettings,
  type HttpAssertions,
  type HttpRequest,
  NO_ASSERTIONS,
  PUSH_DEFAULTS,
  type PushSettings,
  protocolOf,
  REQUEST_DEFAULTS,
  type StoredHttpRequest,
} from "../contract/monitor.ts";
import { type Site, type SiteDetail, type SiteState, STAT_DAYS, type StatEntry } from "../contract/site.ts";
import { roundPercent, siteStatus, uptimePercent } from "../contract/status.ts";
import type { Principal } from "../store/accounts.ts";
import type { SiteRow } from "../store/schema.ts";
import type { Store } from "../store/store.ts";

const parseJson = <T>(text: string | null): T | null => (text === null ? null : (JSON.parse(text) as T));

/** A stored site as the API shows it. */
export function siteView(row: SiteRow): Site {
  const pause = row.pause === 1;
  const state = row.state as SiteState;
  const wordpress = parseJson<{ value: boolean; manualOverride: boolean }>(row.wordpress);
  // An address of a scheme no longer checked cannot be stored (SiteUrl); read as http(s) for safety.
  const protocol = protocolOf(row.url) ?? (row.url.startsWith("https:") ? "https" : "http");
  const settings = JSON.parse(row.settings) as {
    assertions?: HttpAssertions;
    request?: StoredHttpRequest;
    dns?: DnsSettings;
    push?: PushSettings;
  };
  const http = protocol === "http" || protocol === "https";
  return {
    _id: row.id,
    id: row.id,
    __v: row.version,
    url: row.url,
    protocol,
    headers: JSON.parse(row.headers),
    name: row.name,
    checkInterval: row.check_interval,
    checkIntervalMs: row.check_interval * 1000,
    parentGroup: row.parent_group,
    pause,
    notes: row.notes,
    timeout: row.timeout,
    method: row.method as Site["method"],
    successCodes: JSON.parse(row.success_codes),
    errorCodes: JSON.parse(row.error_codes),
    hasCertificateError: row.has_certificate_error === 1,
    isFrozen: row.is_frozen === 1,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    lastCheckTime: row.last_check_time,
    domainExpiration: row.domain_expiration,
    legacyStatus: row.legacy_status,
    enabled: row.enabled === 1,
    regions: JSON.parse(row.regions),
    healthSummary: row.health_summary,
    sslInfo: parseJson(row.ssl_info),
    domain: parseJson(row.domain_info),
    ...(wordpress ? { wordpress } : {}),
    slowThresholdMs: row.slow_threshold_ms,
    tags: JSON.parse(row.tags),
    assertions: http ? { ...NO_ASSERTIONS, ...settings.assertions } : null,
    request: http ? requestView(settings.request ?? REQUEST_DEFAULTS) : null,
    dns: protocol === "dns" ? { ...DNS_DEFAULTS, ...settings.dns } : null,
    push:
      protocol === "push"
        ? {
            graceSeconds: settings.push?.graceSeconds ?? PUSH_DEFAULTS.graceSeconds,
            lastCallAt: row.push_last_at,
            tokenHint:
              row.push_token_hash === null ? "" : ((settings.push as { hint?: string } | undefined)?.hint ?? ""),
          }
        : null,
    state,
    status: siteStatus(state, pause),
  };
}

/** Request settings as answers show them: whether a password is set, never the password (sealed or not). */
function requestView(stored: StoredHttpRequest): HttpRequest {
  const auth = stored.basicAuth;
  return {
    body: stored.body,
    followRedirects: stored.followRedirects,
    basicAuth: auth ? { username: auth.username, passwordSet: auth.sealedPassword !== null } : null,
  };
}

/** Milliseconds as minutes, to a tenth. */
const minutes = (ms: number) => Math.round(ms / 6000) / 10;

/** A site and its daily statistics over the longest window (90 days): what every site detail is cut from. */
export interface SiteRecord {
  workspaceId: string;
  site: Site;
  conditions: SiteDetail["conditions"];
  days: { entry: StatEntry; total: number; up: number; downtime: number }[];
  /** Detail answers by statDays and role, with their serialization, made on first use. */
  answers: Map<string, { body: SiteDetailEnvelope; json: Uint8Array<ArrayBuffer> }>;
}

type SiteDetailEnvelope = ReturnType<typeof envelope<SiteDetail>>["body"];

export async function loadSiteRecord(store: Store, id: string, now: Date): Promise<SiteRecord | null> {
  const row = await store.sites.getById(id);
  if (!row) return null;
  const stats = await store.sites.dailyStats([id], utcDayBefore(now, STAT_DAYS.max - 1));
  return {
    workspaceId: row.workspace_id,
    answers: new Map(),
    site: siteView(row),
    conditions: JSON.parse(row.conditions),
    days: stats
      .filter((s) => s.checks_total > 0)
      .map((s) => {
        const upRate = s.checks_up / s.checks_total;
        return {
          entry: {
            _id: s.id,
            site: s.site_id,
            date: s.day,
            upRate,
            downRate: 1 - upRate,
            createdAt: s.created_at,
            updatedAt: s.updated_at,
            __v: s.version,
            responseTimeMs: s.response_count > 0 ? Math.round(s.response_ms_sum / s.response_count) : null,
            checks: s.checks_total,
            downtimeMinutes: minutes(s.downtime_ms),
          },
          total: s.checks_total,
          up: s.checks_up,
          downtime: s.downtime_ms,
        };
      }),
  };
}

/** The full picture of spec 4.1: stat entries and a summary over the same statDays window counted back from now. */
export function siteDetail(record: SiteRecord, principal: Principal, statDays: number, now: Date): SiteDetail {
  const from = utcDayBefore(now, statDays - 1);
  const stat: StatEntry[] = [];
  let total = 0;
  let up = 0;
  let downtime = 0;
  for (const day of record.days) {
    if (day.entry.date < from) continue;
    total += day.total;
    up += day.up;
    downtime += day.downtime;
    stat.push(day.entry);
  }
  const uptime = total > 0 ? uptimePercent(up, total) : null;
  const role = principal.role as RoleName;
  return {
    ...record.site,
    role: { name: role, permissions: [...ROLE_PERMISSIONS[role]] },
    uptimeSummary: {
      uptimePercentage: uptime,
      downtimePercentage: uptime === null ? null : roundPercent(100 - uptime),
      totalDowntimeMinutes: minutes(downtime),
      daysCount: stat.length,
    },
    stat,
    conditions: record.conditions,
  };
}

/** The key of a site's record: the UTC day is part of it, so an answer cut from a record is right while it lives. */
export const siteRecordKey = (id: string, now: Date) => `${id}|${now.toISOString().slice(0, 10)}`;

/** The detail answer for a caller and window, cut from the record once and then kept with it. */
export function siteAnswer(record: SiteRecord, p: Principal, days: number, now: Date) {
  const key = `${days}|${p.role}`;
  let answer = record.answers.get(key);
  if (!answer) {
    const { body } = envelope(200, "Site detail", siteDetail(record, p, days, now));
    // Bytes, not a string: a string would be encoded to UTF-8 again on every write.
    answer = { body, json: new TextEncoder().encode(JSON.stringify(body)) };
    record.answers.set(key, answer);
  }
  return answer;
}
