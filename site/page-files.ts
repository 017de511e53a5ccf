/**
 * One status page of the static build, whole: its HTML document and, for a public page, the files beside it (the
 * RSS and Atom feeds of its incidents, each service's, and the JSON snapshot of its view). A build thread (page-worker.ts) or, with
 * PORCHLIGHT_BUILD_THREADS=0, the build itself makes them; the HTML goes back to Astro, which writes it as the
 * page's route, and the rest is written here.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { PageData } from "../components/porchlight-status/porchlight-page.ts";
import type { PublicStatusPage, Visibility } from "../server/contract/status-page.ts";
import { atomFeed, feedInput, rssFeed } from "../server/pages/feeds.ts";
import { renderDocument } from "../server/pages/render.ts";
import { imageOrigins, staticCsp } from "../server/pages/security.ts";

/** What every page of one build shares. */
export interface PageBuild {
  /** When the data was read (epoch ms). */
  at: number;
  /** The path the site is served under, "/" or "/sub/path/". */
  base: string;
  /** The site's public origin (PORCHLIGHT_SITE_URL), or null. */
  origin: string | null;
  /** The page script's file name under `${base}embed/`. */
  script: string;
  apiBase: string;
  locale: string;
  /** The build's output directory (a file path): the feeds and snapshots go to `<outDir>/<slug>/`. */
  outDir: string;
}

export interface PageJob {
  slug: string;
  visibility: Visibility;
  /** The page's data as JSON: the snapshot's bytes, and what the document embeds for the browser. */
  json: string;
}

/** The page's address: absolute with an origin, else rooted at the base. */
export function pageUrl(build: Pick<PageBuild, "origin" | "base">, slug: string): string {
  return `${build.origin ?? ""}${build.base}${slug}/`;
}

/** Renders the page, writes its feeds and snapshot (public pages only) and returns its HTML. */
export function buildPage(job: PageJob, build: PageBuild): string {
  const data = JSON.parse(job.json) as PageData;
  const url = pageUrl(build, job.slug);
  const html = renderDocument({
    slug: job.slug,
    data,
    json: job.json,
    at: build.at,
    base: build.base,
    canonical: build.origin ? url : null,
    script: build.script,
    apiBase: build.apiBase,
    locale: build.locale,
    feeds: job.visibility === "public",
    // Per page: its logo's and favicon's hosts, when they are addresses, are the only others it loads images from.
    cspMeta: staticCsp(build.apiBase, "items" in data ? imageOrigins(data) : []),
  });
  if (job.visibility === "public") {
    const input = feedInput(data as PublicStatusPage, url, new Date(build.at));
    const dir = join(build.outDir, job.slug);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "feed.xml"), rssFeed(input));
    writeFileSync(join(dir, "atom.xml"), atomFeed(input));
    writeFileSync(join(dir, "status.json"), job.json);
    // Each service's and group's feeds beside them, as the server answers them: items/<id>/ and groups/<id>/
    // feed.xml and atom.xml.
    const shown = data as PublicStatusPage;
    const scopes = [
      ...shown.items.map((item) => ({ kind: "items" as const, id: item.id })),
      ...(shown.groups ?? []).map((group) => ({ kind: "groups" as const, id: group.id })),
    ];
    for (const scope of scopes) {
      const one = feedInput(shown, url, new Date(build.at), scope);
      if (!one) continue;
      const scopeDir = join(dir, scope.kind, String(scope.id));
      mkdirSync(scopeDir, { recursive: true });
      writeFileSync(join(scopeDir, "feed.xml"), rssFeed(one));
      writeFileSync(join(scopeDir, "atom.xml"), atomFeed(one));
    }
  }
  return html;
}
