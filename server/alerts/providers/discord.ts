import { LOOK, maskUrl, type Provider, postJson } from "../outbound.ts";

/** Discord's channel webhooks: one embed in the event's colour; no mention is ever parsed. */
export const discord: Provider<"discord"> = {
  target: (config) => maskUrl(config.url),
  format(event, config) {
    const look = LOOK[event.type];
    return postJson(config.url, {
      username: "Porchlight",
      allowed_mentions: { parse: [] },
      embeds: [
        {
          title: `${look.mark} ${event.summary}`.slice(0, 256),
          description: [event.reason && `Reason: ${event.reason}`, `${event.site.name}: ${event.site.url}`]
            .filter(Boolean)
            .join("\n")
            .slice(0, 4096),
          color: Number.parseInt(look.colour.slice(1), 16),
          timestamp: event.occurredAt,
        },
      ],
    });
  },
};
