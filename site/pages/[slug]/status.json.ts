import type { APIRoute, GetStaticPaths } from "astro";
import { publicPaths } from "../../public-pages.ts";

export const getStaticPaths: GetStaticPaths = publicPaths;

/** The page's view as the API answers it (spec 4.2), as of the build. */
export const GET: APIRoute = ({ props }) =>
  new Response(JSON.stringify((props as { page: { data: unknown } }).page.data), {
    headers: { "content-type": "application/json; charset=utf-8" },
  });
