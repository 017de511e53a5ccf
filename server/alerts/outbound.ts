/**
 * What a channel sends for an event: an HTTP request or an e-mail, as plain data (providers/ make them, deliver.ts
 * sends them), and the words every provider shares.
 */
import { type AlertEvent, type ChannelConfig, type ChannelType, duration } from "../contract/alerts.ts";

export type Outbound =
  | { kind: "http"; url: string; headers: Record<string, string>; body: string }
  | { kind: "email"; to: string[]; subject: string; text: string; html: string; headers: Record<string, string> };

/** Where providers with a fixed service post (configurable for a self-hosted server, or a test's receiver). */
export interface ProviderContext {
  apis: { telegram: string; pagerduty: string };
}

/** One provider: its masked target and its format; adding a provider is a module like these and a test. */
export interface Provider<T extends ChannelType> {
  /** What answers show of the settings: never a credential whole. */
  target(config: ChannelConfig[T]): string;
  /** The request (or e-mail) that tells the event, sent at `sentAt` (epoch ms; a retry's is later than the event). */
  format(event: AlertEvent, config: ChannelConfig[T], context: ProviderContext, sentAt: number): Outbound;
}

/** Each event type's mark, colour (the status page's) and word. */
export const LOOK: Record<AlertEvent["type"], { mark: string; colour: string; word: string }> = {
  "site.down": { mark: "🔴", colour: "#c4232d", word: "Down" },
  "site.still_down": { mark: "🔴", colour: "#c4232d", word: "Still down" },
  "site.recovered": { mark: "✅", colour: "#1a7f37", word: "Recovered" },
  "site.degraded": { mark: "🟠", colour: "#8a5300", word: "Degraded" },
  "certificate.expiring": { mark: "🔒", colour: "#8a5300", word: "Certificate expiring" },
  "certificate.renewed": { mark: "🔒", colour: "#1a7f37", word: "Certificate renewed" },
  "domain.expiring": { mark: "🌐", colour: "#8a5300", word: "Domain expiring" },
  "domain.renewed": { mark: "🌐", colour: "#1a7f37", word: "Domain renewed" },
  "performance.chronic": { mark: "🐢", colour: "#8a5300", word: "Chronic performance" },
  "site.flapping": { mark: "🔁", colour: "#8a5300", word: "Flapping" },
  "site.flapping_ended": { mark: "🔁", colour: "#2563eb", word: "Flapping ended" },
  test: { mark: "🔔", colour: "#2563eb", word: "Test" },
};

/**
 * The event in a few lines of plain text: its summary, then the reason, then the site. The outage's length is in
 * the summary of a recovery and a still-down alert, so only a flapping that ended down says it on a line of its own.
 */
export function plainText(event: AlertEvent): string {
  return [
    event.summary,
    event.reason ? `Reason: ${event.reason}` : null,
    event.type === "site.flapping_ended" && event.downtimeSeconds !== null
      ? `Down for ${duration(event.downtimeSeconds)}.`
      : null,
    event.flapping
      ? `Outages while flapping: ${event.flapping.outages} since ${event.flapping.since}; now ${event.flapping.state}.`
      : null,
    `${event.site.name}: ${event.site.url}`,
    `At ${event.occurredAt}`,
  ]
    .filter((line) => line !== null)
    .join("\n");
}

/** An address as answers show it: its origin, and "/…" for a path, which often holds the credential. */
export function maskUrl(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname === "/" && !parsed.search ? "" : "/…"}`;
}

/** A JSON request: the common case. */
export const postJson = (url: string, body: unknown, headers: Record<string, string> = {}): Outbound => ({
  kind: "http",
  url,
  headers: { "content-type": "application/json", ...headers },
  body: JSON.stringify(body),
});
