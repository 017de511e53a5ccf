import type { Context } from "hono";
import { z } from "zod";
import { PublicIncidents, PublicItems, PublicStatusPage, Slug } from "../contract/status-page.ts";
import { notFound } from "../http/errors.ts";
import { header, matchesEtag } from "../http/headers.ts";
import type { ResponseHeader } from "../http/openapi-names.ts";
import { type PageAccessDeps, pageAccess } from "../http/page-access.ts";
import { route } from "../http/route.ts";
import { negotiateEncoding } from "../views/compression.ts";
import type { Body, PageViews } from "../views/page-views.ts";

/** The status pages' reads: the access check's needs, and the page views they are served from. */
export interface PublicPageDeps extends PageAccessDeps {
  views: PageViews;
}

/** What every answer of a password or private page carries (PROTECTED_HEADERS), as the OpenAPI document names it. */
const PROTECTED_HEADER_IDS: ResponseHeader[] = ["StatusPageCacheControl", "StatusPageVary"];

export function send(c: Context, part: Body): Response {
  // c.body keeps the headers middleware already set (CORS, request id) on node-server's fast response path.
  // A 304 names no coding: a cache would copy it onto the answer it keeps, which may be in another one.
  if (matchesEtag(header(c, "if-none-match"), part.etag)) return c.body(null, 304, part.headers);
  const { bytes, headers } = part.encoded(negotiateEncoding(header(c, "accept-encoding")));
  if (c.req.method === "HEAD") return c.body(null, 200, headers);
  return c.body(bytes, 200, headers);
}

// A slug no page can have (capitals, NUL, over 64 characters) is the unknown page's 404 before any lookup.
const SlugParams = z.object({ slug: Slug.meta({ description: "The status page's slug", example: "acme" }) });

export function publicPageRoutes(deps: PublicPageDeps) {
  const check = pageAccess(deps);
  const parts = [
    { suffix: "", key: "page", schema: PublicStatusPage, what: "The status page (spec 2.6, plus theme and display)" },
    { suffix: "/items", key: "items", schema: PublicItems, what: "The page's visible items" },
    { suffix: "/incidents", key: "incidents", schema: PublicIncidents, what: "The page's incidents, newest first" },
  ] as const;
  return ["/public/v1", "/api"].flatMap((prefix) =>
    parts.map((part) =>
      route({
        method: "get",
        path: `${prefix}/status-page/{slug}${part.suffix}`,
        operationId: `getStatusPage${part.key[0]?.toUpperCase()}${part.key.slice(1)}${prefix === "/api" ? "Alias" : ""}`,
        summary: `${part.what}${prefix === "/api" ? " (alias of /public/v1)" : ""}`,
        description:
          "Public pages: no credentials, ETag and 304. Password pages: X-Status-Page-Password, exact and case-sensitive; repeated wrong passwords from one client answer 429 with Retry-After, and so does an attempt the server has no capacity to check now (before checking it). Private pages: a workspace member's bearer token, or a member's dashboard session cookie (the hosted page's own requests carry it). Every answer of a password or private page, 401 and 429 included, is `Cache-Control: private, no-store` with `Vary: Authorization, Cookie, X-Status-Page-Password`. CORS is open to any origin. Answers are compressed as Accept-Encoding allows (br, else gzip); a public page's carry `Vary: Accept-Encoding`, a protected page's keep the Vary above (they are never stored). The ETag is weak (`W/\"…\"`): it changes when something a visitor sees changes (an item's status, label, uptime or daily bar as shown, to two decimals; an incident; the page's settings) and when the page's latest check enters another half hour, not with every check's `last_check` and `response_time`. The body carries those as they are, so a 304 can leave a client with check times up to half an hour older than the server's.",
        tag: "Public status pages",
        access: "page",
        rateLimit: "attempts",
        params: SlugParams,
        response: {
          status: 200,
          description: part.what,
          schema: part.schema,
          headers: ["ETag", "StatusPageCacheControl", "StatusPageVary"],
        },
        errors: [401, 404, 429],
        // Only a password or private page answers 401 or 429.
        errorHeaders: { 401: PROTECTED_HEADER_IDS, 429: PROTECTED_HEADER_IDS },
        async handler({ params, c }) {
          const view = await deps.views.get(params.slug);
          if (!view) throw notFound("Status page");
          await check(c, view);
          return send(c, view[part.key]);
        },
      }),
    ),
  );
}
