import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "../log.ts";
import { logRequest, matchesEtag, PUBLIC_CORS, requestIdFrom } from "./http.ts";
import type { PageViews } from "./page-views.ts";

const PUBLIC_READ = /^\/(?:public\/v1|api)\/status-page\/([a-z0-9-]{1,64})(\/items|\/incidents)?$/;

/**
 * Answers GET and HEAD of a public status page whose view is in memory straight from node:http, as the bytes
 * they are, before the framework: the hottest route of the service, hit by every visitor and every embed.
 * Anything else (a view not built yet or expired, a protected page, another route) returns false and goes to
 * the Hono app, which answers the same request the same way; a test compares the two.
 */
export function publicReadFastPath(views: PageViews, logger: Logger) {
  return function serveFromMemory(req: IncomingMessage, res: ServerResponse): boolean {
    const method = req.method;
    if (method !== "GET" && method !== "HEAD") return false;
    const url = req.url ?? "";
    const q = url.indexOf("?");
    const path = q < 0 ? url : url.slice(0, q);
    const match = PUBLIC_READ.exec(path);
    if (!match) return false;
    const view = views.peek(match[1] as string);
    if (view?.visibility !== "public") return false;
    const started = performance.now();
    const part = match[2] === "/items" ? view.items : match[2] === "/incidents" ? view.incidents : view.page;
    const requestId = requestIdFrom(req.headers["x-request-id"] as string | undefined);
    let status = 200;
    if (matchesEtag(req.headers["if-none-match"], part.etag)) {
      status = 304;
      res.writeHead(304, { ...part.headers, ...PUBLIC_CORS, "x-request-id": requestId });
      res.end();
    } else {
      res.writeHead(200, [...part.rawHeaders, "x-request-id", requestId]);
      res.end(method === "HEAD" ? undefined : part.bytes);
    }
    logRequest(logger, { requestId, method, path, status, ms: Math.round((performance.now() - started) * 10) / 10 });
    return true;
  };
}
