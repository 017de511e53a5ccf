import { afterAll, beforeAll, expect, test } from "vitest";
import { hashToken } from "../../server/accounts/secrets.ts";
import { ErrorEnvelope } from "../../server/contract/common.ts";
import type { Store } from "../../server/store/store.ts";
import { type App, client, describeStores, makeApp, seedOwner } from "../helpers.ts";

type Operation = { method: string; path: string; security: unknown[]; hasBody: boolean };

function operations(doc: { paths: Record<string, Record<string, { security?: unknown[]; requestBody?: unknown }>> }) {
  const out: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      out.push({
        method: method.toUpperCase(),
        path,
        security: op.security ?? [],
        hasBody: op.requestBody !== undefined,
      });
    }
  }
  return out;
}

describeStores("every route: authentication, isolation and bad input", (kind) => {
  let store: Store;
  let cleanup: () => Promise<void>;
  let app: App;
  let ops: Operation[];
  let owner: Awaited<ReturnType<typeof seedOwner>>;
  let ids: Record<string, string>;

  beforeAll(async () => {
    ({ store, cleanup } = await kind.open());
    ({ app } = makeApp(store));
    owner = await seedOwner(store, "stack");
    const api = client(app, owner.token);
    const site = (await api.post("/public/v1/sites", { url: "https://example.com", name: "S" })).json.data;
    const page = (await api.post("/public/v1/status-pages", { name: "P", slug: `inv-${kind.name}` })).json.data;
    const item = (await api.post(`/public/v1/status-pages/${page.id}/items`, { siteId: site.id })).json.data;
    const incident = (await api.post(`/public/v1/status-pages/${page.id}/incidents`, { title: "t", message: "m" })).json
      .data;
    ids = {
      siteId: site.id,
      id: String(page.id),
      itemId: String(item.id),
      incidentId: String(incident.id),
      slug: page.slug,
    };
    ops = operations((await api.get("/public/v1/openapi.json")).json);
  });
  afterAll(() => cleanup());

  const fill = (path: string) => path.replace(/\{(\w+)\}/g, (_, name: string) => ids[name] ?? "x");
  const tokenRoutes = () =>
    ops.filter((o) => JSON.stringify(o.security).includes("bearerAuth") && !JSON.stringify(o.security).includes("{}"));

  test("the inventory covers every authenticated route of the issue", () => {
    const names = tokenRoutes().map((o) => `${o.method} ${o.path}`);
    expect(names).toEqual(
      expect.arrayContaining([
        "GET /public/v1/sites",
        "POST /public/v1/sites",
        "GET /public/v1/site/{siteId}",
        "PATCH /public/v1/site/{siteId}",
        "DELETE /public/v1/site/{siteId}",
        "GET /public/v1/status-pages",
        "POST /public/v1/status-pages",
        "GET /public/v1/status-pages/{id}",
        "PATCH /public/v1/status-pages/{id}",
        "DELETE /public/v1/status-pages/{id}",
        "POST /public/v1/status-pages/{id}/items",
        "PATCH /public/v1/status-pages/{id}/items/{itemId}",
        "DELETE /public/v1/status-pages/{id}/items/{itemId}",
        "GET /public/v1/status-pages/{id}/incidents",
        "POST /public/v1/status-pages/{id}/incidents",
        "POST /public/v1/status-pages/{id}/incidents/{incidentId}/updates",
        "PATCH /public/v1/status-pages/{id}/incidents/{incidentId}",
        "DELETE /public/v1/status-pages/{id}/incidents/{incidentId}",
      ]),
    );
  });

  test("no token, a malformed header, an unknown token, a revoked token: 401 on every authenticated route", async () => {
    const revoked = await seedOwner(store);
    await store.revokeToken(revoked.tokenId, new Date().toISOString());
    const headerSets: Record<string, string>[] = [
      {},
      { authorization: "Basic dXNlcjpwYXNz" },
      { authorization: "Bearer" },
      { authorization: `Bearer pl_${"A".repeat(43)}` },
      { authorization: `Bearer ${revoked.token}` },
      { authorization: `Bearer ${"x".repeat(10_000)}` },
    ];
    for (const op of tokenRoutes()) {
      for (const headers of headerSets) {
        const res = await app.request(fill(op.path), {
          method: op.method,
          headers: { ...headers, "content-type": "application/json" },
          ...(op.hasBody ? { body: "{}" } : {}),
        });
        expect(res.status, `${op.method} ${op.path} ${JSON.stringify(headers).slice(0, 60)}`).toBe(401);
        expect(ErrorEnvelope.parse(await res.json()).error).toBe("unauthorized");
        expect(res.headers.get("www-authenticate")).toContain("Bearer");
      }
    }
  });

  test("revocation takes effect on the very next request, and the token is stored only as its hash", async () => {
    const user = await seedOwner(store);
    const c = client(app, user.token);
    expect((await c.get("/public/v1/sites")).status).toBe(200);
    const row = await store.db
      .selectFrom("api_tokens")
      .selectAll()
      .where("id", "=", user.tokenId)
      .executeTakeFirstOrThrow();
    expect(row.token_hash).toBe(hashToken(user.token));
    expect(JSON.stringify(row)).not.toContain(user.token);
    expect(row.last_used_at).not.toBeNull();
    await store.revokeToken(user.tokenId, new Date().toISOString());
    expect((await c.get("/public/v1/sites")).status).toBe(401);
  });

  test("another workspace's token gets 404 on every route that names a resource, and changes nothing", async () => {
    const stranger = client(app, (await seedOwner(store)).token);
    for (const op of tokenRoutes().filter((o) => o.path.includes("{"))) {
      const res = await stranger.call(op.method, fill(op.path), op.hasBody ? { confirmName: "P" } : undefined);
      // A body that is invalid for the route may be refused first (400); it must never reach the resource.
      expect([400, 404], `${op.method} ${op.path}`).toContain(res.status);
      const valid = await stranger.call(op.method, fill(op.path), op.hasBody ? validBody(op) : undefined);
      expect(valid.status, `${op.method} ${op.path} ${JSON.stringify(valid.json)}`).toBe(404);
    }
    const mine = client(app, owner.token);
    expect((await mine.get(`/public/v1/site/${ids.siteId}`)).status).toBe(200);
    expect((await mine.get(`/public/v1/status-pages/${ids.id}`)).json.data.items).toHaveLength(1);
  });

  const validBody = (op: Operation): unknown => {
    if (op.path.endsWith("/items")) return { siteId: ids.siteId };
    if (op.path.endsWith("/items/{itemId}")) return { label: "x" };
    if (op.path.endsWith("/updates")) return { status: "resolved", message: "m" };
    if (op.path.endsWith("/incidents")) return { title: "t", message: "m" };
    if (op.path.endsWith("{incidentId}")) return { title: "t" };
    if (op.path.startsWith("/public/v1/site/")) return { name: "x" };
    if (op.method === "DELETE") return { confirmName: "P" };
    return { name: "x" };
  };

  const badBodies: [string, string, Record<string, string>, number][] = [
    ["malformed JSON", "{", {}, 400],
    ["truncated JSON", '{"name": "x"', {}, 400],
    ["empty body", "", {}, 400],
    ["JSON null", "null", {}, 400],
    ["JSON array", "[1,2]", {}, 400],
    ["JSON string", '"hello"', {}, 400],
    ["JSON number", "42", {}, 400],
    ["deep nesting", `${"[".repeat(5000)}${"]".repeat(5000)}`, {}, 400],
    ["__proto__", '{"__proto__": {"admin": true}}', {}, 400],
    ["wrong content type", '{"name":"x"}', { "content-type": "text/plain" }, 415],
    ["form content type", "name=x", { "content-type": "application/x-www-form-urlencoded" }, 415],
    ["oversized body", JSON.stringify({ name: "x".repeat(70 * 1024) }), {}, 413],
  ];

  test("bad bodies on every route that takes one: a clear 4xx in the envelope, never a 500", async () => {
    for (const op of tokenRoutes().filter((o) => o.hasBody)) {
      for (const [what, body, headers, status] of badBodies) {
        const res = await app.request(fill(op.path), {
          method: op.method,
          headers: { authorization: `Bearer ${owner.token}`, "content-type": "application/json", ...headers },
          body,
        });
        expect(res.status, `${op.method} ${op.path}: ${what}`).toBe(status);
        const envelope = ErrorEnvelope.parse(await res.json());
        expect(envelope.code).toBe(status);
        expect(envelope.message.length).toBeGreaterThan(5);
      }
    }
    // Nothing was half-written: the seeded resources are as they were.
    const mine = client(app, owner.token);
    const page = (await mine.get(`/public/v1/status-pages/${ids.id}`)).json.data;
    expect(page).toMatchObject({ name: "P", items: [{ label: "S" }] });
    expect((await mine.get("/public/v1/sites")).json.data.pagination.total).toBe(1);
  });

  test("odd paths, parameters and methods never produce a 500", async () => {
    const mine = client(app, owner.token);
    const paths = [
      "/public/v1/site/%00",
      "/public/v1/site/..%2F..%2Fetc",
      `/public/v1/site/${"a".repeat(10_000)}`,
      "/public/v1/status-pages/abc",
      "/public/v1/status-pages/0",
      "/public/v1/status-pages/99999999999999999999",
      "/public/v1/status-pages/1.5/items",
      "/public/v1/status-pages?page=1e3",
      "/public/v1/status-pages?page=99999999",
      "/public/v1/status-pages?page[]=1",
      "/public/v1/sites?perPage[$gt]=1",
      `/public/v1/sites?${"a=1&".repeat(2000)}`,
      "/public/v1/status-page/%E0%A4%A",
      "/public/v1/status-page/..",
      "/public/v1/nothing-here",
    ];
    for (const path of paths) {
      for (const method of ["GET", "POST", "PATCH", "DELETE", "PUT"]) {
        const res = await mine.call(method, path, method === "GET" ? undefined : {});
        expect(res.status, `${method} ${path}`).toBeGreaterThanOrEqual(200);
        expect(res.status, `${method} ${path}`).toBeLessThan(500);
        if (res.status >= 400) expect(() => ErrorEnvelope.parse(res.json), `${method} ${path}`).not.toThrow();
      }
    }
    expect((await mine.get("/public/v1/status-pages?page=99999999")).json.data.statusPages).toEqual([]);
  });

  test("100,000-character inputs are refused with a 4xx (a hang would fail on the test timeout)", async () => {
    const mine = client(app, owner.token);
    const long = "x".repeat(100_000);
    const res = await mine.post("/public/v1/sites", { url: `https://example.com/${long}`, name: "x" });
    expect(res.status).toBe(413);
    const slug = await mine.post("/public/v1/status-pages", { name: "x", slug: "a".repeat(60_000) });
    expect([400, 413]).toContain(slug.status);
  });
});
