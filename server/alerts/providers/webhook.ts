import { createHmac } from "node:crypto";
import type { AlertEvent } from "../../contract/alerts.ts";
import { maskUrl, type Provider } from "../outbound.ts";

/**
 * The signature of a webhook's body: HMAC-SHA256 with the channel's secret over `<timestamp>.<body>` (the timestamp
 * as X-Porchlight-Timestamp sends it: when this attempt was sent, in Unix seconds), hex, as `v1=<hex>`. A receiver computes the same and compares
 * in constant time, and refuses an old timestamp (a replay).
 */
export function webhookSignature(secret: string, timestamp: string, body: string): string {
  return `v1=${createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex")}`;
}

/** The generic webhook: the event itself (AlertEvent, version 1) as the JSON body, signed. */
export const webhook: Provider<"webhook"> = {
  target: (config) => maskUrl(config.url),
  format(event: AlertEvent, config, _context, sentAt) {
    const body = JSON.stringify(event);
    // When it is sent, not when it happened: a receiver refuses old timestamps (replays), and a retry is a new send.
    const timestamp = String(Math.floor(sentAt / 1000));
    return {
      kind: "http",
      url: config.url,
      headers: {
        "content-type": "application/json",
        "x-porchlight-event": event.type,
        "x-porchlight-event-id": event.id,
        "x-porchlight-delivery-id": event.deliveryId ?? event.id,
        "x-porchlight-timestamp": timestamp,
        "x-porchlight-signature": webhookSignature(config.secret ?? "", timestamp, body),
      },
      body,
    };
  },
};
