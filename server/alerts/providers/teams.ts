import { LOOK, maskUrl, type Provider, postJson } from "../outbound.ts";

/** Microsoft Teams (a Workflows webhook, or a legacy incoming webhook): a message with one Adaptive Card. */
export const teams: Provider<"teams"> = {
  target: (config) => maskUrl(config.url),
  format(event, config) {
    const look = LOOK[event.type];
    const facts = [
      { title: "Site", value: `${event.site.name} (${event.site.url})` },
      ...(event.reason ? [{ title: "Reason", value: event.reason }] : []),
      { title: "At", value: event.occurredAt },
    ];
    return postJson(config.url, {
      type: "message",
      attachments: [
        {
          contentType: "application/vnd.microsoft.card.adaptive",
          contentUrl: null,
          content: {
            $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
            type: "AdaptiveCard",
            version: "1.4",
            body: [
              {
                type: "TextBlock",
                text: `${look.mark} ${event.summary}`,
                weight: "Bolder",
                size: "Medium",
                wrap: true,
              },
              { type: "FactSet", facts },
            ],
          },
        },
      ],
    });
  },
};
