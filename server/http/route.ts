import type { Context, Handler, Hono } from "hono";
import { z } from "zod";
import type { Permission } from "../contract/account.ts";
import { unstorableText } from "../contract/common.ts";
import type { Principal } from "../store/accounts.ts";
import { ApiError, badRequest, type FieldDetail, notFound } from "./errors.ts";
import type { ResponseHeader, Tag } from "./openapi-names.ts";

type AnyObject = z.ZodType<Record<string, unknown>, Record<string, unknown>>;
const Empty = z.object({});
type Empty = typeof Empty;

/**
 * Who may call a route. `token`: a valid bearer token is required. `page`: anyone; the status-page access check
 * runs in the handler. `none`: anyone.
 */
export type Access = "token" | "page" | "none";

/** What every request carries from the first middleware on (app.ts). */
export type AppEnv = { Variables: { requestId: string } };

/** The application: what app.ts builds and mounts the route lists on (http/mount.ts). */
export type App = Hono<AppEnv>;

/**
 * A route for people and browsers rather than the API's JSON: a page, a file, a redirect, a form's post. Declared as
 * data like the API's routes (Route) and mounted the one way (mountPages), in the order of its list; not in the
 * OpenAPI document. `path` is Hono's pattern (`/embed/:file`, `/docs/*`); the handler may pass with `next()` to the
 * routes after it.
 */
export interface PageRoute {
  method: "get" | "post";
  path: string;
  handler: Handler<AppEnv>;
}

/** A module's page routes as it declares them, one `get` or `post` at a time, in order: `routes` is the list. */
export class PageRoutes {
  readonly routes: PageRoute[] = [];

  /** A GET (and HEAD) route; its handler's path parameters are typed from `path`, as Hono's own are. */
  get<P extends string>(path: P, handler: Handler<AppEnv, P>): void {
    this.routes.push({ method: "get", path, handler: handler as Handler<AppEnv> });
  }

  post<P extends string>(path: P, handler: Handler<AppEnv, P>): void {
    this.routes.push({ method: "post", path, handler: handler as Handler<AppEnv> });
  }
}

/**
 * The limit a route answers 429 for besides the per-token one every `token` route has (app.ts), for the OpenAPI
 * document (the handler does the limiting). `client`: every request counts against a limit per client address,
 * and answers counted carry RateLimit and RateLimit-Policy. `attempts`: only failed attempts count (a status
 * page's wrong passwords), and the 429 carries Retry-After alone.
 */
export type RateLimitKind = "client" | "attempts";

export interface RouteInput<P extends AnyObject, Q extends AnyObject, B extends z.ZodType, A extends Access = Access> {
  params: z.output<P>;
  query: z.output<Q>;
  body: z.output<B>;
  /** The caller behind the bearer token: always there on a `token` route, never on another. */
  principal: A extends "token" ? Principal : null;
  c: Context;
}

/**
 * What a handler returns: a body that the route's response schema checks, or a finished Response. A handler that
 * keeps a body's serialization in a read model passes it as `json`, and the body is then only checked.
 */
export type Reply<R extends z.ZodType> =
  | { status: number; body: z.input<R>; json?: Uint8Array<ArrayBuffer> }
  | Response;

export interface Route<
  P extends AnyObject = AnyObject,
  Q extends AnyObject = AnyObject,
  B extends z.ZodType = z.ZodType,
  R extends z.ZodType = z.ZodType,
  A extends Access = Access,
> {
  method: "get" | "post" | "put" | "patch" | "delete";
  /** OpenAPI style: `/public/v1/site/{siteId}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  /** The operation's group in the document; a new group needs its description in openapi-names.ts's TAGS. */
  tag: Tag;
  access: A;
  permission?: Permission;
  rateLimit?: RateLimitKind;
  params?: P;
  /** What a path parameter that names nothing is the 404 of, when not the segment before it (a badge's group). */
  notFoundAs?: string;
  query?: Q;
  body?: B;
  /** A body of bytes instead of JSON (the handler reads it), for the OpenAPI document: its media types. */
  upload?: { types: string[]; description: string; maxBytes: number };
  response: {
    status: number;
    description: string;
    schema: R;
    /** The success answer's media type, for the OpenAPI document (default application/json). */
    contentType?: string;
    /**
     * Headers the success answer carries besides X-Request-Id and the rate-limit fields, as openapi-names.ts names them.
     * `ETag` promises that the route honours If-None-Match with a 304 that carries the same headers.
     */
    headers?: ResponseHeader[];
  };
  /** Error statuses this route can answer, for the OpenAPI document. */
  errors: number[];
  /** Headers some of those error answers carry besides X-Request-Id and the limit's, by status, as openapi-names.ts names them. */
  errorHeaders?: Partial<Record<number, ResponseHeader[]>>;
  handler: (input: RouteInput<P, Q, B, A>) => Promise<Reply<R>>;
}

/**
 * Declares a route with its types inferred from its schemas and its access: a `token` route's handler receives
 * its principal, which app.ts has checked before calling it.
 */
export function route<
  P extends AnyObject = Empty,
  Q extends AnyObject = Empty,
  B extends z.ZodType = z.ZodUndefined,
  R extends z.ZodType = z.ZodType,
  A extends Access = Access,
>(def: Route<P, Q, B, R, A>): Route {
  return def as unknown as Route;
}

/** Turns zod issues into field details, naming unknown and read-only fields plainly. */
export function fieldDetails(error: z.ZodError, prefix = ""): FieldDetail[] {
  return error.issues.flatMap((issue) => {
    const base = [prefix, ...issue.path.map(String)].filter(Boolean).join(".");
    if (issue.code === "unrecognized_keys") {
      return issue.keys.map((key) => ({
        field: [base, key].filter(Boolean).join("."),
        message: "is not a writable field of this resource",
      }));
    }
    return [{ field: base || "(body)", message: issue.message }];
  });
}

/** The most unstorable strings one answer names: a 64 KiB body could hold thousands. */
const MAX_TEXT_DETAILS = 20;

/**
 * Every string in a parsed input, object keys included, that text cannot hold (see unstorableText), as field details
 * named the way fieldDetails names them. Iterative, so that a body nested thousands of levels deep cannot overflow
 * the stack.
 */
export function unstorableFields(value: unknown, prefix = ""): FieldDetail[] {
  type Node = { value: unknown; key: string | null; parent: Node | null };
  const name = (node: Node) => {
    const path: string[] = [];
    for (let n: Node | null = node; n?.key != null; n = n.parent) path.unshift(n.key);
    return [prefix, ...path].filter(Boolean).join(".") || "(body)";
  };
  const found: FieldDetail[] = [];
  const stack: Node[] = [{ value, key: null, parent: null }];
  while (stack.length > 0 && found.length < MAX_TEXT_DETAILS) {
    const node = stack.pop() as Node;
    if (typeof node.value === "string") {
      const why = unstorableText(node.value);
      if (why) found.push({ field: name(node), message: why });
    } else if (typeof node.value === "object" && node.value !== null) {
      const entries = Array.isArray(node.value)
        ? node.value.map((item, i) => [String(i), item] as const)
        : Object.entries(node.value);
      // Reversed onto the stack, so that fields are named in the order they were sent.
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, item] = entries[i] as readonly [string, unknown];
        const child = { value: item, key, parent: node };
        const why = unstorableText(key);
        if (why) found.push({ field: name(child), message: why });
        stack.push(child);
      }
    }
  }
  return found.slice(0, MAX_TEXT_DETAILS);
}

/**
 * Parses a query or body with its schema, or throws a 400 naming every bad field. Strings that no store can hold
 * (NUL, unpaired surrogates) are refused here for every route and field alike, before any handler runs.
 */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, what: string, prefix = ""): z.output<S> {
  const text = unstorableFields(value, prefix);
  const result = schema.safeParse(value);
  if (result.success && text.length === 0) return result.data;
  const named = new Set(text.map((d) => d.field));
  const details = [
    ...text,
    ...(result.success ? [] : fieldDetails(result.error, prefix).filter((d) => !named.has(d.field))),
  ];
  const summary = details
    .slice(0, 3)
    .map((d) => `${d.field} ${d.message}`)
    .join("; ");
  throw badRequest(`Invalid ${what}: ${summary}`, details);
}

/** No id or slug comes near this (the longest, a slug, is 64 characters); longer path parameters name nothing. */
const MAX_PATH_PARAMETER = 256;

/**
 * The parser of a route's path parameters. A value that cannot name anything (its schema refuses it, text cannot
 * hold it, or it is over-long) answers the 404 of an unknown resource, word for word, and never reaches the store:
 * a malformed id and an unknown one look alike, as an unknown and another workspace's do. The resource is named by
 * the segment before the parameter, singular (`/status-pages/{id}/items/{itemId}`: Status page, Item; a `{slug}`
 * first in the path: Status page).
 */
export function pathParser(
  def: Pick<Route, "path" | "params" | "notFoundAs">,
): (raw: Record<string, string>) => Record<string, unknown> {
  const nouns = new Map<string, string>();
  let collection = "";
  for (const segment of def.path.split("/")) {
    const param = /^\{(\w+)\}$/.exec(segment)?.[1];
    // A slug first in the path (a page's Statuspage API: /{slug}/api/v2/…) names a status page.
    if (param) nouns.set(param, collection || (param === "slug" ? "status-pages" : ""));
    else if (segment) collection = segment;
  }
  const missing = (param: string) => {
    if (def.notFoundAs) return notFound(def.notFoundAs);
    const noun = (nouns.get(param) ?? "").replace(/s$/, "").replaceAll("-", " ");
    return notFound(noun ? `${noun[0]?.toUpperCase()}${noun.slice(1)}` : "Resource");
  };
  return (raw) => {
    for (const [param, value] of Object.entries(raw)) {
      if (value.length > MAX_PATH_PARAMETER || unstorableText(value)) throw missing(param);
    }
    if (!def.params) return {};
    const result = def.params.safeParse(raw);
    if (!result.success) throw missing(String(result.error.issues[0]?.path[0] ?? ""));
    return result.data;
  };
}

/** A query string as an object: one value as a string, a repeated parameter as an array (which scalars refuse). */
export function queryObject(c: Context): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  const url = c.req.url;
  const start = url.indexOf("?");
  if (start < 0) return out;
  for (const [key, value] of new URLSearchParams(url.slice(start + 1))) {
    const prev = out[key];
    out[key] = prev === undefined ? value : [...(Array.isArray(prev) ? prev : [prev]), value];
  }
  return out;
}

/** Reads and parses a JSON body: 415 for another content type, 400 for an empty or malformed body. */
export async function readJson(c: Context): Promise<unknown> {
  const type = c.req.header("content-type") ?? "";
  if (!/^application\/json\s*(;|$)/i.test(type)) {
    throw new ApiError(415, "unsupported_media_type", "Content-Type must be application/json");
  }
  const text = await c.req.text();
  if (text.trim() === "") throw badRequest("A JSON body is required");
  try {
    return JSON.parse(text);
  } catch (error) {
    throw badRequest(`Malformed JSON: ${(error as Error).message}`);
  }
}
