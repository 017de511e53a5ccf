/**
 * What a page's URL subscribers are posted: a notice (an incident's or a maintenance occurrence's) or the test
 * message that confirms the subscription, as a signed webhook (JSON, version 1) or a Slack, Discord or Microsoft
 * Teams message. Pure functions from data to the request. No message can mention anyone: Slack's markup (<!channel>,
 * <@U…>) is escaped in everything the owner wrote, Discord parses no mention, and a Teams card has no mention entity;
 * the owner's markdown otherwise reads as markdown in Discord and Teams, as it would on the page.
 */
import type { HookKind } from "../contract/subscribers.ts";
import type { NoticeContent, NoticePage } from "../store/subscribers.ts";
import { noticeWords, type SubscriberLinks } from "./notice-emails.ts";
import { ENGLISH, type NoticeWords } from "./notice-words.ts";
import { type Outbound, postJson } from "./outbound.ts";
import { webhookSignature } from "./providers/webhook.ts";

/** A URL subscription's sealed settings. */
export interface HookSettings {
  url: string;
  signingSecret: string;
}

/** What one delivery tells. */
export type HookMessage =
  | { kind: "notice"; eventId: string; content: NoticeContent }
  | { kind: "test"; eventId: string; page: NoticePage };

/** The webhook's event types: `incident.published`, …, `maintenance.ended`, `subscription.test`. */
const EVENT_TYPES: Record<NoticeContent["event"], string> = {
  published: "incident.published",
  updated: "incident.updated",
  resolved: "incident.resolved",
  maintenance_scheduled: "maintenance.scheduled",
  maintenance_started: "maintenance.started",
  maintenance_ended: "maintenance.ended",
};

/** A colour per event, as the page's banner would show it. */
function colourOf(message: HookMessage): string {
  if (message.kind === "test") return "#2563eb";
  const { content } = message;
  if (content.event === "resolved" || content.event === "maintenance_ended") return "#1a7f37";
  if (content.kind === "maintenance") return "#2563eb";
  return content.incident.impact === "critical" ? "#c4232d" : "#8a5300";
}

/** The JSON a webhook receives (version 1), the same for every receiver. */
export function webhookBody(
  message: HookMessage,
  links: SubscriberLinks,
  signingSecret?: string,
  w: NoticeWords = ENGLISH,
) {
  const page = message.kind === "test" ? message.page : message.content.page;
  const base = {
    version: 1,
    id: message.eventId,
    type: message.kind === "test" ? "subscription.test" : EVENT_TYPES[message.content.event],
    page: { name: page.name, url: links.pageUrl },
    links: { page: links.pageUrl, manage: links.manageUrl, unsubscribe: links.unsubscribeUrl },
  };
  if (message.kind === "test") {
    return { ...base, summary: w.testWorks(page.name), ...(signingSecret ? { signingSecret } : {}) };
  }
  const { content } = message;
  const affected = content.affected.map((a) => ({ name: a.label, status: a.status }));
  if (content.kind === "incident") {
    return {
      ...base,
      summary: noticeWords(content, w).headline,
      incident: {
        id: content.incident.id,
        title: content.incident.title,
        impact: content.incident.impact,
        status: content.incident.status,
        startedAt: content.incident.startedAt,
        update: content.update,
      },
      affected,
    };
  }
  return {
    ...base,
    summary: noticeWords(content, w).headline,
    maintenance: {
      id: content.window.id,
      title: content.window.title,
      description: content.window.description,
      startsAt: content.startsAt,
      endsAt: content.endsAt,
      recurring: content.window.recurring,
    },
    affected,
  };
}

/** Slack's mrkdwn reads &, < and > as markup. */
const mrkdwn = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** The message's words: a headline and the lines under it. */
function wordsOf(message: HookMessage, w: NoticeWords): { title: string; lines: string[] } {
  if (message.kind === "test")
    return { title: `${message.page.name}: ${w.subscribed}`, lines: [w.testWorks(message.page.name)] };
  const words = noticeWords(message.content, w);
  return { title: `${message.content.page.name}: ${words.headline}`, lines: [words.when, "", ...words.lines] };
}

/**
 * The request that tells `message` to a `kind` subscriber at `settings.url`, sent at `sentAt` (epoch ms). A
 * webhook's is signed as the alert webhooks are (X-Porchlight-Signature over `<timestamp>.<body>`) with the
 * subscription's own secret, which its test message carries.
 */
export function hookRequest(
  kind: HookKind,
  message: HookMessage,
  settings: HookSettings,
  links: SubscriberLinks,
  deliveryId: string,
  sentAt: number,
  w: NoticeWords = ENGLISH,
): Outbound {
  const { title, lines } = wordsOf(message, w);
  const text = lines
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
  switch (kind) {
    case "webhook": {
      const body = JSON.stringify(
        webhookBody(message, links, message.kind === "test" ? settings.signingSecret : undefined, w),
      );
      const timestamp = String(Math.floor(sentAt / 1000));
      return {
        kind: "http",
        url: settings.url,
        headers: {
          "content-type": "application/json",
          "x-porchlight-event": message.kind === "test" ? "subscription.test" : EVENT_TYPES[message.content.event],
          "x-porchlight-event-id": message.eventId,
          "x-porchlight-delivery-id": deliveryId,
          "x-porchlight-timestamp": timestamp,
          "x-porchlight-signature": webhookSignature(settings.signingSecret, timestamp, body),
        },
        body,
      };
    }
    case "slack":
      return postJson(settings.url, {
        // The notification's own text too: Slack reads <!channel> there as well.
        text: mrkdwn(title),
        blocks: [
          {
            type: "section",
            text: { type: "mrkdwn", text: `*<${links.pageUrl}|${mrkdwn(title)}>*\n${mrkdwn(text)}`.slice(0, 3000) },
          },
          {
            type: "context",
            elements: [
              {
                type: "mrkdwn",
                text: `<${links.manageUrl}|${mrkdwn(w.chooseServices)}> · <${links.unsubscribeUrl}|${mrkdwn(w.unsubscribe)}>`,
              },
            ],
          },
        ],
      });
    case "discord":
      return postJson(settings.url, {
        allowed_mentions: { parse: [] },
        embeds: [
          {
            title: title.slice(0, 256),
            url: links.pageUrl,
            // At most 4,096 characters: the owner's words give way to the links.
            description: `${text.slice(0, 3000)}\n\n[${w.chooseServices}](${links.manageUrl}) · [${w.unsubscribe}](${links.unsubscribeUrl})`,
            color: Number.parseInt(colourOf(message).slice(1), 16),
          },
        ],
      });
    case "teams":
      return postJson(settings.url, {
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
                { type: "TextBlock", text: title, weight: "Bolder", size: "Medium", wrap: true },
                { type: "TextBlock", text, wrap: true },
              ],
              actions: [
                { type: "Action.OpenUrl", title: w.viewPage, url: links.pageUrl },
                { type: "Action.OpenUrl", title: w.chooseServices, url: links.manageUrl },
                { type: "Action.OpenUrl", title: w.unsubscribe, url: links.unsubscribeUrl },
              ],
            },
          },
        ],
      });
  }
}
