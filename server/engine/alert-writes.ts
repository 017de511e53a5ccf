/**
 * The alerts a judgement causes, as outbox rows (pure: no store, no clock): one per event and channel, written in the
 * transaction that writes the state change (engine/record.ts), so that a state is never stored without its alerts,
 * nor an alert without its state. The sender (sender.ts) delivers them.
 */
import type { AlertEvent } from "../contract/alerts.ts";
import { duration } from "../contract/alerts.ts";
import type { AlertDelivery, AlertRoute } from "../store/alerts.ts";

/** A site's move that may alert: judged by the engine (judge.ts), from one state to another. */
export interface AlertIntent {
  siteId: string;
  type: Exclude<AlertEvent["type"], "test">;
  /**
   * The latest failure (down), the verdict's summary (degraded), the certificate's issuer or the domain's name, the
   * chronic condition's summary.
   */
  reason: string | null;
  /** When the outage began, for a recovery or a repeat: its length. */
  downSince: string | null;
  /** A certificate's or a domain's expiry (a renewal's: the new one), and the days left. */
  expiry?: { expiresAt: string; daysLeft: number } | null;
  /**
   * Flapping (site.flapping, site.flapping_ended): its outages since it began to flap, when the first began, the
   * state it holds now, and the span from the first outage to the latest change.
   */
  flapping?: { outages: number; since: string; state: "up" | "down"; spanSeconds: number };
}

const ENABLED: Record<AlertIntent["type"], keyof AlertRoute["events"]> = {
  "site.down": "down",
  "site.still_down": "down",
  "site.recovered": "recovered",
  "site.degraded": "degraded",
  "certificate.expiring": "certificate",
  "certificate.renewed": "certificate",
  "domain.expiring": "domain",
  "domain.renewed": "domain",
  "performance.chronic": "performance",
  // Flapping replaces the down and recovered alerts for a while: it is heard where "down" is.
  "site.flapping": "down",
  "site.flapping_ended": "down",
};

const days = (n: number) => `${n} day${n === 1 ? "" : "s"}`;

/** When an expiry comes, in words: "expires in 7 days (2026-12-01)", "expires today", "expired 2 days ago". */
function expiresIn(expiry: NonNullable<AlertIntent["expiry"]>): string {
  const date = expiry.expiresAt.slice(0, 10);
  if (expiry.daysLeft < 0) return `expired ${days(-expiry.daysLeft)} ago (${date})`;
  if (expiry.daysLeft === 0) return `expires today (${date})`;
  return `expires in ${days(expiry.daysLeft)} (${date})`;
}

/** The event's one line, as chat messages and e-mail subjects say it. */
function summaryOf(intent: AlertIntent, name: string, downtimeSeconds: number | null): string {
  const expiry = intent.expiry;
  switch (intent.type) {
    case "site.down":
      return `${name} is down.`;
    case "site.still_down":
      return downtimeSeconds === null
        ? `${name} is still down.`
        : `${name} is still down, for ${duration(downtimeSeconds)}.`;
    case "site.degraded":
      return `${name} is degraded.`;
    case "performance.chronic":
      return `${name} is often slow or failing: ${intent.reason ?? "see its conditions"}`;
    case "site.recovered":
      return downtimeSeconds === null
        ? `${name} is back up.`
        : `${name} is back up after ${duration(downtimeSeconds)}.`;
    case "certificate.expiring":
      return `The certificate of ${name} ${expiry ? expiresIn(expiry) : "expires soon"}.`;
    case "certificate.renewed":
      return `The certificate of ${name} was renewed${expiry ? `: it expires on ${expiry.expiresAt.slice(0, 10)}` : ""}.`;
    case "domain.expiring":
      return `The domain of ${name} ${expiry ? expiresIn(expiry) : "expires soon"}.`;
    case "domain.renewed":
      return `The domain of ${name} was renewed${expiry ? `: it expires on ${expiry.expiresAt.slice(0, 10)}` : ""}.`;
    case "site.flapping": {
      const f = intent.flapping;
      const times = f ? `${f.outages} outages in ${duration(f.spanSeconds)}` : "repeated outages";
      return `${name} is flapping: ${times}. Down and recovery alerts pause until it holds one state.`;
    }
    case "site.flapping_ended": {
      const f = intent.flapping;
      const story = f ? `: ${f.outages} outages over ${duration(f.spanSeconds)}` : "";
      return f?.state === "down"
        ? `${name} stopped flapping and is DOWN${story}.`
        : `${name} stopped flapping and is up${story}.`;
    }
  }
}

/**
 * The outbox rows of a judgement's alert intents; `newId` names each event (one id for all its channels) and each
 * delivery (an id per event and channel).
 */
export function alertWrites(
  intents: AlertIntent[],
  routes: Map<string, AlertRoute>,
  now: string,
  newId: () => string,
): AlertDelivery[] {
  const rows: AlertDelivery[] = [];
  for (const intent of intents) {
    const route = routes.get(intent.siteId);
    if (!route?.events[ENABLED[intent.type]]) continue;
    const downtimeSeconds =
      (intent.type === "site.recovered" ||
        intent.type === "site.still_down" ||
        (intent.type === "site.flapping_ended" && intent.flapping?.state === "down")) &&
      intent.downSince
        ? Math.max(0, Math.round((Date.parse(now) - Date.parse(intent.downSince)) / 1000))
        : null;
    // One id for the event, the same on every channel told of it (a receiver on two can de-duplicate by it); one
    // id per delivery, unique in the outbox.
    const id = `evt_${newId()}`;
    for (const channel of route.channels) {
      const deliveryId = `dlv_${newId()}`;
      const event: AlertEvent = {
        version: 1,
        id,
        deliveryId,
        type: intent.type,
        occurredAt: now,
        site: route.site,
        summary: summaryOf(intent, route.site.name, downtimeSeconds),
        reason: intent.type === "site.recovered" ? null : intent.reason,
        downtimeSeconds,
        expiry: intent.expiry ?? null,
        ...(intent.flapping
          ? {
              flapping: {
                outages: intent.flapping.outages,
                since: intent.flapping.since,
                state: intent.flapping.state,
              },
            }
          : {}),
      };
      rows.push({
        deliveryId,
        workspaceId: route.workspaceId,
        channelId: channel,
        siteId: intent.siteId,
        event,
        at: now,
      });
    }
  }
  return rows;
}
