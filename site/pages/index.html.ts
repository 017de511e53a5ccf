import type { APIRoute } from "astro";
import { siteBase } from "../options.ts";
import { publicPaths } from "../public-pages.ts";
import { indexDocument } from "../render.ts";

/** The list of public pages. */
export const GET: APIRoute = async () => {
  const pages = (await publicPaths()).map(({ props }) => ({ slug: props.page.slug, data: props.page.data }));
  return new Response(indexDocument(siteBase(), pages), { headers: { "content-type": "text/html; charset=utf-8" } });
};
