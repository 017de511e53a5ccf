import { createHash } from "node:crypto";
import type { Hono } from "hono";
import pkg from "../../package.json" with { type: "json" };
import { escapeHtml } from "../html.ts";
import type { Store } from "../store/store.ts";
import { header, matchesEtag } from "./http.ts";
import { ReadModel } from "./read-model.ts";
import type { Clock } from "./time.ts";

/** Public pages the landing page lists, at most (by slug); the rest are reachable at their own addresses. */
export const LANDING_PAGE_LIMIT = 50;

/** The whole style sheet: the system's colours and fonts, light or dark as the visitor's system prefers. */
const CSS = [
  ":root{color-scheme:light dark;--fg:#1f2328;--bg:#ffffff;--muted:#59636e;--link:#0550ae;--rule:#d1d9e0}",
  "@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--bg:#0d1117;--muted:#9198a1;--link:#4493f8;--rule:#3d444d}}",
  "body{margin:0;background:var(--bg);color:var(--fg);font:1rem/1.5 system-ui,-apple-system,'Segoe UI',sans-serif}",
  "main{max-width:40rem;margin:0 auto;padding:2.5rem 1.25rem}",
  "h1{margin:0 0 .25rem;font-size:2rem}h2{margin:2rem 0 .5rem;font-size:1.25rem;border-bottom:1px solid var(--rule)}",
  "p{margin:.5rem 0}.muted{color:var(--muted)}a{color:var(--link)}a:focus-visible{outline:2px solid var(--link);outline-offset:2px}",
  "ul{padding-left:1.25rem}li{margin:.25rem 0}code{font-size:.9em}",
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
  "cache-control": "public, max-age=60",
} as const;

interface Landing {
  html: string;
  etag: string;
}

/** The landing page's HTML: the links every visitor needs, and the first public pages by slug. */
export function landingDocument(pages: { slug: string; name: string }[], more: boolean): string {
  const list =
    pages.length === 0
      ? '<p class="muted">No public status pages yet.</p>'
      : `<ul>${pages
          .map((p) => `<li><a href="/${escapeHtml(p.slug)}">${escapeHtml(p.name)}</a></li>`)
          .join("")}</ul>${more ? `<p class="muted">The first ${pages.length}, by address.</p>` : ""}`;
  const readme = pkg.homepage
    ? `<li><a href="${escapeHtml(pkg.homepage)}">README</a>: running, configuring and deploying Porchlight</li>`
    : "";
  return [
    '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="color-scheme" content="light dark">',
    `<title>Porchlight</title><meta name="description" content="${escapeHtml(pkg.description)}">`,
    `<style>${CSS}</style></head><body><main>`,
    `<h1>Porchlight</h1><p class="muted">${escapeHtml(pkg.description)}</p>`,
    '<h2 id="pages">Status pages</h2>',
    list,
    '<h2 id="developers">For developers</h2><ul>',
    '<li><a href="/docs">API reference</a></li>',
    '<li><a href="/public/v1/openapi.json">OpenAPI document</a> (OpenAPI 3.1, JSON)</li>',
    readme,
    "</ul></main></body></html>\n",
  ].join("");
}

/**
 * The landing page's document, from one query kept for the views' time to live and dropped on every write in this
 * process (`invalidate`). Lists public pages only, never a private or password one, at most LANDING_PAGE_LIMIT.
 */
export class LandingPage {
  private readonly model: ReadModel<Landing>;

  constructor(
    private readonly store: Store,
    clock: Clock,
    ttlMs: number,
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
    const rows = await this.store.db
      .selectFrom("status_pages")
      .select(["slug", "name"])
      .where("visibility", "=", "public")
      .orderBy("slug")
      .limit(LANDING_PAGE_LIMIT + 1)
      .execute();
    const html = landingDocument(rows.slice(0, LANDING_PAGE_LIMIT), rows.length > LANDING_PAGE_LIMIT);
    return { html, etag: `"${createHash("sha256").update(html).digest("base64url").slice(0, 27)}"` };
  }
}

/**
 * `GET /`: a small HTML landing page until a dashboard exists. Register it after the hosted pages, which answer `/`
 * for a custom domain.
 */
export function landingRoute(app: Hono, landing: LandingPage): void {
  app.get("/", async (c) => {
    const { html, etag } = await landing.get();
    const headers = { ...HEADERS, etag };
    if (matchesEtag(header(c, "if-none-match"), etag)) return c.body(null, 304, headers);
    return c.body(html, 200, headers);
  });
}
