import type { IncomingMessage, ServerResponse } from "node:http";
import { hashToken } from "../accounts/secrets.ts";
import type { Clock } from "../clock.ts";
import { ROLE_PERMISSIONS, type RoleName } from "../contract/account.ts";
import { unstorableText } from "../contract/common.ts";
import { parseStatDays } from "../contract/site.ts";
import type { Logger } from "../log.ts";
import type { Store } from "../store/store.ts";
import { negotiateEncoding } from "../views/compression.ts";
import { keptEtag, PUBLIC_CORS, pollHeaders } from "../views/headers.ts";
import { type Body, type PageViews, statuspageDocument } from "../views/page-views.ts";
import type { ReadModel } from "../views/read-model.ts";
import { type SiteRecord, siteAnswer, siteRecordKey } from "../views/site-detail.ts";
import { STATUSPAGE_DOCUMENTS, type StatuspageDocument } from "../views/statuspage.ts";
import { bearerToken } from "./auth.ts";
import { ApiError, errorBody } from "./errors.ts";
import { type FastPathCounts, JSON_TYPE, logRequest, matchesEtag, requestIdFrom } from "./headers.ts";
import type { RequestObserver } from "./metrics.ts";
import { type Limiter, type LimitRule, limitHeaders, rateLimited } from "./rate-limit.ts";

const PUBLIC_READ = /^(\/public\/v1|\/api)\/status-page\/([a-z0-9-]{1,64})(\/items|\/incidents)?$/;
/** A page's Statuspage v2 document by slug (api/statuspage.ts): the slug, then the document. */
const STATUSPAGE_READ = new RegExp(`^/([a-z0-9-]{1,64})/api/v2/(${STATUSPAGE_DOCUMENTS.join("|")})\\.json$`);

/**
 * Answers GET and HEAD of a public status page whose view is in memory (and of its Statuspage v2 documents by
 * slug) straight from node:http, as the bytes they are, before the framework: the hottest route of the service, hit by every visitor and every embed.
 * Anything else (a view not built yet or expired, a protected page, another route) returns false and goes to
 * the Hono app, which answers the same request the same way; a test compares the two.
 */
export function publicReadFastPath(
  views: PageViews,
  logger: Logger,
  counts: FastPathCounts,
  observe: RequestObserver,
  publicUrl: string,
) {
  return function serveFromMemory(req: IncomingMessage, res: ServerResponse): boolean {
    const method = req.method;
    if (method !== "GET" && method !== "HEAD") return false;
    const url = req.url ?? "";
    const q = url.indexOf("?");
    const path = q < 0 ? url : url.slice(0, q);
    let part: Body;
    let route: string;
    const match = PUBLIC_READ.exec(path);
    const statuspage = match ? null : STATUSPAGE_READ.exec(path);
    const view = match ? views.peek(match[2] as string) : statuspage ? views.peek(statuspage[1] as string) : undefined;
    if (view?.visibility !== "public") return false;
    const started = performance.now();
    if (match) {
      const suffix = match[3] ?? "";
      part = suffix === "/items" ? view.items : suffix === "/incidents" ? view.incidents : view.page;
      // The pattern the app registers the same route under, so that both paths count as one route.
      route = `${match[1]}/status-page/:slug${suffix}`;
    } else {
      const doc = (statuspage as RegExpExecArray)[2] as StatuspageDocument;
      part = statuspageDocument(view, doc, publicUrl);
      route = `/:slug/api/v2/${doc}.json`;
    }
    const requestId = requestIdFrom(req.headers["x-request-id"] as string | undefined);
    let status = 200;
    if (matchesEtag(req.headers["if-none-match"], part.etag)) {
      status = 304;
      res.writeHead(304, { ...part.headers, ...PUBLIC_CORS, "x-request-id": requestId });
      res.end();
    } else {
      const sent = part.encoded(negotiateEncoding(req.headers["accept-encoding"]));
      res.writeHead(200, [...sent.rawHeaders, "x-request-id", requestId]);
      res.end(method === "HEAD" ? undefined : sent.bytes);
    }
    counts.add(match ? "status page" : "statuspage api", status);
    const ms = Math.round((performance.now() - started) * 10) / 10;
    logRequest(logger, { requestId, method, path, status, ms }, "debug");
    observe(route, method, status, ms / 1000);
    return true;
  };
}

const SITE_DETAIL = /^\/public\/v1\/site\/([0-9a-f]{24})$/;
/** The app's pattern for the same route (see publicReadFastPath). */
const SITE_DETAIL_ROUTE = "/public/v1/site/:siteId";

/**
 * Answers GET /public/v1/site/{id} from memory when everything it needs is there: a token this process has
 * already checked (and that no write has made suspect since, see Store.accounts.peekPrincipal), the site's record, and
 * the serialized answer for this window and role. Otherwise the app answers, and builds what was missing.
 */
export function siteDetailFastPath(deps: {
  store: Store;
  records: ReadModel<SiteRecord>;
  clock: Clock;
  logger: Logger;
  counts: FastPathCounts;
  limiter: Limiter;
  apiRule: LimitRule;
  observe?: RequestObserver;
}) {
  const { store, records, clock, logger, counts, limiter, apiRule, observe = () => {} } = deps;
  return function serveFromMemory(req: IncomingMessage, res: ServerResponse): boolean {
    if (req.method !== "GET") return false;
    const url = req.url ?? "";
    const q = url.indexOf("?");
    const path = q < 0 ? url : url.slice(0, q);
    const match = SITE_DETAIL.exec(path);
    if (!match) return false;
    const token = bearerToken(req.headers.authorization);
    if (token === null || token === "invalid") return false;
    const now = clock.now();
    const principal = store.accounts.peekPrincipal(hashToken(token), now);
    if (!principal || !ROLE_PERMISSIONS[principal.role as RoleName].includes("sites:read")) return false;
    const record = records.peek(siteRecordKey(match[1] as string, now));
    if (!record || record.workspaceId !== principal.workspaceId) return false;
    const query = q < 0 ? undefined : new URLSearchParams(url.slice(q + 1));
    // The app refuses a query holding what text cannot (see parseOrThrow): its 400 comes from there.
    if (query && [...query].some(([key, value]) => unstorableText(key) || unstorableText(value))) return false;
    const started = performance.now();
    const statDays = parseStatDays(query?.getAll("statDays"));
    const { json } = siteAnswer(record, principal, statDays, now);
    const requestId = requestIdFrom(req.headers["x-request-id"] as string | undefined);
    // The token's limit, as on every authenticated route: the answer is ready, only the count is awaited.
    void limiter.consume(apiRule, principal.tokenId).then(
      (limited) => {
        const headers = Object.entries(limitHeaders(limited)).flat();
        if (!limited.allowed) {
          const error = rateLimited(limited);
          const body = JSON.stringify(errorBody(error));
          res.writeHead(429, [
            "content-type",
            JSON_TYPE,
            "x-content-type-options",
            "nosniff",
            "x-request-id",
            requestId,
            ...Object.entries(error.headers ?? {}).flat(),
          ]);
          res.end(body);
          counts.add("site detail", 429);
          observe(SITE_DETAIL_ROUTE, "GET", 429, (performance.now() - started) / 1000);
          return;
        }
        // The app's ETag and 304 (see the ETag branch in app.ts), so a poll costs the same on either path.
        const etag = keptEtag(json);
        const common = ["x-content-type-options", "nosniff", "x-request-id", requestId, ...headers];
        const poll = Object.entries(pollHeaders(etag)).flat();
        const status = matchesEtag(req.headers["if-none-match"], etag) ? 304 : 200;
        if (status === 304) {
          res.writeHead(304, [...poll, ...common]);
          res.end();
        } else {
          res.writeHead(200, [
            "content-type",
            JSON_TYPE,
            "content-length",
            String(json.byteLength),
            ...poll,
            ...common,
          ]);
          res.end(json);
        }
        counts.add("site detail", status);
        const ms = Math.round((performance.now() - started) * 10) / 10;
        logRequest(logger, { requestId, method: "GET", path, status, ms }, "debug");
        observe(SITE_DETAIL_ROUTE, "GET", status, ms / 1000);
      },
      (err) => {
        logger.error({ err, requestId }, "rate limiter failed");
        res.writeHead(500, ["content-type", JSON_TYPE, "x-content-type-options", "nosniff", "x-request-id", requestId]);
        res.end(JSON.stringify(errorBody(new ApiError(500, "internal", "Internal error"))));
        observe(SITE_DETAIL_ROUTE, "GET", 500, (performance.now() - started) / 1000);
      },
    );
    return true;
  };
}
