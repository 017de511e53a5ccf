import { LOOK, maskUrl, type Provider, plainText, postJson } from "../outbound.ts";

/** Slack's incoming webhooks: `text` (the notification) and one mrkdwn section (Block Kit). */
export const slack: Provider<"slack"> = {
  target: (config) => maskUrl(config.url),
  format(event, config) {
    const look = LOOK[event.type];
    // Slack's mrkdwn reads &, < and > as markup.
    const mrkdwn = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
    return postJson(config.url, {
      text: `${look.mark} ${event.summary}`,
      blocks: [
        { type: "section", text: { type: "mrkdwn", text: mrkdwn(`${look.mark} ${plainText(event)}`).slice(0, 3000) } },
      ],
    });
  },
};
