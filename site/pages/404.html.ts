import type { APIRoute } from "astro";
import { notFoundDocument } from "../../server/pages/render.ts";
import { siteBase } from "../options.ts";

export const GET: APIRoute = () =>
  new Response(notFoundDocument(siteBase()), { headers: { "content-type": "text/html; charset=utf-8" } });
