import { afterAll, beforeAll, expect, test } from "vitest";
import type { Store } from "../server/store/store.ts";
import { makeApp, sqliteKind } from "./helpers.ts";

let store: Store;
let cleanup: () => Promise<void>;
let doc: any;

beforeAll(async () => {
  ({ store, cleanup } = await sqliteKind.open());
  const { app } = makeApp(store);
  const res = await app.request("/public/v1/openapi.json");
  expect(res.status).toBe(200);
  doc = await res.json();
});
afterAll(() => cleanup());

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

test("an OpenAPI 3.1 document with every route, each with an operationId and responses", () => {
  expect(doc.openapi).toBe("3.1.0");
  const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods as Record<string, any>).map(([method, op]) => ({ path, method, op })),
  );
  expect(operations.length).toBeGreaterThanOrEqual(27);
  const ids = operations.map((o) => o.op.operationId);
  expect(new Set(ids).size).toBe(ids.length);
  for (const { op } of operations) expect(Object.keys(op.responses).length).toBeGreaterThan(0);
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

test("every $ref resolves to a component", () => {
  const all = refs(doc);
  expect(all.length).toBeGreaterThan(10);
  for (const ref of all) {
    const name = ref.replace("#/components/schemas/", "");
    expect(doc.components.schemas[name], ref).toBeDefined();
  }
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
    "outage",
    "paused",
    "unknown",
  ]);
  expect(doc.components.securitySchemes.statusPagePassword).toMatchObject({
    in: "header",
    name: "X-Status-Page-Password",
  });
  expect(doc.components.schemas.Site.properties.legacyStatus.deprecated).toBe(true);
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
