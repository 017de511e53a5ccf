import type { IncomingMessage, ServerResponse } from "node:http";
import type { Context } from "hono";
import { MAX_IMPORT_FILE_BYTES } from "../contract/imports.ts";
import { MAX_IMAGE_BYTES } from "../contract/status-page.ts";
import type { Logger } from "../log.ts";

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

/**
 * The host a request came by (lower-case, without its port) when it is not the server's own: a custom domain, for
 * its page to be looked up. Undefined on the server's own host (PORCHLIGHT_PUBLIC_URL's) or without a Host.
 */
export function otherHost(publicUrl: string): (c: Context) => string | undefined {
  const own = new URL(publicUrl).host.toLowerCase().replace(/:\d+$/, "");
  return (c) => {
    const host = (header(c, "host") ?? "").toLowerCase().replace(/:\d+$/, "");
    return host && host !== own ? host : undefined;
  };
}

/** The content type of every JSON answer built from serialized bytes. */
export const JSON_TYPE = "application/json; charset=UTF-8";

/** An incoming X-Request-Id is kept when it is short and plain; otherwise each request gets a new UUID. */
export function requestIdFrom(incoming: string | undefined): string {
  if (incoming && incoming.length <= 255 && /^[\w\-=]+$/.test(incoming)) return incoming;
  return crypto.randomUUID();
}

/**
 * The level of a request's log line. A read that succeeded (GET, HEAD or a CORS preflight answered 2xx or 304) is
 * debug: the dashboard polls every few seconds and a hosted page is read by every visitor, and a line each drowned
 * everything else at info. A write, a redirect, a refusal (4xx) and a failure (5xx) stay at info: they are what an
 * owner looks for in the log (a failure's cause is logged at error by the app's error handler).
 */
export function requestLevel(method: string, status: number): "info" | "debug" {
  const read = method === "GET" || method === "HEAD" || method === "OPTIONS";
  return read && ((status >= 200 && status < 300) || status === 304) ? "debug" : "info";
}

/**
 * The one request log line: never headers, bodies or query strings, which may carry secrets. Its level is
 * requestLevel's unless given (reads answered from memory, see FastPathCounts, always log at debug).
 */
export function logRequest(
  logger: Logger,
  line: { requestId: string; method: string; path: string; status: number; ms: number },
  level: "info" | "debug" = requestLevel(line.method, line.status),
): void {
  logger[level]({ ...line, path: loggablePath(line.path) }, "request");
}

/** Paths whose rest is a secret (a push site's token): logged up to the secret, which reads `***`. */
const SECRET_PATH_PREFIXES = ["/public/v1/push/"];

/** A request path as a log line may show it. */
export function loggablePath(path: string): string {
  const prefix = SECRET_PATH_PREFIXES.find((p) => path.startsWith(p));
  return prefix ? `${prefix}***` : path;
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

export const PUBLIC_CORS_PREFLIGHT = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, HEAD, POST, OPTIONS",
  "access-control-allow-headers": "X-Status-Page-Password, Authorization, If-None-Match, Content-Type",
  "access-control-max-age": "86400",
} as const;

/** True when an If-None-Match header names this ETag (weak comparison, `*` included). */
export function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === "*") return true;
  const strong = etag.replace(/^W\//, "");
  return header.split(",").some((tag) => tag.trim().replace(/^W\//, "") === strong);
}

/** Where request bodies are read (and limited): the API's routes. Hono patterns are these followed by `*`. */
export const BODY_PREFIXES = ["/public/v1/", "/public/anon/", "/subscriptions/"] as const;

/** The most bytes a request body may have, but for an image upload's. */
export const MAX_BODY_BYTES = 64 * 1024;
/** A status page's logo or favicon upload: the one body larger than MAX_BODY_BYTES. */
const IMAGE_UPLOAD = /^\/public\/v1\/status-pages\/[^/]+\/(?:logo|favicon)$/;

/** A subscribers' import: up to SUBSCRIBER_IMPORT_ROWS addresses. */
const SUBSCRIBER_IMPORT = /^\/public\/v1\/status-pages\/[^/]+\/subscribers\/import$/;
export const MAX_IMPORT_BYTES = 1024 * 1024;

/** A workspace import's file: contract/imports.ts's MAX_IMPORT_FILE_BYTES, by source. */
const WORKSPACE_IMPORT = /^\/public\/v1\/imports\/(uptime-kuma|statuspage|gatus)$/;

/** The most bytes a request body to `path` may have. */
export function bodyLimitOf(path: string): number {
  if (SUBSCRIBER_IMPORT.test(path)) return MAX_IMPORT_BYTES;
  const source = WORKSPACE_IMPORT.exec(path)?.[1] as keyof typeof MAX_IMPORT_FILE_BYTES | undefined;
  if (source !== undefined) return MAX_IMPORT_FILE_BYTES[source];
  return IMAGE_UPLOAD.test(path) ? MAX_IMAGE_BYTES : MAX_BODY_BYTES;
}

/** Read and thrown away after a body is refused, at most, before the connection is closed regardless. */
export const DISCARD_BYTES = 8 * 1024 * 1024;
export const DISCARD_MS = 5000;

const REFUSED = Symbol("porchlight.bodyRefused");
type Guarded = IncomingMessage & { [REFUSED]?: true; rawBody?: Buffer };

/** True when guardBody refused this request's body: the app answers 413 without reading it. */
export function bodyRefused(c: Context): boolean {
  return (c.env as { incoming?: Guarded } | undefined)?.incoming?.[REFUSED] === true;
}

/**
 * Enforces the body limit on the socket, then hands the request on (`next`) for the app to answer. A body declared
 * within the limit passes untouched. One declared over it is refused at once; a chunked one is read here up to the
 * limit (node-server then reads it from `rawBody`) and refused once it passes it. The app answers a refused request
 * 413 with Connection: close, and that answer is written at once, but its end, and so the close, waits until the
 * rest of the body has been read and thrown away (at most DISCARD_BYTES or DISCARD_MS): a socket closed on unread
 * bytes is reset, and a reset can destroy the answer before the client reads it.
 */
export function guardBody(
  req: IncomingMessage,
  res: ServerResponse,
  limitOf: (path: string) => number,
  next: () => void,
): void {
  const method = req.method;
  const path = targetPath(req.url ?? "");
  const bodyless = method === "GET" || method === "HEAD" || method === "OPTIONS";
  if (bodyless || path === null || !BODY_PREFIXES.some((prefix) => path.startsWith(prefix))) {
    next();
    return;
  }
  const maxBytes = limitOf(path);
  if (req.headers["transfer-encoding"] === undefined) {
    // Beyond the limit as declared: refused before a byte of it is read.
    if (Number(req.headers["content-length"] ?? 0) > maxBytes) refuse(req, res);
    next();
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  const detach = () => {
    req.off("data", onData);
    req.off("end", onEnd);
    req.off("error", detach);
  };
  const onData = (chunk: Buffer) => {
    size += chunk.length;
    if (size <= maxBytes) {
      chunks.push(chunk);
      return;
    }
    detach();
    refuse(req, res);
    next();
  };
  const onEnd = () => {
    detach();
    (req as Guarded).rawBody = Buffer.concat(chunks, size);
    next();
  };
  req.on("data", onData);
  req.on("end", onEnd);
  // A client gone mid-body: nobody is left to answer.
  req.on("error", detach);
}

/**
 * The path a request target routes to, as node-server and Hono route it: origin-form (`/public/v1/sites`) and
 * absolute-form (`http://host/public/v1/sites`) alike by their URL's pathname (dot segments resolved, as node-server
 * resolves them), percent-decoded as Hono decodes it. Anything else (`*`, authority-form) is null: left to the app.
 */
export function targetPath(target: string): string | null {
  const base = target.startsWith("/") ? "http://localhost" : undefined;
  if (!URL.canParse(target, base)) return null;
  const pathname = new URL(target, base).pathname;
  try {
    return decodeURI(pathname);
  } catch {
    return pathname;
  }
}

function refuse(req: IncomingMessage, res: ServerResponse): void {
  (req as Guarded)[REFUSED] = true;
  let discarded = 0;
  let done = false;
  let pendingEnd: (() => void) | null = null;
  const finish = () => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    req.off("data", onData);
    pendingEnd?.();
  };
  const onData = (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > DISCARD_BYTES) finish();
  };
  const timer = setTimeout(finish, DISCARD_MS);
  timer.unref();
  req.on("data", onData);
  req.once("end", finish);
  req.once("close", finish);
  req.once("error", finish);
  const end = res.end.bind(res) as (cb?: () => void) => ServerResponse;
  res.end = ((chunk?: unknown, encoding?: unknown, cb?: unknown) => {
    const callback = [chunk, encoding, cb].find((arg) => typeof arg === "function") as (() => void) | undefined;
    if (chunk !== undefined && chunk !== null && typeof chunk !== "function") {
      res.write(chunk as Uint8Array | string, typeof encoding === "string" ? (encoding as BufferEncoding) : "utf8");
    }
    if (done) end(callback);
    else pendingEnd = () => end(callback);
    return res;
  }) as ServerResponse["end"];
}

/**
 * The headers of the server's plain pages that links in e-mails open, and of the subscription form: HTML with no
 * script, forms posting to this origin only, never framed, never stored, and no Referer (a token may be in the
 * address).
 */
export const LINK_PAGE_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "content-security-policy":
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
} as const;
