import { type Provider, postJson } from "../outbound.ts";

const SEVERITY = {
  "site.down": "critical",
  "site.degraded": "warning",
  "site.recovered": "info",
  test: "info",
} as const;

/**
 * PagerDuty's Events API v2: a site going down triggers an alert and its recovery resolves it, under one dedup key
 * per site (so a retry, or a second region's word, is the same alert); a degraded site triggers a warning under its
 * own key. A test triggers an info alert of its own.
 */
export const pagerduty: Provider<"pagerduty"> = {
  target: (config) => `PagerDuty integration …${config.routingKey.slice(-4)}`,
  format(event, config, { apis }) {
    const key =
      event.type === "test"
        ? event.id
        : `porchlight-${event.site.id}-${event.type === "site.degraded" ? "degraded" : "down"}`;
    return postJson(apis.pagerduty, {
      routing_key: config.routingKey,
      event_action: event.type === "site.recovered" ? "resolve" : "trigger",
      dedup_key: key,
      payload: {
        summary: event.summary.slice(0, 1024),
        source: event.site.url,
        severity: SEVERITY[event.type],
        timestamp: event.occurredAt,
        component: event.site.name,
        custom_details: { reason: event.reason, downtimeSeconds: event.downtimeSeconds, eventId: event.id },
      },
      links: [{ href: event.site.url, text: event.site.name }],
      client: "Porchlight",
    });
  },
};
