import type { Context } from "hono";
import { z } from "zod";
import { Slug } from "../contract/status-page.ts";
import {
  StatuspageComponents,
  StatuspageIncidents,
  StatuspageMaintenances,
  StatuspageStatus,
  StatuspageSummary,
} from "../contract/statuspage.ts";
import { ApiError, notFound } from "../http/errors.ts";
import { otherHost } from "../http/headers.ts";
import { route } from "../http/route.ts";
import type { Store } from "../store/store.ts";
import { PUBLIC_CORS } from "../views/headers.ts";
import { type PageViews, statuspageDocument } from "../views/page-views.ts";
import { STATUSPAGE_DOCUMENTS, type StatuspageDocument } from "../views/statuspage.ts";
import { send } from "./public-pages.ts";

export interface StatuspageDeps {
  store: Store;
  views: PageViews;
  publicUrl: string;
}

const SCHEMAS: Record<StatuspageDocument, z.ZodType> = {
  summary: StatuspageSummary,
  status: StatuspageStatus,
  components: StatuspageComponents,
  incidents: StatuspageIncidents,
  "incidents/unresolved": StatuspageIncidents,
  "scheduled-maintenances": StatuspageMaintenances,
  "scheduled-maintenances/upcoming": StatuspageMaintenances,
  "scheduled-maintenances/active": StatuspageMaintenances,
};

const WHAT: Record<StatuspageDocument, string> = {
  summary: "The page's status, components, unresolved incidents and upcoming or active maintenance",
  status: "The page's status: an indicator and its description",
  components: "The page's components (its visible items)",
  incidents: "The page's 50 most recent incidents, newest first",
  "incidents/unresolved": "The page's unresolved incidents",
  "scheduled-maintenances": "The page's announced maintenance: upcoming and in progress",
  "scheduled-maintenances/upcoming": "The page's maintenance still to begin",
  "scheduled-maintenances/active": "The page's maintenance in progress",
};

const SlugParams = z.object({ slug: Slug.meta({ description: "The status page's slug", example: "acme" }) });

/** `summary` → `Summary`, `incidents/unresolved` → `IncidentsUnresolved`. */
const pascal = (doc: string) =>
  doc
    .split(/[/-]/)
    .map((w) => `${w[0]?.toUpperCase()}${w.slice(1)}`)
    .join("");

/**
 * Statuspage's public v2 API for every public page (views/statuspage.ts): at `/<slug>/api/v2/<document>.json` on
 * the server, and at `/api/v2/<document>.json` on the page's custom domain, from the page's view
 * (statuspageDocument: made once per build of the view and kept with it). The fast path answers a public page's
 * documents by slug from memory once its view is built (http/fast-path.ts).
 */
export function statuspageRoutes({ store, views, publicUrl }: StatuspageDeps) {
  const hostOf = otherHost(publicUrl);
  /** The document of a page by slug: public pages only (a password page is 401, a private one unknown). */
  const answer = async (c: Context, slug: string | undefined, doc: StatuspageDocument) => {
    const view = slug === undefined ? null : await views.get(slug);
    if (!view || view.visibility === "private") throw notFound("Status page");
    if (view.visibility === "password-protected") {
      throw new ApiError(401, "unauthorized", "This status page has a password: its Statuspage API is not open");
    }
    // Open to any origin, as a public page's reads are; the refusals above carry no CORS.
    for (const [name, value] of Object.entries(PUBLIC_CORS)) c.header(name, value);
    return send(c, statuspageDocument(view, doc, publicUrl));
  };
  /** The slug of the page whose custom domain the request came by; undefined on the server's own host. */
  const slugByDomain = async (c: Context) => {
    const host = hostOf(c);
    return host ? await store.views.slugForDomain(host) : undefined;
  };
  return STATUSPAGE_DOCUMENTS.flatMap((doc) => {
    const common = {
      method: "get" as const,
      summary: WHAT[doc],
      tag: "Statuspage API" as const,
      access: "none" as const,
      response: {
        status: 200,
        description: `${WHAT[doc]}, in Statuspage's v2 shape`,
        schema: SCHEMAS[doc],
        headers: ["ETag" as const],
      },
      errors: [401, 404],
    };
    return [
      route({
        ...common,
        path: `/{slug}/api/v2/${doc}.json`,
        operationId: `getStatuspage${pascal(doc)}`,
        description:
          "Statuspage's v2 document of a public page, by slug. HEAD answers as GET without the body (Statuspage exporters detect the API by HEAD on components.json). A password page answers 401, a private or unknown one 404, neither with CORS.",
        params: SlugParams,
        handler: ({ params, c }) => answer(c, params.slug, doc),
      }),
      route({
        ...common,
        path: `/api/v2/${doc}.json`,
        operationId: `getStatuspage${pascal(doc)}ByDomain`,
        description:
          "The same document on a page's custom domain (the Host header names the page): where Statuspage serves it. 404 on the server's own host.",
        handler: async ({ c }) => answer(c, await slugByDomain(c), doc),
      }),
    ];
  });
}
