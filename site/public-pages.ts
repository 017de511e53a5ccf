import type { PublicStatusPage } from "../server/contract/status-page.ts";
import { type SitePage, siteData } from "./data.ts";
import type { FeedInput } from "./feeds.ts";
import { siteBase, siteUrl } from "./options.ts";

/** The public pages as Astro paths: only they get feeds, snapshots and sitemap entries. */
export async function publicPaths() {
  return (await siteData()).pages
    .filter((page) => page.visibility === "public")
    .map((page) => ({ params: { slug: page.slug }, props: { page } }));
}

/** Absolute when PORCHLIGHT_SITE_URL is set, else rooted at the base (feeds then need the reader to resolve it). */
export function pageUrl(slug: string): string {
  return `${siteUrl() ?? ""}${siteBase()}${slug}/`;
}

export async function feedInput(props: Record<string, unknown>): Promise<FeedInput> {
  const { page } = props as { page: SitePage };
  const url = pageUrl(page.slug);
  return {
    page: page.data as PublicStatusPage,
    pageUrl: url,
    rssUrl: `${url}feed.xml`,
    atomUrl: `${url}atom.xml`,
    generatedAt: new Date((await siteData()).at),
  };
}
