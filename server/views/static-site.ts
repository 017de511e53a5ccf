import { utcDayBefore } from "../clock.ts";
import { MAX_HISTORY_DAYS, type PublicStatusPage, type Visibility } from "../contract/status-page.ts";
import { visibilityOf } from "../store/status-pages.ts";
import { openStore, type StoreOptions } from "../store/store.ts";
import { PUBLIC_INCIDENT_LIMIT, publicViews } from "./page-views.ts";

/** A page as the static build sees it: a public page with its view, a protected one by name only. */
export interface StaticPage {
  slug: string;
  visibility: Visibility;
  /** A public page's view, as the API would answer it; undefined for protected pages. */
  view?: PublicStatusPage;
}

/**
 * Every page the static build knows of, read from the store named by `options` and closed again: every public
 * page's view in one bulk read (a fixed number of queries whatever the number of pages), the protected ones by name.
 */
export async function readStaticPages(options: StoreOptions, now: Date): Promise<StaticPage[]> {
  const store = await openStore(options);
  try {
    const bulk = await store.views.publicPagesViewData(utcDayBefore(now, MAX_HISTORY_DAYS - 1), PUBLIC_INCIDENT_LIMIT);
    const views = new Map(publicViews(bulk, now).map(({ page, view }) => [page.slug, view]));
    return (await store.views.pageSlugs()).map((row) => {
      const visibility = visibilityOf(row.visibility);
      const view = visibility === "public" ? views.get(row.slug) : undefined;
      return view ? { slug: row.slug, visibility, view } : { slug: row.slug, visibility };
    });
  } finally {
    await store.close();
  }
}
