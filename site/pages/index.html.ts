import type { APIRoute } from "astro";
import { indexDocument } from "../../server/pages/render.ts";
import { siteBase } from "../options.ts";
import { publicPages } from "../public-pages.ts";

/** The list of public pages. */
export const GET: APIRoute = async () => {
  return new Response(indexDocument(siteBase(), await publicPages()), {
    headers: { "content-type": "text/html; charset=utf-8" },
  });
};
