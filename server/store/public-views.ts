import { sql } from "kysely";
import { type Connection, Queries } from "./connection.ts";
import { type IncidentQueries, storedIncidents } from "./incidents.ts";
import type { SiteQueries } from "./sites.ts";
import { shownPage } from "./status-pages.ts";

/** What the public read models (views/) are built from: a fixed number of queries per page, or for all pages. */
export class ViewQueries extends Queries {
  constructor(
    connection: Connection,
    private readonly sites: SiteQueries,
    private readonly incidents: IncidentQueries,
  ) {
    super(connection);
  }

  /** Everything a page's public view is built from, in seven queries whatever the number of items. */
  async pageViewData(pageId: number, fromDay: string, incidentLimit: number) {
    const items = await this.db
      .selectFrom("status_page_items as i")
      .innerJoin("sites as s", "s.id", "i.site_id")
      .select([
        "i.id",
        "i.site_id",
        "i.label",
        "i.position",
        "i.group_id",
        "i.created_at",
        "s.state",
        "s.pause",
        "s.last_check_time",
        "s.last_response_ms",
      ])
      .where("i.page_id", "=", pageId)
      .where("i.visible", "=", 1)
      .orderBy("i.position")
      .orderBy("i.id")
      .execute();
    const stats = await this.sites.dailyStats(
      items.map((i) => i.site_id),
      fromDay,
    );
    const groups = await this.groupsOf([pageId]);
    // Visitors read published incidents only.
    const incidents = await this.incidents.list(pageId, incidentLimit, true);
    return { items, groups, stats, incidents };
  }

  /**
   * What pageViewData reads, for every public page at once (the static build): seven queries whatever the number of
   * pages. Stats start at `fromDay` for all pages (each page keeps its own days); incidents are each page's newest
   * `incidentLimit`, cut in SQL by a window function.
   */
  async publicPagesViewData(fromDay: string, incidentLimit: number) {
    const pages = (
      await this.db.selectFrom("status_pages").selectAll().where("visibility", "=", "public").orderBy("slug").execute()
    ).map(shownPage);
    const publicIds = this.publicIds();
    const items = await this.db
      .selectFrom("status_page_items as i")
      .innerJoin("sites as s", "s.id", "i.site_id")
      .select([
        "i.page_id",
        "i.id",
        "i.site_id",
        "i.label",
        "i.position",
        "i.group_id",
        "i.created_at",
        "s.state",
        "s.pause",
        "s.last_check_time",
        "s.last_response_ms",
      ])
      .where("i.page_id", "in", publicIds)
      .where("i.visible", "=", 1)
      .orderBy("i.page_id")
      .orderBy("i.position")
      .orderBy("i.id")
      .execute();
    const stats = await this.db
      .selectFrom("daily_stats")
      .selectAll()
      .where("site_id", "in", (eb) =>
        eb.selectFrom("status_page_items").select("site_id").where("page_id", "in", publicIds).where("visible", "=", 1),
      )
      .where("day", ">=", fromDay)
      .orderBy("day")
      .execute();
    const ranked = this.db
      .selectFrom("incidents")
      .selectAll()
      .select(sql<number>`row_number() over (partition by page_id order by started_at desc, id desc)`.as("rank"))
      .where("page_id", "in", publicIds)
      .where("published_at", "is not", null);
    const newest = this.db.selectFrom(ranked.as("r")).where("r.rank", "<=", incidentLimit);
    const rows = (await newest.selectAll().orderBy("r.rank").execute()).map(({ rank: _rank, ...row }) => row);
    const updates = await this.db
      .selectFrom("incident_updates")
      .selectAll()
      .where("incident_id", "in", newest.select("r.id"))
      .orderBy("created_at", "desc")
      .orderBy("id", "desc")
      .execute();
    const links = await this.db
      .selectFrom("incident_items")
      .selectAll()
      .where("incident_id", "in", newest.select("r.id"))
      .execute();
    const groups = await this.groupsOf(publicIds);
    return { pages, items, groups, stats, incidents: storedIncidents(rows, updates, links) };
  }

  private publicIds() {
    return this.db.selectFrom("status_pages").select("id").where("visibility", "=", "public");
  }

  /** The groups a public view places items in, by page and position. */
  private groupsOf(pageIds: number[] | ReturnType<ViewQueries["publicIds"]>) {
    return this.db
      .selectFrom("status_page_groups")
      .select(["id", "page_id", "name", "description", "position", "collapsed", "created_at"])
      .where("page_id", "in", pageIds)
      .orderBy("page_id")
      .orderBy("position")
      .orderBy("id")
      .execute();
  }

  /**
   * Public pages' slugs and names by slug, at most `limit` (the landing page). By code unit, whatever the
   * database's collation: PostgreSQL's en_US.utf8 would put `a-b` after `ab`. SQLite's default (BINARY) already
   * compares so, and knows no collation named "C".
   */
  async publicPageNames(limit: number): Promise<{ slug: string; name: string }[]> {
    const bySlug = this.dialect === "postgres" ? sql<string>`slug collate "C"` : sql<string>`slug`;
    return this.db
      .selectFrom("status_pages")
      .select(["slug", "name"])
      .where("visibility", "=", "public")
      .orderBy(bySlug)
      .limit(limit)
      .execute();
  }

  /** Every page's slug and visibility, by slug (the static build lists protected pages by name only). */
  async pageSlugs(): Promise<{ slug: string; visibility: string }[]> {
    return this.db.selectFrom("status_pages").select(["slug", "visibility"]).orderBy("slug").execute();
  }

  /** The slug of the page served on a custom domain, if any. */
  async slugForDomain(host: string): Promise<string | undefined> {
    const row = await this.db
      .selectFrom("status_pages")
      .select("slug")
      .where("custom_domain", "=", host)
      .executeTakeFirst();
    return row?.slug;
  }
}
