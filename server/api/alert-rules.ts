/**
 * Which channels hear which events: a workspace's default rule, a site's own in its place, and the delivery log of a
 * channel or a site. Rules belong to sites and channels, never to status pages: deleting a page leaves them.
 */
import { z } from "zod";
import type { Clock } from "../clock.ts";
import {
  type AlertEvent,
  AlertRule,
  ChannelId,
  DeliveryLog,
  type DeliveryWithAttempts,
  SiteAlertRule,
} from "../contract/alerts.ts";
import { Envelope, envelope } from "../contract/common.ts";
import { SiteId } from "../contract/site.ts";
import { badRequest, notFound } from "../http/errors.ts";
import { route } from "../http/route.ts";
import type { Store } from "../store/store.ts";

export interface AlertRuleDeps {
  store: Store;
  clock: Clock;
}

const SiteParams = z.object({ siteId: SiteId });
const ChannelParams = z.object({ channelId: ChannelId });
const LogQuery = z.strictObject({
  limit: z
    .string()
    .regex(/^(100|[1-9]\d?)$/, "must be a whole number from 1 to 100")
    .transform(Number)
    .optional()
    .meta({ description: "How many of the newest deliveries (default 50)", example: "50" }),
});
export function alertRuleRoutes({ store, clock }: AlertRuleDeps) {
  /** A rule's channels must be the workspace's: 400 naming the first that is not. */
  const checkChannels = async (workspaceId: string, rule: AlertRule) => {
    if (rule.channels === "all") return;
    const own = new Set((await store.alerts.listChannels(workspaceId)).map((c) => c.id));
    const missing = rule.channels.findIndex((id) => !own.has(id));
    if (missing >= 0) {
      const field = `channels.${missing}`;
      throw badRequest(`Invalid body: ${field} is not a channel of this workspace`, [
        { field, message: "Choose a channel of this workspace." },
      ]);
    }
  };
  const loadSite = async (workspaceId: string, siteId: string) => {
    if (!(await store.sites.get(workspaceId, siteId))) throw notFound("Site");
  };
  const siteRule = async (workspaceId: string, siteId: string): Promise<SiteAlertRule> => {
    const own = await store.alerts.siteRule(siteId);
    return own ? { ...own, inherited: false } : { ...(await store.alerts.defaultRule(workspaceId)), inherited: true };
  };
  const log = async (opts: { workspaceId: string; channelId?: string; siteId?: string; limit?: number }) => {
    const rows = await store.alerts.deliveries({ ...opts, limit: opts.limit ?? 50 });
    const attempts = await store.alerts.attempts(rows.map((r) => r.id));
    return rows.map((row) => {
      const event = JSON.parse(row.event) as AlertEvent;
      return {
        id: row.id,
        eventId: event.id,
        deliveryId: row.event_id,
        type: row.type,
        channelId: row.channel_id,
        siteId: row.site_id,
        state: row.state as "pending" | "delivered" | "failed",
        attempts: attempts
          .filter((a) => a.outbox_id === row.id)
          .map((a) => ({
            at: a.at,
            ok: a.ok === 1,
            statusCode: a.status_code,
            error: a.error,
            responseTimeMs: a.response_ms,
            response: a.response,
          })),
        createdAt: row.created_at,
        nextAttemptAt: row.state === "pending" ? row.next_attempt_at : null,
        finishedAt: row.finished_at,
        lastStatus: row.last_status,
        lastError: row.last_error,
        summary: event.summary,
      };
    });
  };
  type Logged = z.input<typeof DeliveryWithAttempts>;

  return [
    route({
      method: "get",
      path: "/public/v1/alert-rules/default",
      operationId: "getDefaultAlertRule",
      summary: "The workspace's default alert rule",
      description:
        'Every site without a rule of its own follows it. Without one set: channels "all", down and recovered on, degraded off.',
      tag: "Alert channels",
      access: "token",
      permission: "alerts:read",
      response: { status: 200, description: "The rule", schema: Envelope(AlertRule) },
      errors: [401, 403],
      async handler({ principal: p }) {
        return envelope(200, "Default alert rule", await store.alerts.defaultRule(p.workspaceId));
      },
    }),
    route({
      method: "put",
      path: "/public/v1/alert-rules/default",
      operationId: "putDefaultAlertRule",
      summary: "Set the workspace's default alert rule",
      tag: "Alert channels",
      access: "token",
      permission: "alerts:write",
      body: AlertRule,
      response: { status: 200, description: "The rule", schema: Envelope(AlertRule) },
      errors: [400, 401, 403, 413, 415],
      async handler({ body, principal: p }) {
        await checkChannels(p.workspaceId, body);
        await store.alerts.putDefaultRule(p.workspaceId, body, clock.now().toISOString());
        return envelope(200, "Default alert rule set", body);
      },
    }),
    route({
      method: "get",
      path: "/public/v1/site/{siteId}/alert-rule",
      operationId: "getSiteAlertRule",
      summary: "The alert rule a site follows: its own, or the workspace's default (inherited)",
      tag: "Alert channels",
      access: "token",
      permission: "alerts:read",
      params: SiteParams,
      response: { status: 200, description: "The rule", schema: Envelope(SiteAlertRule) },
      errors: [401, 403, 404],
      async handler({ params, principal: p }) {
        await loadSite(p.workspaceId, params.siteId);
        return envelope(200, "Site alert rule", await siteRule(p.workspaceId, params.siteId));
      },
    }),
    route({
      method: "put",
      path: "/public/v1/site/{siteId}/alert-rule",
      operationId: "putSiteAlertRule",
      summary: "Give a site a rule of its own, in place of the workspace's default",
      tag: "Alert channels",
      access: "token",
      permission: "alerts:write",
      params: SiteParams,
      body: AlertRule,
      response: { status: 200, description: "The rule", schema: Envelope(SiteAlertRule) },
      errors: [400, 401, 403, 404, 413, 415],
      async handler({ params, body, principal: p }) {
        await loadSite(p.workspaceId, params.siteId);
        await checkChannels(p.workspaceId, body);
        await store.alerts.putSiteRule(params.siteId, body, clock.now().toISOString());
        return envelope(200, "Site alert rule set", { ...body, inherited: false });
      },
    }),
    route({
      method: "delete",
      path: "/public/v1/site/{siteId}/alert-rule",
      operationId: "deleteSiteAlertRule",
      summary: "Remove a site's own rule: it follows the workspace's default again",
      tag: "Alert channels",
      access: "token",
      permission: "alerts:write",
      params: SiteParams,
      response: { status: 200, description: "The rule it follows now", schema: Envelope(SiteAlertRule) },
      errors: [401, 403, 404],
      async handler({ params, principal: p }) {
        await loadSite(p.workspaceId, params.siteId);
        await store.alerts.deleteSiteRule(params.siteId);
        return envelope(200, "Site alert rule removed", await siteRule(p.workspaceId, params.siteId));
      },
    }),
    route({
      method: "get",
      path: "/public/v1/alert-channels/{channelId}/deliveries",
      operationId: "listChannelDeliveries",
      summary: "A channel's newest deliveries, with every attempt",
      tag: "Alert channels",
      access: "token",
      permission: "alerts:read",
      params: ChannelParams,
      query: LogQuery,
      response: { status: 200, description: "Newest first", schema: Envelope(DeliveryLog) },
      errors: [400, 401, 403, 404],
      async handler({ params, query, principal: p }) {
        if (!(await store.alerts.channel(p.workspaceId, params.channelId))) throw notFound("Alert channel");
        const deliveries: Logged[] = await log({ workspaceId: p.workspaceId, channelId: params.channelId, ...query });
        return envelope(200, "Deliveries", { deliveries });
      },
    }),
    route({
      method: "get",
      path: "/public/v1/site/{siteId}/alert-deliveries",
      operationId: "listSiteDeliveries",
      summary: "A site's newest alert deliveries, to every channel, with every attempt",
      tag: "Alert channels",
      access: "token",
      permission: "alerts:read",
      params: SiteParams,
      query: LogQuery,
      response: { status: 200, description: "Newest first", schema: Envelope(DeliveryLog) },
      errors: [400, 401, 403, 404],
      async handler({ params, query, principal: p }) {
        await loadSite(p.workspaceId, params.siteId);
        const deliveries: Logged[] = await log({ workspaceId: p.workspaceId, siteId: params.siteId, ...query });
        return envelope(200, "Deliveries", { deliveries });
      },
    }),
  ];
}
