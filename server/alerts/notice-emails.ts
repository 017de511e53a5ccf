/**
 * The e-mails a page's subscribers receive: the double opt-in confirmation, and an incident's notice. Pure functions
 * from data to `{ subject, text, html, headers }`; everything the owner wrote (page name, title, message, labels) is
 * escaped here, in one place. No images, no tracking, no remote resources: inline styles, the page's accent colour
 * when it is a plain hex colour. Every notice carries RFC 8058 one-click unsubscribe and a link to choose services;
 * one incident's notices thread together (Message-ID, In-Reply-To, References).
 */
import { CONFIRM_HOURS } from "../contract/subscribers.ts";
import { escapeHtml as e } from "../html.ts";
import type { IncidentNoticeContent, MaintenanceNoticeContent, NoticeContent } from "../store/subscribers.ts";
import { ENGLISH, type NoticeWords } from "./notice-words.ts";

export interface NoticeEmail {
  subject: string;
  text: string;
  html: string;
  headers: Record<string, string>;
  /** Who it is from, in the inbox: the page's name (the address stays PORCHLIGHT_MAIL_FROM's). */
  fromName: string;
}

/** The links a message carries, made by the sender from the subscriber's tokens. */
export interface SubscriberLinks {
  pageUrl: string;
  manageUrl: string;
  unsubscribeUrl: string;
}

/** A status in the message's language. */
const word = (w: NoticeWords, key: string) => w.statuses[key] ?? key.replace(/_/g, " ");
/** What the impact says when no service is named with a status. */
const IMPACT_STATUS: Record<string, string> = {
  critical: "major_outage",
  major: "partial_outage",
  minor: "degraded",
};
const SEVERITY = ["major_outage", "partial_outage", "degraded", "maintenance", "operational"];

/** The worst status the notice's services are in, or what its impact says; undefined for none. */
function worstStatus(content: IncidentNoticeContent): string | undefined {
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
  words: NoticeWords;
  title: string;
  accent: string;
  body: string[];
  action?: { label: string; url: string };
  footer: string[];
}): string {
  return [
    `<!doctype html><html lang="${o.words.lang}" dir="${o.words.dir}"><head><meta charset="utf-8">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="color-scheme" content="light dark">',
    `<title>${e(o.title)}</title></head>`,
    '<body style="margin:0;padding:24px;background:#f6f7f9;font:16px/1.5 system-ui,sans-serif;color:#1f2328;">',
    // dir again on the content: some mail readers drop the html element's attributes.
    `<div dir="${o.words.dir}" style="max-width:560px;margin:0 auto;background:#ffffff;border-radius:8px;padding:24px;border-top:4px solid ${o.accent};">`,
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
  words?: NoticeWords;
}): NoticeEmail {
  const w = o.words ?? ENGLISH;
  const subject = oneLine(w.confirmSubject(o.pageName));
  const text = [
    w.confirmAsked(o.pageName),
    "",
    w.confirmWithin(CONFIRM_HOURS),
    o.confirmUrl,
    "",
    w.confirmIgnore,
    "",
    `${w.statusPage}: ${o.pageUrl}`,
  ].join("\n");
  const html = layout({
    words: w,
    title: subject,
    accent: accentOf(o.accentColor),
    body: [
      `<h1 style="font-size:20px;margin:0 0 16px;">${e(w.confirmHeading(o.pageName))}</h1>`,
      `<p style="margin:0 0 16px;">${e(w.confirmAsked(o.pageName))} ${e(w.linkWorks(CONFIRM_HOURS))}</p>`,
    ],
    action: { label: w.confirmButton, url: o.confirmUrl },
    footer: [e(w.confirmIgnore), `<a href="${e(o.pageUrl)}" style="color:#57606a;">${e(o.pageUrl)}</a>`],
  });
  return { subject, text, html, headers: { "Auto-Submitted": "auto-generated" }, fromName: o.pageName };
}

/** A time as messages read it, in UTC whatever the server's zone and Node's ICU: "Tue, 8 Dec 2026, 02:00 UTC". */
export function mailTime(at: string, w: NoticeWords = ENGLISH): string {
  const d = new Date(at);
  const hm = `${String(d.getUTCHours()).padStart(2, "0")}:${String(d.getUTCMinutes()).padStart(2, "0")}`;
  return w.time({ day: d.getUTCDay(), date: d.getUTCDate(), month: d.getUTCMonth(), year: d.getUTCFullYear(), hm });
}

/** A span of time: the end's clock only when it ends on the same day. */
function mailSpan(from: string, to: string, w: NoticeWords): string {
  const a = mailTime(from, w);
  const b = mailTime(to, w);
  const sameDay = from.slice(0, 10) === to.slice(0, 10);
  return `${a.replace(/ UTC$/, "")} – ${sameDay ? b.slice(b.lastIndexOf(", ") + 2) : b}`;
}

type Ids = { messageId: string; thread: string; eventId: string; listId: string };

/** What every notice ends with: why it came, the links to choose services and to unsubscribe. */
function footers(pageName: string, links: SubscriberLinks, w: NoticeWords) {
  return {
    text: [
      "-- ",
      w.youReceive(pageName),
      `${w.chooseServices}: ${links.manageUrl}`,
      `${w.unsubscribe}: ${links.unsubscribeUrl}`,
    ],
    html: [
      e(w.youReceive(pageName)),
      `<a href="${e(links.manageUrl)}" style="color:#57606a;">${e(w.chooseServices)}</a> · <a href="${e(links.unsubscribeUrl)}" style="color:#57606a;">${e(w.unsubscribe)}</a>`,
    ],
  };
}

/** A notice's headers: its place in its thread, the list it belongs to and RFC 8058 one-click unsubscribe. */
function noticeHeaders(ids: Ids, links: SubscriberLinks): Record<string, string> {
  const threaded: Record<string, string> =
    ids.thread === ids.messageId ? {} : { "In-Reply-To": ids.thread, References: ids.thread };
  return {
    "Message-ID": ids.messageId,
    ...threaded,
    "List-Id": ids.listId,
    "List-Unsubscribe": `<${links.unsubscribeUrl}>`,
    "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
    "Auto-Submitted": "auto-generated",
    "X-Porchlight-Event-Id": ids.eventId,
  };
}

/** The owner's paragraphs, each in its own direction (an English message in a Hebrew e-mail reads left to right). */
const paragraphs = (text: string) =>
  text
    .split(/\n{2,}/)
    .filter((para) => para.trim() !== "")
    .map((para) => `<p dir="auto" style="margin:0 0 16px;white-space:pre-line;">${e(para)}</p>`);

const servicesList = (title: string, lines: string[]) =>
  lines.length > 0
    ? `<p style="margin:16px 0 4px;font-weight:600;">${e(title)}</p><ul style="margin:0 0 16px;padding-inline-start:20px;">${lines.map((a) => `<li dir="auto">${e(a)}</li>`).join("")}</ul>`
    : "";

/** A notice in words: its headline ("Checkout is slow: partial outage — investigating") and its lines of text. */
export function noticeWords(
  content: NoticeContent,
  w: NoticeWords = ENGLISH,
): { headline: string; when: string; lines: string[] } {
  if (content.kind === "incident") {
    const { incident, update } = content;
    const worst = worstStatus(content);
    const state =
      content.event === "resolved"
        ? word(w, "resolved")
        : `${worst ? `${word(w, worst)} — ` : ""}${word(w, update.status)}`;
    const affected = content.affected.map((a) => `${a.label}: ${word(w, a.status)}`);
    return {
      headline: `${incident.title}: ${state}`,
      when: `${capital(word(w, update.status))} — ${mailTime(update.at, w)}`,
      lines: [
        update.message,
        ...(affected.length > 0 ? ["", `${w.affectedServices}:`, ...affected.map((a) => `- ${a}`)] : []),
      ],
    };
  }
  const { window } = content;
  const state = {
    maintenance_scheduled: w.maintenanceScheduledFor(mailTime(content.startsAt, w)),
    maintenance_started: w.maintenanceInProgress,
    maintenance_ended: w.maintenanceCompleted,
  }[content.event];
  const services = content.affected.map((a) => a.label);
  return {
    headline: `${window.title}: ${state}`,
    when: {
      maintenance_scheduled: w.scheduledSpan(mailSpan(content.startsAt, content.endsAt, w)),
      maintenance_started: w.inProgressUntil(mailTime(content.endsAt, w)),
      maintenance_ended: w.completedAt(mailTime(content.endsAt, w)),
    }[content.event],
    lines: [
      ...(window.description.trim() ? [window.description] : []),
      ...(content.event === "maintenance_scheduled" && window.recurring ? ["", w.repeats] : []),
      ...(services.length > 0 ? ["", `${w.servicesUnderMaintenance}:`, ...services.map((a) => `- ${a}`)] : []),
    ],
  };
}

/** A notice: an incident's or a maintenance occurrence's, in the page's language (English unless told). */
export function noticeEmail(
  content: NoticeContent,
  links: SubscriberLinks,
  ids: Ids,
  words: NoticeWords = ENGLISH,
): NoticeEmail {
  return content.kind === "incident"
    ? incidentEmail(content, links, ids, words)
    : maintenanceEmail(content, links, ids, words);
}

/**
 * An incident's notice: "[Acme Status] Checkout is slow: partial outage — investigating", the update's words, the
 * services affected, a link to the page; one-click unsubscribe and manage links. `thread` names the incident's
 * first message for this subscriber (its Message-ID, when this one is it).
 */
function incidentEmail(content: IncidentNoticeContent, links: SubscriberLinks, ids: Ids, w: NoticeWords): NoticeEmail {
  const { page, incident, update } = content;
  const words = noticeWords(content, w);
  const subject = oneLine(`[${page.name}] ${words.headline}`);
  const affected = content.affected.map((a) => `${a.label}: ${word(w, a.status)}`);
  const footer = footers(page.name, links, w);
  const text = [
    incident.title,
    words.when,
    "",
    ...words.lines,
    "",
    `${w.statusPage}: ${links.pageUrl}`,
    "",
    ...footer.text,
  ].join("\n");
  const html = layout({
    words: w,
    title: subject,
    accent: accentOf(page.accentColor),
    body: [
      `<p style="margin:0 0 4px;font-size:14px;color:#57606a;">${e(page.name)}</p>`,
      `<h1 dir="auto" style="font-size:20px;margin:0 0 8px;">${e(incident.title)}</h1>`,
      `<p style="margin:0 0 16px;font-weight:600;">${e(capital(word(w, update.status)))} <span style="font-weight:400;color:#57606a;">· ${e(mailTime(update.at, w))}</span></p>`,
      ...paragraphs(update.message),
      servicesList(w.affectedServices, affected),
    ],
    action: { label: w.viewPage, url: links.pageUrl },
    footer: footer.html,
  });
  return { subject, text, html, headers: noticeHeaders(ids, links), fromName: page.name };
}

const capital = (text: string) => `${text[0]?.toUpperCase() ?? ""}${text.slice(1)}`;

/**
 * A maintenance occurrence's notice: "[Acme Status] Database upgrade: maintenance scheduled for Tue, 8 Dec 2026,
 * 02:00 UTC", then "…: maintenance in progress" and "…: maintenance completed", threaded together.
 */
function maintenanceEmail(
  content: MaintenanceNoticeContent,
  links: SubscriberLinks,
  ids: Ids,
  w: NoticeWords,
): NoticeEmail {
  const { page, window } = content;
  const words = noticeWords(content, w);
  const subject = oneLine(`[${page.name}] ${words.headline}`);
  const footer = footers(page.name, links, w);
  const text = [
    window.title,
    words.when,
    "",
    ...words.lines,
    "",
    `${w.statusPage}: ${links.pageUrl}`,
    "",
    ...footer.text,
  ]
    .join("\n")
    .replace(/\n{3,}/g, "\n\n");
  const html = layout({
    words: w,
    title: subject,
    accent: accentOf(page.accentColor),
    body: [
      `<p style="margin:0 0 4px;font-size:14px;color:#57606a;">${e(page.name)}</p>`,
      `<h1 dir="auto" style="font-size:20px;margin:0 0 8px;">${e(window.title)}</h1>`,
      `<p style="margin:0 0 16px;font-weight:600;">${e(words.when)}</p>`,
      ...paragraphs(window.description),
      ...(content.event === "maintenance_scheduled" && window.recurring
        ? [`<p style="margin:0 0 16px;color:#57606a;">${e(w.repeats)}</p>`]
        : []),
      servicesList(
        w.servicesUnderMaintenance,
        content.affected.map((a) => a.label),
      ),
    ],
    action: { label: w.viewPage, url: links.pageUrl },
    footer: footer.html,
  });
  return { subject, text, html, headers: noticeHeaders(ids, links), fromName: page.name };
}
