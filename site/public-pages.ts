import { type SitePage, siteData } from "./data.ts";
import { siteBase, siteUrl } from "./options.ts";
import { pageUrl } from "./page-files.ts";

/** The public pages: only they get feeds, snapshots and sitemap entries. */
export async function publicPages(): Promise<SitePage[]> {
  return (await siteData()).pages.filter((page) => page.visibility === "public");
}

/** Absolute when PORCHLIGHT_SITE_URL is set, else rooted at the base (feeds then need the reader to resolve it). */
export function publicPageUrl(slug: string): string {
  return pageUrl({ origin: siteUrl() ?? null, base: siteBase() }, slug);
}
