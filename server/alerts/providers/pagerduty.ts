import { type Provider, postJson } from "../outbound.ts";

const SEVERITY = {
  "site.down": "critical",
  "site.still_down": "critical",
  "site.degraded": "warning",
  "site.recovered": "info",
  "certificate.expiring": "warning",
  "certificate.renewed": "info",
  "domain.expiring": "warning",
  "domain.renewed": "info",
  "performance.chronic": "warning",
  "site.flapping": "error",
  "site.flapping_ended": "critical",
  test: "info",
} as const;

/**
 * PagerDuty's Events API v2: one alert per site under one dedup key (so a retry is the same alert): degraded triggers
 * it as a warning, down as critical (the same alert, raised), the recovery resolves it. A degraded site that turns
 * healthy again without going down sends no event, so its warning stays until resolved by hand or by a later
 * recovery. Flapping triggers the site's alert (error); its end resolves it when the site is up, and raises it as
 * critical when it is down. A test triggers an info alert of its own.
 */
export const pagerduty: Provider<"pagerduty"> = {
  target: (config) => `PagerDuty integration …${config.routingKey.slice(-4)}`,
  format(event, config, { apis }) {
    // One alert per site: degraded, down and still down update it, the recovery resolves it. An expiry is an alert
    // of its own per site, raised by each reminder, resolved by the renewal; chronic performance too, resolved by hand.
    const [scope] = event.type.split(".");
    const key =
      event.type === "test"
        ? event.id
        : scope === "site"
          ? `porchlight-${event.site.id}`
          : `porchlight-${event.site.id}-${scope}`;
    const resolves =
      event.type === "site.recovered" ||
      event.type.endsWith(".renewed") ||
      (event.type === "site.flapping_ended" && event.flapping?.state === "up");
    return postJson(apis.pagerduty, {
      routing_key: config.routingKey,
      event_action: resolves ? "resolve" : "trigger",
      dedup_key: key,
      payload: {
        summary: event.summary.slice(0, 1024),
        source: event.site.url,
        severity: SEVERITY[event.type],
        timestamp: event.occurredAt,
        component: event.site.name,
        custom_details: {
          reason: event.reason,
          downtimeSeconds: event.downtimeSeconds,
          expiry: event.expiry,
          flapping: event.flapping ?? null,
          eventId: event.id,
        },
      },
      // A link only to what a browser opens: a tcp://, dns:// or push:// address is no page.
      links: /^https?:/.test(event.site.url) ? [{ href: event.site.url, text: event.site.name }] : [],
      client: "Porchlight",
    });
  },
};
