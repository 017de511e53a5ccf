/// <reference types="astro/client" />

import { outDir, root } from "astro:config/server";
import { fileURLToPath } from "node:url";
import type { APIRoute, GetStaticPaths } from "astro";
import { type SitePage, siteData } from "../../data.ts";
import { pageLocale, pageScript, siteBase, siteUrl } from "../../options.ts";
import { buildThreads, PagePool } from "../../page-pool.ts";
import { staticCsp } from "../../security.ts";

/** Every page: public ones with their data, protected ones as the shell with the prompt. */
export const getStaticPaths: GetStaticPaths = async () =>
  (await siteData()).pages.map((page) => ({ params: { slug: page.slug }, props: { page } }));

let pool: Promise<PagePool> | undefined;

/** The build threads, started with the first page: every page of the build shares them. */
function pagePool(): Promise<PagePool> {
  pool ??= siteData().then(
    (data) =>
      new PagePool(
        {
          at: data.at,
          base: siteBase(),
          origin: siteUrl() ?? null,
          script: pageScript(),
          apiBase: data.apiBase,
          locale: pageLocale(),
          cspMeta: staticCsp(data.apiBase),
          outDir: fileURLToPath(outDir),
        },
        buildThreads(),
        fileURLToPath(new URL("site/page-worker.mjs", root)),
      ),
  );
  return pool;
}

/** The page's HTML; its feeds (feed.xml, atom.xml) and snapshot (status.json) are written beside it. */
export const GET: APIRoute = async ({ props }) => {
  const { page } = props as { page: SitePage };
  const html = await (await pagePool()).render({
    slug: page.slug,
    visibility: page.visibility,
    json: JSON.stringify(page.data),
  });
  return new Response(html, { headers: { "content-type": "text/html; charset=utf-8" } });
};
