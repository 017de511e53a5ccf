import type { APIRoute, GetStaticPaths } from "astro";
import { atomFeed } from "../../feeds.ts";
import { feedInput, publicPaths } from "../../public-pages.ts";

export const getStaticPaths: GetStaticPaths = publicPaths;

export const GET: APIRoute = async ({ props }) =>
  new Response(atomFeed(await feedInput(props)), {
    headers: { "content-type": "application/atom+xml; charset=utf-8" },
  });
