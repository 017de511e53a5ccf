import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import type { Context, Hono } from "hono";
import { BUILDS, PAGE_BUILD } from "./builds.ts";
import { ApiError } from "./errors.ts";
import { header, matchesEtag } from "./http.ts";

/**
 * Where `npm run build` writes the element: porchlight.js (the embed), porchlight-page.js (the pages' script), their
 * content-hashed copies and their manifests.
 */
export const EMBED_DIR = fileURLToPath(new URL("../../dist/embed/", import.meta.url));

/** What manifest.json says: the hashed copy's file name and its Subresource Integrity value. */
export interface EmbedManifest {
  file: string;
  integrity: string;
}

type Encoding = "br" | "gzip" | "identity";

interface Asset {
  type: string;
  etag: string;
  cacheControl: string;
  body: (encoding: Encoding) => Uint8Array;
}

const SHORT = "public, max-age=300, stale-while-revalidate=86400";
const YEAR = "public, max-age=31536000, immutable";

const COMPRESS: Record<Exclude<Encoding, "identity">, (bytes: Uint8Array) => Uint8Array> = {
  gzip: (bytes) => gzipSync(bytes, { level: 9 }),
  br: (bytes) => brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
};

function asset(bytes: Uint8Array, type: string, cacheControl: string, tag: string): Asset {
  // Compressed as tightly as the formats allow, since every visitor of every embedding page downloads these; on
  // first request, once per encoding, so that start-up does not pay for it.
  const bodies: Partial<Record<Encoding, Uint8Array>> = { identity: bytes };
  return {
    type,
    cacheControl,
    etag: `W/"${tag}"`,
    body: (encoding) => {
      bodies[encoding] ??= COMPRESS[encoding as Exclude<Encoding, "identity">](bytes);
      return bodies[encoding];
    },
  };
}

/** A build's manifest, or undefined when it has not been built. */
export function readManifest(manifest: string, dir: string = EMBED_DIR): EmbedManifest | undefined {
  const path = join(dir, manifest);
  return existsSync(path) ? (JSON.parse(readFileSync(path, "utf8")) as EmbedManifest) : undefined;
}

/** The page script's hashed file name in `dir` (from its manifest), or undefined when it has not been built. */
export function pageScriptFile(dir: string = EMBED_DIR): string | undefined {
  return readManifest(PAGE_BUILD.manifest, dir)?.file;
}

/** The built element files by name; empty when the element has not been built. */
export function loadEmbedAssets(dir: string = EMBED_DIR): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  for (const build of BUILDS) {
    const manifestPath = join(dir, build.manifest);
    if (!existsSync(manifestPath)) continue;
    const manifestBytes = readFileSync(manifestPath);
    const manifest = JSON.parse(manifestBytes.toString("utf8")) as EmbedManifest;
    const script = readFileSync(join(dir, `${build.name}.js`));
    const type = "text/javascript; charset=utf-8";
    const tag = manifest.file.split(".")[1] ?? "0";
    assets.set(`${build.name}.js`, asset(script, type, SHORT, tag));
    assets.set(manifest.file, asset(script, type, YEAR, tag));
    assets.set(build.manifest, asset(manifestBytes, "application/json; charset=utf-8", SHORT, tag));
  }
  return assets;
}

/** br when the client accepts it (about a tenth smaller than gzip), else gzip, else the plain bytes. */
function encodingFor(acceptEncoding: string | undefined): Encoding {
  const accepted = new Set<string>();
  for (const part of (acceptEncoding ?? "").slice(0, 1024).split(",")) {
    const [name = "", ...parameters] = part.split(";").map((s) => s.trim().toLowerCase());
    const q = parameters.find((p) => p.startsWith("q="));
    if (!q || Number(q.slice(2)) > 0) accepted.add(name);
  }
  if (accepted.has("br")) return "br";
  if (accepted.has("gzip")) return "gzip";
  return "identity";
}

/**
 * GET /embed/porchlight.js (cached five minutes, so a new version reaches embedding pages soon), the same bytes at
 * /embed/porchlight.HASH.js (cached a year) and /embed/manifest.json naming that copy. Any site may load them:
 * CORS is open and Cross-Origin-Resource-Policy allows other origins.
 */
export function embedRoutes(app: Hono, dir: string = EMBED_DIR): void {
  const assets = loadEmbedAssets(dir);
  app.get("/embed/:file", (c: Context) => {
    const found = assets.get(c.req.param("file") ?? "");
    if (!found) {
      throw new ApiError(
        404,
        "not_found",
        assets.size ? "No such embed file" : "The embed script is not built: run npm run build",
      );
    }
    const encoding = encodingFor(header(c, "accept-encoding"));
    const headers: Record<string, string> = {
      "content-type": found.type,
      "cache-control": found.cacheControl,
      etag: found.etag,
      vary: "Accept-Encoding",
      "access-control-allow-origin": "*",
      "cross-origin-resource-policy": "cross-origin",
      "x-content-type-options": "nosniff",
    };
    if (encoding !== "identity") headers["content-encoding"] = encoding;
    if (matchesEtag(header(c, "if-none-match"), found.etag)) return c.body(null, 304, headers);
    const body = found.body(encoding) as Uint8Array<ArrayBuffer>;
    headers["content-length"] = String(body.byteLength);
    if (c.req.method === "HEAD") return c.body(null, 200, headers);
    return c.body(body, 200, headers);
  });
}
