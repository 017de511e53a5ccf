import { createHash } from "node:crypto";
import pkg from "../../package.json" with { type: "json" };
import type { Clock } from "../clock.ts";
import { escapeHtml } from "../html.ts";
import { header, matchesEtag } from "../http/headers.ts";
import { type PageRoute, PageRoutes } from "../http/route.ts";
import type { Store } from "../store/store.ts";
import { strongEtag } from "../views/headers.ts";
import { ReadModel } from "../views/read-model.ts";

/** Public pages the landing page lists, at most (by slug); the rest are reachable at their own addresses. */
export const LANDING_PAGE_LIMIT = 50;

/**
 * The whole style sheet: the system's colours and fonts, light or dark as the visitor's system prefers. Each list is
 * a box of rows, the whole row a link (its ::before covers the row, so the link's name stays its text alone), with a
 * second line saying where it leads; a phone gets the same rows, wrapped, with no sideways scroll.
 */
const CSS = [
  ":root{color-scheme:light dark;--fg:#1f2328;--bg:#ffffff;--muted:#59636e;--link:#0550ae;--rule:#d1d9e0;--hover:#f6f8fa}",
  "@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--bg:#0d1117;--muted:#9198a1;--link:#4493f8;--rule:#3d444d;--hover:#151b23}}",
  "body{margin:0;background:var(--bg);color:var(--fg);font:1rem/1.5 system-ui,-apple-system,'Segoe UI',sans-serif}",
  "main{max-width:40rem;margin:0 auto;padding:3rem 1.25rem}",
  "h1{margin:0;font-size:2rem;line-height:1.25}h2{margin:2.5rem 0 .75rem;font-size:1.125rem;line-height:1.3}",
  "p{margin:.5rem 0}.muted{color:var(--muted)}small{font-size:.875rem}code{font-size:.875em}",
  "a{color:var(--link)}a:focus-visible{outline:2px solid var(--link);outline-offset:2px}",
  "ul{list-style:none;margin:0;padding:0;border:1px solid var(--rule);border-radius:.5rem;overflow:hidden}",
  "li{position:relative;padding:.75rem 2.75rem .75rem 1rem;overflow-wrap:anywhere}li+li{border-top:1px solid var(--rule)}",
  "li:hover{background:var(--hover)}",
  'li::after{content:"\\2192"/"";position:absolute;top:50%;right:1rem;transform:translateY(-50%);color:var(--muted)}',
  'li a{font-weight:600;text-decoration:none}li a::before{content:"";position:absolute;inset:0}',
  "li a:hover{text-decoration:underline}li a:focus-visible{outline:none}",
  "li a:focus-visible::before{outline:2px solid var(--link);outline-offset:-3px;border-radius:.5rem}",
  "li small{display:block;color:var(--muted)}",
  ".empty{border:1px dashed var(--rule);border-radius:.5rem;padding:1rem}.empty p:first-child{margin-top:0;font-weight:600}",
  ".empty p:last-child{margin-bottom:0}.empty code{white-space:nowrap}",
].join("");

/** Nothing but that style sheet: no script, no other resource, no form, no frame around it. */
const CSP = [
  "default-src 'none'",
  `style-src 'sha256-${createHash("sha256").update(CSS).digest("base64")}'`,
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "content-security-policy": CSP,
  "x-content-type-options": "nosniff",
  "referrer-policy": "strict-origin-when-cross-origin",
  // Revalidated on every use: a page made private leaves the list at once, for caches too.
  "cache-control": "no-cache",
} as const;

interface Landing {
  html: string;
  etag: string;
}

/** A row of a list: a link with a second line, muted, saying where it leads. */
const row = (href: string, name: string, note: string) =>
  `<li><a href="${escapeHtml(href)}">${escapeHtml(name)}</a><small>${escapeHtml(note)}</small></li>`;

/**
 * With no public page, what to do about it rather than an empty list: how a page is made public, and where the API
 * that does it is described.
 */
const EMPTY = [
  '<div class="empty"><p>No public status pages yet.</p>',
  '<p class="muted">A page shows up here once it is public. Create one with <code>POST /public/v1/status-pages</code>',
  " and a token from <code>porchlight token create</code>; pages are public unless made private or given a",
  ' password, and those are never listed here. See the <a href="/docs/api/reference/">API reference</a>.</p></div>',
].join("");

/** The project's home, when package.json names one. */
const HOMEPAGE = (pkg as { homepage?: string }).homepage;

/**
 * The landing page's HTML: the links every visitor needs and, unless `pages` is null (PORCHLIGHT_LANDING_PAGES=false),
 * the first public pages by slug.
 */
export function landingDocument(pages: { slug: string; name: string }[] | null, more: boolean): string {
  const list =
    pages === null
      ? ""
      : pages.length === 0
        ? EMPTY
        : `<ul>${pages.map((p) => row(`/${p.slug}`, p.name, `/${p.slug}`)).join("")}</ul>${
            more ? `<p class="muted"><small>The first ${pages.length}, by address.</small></p>` : ""
          }`;
  const readme = HOMEPAGE ? row(HOMEPAGE, "README", "Running, configuring and deploying Porchlight") : "";
  return [
    '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="color-scheme" content="light dark">',
    `<title>Porchlight</title><meta name="description" content="${escapeHtml(pkg.description)}">`,
    `<style>${CSS}</style></head><body><main>`,
    `<h1>Porchlight</h1><p class="muted">${escapeHtml(pkg.description)}</p>`,
    pages === null ? "" : '<h2 id="pages">Status pages</h2>',
    list,
    '<h2 id="developers">For developers</h2><ul>',
    row("/dashboard/", "Dashboard", "Sign in to run your sites, pages and incidents"),
    row("/docs/", "Documentation", "Running, configuring and deploying Porchlight, and every route with an example"),
    row("/docs/api/reference/", "API reference", "Every route, with its parameters, answers and errors"),
    row("/public/v1/openapi.json", "OpenAPI document", "OpenAPI 3.1, JSON"),
    readme,
    "</ul></main></body></html>\n",
  ].join("");
}

/**
 * The landing page's document, from one query kept for the views' time to live and dropped on every write in this
 * process (`invalidate`). Lists public pages only, never a private or password one, at most LANDING_PAGE_LIMIT, and
 * none at all when `listPages` is false (a server whose workspaces should not see each other's pages).
 */
export class LandingPage {
  private readonly model: ReadModel<Landing>;

  constructor(
    private readonly store: Store,
    clock: Clock,
    ttlMs: number,
    private readonly listPages = true,
  ) {
    this.model = new ReadModel(clock, ttlMs);
  }

  invalidate(): void {
    this.model.invalidate();
  }

  async get(): Promise<Landing> {
    return (await this.model.get("/", () => this.build())) as Landing;
  }

  private async build(): Promise<Landing> {
    if (!this.listPages) return withEtag(landingDocument(null, false));
    const rows = await this.store.views.publicPageNames(LANDING_PAGE_LIMIT + 1);
    return withEtag(landingDocument(rows.slice(0, LANDING_PAGE_LIMIT), rows.length > LANDING_PAGE_LIMIT));
  }
}

function withEtag(html: string): Landing {
  return { html, etag: strongEtag(html) };
}

/**
 * `GET /status`: a small HTML page of the server's public status pages and where the API is described, for visitors
 * (`/` itself goes to the dashboard).
 */
export const LANDING_PATH = "/status";

export function landingPages(landing: LandingPage): PageRoute[] {
  const pages = new PageRoutes();
  pages.get(LANDING_PATH, async (c) => {
    const { html, etag } = await landing.get();
    const headers = { ...HEADERS, etag };
    if (matchesEtag(header(c, "if-none-match"), etag)) return c.body(null, 304, headers);
    return c.body(html, 200, headers);
  });
  return pages.routes;
}
