import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Context } from "hono";
import { ApiError } from "../http/errors.ts";
import { header, matchesEtag } from "../http/headers.ts";
import { type PageRoute, PageRoutes } from "../http/route.ts";
import { Encodings, negotiateEncoding } from "../views/compression.ts";

/** Where `npm run build` (and `npm start`'s prestart) writes the dashboard: index.html and assets/NAME-HASH.js. */
export const DASHBOARD_DIR = fileURLToPath(new URL("../../dist/dashboard/", import.meta.url));

const TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".html": "text/html; charset=utf-8",
  ".svg": "image/svg+xml",
  ".woff2": "font/woff2",
};

/**
 * The dashboard's own policy: scripts, styles, images and requests from this origin only (the preview loads the
 * element from /embed/ here), inline styles for Lit's adopted sheets' fallback, never framed by another site.
 */
const DOCUMENT_HEADERS = {
  "content-type": TYPES[".html"] as string,
  "cache-control": "no-cache",
  "content-security-policy":
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: https:; connect-src 'self'; frame-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "cross-origin-opener-policy": "same-origin",
};

interface File {
  type: string;
  etag: string;
  bodies: Encodings;
}

function load(dir: string): Map<string, File> {
  const files = new Map<string, File>();
  const add = (name: string, path: string) => {
    const bytes = readFileSync(path);
    const etag = `"${createHash("sha256").update(bytes).digest("base64url").slice(0, 22)}"`;
    files.set(name, {
      type: TYPES[extname(name)] ?? "application/octet-stream",
      etag,
      bodies: new Encodings(bytes as Uint8Array<ArrayBuffer>, "max"),
    });
  };
  if (existsSync(join(dir, "index.html"))) add("index.html", join(dir, "index.html"));
  const assets = join(dir, "assets");
  for (const name of existsSync(assets) ? readdirSync(assets) : []) add(`assets/${name}`, join(assets, name));
  return files;
}

/**
 * The owner's dashboard under /dashboard/: its hashed assets cached a year, and for every other path under it the
 * application's page (revalidated each time), which routes in the browser. Register it before the hosted pages,
 * whose slugs would otherwise take /dashboard.
 */
export function dashboardPages({
  dir = DASHBOARD_DIR,
  publicUrl,
  isCustomDomain,
}: {
  dir?: string | undefined;
  publicUrl: string;
  isCustomDomain: (host: string) => Promise<boolean>;
}): PageRoute[] {
  const pages = new PageRoutes();
  const files = load(dir);
  const own = new URL(publicUrl).hostname;
  /** A page's custom domain is its owner's host: the dashboard (and its cookie) stay on the server's own address. */
  const elsewhere = async (c: Context) => {
    const host = (header(c, "host") ?? "").toLowerCase().replace(/:\d+$/, "").replace(/\.+$/, "");
    return host !== "" && host !== own && (await isCustomDomain(host));
  };
  const send = (c: Context, file: File, headers: Record<string, string>) => {
    const all: Record<string, string> = { ...headers, etag: file.etag, vary: "Accept-Encoding" };
    if (matchesEtag(header(c, "if-none-match"), file.etag)) return c.body(null, 304, all);
    const encoding = negotiateEncoding(header(c, "accept-encoding"));
    if (encoding !== "identity") all["content-encoding"] = encoding;
    const body = file.bodies.get(encoding) as Uint8Array<ArrayBuffer>;
    all["content-length"] = String(body.byteLength);
    if (c.req.method === "HEAD") return c.body(null, 200, all);
    return c.body(body, 200, all);
  };
  const page = async (c: Context) => {
    if (await elsewhere(c)) return c.redirect(`${publicUrl}${c.req.path}${new URL(c.req.url).search}`, 302);
    const index = files.get("index.html");
    if (!index) throw new ApiError(404, "not_found", "The dashboard is not built: run npm run build");
    return send(c, index, DOCUMENT_HEADERS);
  };
  pages.get("/dashboard", (c) => c.redirect("/dashboard/", 301));
  pages.get("/dashboard/assets/:file", (c) => {
    const file = files.get(`assets/${c.req.param("file")}`);
    if (!file) throw new ApiError(404, "not_found", "No such dashboard file");
    return send(c, file, {
      "content-type": file.type,
      "cache-control": "public, max-age=31536000, immutable",
      "x-content-type-options": "nosniff",
    });
  });
  pages.get("/dashboard/*", page);
  // What a browser asks for on any page of this origin that names no icon (the API reference, a JSON answer): the
  // dashboard's icon (index.html links it), or nothing to show rather than a 404.
  const icon = [...files].find(([name]) => /^assets\/favicon-[\w-]+\.svg$/.test(name))?.[1];
  pages.get("/favicon.ico", (c) =>
    icon ? send(c, icon, { "content-type": icon.type, "cache-control": "public, max-age=86400" }) : c.body(null, 204),
  );
  return pages.routes;
}
