import type { Insertable } from "kysely";
import { z } from "zod";
import type { Clock } from "../clock.ts";
import { Envelope, envelope, PageQuery, Pagination, Timestamp } from "../contract/common.ts";
import { Site, SiteCreate, SiteDetail, SiteId, SitePatch, STAT_DAYS, StatDays } from "../contract/site.ts";
import { uptimePercent } from "../contract/status.ts";
import { NOT_CHECKED_SUMMARY } from "../engine/verdict.ts";
import { invalidField, notFound } from "../http/errors.ts";
import { route } from "../http/route.ts";
import type { Principal } from "../store/accounts.ts";
import { newId } from "../store/connection.ts";
import type { Database, SiteRow } from "../store/schema.ts";
import type { Store } from "../store/store.ts";
import type { ReadModel } from "../views/read-model.ts";
import { loadSiteRecord, type SiteRecord, siteAnswer, siteRecordKey, siteView } from "../views/site-detail.ts";

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

/** The most raw results one answer holds: a day of 30-second checks from one region is 2,880. */
export const MAX_RECENT_CHECKS = 3000;

const RecentQuery = z.strictObject({
  hours: z
    .string()
    .regex(/^[1-9]\d{0,2}$/, "must be a whole number of hours from 1")
    .transform(Number)
    .pipe(z.int().max(168, "must be at most 168"))
    .optional()
    .meta({
      description: "Hours back from now, 1 to 168 (default 24); results older than the retention are gone",
      example: "24",
    }),
});

export const RecentCheck = z
  .object({
    at: Timestamp,
    region: z.string(),
    ok: z.boolean(),
    slow: z.boolean(),
    statusCode: z.int().nullable(),
    responseMs: z.int().nullable(),
    error: z.string().nullable(),
  })
  .meta({ id: "RecentCheck" });

export const SiteIncident = z
  .object({
    id: z.int(),
    pageId: z.int(),
    pageName: z.string(),
    title: z.string(),
    status: z.enum(["investigating", "identified", "monitoring", "resolved"]),
    automatic: z.boolean().meta({ description: "Opened by the engine (true) or by a member" }),
    startedAt: Timestamp,
    resolvedAt: Timestamp.nullable(),
  })
  .meta({ id: "SiteIncident" });

/** Days of history in the overview: the dashboard's uptime column and sparkline. */
export const OVERVIEW_DAYS = 30;

const OverviewDay = z.object({
  day: z.string().meta({ description: "UTC day, YYYY-MM-DD" }),
  uptime: z.number().nullable().meta({ description: "Percent of checks up that day; null without checks" }),
  responseMs: z.int().nullable().meta({ description: "Mean response time that day; null without a response" }),
});

export const SiteOverview = z
  .object({
    site: Site,
    uptime: z.number().nullable().meta({ description: "Percent of checks up over the 30 days; null without checks" }),
    days: z.array(OverviewDay).meta({ description: "The last 30 UTC days, oldest first, today included" }),
  })
  .meta({ id: "SiteOverview" });
const DetailQuery = z.object({ statDays: StatDays });

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
      async handler({ query, principal: p }) {
        const page = query.page ?? 1;
        const perPage = query.perPage ?? 10;
        const { rows, total } = await store.sites.list(p.workspaceId, (page - 1) * perPage, perPage);
        return envelope(200, "Sites", {
          sites: rows.map(siteView),
          pagination: { page, perPage, total, totalPages: Math.ceil(total / perPage) },
        });
      },
    }),
    route({
      method: "get",
      path: "/public/v1/sites/overview",
      operationId: "listSiteOverviews",
      summary: "The workspace's sites with 30 days of uptime and response times, newest first",
      description:
        "The dashboard's site list in one request: each site of the page with its uptime over the last 30 UTC days and each day's uptime and mean response time (for a sparkline). Send If-None-Match with the last ETag to poll cheaply: 304 until something changed.",
      tag: "Sites",
      access: "token",
      permission: "sites:read",
      query: PageQuery,
      response: {
        status: 200,
        description: "A page of sites with their recent history",
        schema: Envelope(z.object({ sites: z.array(SiteOverview), pagination: Pagination })),
        headers: ["ETag"],
      },
      errors: [400, 401, 403],
      async handler({ query, principal: p }) {
        const page = query.page ?? 1;
        const perPage = query.perPage ?? 10;
        const { rows, total } = await store.sites.list(p.workspaceId, (page - 1) * perPage, perPage);
        const today = clock.now();
        const days = Array.from({ length: OVERVIEW_DAYS }, (_, i) =>
          new Date(today.getTime() - (OVERVIEW_DAYS - 1 - i) * 86_400_000).toISOString().slice(0, 10),
        );
        const stats = await store.sites.dailyStats(
          rows.map((r) => r.id),
          days[0] as string,
        );
        return envelope(200, "Sites", {
          sites: rows.map((row) => {
            const mine = new Map(stats.filter((s) => s.site_id === row.id).map((s) => [s.day, s]));
            let up = 0;
            let total = 0;
            const history = days.map((day) => {
              const s = mine.get(day);
              if (!s || s.checks_total === 0) return { day, uptime: null, responseMs: null };
              up += s.checks_up;
              total += s.checks_total;
              return {
                day,
                uptime: uptimePercent(s.checks_up, s.checks_total),
                responseMs: s.response_count > 0 ? Math.round(s.response_ms_sum / s.response_count) : null,
              };
            });
            return { site: siteView(row), uptime: total > 0 ? uptimePercent(up, total) : null, days: history };
          }),
          pagination: { page, perPage, total, totalPages: Math.ceil(total / perPage) },
        });
      },
    }),
    route({
      method: "get",
      path: "/public/v1/site/{siteId}/checks",
      operationId: "listRecentChecks",
      summary: "A site's recent checks, newest first",
      description: `The raw results of the last hours (default 24), with response times and errors, at most ${MAX_RECENT_CHECKS}. Raw results are kept PORCHLIGHT_RESULT_RETENTION_HOURS (default 48); longer spans are in the site's daily statistics.`,
      tag: "Sites",
      access: "token",
      permission: "sites:read",
      params: SiteParams,
      query: RecentQuery,
      response: { status: 200, description: "Recent checks", schema: Envelope(z.array(RecentCheck)) },
      errors: [400, 401, 403, 404],
      async handler({ params, query, principal: p }) {
        const site = await store.sites.get(p.workspaceId, params.siteId);
        if (!site) throw notFound("Site");
        const since = new Date(clock.now().getTime() - (query.hours ?? 24) * 3_600_000).toISOString();
        const rows = await store.checks.recentResults(site.id, since, MAX_RECENT_CHECKS);
        return envelope(
          200,
          "Recent checks",
          rows.map((r) => ({
            at: r.at,
            region: r.region,
            ok: r.ok === 1,
            slow: r.slow === 1,
            statusCode: r.status_code,
            responseMs: r.response_ms,
            error: r.error,
          })),
        );
      },
    }),
    route({
      method: "get",
      path: "/public/v1/site/{siteId}/incidents",
      operationId: "listSiteIncidents",
      summary: "A site's incidents on the workspace's pages, newest first",
      description:
        "The automatic incidents about the site and those a member opened naming one of its items, on every page of the workspace, at most 50. An incident on two pages is listed once per page.",
      tag: "Sites",
      access: "token",
      permission: "sites:read",
      params: SiteParams,
      response: { status: 200, description: "Incidents", schema: Envelope(z.array(SiteIncident)) },
      errors: [401, 403, 404],
      async handler({ params, principal: p }) {
        const site = await store.sites.get(p.workspaceId, params.siteId);
        if (!site) throw notFound("Site");
        const rows = await store.incidents.forSite(p.workspaceId, site.id, 50);
        return envelope(
          200,
          "Incidents",
          rows.map((r) => ({
            id: r.id,
            pageId: r.page_id,
            pageName: r.page_name,
            title: r.title,
            status: r.status as "investigating",
            automatic: r.source === "automatic",
            startedAt: r.started_at,
            resolvedAt: r.resolved_at,
          })),
        );
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
      async handler({ body, principal: p }) {
        const now = clock.now().toISOString();
        const row = newSiteRow(p.workspaceId, body, now);
        await store.sites.insert(row);
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
        return { status: 200, ...(await detail(principal, params.siteId, query.statDays)) };
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
      async handler({ params, body, principal: p }) {
        const current = await store.sites.get(p.workspaceId, params.siteId);
        if (!current) throw notFound("Site");
        const timeout = body.timeout ?? current.timeout;
        const interval = body.checkInterval ?? current.check_interval;
        if (timeout > interval) {
          throw invalidField("timeout", `(${timeout} s) must not exceed checkInterval (${interval} s)`);
        }
        const row = await store.sites.update(
          p.workspaceId,
          params.siteId,
          siteColumns(body),
          clock.now().toISOString(),
        );
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
      async handler({ params, principal: p }) {
        if (!(await store.sites.delete(p.workspaceId, params.siteId, clock.now().toISOString())))
          throw notFound("Site");
        changed();
        return envelope(200, "Site deleted", { id: params.siteId });
      },
    }),
  ];
}
