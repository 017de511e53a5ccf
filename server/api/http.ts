import type { IncomingMessage } from "node:http";
import type { Context } from "hono";
import type { Logger } from "../log.ts";
import type { PageView } from "./page-views.ts";

/**
 * A request header (lowercase name). Read from node's IncomingMessage when the app runs under node:http: asking
 * Hono's request instead makes node-server build a full Headers object for every request.
 */
export function header(c: Context, name: string): string | undefined {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (!incoming?.headers) return c.req.header(name);
  const value = incoming.headers[name];
  return Array.isArray(value) ? value.join(", ") : value;
}

/** The content type of every JSON answer built from serialized bytes. */
export const JSON_TYPE = "application/json; charset=UTF-8";

/** An incoming X-Request-Id is kept when it is short and plain; otherwise each request gets a new UUID. */
export function requestIdFrom(incoming: string | undefined): string {
  if (incoming && incoming.length <= 255 && /^[\w\-=]+$/.test(incoming)) return incoming;
  return crypto.randomUUID();
}

/**
 * The one request log line: never headers, bodies or query strings, which may carry secrets. Reads answered
 * from memory log at debug (see FastPathCounts); every other request at info.
 */
export function logRequest(
  logger: Logger,
  line: { requestId: string; method: string; path: string; status: number; ms: number },
  level: "info" | "debug" = "info",
): void {
  logger[level](line, "request");
}

/**
 * Reads answered from memory, counted by route and status until taken. A status page's traffic peaks during an
 * outage; one info line per cached read would make logging the bottleneck and flood log storage just then, so
 * these reads log at debug and the server logs their counts at info once a minute.
 */
export class FastPathCounts {
  private counts: Record<string, number> = {};

  add(route: string, status: number): void {
    const key = `${route} ${status}`;
    this.counts[key] = (this.counts[key] ?? 0) + 1;
  }

  /** The counts since the last call, then zero. */
  take(): Record<string, number> {
    const taken = this.counts;
    this.counts = {};
    return taken;
  }
}

/** CORS on public reads: any origin, no credentials (a password travels in a header, never a cookie). */
export const PUBLIC_CORS = {
  "access-control-allow-origin": "*",
  "access-control-expose-headers": "ETag, Retry-After, X-Request-Id",
} as const;

export const PUBLIC_CORS_PREFLIGHT = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, HEAD, OPTIONS",
  "access-control-allow-headers": "X-Status-Page-Password, Authorization, If-None-Match, Content-Type",
  "access-control-max-age": "86400",
} as const;

/** The headers of a status-page view answer, whichever path serves it. */
export function viewHeaders(visibility: PageView["visibility"], etag: string): Record<string, string> {
  const headers: Record<string, string> = {
    "content-type": "application/json; charset=utf-8",
    "x-content-type-options": "nosniff",
    etag,
    // Public answers may be stored anywhere but must be revalidated; protected ones never leave the browser.
    "cache-control": visibility === "public" ? "public, no-cache" : "private, no-store",
  };
  if (visibility !== "public") headers.vary = "Authorization, X-Status-Page-Password";
  return headers;
}

/** True when an If-None-Match header names this ETag (weak comparison, `*` included). */
export function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === "*") return true;
  const strong = etag.replace(/^W\//, "");
  return header.split(",").some((tag) => tag.trim().replace(/^W\//, "") === strong);
}
