import type { APIRoute } from "astro";
import { siteBase } from "../options.ts";
import { publicPages } from "../public-pages.ts";
import { indexDocument } from "../render.ts";

/** The list of public pages. */
export const GET: APIRoute = async () => {
  return new Response(indexDocument(siteBase(), await publicPages()), {
    headers: { "content-type": "text/html; charset=utf-8" },
  });
};
