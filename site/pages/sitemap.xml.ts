import type { APIRoute } from "astro";
import { escapeHtml } from "../../server/html.ts";
import { publicPages, publicPageUrl } from "../public-pages.ts";

/** The public pages (protected ones are not for search engines). */
export const GET: APIRoute = async () => {
  const urls = (await publicPages()).map((page) => `<url><loc>${escapeHtml(publicPageUrl(page.slug))}</loc></url>`);
  return new Response(
    `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls.join("")}</urlset>\n`,
    { headers: { "content-type": "application/xml; charset=utf-8" } },
  );
};
