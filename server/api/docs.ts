import { createHash } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { gzip } from "node:zlib";
import type { Context } from "hono";
import { escapeHtml } from "../html.ts";
import { ApiError } from "../http/errors.ts";
import { header, matchesEtag } from "../http/headers.ts";
import { OPENAPI_PATH } from "../http/openapi.ts";
import { type PageRoute, PageRoutes } from "../http/route.ts";
import { Encodings, negotiateEncoding } from "../views/compression.ts";

/** Where the documentation site is served: dist/docs, built by `npm run build:docs` (and `npm start`). */
export const DOCS_PATH = "/docs";

/** Where the API reference (Swagger UI on the OpenAPI document) and its files are served, linked from the site. */
export const REFERENCE_PATH = `${DOCS_PATH}/api/reference`;

/** What bin/build-docs.mjs writes: the Starlight site of docs/. */
export const DOCS_DIR = fileURLToPath(new URL("../../dist/docs/", import.meta.url));

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
  const at = (a: Asset) => `${REFERENCE_PATH}/${a.name}`;
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
 * GET /docs/api/reference/: the API reference, Swagger UI rendering the OpenAPI document at OPENAPI_PATH, and its
 * files beside it (named by digest, cached a year); then the documentation site under /docs/ (siteRoutes). Not in
 * the OpenAPI document: they are pages for people, like the hosted status pages, not part of the API. The files are
 * read on the first request, so that an app that never serves the pages never reads them.
 */
export function docsPages({ publicUrl, dir = DOCS_DIR }: { publicUrl: string; dir?: string }): PageRoute[] {
  const pages = new PageRoutes();
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
  pages.get(REFERENCE_PATH, page);
  pages.get(`${REFERENCE_PATH}/`, page);
  pages.get(`${REFERENCE_PATH}/:file`, async (c: Context) => {
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
  siteRoutes(pages, dir);
  return pages.routes;
}

/** The site's types: Starlight's pages, scripts and styles, Pagefind's search index (its own compressed files). */
const SITE_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".svg": "image/svg+xml",
  ".xml": "application/xml; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
  ".wasm": "application/wasm",
};

interface SiteFile {
  type: string;
  etag: string;
  bodies: Encodings;
  /** Compressed by us: text. Pagefind's index files are compressed already, images and fonts too. */
  compressible: boolean;
  /** Only for HTML: its policy, with the digest of each of its inline scripts (Starlight's theme and tab state). */
  csp?: string;
}

/**
 * A page's policy: scripts from this origin and the page's own inline ones (by digest, so no other inline script
 * runs), WebAssembly for the search (Pagefind), styles from here and inline (Starlight's style attributes), nothing
 * from another origin, never framed.
 */
function sitePolicy(html: string): string {
  const digests = [...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].map(
    (m) =>
      `'sha256-${createHash("sha256")
        .update(m[1] as string)
        .digest("base64")}'`,
  );
  return [
    "default-src 'none'",
    ["script-src 'self' 'wasm-unsafe-eval'", ...new Set(digests)].join(" "),
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
}

function readSiteFile(path: string): SiteFile {
  const bytes = new Uint8Array(readFileSync(path));
  const type = SITE_TYPES[extname(path)] ?? "application/octet-stream";
  return {
    type,
    etag: `"${createHash("sha256").update(bytes).digest("base64url").slice(0, 22)}"`,
    bodies: new Encodings(bytes, "max"),
    compressible: /^(text\/|application\/(json|xml)|image\/svg)/.test(type),
    csp: type.startsWith("text/html") ? sitePolicy(new TextDecoder().decode(bytes)) : undefined,
  };
}

/** What /docs/ says where dist/docs was never built: how to build it, and where the API reference is meanwhile. */
const NOT_BUILT = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Documentation not built · Porchlight</title></head>
<body>
<main>
<h1>The documentation is not built</h1>
<p>This server has no <code>dist/docs</code>. In a checkout, <code>npm start</code> builds it when Astro is installed
(<code>npm install</code> with the dev dependencies), or build it yourself with <code>npm run build:docs</code>, then
reload this page. The same pages are the Markdown files in <code>docs/src/content/docs/</code>.</p>
<p>The <a href="${REFERENCE_PATH}/">API reference</a> (every route, from the OpenAPI document) needs no build.</p>
</main>
</body>
</html>
`;

/** The file under `dir` that a path below /docs/ names, or undefined: no dot-files, no way out of `dir`. */
function sitePath(dir: string, rest: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(rest);
  } catch {
    return undefined;
  }
  const parts = decoded.split("/");
  if (parts.some((part) => part.startsWith(".") || part.includes("\\") || part.includes("\0"))) return undefined;
  return join(dir, ...parts);
}

/**
 * The documentation site under /docs/: every file of dist/docs, read on its first request and kept (with its
 * compressed forms) for the process's life; a directory's index.html at its address with a slash (without one, a
 * redirect); the site's own 404 page for anything else. Astro's hashed files (_astro/) are cached a year, the rest
 * revalidated by ETag. Without a build, every address answers a page saying how to make one.
 */
function siteRoutes(pages: PageRoutes, dir: string): void {
  const files = new Map<string, SiteFile>();
  const fileAt = (path: string | undefined): SiteFile | undefined => {
    if (path === undefined) return undefined;
    let file = files.get(path);
    if (!file && existsSync(path) && statSync(path).isFile()) {
      file = readSiteFile(path);
      files.set(path, file);
    }
    return file;
  };
  const send = (c: Context, file: SiteFile, status: 200 | 404, cache: string) => {
    const headers: Record<string, string> = { "content-type": file.type, "cache-control": cache, etag: file.etag };
    if (file.csp) {
      headers["content-security-policy"] = file.csp;
      headers["referrer-policy"] = "no-referrer";
    }
    if (file.compressible) headers.vary = "Accept-Encoding";
    if (status === 200 && matchesEtag(header(c, "if-none-match"), file.etag)) return c.body(null, 304, headers);
    const encoding = file.compressible ? negotiateEncoding(header(c, "accept-encoding")) : "identity";
    if (encoding !== "identity") headers["content-encoding"] = encoding;
    const body = file.bodies.get(encoding);
    headers["content-length"] = String(body.byteLength);
    if (c.req.method === "HEAD") return c.body(null, status, headers);
    return c.body(body, status, headers);
  };
  pages.get(DOCS_PATH, (c) => c.redirect(`${DOCS_PATH}/`, 301));
  pages.get(`${DOCS_PATH}/*`, (c) => {
    if (!existsSync(join(dir, "index.html"))) {
      return c.body(NOT_BUILT, 404, {
        "content-type": "text/html; charset=utf-8",
        "cache-control": "no-cache",
        "content-security-policy": "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
      });
    }
    const rest = c.req.path.slice(DOCS_PATH.length + 1);
    const path = sitePath(dir, rest.endsWith("/") || rest === "" ? `${rest}index.html` : rest);
    const found = fileAt(path);
    if (found) {
      const immutable = rest.startsWith("_astro/");
      return send(c, found, 200, immutable ? "public, max-age=31536000, immutable" : "no-cache");
    }
    if (path !== undefined && !rest.endsWith("/") && fileAt(join(path, "index.html"))) {
      return c.redirect(`${c.req.path}/`, 301);
    }
    const missing = fileAt(join(dir, "404.html"));
    if (!missing) throw new ApiError(404, "not_found", "No such page of the documentation");
    return send(c, missing, 404, "no-cache");
  });
}
