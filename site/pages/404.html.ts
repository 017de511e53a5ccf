import type { APIRoute } from "astro";
import { siteBase } from "../options.ts";
import { notFoundDocument } from "../render.ts";

export const GET: APIRoute = () =>
  new Response(notFoundDocument(siteBase()), { headers: { "content-type": "text/html; charset=utf-8" } });
