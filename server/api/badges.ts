import { makeBadge } from "badge-maker";
import type { Context } from "hono";
import { type Clock, utcDayBefore } from "../clock.ts";
import {
  BADGE_DAYS,
  BADGE_METRICS,
  type BadgeMetric,
  BadgeParams,
  BadgeQuery,
  type BadgeStyle,
  BadgeSvg,
  GroupBadgeParams,
  ItemBadgeParams,
  type ShieldsEndpoint,
  ShieldsEndpoint as ShieldsEndpointSchema,
  UptimeBadgeQuery,
} from "../contract/badge.ts";
import { overallStatus } from "../contract/status.ts";
import type { PublicGroup, PublicItem, PublicStatusPage } from "../contract/status-page.ts";
import { notFound } from "../http/errors.ts";
import { header, matchesEtag } from "../http/headers.ts";
import { type Route, route } from "../http/route.ts";
import type { Store } from "../store/store.ts";
import { strongEtag } from "../views/headers.ts";
import { type PageView, type PageViews, shownUptime } from "../views/page-views.ts";
import { ReadModel } from "../views/read-model.ts";

/** Shields' own caches keep an endpoint badge 300 s at least; browsers and image proxies may keep ours a minute. */
const CACHE_CONTROL = "public, max-age=60";
const SVG_TYPE = "image/svg+xml; charset=utf-8";
const JSON_TYPE = "application/json; charset=utf-8";
/** An SVG opened on its own must not run or load anything. */
const SVG_CSP = "default-src 'none'; style-src 'unsafe-inline'";
/** Rendered badges kept per page version; others are rendered for their request only. */
const MAX_RENDERED = 256;

type Format = "svg" | "json";

interface Badge {
  label: string;
  message: string;
  color: string;
}

/** A rendered badge: its bytes and the headers of its 200 and 304. */
interface Rendered {
  bytes: Uint8Array<ArrayBuffer>;
  etag: string;
  headers: Record<string, string>;
}

/** What the badges read from a public page's view, parsed once per view version. */
interface BadgePage {
  view: PublicStatusPage;
  items: Map<number, PublicItem>;
  groups: Map<number, PublicGroup>;
  rendered: Map<string, Rendered>;
}

const ITEM_STATUS: Record<PublicItem["status"], Badge["color"]> = {
  operational: "brightgreen",
  degraded: "yellow",
  partial_outage: "orange",
  major_outage: "red",
  paused: "lightgrey",
  unknown: "lightgrey",
  maintenance: "blue",
};

const PAGE_STATUS: Record<ReturnType<typeof overallStatus>, Omit<Badge, "label">> = {
  operational: { message: "operational", color: "brightgreen" },
  degraded: { message: "degraded", color: "yellow" },
  partial: { message: "partial outage", color: "orange" },
  major: { message: "major outage", color: "red" },
  maintenance: { message: "under maintenance", color: "blue" },
  unknown: { message: "unknown", color: "lightgrey" },
};

const NO_DATA = { message: "no data", color: "lightgrey" } as const;

/** Shields' usual steps for uptime: green only from 99.9%. */
function uptimeColor(percent: number): string {
  if (percent >= 99.9) return "brightgreen";
  if (percent >= 99) return "green";
  if (percent >= 97) return "yellowgreen";
  if (percent >= 95) return "yellow";
  if (percent >= 90) return "orange";
  return "red";
}

/** Below the 2,000 ms a site counts as slow (its default slowThresholdMs) is green to yellow-green. */
function responseColor(ms: number): string {
  if (ms < 500) return "brightgreen";
  if (ms < 1000) return "green";
  if (ms < 2000) return "yellowgreen";
  if (ms < 5000) return "orange";
  return "red";
}

/** Rounded down to two decimals, so that 99.996% never reads 100%. */
/** One precision for uptime everywhere: the page's (two decimals, 100% as "100%"). */
const percent = (value: number) => `${shownUptime(value)}%`;

const mean = (values: number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;

/** The mean of an item's daily uptimes from `from` (a UTC day) on; null without a day of data. */
function itemUptime(item: PublicItem, from: string): number | null {
  const days = item.history.filter((day) => day.date >= from).map((day) => day.uptime);
  return days.length > 0 ? mean(days) : null;
}

/** What a badge speaks of: one item, one group (its members), or neither (the whole page). */
interface Subject {
  item?: PublicItem | undefined;
  group?: PublicGroup | undefined;
}

/**
 * A badge's words and colour from a public view. Uptime is the mean of the daily uptimes in the window (each day
 * with data weighs the same; days without checks are left out); a page's or a group's is the mean of its items'. A
 * page's or a group's response time is the mean of its items' latest ones; a group's status is the page's word for
 * it (its worst member's).
 */
function badgeFor(page: BadgePage, of: Subject, metric: BadgeMetric, days: number, from: string) {
  const { item, group } = of;
  const items = item ? [item] : group ? page.view.items.filter((i) => i.group_id === group.id) : page.view.items;
  if (metric === "status") {
    const one = item
      ? { label: item.label, status: item.status }
      : group && { label: group.name, status: group.status };
    if (one) return { label: one.label, message: one.status.replace("_", " "), color: ITEM_STATUS[one.status] };
    return { label: page.view.name, ...PAGE_STATUS[overallStatus(items)] };
  }
  if (metric === "uptime") {
    const label = `uptime ${days}d`;
    const uptimes = items.map((i) => itemUptime(i, from)).filter((u) => u !== null);
    if (uptimes.length === 0) return { label, ...NO_DATA };
    const value = mean(uptimes);
    return { label, message: percent(value), color: uptimeColor(value) };
  }
  const label = "response time";
  const times = items.map((i) => i.response_time).filter((ms) => ms !== null);
  if (times.length === 0) return { label, ...NO_DATA };
  const ms = Math.round(mean(times));
  return { label, message: `${ms} ms`, color: responseColor(ms) };
}

function render(badge: Badge, format: Format, style: BadgeStyle | undefined): Rendered {
  const text =
    format === "svg"
      ? makeBadge({ ...badge, ...(style ? { style } : {}) })
      : JSON.stringify({ schemaVersion: 1, ...badge, ...(style ? { style } : {}) } satisfies ShieldsEndpoint);
  const bytes = new TextEncoder().encode(text);
  const etag = strongEtag(bytes);
  const headers: Record<string, string> = {
    "content-type": format === "svg" ? SVG_TYPE : JSON_TYPE,
    "cache-control": CACHE_CONTROL,
    etag,
    "x-content-type-options": "nosniff",
    ...(format === "svg" ? { "content-security-policy": SVG_CSP } : {}),
  };
  return { bytes, etag, headers };
}

/**
 * The public pages the badges may speak of, by slug. Only a public page's view is ever read: a private, password or
 * unknown page is one answer (null), and after its first request it is answered from memory like the others, so
 * that neither content nor a store round trip tells them apart.
 */
export class BadgePages {
  /** Slugs known not to be public pages (unknown, private, password), for the views' time to live. */
  private readonly hidden: ReadModel<true>;
  private readonly pages = new WeakMap<PageView, BadgePage>();

  constructor(
    private readonly store: Store,
    private readonly views: PageViews,
    clock: Clock,
    ttlMs: number,
  ) {
    this.hidden = new ReadModel(clock, ttlMs);
  }

  /** Called with the views' own invalidation: a page made public or private shows at once. */
  invalidate(): void {
    this.hidden.invalidate();
  }

  async get(slug: string): Promise<BadgePage | null> {
    const cached = this.views.peek(slug);
    if (cached) return cached.visibility === "public" ? this.page(cached) : null;
    // One query decides for every slug alike, before any view is assembled.
    const hidden = await this.hidden.get(slug, async () =>
      (await this.store.pages.getBySlug(slug))?.visibility === "public" ? null : true,
    );
    if (hidden) return null;
    const view = await this.views.get(slug);
    return view?.visibility === "public" ? this.page(view) : null;
  }

  private page(view: PageView): BadgePage {
    let page = this.pages.get(view);
    if (!page) {
      const parsed = JSON.parse(new TextDecoder().decode(view.page.bytes)) as PublicStatusPage;
      page = {
        view: parsed,
        items: new Map(parsed.items.map((i) => [i.id, i])),
        groups: new Map((parsed.groups ?? []).map((g) => [g.id, g])),
        rendered: new Map(),
      };
      this.pages.set(view, page);
    }
    return page;
  }
}

const notFoundBadge = () => notFound("Badge");

function send(c: Context, badge: Rendered): Response {
  if (matchesEtag(header(c, "if-none-match"), badge.etag)) return c.body(null, 304, badge.headers);
  if (c.req.method === "HEAD") return c.body(null, 200, badge.headers);
  return c.body(badge.bytes, 200, badge.headers);
}

const METRIC_WORDS: Record<BadgeMetric, { summary: string; op: string }> = {
  status: { summary: "status", op: "Status" },
  uptime: { summary: "uptime over the last `days` days", op: "Uptime" },
  "response-time": { summary: "latest response time", op: "ResponseTime" },
};

const SCOPES = {
  page: { path: "", op: "Page", whose: "a public status page (all its items)", params: BadgeParams },
  item: { path: "/{itemId}", op: "Item", whose: "one item of a public status page", params: ItemBadgeParams },
  group: {
    path: "/groups/{groupId}",
    op: "Group",
    whose: "one component group of a public status page (its visible members)",
    params: GroupBadgeParams,
  },
} as const;

/**
 * Status badges of public status pages, shields-compatible: `/badge/{slug}/{metric}.svg` (an SVG by badge-maker) and
 * `.json` (shields' endpoint format), for the page as a whole, under `/badge/{slug}/{itemId}/` for one of its
 * items, and under `/badge/{slug}/groups/{groupId}/` for one of its groups. Built from the page's public view in
 * memory and kept as bytes per view version, with an ETag. Anything that is not a public page or an item or group
 * shown on one answers one and the same 404.
 */
export function badgeRoutes({ pages, clock }: { pages: BadgePages; clock: Clock }): Route[] {
  const routes: Route[] = [];
  for (const [scope, of] of Object.entries(SCOPES)) {
    for (const metric of BADGE_METRICS) {
      for (const format of ["svg", "json"] as const) {
        const words = METRIC_WORDS[metric];
        routes.push(
          route({
            method: "get",
            path: `/badge/{slug}${of.path}/${metric}.${format}`,
            operationId: `badge${of.op}${words.op}${format === "svg" ? "Svg" : "Json"}`,
            summary: `Badge: the ${words.summary} of ${of.whose}, as ${format === "svg" ? "an SVG image" : "shields.io endpoint JSON"}`,
            description: `Public pages only: a private or password page, a hidden ${scope === "group" ? "group (none of its members visible)" : "item"} and an unknown slug or ${scope === "group" ? "group" : "item"} all answer the same 404. Cache-Control: public, max-age=60, with an ETag (If-None-Match answers 304). CORS is open to any origin.`,
            tag: "Public status pages",
            access: "none",
            params: of.params,
            // A malformed id is the 404 of a badge of nothing, like an unknown or hidden one.
            notFoundAs: "Badge",
            query: metric === "uptime" ? UptimeBadgeQuery : BadgeQuery,
            response: {
              status: 200,
              description: format === "svg" ? "The badge (image/svg+xml)" : "The badge's words and colour",
              schema: format === "svg" ? BadgeSvg : ShieldsEndpointSchema,
              contentType: format === "svg" ? "image/svg+xml" : undefined,
              headers: [
                "ETag",
                "BadgeCacheControl",
                ...(format === "svg" ? (["BadgeContentSecurityPolicy"] as const) : []),
              ],
            },
            errors: [400, 404],
            async handler({ params, query, c }) {
              const { slug, itemId, groupId } = params as { slug: string; itemId?: string; groupId?: string };
              const { label, style, days } = query as { label?: string; style?: BadgeStyle; days?: number };
              const page = await pages.get(slug);
              if (!page) throw notFoundBadge();
              const subject = {
                item: itemId === undefined ? undefined : page.items.get(Number(itemId)),
                group: groupId === undefined ? undefined : page.groups.get(Number(groupId)),
              };
              if ((itemId !== undefined && !subject.item) || (groupId !== undefined && !subject.group)) {
                throw notFoundBadge();
              }
              // A badge never reaches further back than the page itself shows.
              const window = Math.min(days ?? BADGE_DAYS.default, page.view.display.historyDays);
              const from = utcDayBefore(clock.now(), window - 1);
              const key = JSON.stringify([
                scope,
                itemId ?? groupId,
                metric,
                format,
                style,
                label,
                metric === "uptime" ? from : "",
              ]);
              let badge = page.rendered.get(key);
              if (!badge) {
                const made = badgeFor(page, subject, metric, window, from);
                badge = render({ ...made, label: label ?? made.label }, format, style);
                if (page.rendered.size < MAX_RENDERED) page.rendered.set(key, badge);
              }
              return send(c, badge);
            },
          }),
        );
      }
    }
  }
  return routes;
}
