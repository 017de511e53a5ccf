import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { APIRoute } from "astro";
import { EMBED_BUILD_DIR, pageScript } from "../../options.ts";

/** The page script, copied beside the pages so that dist/site is complete on its own. */
export const getStaticPaths = () => [{ params: { file: pageScript() } }];

export const GET: APIRoute = ({ params }) =>
  new Response(readFileSync(join(EMBED_BUILD_DIR, params.file as string)), {
    headers: { "content-type": "text/javascript; charset=utf-8" },
  });
