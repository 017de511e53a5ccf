/**
 * The alerts a judgement causes, as outbox rows (pure: no store, no clock): one per event and channel, written in the
 * transaction that writes the state change (engine/record.ts), so that a state is never stored without its alerts,
 * nor an alert without its state. The sender (sender.ts) delivers them.
 */
import type { AlertEvent } from "../contract/alerts.ts";
import type { AlertRoute, OutboxRow } from "../store/alerts.ts";
import { duration } from "./outbound.ts";

/** A site's move that may alert: judged by the engine (judge.ts), from one state to another. */
export interface AlertIntent {
  siteId: string;
  type: "site.down" | "site.recovered" | "site.degraded";
  /** The latest failure (down), or the verdict's summary (degraded). */
  reason: string | null;
  /** When the outage began, for a recovery: its length. */
  downSince: string | null;
}

const ENABLED: Record<AlertIntent["type"], keyof AlertRoute["events"]> = {
  "site.down": "down",
  "site.recovered": "recovered",
  "site.degraded": "degraded",
};

/** The event's one line, as chat messages and e-mail subjects say it. */
function summaryOf(intent: AlertIntent, name: string, downtimeSeconds: number | null): string {
  if (intent.type === "site.down") return `${name} is down.`;
  if (intent.type === "site.degraded") return `${name} is degraded.`;
  return downtimeSeconds === null ? `${name} is back up.` : `${name} is back up after ${duration(downtimeSeconds)}.`;
}

/** The outbox rows of a judgement's alert intents; `newId` names each event (an id per event and channel). */
export function alertWrites(
  intents: AlertIntent[],
  routes: Map<string, AlertRoute>,
  now: string,
  newId: () => string,
): OutboxRow[] {
  const rows: OutboxRow[] = [];
  for (const intent of intents) {
    const route = routes.get(intent.siteId);
    if (!route?.events[ENABLED[intent.type]]) continue;
    const downtimeSeconds =
      intent.type === "site.recovered" && intent.downSince
        ? Math.max(0, Math.round((Date.parse(now) - Date.parse(intent.downSince)) / 1000))
        : null;
    for (const channel of route.channels) {
      const id = `evt_${newId()}`;
      const event: AlertEvent = {
        version: 1,
        id,
        type: intent.type,
        occurredAt: now,
        site: route.site,
        summary: summaryOf(intent, route.site.name, downtimeSeconds),
        reason: intent.type === "site.recovered" ? null : intent.reason,
        downtimeSeconds,
      };
      rows.push({
        event_id: id,
        workspace_id: route.workspaceId,
        channel_id: channel,
        site_id: intent.siteId,
        type: intent.type,
        event: JSON.stringify(event),
        state: "pending",
        attempts: 0,
        next_attempt_at: now,
        lease_owner: null,
        lease_until: null,
        created_at: now,
      });
    }
  }
  return rows;
}
