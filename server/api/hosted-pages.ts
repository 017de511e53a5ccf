import type { Context, Hono } from "hono";
import type { PageData } from "../../components/porchlight-status/porchlight-page.ts";
import { atomFeed, feedInput, rssFeed } from "../../site/feeds.ts";
import { notFoundDocument, promptData, renderDocument } from "../../site/render.ts";
import { pageHeaders } from "../../site/security.ts";
import type { PublicStatusPage } from "../contract/status-page.ts";
import type { Store } from "../store/store.ts";
import { pageScriptFile } from "./embed.ts";
import { header } from "./http.ts";
import type { PageView, PageViews } from "./page-views.ts";
import { PROTECTED_HEADERS } from "./public-pages.ts";

export interface HostedPageDeps {
  store: Store;
  views: PageViews;
  publicUrl: string;
  embedDir?: string | undefined;
  locale?: string;
}

const HTML = "text/html; charset=utf-8";
/** Rendered documents kept, by page version and variant; more are rendered again. */
const MAX_CACHED = 1000;
/** The 404 page of an unknown page or feed (plain HTML, the same every time). */
const NOT_FOUND = notFoundDocument("/");

/**
 * The hosted status pages: `/<slug>` (and `/<slug>/`), a page's custom domain at `/` by the Host header, and beside
 * each public page its feeds and JSON snapshot. Rendered on request by the static build's own renderer, and kept
 * per page version, so a page created or changed after the last build is served at once. `?embed=1` leaves out
 * the chrome for an iframe (`&transparent=1`: no background). Every page may be framed by any site
 * (frame-ancestors *): a protected page shows only its prompt, and the password travels in a header, not a cookie.
 */
export function hostedPageRoutes(app: Hono, { store, views, publicUrl, embedDir, locale = "en" }: HostedPageDeps) {
  /** The server's own host name, without a port: requests by it are not by a custom domain. */
  const ownHostname = new URL(publicUrl).host.toLowerCase().replace(/:\d+$/, "");
  const cache = new Map<string, string>();
  // Read once, as the /embed routes load their files once: the build comes before the server starts.
  const script = pageScriptFile(embedDir);
  /** The page's view as the API answers it (only public views are rendered with their data). */
  const viewData = (view: PageView) => JSON.parse(new TextDecoder().decode(view.page.bytes)) as PublicStatusPage;

  async function slugForDomain(host: string): Promise<string | undefined> {
    const row = await store.db
      .selectFrom("status_pages")
      .select("slug")
      .where("custom_domain", "=", host)
      .executeTakeFirst();
    return row?.slug;
  }

  async function page(c: Context, slug: string, canonical: string, base: string, here: string) {
    const view = await views.get(slug);
    const headers = { ...pageHeaders("*"), "content-type": HTML };
    if (!view) return c.body(NOT_FOUND, 404, { ...headers, "cache-control": "no-store" });
    // A protected page's prompt is never stored, like every other answer about it (public-pages.ts).
    const caching: Record<string, string> =
      view.visibility === "public"
        ? { "cache-control": "public, max-age=30" }
        : { "cache-control": PROTECTED_HEADERS["Cache-Control"], vary: PROTECTED_HEADERS.Vary };
    if (!script) {
      const unbuilt = view.visibility === "public" ? { "cache-control": "no-store" } : caching;
      return c.text("The page script is not built: run npm run build", 503, unbuilt);
    }
    const embed = c.req.query("embed") === "1";
    const transparent = c.req.query("transparent") === "1";
    // Not by script: it is read once, so every entry of this cache names the same one.
    const key = `${slug}|${view.page.etag}|${embed}|${transparent}|${canonical}`;
    let html = cache.get(key);
    if (html === undefined) {
      const data: PageData = view.visibility === "public" ? viewData(view) : promptData(view.visibility);
      html = renderDocument({
        slug,
        data,
        at: Date.now(),
        base,
        canonical,
        script,
        apiBase: "",
        locale,
        embed,
        transparent,
        feeds: view.visibility === "public",
        feedBase: here,
      });
      if (cache.size >= MAX_CACHED) cache.clear();
      cache.set(key, html);
    }
    return c.body(html, 200, { ...headers, ...caching });
  }

  async function feed(c: Context, slug: string, kind: "feed.xml" | "atom.xml" | "status.json", here: string) {
    const view = await views.get(slug);
    // A protected page has no feeds: the same 404 as an unknown page, never stored.
    if (view?.visibility !== "public") {
      return c.body(NOT_FOUND, 404, { "content-type": HTML, "cache-control": "no-store" });
    }
    if (kind === "status.json") {
      return c.body(view.page.bytes, 200, {
        "content-type": "application/json; charset=utf-8",
        "access-control-allow-origin": "*",
      });
    }
    const input = feedInput(viewData(view), here, new Date());
    return kind === "feed.xml"
      ? c.body(rssFeed(input), 200, { "content-type": "application/rss+xml; charset=utf-8" })
      : c.body(atomFeed(input), 200, { "content-type": "application/atom+xml; charset=utf-8" });
  }

  /** The page's custom domain, when the request came by one. */
  const byDomain = async (c: Context) => {
    const host = (header(c, "host") ?? "").toLowerCase().replace(/:\d+$/, "");
    return host && host !== ownHostname ? { host, slug: await slugForDomain(host) } : undefined;
  };

  app.get("/", async (c, next) => {
    const domain = await byDomain(c);
    if (!domain?.slug) return next();
    const root = `https://${domain.host}/`;
    return page(c, domain.slug, root, "/", "/");
  });
  app.get("/:file{(?:feed|atom)\\.xml|status\\.json}", async (c, next) => {
    const domain = await byDomain(c);
    if (!domain?.slug) return next();
    return feed(c, domain.slug, c.req.param("file") as "feed.xml", `https://${domain.host}/`);
  });
  const bySlug = (c: Context) => {
    const slug = c.req.param("slug") as string;
    return page(c, slug, `${publicUrl}/${slug}`, "/", `/${slug}/`);
  };
  app.get("/:slug{[a-z0-9](?:[a-z0-9-]*[a-z0-9])?}", bySlug);
  app.get("/:slug{[a-z0-9](?:[a-z0-9-]*[a-z0-9])?}/", bySlug);
  app.get("/:slug{[a-z0-9](?:[a-z0-9-]*[a-z0-9])?}/:file{(?:feed|atom)\\.xml|status\\.json}", (c) => {
    const slug = c.req.param("slug");
    return feed(c, slug, c.req.param("file") as "feed.xml", `${publicUrl}/${slug}/`);
  });
}
