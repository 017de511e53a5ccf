/// <reference types="astro/client" />

import { outDir, root } from "astro:config/server";
import { fileURLToPath } from "node:url";
import type { APIRoute, GetStaticPaths } from "astro";
import { type SitePage, siteData } from "../../data.ts";
import { pageLocale, pageScript, siteBase, siteUrl } from "../../options.ts";
import type { PageBuild } from "../../page-files.ts";
import { buildThreads, PagePool } from "../../page-pool.ts";

let pool: PagePool | undefined;

/** The build threads: every page of the build shares them. */
function pagePool(): PagePool {
  pool ??= new PagePool(buildThreads(), fileURLToPath(new URL("site/page-worker.mjs", root)));
  return pool;
}

/**
 * Every page: public ones with their data, protected ones as the shell with the prompt. The build threads start
 * here, so they are ready by the time the data is.
 */
export const getStaticPaths: GetStaticPaths = async () => {
  pagePool();
  return (await siteData()).pages.map((page) => ({ params: { slug: page.slug }, props: { page } }));
};

let build: Promise<PageBuild> | undefined;

/** What every page of the build shares. */
function pageBuild(): Promise<PageBuild> {
  build ??= siteData().then((data) => ({
    at: data.at,
    base: siteBase(),
    origin: siteUrl() ?? null,
    script: pageScript(),
    apiBase: data.apiBase,
    locale: pageLocale(),
    outDir: fileURLToPath(outDir),
  }));
  return build;
}

/** The page's HTML; its feeds (feed.xml, atom.xml) and snapshot (status.json) are written beside it. */
export const GET: APIRoute = async ({ props }) => {
  const { page } = props as { page: SitePage };
  const html = await pagePool().render(
    { slug: page.slug, visibility: page.visibility, json: JSON.stringify(page.data) },
    await pageBuild(),
  );
  return new Response(html, { headers: { "content-type": "text/html; charset=utf-8" } });
};
