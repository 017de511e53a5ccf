/**
 * The e-mails a page's subscribers receive: the double opt-in confirmation, and an incident's notice. Pure functions
 * from data to `{ subject, text, html, headers }`; everything the owner wrote (page name, title, message, labels) is
 * escaped here, in one place. No images, no tracking, no remote resources: inline styles, the page's accent colour
 * when it is a plain hex colour. Every notice carries RFC 8058 one-click unsubscribe and a link to choose services;
 * one incident's notices thread together (Message-ID, In-Reply-To, References).
 */
import { CONFIRM_HOURS } from "../contract/subscribers.ts";
import { escapeHtml as e } from "../html.ts";
import type { NoticeContent } from "../store/subscribers.ts";

export interface NoticeEmail {
  subject: string;
  text: string;
  html: string;
  headers: Record<string, string>;
}

/** The links a message carries, made by the sender from the subscriber's tokens. */
export interface SubscriberLinks {
  pageUrl: string;
  manageUrl: string;
  unsubscribeUrl: string;
}

const WORDS: Record<string, string> = {
  investigating: "investigating",
  identified: "identified",
  monitoring: "monitoring",
  resolved: "resolved",
  major_outage: "major outage",
  partial_outage: "partial outage",
  degraded: "degraded performance",
  maintenance: "under maintenance",
  operational: "operational",
};
const word = (key: string) => WORDS[key] ?? key.replace(/_/g, " ");
/** What the impact says when no service is named with a status. */
const IMPACT_STATUS: Record<string, string> = {
  critical: "major_outage",
  major: "partial_outage",
  minor: "degraded",
};
const SEVERITY = ["major_outage", "partial_outage", "degraded", "maintenance", "operational"];

/** The worst status the notice's services are in, or what its impact says; undefined for none. */
function worstStatus(content: NoticeContent): string | undefined {
  const named = content.affected.map((a) => a.status).filter((s) => s !== "operational");
  named.sort((a, b) => SEVERITY.indexOf(a) - SEVERITY.indexOf(b));
  return named[0] ?? IMPACT_STATUS[content.incident.impact];
}

/** A colour the e-mail may use: a hex colour, else the default blue (nothing else reaches a style attribute). */
const accentOf = (color: string | null) => (color && /^#[0-9a-fA-F]{3,8}$/.test(color) ? color : "#0b57d0");

/** A subject on one line, at most 200 characters (a title may hold anything). */
const oneLine = (text: string) => {
  const flat = text.replace(/[\r\n\t]+/g, " ").trim();
  return flat.length > 200 ? `${flat.slice(0, 199)}…` : flat;
};

function layout(o: {
  title: string;
  accent: string;
  body: string[];
  action?: { label: string; url: string };
  footer: string[];
}): string {
  return [
    '<!doctype html><html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="color-scheme" content="light dark">',
    `<title>${e(o.title)}</title></head>`,
    '<body style="margin:0;padding:24px;background:#f6f7f9;font:16px/1.5 system-ui,sans-serif;color:#1f2328;">',
    `<div style="max-width:560px;margin:0 auto;background:#ffffff;border-radius:8px;padding:24px;border-top:4px solid ${o.accent};">`,
    ...o.body,
    o.action
      ? `<p style="margin:24px 0;"><a href="${e(o.action.url)}" style="display:inline-block;padding:12px 20px;border-radius:6px;background:${o.accent};color:#ffffff;text-decoration:none;font-weight:600;">${e(o.action.label)}</a></p>`
      : "",
    `<div style="margin-top:24px;padding-top:16px;border-top:1px solid #d0d7de;font-size:13px;color:#57606a;">${o.footer.join("<br>")}</div>`,
    "</div></body></html>",
  ].join("");
}

/** The confirmation of a sign-up: nothing else is sent until its button is pressed. */
export function confirmationEmail(o: {
  pageName: string;
  accentColor: string | null;
  pageUrl: string;
  confirmUrl: string;
}): NoticeEmail {
  const subject = oneLine(`[${o.pageName}] Confirm your subscription`);
  const text = [
    `Someone, probably you, asked to be told by e-mail when ${o.pageName} reports an incident.`,
    "",
    `Confirm within ${CONFIRM_HOURS} hours:`,
    o.confirmUrl,
    "",
    "If it was not you, ignore this message: nothing more will be sent.",
    "",
    `Status page: ${o.pageUrl}`,
  ].join("\n");
  const html = layout({
    title: subject,
    accent: accentOf(o.accentColor),
    body: [
      `<h1 style="font-size:20px;margin:0 0 16px;">Confirm your subscription to ${e(o.pageName)}</h1>`,
      `<p style="margin:0 0 16px;">Someone, probably you, asked to be told by e-mail when ${e(o.pageName)} reports an incident. The link works for ${CONFIRM_HOURS} hours.</p>`,
    ],
    action: { label: "Confirm the subscription", url: o.confirmUrl },
    footer: [
      "If it was not you, ignore this message: nothing more will be sent.",
      `<a href="${e(o.pageUrl)}" style="color:#57606a;">${e(o.pageUrl)}</a>`,
    ],
  });
  return { subject, text, html, headers: { "Auto-Submitted": "auto-generated" } };
}

/**
 * An incident's notice: "[Acme Status] Checkout is slow: partial outage — investigating", the update's words, the
 * services affected, a link to the page; one-click unsubscribe and manage links. `thread` names the incident's
 * first message for this subscriber (its Message-ID, when this one is it).
 */
export function noticeEmail(
  content: NoticeContent,
  links: SubscriberLinks,
  ids: { messageId: string; thread: string; eventId: string; listId: string },
): NoticeEmail {
  const { page, incident, update } = content;
  const worst = worstStatus(content);
  const state = content.event === "resolved" ? "resolved" : `${worst ? `${word(worst)} — ` : ""}${word(update.status)}`;
  const subject = oneLine(`[${page.name}] ${incident.title}: ${state}`);
  const affected = content.affected.map((a) => `${a.label}: ${word(a.status)}`);
  const when = new Date(update.at).toUTCString();
  const text = [
    incident.title,
    `${word(update.status)[0]?.toUpperCase()}${word(update.status).slice(1)} — ${when}`,
    "",
    update.message,
    ...(affected.length > 0 ? ["", "Affected services:", ...affected.map((a) => `- ${a}`)] : []),
    "",
    `Status page: ${links.pageUrl}`,
    "",
    "-- ",
    `You receive this because you subscribed to ${page.name}.`,
    `Choose services: ${links.manageUrl}`,
    `Unsubscribe: ${links.unsubscribeUrl}`,
  ].join("\n");
  const accent = accentOf(page.accentColor);
  const html = layout({
    title: subject,
    accent,
    body: [
      `<p style="margin:0 0 4px;font-size:14px;color:#57606a;">${e(page.name)}</p>`,
      `<h1 style="font-size:20px;margin:0 0 8px;">${e(incident.title)}</h1>`,
      `<p style="margin:0 0 16px;font-weight:600;">${e(word(update.status))} <span style="font-weight:400;color:#57606a;">· ${e(when)}</span></p>`,
      ...update.message
        .split(/\n{2,}/)
        .map((para) => `<p style="margin:0 0 16px;white-space:pre-line;">${e(para)}</p>`),
      affected.length > 0
        ? `<p style="margin:16px 0 4px;font-weight:600;">Affected services</p><ul style="margin:0 0 16px;padding-left:20px;">${affected.map((a) => `<li>${e(a)}</li>`).join("")}</ul>`
        : "",
    ],
    action: { label: "View the status page", url: links.pageUrl },
    footer: [
      `You receive this because you subscribed to ${e(page.name)}.`,
      `<a href="${e(links.manageUrl)}" style="color:#57606a;">Choose services</a> · <a href="${e(links.unsubscribeUrl)}" style="color:#57606a;">Unsubscribe</a>`,
    ],
  });
  const threaded: Record<string, string> =
    ids.thread === ids.messageId ? {} : { "In-Reply-To": ids.thread, References: ids.thread };
  return {
    subject,
    text,
    html,
    headers: {
      "Message-ID": ids.messageId,
      ...threaded,
      "List-Id": ids.listId,
      "List-Unsubscribe": `<${links.unsubscribeUrl}>`,
      "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
      "Auto-Submitted": "auto-generated",
      "X-Porchlight-Event-Id": ids.eventId,
    },
  };
}
