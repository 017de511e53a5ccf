import { utcDayBefore } from "../clock.ts";
import { ROLE_PERMISSIONS, type RoleName } from "../contract/account.ts";
import { envelope } from "../contract/common.ts";
import { type Site, type SiteDetail, STAT_DAYS, type StatEntry } from "../contract/site.ts";
import { roundPercent, uptimePercent } from "../contract/status.ts";
import type { Principal } from "../store/accounts.ts";
import { storedSite } from "../store/site-columns.ts";
import type { Store } from "../store/store.ts";

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
    ...storedSite(row),
    answers: new Map(),
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
