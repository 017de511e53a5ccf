import { bodyLimit } from "hono/body-limit";
import type { Clock } from "../clock.ts";
import { ROLE_PERMISSIONS, type RoleName } from "../contract/account.ts";
import { sentence, withOwnerMessages } from "../contract/messages.ts";
import type { Logger } from "../log.ts";
import type { Store } from "../store/store.ts";
import { keptEtag, pollHeaders, strongEtag } from "../views/headers.ts";
import { checkCsrf, isSession, principalFrom } from "./auth.ts";
import { ApiError, errorBody, forbidden, payloadTooLarge, unauthorized } from "./errors.ts";
import { BODY_PREFIXES, bodyLimitOf, bodyRefused, header, JSON_TYPE, matchesEtag } from "./headers.ts";
import { enforceLimit, type Limiter, type LimitRule } from "./rate-limit.ts";
import { type App, type PageRoute, parseOrThrow, pathParser, queryObject, type Route, readJson } from "./route.ts";

/**
 * Mounts the route table: every route is answered the one way. A `token` route finds its caller (a bearer token or
 * the dashboard's cookie, whose writes must pass the CSRF check), checks the role's permission and the per-token
 * limit (`apiRule`); then the path, the query and the body are parsed by the route's schemas (field errors worded for
 * owners), the handler runs, and its reply is sent: checked against the response schema when `checkResponses`, with
 * an ETag and 304 on a member's polled reads.
 */
export function mountRoutes(
  app: App,
  routes: Route[],
  deps: {
    store: Store;
    clock: Clock;
    publicUrl: string;
    limiter: Limiter;
    apiRule: LimitRule;
    checkResponses: boolean;
  },
): void {
  const { store, clock, limiter, apiRule, checkResponses } = deps;
  for (const def of routes) {
    const path = def.path.replace(/\{(\w+)\}/g, ":$1");
    const parseParams = pathParser(def);
    // Field errors are worded for the owners who read them in a form (contract/messages.ts).
    const querySchema = def.query && withOwnerMessages(def.query);
    const bodySchema = def.body && withOwnerMessages(def.body);
    app.on(def.method.toUpperCase(), path, async (c) => {
      let principal = null;
      if (def.access === "token") {
        const found = await principalFrom(c, store, clock, deps.publicUrl);
        if (found === null) {
          throw unauthorized(
            "Authentication required: send Authorization: Bearer <token>, or sign in to the dashboard",
          );
        }
        if (found === "invalid") throw unauthorized("The token is invalid or has been revoked");
        // A browser sends its cookie with any request, even one another site makes it send: a write made with the
        // cookie must prove it comes from the dashboard.
        if (isSession(found) && def.method !== "get") checkCsrf(c, found, deps.publicUrl);
        if (def.permission && !ROLE_PERMISSIONS[found.role as RoleName].includes(def.permission)) {
          throw forbidden(`Your role (${found.role}) does not allow ${def.permission}`);
        }
        principal = found;
        await enforceLimit(c, limiter, apiRule, found.tokenId);
      }
      const params = parseParams(c.req.param());
      const query = querySchema ? parseOrThrow(querySchema, queryObject(c), "query parameter") : {};
      const body = bodySchema ? parseOrThrow(bodySchema, await readJson(c), "body") : undefined;
      const reply = await def.handler({ params, query, body, principal, c });
      if (reply instanceof Response) return reply;
      const payload = checkResponses ? def.response.schema.parse(reply.body) : reply.body;
      if (def.access === "token" && def.response.headers?.includes("ETag")) {
        // A member's poll (the dashboard's live screens): the same bytes give the same ETag, and a 304 until they
        // change. Bytes a read model keeps (a site's detail) are hashed once while they stay cached.
        const bytes = reply.json ?? JSON.stringify(payload);
        const etag = typeof bytes === "string" ? strongEtag(bytes) : keptEtag(bytes);
        const headers = pollHeaders(etag);
        if (matchesEtag(header(c, "if-none-match"), etag)) return c.body(null, 304, headers);
        return c.body(bytes, reply.status as 200, { "content-type": JSON_TYPE, ...headers });
      }
      if (reply.json !== undefined) {
        return c.body(reply.json, reply.status as 200, { "content-type": JSON_TYPE });
      }
      return c.json(payload as object, reply.status as 200);
    });
  }
}

/**
 * Bounds request bodies where one can arrive (BODY_PREFIXES): larger than the route's limit (bodyLimitOf) is a 413
 * in the error envelope. GET, HEAD and OPTIONS pass untouched: the limiter reads req.body, which would cost every read
 * a full Request object. Under node:http, guardBody (the listener) has already refused what is too large;
 * app.request() meets this alone.
 */
export function limitBodies(app: App): void {
  const limiters = new Map<number, ReturnType<typeof bodyLimit>>();
  const limitBody = (maxSize: number) => {
    let limiter = limiters.get(maxSize);
    if (!limiter) {
      limiter = bodyLimit({
        maxSize,
        onError: () => {
          throw payloadTooLarge(maxSize);
        },
      });
      limiters.set(maxSize, limiter);
    }
    return limiter;
  };
  for (const prefix of BODY_PREFIXES) {
    app.use(`${prefix}*`, (c, next) => {
      if (c.req.method === "GET" || c.req.method === "HEAD" || c.req.method === "OPTIONS") return next();
      const max = bodyLimitOf(c.req.path);
      if (bodyRefused(c)) throw payloadTooLarge(max);
      return limitBody(max)(c, next);
    });
  }
}

/**
 * Every answer that is not a route's own: an unknown route is a 404 and a thrown ApiError its status, both in the
 * error envelope; anything else is logged with its request id and answered 500 without detail.
 */
export function answerErrors(app: App, logger: Logger): void {
  app.notFound((c) => {
    const error = new ApiError(404, "not_found", `No route for ${c.req.method} ${c.req.path}`);
    return c.json(errorBody(error), 404);
  });
  app.onError((err, c) => {
    if (err instanceof ApiError) {
      const body = errorBody(err);
      // A handler's own field errors read as the validator's do: sentences (contract/messages.ts).
      if (body.details) body.details = body.details.map((d) => ({ field: d.field, message: sentence(d.message) }));
      return c.json(body, err.status as 400, err.headers);
    }
    logger.error({ requestId: c.get("requestId"), err }, "unhandled error");
    const error = new ApiError(500, "internal", "Internal error; the request id is in the X-Request-Id header");
    return c.json(errorBody(error), 500);
  });
}

/**
 * Mounts page routes (PageRoute) in the order given: the one way a page, a file or a redirect is answered. Order
 * matters only between patterns that overlap, such as a hosted page's `/:slug` and `/dashboard`: the earlier wins.
 */
export function mountPages(app: App, pages: readonly PageRoute[]): void {
  for (const page of pages) app.on(page.method.toUpperCase(), page.path, page.handler);
}
