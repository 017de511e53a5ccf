import type { Context } from "hono";
import { z } from "zod";
import type { Permission } from "../contract/account.ts";
import type { Principal } from "../store/store.ts";
import { ApiError, badRequest, type FieldDetail } from "./errors.ts";
import type { ResponseHeader, Tag } from "./openapi.ts";

type AnyObject = z.ZodType<Record<string, unknown>, Record<string, unknown>>;
const Empty = z.object({});
type Empty = typeof Empty;

/**
 * Who may call a route. `token`: a valid bearer token is required. `page`: anyone; the status-page access check
 * runs in the handler. `none`: anyone.
 */
export type Access = "token" | "page" | "none";

/**
 * The limit a route answers 429 for besides the per-token one every `token` route has (app.ts), for the OpenAPI
 * document (the handler does the limiting). `client`: every request counts against a limit per client address,
 * and answers counted carry RateLimit and RateLimit-Policy. `attempts`: only failed attempts count (a status
 * page's wrong passwords), and the 429 carries Retry-After alone.
 */
export type RateLimitKind = "client" | "attempts";

export interface RouteInput<P extends AnyObject, Q extends AnyObject, B extends z.ZodType> {
  params: z.output<P>;
  query: z.output<Q>;
  body: z.output<B>;
  principal: Principal | null;
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
> {
  method: "get" | "post" | "patch" | "delete";
  /** OpenAPI style: `/public/v1/site/{siteId}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  /** The operation's group in the document; a new group needs its description in openapi.ts's TAGS. */
  tag: Tag;
  access: Access;
  permission?: Permission;
  rateLimit?: RateLimitKind;
  params?: P;
  query?: Q;
  body?: B;
  response: {
    status: number;
    description: string;
    schema: R;
    /** The success answer's media type, for the OpenAPI document (default application/json). */
    contentType?: string;
    /**
     * Headers the success answer carries besides X-Request-Id and the rate-limit fields, as openapi.ts names them.
     * `ETag` promises that the route honours If-None-Match with a 304 that carries the same headers.
     */
    headers?: ResponseHeader[];
  };
  /** Error statuses this route can answer, for the OpenAPI document. */
  errors: number[];
  handler: (input: RouteInput<P, Q, B>) => Promise<Reply<R>>;
}

/** Declares a route with its types inferred from its schemas. */
export function route<
  P extends AnyObject = Empty,
  Q extends AnyObject = Empty,
  B extends z.ZodType = z.ZodUndefined,
  R extends z.ZodType = z.ZodType,
>(def: Route<P, Q, B, R>): Route {
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

export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, what: string, prefix = ""): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) {
    const details = fieldDetails(result.error, prefix);
    const summary = details
      .slice(0, 3)
      .map((d) => `${d.field} ${d.message}`)
      .join("; ");
    throw badRequest(`Invalid ${what}: ${summary}`, details);
  }
  return result.data;
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

export function envelope<T>(status: number, message: string, data: T) {
  return { status, body: { success: true as const, message, code: status, data } };
}
