import { z } from "zod";
import pkg from "../../package.json" with { type: "json" };
import { ErrorEnvelope } from "../contract/common.ts";
import { HEADERS, type HeaderDef, type Json, type ResponseHeader, TAGS, type Tag } from "./openapi-names.ts";
import type { PageRoute, Route } from "./route.ts";

/** Where the app serves the document (app.ts) and the API reference reads it (docs.ts). */
export const OPENAPI_PATH = "/public/v1/openapi.json";

const STATUS_TEXT: Record<number, string> = {
  400: "Bad input: malformed JSON, a wrong type, an unknown or read-only field, or an invalid parameter",
  401: "No token, an invalid or revoked token, or a status-page password or sign-in required",
  403: "The role does not allow this, or the plan limit is reached (error: limit_reached)",
  404: "Not found, or not in the caller's workspace",
  409: "Conflicts with an existing record (a taken slug or custom domain, a duplicate item)",
  413: "The body is larger than 64 KiB",
  415: "The body is not application/json",
  503: "Not ready",
};

/** The errors of a route that takes an image's bytes, not JSON. */
const uploadText = (upload: NonNullable<Route["upload"]>): Record<number, string> => ({
  400: "The body is not an image of the type Content-Type names, or breaks a rule (its size in pixels, an SVG's content)",
  413: `The body is larger than ${upload.maxBytes} bytes`,
  415: `Content-Type is not one of ${upload.types.join(", ")}`,
});

/** Which limit a route answers 429 for: every token route has the per-token one; others say in `rateLimit`. */
type Limit = "token" | NonNullable<Route["rateLimit"]>;

const RATE_LIMITED: Record<Limit, string> = {
  token: "Rate Limited: this token is over its limit (RateLimit-Policy); ask again after Retry-After seconds",
  client:
    "Rate Limited: this client (an IPv4 address or IPv6 /64) is over the route's limit (RateLimit-Policy); ask again after Retry-After seconds",
  attempts:
    "Rate Limited: too many wrong passwords for this page from this client (every attempt is refused until Retry-After seconds have passed), or too many password checks under way on the server (nothing was checked; ask again after Retry-After seconds)",
};

/** The limit a route answers 429 for, if any. */
function limitOf(route: Route): Limit | undefined {
  return route.access === "token" ? "token" : route.rateLimit;
}

/**
 * Converts zod schemas to JSON Schema (OpenAPI 3.1 uses draft 2020-12) and hoists the named ones (`.meta({id})`)
 * into components. A named schema whose input form differs from its output form (defaults make fields optional)
 * gets a second component with the suffix `Input`.
 */
class Components {
  readonly schemas: Record<string, Json> = {};
  private readonly headersUsed = new Set<ResponseHeader>();

  convert(schema: z.ZodType, io: "input" | "output"): Json {
    const json = z.toJSONSchema(schema, { io, unrepresentable: "any", target: "draft-2020-12" }) as Json;
    const defs = (json.$defs ?? {}) as Record<string, Json>;
    const names: Record<string, string> = {};
    for (const [id, def] of Object.entries(defs)) {
      const existing = this.schemas[id];
      const name = io === "input" && existing && JSON.stringify(existing) !== JSON.stringify(def) ? `${id}Input` : id;
      names[id] = name;
    }
    const rewrite = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(rewrite);
      if (value && typeof value === "object") {
        const out: Json = {};
        for (const [k, v] of Object.entries(value)) {
          if (k === "$schema" || k === "$defs") continue;
          // z.int()'s bounds are JavaScript's safe integers: no contract, and references show them as examples.
          if (k === "minimum" && v === Number.MIN_SAFE_INTEGER) continue;
          if (k === "maximum" && v === Number.MAX_SAFE_INTEGER) continue;
          out[k] =
            k === "$ref" && typeof v === "string"
              ? `#/components/schemas/${names[v.replace("#/$defs/", "")]}`
              : rewrite(v);
        }
        return out;
      }
      return value;
    };
    for (const [id, def] of Object.entries(defs)) {
      const name = names[id] as string;
      this.schemas[name] ??= rewrite(def) as Json;
    }
    return rewrite(json) as Json;
  }

  /** A response's headers map, each a reference to its component. */
  headers(ids: ResponseHeader[]): Record<string, Json> {
    const out: Record<string, Json> = {};
    for (const id of ids) {
      this.headersUsed.add(id);
      out[HEADERS[id].header] = { $ref: `#/components/headers/${id}` };
    }
    return out;
  }

  /** The header components referenced so far, in HEADERS order, without the wire name. */
  headerComponents(): Record<string, Json> {
    const out: Record<string, Json> = {};
    for (const [id, { description, schema }] of Object.entries(HEADERS) as [ResponseHeader, HeaderDef][]) {
      if (this.headersUsed.has(id)) out[id] = { description, schema };
    }
    return out;
  }
}

function parameters(components: Components, schema: z.ZodType | undefined, where: "path" | "query") {
  if (!schema || !(schema instanceof z.ZodObject)) return [];
  return Object.entries(schema.shape as Record<string, z.ZodType>).map(([name, field]) => {
    const json = components.convert(field, "input");
    const { description, ...rest } = json;
    return {
      name,
      in: where,
      required: where === "path" || !field.safeParse(undefined).success,
      ...(description ? { description } : {}),
      schema: rest,
    };
  });
}

/** A route's answers: the success, a 304 where it honours If-None-Match, and every error it can give, 429 included. */
function responses(components: Components, r: Route): Record<string, Json> {
  const limit = limitOf(r);
  // "attempts" counts only failures and sends no RateLimit fields; the other limits count every request.
  const counted = limit === "token" || limit === "client";
  const always: ResponseHeader[] = [
    "X-Request-Id",
    "X-Content-Type-Options",
    ...(counted ? (["RateLimit-Policy", "RateLimit"] as const) : []),
  ];
  const successHeaders = components.headers([...always, ...(r.response.headers ?? [])]);
  const out: Record<string, Json> = {
    [r.response.status]: {
      description: r.response.description,
      headers: successHeaders,
      content: {
        [r.response.contentType ?? "application/json"]: { schema: components.convert(r.response.schema, "output") },
      },
    },
  };
  if (r.response.headers?.includes("ETag")) {
    out["304"] = { description: "Not modified: If-None-Match named the current ETag", headers: successHeaders };
  }
  const errorRef = { $ref: "#/components/schemas/Error" };
  const statuses = [...new Set([...r.errors, ...(limit ? [429] : [])])].sort((a, b) => a - b);
  for (const status of statuses) {
    const headers: ResponseHeader[] = ["X-Request-Id", "X-Content-Type-Options"];
    // A 401 is answered before anything is counted: the token is unknown.
    if (counted && status !== 401) headers.push("RateLimit-Policy", "RateLimit");
    if (status === 429) headers.push("Retry-After");
    if (status === 401 && r.access !== "none") headers.push("WWW-Authenticate");
    headers.push(...(r.errorHeaders?.[status] ?? []));
    out[status] = {
      description:
        status === 429 && limit
          ? RATE_LIMITED[limit]
          : ((r.upload && uploadText(r.upload)[status]) ?? STATUS_TEXT[status] ?? "Error"),
      headers: components.headers(headers),
      content: { "application/json": { schema: errorRef } },
    };
  }
  return out;
}

/** The OpenAPI 3.1 document of every route, generated from the same schemas the routes validate with. */
export function openApiDocument(routes: Route[], publicUrl: string): Json {
  const components = new Components();
  const paths: Record<string, Record<string, Json>> = {};
  const tags = new Set<Tag>(["Operations"]);
  let conditional = false;
  components.convert(ErrorEnvelope, "output");
  for (const r of [...routes].sort((a, b) => (a.access === "none" ? 1 : 0) - (b.access === "none" ? 1 : 0))) {
    tags.add(r.tag);
    const etag = r.response.headers?.includes("ETag") ?? false;
    conditional ||= etag;
    const operation: Json = {
      operationId: r.operationId,
      summary: r.summary,
      ...(r.description ? { description: r.description } : {}),
      tags: [r.tag],
      parameters: [
        ...parameters(components, r.params, "path"),
        ...parameters(components, r.query, "query"),
        ...(etag ? [{ $ref: "#/components/parameters/IfNoneMatch" }] : []),
      ],
      ...(r.body
        ? {
            requestBody: {
              required: true,
              content: { "application/json": { schema: components.convert(r.body, "input") } },
            },
          }
        : r.upload
          ? {
              requestBody: {
                required: true,
                description: r.upload.description,
                content: Object.fromEntries(
                  r.upload.types.map((type) => [type, { schema: { type: "string", contentMediaType: type } }]),
                ),
              },
            }
          : {}),
      responses: responses(components, r),
      security:
        r.access === "token"
          ? [{ bearerAuth: [] }]
          : r.access === "page"
            ? [{}, { statusPagePassword: [] }, { bearerAuth: [] }]
            : [],
      ...(r.permission ? { "x-permission": r.permission } : {}),
    };
    paths[r.path] ??= {};
    (paths[r.path] as Record<string, Json>)[r.method] = operation;
  }
  paths[OPENAPI_PATH] = {
    get: {
      operationId: "openapi",
      summary: "This document",
      description: "CORS is open to any origin. The API reference at /docs renders it.",
      tags: ["Operations"],
      security: [],
      responses: {
        200: {
          description: "The OpenAPI 3.1 document",
          headers: components.headers(["X-Request-Id", "X-Content-Type-Options", "DocumentCacheControl"]),
          content: { "application/json": { schema: { type: "object", description: "An OpenAPI 3.1 document" } } },
        },
      },
    },
  };
  return {
    openapi: "3.1.0",
    info: {
      title: "Porchlight API",
      version: pkg.version,
      license: { name: pkg.license, identifier: pkg.license },
      description: [
        "Site monitoring and status pages. Authenticated routes take `Authorization: Bearer <token>`; a token is",
        "printed once on the first start and made with `porchlight token create --email E`.",
        "",
        "Units: `checkInterval` and `timeout` are seconds (checkInterval 30 to 86400, default 300; timeout 1 to",
        "120, default 30, never above checkInterval); `checkIntervalMs` is milliseconds; `response_time` is",
        "milliseconds; uptime figures are percentages with three decimals.",
        "",
        "Errors: every error is the envelope `{success: false, message, code, error, details?}` where `code` is the",
        "HTTP status and `error` a stable machine-readable kind. Plan limits answer 403 with `error: limit_reached`.",
        "An unexpected failure answers 500 with `error: internal`; quote its X-Request-Id when reporting it.",
        "",
        "Rate limits: each token has a limit per minute, and each anonymous utility one per client; answers counted",
        "against a limit carry RateLimit and RateLimit-Policy, and going over answers 429 `rate_limited` with",
        "Retry-After.",
      ].join("\n"),
    },
    servers: [{ url: publicUrl }],
    tags: Object.entries(TAGS)
      .filter(([name]) => tags.has(name as Tag))
      .map(([name, description]) => ({ name, description })),
    paths,
    components: {
      schemas: components.schemas,
      headers: components.headerComponents(),
      ...(conditional
        ? {
            parameters: {
              IfNoneMatch: {
                name: "If-None-Match",
                in: "header",
                required: false,
                description:
                  "ETags from earlier answers (comma-separated, weak or strong, or `*`): 304 without a body while one of them is current",
                schema: { type: "string" },
              },
            },
          }
        : {}),
      securitySchemes: {
        bearerAuth: { type: "http", scheme: "bearer", description: "An API token (pl_…)" },
        statusPagePassword: {
          type: "apiKey",
          in: "header",
          name: "X-Status-Page-Password",
          description:
            "The password of a password-protected status page, exact and case-sensitive, sent as UTF-8; never in a URL or cookie",
        },
      },
    },
  };
}

/** GET /public/v1/openapi.json: the document made once from the route table, cached five minutes by its readers. */
export function openApiPages(document: string): PageRoute[] {
  return [
    {
      method: "get",
      path: "/public/v1/openapi.json",
      handler: (c) =>
        c.body(document, 200, {
          "content-type": "application/json; charset=utf-8",
          "cache-control": "public, max-age=300",
        }),
    },
  ];
}
