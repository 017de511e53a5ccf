import { pageUrl } from "../alerts/notice-sender.ts";
import { type Clock, utcDayBefore } from "../clock.ts";
import { PUBLIC_MAINTENANCE_DAYS, type PublicMaintenance } from "../contract/maintenance.ts";
import type { SiteState } from "../contract/site.ts";
import { atFault, groupStatus, itemStatus, uptimePercent } from "../contract/status.ts";
import {
  type AffectedStatus,
  affectedStatusOf,
  type Incident,
  type ItemStatus,
  type OwnerIncident,
  type PublicGroup,
  type PublicItem,
  PublicStatusPage,
} from "../contract/status-page.ts";
import { groupBy } from "../group-by.ts";
import type { StoredIncident } from "../store/incidents.ts";
import type { ShownOccurrence } from "../store/maintenance.ts";
import { type ShownPage, sortedByPosition, topLevelOrder } from "../store/status-pages.ts";
import type { Store } from "../store/store.ts";
import { EncodedAnswer, Encodings } from "./compression.ts";
import { PUBLIC_CORS, viewHeaders, weakEtag } from "./headers.ts";
import { ReadModel } from "./read-model.ts";
import {
  STATUSPAGE_DOCUMENTS,
  type StatuspageDocument,
  type StatuspageSource,
  statuspageDocuments,
} from "./statuspage.ts";

/** How many incidents a public view carries, newest first. */
export const PUBLIC_INCIDENT_LIMIT = 50;

/**
 * How finely a page's check times count in its ETag (see visibleItems): the ETag moves when the page's latest check
 * enters another half hour, so that a client revalidating with If-None-Match (an API reader of `last_check`; the
 * element no longer shows check times) holds figures at most that old, and stays unchanged (304) between.
 */
export const CHECK_TIME_GRANULARITY_MS = 30 * 60_000;

/**
 * One answer of a view: its bytes, kept compressed in each coding once asked for (`encoded`, with its headers for
 * a 200), its weak ETag, and `headers`, those of every answer, the 304 included (see viewHeaders).
 */
export class Body extends EncodedAnswer {
  constructor(
    bytes: Uint8Array<ArrayBuffer>,
    readonly etag: string,
    visibility: PageView["visibility"],
  ) {
    // The fast path answers from node:http, before the app's CORS middleware: its 200s carry CORS themselves.
    super(new Encodings(bytes, "fast"), viewHeaders(visibility, etag), PUBLIC_CORS);
  }
}

/** A page's public view, serialized once, with what the access check needs. */
export interface PageView {
  pageId: number;
  workspaceId: string;
  visibility: PublicStatusPage["visibility"];
  passwordHash: string | null;
  page: Body;
  items: Body;
  incidents: Body;
  /** What the page's Statuspage documents are made of (api/statuspage.ts), but where the page is. */
  statuspage: Omit<StatuspageSource, "url"> & { slug: string; customDomain: string | null };
}

/** `value` serialized, with a weak ETag of `visible`: what of it a visitor sees (see visibleItems). */
function body(value: unknown, visible: unknown, visibility: PageView["visibility"]): Body {
  return new Body(new TextEncoder().encode(JSON.stringify(value)), weakEtag(JSON.stringify(visible)), visibility);
}

/**
 * An uptime percentage as the element shows it (format.ts, percentage): two decimals, cut rather than rounded, and
 * exactly 100 as "100"; so a change a visitor would see changes the ETag, and no other does.
 */
/** Uptime as every reader shows it: two decimals, cut rather than rounded, and 100 as "100". */
export const shownUptime = (uptime: number) =>
  uptime >= 100 ? "100" : (Math.floor(uptime * 100 + 1e-6) / 100).toFixed(2);
/** The grade of a day's bar, as the element draws it (porchlight-status.ts): 100%, 99%, 95%, 75% and up, below. */
const band = (uptime: number) => (uptime >= 100 ? 4 : uptime >= 99 ? 3 : uptime >= 95 ? 2 : uptime >= 75 ? 1 : 0);

/** What a visitor sees of an item: every field but the check's time and response time, which only count as there. */
function visibleItem(item: PublicItem) {
  return {
    id: item.id,
    label: item.label,
    type: item.type,
    status: item.status,
    group: item.group_id,
    uptime: item.uptime === null ? null : shownUptime(item.uptime),
    checked: item.last_check !== null,
    timed: item.response_time !== null,
    history: item.history.map((day) => [day.date, shownUptime(day.uptime), band(day.uptime), day.downtime_minutes]),
  };
}

/**
 * What a page's visitors see of its items, which its ETag is computed over: each item's label, status, uptime
 * and daily bars as shown (two decimals, the bar's colour), and the half hour of the page's latest check
 * (CHECK_TIME_GRANULARITY_MS), but not each check's time and response time. The engine writes those on every
 * check of every site; were they in the ETag, every refresh of an open page would download it again, though it
 * shows the same. The body still holds them, as the contract says: a weak validator (W/) says that answers under
 * it mean the same, not that they are the same bytes, and If-None-Match compares weakly.
 */
function visibleItems(items: PublicItem[]) {
  let latest = Number.NEGATIVE_INFINITY;
  for (const item of items) if (item.last_check !== null) latest = Math.max(latest, Date.parse(item.last_check));
  const checked = Number.isFinite(latest) ? Math.floor(latest / CHECK_TIME_GRANULARITY_MS) : null;
  return { checked, items: items.map(visibleItem) };
}

/** A page's item as an incident's affected service: its id, label and site. */
export interface ItemOfPage {
  id: number;
  label: string;
  site_id: string;
}

/**
 * The items an incident affected, in the page's order, among `items` (for visitors, the visible ones): those its
 * owner named, and an automatic incident's site's.
 */
function affectedBy(incident: StoredIncident, items: ItemOfPage[]): Incident["affected"] {
  // An automatic incident's site's items it does not name are what its impact says.
  const implied = affectedStatusOf(incident.impact);
  return items
    .filter((item) => incident.named.has(item.id) || (incident.siteId !== null && item.site_id === incident.siteId))
    .map(({ id, label }) => ({ id, label, status: incident.named.get(id) ?? implied }));
}

/**
 * How bad a status a page shows is, for taking the worse of the engine's and an open incident's: major outage,
 * partial outage, degraded, maintenance, then paused and unknown (which any incident's word beats), operational.
 */
const SEVERITY: Record<ItemStatus, number> = {
  major_outage: 6,
  partial_outage: 5,
  degraded: 4,
  maintenance: 3,
  paused: 2,
  unknown: 1,
  operational: 0,
};

/**
 * Items as the page shows them: each the worse of what the engine sees and what the open incidents among
 * `incidents` say of it; an incident saying operational moves nothing. Resolved incidents move nothing, so resolving
 * one returns its items to what the engine sees. The engine's own incidents (`automatic`, their ids) never move a
 * paused item or one in maintenance: the engine stopped judging it, and its outage waits for the pause or window
 * to end; what the owner says still does.
 */
export function movedByIncidents(
  items: PublicItem[],
  incidents: Incident[],
  automatic: ReadonlySet<number> = new Set(),
): PublicItem[] {
  const said = new Map<number, AffectedStatus>();
  const saidByOwner = new Map<number, AffectedStatus>();
  for (const incident of incidents) {
    if (incident.resolved_at !== null) continue;
    const byOwner = !automatic.has(incident.id);
    for (const a of incident.affected) {
      if (a.status === "operational") continue;
      for (const map of byOwner ? [said, saidByOwner] : [said]) {
        const before = map.get(a.id);
        if (before === undefined || SEVERITY[a.status] > SEVERITY[before]) map.set(a.id, a.status);
      }
    }
  }
  return items.map((item) => {
    const held = item.status === "paused" || item.status === "maintenance";
    const status = (held ? saidByOwner : said).get(item.id);
    return status !== undefined && SEVERITY[status] > SEVERITY[item.status] ? { ...item, status } : item;
  });
}

/** An incident as the API shows it, with the items it affected among `items` (see affectedBy). */
export function incidentView(incident: StoredIncident, items: ItemOfPage[] = []): Incident {
  return {
    id: incident.id,
    title: incident.title,
    status: incident.status,
    started_at: incident.startedAt,
    resolved_at: incident.resolvedAt,
    duration_minutes:
      incident.resolvedAt === null
        ? null
        : Math.max(0, Math.floor((Date.parse(incident.resolvedAt) - Date.parse(incident.startedAt)) / 60_000)),
    impact: incident.impact,
    affected: affectedBy(incident, items),
    updates: incident.updates.map((u) => ({ timestamp: u.createdAt, status: u.status, message: u.message })),
  };
}

/** An incident as the workspace reads it (OwnerIncident): the public view, its publication, source and details. */
export function ownerIncidentView(incident: StoredIncident, items: ItemOfPage[] = []): OwnerIncident {
  return {
    ...incidentView(incident, items),
    published: incident.publishedAt !== null,
    publishedAt: incident.publishedAt,
    source: incident.source,
    updates: incident.updates.map((u) => ({
      id: u.id,
      timestamp: u.createdAt,
      status: u.status,
      message: u.message,
      detail: u.detail,
    })),
  };
}

type Rows = Awaited<ReturnType<Store["views"]["pageViewData"]>>;

/** What a view is made of: the page's items, groups and published incidents, and the daily stats by site. */
interface ViewData {
  /** The page's visible items. */
  items: Rows["items"];
  groups: Rows["groups"];
  /** Occurrences under way or coming on the items' sites, soonest first (MaintenanceQueries.shownFor). */
  maintenance: ShownOccurrence[];
  statsBySite: Map<string, Rows["stats"]>;
  incidents: StoredIncident[];
}

/**
 * A page's public view from its rows (no store access, not yet checked against the contract): what the API serves
 * (PageViews) and what the static build renders (publicViews).
 */
export function publicView(page: ShownPage, data: ViewData, now: Date): PublicStatusPage {
  // The Statuspage API's option is the owner's, not the visitors': the public display leaves it out.
  const { statuspageMaintenance: _ownersOnly, ...display } = page.display;
  const from = utcDayBefore(now, display.historyDays - 1);
  const maintenance = maintenanceOf(data, now);
  // From every occurrence under way, not only the windows listed.
  const underWay = data.maintenance.filter((o) => Date.parse(o.starts_at) <= now.getTime());
  const sitesInMaintenance = new Set(underWay.flatMap((o) => o.sites));
  const { ordered, groups } = arranged(data.items, data.groups);
  const items: PublicItem[] = ordered.map((item) => {
    let total = 0;
    let up = 0;
    const history: PublicItem["history"] = [];
    for (const s of data.statsBySite.get(item.site_id) ?? []) {
      if (s.checks_total <= 0 || s.day < from) continue;
      total += s.checks_total;
      up += s.checks_up;
      // Only on a day with downtime: 90 days of 10 items would otherwise inline a thousand zeros into the page.
      const downtime = Math.ceil(s.downtime_ms / 60_000);
      history.push({
        date: s.day,
        uptime: uptimePercent(s.checks_up, s.checks_total),
        ...(downtime > 0 ? { downtime_minutes: downtime } : {}),
      });
    }
    return {
      id: item.id,
      label: item.label,
      type: "website",
      status: sitesInMaintenance.has(item.site_id)
        ? "maintenance"
        : itemStatus(item.state as SiteState, item.pause === 1),
      uptime: total > 0 ? uptimePercent(up, total) : null,
      response_time: item.last_response_ms,
      last_check: item.last_check_time,
      ...(item.group_id === null ? {} : { group_id: item.group_id }),
      history,
    };
  });
  // Visitors see the affected items among the visible ones, in the page's order; data.incidents are the published ones.
  const incidents = data.incidents.map((incident) => incidentView(incident, ordered));
  const shown = movedByIncidents(
    items,
    incidents,
    new Set(data.incidents.filter((incident) => incident.source === "automatic").map((incident) => incident.id)),
  );
  return {
    name: page.name,
    slug: page.slug,
    description: page.description,
    visibility: page.visibility,
    custom_domain: page.customDomain,
    logo: page.logo,
    favicon: page.favicon,
    theme: page.theme,
    display,
    items: shown,
    ...(groups.length > 0 ? { groups: groupsShown(groups, shown) } : {}),
    incidents,
    maintenance,
    subscribe: page.subscribe,
  };
}

type ItemRowOfView = ViewData["items"][number];
type GroupRowOfView = ViewData["groups"][number];

/**
 * The visible items in the page's order, and the groups that have one: groups and ungrouped items by position
 * (store topLevelOrder), each group's members in its place by their own position.
 */
function arranged(items: readonly ItemRowOfView[], groups: readonly GroupRowOfView[]) {
  const members = groupBy(
    items.filter((item) => item.group_id !== null),
    (item) => item.group_id as number,
  );
  const shownGroups = groups.filter((group) => members.has(group.id));
  const known = new Set(shownGroups.map((group) => group.id));
  const ungrouped = items.filter((item) => item.group_id === null || !known.has(item.group_id));
  const top = topLevelOrder(shownGroups, ungrouped);
  const ordered = top.flatMap(({ kind, ...entry }) =>
    kind === "group"
      ? sortedByPosition(members.get(entry.id) ?? [])
      : [{ ...(entry as ItemRowOfView), group_id: null }],
  );
  return { ordered, groups: top.filter((entry) => entry.kind === "group") };
}

/** The groups as visitors see them, from their members as shown (incidents applied): status rolled up, open on a fault. */
function groupsShown(groups: readonly GroupRowOfView[], items: readonly PublicItem[]): PublicGroup[] {
  return groups.map((group) => {
    const members = items.filter((item) => item.group_id === group.id);
    const statuses = members.map((item) => item.status);
    return {
      id: group.id,
      name: group.name,
      description: group.description,
      status: groupStatus(statuses),
      collapsed: group.collapsed === 1 && !statuses.some(atFault),
      items: members.map((item) => item.id),
    };
  });
}

/** How many maintenance windows a page shows. */
const SHOWN_MAINTENANCE = 10;

/** The page's maintenance: each window's first occurrence among those given, on the page's visible items. */
function maintenanceOf(data: ViewData, now: Date): PublicMaintenance[] {
  const seen = new Set<string>();
  const out: PublicMaintenance[] = [];
  for (const o of data.maintenance) {
    if (seen.has(o.window_id) || out.length >= SHOWN_MAINTENANCE) continue;
    const items = data.items.filter((item) => o.sites.includes(item.site_id)).map((item) => item.id);
    if (items.length === 0) continue;
    seen.add(o.window_id);
    out.push({
      id: o.window_id,
      title: o.title,
      description: o.description,
      startsAt: o.starts_at,
      endsAt: o.ends_at,
      active: Date.parse(o.starts_at) <= now.getTime(),
      items,
    });
  }
  return out;
}

/** The occurrences pages announce on these sites: under way, or beginning within PUBLIC_MAINTENANCE_DAYS. */
export function announcedMaintenance(store: Store, siteIds: string[], now: Date): Promise<ShownOccurrence[]> {
  const until = new Date(now.getTime() + PUBLIC_MAINTENANCE_DAYS * 86_400_000).toISOString();
  return store.maintenance.shownFor([...new Set(siteIds)], now.toISOString(), until);
}

/** Every public page's view from one bulk read (Store.views.publicPagesViewData), in slug order. */
export function publicViews(
  all: Awaited<ReturnType<Store["views"]["publicPagesViewData"]>>,
  now: Date,
  maintenance: ShownOccurrence[] = [],
): { page: ShownPage; view: PublicStatusPage }[] {
  const items = groupBy(all.items, (i) => i.page_id);
  const groups = groupBy(all.groups, (g) => g.page_id);
  const statsBySite = groupBy(all.stats, (s) => s.site_id);
  const incidents = groupBy(all.incidents, (i) => i.pageId);
  return all.pages.map((page) => {
    const data: ViewData = {
      items: items.get(page.id) ?? [],
      groups: groups.get(page.id) ?? [],
      maintenance,
      statsBySite,
      incidents: incidents.get(page.id) ?? [],
    };
    return { page, view: publicView(page, data, now) };
  });
}

/**
 * The public views of status pages by slug: each assembled from the store once (a fixed number of queries, whatever
 * the number of items), checked against the contract, serialized, and then served as bytes until something
 * changes (see ReadModel).
 */
export class PageViews {
  private readonly views: ReadModel<PageView>;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    ttlMs: number,
  ) {
    this.views = new ReadModel(clock, ttlMs);
  }

  invalidate(): void {
    this.views.invalidate();
  }

  peek(slug: string): PageView | undefined {
    return this.views.peek(slug);
  }

  get(slug: string): Promise<PageView | null> {
    return this.views.get(slug, async () => {
      const page = await this.store.pages.getBySlug(slug);
      return page ? this.assemble(page) : null;
    });
  }

  private async assemble(page: ShownPage): Promise<PageView> {
    const now = this.clock.now();
    const data = await this.store.views.pageViewData(
      page.id,
      utcDayBefore(now, page.display.historyDays - 1),
      PUBLIC_INCIDENT_LIMIT,
    );
    const { stats, ...rows } = data;
    const maintenance = await announcedMaintenance(
      this.store,
      rows.items.map((i) => i.site_id),
      now,
    );
    const view = PublicStatusPage.parse(
      publicView(page, { ...rows, maintenance, statsBySite: groupBy(stats, (s) => s.site_id) }, now),
    );
    const visible = visibleItems(view.items);
    const incidents = { slug: page.slug, incidents: view.incidents };
    return {
      pageId: page.id,
      workspaceId: page.workspaceId,
      visibility: view.visibility,
      passwordHash: page.passwordHash,
      page: body(view, { ...view, ...visible }, view.visibility),
      items: body(
        { slug: page.slug, items: view.items, ...(view.groups ? { groups: view.groups } : {}) },
        { slug: page.slug, ...visible, groups: view.groups },
        view.visibility,
      ),
      incidents: body(incidents, incidents, view.visibility),
      statuspage: {
        view,
        pageId: page.id,
        slug: page.slug,
        customDomain: page.customDomain,
        updatedAt: page.updatedAt,
        itemsCreatedAt: new Map(rows.items.map((item) => [item.id, item.created_at])),
        groupsCreatedAt: new Map(rows.groups.map((group) => [group.id, group.created_at])),
        maintenanceCreatedAt: new Map(maintenance.map((o) => [o.window_id, o.created_at])),
        maintenanceIndicator: page.display.statuspageMaintenance === true,
      },
    };
  }
}

const statuspageKept = new WeakMap<PageView, Map<StatuspageDocument, Body>>();

/**
 * A public page's Statuspage v2 document (views/statuspage.ts), made with the other seven on the first read of any and
 * kept with this build of the view: a read adds no query and no serialization. Its ETag is weak, of its bytes. The
 * page is where `publicUrl` serves it, or its custom domain.
 */
export function statuspageDocument(view: PageView, doc: StatuspageDocument, publicUrl: string): Body {
  let bodies = statuspageKept.get(view);
  if (!bodies) {
    const { slug, customDomain, ...source } = view.statuspage;
    // Where the page lives (as notices link it), without the trailing slash Statuspage's URLs never have.
    const url = pageUrl(publicUrl, { slug, customDomain }).replace(/\/$/, "");
    const documents = statuspageDocuments({ ...source, url });
    bodies = new Map();
    for (const name of STATUSPAGE_DOCUMENTS) {
      const bytes = new TextEncoder().encode(JSON.stringify(documents[name]));
      bodies.set(name, new Body(bytes, weakEtag(bytes), "public"));
    }
    statuspageKept.set(view, bodies);
  }
  return bodies.get(doc) as Body;
}
