import type { Context } from "hono";
import { ApiError } from "../http/errors.ts";
import { header, matchesEtag } from "../http/headers.ts";
import { type PageRoute, PageRoutes } from "../http/route.ts";
import { negotiateEncoding } from "../views/compression.ts";
import { EMBED_DIR, loadEmbedAssets } from "../views/embed-assets.ts";

/**
 * GET /embed/porchlight.js (cached five minutes, so a new version reaches embedding pages soon), the same bytes at
 * /embed/porchlight.HASH.js (cached a year) and /embed/manifest.json naming that copy. Any site may load them:
 * CORS is open and Cross-Origin-Resource-Policy allows other origins.
 */
export function embedPages(dir: string = EMBED_DIR): PageRoute[] {
  const pages = new PageRoutes();
  const assets = loadEmbedAssets(dir);
  pages.get("/embed/:file", (c: Context) => {
    const found = assets.get(c.req.param("file") ?? "");
    if (!found) {
      throw new ApiError(
        404,
        "not_found",
        assets.size ? "No such embed file" : "The embed script is not built: run npm run build",
      );
    }
    const encoding = negotiateEncoding(header(c, "accept-encoding"));
    const headers: Record<string, string> = {
      "content-type": found.type,
      "cache-control": found.cacheControl,
      etag: found.etag,
      vary: "Accept-Encoding",
      "access-control-allow-origin": "*",
      "cross-origin-resource-policy": "cross-origin",
      "x-content-type-options": "nosniff",
    };
    // A 304 names no coding: a cache would copy it onto the stored answer, which may be in another one.
    if (matchesEtag(header(c, "if-none-match"), found.etag)) return c.body(null, 304, headers);
    if (encoding !== "identity") headers["content-encoding"] = encoding;
    const body = found.body(encoding) as Uint8Array<ArrayBuffer>;
    headers["content-length"] = String(body.byteLength);
    if (c.req.method === "HEAD") return c.body(null, 200, headers);
    return c.body(body, 200, headers);
  });
  return pages.routes;
}
