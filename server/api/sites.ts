import type { Insertable } from "kysely";
import { z } from "zod";
import { ROLE_PERMISSIONS, type RoleName } from "../contract/account.ts";
import { Envelope, PageQuery, Pagination } from "../contract/common.ts";
import {
  Site,
  SiteCreate,
  SiteDetail,
  SiteId,
  SitePatch,
  type SiteState,
  STAT_DAYS,
  StatDays,
  type StatEntry,
} from "../contract/site.ts";
import { NOT_CHECKED_SUMMARY, siteStatus } from "../engine/verdict.ts";
import type { Database } from "../store/schema.ts";
import { newId, type Principal, type SiteRow, type Store } from "../store/store.ts";
import { invalidField, notFound } from "./errors.ts";
import type { ReadModel } from "./read-model.ts";
import { envelope, route } from "./route.ts";
import { type Clock, utcDayBefore } from "./time.ts";

const parseJson = <T>(text: string | null): T | null => (text === null ? null : (JSON.parse(text) as T));

/** A stored site as the API shows it. */
export function siteView(row: SiteRow): Site {
  const pause = row.pause === 1;
  const state = row.state as SiteState;
  const wordpress = parseJson<{ value: boolean; manualOverride: boolean }>(row.wordpress);
  return {
    _id: row.id,
    id: row.id,
    __v: row.version,
    url: row.url,
    protocol: row.url.startsWith("https:") ? "https" : "http",
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
    state,
    status: siteStatus(state, pause),
  };
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;
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
  const row = await store.getSiteById(id);
  if (!row) return null;
  const stats = await store.dailyStats([id], utcDayBefore(now, STAT_DAYS.max - 1));
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
  const uptime = total > 0 ? round3((up / total) * 100) : null;
  const role = principal.role as RoleName;
  return {
    ...record.site,
    role: { name: role, permissions: [...ROLE_PERMISSIONS[role]] },
    uptimeSummary: {
      uptimePercentage: uptime,
      downtimePercentage: uptime === null ? null : round3(100 - uptime),
      totalDowntimeMinutes: minutes(downtime),
      daysCount: stat.length,
    },
    stat,
    conditions: record.conditions,
  };
}

/** Column values for a site's writable fields. */
type WritableColumns = Pick<
  SiteRow,
  | "url"
  | "name"
  | "method"
  | "headers"
  | "check_interval"
  | "timeout"
  | "parent_group"
  | "pause"
  | "notes"
  | "success_codes"
  | "error_codes"
  | "enabled"
  | "regions"
  | "slow_threshold_ms"
  | "wordpress"
>;

function siteColumns(input: Partial<SiteCreate> & Pick<SitePatch, "wordpress">): Partial<WritableColumns> {
  const out: Partial<WritableColumns> = {};
  if (input.url !== undefined) out.url = input.url;
  if (input.name !== undefined) out.name = input.name;
  if (input.method !== undefined) out.method = input.method;
  if (input.headers !== undefined) out.headers = JSON.stringify(input.headers);
  if (input.checkInterval !== undefined) out.check_interval = input.checkInterval;
  if (input.timeout !== undefined) out.timeout = input.timeout;
  if (input.parentGroup !== undefined) out.parent_group = input.parentGroup;
  if (input.pause !== undefined) out.pause = input.pause ? 1 : 0;
  if (input.notes !== undefined) out.notes = input.notes;
  if (input.successCodes !== undefined) out.success_codes = JSON.stringify(input.successCodes);
  if (input.errorCodes !== undefined) out.error_codes = JSON.stringify(input.errorCodes);
  if (input.enabled !== undefined) out.enabled = input.enabled ? 1 : 0;
  if (input.regions !== undefined) out.regions = JSON.stringify([...new Set(input.regions)]);
  if (input.slowThresholdMs !== undefined) out.slow_threshold_ms = input.slowThresholdMs;
  if (input.wordpress !== undefined) out.wordpress = JSON.stringify(input.wordpress);
  return out;
}

/** A new site's row: its writable fields as given, everything the engine computes not known yet. */
export function newSiteRow(workspaceId: string, input: SiteCreate, now: string, id = newId()) {
  return {
    id,
    workspace_id: workspaceId,
    version: 0,
    ...(siteColumns(input) as WritableColumns),
    has_certificate_error: 0,
    is_frozen: 0,
    legacy_status: input.pause ? "paused" : "active",
    state: "unknown",
    health_summary: NOT_CHECKED_SUMMARY,
    last_check_time: null,
    last_response_ms: null,
    ssl_info: null,
    domain_info: null,
    domain_expiration: null,
    wordpress: null,
    created_at: now,
    updated_at: now,
    judged_at: null,
    rejudge_at: null,
    conditions_at: null,
    domain_checked_at: null,
  } satisfies Insertable<Database["sites"]>;
}

export interface SiteDeps {
  store: Store;
  clock: Clock;
  /** Site records by id (and UTC day, as the window moves with it), invalidated by `changed`. */
  records: ReadModel<SiteRecord>;
  /** Called after every write, so cached reads rebuild. */
  changed: () => void;
}

const SiteParams = z.object({ siteId: SiteId });
const DetailQuery = z.object({ statDays: StatDays });

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

export function siteRoutes({ store, clock, records, changed }: SiteDeps) {
  /** The caller's site detail for a window; another workspace's site is not found, exactly like a missing one. */
  const detail = async (p: Principal, id: string, days: number) => {
    const now = clock.now();
    const record = await records.get(siteRecordKey(id, now), () => loadSiteRecord(store, id, now));
    if (!record || record.workspaceId !== p.workspaceId) throw notFound("Site");
    return siteAnswer(record, p, days, now);
  };

  return [
    route({
      method: "get",
      path: "/public/v1/sites",
      operationId: "listSites",
      summary: "List the workspace's sites, newest first",
      tag: "Sites",
      access: "token",
      permission: "sites:read",
      query: PageQuery,
      response: {
        status: 200,
        description: "A page of sites",
        schema: Envelope(z.object({ sites: z.array(Site), pagination: Pagination })),
      },
      errors: [400, 401, 403],
      async handler({ query, principal }) {
        const page = query.page ?? 1;
        const perPage = query.perPage ?? 10;
        const p = principal as Principal;
        const { rows, total } = await store.listSites(p.workspaceId, (page - 1) * perPage, perPage);
        return envelope(200, "Sites", {
          sites: rows.map(siteView),
          pagination: { page, perPage, total, totalPages: Math.ceil(total / perPage) },
        });
      },
    }),
    route({
      method: "post",
      path: "/public/v1/sites",
      operationId: "createSite",
      summary: "Add a site to monitor",
      description: "Only url and name are required; every other writable field has a default.",
      tag: "Sites",
      access: "token",
      permission: "sites:write",
      body: SiteCreate,
      response: { status: 201, description: "The new site", schema: Envelope(SiteDetail) },
      errors: [400, 401, 403, 413, 415],
      async handler({ body, principal }) {
        const p = principal as Principal;
        const now = clock.now().toISOString();
        const row = newSiteRow(p.workspaceId, body, now);
        await store.insertSite(row);
        changed();
        const { body: created } = await detail(p, row.id, STAT_DAYS.default);
        return envelope(201, "Site created", created.data);
      },
    }),
    route({
      method: "get",
      path: "/public/v1/site/{siteId}",
      operationId: "getSite",
      summary: "The full monitoring picture of one site",
      description:
        "stat holds one entry per day with data in the last statDays days; uptimeSummary covers the same window. A site of another workspace answers 404 like a missing one.",
      tag: "Sites",
      access: "token",
      permission: "sites:read",
      params: SiteParams,
      query: DetailQuery,
      response: { status: 200, description: "Site detail", schema: Envelope(SiteDetail) },
      errors: [400, 401, 403, 404],
      async handler({ params, query, principal }) {
        return { status: 200, ...(await detail(principal as Principal, params.siteId, query.statDays)) };
      },
    }),
    route({
      method: "patch",
      path: "/public/v1/site/{siteId}",
      operationId: "updateSite",
      summary: "Change any writable field of a site, pause included",
      tag: "Sites",
      access: "token",
      permission: "sites:write",
      params: SiteParams,
      body: SitePatch,
      response: { status: 200, description: "The updated site", schema: Envelope(SiteDetail) },
      errors: [400, 401, 403, 404, 413, 415],
      async handler({ params, body, principal }) {
        const p = principal as Principal;
        const current = await store.getSite(p.workspaceId, params.siteId);
        if (!current) throw notFound("Site");
        const timeout = body.timeout ?? current.timeout;
        const interval = body.checkInterval ?? current.check_interval;
        if (timeout > interval) {
          throw invalidField("timeout", `(${timeout} s) must not exceed checkInterval (${interval} s)`);
        }
        const row = await store.updateSite(p.workspaceId, params.siteId, siteColumns(body), clock.now().toISOString());
        if (!row) throw notFound("Site");
        changed();
        const { body: updated } = await detail(p, row.id, STAT_DAYS.default);
        return envelope(200, "Site updated", updated.data);
      },
    }),
    route({
      method: "delete",
      path: "/public/v1/site/{siteId}",
      operationId: "deleteSite",
      summary: "Stop monitoring a site and delete its data",
      description: "Removes the site, its statistics and its items on every status page.",
      tag: "Sites",
      access: "token",
      permission: "sites:write",
      params: SiteParams,
      response: { status: 200, description: "Deleted", schema: Envelope(z.object({ id: SiteId })) },
      errors: [401, 403, 404],
      async handler({ params, principal }) {
        const p = principal as Principal;
        if (!(await store.deleteSite(p.workspaceId, params.siteId, clock.now().toISOString()))) throw notFound("Site");
        changed();
        return envelope(200, "Site deleted", { id: params.siteId });
      },
    }),
  ];
}
