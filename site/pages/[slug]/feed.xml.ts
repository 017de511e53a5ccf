import type { APIRoute, GetStaticPaths } from "astro";
import { rssFeed } from "../../feeds.ts";
import { feedInput, publicPaths } from "../../public-pages.ts";

export const getStaticPaths: GetStaticPaths = publicPaths;

export const GET: APIRoute = async ({ props }) =>
  new Response(rssFeed(await feedInput(props)), { headers: { "content-type": "application/rss+xml; charset=utf-8" } });
