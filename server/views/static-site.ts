import { utcDayBefore } from "../clock.ts";
import { IMAGE_PATH, MAX_HISTORY_DAYS, type PublicStatusPage, type Visibility } from "../contract/status-page.ts";
import { visibilityOf } from "../store/status-pages.ts";
import { openStore, type StoreOptions } from "../store/store.ts";
import { announcedMaintenance, PUBLIC_INCIDENT_LIMIT, publicViews } from "./page-views.ts";

/** An uploaded image a public page shows, which the build copies to its path (under the site's base). */
export interface StaticImage {
  /** /assets/<sha-256>.<ext>, as the view names it. */
  path: string;
  contentType: string;
  bytes: Uint8Array;
}

/** A page as the static build sees it: a public page with its view, a protected one by name only. */
export interface StaticPage {
  slug: string;
  visibility: Visibility;
  /** A public page's view, as the API would answer it; undefined for protected pages. */
  view?: PublicStatusPage;
  /** The uploaded images a public page's view names (its logo, its favicon). */
  images?: StaticImage[];
}

/** The paths of the uploaded images a view names. */
export const uploadedImages = (view: PublicStatusPage): string[] =>
  [view.logo, view.favicon].filter((src): src is string => !!src && IMAGE_PATH.test(src));

/**
 * Every page the static build knows of, read from the store named by `options` and closed again: every public
 * page's view in one bulk read (a fixed number of queries whatever the number of pages), the protected ones by name.
 */
export async function readStaticPages(options: StoreOptions, now: Date): Promise<StaticPage[]> {
  const store = await openStore(options);
  try {
    const bulk = await store.views.publicPagesViewData(utcDayBefore(now, MAX_HISTORY_DAYS - 1), PUBLIC_INCIDENT_LIMIT);
    const maintenance = await announcedMaintenance(
      store,
      bulk.items.map((i) => i.site_id),
      now,
    );
    const views = new Map(publicViews(bulk, now, maintenance).map(({ page, view }) => [page.slug, view]));
    const hashOf = (path: string) => path.slice("/assets/".length, path.lastIndexOf("."));
    // Every image a public page shows, in one more query.
    const stored = new Map(
      (await store.pages.images([...views.values()].flatMap((view) => uploadedImages(view).map(hashOf)))).map(
        (image) => [image.hash, image],
      ),
    );
    const pages: StaticPage[] = [];
    for (const row of await store.views.pageSlugs()) {
      const visibility = visibilityOf(row.visibility);
      const view = visibility === "public" ? views.get(row.slug) : undefined;
      if (!view) {
        pages.push({ slug: row.slug, visibility });
        continue;
      }
      const images: StaticImage[] = [];
      for (const path of uploadedImages(view)) {
        const image = stored.get(hashOf(path));
        if (image) images.push({ path, contentType: image.content_type, bytes: image.bytes });
      }
      pages.push({ slug: row.slug, visibility, view, images });
    }
    return pages;
  } finally {
    await store.close();
  }
}
