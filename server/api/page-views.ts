import type { SiteState } from "../contract/site.ts";
import { DisplayOptions, type Incident, type PublicItem, PublicStatusPage, Theme } from "../contract/status-page.ts";
import { itemStatus } from "../engine/verdict.ts";
import { groupBy } from "../group-by.ts";
import type { IncidentRow, IncidentUpdateRow, PageRow, Store } from "../store/store.ts";
import { PUBLIC_CORS, strongEtag, viewHeaders } from "./http.ts";
import { ReadModel } from "./read-model.ts";
import { type Clock, utcDayBefore } from "./time.ts";

/** How many incidents a public view carries, newest first. */
export const PUBLIC_INCIDENT_LIMIT = 50;

export interface Body {
  bytes: Uint8Array<ArrayBuffer>;
  etag: string;
  /** The answer's headers (see viewHeaders), made once: as an object, and as node's flat list for a 200. */
  headers: Record<string, string>;
  rawHeaders: string[];
}

/** A page's public view, serialized once, with what the access check needs. */
export interface PageView {
  pageId: number;
  workspaceId: string;
  visibility: "public" | "private" | "password";
  passwordHash: string | null;
  page: Body;
  items: Body;
  incidents: Body;
}

function body(value: unknown, visibility: PageView["visibility"]): Body {
  const bytes = new TextEncoder().encode(JSON.stringify(value));
  const etag = strongEtag(bytes);
  const headers = viewHeaders(visibility, etag);
  const rawHeaders = Object.entries({ ...headers, ...PUBLIC_CORS, "content-length": String(bytes.byteLength) }).flat();
  return { bytes, etag, headers, rawHeaders };
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/** An incident row and its updates (newest first) as the API shows it. */
export function incidentView(row: IncidentRow, updates: IncidentUpdateRow[]): Incident {
  return {
    id: row.id,
    title: row.title,
    status: row.status as Incident["status"],
    started_at: row.started_at,
    resolved_at: row.resolved_at,
    duration_minutes:
      row.resolved_at === null
        ? null
        : Math.max(0, Math.floor((Date.parse(row.resolved_at) - Date.parse(row.started_at)) / 60_000)),
    updates: updates
      .filter((u) => u.incident_id === row.id)
      .map((u) => ({ timestamp: u.created_at, status: u.status as Incident["status"], message: u.message })),
  };
}

export function incidentViews(rows: IncidentRow[], updates: IncidentUpdateRow[]): Incident[] {
  return rows.map((row) => incidentView(row, updates));
}

type Rows = Awaited<ReturnType<Store["pageViewData"]>>;

/** What a view is made of: the page's items, incidents and updates, and the daily stats by site. */
interface ViewData {
  items: Rows["items"];
  statsBySite: Map<string, Rows["stats"]>;
  incidents: Rows["incidents"];
  updates: Rows["updates"];
}

/**
 * A page's public view from its rows (no store access, not yet checked against the contract): what the API serves
 * (PageViews) and what the static build renders (publicViews).
 */
export function publicView(page: PageRow, data: ViewData, now: Date): PublicStatusPage {
  const display = DisplayOptions.parse(JSON.parse(page.display));
  const from = utcDayBefore(now, display.historyDays - 1);
  const items: PublicItem[] = data.items.map((item) => {
    let total = 0;
    let up = 0;
    const history: PublicItem["history"] = [];
    for (const s of data.statsBySite.get(item.site_id) ?? []) {
      if (s.checks_total <= 0 || s.day < from) continue;
      total += s.checks_total;
      up += s.checks_up;
      history.push({ date: s.day, uptime: round3((s.checks_up / s.checks_total) * 100) });
    }
    return {
      id: item.id,
      label: item.label,
      type: "website",
      status: itemStatus(item.state as SiteState, item.pause === 1),
      uptime: total > 0 ? round3((up / total) * 100) : null,
      response_time: item.last_response_ms,
      last_check: item.last_check_time,
      history,
    };
  });
  return {
    name: page.name,
    slug: page.slug,
    description: page.description,
    visibility: page.visibility as PublicStatusPage["visibility"],
    custom_domain: page.custom_domain,
    theme: Theme.parse(JSON.parse(page.theme)),
    display,
    items,
    incidents: incidentViews(data.incidents, data.updates),
  };
}

/** Every public page's view from one bulk read (Store.publicPagesViewData), in slug order. */
export function publicViews(
  all: Awaited<ReturnType<Store["publicPagesViewData"]>>,
  now: Date,
): { page: PageRow; view: PublicStatusPage }[] {
  const items = groupBy(all.items, (i) => i.page_id);
  const statsBySite = groupBy(all.stats, (s) => s.site_id);
  const incidents = groupBy(all.incidents, (i) => i.page_id);
  const updates = groupBy(all.updates, (u) => u.incident_id);
  return all.pages.map((page) => {
    const own = incidents.get(page.id) ?? [];
    const data: ViewData = {
      items: items.get(page.id) ?? [],
      statsBySite,
      incidents: own,
      updates: own.flatMap((i) => updates.get(i.id) ?? []),
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
      const page = await this.store.getPageBySlug(slug);
      return page ? this.assemble(page) : null;
    });
  }

  private async assemble(page: PageRow): Promise<PageView> {
    const now = this.clock.now();
    const display = DisplayOptions.parse(JSON.parse(page.display));
    const data = await this.store.pageViewData(page, utcDayBefore(now, display.historyDays - 1), PUBLIC_INCIDENT_LIMIT);
    const { stats, ...rows } = data;
    const view = PublicStatusPage.parse(
      publicView(page, { ...rows, statsBySite: groupBy(stats, (s) => s.site_id) }, now),
    );
    return {
      pageId: page.id,
      workspaceId: page.workspace_id,
      visibility: page.visibility as PageView["visibility"],
      passwordHash: page.password_hash,
      page: body(view, view.visibility),
      items: body({ slug: page.slug, items: view.items }, view.visibility),
      incidents: body({ slug: page.slug, incidents: view.incidents }, view.visibility),
    };
  }
}
