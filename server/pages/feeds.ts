import type { PublicMaintenance } from "../contract/maintenance.ts";
import type { Incident, IncidentStatus, PublicStatusPage } from "../contract/status-page.ts";

/** What both feeds are made from. */
export interface FeedInput {
  page: PublicStatusPage;
  /** Absolute URL of the page, e.g. https://status.example.com/acme/ */
  pageUrl: string;
  /** Absolute URLs of the two feeds themselves (for rel="self"). */
  rssUrl: string;
  atomUrl: string;
  /** When the data was read; used as the feed's updated/lastBuildDate when there are no incidents. */
  generatedAt: Date;
  /** The Atom feed's id when it is not the page's (a service's feed). */
  feedId?: string;
}

/** One service's feeds (`items`, by item id), or one component group's (`groups`, by group id). */
export interface FeedScope {
  kind: "items" | "groups";
  id: number;
}

/**
 * The feeds of the page at pageUrl (which ends in "/"): they sit beside it as feed.xml and atom.xml. With a `scope`,
 * one service's feeds (items/<id>/feed.xml and atom.xml) or one group's (groups/<id>/…): the incidents that affect
 * it (a group: any of its members) and the maintenance that covers it, titled with its name; undefined when the page
 * shows no such item or group.
 */
export function feedInput(page: PublicStatusPage, pageUrl: string, generatedAt: Date): FeedInput;
export function feedInput(
  page: PublicStatusPage,
  pageUrl: string,
  generatedAt: Date,
  scope: FeedScope,
): FeedInput | undefined;
export function feedInput(
  page: PublicStatusPage,
  pageUrl: string,
  generatedAt: Date,
  scope?: FeedScope,
): FeedInput | undefined {
  if (scope === undefined) {
    return { page, pageUrl, rssUrl: `${pageUrl}feed.xml`, atomUrl: `${pageUrl}atom.xml`, generatedAt };
  }
  const one =
    scope.kind === "items"
      ? page.items.find((i) => i.id === scope.id)
      : (page.groups ?? []).find((g) => g.id === scope.id);
  if (!one) return undefined;
  const ids = new Set("items" in one ? one.items : [one.id]);
  const here = `${pageUrl}${scope.kind}/${scope.id}/`;
  return {
    page: {
      ...page,
      name: `${page.name}: ${"label" in one ? one.label : one.name}`,
      // An older server's page (the static build reads any) may name no affected items: then none are known.
      incidents: page.incidents.filter((i) => (i.affected ?? []).some((a) => ids.has(a.id))),
      maintenance: (page.maintenance ?? []).filter((w) => (w.items ?? []).some((id) => ids.has(id))),
    },
    pageUrl,
    feedId: here,
    rssUrl: `${here}feed.xml`,
    atomUrl: `${here}atom.xml`,
    generatedAt,
  };
}

/** Feed readers keep what they have seen; more than this many entries only makes the document heavier. */
const MAX_ENTRIES = 50;

const XML_DECLARATION = '<?xml version="1.0" encoding="utf-8"?>';
const ATOM_NS = "http://www.w3.org/2005/Atom";

const STATUS_WORDS: Record<IncidentStatus, string> = {
  investigating: "Investigating",
  identified: "Identified",
  monitoring: "Monitoring",
  resolved: "Resolved",
};

/**
 * Everything outside XML 1.0's Char production: C0 controls other than tab, line feed and carriage return,
 * U+FFFE, U+FFFF and (with the u flag, each a code point of its own) lone surrogates.
 */
const NOT_XML_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" };

/** A character that escapeXml changes: most strings have none, and are returned as they are without a copy. */
const CHANGED = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]|[&<>"']/u;

/** Any string as XML character data, safe in text and in quoted attribute values alike. */
function escapeXml(text: string): string {
  if (!CHANGED.test(text)) return text;
  return text.replace(NOT_XML_CHAR, "").replace(/[&<>"']/g, (ch) => ESCAPES[ch] ?? ch);
}

/** One element whose attribute values and text are escaped; without text it closes itself. */
function element(name: string, attributes: Record<string, string>, text?: string): string {
  const attrs = Object.entries(attributes)
    .map(([key, value]) => ` ${key}="${escapeXml(value)}"`)
    .join("");
  return text === undefined ? `<${name}${attrs}/>` : `<${name}${attrs}>${escapeXml(text)}</${name}>`;
}

function entryTitle(incident: Incident): string {
  return `${incident.title} (${STATUS_WORDS[incident.status]})`;
}

function entryLink(pageUrl: string, incident: Incident): string {
  return `${pageUrl}#incident-${incident.id}`;
}

/** The updates, newest first, one plain-text line each. */
function timeline(incident: Incident): string {
  return incident.updates.map((u) => `${u.timestamp} ${STATUS_WORDS[u.status]}: ${u.message}`).join("\n");
}

/** A maintenance window's entry title: under way or scheduled. */
function maintenanceTitle(w: PublicMaintenance): string {
  return `Maintenance: ${w.title} (${w.active ? "in progress" : "scheduled"})`;
}

/** When it runs (UTC), then what it says. */
function maintenanceText(w: PublicMaintenance): string {
  return [`From ${w.startsAt} until ${w.endsAt}`, w.description].filter(Boolean).join("\n");
}

/** The incident's latest change: its newest update, else its resolution, else its start. */
function incidentUpdated(incident: Incident): Date {
  const times = [incident.started_at, incident.resolved_at, ...incident.updates.map((u) => u.timestamp)];
  return new Date(Math.max(...times.flatMap((t) => (t === null ? [] : [Date.parse(t)]))));
}

/** The latest change among the incidents, or generatedAt when there are none. */
function feedUpdated(incidents: Incident[], generatedAt: Date): Date {
  if (incidents.length === 0) return generatedAt;
  return new Date(Math.max(...incidents.map((i) => incidentUpdated(i).getTime())));
}

function channelDescription(page: PublicStatusPage): string {
  return page.description.trim() === "" ? `Incidents of ${page.name}` : page.description;
}

/**
 * The page's incidents as an RSS 2.0 document, newest first and at most 50 items. Each item's guid is
 * `<slug>-incident-<id>` and its description is the update timeline as plain text, one line per update.
 */
export function rssFeed({ page, pageUrl, rssUrl, generatedAt }: FeedInput): string {
  const incidents = page.incidents.slice(0, MAX_ENTRIES);
  const items = [
    ...(page.maintenance ?? []).flatMap((w) => [
      "    <item>",
      `      ${element("title", {}, maintenanceTitle(w))}`,
      `      ${element("link", {}, `${pageUrl}#maintenance-${w.id}`)}`,
      `      ${element("guid", { isPermaLink: "false" }, `${page.slug}-maintenance-${w.id}-${w.startsAt}`)}`,
      `      ${element("pubDate", {}, new Date(w.startsAt).toUTCString())}`,
      `      ${element("description", {}, maintenanceText(w))}`,
      "    </item>",
    ]),
    ...incidents.flatMap((incident) => [
      "    <item>",
      `      ${element("title", {}, entryTitle(incident))}`,
      `      ${element("link", {}, entryLink(pageUrl, incident))}`,
      `      ${element("guid", { isPermaLink: "false" }, `${page.slug}-incident-${incident.id}`)}`,
      `      ${element("pubDate", {}, new Date(incident.started_at).toUTCString())}`,
      `      ${element("description", {}, timeline(incident))}`,
      "    </item>",
    ]),
  ];
  return [
    XML_DECLARATION,
    `<rss version="2.0" xmlns:atom="${ATOM_NS}">`,
    "  <channel>",
    `    ${element("title", {}, `${page.name} status`)}`,
    `    ${element("link", {}, pageUrl)}`,
    `    ${element("description", {}, channelDescription(page))}`,
    `    ${element("atom:link", { href: rssUrl, rel: "self", type: "application/rss+xml" })}`,
    `    ${element("lastBuildDate", {}, feedUpdated(incidents, generatedAt).toUTCString())}`,
    ...items,
    "  </channel>",
    "</rss>",
    "",
  ].join("\n");
}

/**
 * The page's incidents as an Atom 1.0 document, newest first and at most 50 entries. The feed's id is pageUrl,
 * each entry's id `<pageUrl>#incident-<id>`; content is the update timeline as plain text (type="text").
 */
export function atomFeed({ page, pageUrl, atomUrl, generatedAt, feedId }: FeedInput): string {
  const incidents = page.incidents.slice(0, MAX_ENTRIES);
  const entries = [
    ...(page.maintenance ?? []).flatMap((w) => [
      "  <entry>",
      `    ${element("id", {}, `${pageUrl}#maintenance-${w.id}-${w.startsAt}`)}`,
      `    ${element("title", { type: "text" }, maintenanceTitle(w))}`,
      `    ${element("link", { rel: "alternate", type: "text/html", href: `${pageUrl}#maintenance-${w.id}` })}`,
      `    ${element("published", {}, w.startsAt)}`,
      `    ${element("updated", {}, w.startsAt)}`,
      `    ${element("content", { type: "text" }, maintenanceText(w))}`,
      "  </entry>",
    ]),
    ...incidents.flatMap((incident) => [
      "  <entry>",
      `    ${element("id", {}, entryLink(pageUrl, incident))}`,
      `    ${element("title", { type: "text" }, entryTitle(incident))}`,
      `    ${element("link", { rel: "alternate", type: "text/html", href: entryLink(pageUrl, incident) })}`,
      `    ${element("published", {}, new Date(incident.started_at).toISOString())}`,
      `    ${element("updated", {}, incidentUpdated(incident).toISOString())}`,
      `    ${element("content", { type: "text" }, timeline(incident))}`,
      "  </entry>",
    ]),
  ];
  return [
    XML_DECLARATION,
    `<feed xmlns="${ATOM_NS}">`,
    `  ${element("id", {}, feedId ?? pageUrl)}`,
    `  ${element("title", { type: "text" }, `${page.name} status`)}`,
    `  ${element("subtitle", { type: "text" }, channelDescription(page))}`,
    `  ${element("link", { rel: "alternate", type: "text/html", href: pageUrl })}`,
    `  ${element("link", { rel: "self", type: "application/atom+xml", href: atomUrl })}`,
    `  ${element("updated", {}, feedUpdated(incidents, generatedAt).toISOString())}`,
    "  <author>",
    `    ${element("name", {}, page.name)}`,
    "  </author>",
    ...entries,
    "</feed>",
    "",
  ].join("\n");
}
