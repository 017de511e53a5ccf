import type { Context } from "hono";
import type { Clock } from "../clock.ts";
import type { PublicStatusPage } from "../contract/status-page.ts";
import { sessionFrom } from "../http/auth.ts";
import { header, otherHost } from "../http/headers.ts";
import { PROTECTED_HEADERS } from "../http/page-access.ts";
import { type PageRoute, PageRoutes } from "../http/route.ts";
import type { Store } from "../store/store.ts";
import { EncodedAnswer, Encodings, negotiateEncoding } from "../views/compression.ts";
import { pageScriptFile } from "../views/embed-assets.ts";
import type { PageView, PageViews } from "../views/page-views.ts";
import { atomFeed, type FeedInput, type FeedScope, feedInput, rssFeed } from "./feeds.ts";
import { notFoundDocument, type PageDocument, promptData, renderDocument } from "./render.ts";

type PageData = PageDocument["data"];

import { imageOrigins, pageHeaders } from "./security.ts";

export interface HostedPageDeps {
  store: Store;
  views: PageViews;
  /** The time a rendered page says its data was read at, and a feed's build date. */
  clock: Clock;
  publicUrl: string;
  embedDir?: string | undefined;
  locale?: string;
}

const HTML = "text/html; charset=utf-8";
/** Answers kept (rendered documents and feeds, by page build and variant); more are rendered again. */
const MAX_CACHED = 1000;
/** The 404 page of an unknown page or feed (plain HTML, the same every time). */
const NOT_FOUND = notFoundDocument("/");

/**
 * The hosted status pages: `/<slug>` (and `/<slug>/`), a page's custom domain at `/` by the Host header, and beside
 * each public page its feeds and JSON snapshot. Rendered on request by the static build's own renderer, and kept
 * per build of the page's view (with their compressed forms, made on first request of each coding), so a page
 * created or changed after the last build is served at once. `?embed=1` leaves out the chrome for an iframe
 * (`&transparent=1`: no background). Every page may be framed by any site (frame-ancestors *): a protected page
 * shows only its prompt, and the password travels in a header, not a cookie.
 */
export function hostedPages({ store, views, clock, publicUrl, embedDir, locale = "en" }: HostedPageDeps): PageRoute[] {
  const pages = new PageRoutes();
  /** The host a request came by when it is not the server's own: a custom domain. */
  const hostOf = otherHost(publicUrl);
  const cache = new Map<string, EncodedAnswer>();
  /** A number per build of a view: the answers made from one build are kept under it. */
  const builds = new WeakMap<PageView, number>();
  let lastBuild = 0;
  /** The answer kept under `key` for this build of the view, made by `make` when there is none. */
  const kept = (view: PageView, key: string, make: () => EncodedAnswer) => {
    let build = builds.get(view);
    if (build === undefined) {
      build = ++lastBuild;
      builds.set(view, build);
    }
    const full = `${build}|${key}`;
    let answer = cache.get(full);
    if (answer === undefined) {
      answer = make();
      if (cache.size >= MAX_CACHED) cache.clear();
      cache.set(full, answer);
    }
    return answer;
  };
  const send = (c: Context, answer: EncodedAnswer) => {
    const { bytes, headers } = answer.encoded(negotiateEncoding(header(c, "accept-encoding")));
    return c.body(bytes, 200, headers);
  };
  const encode = (text: string) => new Encodings(new TextEncoder().encode(text), "fast");
  // Read once, as the /embed routes load their files once: the build comes before the server starts.
  const script = pageScriptFile(embedDir);
  const json = (view: PageView) => new TextDecoder().decode(view.page.bytes);
  /** The page's view as the API answers it (only public views are rendered with their data). */
  const viewData = (view: PageView) => JSON.parse(json(view)) as PublicStatusPage;
  const shownIds = new WeakMap<PageView, Record<FeedScope["kind"], Set<number>>>();
  /** The ids of the items and groups a view shows, read once per view. */
  const shownIdsOf = (view: PageView) => {
    let ids = shownIds.get(view);
    if (!ids) {
      const data = viewData(view);
      ids = { items: new Set(data.items.map((i) => i.id)), groups: new Set((data.groups ?? []).map((g) => g.id)) };
      shownIds.set(view, ids);
    }
    return ids;
  };

  const slugForDomain = (host: string) => store.views.slugForDomain(host);
  /** The item or group a feed's path names (items/<id>/ or groups/<id>/). */
  const scopeOf = (c: Context): FeedScope => ({
    kind: c.req.param("kind") as FeedScope["kind"],
    id: Number(c.req.param("id")),
  });

  async function page(c: Context, slug: string, canonical: string, base: string, here: string) {
    const view = await views.get(slug);
    const headers = { ...pageHeaders("*"), "content-type": HTML };
    if (!view) return c.body(NOT_FOUND, 404, { ...headers, "cache-control": "no-store" });
    // A protected page's prompt is never stored, like every other answer about it (public-pages.ts); a public
    // one is kept per coding by caches.
    const caching: Record<string, string> =
      view.visibility === "public"
        ? { "cache-control": "public, max-age=30", vary: "Accept-Encoding" }
        : { "cache-control": PROTECTED_HEADERS["Cache-Control"], vary: PROTECTED_HEADERS.Vary };
    if (!script) {
      const unbuilt = view.visibility === "public" ? { "cache-control": "no-store" } : caching;
      return c.text("The page script is not built: run npm run build", 503, unbuilt);
    }
    const embed = c.req.query("embed") === "1";
    const transparent = c.req.query("transparent") === "1";
    /** The page's document with `data`: what every answer below shares. */
    const documentOf = (data: PageData, extra: Partial<PageDocument> = {}) =>
      renderDocument({
        slug,
        data,
        at: clock.now().getTime(),
        base,
        canonical,
        script,
        apiBase: "",
        locale,
        embed,
        transparent,
        ...extra,
      });
    // Its logo's and favicon's hosts, when its owner gave addresses, are the only others it loads images from.
    const imageHeaders = (data: PageData) => pageHeaders("*", "items" in data ? imageOrigins(data) : []);
    if (view.visibility === "private") {
      // A member signed in to the dashboard reads the page here as its visitors would; anyone else is asked to sign
      // in, on the server's own address (never on a custom domain, whose host the page's owner controls), and comes
      // back to the page there. Either answer is for this browser only.
      const member = (await sessionFrom(c, store, clock, publicUrl))?.workspaceId === view.workspaceId;
      const data = member ? viewData(view) : promptData("private");
      const signIn = `${publicUrl}/dashboard/sign-in?next=${encodeURIComponent(`/${slug}/`)}`;
      const html = documentOf(data, member || embed ? {} : { signIn });
      return c.body(html, 200, { ...headers, ...imageHeaders(data), ...caching });
    }
    // Not by script: it is read once, so every answer kept names the same one.
    const key = `page|${slug}|${embed}|${transparent}|${canonical}|${base}|${here}`;
    return send(
      c,
      kept(view, key, () => {
        const open = view.visibility === "public";
        // A password page's prompt shows its name and logo (its view holds the whole page; only those leave it).
        const data = view.visibility === "public" ? viewData(view) : promptData(view.visibility, viewData(view));
        const html = documentOf(data, {
          ...(open ? { json: json(view), etag: view.page.etag } : {}),
          feeds: open,
          feedBase: here,
        });
        return new EncodedAnswer(encode(html), { ...headers, ...imageHeaders(data), ...caching });
      }),
    );
  }

  async function feed(
    c: Context,
    slug: string,
    kind: "feed.xml" | "atom.xml" | "status.json",
    here: string,
    scope?: FeedScope,
  ) {
    const view = await views.get(slug);
    const missing = () => c.body(NOT_FOUND, 404, { "content-type": HTML, "cache-control": "no-store" });
    // A protected page has no feeds: the same 404 as an unknown page, never stored.
    if (view?.visibility !== "public") return missing();
    if (scope !== undefined) {
      // One service's or group's feeds: the same 404 for one the page does not show (known without reading the
      // page's JSON again: its item and group ids are kept with the view).
      if (!shownIdsOf(view)[scope.kind]?.has(scope.id) || kind === "status.json") return missing();
      const vary = { vary: "Accept-Encoding" };
      return send(
        c,
        kept(view, `${kind}|${here}|${scope.kind}|${scope.id}`, () => {
          const input = feedInput(viewData(view), here, clock.now(), scope) as FeedInput;
          return kind === "feed.xml"
            ? new EncodedAnswer(encode(rssFeed(input)), {
                "content-type": "application/rss+xml; charset=utf-8",
                ...vary,
              })
            : new EncodedAnswer(encode(atomFeed(input)), {
                "content-type": "application/atom+xml; charset=utf-8",
                ...vary,
              });
        }),
      );
    }
    const vary = { vary: "Accept-Encoding" };
    if (kind === "status.json") {
      // The API's own bytes, and so their compressed forms too.
      return send(
        c,
        kept(view, "status.json", () => {
          const headers = { "content-type": "application/json; charset=utf-8", "access-control-allow-origin": "*" };
          return new EncodedAnswer(view.page.body, { ...headers, ...vary });
        }),
      );
    }
    return send(
      c,
      kept(view, `${kind}|${here}`, () => {
        const input = feedInput(viewData(view), here, clock.now());
        return kind === "feed.xml"
          ? new EncodedAnswer(encode(rssFeed(input)), { "content-type": "application/rss+xml; charset=utf-8", ...vary })
          : new EncodedAnswer(encode(atomFeed(input)), {
              "content-type": "application/atom+xml; charset=utf-8",
              ...vary,
            });
      }),
    );
  }

  /** The page's custom domain, when the request came by one. */
  const byDomain = async (c: Context) => {
    const host = hostOf(c);
    return host ? { host, slug: await slugForDomain(host) } : undefined;
  };

  pages.get("/", async (c, next) => {
    const domain = await byDomain(c);
    if (!domain?.slug) return next();
    const root = `https://${domain.host}/`;
    return page(c, domain.slug, root, "/", "/");
  });
  pages.get("/:file{(?:feed|atom)\\.xml|status\\.json}", async (c, next) => {
    const domain = await byDomain(c);
    if (!domain?.slug) return next();
    return feed(c, domain.slug, c.req.param("file") as "feed.xml", `https://${domain.host}/`);
  });
  pages.get("/:kind{(?:items|groups)}/:id{[1-9][0-9]{0,9}}/:file{(?:feed|atom)\\.xml}", async (c, next) => {
    const domain = await byDomain(c);
    if (!domain?.slug) return next();
    return feed(c, domain.slug, c.req.param("file") as "feed.xml", `https://${domain.host}/`, scopeOf(c));
  });
  const bySlug = (c: Context) => {
    const slug = c.req.param("slug") as string;
    return page(c, slug, `${publicUrl}/${slug}`, "/", `/${slug}/`);
  };
  pages.get("/:slug{[a-z0-9](?:[a-z0-9-]*[a-z0-9])?}", bySlug);
  pages.get("/:slug{[a-z0-9](?:[a-z0-9-]*[a-z0-9])?}/", bySlug);
  pages.get("/:slug{[a-z0-9](?:[a-z0-9-]*[a-z0-9])?}/:file{(?:feed|atom)\\.xml|status\\.json}", (c) => {
    const slug = c.req.param("slug");
    return feed(c, slug, c.req.param("file") as "feed.xml", `${publicUrl}/${slug}/`);
  });
  pages.get(
    "/:slug{[a-z0-9](?:[a-z0-9-]*[a-z0-9])?}/:kind{(?:items|groups)}/:id{[1-9][0-9]{0,9}}/:file{(?:feed|atom)\\.xml}",
    (c) => {
      const slug = c.req.param("slug");
      return feed(c, slug, c.req.param("file") as "feed.xml", `${publicUrl}/${slug}/`, scopeOf(c));
    },
  );
  return pages.routes;
}
