import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { gzip } from "node:zlib";
import type { Context } from "hono";
import { escapeHtml } from "../html.ts";
import { ApiError } from "../http/errors.ts";
import { header } from "../http/headers.ts";
import { OPENAPI_PATH } from "../http/openapi.ts";
import type { App } from "../http/route.ts";

/** Where the page and its files are served. */
export const DOCS_PATH = "/docs";

const INIT_SCRIPT = fileURLToPath(new URL("./docs-init.js", import.meta.url));

const TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".png": "image/png",
};

/** Every asset's name carries a digest of its bytes, so a new swagger-ui-dist or init script is a new address. */
const YEAR = "public, max-age=31536000, immutable";

const gzipAsync = promisify(gzip);

interface Asset {
  /** The name it is served under: the file's name with a digest of its bytes before the extension. */
  name: string;
  type: string;
  bytes: Uint8Array<ArrayBuffer>;
  /**
   * Made on the first request that accepts it (text only: PNG is compressed already), off the event loop: the
   * bundle takes about a tenth of a second.
   */
  gzip?: Promise<Uint8Array<ArrayBuffer>>;
}

interface Docs {
  html: string;
  assets: Map<string, Asset>;
}

function asset(path: string, bytes: Uint8Array<ArrayBuffer>, base = basename(path, extname(path))): Asset {
  const ext = extname(path);
  const digest = createHash("sha256").update(bytes).digest("hex").slice(0, 10);
  return { name: `${base}.${digest}${ext}`, type: TYPES[ext] ?? "application/octet-stream", bytes };
}

/**
 * The page's files: Swagger UI's from the installed swagger-ui-dist (its bundle carries every dependency, so the
 * page needs no other origin), and the start-up script beside this module.
 */
function load(): Docs {
  const dist = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
  const read = (path: string) => new Uint8Array(readFileSync(path));
  const css = readFileSync(join(dist, "swagger-ui.css"), "utf8")
    // The map is left out, so that a browser's developer tools do not ask for it.
    .replace(/\/\*# sourceMappingURL=[^*]*\*\/\s*$/, "");
  const files = {
    css: asset(join(dist, "swagger-ui.css"), new TextEncoder().encode(css)),
    page: asset(join(dist, "index.css"), read(join(dist, "index.css"))),
    bundle: asset(join(dist, "swagger-ui-bundle.js"), read(join(dist, "swagger-ui-bundle.js"))),
    init: asset(INIT_SCRIPT, read(INIT_SCRIPT), "init"),
    icon32: asset(join(dist, "favicon-32x32.png"), read(join(dist, "favicon-32x32.png"))),
    icon16: asset(join(dist, "favicon-16x16.png"), read(join(dist, "favicon-16x16.png"))),
  };
  const at = (a: Asset) => `${DOCS_PATH}/${a.name}`;
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Porchlight API reference</title>
<link rel="stylesheet" href="${at(files.css)}">
<link rel="stylesheet" href="${at(files.page)}">
<link rel="icon" type="image/png" href="${at(files.icon32)}" sizes="32x32">
<link rel="icon" type="image/png" href="${at(files.icon16)}" sizes="16x16">
<script src="${at(files.bundle)}" defer></script>
<script src="${at(files.init)}" defer></script>
</head>
<body>
<main id="swagger-ui" data-url="${escapeHtml(OPENAPI_PATH)}"></main>
<noscript><p>This reference needs JavaScript. The OpenAPI document it shows is at <a href="${escapeHtml(OPENAPI_PATH)}">${escapeHtml(OPENAPI_PATH)}</a>.</p></noscript>
</body>
</html>
`;
  return { html, assets: new Map(Object.values(files).map((a) => [a.name, a])) };
}

/** Whether Accept-Encoding allows gzip (named, or through `*`, without q=0). */
function acceptsGzip(acceptEncoding: string | undefined): boolean {
  return (acceptEncoding ?? "")
    .slice(0, 1024)
    .split(",")
    .some((part) => {
      const [name = "", ...parameters] = part.split(";").map((s) => s.trim().toLowerCase());
      const q = parameters.find((p) => p.startsWith("q="));
      return (name === "gzip" || name === "*") && (!q || Number(q.slice(2)) > 0);
    });
}

/**
 * The page's policy: scripts and styles from this origin only (no inline script), images from here or data: URLs
 * (the style sheet's icons), requests to this origin and to the public URL (where "Try it out" sends them).
 */
function contentSecurityPolicy(publicUrl: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src 'self' ${new URL(publicUrl).origin}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/**
 * GET /docs and /docs/: the API reference, Swagger UI rendering the OpenAPI document at OPENAPI_PATH, and its files
 * under /docs/ (named by digest, cached a year). Not in the OpenAPI document: it is a page for people, like the
 * hosted status pages, not part of the API. The files are read on the first request, so that an app that never
 * serves the page never reads them.
 */
export function docsRoutes(app: App, { publicUrl }: { publicUrl: string }): void {
  let docs: Docs | undefined;
  const pageHeaders = {
    "content-type": "text/html; charset=utf-8",
    "content-security-policy": contentSecurityPolicy(publicUrl),
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    // Revalidated on every visit, so that the page names the current files' digests.
    "cache-control": "no-cache",
  };
  const page = (c: Context) => {
    docs ??= load();
    return c.body(docs.html, 200, pageHeaders);
  };
  app.get(DOCS_PATH, page);
  app.get(`${DOCS_PATH}/`, page);
  app.get(`${DOCS_PATH}/:file`, async (c: Context) => {
    docs ??= load();
    const found = docs.assets.get(c.req.param("file") ?? "");
    if (!found) throw new ApiError(404, "not_found", "No such file of the API reference");
    const headers: Record<string, string> = {
      "content-type": found.type,
      "cache-control": YEAR,
      "x-content-type-options": "nosniff",
    };
    let body = found.bytes;
    if (found.type.startsWith("text/")) {
      headers.vary = "Accept-Encoding";
      if (acceptsGzip(header(c, "accept-encoding"))) {
        found.gzip ??= gzipAsync(found.bytes, { level: 9 }).then((zipped) => new Uint8Array(zipped));
        body = await found.gzip;
        headers["content-encoding"] = "gzip";
      }
    }
    headers["content-length"] = String(body.byteLength);
    return c.body(body, 200, headers);
  });
}
