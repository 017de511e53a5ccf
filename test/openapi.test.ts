import { readFileSync } from "node:fs";
import { createConfig, lintFromString, type NormalizedProblem } from "@redocly/openapi-core";
import { beforeAll, describe, expect, test, vi } from "vitest";
import { IMPORT_TYPES } from "../server/contract/imports.ts";
import { IMAGE_TYPES } from "../server/contract/status-page.ts";
import type { Route } from "../server/http/route.ts";
import type { Store } from "../server/store/store.ts";
import { client, makeApp, seedOwner, seedStatusPage, sqliteKind, useStore } from "./helpers.ts";

/** The route table createApp documents, as it hands it to openApiDocument: the real table, whatever it holds. */
const table = vi.hoisted(() => ({ routes: [] as Route[] }));
vi.mock("../server/http/openapi.ts", async (importOriginal) => {
  const original = await importOriginal<typeof import("../server/http/openapi.ts")>();
  return {
    ...original,
    openApiDocument: (routes: Route[], publicUrl: string) => {
      table.routes = routes;
      return original.openApiDocument(routes, publicUrl);
    },
  };
});

/**
 * Redocly's strictest ruleset ("all": every rule it has, every finding an error), less the rules that contradict
 * the API's contract, each with its reason, plus the configurable rules set to what the API promises.
 */
const LINT_CONFIG = {
  extends: ["all"],
  rules: {
    // Errors are the envelope of spec 2.1 ({success, message, code, error, details}), not RFC 7807 problem+json.
    "operation-4xx-problem-details-rfc7807": "off",
    // /healthz, /readyz and the document itself have no client error to answer: a made-up 4xx would document an
    // answer the server never gives. "every operation that takes input documents a client error" stands in.
    "operation-4xx-response": "off",
    // The paths are the spec's (/public/v1/site/{siteId} is singular), and `public` and `v1` are not collections.
    "path-segment-plural": "off",
    // Verbs as words of a path (…/get-x), not inside one: "target-check" names no verb (issue 27's route).
    "no-http-verbs-in-paths": { severity: "error", splitIntoWords: true },
    // The tags keep the reference's reading order (resources, public reads, utilities, operations), not A to Z.
    "tags-alphabetical": "off",
    // Self-hosted, open-source software: no single contact address belongs in every deployment's document.
    "info-contact": "off",
    // A summary says what most routes do; a description is written where there is more contract to tell.
    "operation-description": "off",
    // An example on every scalar (every `success`, `code`, `message`…) would be noise; values that need one have it.
    "scalar-property-missing-example": "off",
    // minLength stands where the contract has one; elsewhere an empty string is valid (notes, parentGroup, a
    // label) or the value is the server's own (ids, messages, timestamps).
    "required-string-property-missing-min-length": "off",
    "response-contains-header": {
      severity: "error",
      names: {
        "2XX": ["X-Request-Id"],
        "3XX": ["X-Request-Id"],
        "4XX": ["X-Request-Id"],
        "429": ["X-Request-Id", "Retry-After"],
        "5XX": ["X-Request-Id"],
      },
    },
    // JSON, the images a page's logo and favicon upload takes, and the files an import reads.
    "request-mime-type": {
      severity: "error",
      allowedValues: ["application/json", ...Object.values(IMAGE_TYPES), ...Object.values(IMPORT_TYPES).flat()],
    },
    // JSON, and the status badges' SVG images.
    "response-mime-type": { severity: "error", allowedValues: ["application/json", "image/svg+xml", "text/csv"] },
  },
};

const PACKAGE = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };
const PASSWORD = "correct horse";

let store: Store;
let app: ReturnType<typeof makeApp>["app"];
let text: string;
let doc: any;
let routes: Route[];

useStore(sqliteKind, async (opened) => {
  ({ store } = opened);
  ({ app } = makeApp(store));
  routes = table.routes;
  const res = await app.request("/public/v1/openapi.json");
  expect(res.status).toBe(200);
  text = await res.text();
  doc = JSON.parse(text);
});

function refs(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) refs(v, out);
  else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      if (k === "$ref" && typeof v === "string") out.push(v);
      else refs(v, out);
    }
  }
  return out;
}

/** Follows a local `#/components/…` reference. */
function resolve(value: any): any {
  if (!value?.$ref) return value;
  return (value.$ref as string)
    .replace("#/", "")
    .split("/")
    .reduce((node: any, key) => node?.[key], doc);
}

function operations(): { path: string; method: string; op: any }[] {
  return Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods as Record<string, any>).map(([method, op]) => ({ path, method, op })),
  );
}

/** The header names (lowercase) a documented answer carries. */
function documentedHeaders(op: any, status: number | string): string[] {
  return Object.keys(op.responses[status]?.headers ?? {}).map((h) => h.toLowerCase());
}

test("the document passes Redocly's strictest ruleset with no error and no warning", async () => {
  const config = await createConfig(LINT_CONFIG as Parameters<typeof createConfig>[0]);
  const problems = await lintFromString({ source: text, absoluteRef: "openapi.json", config });
  const lines = problems.map(
    (p: NormalizedProblem) => `${p.severity} ${p.ruleId} at ${p.location[0]?.pointer ?? "?"}: ${p.message}`,
  );
  expect(lines).toEqual([]);
});

test("an OpenAPI 3.1 document with every route, each with an operationId and responses", () => {
  expect(doc.openapi).toBe("3.1.0");
  const all = operations();
  expect(all.length).toBeGreaterThanOrEqual(27);
  const ids = all.map((o) => o.op.operationId);
  expect(new Set(ids).size).toBe(ids.length);
  for (const { op } of all) expect(Object.keys(op.responses).length).toBeGreaterThan(0);
  for (const path of [
    "/public/v1/site/{siteId}",
    "/public/v1/status-page/{slug}",
    "/api/status-page/{slug}/items",
    "/api/status-page/{slug}/incidents",
    "/public/v1/status-pages/{id}/incidents/{incidentId}/updates",
  ]) {
    expect(doc.paths[path], path).toBeDefined();
  }
});

test("every route of the table is documented under its method and path, with its operationId, tag and errors", () => {
  expect(routes.length).toBeGreaterThanOrEqual(26);
  for (const route of routes) {
    const where = `${route.method.toUpperCase()} ${route.path}`;
    const op = doc.paths[route.path]?.[route.method];
    expect(op, where).toBeDefined();
    expect(op.operationId, where).toBe(route.operationId);
    expect(op.summary, where).toBe(route.summary);
    expect(op.tags, where).toEqual([route.tag]);
    expect(Object.keys(op.responses), where).toEqual(
      expect.arrayContaining([String(route.response.status), ...route.errors.map(String)]),
    );
  }
  const documented = operations().length;
  // The table's routes and the document itself.
  expect(documented).toBe(routes.length + 1);
});

test("every operation that takes input documents a client error", () => {
  for (const { path, method, op } of operations()) {
    const takesInput = (op.parameters ?? []).length > 0 || op.requestBody || (op.security ?? []).length > 0;
    if (!takesInput) continue;
    expect(
      Object.keys(op.responses).filter((s) => s.startsWith("4")),
      `${method} ${path}`,
    ).not.toEqual([]);
  }
});

test("every limited route documents 429 with Retry-After, and the RateLimit fields on every answer it counts", () => {
  let token = 0;
  for (const route of routes) {
    const where = `${route.method.toUpperCase()} ${route.path}`;
    const op = doc.paths[route.path][route.method];
    const limit = route.access === "token" ? "token" : route.rateLimit;
    if (route.errors.includes(429)) expect(limit, `${where} lists 429 but names no limit`).toBeDefined();
    if (!limit) {
      expect(op.responses["429"], where).toBeUndefined();
      continue;
    }
    if (limit === "token") token++;
    expect(resolve(op.responses["429"].content["application/json"].schema), where).toBe(doc.components.schemas.Error);
    expect(documentedHeaders(op, 429), where).toEqual(expect.arrayContaining(["retry-after", "x-request-id"]));
    const counted = ["ratelimit", "ratelimit-policy"];
    if (limit === "attempts") {
      // Only wrong passwords count, and the refusal names no policy.
      expect(documentedHeaders(op, 429), where).not.toEqual(expect.arrayContaining(counted));
      expect(documentedHeaders(op, route.response.status), where).not.toEqual(expect.arrayContaining(counted));
    } else {
      expect(documentedHeaders(op, 429), where).toEqual(expect.arrayContaining(counted));
      expect(documentedHeaders(op, route.response.status), where).toEqual(expect.arrayContaining(counted));
      expect(op.responses["429"].description, where).toMatch(/RateLimit-Policy.*Retry-After/);
    }
  }
  expect(token).toBeGreaterThan(10);
});

test("every route that sends an ETag documents If-None-Match and the 304", () => {
  const conditional = routes.filter((r) => r.response.headers?.includes("ETag"));
  expect(conditional.map((r) => r.path)).toContain("/public/v1/status-page/{slug}");
  for (const route of routes) {
    const op = doc.paths[route.path][route.method];
    const etag = conditional.includes(route);
    const parameters = (op.parameters as any[]).map(resolve).map((p) => `${p.in} ${p.name}`);
    expect(parameters.includes("header If-None-Match"), route.path).toBe(etag);
    expect(op.responses["304"] !== undefined, route.path).toBe(etag);
    if (etag) expect(documentedHeaders(op, 304)).toEqual(expect.arrayContaining(["etag", "x-request-id"]));
  }
});

test("headers, tags, security schemes and info are declared once, described, and taken from their sources", () => {
  for (const [name, header] of Object.entries(doc.components.headers as Record<string, any>)) {
    expect(header.description, name).toMatch(/\w{3}/);
    expect(header.schema, name).toBeDefined();
  }
  for (const ref of refs(doc.paths).filter((r) => r.startsWith("#/components/headers/"))) {
    expect(resolve({ $ref: ref }), ref).toBeDefined();
  }
  const used = new Set(operations().flatMap(({ op }) => op.tags));
  expect(doc.tags.map((t: any) => t.name).sort()).toEqual([...used].sort());
  for (const tag of doc.tags) expect(tag.description, tag.name).toMatch(/\w{3}/);
  expect(doc.info.version).toBe(PACKAGE.version);
  expect(doc.servers).toEqual([{ url: "http://status.test" }]);
  expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
});

test("every $ref resolves to a component", () => {
  const all = refs(doc);
  expect(all.length).toBeGreaterThan(10);
  for (const ref of all) expect(resolve({ $ref: ref }), ref).toBeDefined();
});

test("units, limits and decisions are documented", () => {
  const create = doc.components.schemas.SiteCreate ?? doc.components.schemas.SiteCreateInput;
  expect(create.properties.checkInterval.description).toMatch(/Seconds between checks, 30 to 86400/);
  expect(create.properties.timeout.description).toMatch(/Seconds/);
  expect(create.required).toEqual(["url", "name"]);
  const statDays = doc.paths["/public/v1/site/{siteId}"].get.parameters.find((p: any) => p.name === "statDays");
  expect(statDays.description).toMatch(/above 90 give 90/);
  expect(doc.paths["/public/v1/status-pages"].post.description).toMatch(/403.*limit_reached/);
  expect(doc.paths["/public/v1/status-pages"].post.responses["403"]).toBeDefined();
  const list = doc.paths["/public/v1/status-pages"].get.parameters.find((p: any) => p.name === "perPage");
  expect(JSON.stringify(list.schema)).toContain('"10","25","50"');
  expect(doc.components.schemas.Error.properties.error.enum).toContain("limit_reached");
  expect(doc.components.schemas.StatusPageItem.properties.status.enum).toEqual([
    "operational",
    "degraded",
    "partial_outage",
    "major_outage",
    "maintenance",
    "paused",
    "unknown",
  ]);
  expect(doc.components.securitySchemes.statusPagePassword).toMatchObject({
    in: "header",
    name: "X-Status-Page-Password",
  });
  expect(doc.components.schemas.Site.properties.legacyStatus.deprecated).toBe(true);
});

test("issue 28: tags on sites, the tag filter and counts, secret rotation and ending maintenance early", () => {
  expect(doc.components.schemas.Site.required).toContain("tags");
  const tags = (doc.components.schemas.SiteCreate ?? doc.components.schemas.SiteCreateInput).properties.tags;
  expect(tags).toMatchObject({ type: "array", maxItems: 10, items: { minLength: 1, maxLength: 32 } });
  for (const path of ["/public/v1/sites", "/public/v1/sites/overview"]) {
    expect(doc.paths[path].get.parameters.map((p: any) => p.name)).toContain("tag");
  }
  const counts = resolve(doc.paths["/public/v1/sites/tags"].get.responses["200"].content["application/json"].schema);
  expect(resolve(resolve(counts.properties.data.properties.tags).items)).toMatchObject({
    properties: { tag: { type: "string" }, count: { type: "integer" } },
  });
  const rotate = doc.paths["/public/v1/alert-channels/{channelId}/rotate-secret"].post;
  expect(JSON.stringify(rotate.responses["200"])).toContain("AlertChannelCreated");
  expect(Object.keys(rotate.responses)).toEqual(expect.arrayContaining(["400", "404"]));
  const end = doc.paths["/public/v1/maintenance-windows/{windowId}/end"].post;
  expect(Object.keys(end.responses)).toEqual(expect.arrayContaining(["200", "404", "409"]));
});

test("the incident model: impact and each service's status required; owners read OwnerIncident, visitors Incident", () => {
  const schemas = doc.components.schemas;
  expect(schemas.Incident.required).toEqual(expect.arrayContaining(["impact", "affected"]));
  expect(schemas.Incident.properties.affected.items.required).toEqual(["id", "label", "status"]);
  expect(schemas.Incident.properties.impact.enum).toEqual(["none", "minor", "major", "critical"]);
  expect(schemas.OwnerIncident.required).toEqual(expect.arrayContaining(["published", "publishedAt", "source"]));
  expect(JSON.stringify(schemas.Incident)).not.toContain("detail");
  const data = (op: any, status: string) =>
    JSON.stringify(resolve(op.responses[status].content["application/json"].schema));
  const incidents = "/public/v1/status-pages/{id}/incidents";
  for (const [path, method, status] of [
    [incidents, "get", "200"],
    [incidents, "post", "201"],
    [`${incidents}/{incidentId}`, "patch", "200"],
    [`${incidents}/{incidentId}/updates`, "post", "201"],
    [`${incidents}/{incidentId}/updates/{updateId}`, "patch", "200"],
    [`${incidents}/{incidentId}/publish`, "post", "200"],
  ] as const) {
    expect(data(doc.paths[path][method], status), `${method} ${path}`).toContain("#/components/schemas/OwnerIncident");
  }
  for (const path of ["/public/v1/status-page/{slug}", "/public/v1/status-page/{slug}/incidents"]) {
    expect(JSON.stringify(doc.paths[path].get.responses["200"]), path).not.toContain("OwnerIncident");
  }
  expect(JSON.stringify(schemas.IncidentCreate.properties.items)).toContain("#/components/schemas/AffectedItem");
  expect(schemas.IncidentCreate.properties.publish.default).toBe(true);
  expect(schemas.StatusPage.required).toContain("incidentPolicy");
  expect(JSON.stringify(schemas.StatusPagePatch.properties.incidentPolicy)).toContain("IncidentPolicyPatch");
});

test("the password is write-only: no response schema carries it", () => {
  expect(Object.keys(doc.components.schemas.StatusPageCreate.properties)).toContain("password");
  for (const [name, schema] of Object.entries(doc.components.schemas)) {
    if (name.endsWith("Create") || name.endsWith("Patch") || name.endsWith("Input")) continue;
    const properties = Object.keys((schema as { properties?: object }).properties ?? {});
    expect(properties, name).not.toContain("password");
    expect(properties, name).not.toContain("passwordHash");
    expect(properties, name).not.toContain("password_hash");
  }
});

describe("the headers documented are the headers sent", () => {
  /** Fields every HTTP answer may carry, and CORS's, which the tags' descriptions tell instead. */
  const PROTOCOL = /^(content-type|content-length|date|connection|keep-alive|transfer-encoding|access-control-.*)$/;
  let limited: ReturnType<typeof makeApp>["app"];
  let token: string;

  /** Asks `app`, checks the status, and that every header sent is documented for that operation and status. */
  async function expectDocumented(
    on: typeof app,
    method: string,
    template: string,
    path: string,
    status: number,
    headers: Record<string, string> = {},
    body?: unknown,
  ): Promise<Response> {
    const res = await on.request(path, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    expect(res.status, `${method} ${path}`).toBe(status);
    const op = doc.paths[template][method.toLowerCase()];
    expect(op.responses[status], `${method} ${template} documents ${status}`).toBeDefined();
    const sent = [...res.headers.keys()].filter((h) => !PROTOCOL.test(h));
    expect(sent, `${method} ${path} ${status}`).toContain("x-request-id");
    expect(
      sent.filter((h) => !documentedHeaders(op, status).includes(h)),
      `${method} ${path} ${status}`,
    ).toEqual([]);
    return res;
  }

  beforeAll(async () => {
    const owner = await seedOwner(store, "stack");
    token = owner.token;
    const call = client(app, owner.token);
    const now = new Date("2026-11-21T12:00:00.000Z");
    await seedStatusPage(call, store, now, "open", {}, []);
    await seedStatusPage(call, store, now, "locked", { visibility: "password", password: PASSWORD }, []);
    await seedStatusPage(call, store, now, "inside", { visibility: "private" }, []);
    ({ app: limited } = makeApp(store, {
      env: {
        PORCHLIGHT_API_REQUESTS_PER_MINUTE: "1",
        PORCHLIGHT_PASSWORD_ATTEMPTS: "1",
        PORCHLIGHT_SNAPSHOTS_PER_MINUTE: "1",
      },
    }));
  });

  test("a token route: the RateLimit fields on its answers, and Retry-After with them on its 429", async () => {
    const auth = { authorization: `Bearer ${token}` };
    const sites = "/public/v1/sites";
    const ok = await expectDocumented(limited, "GET", sites, sites, 200, auth);
    expect(ok.headers.get("ratelimit-policy")).toBe('"api";q=1;w=60');
    const refused = await expectDocumented(limited, "GET", sites, sites, 429, auth);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get("ratelimit")).toMatch(/^"api";r=0;t=\d+$/);
    const unknown = "/public/v1/site/000000000000000000000000";
    await expectDocumented(app, "GET", "/public/v1/site/{siteId}", unknown, 404, auth);
    const www = await expectDocumented(app, "GET", sites, sites, 401);
    expect(www.headers.get("www-authenticate")).toBe('Bearer realm="porchlight"');
  });

  test("the public reads: ETag, Cache-Control and Vary, the 304, and the password page's 429", async () => {
    const template = "/public/v1/status-page/{slug}";
    const open = await expectDocumented(app, "GET", template, "/public/v1/status-page/open", 200);
    expect(open.headers.get("cache-control")).toBe("public, no-cache");
    expect(open.headers.get("vary")).toBe("Accept-Encoding");
    const etag = open.headers.get("etag") as string;
    await expectDocumented(app, "GET", template, "/public/v1/status-page/open", 304, { "if-none-match": etag });
    await expectDocumented(app, "GET", "/api/status-page/{slug}/items", "/api/status-page/open/items", 200);
    const locked = "/public/v1/status-page/locked";
    const right = { "x-status-page-password": PASSWORD };
    const page = await expectDocumented(limited, "GET", template, locked, 200, right);
    expect(page.headers.get("cache-control")).toBe("private, no-store");
    expect(page.headers.get("vary")).toBe("Authorization, Cookie, X-Status-Page-Password");
    // Both values are the ones the document names.
    expect(doc.components.headers.StatusPageVary.schema.enum).toEqual([
      open.headers.get("vary"),
      page.headers.get("vary"),
    ]);
    const wrong = { "x-status-page-password": "wrong horse" };
    await expectDocumented(limited, "GET", template, locked, 401, wrong);
    const refused = await expectDocumented(limited, "GET", template, locked, 429, wrong);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    const inside = await expectDocumented(app, "GET", template, "/public/v1/status-page/inside", 401);
    expect(inside.headers.get("www-authenticate")).toBe('Bearer realm="porchlight"');
  });

  test("an anonymous utility: the RateLimit fields on a refused input and on its 429", async () => {
    const path = "/public/anon/domain-snapshot";
    const bad = await expectDocumented(limited, "POST", path, path, 400, {}, { domain: "192.0.2.1" });
    expect(bad.headers.get("ratelimit-policy")).toBe('"snapshot";q=1;w=60');
    await expectDocumented(limited, "POST", path, path, 429, {}, { domain: "192.0.2.1" });
  });

  test("the badges: an SVG documented as image/svg+xml, JSON as JSON, both with Cache-Control, ETag and the 304", async () => {
    for (const [template, path, type] of [
      ["/badge/{slug}/status.svg", "/badge/open/status.svg", "image/svg+xml"],
      ["/badge/{slug}/uptime.json", "/badge/open/uptime.json", "application/json"],
    ] as const) {
      const op = doc.paths[template].get;
      expect(Object.keys(op.responses["200"].content), template).toEqual([type]);
      const cacheControl = resolve(op.responses["200"].headers["Cache-Control"]);
      expect(cacheControl.schema.const, template).toBe("public, max-age=60");
      const ok = await expectDocumented(app, "GET", template, path, 200);
      expect(ok.headers.get("content-type")).toBe(`${type}; charset=utf-8`);
      expect(ok.headers.get("cache-control")).toBe(cacheControl.schema.const);
      const etag = { "if-none-match": ok.headers.get("etag") as string };
      await expectDocumented(app, "GET", template, path, 304, etag);
      await expectDocumented(app, "GET", template, path.replace("/open/", "/inside/"), 404);
    }
  });

  test("the operations routes and the document itself", async () => {
    await expectDocumented(app, "GET", "/healthz", "/healthz", 200);
    await expectDocumented(app, "GET", "/readyz", "/readyz", 200);
    const self = await expectDocumented(app, "GET", "/public/v1/openapi.json", "/public/v1/openapi.json", 200);
    expect(self.headers.get("cache-control")).toBe("public, max-age=300");
  });
});
