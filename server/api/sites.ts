import { Resolver } from "node:dns/promises";
import { isIP } from "node:net";
import { z } from "zod";
import type { SecretBox } from "../accounts/sealed.ts";
import type { Clock } from "../clock.ts";
import { Envelope, envelope, PageQuery } from "../contract/common.ts";
import { misplacedSetting, PushToken, protocolOf } from "../contract/monitor.ts";
import {
  OVERVIEW_DAYS,
  OVERVIEW_HOURS,
  RecentCheck,
  SiteCreate,
  SiteCreated,
  SiteDetail,
  SiteId,
  SiteIncident,
  SiteList,
  SiteOverviewList,
  SitePatch,
  SiteTag,
  SiteTagList,
  STAT_DAYS,
  StatDays,
  TargetCheck,
  TargetCheckResult,
} from "../contract/site.ts";
import { uptimePercent } from "../contract/status.ts";
import { conflict, invalidField, notFound } from "../http/errors.ts";
import { route } from "../http/route.ts";
import { addressRefusal, PRIVATE_TARGETS_SETTING } from "../net/address-policy.ts";
import type { Principal } from "../store/accounts.ts";
import {
  keptPasswordMovesOrigin,
  newSiteRecord,
  type Seal,
  settingsColumn,
  siteColumns,
  siteView,
} from "../store/site-columns.ts";
import type { Store } from "../store/store.ts";
import type { ReadModel } from "../views/read-model.ts";
import { loadSiteRecord, type SiteRecord, siteAnswer, siteRecordKey } from "../views/site-detail.ts";
import { newPushToken, type PushInbox, pushUrl } from "./push.ts";

export interface SiteDeps {
  store: Store;
  clock: Clock;
  /** Site records by id (and UTC day, as the window moves with it), invalidated by `changed`. */
  records: ReadModel<SiteRecord>;
  /** Called after every write, so cached reads rebuild. */
  changed: () => void;
  /** PORCHLIGHT_ALLOW_PRIVATE_TARGETS: the engine checks private, loopback and link-local targets too. */
  allowPrivate?: boolean;
  /** A host's addresses (DNS); a test's own resolver in its place. */
  resolve?: (host: string) => Promise<string[]>;
  /** Where the server is reached: a push site's address is made from it. */
  publicUrl: string;
  /** The push route's memory of tokens, told when one is rotated. */
  pushInbox?: PushInbox;
  /** Seals basic-auth passwords at rest (the alert channels' box). */
  secrets: SecretBox;
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

const DetailQuery = z.object({ statDays: StatDays });

/** A list's page, and optionally only the sites carrying a tag (compared trimmed and lower-cased). */
const SiteListQuery = PageQuery.extend({
  tag: SiteTag.optional().meta({ description: "Only the sites carrying this tag (any case)", example: "production" }),
});

export function siteRoutes({
  store,
  clock,
  records,
  changed,
  allowPrivate = false,
  resolve = resolveHost,
  publicUrl,
  pushInbox,
  secrets,
}: SiteDeps) {
  const seal: Seal = (plain) => secrets.seal(plain);
  /** The caller's site detail for a window; another workspace's site is not found, exactly like a missing one. */
  const detail = async (p: Principal, id: string, days: number) => {
    const now = clock.now();
    const record = await records.get(siteRecordKey(id, now), () => loadSiteRecord(store, id, now));
    if (!record || record.workspaceId !== p.workspaceId) throw notFound("Site");
    return siteAnswer(record, p, days, now);
  };

  return [
    route({
      method: "post",
      path: "/public/v1/sites/target-check",
      operationId: "checkSiteTarget",
      summary: "Whether the server would check a target, or refuse it by its address policy",
      description:
        'For the add and edit forms, before saving: a target whose address is private, loopback or link-local is refused by the server (its checks are "not checked": no uptime, no alert, no incident) unless the operator sets PORCHLIGHT_ALLOW_PRIVATE_TARGETS=true. The host is resolved as the engine resolves it; a host that does not resolve is allowed (its checks will say so).',
      tag: "Sites",
      access: "token",
      permission: "sites:write",
      body: TargetCheck,
      response: { status: 200, description: "The server's answer", schema: Envelope(TargetCheckResult) },
      errors: [400, 401, 403, 413, 415],
      async handler({ body }) {
        return envelope(200, "Target checked", await targetCheck(body.url, allowPrivate, resolve));
      },
    }),
    route({
      method: "get",
      path: "/public/v1/sites",
      operationId: "listSites",
      summary: "List the workspace's sites, newest first",
      description: "With tag, only the sites carrying that tag (any case).",
      tag: "Sites",
      access: "token",
      permission: "sites:read",
      query: SiteListQuery,
      response: {
        status: 200,
        description: "A page of sites",
        schema: Envelope(SiteList),
        // The dashboard's pages screen polls it: a 304 while nothing changed.
        headers: ["ETag", "PollCacheControl", "PollVary"],
      },
      errors: [400, 401, 403],
      async handler({ query, principal: p }) {
        const page = query.page ?? 1;
        const perPage = query.perPage ?? 10;
        const { rows, total } = await store.sites.list(p.workspaceId, (page - 1) * perPage, perPage, query.tag);
        return envelope(200, "Sites", {
          sites: rows.map(siteView),
          pagination: { page, perPage, total, totalPages: Math.ceil(total / perPage) },
        });
      },
    }),
    route({
      method: "get",
      path: "/public/v1/sites/tags",
      operationId: "listSiteTags",
      summary: "The tags on the workspace's sites, with how many sites carry each",
      description: "Sorted by tag, for a filter; a tag no site carries any more is not listed.",
      tag: "Sites",
      access: "token",
      permission: "sites:read",
      response: {
        status: 200,
        description: "The tags",
        schema: Envelope(SiteTagList),
      },
      errors: [401, 403],
      async handler({ principal: p }) {
        return envelope(200, "Site tags", { tags: await store.sites.tagCounts(p.workspaceId) });
      },
    }),
    route({
      method: "get",
      path: "/public/v1/sites/overview",
      operationId: "listSiteOverviews",
      summary: "The workspace's sites with 30 days of uptime and response times, newest first",
      description:
        "The dashboard's site list in one request: each site of the page with its uptime over the last 30 UTC days and each day's uptime and mean response time, and the last 24 hours' hourly mean response time (for a sparkline on a site's first day). With tag, only the sites carrying that tag (any case). Send If-None-Match with the last ETag to poll cheaply: 304 until something changed.",
      tag: "Sites",
      access: "token",
      permission: "sites:read",
      query: SiteListQuery,
      response: {
        status: 200,
        description: "A page of sites with their recent history",
        schema: Envelope(SiteOverviewList),
        headers: ["ETag", "PollCacheControl", "PollVary"],
      },
      errors: [400, 401, 403],
      async handler({ query, principal: p }) {
        const page = query.page ?? 1;
        const perPage = query.perPage ?? 10;
        const { rows, total } = await store.sites.list(p.workspaceId, (page - 1) * perPage, perPage, query.tag);
        const today = clock.now();
        const days = Array.from({ length: OVERVIEW_DAYS }, (_, i) =>
          new Date(today.getTime() - (OVERVIEW_DAYS - 1 - i) * 86_400_000).toISOString().slice(0, 10),
        );
        const ids = rows.map((r) => r.id);
        const stats = await store.sites.dailyStats(ids, days[0] as string);
        // From the start of the hour 23 hours back: 24 whole buckets, the current one included.
        const hourStart = Math.floor(today.getTime() / 3_600_000) * 3_600_000;
        const since = new Date(hourStart - (OVERVIEW_HOURS - 1) * 3_600_000).toISOString();
        const hours = await store.checks.hourlyResponse(ids, since);
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
            const recent = hours
              .filter((h) => h.siteId === row.id)
              .map((h) => ({ at: `${h.hour}:00:00.000Z`, responseMs: h.responseMs }));
            return {
              site: siteView(row),
              uptime: total > 0 ? uptimePercent(up, total) : null,
              days: history,
              recent,
            };
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
            found: r.found,
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
      response: {
        status: 201,
        description: "The new site; a push site's answer also holds its secret address (pushUrl), shown this once",
        schema: Envelope(SiteCreated),
      },
      errors: [400, 401, 403, 413, 415],
      async handler({ body, principal: p }) {
        const now = clock.now().toISOString();
        const push = protocolOf(body.url) === "push" ? newPushToken() : null;
        const row = newSiteRecord(p.workspaceId, body, now, undefined, push ?? undefined, seal);
        await store.sites.insert(row);
        changed();
        const { body: created } = await detail(p, row.id, STAT_DAYS.default);
        return envelope(201, "Site created", {
          ...created.data,
          ...(push ? { pushUrl: pushUrl(publicUrl, push.token) } : {}),
        });
      },
    }),
    route({
      method: "get",
      path: "/public/v1/site/{siteId}",
      operationId: "getSite",
      summary: "The full monitoring picture of one site",
      description:
        "stat holds one entry per day with data in the last statDays days; uptimeSummary covers the same window. A site of another workspace answers 404 like a missing one. Send If-None-Match with the last ETag to poll cheaply: 304 until something changed.",
      tag: "Sites",
      access: "token",
      permission: "sites:read",
      params: SiteParams,
      query: DetailQuery,
      response: {
        status: 200,
        description: "Site detail",
        schema: Envelope(SiteDetail),
        headers: ["ETag", "PollCacheControl", "PollVary"],
      },
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
          throw invalidField(
            "timeout",
            `The timeout (${timeout} s) must not be longer than the check interval (${interval} s).`,
          );
        }
        const url = body.url ?? current.url;
        const wasPush = protocolOf(current.url) === "push";
        if (wasPush !== (protocolOf(url) === "push")) {
          throw invalidField(
            "url",
            wasPush
              ? "A push site stays a push site: add a new site for another kind of check."
              : "A site becomes a push site only when added: add a new site with the address push://.",
          );
        }
        const misplaced = misplacedSetting(url, body);
        if (misplaced) throw invalidField(misplaced.field, misplaced.message);
        if (keptPasswordMovesOrigin(current.url, current.settings, url, body.request)) {
          throw invalidField(
            "request.basicAuth.password",
            "Enter the basic-auth password again: the address now names another site, and a stored password goes only to the address it was given for.",
          );
        }
        const kindChanged = body.url !== undefined || body.assertions || body.request || body.dns || body.push;
        const settings = kindChanged ? { settings: settingsColumn(url, body, current.settings, undefined, seal) } : {};
        const row = await store.sites.update(
          p.workspaceId,
          params.siteId,
          { ...siteColumns(body), ...settings },
          clock.now().toISOString(),
        );
        if (!row) throw notFound("Site");
        changed();
        const { body: updated } = await detail(p, row.id, STAT_DAYS.default);
        return envelope(200, "Site updated", updated.data);
      },
    }),
    route({
      method: "post",
      path: "/public/v1/site/{siteId}/push-token",
      operationId: "rotatePushToken",
      summary: "Give a push site a new secret address",
      description:
        "The old address stops working at once and the new one is in this answer only. Silence is counted from now, so the job has its period and grace to call the new address. 409 for a site that is not a push site.",
      tag: "Sites",
      access: "token",
      permission: "sites:write",
      params: SiteParams,
      response: { status: 200, description: "The new address, shown this once", schema: Envelope(PushToken) },
      errors: [401, 403, 404, 409],
      async handler({ params, principal: p }) {
        const current = await store.sites.get(p.workspaceId, params.siteId);
        if (!current) throw notFound("Site");
        if (protocolOf(current.url) !== "push") {
          throw conflict("url", "is not push://: only a push site has a push address.");
        }
        const push = newPushToken();
        const now = clock.now().toISOString();
        const row = await store.sites.update(
          p.workspaceId,
          params.siteId,
          {
            push_token_hash: push.hash,
            push_since: now,
            push_last_at: null,
            push_last_status: null,
            push_last_message: null,
            push_last_ms: null,
            settings: settingsColumn(current.url, {}, current.settings, push.hint),
          },
          now,
        );
        if (!row) throw notFound("Site");
        if (current.push_token_hash) pushInbox?.forget(current.push_token_hash);
        changed();
        return envelope(200, "Push address replaced", { pushUrl: pushUrl(publicUrl, push.token), token: push.token });
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

/**
 * A host's addresses for the form's question: by DNS (c-ares, off libuv's thread pool, which the engine's lookups
 * and password hashing share) within two seconds, so a host whose name servers never answer holds nothing; the
 * names the system resolves itself (localhost) are loopback.
 */
const resolver = new Resolver({ timeout: 2000, tries: 1 });
async function resolveHost(host: string): Promise<string[]> {
  if (host === "localhost" || host.endsWith(".localhost")) return ["127.0.0.1"];
  const answers = await Promise.allSettled([resolver.resolve4(host), resolver.resolve6(host)]);
  return answers.flatMap((a) => (a.status === "fulfilled" ? a.value : []));
}

/** Whether the engine would check `url` (its first address, as http-check.ts connects), or refuse it, and why. */
async function targetCheck(
  url: string,
  allowPrivate: boolean,
  resolve: (host: string) => Promise<string[]>,
): Promise<TargetCheckResult> {
  const allowed = { allowed: true, reason: null, setting: null };
  if (allowPrivate) return allowed;
  const host = new URL(url).hostname.replace(/^\[|\]$/g, "");
  if (host === "") return allowed;
  let address: string | undefined;
  try {
    address = isIP(host) ? host : (await resolve(host))[0];
  } catch {
    return allowed;
  }
  const refusal = address === undefined ? null : addressRefusal(address, { allowPrivate: false });
  if (refusal === null) return allowed;
  return {
    allowed: false,
    // The range, never the address: the answer is no map of the operator's network.
    reason: `${host} is not a public address (${refusal.replace(/, not a public address$/, "")}): this server checks private, loopback and link-local targets only with ${PRIVATE_TARGETS_SETTING}=true`,
    setting: PRIVATE_TARGETS_SETTING,
  };
}
