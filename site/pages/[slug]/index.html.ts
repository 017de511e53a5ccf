import type { APIRoute, GetStaticPaths } from "astro";
import { type SitePage, siteData } from "../../data.ts";
import { pageLocale, pageScript, siteBase, siteUrl } from "../../options.ts";
import { renderDocument } from "../../render.ts";
import { staticCsp } from "../../security.ts";

/** Every page: public ones with their data, protected ones as the shell with the prompt. */
export const getStaticPaths: GetStaticPaths = async () =>
  (await siteData()).pages.map((page) => ({ params: { slug: page.slug }, props: { page } }));

export const GET: APIRoute = async ({ props }) => {
  const { page } = props as { page: SitePage };
  const data = await siteData();
  const base = siteBase();
  const origin = siteUrl();
  const html = await renderDocument({
    slug: page.slug,
    data: page.data,
    at: data.at,
    base,
    canonical: origin ? `${origin}${base}${page.slug}/` : null,
    script: pageScript(),
    apiBase: data.apiBase,
    locale: pageLocale(),
    feeds: page.visibility === "public",
    cspMeta: staticCsp(data.apiBase),
  });
  return new Response(html, { headers: { "content-type": "text/html; charset=utf-8" } });
};
