import { z } from "zod";
import { ErrorEnvelope } from "../contract/common.ts";
import type { Route } from "./route.ts";

type Json = Record<string, unknown>;

const STATUS_TEXT: Record<number, string> = {
  400: "Bad input: malformed JSON, a wrong type, an unknown or read-only field, or an invalid parameter",
  401: "No token, an invalid or revoked token, or a status-page password or sign-in required",
  403: "The role does not allow this, or the plan limit is reached (error: limit_reached)",
  404: "Not found, or not in the caller's workspace",
  409: "Conflicts with an existing record (a taken slug or custom domain, a duplicate item)",
  413: "The body is larger than 64 KiB",
  415: "The body is not application/json",
  429: "Rate Limited: see Retry-After",
  503: "Not ready",
};

/**
 * Converts zod schemas to JSON Schema (OpenAPI 3.1 uses draft 2020-12) and hoists the named ones (`.meta({id})`)
 * into components. A named schema whose input form differs from its output form (defaults make fields optional)
 * gets a second component with the suffix `Input`.
 */
class Components {
  readonly schemas: Record<string, Json> = {};

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

/** The OpenAPI 3.1 document of every route, generated from the same schemas the routes validate with. */
export function openApiDocument(routes: Route[], publicUrl: string): Json {
  const components = new Components();
  const paths: Record<string, Record<string, Json>> = {};
  const errorRef = { $ref: "#/components/schemas/Error" };
  components.convert(ErrorEnvelope, "output");
  for (const r of [...routes].sort((a, b) => (a.access === "none" ? 1 : 0) - (b.access === "none" ? 1 : 0))) {
    const responses: Record<string, Json> = {
      [r.response.status]: {
        description: r.response.description,
        content: { "application/json": { schema: components.convert(r.response.schema, "output") } },
      },
    };
    if (r.access === "page") responses["304"] = { description: "Not modified (If-None-Match matched the ETag)" };
    for (const status of r.errors) {
      responses[status] = {
        description: STATUS_TEXT[status] ?? "Error",
        content: { "application/json": { schema: errorRef } },
      };
    }
    const operation: Json = {
      operationId: r.operationId,
      summary: r.summary,
      ...(r.description ? { description: r.description } : {}),
      tags: [r.tag],
      parameters: [...parameters(components, r.params, "path"), ...parameters(components, r.query, "query")],
      ...(r.body
        ? {
            requestBody: {
              required: true,
              content: { "application/json": { schema: components.convert(r.body, "input") } },
            },
          }
        : {}),
      responses,
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
  paths["/public/v1/openapi.json"] = {
    get: {
      operationId: "openapi",
      summary: "This document",
      tags: ["Operations"],
      security: [],
      responses: { 200: { description: "OpenAPI 3.1 document" } },
    },
  };
  return {
    openapi: "3.1.0",
    info: {
      title: "Porchlight API",
      version: "1.0.0",
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
      ].join("\n"),
    },
    servers: [{ url: publicUrl }],
    paths,
    components: {
      schemas: components.schemas,
      securitySchemes: {
        bearerAuth: { type: "http", scheme: "bearer", description: "An API token (pl_…)" },
        statusPagePassword: {
          type: "apiKey",
          in: "header",
          name: "X-Status-Page-Password",
          description: "The password of a password-protected status page, exact and case-sensitive",
        },
      },
    },
  };
}
