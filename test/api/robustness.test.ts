import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test } from "vitest";
import { z } from "zod";
import { createToken } from "../../server/accounts/accounts.ts";
import { hashToken } from "../../server/accounts/secrets.ts";
import { createApp } from "../../server/app.ts";
import { ErrorEnvelope } from "../../server/contract/common.ts";
import { bodyLimitOf } from "../../server/http/headers.ts";
import type { Route } from "../../server/http/route.ts";
import { createLogger } from "../../server/log.ts";
import type { Store } from "../../server/store/store.ts";
import {
  type App,
  client,
  describeStores,
  seedMember,
  seedOwner,
  TestClock,
  testConfig,
  UNKNOWN_PARAMS,
  useStore,
} from "../helpers.ts";

/** hasBody: a JSON body; upload: a body of bytes in another media type (a page's logo or favicon, an import's file). */
type Operation = {
  method: string;
  path: string;
  security: unknown[];
  hasBody: boolean;
  upload: boolean;
  types: string[];
};

function operations(doc: {
  paths: Record<string, Record<string, { security?: unknown[]; requestBody?: { content: Record<string, unknown> } }>>;
}) {
  const out: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      out.push({
        method: method.toUpperCase(),
        path,
        security: op.security ?? [],
        hasBody: op.requestBody?.content["application/json"] !== undefined,
        upload: op.requestBody !== undefined && op.requestBody.content["application/json"] === undefined,
        types: Object.keys(op.requestBody?.content ?? {}),
      });
    }
  }
  return out;
}

/** Limits high enough that the hundreds of requests below are never refused for their number. */
const UNLIMITED = {
  PORCHLIGHT_API_REQUESTS_PER_MINUTE: "1000000",
  PORCHLIGHT_SNAPSHOTS_PER_MINUTE: "100000",
  PORCHLIGHT_SNAPSHOT_POLLS_PER_MINUTE: "100000",
  PORCHLIGHT_REPORTS_PER_HOUR: "100000",
};

type Json = Record<string, any>;
type FieldPath = (string | number)[];

/**
 * The path of every string a body schema accepts (enums, dates and nullable strings included), from the JSON Schema
 * zod makes of it for its input: a field added to a contract is in this list without anyone listing it.
 */
function stringFields(schema: z.ZodType): FieldPath[] {
  const root = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Json;
  const found = new Map<string, FieldPath>();
  const walk = (node: Json | undefined, path: FieldPath, depth: number): void => {
    if (!node || depth > 20) return;
    if (typeof node.$ref === "string") walk(root.$defs?.[node.$ref.replace("#/$defs/", "")], path, depth + 1);
    for (const branch of [...(node.anyOf ?? []), ...(node.oneOf ?? []), ...(node.allOf ?? [])]) {
      walk(branch, path, depth + 1);
    }
    const strings = node.type === "string" || typeof node.const === "string" || typeof node.enum?.[0] === "string";
    if (strings) found.set(path.join("."), path);
    for (const [key, child] of Object.entries(node.properties ?? {})) walk(child as Json, [...path, key], depth + 1);
    if (node.items) walk(node.items, [...path, 0], depth + 1);
  };
  walk(root, [], 0);
  return [...found.values()];
}

/** A copy of `body` with `value` at `path`, objects and arrays made on the way as needed. */
function withValue(body: unknown, path: FieldPath, value: unknown): unknown {
  const copy = structuredClone(body) as Json;
  let node: Json = copy;
  path.forEach((key, i) => {
    if (i === path.length - 1) node[key] = value;
    else node = node[key] ??= typeof path[i + 1] === "number" ? [] : {};
  });
  return copy;
}

describeStores("every route: authentication, isolation and bad input", (kind) => {
  let store: Store;
  let app: App;
  let made: ReturnType<typeof createApp>;
  let routes: Route[];
  let ops: Operation[];
  let owner: Awaited<ReturnType<typeof seedOwner>>;
  let ids: Record<string, string>;
  /** The SQL of every query the store runs, for the test that needs to see none. */
  const queries: string[] = [];

  useStore(kind, { onQuery: (sql) => queries.push(sql) }, async (opened) => {
    ({ store } = opened);
    made = createApp({
      store,
      config: testConfig(UNLIMITED),
      logger: createLogger("silent"),
      clock: new TestClock(),
      checkResponses: true,
      // Invitations and resets send mail: kept in memory here, never written under ./data.
      mailer: { mode: "smtp", send: async () => ({ messageId: "m" }), close: async () => {} },
    });
    ({ app, routes } = made);
    owner = await seedOwner(store, "stack");
    const api = client(app, owner.token);
    const site = (await api.post("/public/v1/sites", { url: "https://example.com", name: "S" })).json.data;
    const page = (await api.post("/public/v1/status-pages", { name: "P", slug: `inv-${kind.name}` })).json.data;
    const item = (await api.post(`/public/v1/status-pages/${page.id}/items`, { siteId: site.id })).json.data;
    const incident = (await api.post(`/public/v1/status-pages/${page.id}/incidents`, { title: "t", message: "m" })).json
      .data;
    const group = (await api.post(`/public/v1/status-pages/${page.id}/groups`, { name: "G" })).json.data;
    const channel = (
      await api.post("/public/v1/alert-channels", {
        name: "C",
        type: "slack",
        config: { url: "https://hooks.example.com/services/x" },
      })
    ).json.data;
    const window = (
      await api.post("/public/v1/maintenance-windows", {
        title: "W",
        sites: [site.id],
        start: "2026-12-01T02:00",
        durationMinutes: 30,
      })
    ).json.data;
    const member = await seedMember(store, owner.email, "viewer");
    const invitation = (
      await api.post("/public/v1/invitations", { email: `inv-${kind.name}@example.com`, role: "viewer" })
    ).json.data;
    // Tokens are minted from a dashboard session or the CLI, never by a token: the CLI's way here.
    const spare = await createToken(store, owner.email, "spare", new Date());
    ids = {
      memberId: (await store.accounts.findUserByEmail(member.email))?.id as string,
      invitationId: invitation.id,
      tokenId: spare.id,
      windowId: window.id,
      siteId: site.id,
      id: String(page.id),
      itemId: String(item.id),
      groupId: String(group.id),
      incidentId: String(incident.id),
      updateId: String(incident.updates[0].id),
      channelId: channel.id,
      slug: page.slug,
      // Well formed; no snapshot was ever asked for.
      snapshotId: "AAAAAAAAAAAAAAAAAAAAAA",
      // Well formed; names no push site.
      token: "A".repeat(32),
      // Well formed; the page has no subscriber.
      subscriberId: `sub_${"1".repeat(24)}`,
    };
    ops = operations((await api.get("/public/v1/openapi.json")).json);
  });

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
    await store.accounts.revokeToken(revoked.tokenId, new Date().toISOString());
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
    await store.accounts.revokeToken(user.tokenId, new Date().toISOString());
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
    if (op.path.endsWith("/subscribers/import")) return { csv: "a@example.com" };
    if (op.path.endsWith("/subscribers/preview")) return { title: "t", message: "m" };
    if (op.path.endsWith("/items/{itemId}")) return { label: "x" };
    if (op.path.endsWith("/groups")) return { name: "x" };
    if (op.path.endsWith("/groups/{groupId}")) return { name: "x" };
    if (op.path.endsWith("/updates")) return { status: "resolved", message: "m" };
    if (op.path.endsWith("/incidents")) return { title: "t", message: "m" };
    if (op.path.endsWith("{incidentId}")) return { title: "t" };
    if (op.path.endsWith("{updateId}")) return { message: "m" };
    if (op.path.endsWith("/alert-rule") || op.path.endsWith("/alert-rules/default")) return { channels: "all" };
    if (op.path.startsWith("/public/v1/site/")) return { name: "x" };
    if (op.path === "/public/v1/alert-channels")
      return { name: "x", type: "slack", config: { url: "https://x.example/" } };
    if (op.path === "/public/v1/maintenance-windows")
      return { title: "x", sites: [ids.siteId], start: "2026-12-01T02:00", durationMinutes: 5 };
    if (op.path.startsWith("/public/v1/maintenance-windows/")) return { title: "x" };
    if (op.path.startsWith("/public/v1/members/")) return { role: "editor" };
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
  ];
  /** A body past the route's own limit (64 KB, a subscribers' import 1 MB). */
  const oversized = (path: string): [string, string, Record<string, string>, number] => [
    "oversized body",
    JSON.stringify({ name: "x".repeat(bodyLimitOf(path) + 6 * 1024) }),
    {},
    413,
  ];

  test("bad bodies on every route that takes one: a clear 4xx in the envelope, never a 500", async () => {
    for (const op of tokenRoutes().filter((o) => o.hasBody)) {
      for (const [what, body, headers, status] of [...badBodies, oversized(fill(op.path))]) {
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
    // A route that takes a file's bytes (an image, an import): JSON is another media type (415), and no bad body gets
    // past its checks in the media type it takes.
    const uploads = tokenRoutes().filter((o) => o.upload);
    expect(uploads.length).toBeGreaterThan(0);
    for (const op of uploads) {
      const type = op.types[0] as string;
      for (const [what, body, headers, status] of [
        ...badBodies.map(([what, body]) => [what, body, { "content-type": "application/json" }, 415] as const),
        ...badBodies.map(([what, body]) => [`${what} as ${type}`, body, { "content-type": type }, 400] as const),
        // Bytes: a string body would be sent as text/plain, which a Gatus import takes.
        ["no content type", new TextEncoder().encode("x"), {}, 415] as const,
        ["a content type with odd parameters", "x", { "content-type": `${type}; a="b;c"; ;=` }, 400] as const,
        ["oversized file", "x".repeat(bodyLimitOf(fill(op.path)) + 1024), { "content-type": type }, 413] as const,
      ]) {
        const res = await app.request(fill(op.path), {
          method: op.method,
          headers: { authorization: `Bearer ${owner.token}`, ...headers },
          body,
        });
        expect(res.status, `${op.method} ${op.path}: ${what}`).toBe(status);
        expect(ErrorEnvelope.parse(await res.json()).code).toBe(status);
      }
    }
    // Nothing was half-written: the seeded resources are as they were.
    const mine = client(app, owner.token);
    const page = (await mine.get(`/public/v1/status-pages/${ids.id}`)).json.data;
    expect(page).toMatchObject({ name: "P", items: [{ label: "S" }], logo: null, favicon: null });
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
  // ---- what no store can hold: NUL and unpaired surrogates, in every parameter and every field ----------------

  /** A valid body for every route that takes one: each bad-field case below changes one field of it. */
  const validBodies = (): Record<string, unknown> => ({
    "POST /public/v1/sites": {
      url: "https://example.com/health",
      name: "S",
      method: "GET",
      headers: [{ name: "X-Check", value: "yes" }],
      parentGroup: "g",
      notes: "n",
      regions: ["local"],
    },
    "PATCH /public/v1/site/{siteId}": {
      url: "https://example.com/health",
      name: "S",
      method: "HEAD",
      headers: [{ name: "X-Check", value: "yes" }],
      parentGroup: "g",
      notes: "n",
      regions: ["local"],
    },
    "POST /public/v1/status-pages": {
      name: "Q",
      slug: `q-${kind.name}`,
      description: "d",
      visibility: "password",
      password: "a long password",
      theme: { mode: "dark", accentColor: "#000000" },
      customDomain: "status.example.com",
    },
    "PATCH /public/v1/status-pages/{id}": {
      name: "P",
      slug: `inv-${kind.name}`,
      description: "d",
      visibility: "password",
      password: "a long password",
      theme: { mode: "dark", accentColor: "#000000" },
      customDomain: "status.example.com",
      incidentPolicy: { publish: "draft", template: { title: "{service} is down", recovered: "{service} is back." } },
    },
    "DELETE /public/v1/status-pages/{id}": { confirmName: "P" },
    "POST /public/v1/status-pages/{id}/items": { siteId: ids.siteId, label: "L" },
    "POST /public/v1/sites/target-check": { url: "https://example.com/" },
    "PATCH /public/v1/status-pages/{id}/items/{itemId}": { label: "L", groupId: Number(ids.groupId), position: 1 },
    "POST /public/v1/status-pages/{id}/groups": { name: "N", description: "D", collapsed: false, position: 1 },
    "PATCH /public/v1/status-pages/{id}/groups/{groupId}": {
      name: "N",
      description: "D",
      collapsed: false,
      position: 1,
    },
    "POST /public/v1/status-pages/{id}/incidents": {
      title: "t",
      status: "resolved",
      message: "m",
      startedAt: "2026-11-20T10:00:00.000Z",
      resolvedAt: "2026-11-20T11:00:00.000Z",
    },
    "POST /public/v1/status-pages/{id}/incidents/{incidentId}/updates": { status: "monitoring", message: "m" },
    "PATCH /public/v1/status-pages/{id}/incidents/{incidentId}": {
      title: "t",
      impact: "minor",
      items: [{ id: Number(ids.itemId), status: "degraded" }],
    },
    "PATCH /public/v1/status-pages/{id}/incidents/{incidentId}/updates/{updateId}": {
      message: "m",
      at: "2026-11-20T10:00:00.000Z",
    },
    "POST /public/v1/alert-channels": {
      name: "N",
      type: "webhook",
      config: { url: "https://hooks.example.com/in", secret: "a-secret-of-16-chars" },
    },
    "PATCH /public/v1/alert-channels/{channelId}": { name: "N", config: { url: "https://hooks.example.com/x" } },
    "PUT /public/v1/alert-rules/default": { channels: [ids.channelId], events: { down: true, degraded: true } },
    "PUT /public/v1/site/{siteId}/alert-rule": { channels: [ids.channelId], events: { recovered: false } },
    "POST /public/v1/maintenance-windows": {
      title: "T",
      sites: [ids.siteId],
      start: "2026-12-06T02:00",
      timeZone: "Europe/Berlin",
      durationMinutes: 60,
      recurrence: "FREQ=WEEKLY;BYDAY=SU",
    },
    "PATCH /public/v1/maintenance-windows/{windowId}": { title: "T", durationMinutes: 30 },
    "POST /public/v1/session": { email: "someone@example.com", password: "a long enough passphrase", totp: "123456" },
    "POST /public/v1/account-links/inspect": { token: "A".repeat(43) },
    "POST /public/v1/account-links/use": { token: "A".repeat(43), password: "a long enough passphrase" },
    "POST /public/v1/password-reset": { email: "someone@example.com" },
    "POST /public/v1/me/password": { currentPassword: "the old one", password: "a long enough passphrase" },
    "POST /public/v1/me/totp": { sealed: "v1:x", code: "123456" },
    "POST /public/v1/me/totp/disable": { code: "123456" },
    "POST /public/v1/invitations": { email: "invited@example.com", role: "editor" },
    "PATCH /public/v1/members/{memberId}": { role: "editor" },
    "POST /public/v1/tokens": { name: "T" },
    "POST /public/anon/domain-snapshot": { domain: "example.com" },
    "POST /public/anon/domain-report-24h": { domain: "example.com", email: "someone@example.com" },
    "POST /public/v1/status-page/{slug}/subscribers": { email: "someone@example.com", items: [1] },
    "POST /public/v1/status-pages/{id}/subscribers/import": { csv: "email\nsomeone@example.com", consent: true },
    "POST /public/v1/status-pages/{id}/subscribers/preview": { title: "Slow", message: "Looking" },
  });
  const nameOf = (def: Route) => `${def.method.toUpperCase()} ${def.path}`;
  const paramValue = (def: Route, name: string) =>
    name === "slug" && def.path.startsWith("/badge/") ? (ids.slug as string) : (ids[name] ?? "x");
  const pathOf = (def: Route, name?: string, value?: string) =>
    def.path.replace(/\{(\w+)\}/g, (_, param: string) => (param === name ? (value as string) : paramValue(def, param)));
  /** Asks a route as its owner would: the token on token routes, a valid body on write routes. */
  const ask = (def: Route, path: string, body?: unknown) =>
    client(app, def.access === "token" ? owner.token : undefined).call(
      def.method.toUpperCase(),
      path,
      def.body ? (body ?? validBodies()[nameOf(def)]) : undefined,
    );

  /** Every row of every table but the tokens' (each request stamps last_used_at), in a stable order. */
  async function everyRow(): Promise<string> {
    const tables = (await store.db.introspection.getTables()).map((t) => t.name).filter((t) => t !== "api_tokens");
    const out: Record<string, string[]> = {};
    for (const table of tables.sort()) {
      const rows = await (store.db as any).selectFrom(table).selectAll().execute();
      out[table] = rows.map((row: unknown) => JSON.stringify(row)).sort();
    }
    const tokens = await store.db.selectFrom("api_tokens").select("id").execute();
    return JSON.stringify({ ...out, api_tokens: tokens.length });
  }

  /**
   * Path values no id or slug can have, as they appear in the address. `always`: refused before the route's own
   * schema, whatever it allows (NUL, over-long); the others are refused by the parameter's schema, where it says
   * what an id or slug looks like. (Surrogates cannot arrive decoded: their bytes are not UTF-8, so the value stays
   * percent-encoded, and only a schema can tell it from a real id.)
   */
  const BAD_PATH_VALUES: [string, (valid: string) => string, { always: boolean }][] = [
    ["NUL", () => "%00", { always: true }],
    ["NUL after a valid value", (valid) => `${valid}%00`, { always: true }],
    ["NUL before a valid value", (valid) => `%00${valid}`, { always: true }],
    ["a valid value made over-long", (valid) => `${valid}${"9".repeat(300)}`, { always: true }],
    ["100,000 characters", () => "a".repeat(100_000), { always: true }],
    ["a lone high surrogate (CESU-8 bytes)", () => "%ED%A0%80", { always: false }],
    ["a lone low surrogate after a valid value", (valid) => `${valid}%ED%B0%80`, { always: false }],
    ["an overlong NUL", () => "%C0%80", { always: false }],
    ["characters no id or slug has", () => "%E2%9C%93%20A", { always: false }],
    ["a path escape", () => "..%2F..%2Fetc", { always: false }],
  ];
  /** A path parameter as the router hands it over: decoded, or as it came when it does not decode. */
  const decoded = (value: string) => {
    try {
      return decodeURIComponent(value);
    } catch {
      return value;
    }
  };
  /** Well formed, but naming nothing: the answer every value above must give, word for word. */
  const UNKNOWN = UNKNOWN_PARAMS;

  test("the route table's body routes all have a valid body here, so that every field below is tested", () => {
    const bodies = validBodies();
    expect(Object.keys(bodies).sort()).toEqual(
      routes
        .filter((def) => def.body)
        .map(nameOf)
        .sort(),
    );
    for (const def of routes.filter((d) => d.body)) {
      expect(def.body?.safeParse(bodies[nameOf(def)]).success, nameOf(def)).toBe(true);
    }
  });

  test("NUL, surrogates, foreign characters and over-long values in every path parameter of every route: the 404 of an unknown resource, word for word, before the store is asked", async () => {
    const before = await everyRow();
    let sent = 0;
    for (const def of routes) {
      for (const [, param] of def.path.matchAll(/\{(\w+)\}/g)) {
        const name = param as string;
        const reference = await ask(def, pathOf(def, name, UNKNOWN[name] ?? "x"));
        expect(reference.status, `${nameOf(def)} with an unknown ${name}`).toBe(404);
        for (const [what, make, { always }] of BAD_PATH_VALUES) {
          const label = `${nameOf(def)}: ${name} = ${what}`;
          const value = make(paramValue(def, name));
          queries.length = 0;
          const res = await ask(def, pathOf(def, name, value));
          sent++;
          expect(res.status, label).toBe(404);
          expect(res.json, label).toEqual(reference.json);
          expect(res.headers.get("x-content-type-options"), label).toBe("nosniff");
          // Only the token's own lookup (PostgreSQL checks it on every request): the value never reaches a query.
          const params = Object.fromEntries(
            [...def.path.matchAll(/\{(\w+)\}/g)].map(([, p]) => [
              p,
              p === name ? decoded(value) : paramValue(def, p as string),
            ]),
          );
          if (always || def.params?.safeParse(params).success === false) {
            expect(
              queries.filter((sql) => !sql.includes("api_tokens")),
              label,
            ).toEqual([]);
          }
        }
      }
    }
    expect(sent).toBeGreaterThan(300);
    expect(await everyRow()).toBe(before);
  });

  test("NUL in every query parameter of every route that reads its query: a 400 naming the parameter; elsewhere the query is ignored alike", async () => {
    const before = await everyRow();
    for (const def of routes) {
      const path = pathOf(def);
      if (!def.query) {
        if (def.method !== "get") continue;
        const plain = await ask(def, path);
        for (const query of ["x=%00", "%00=1", "x=%ED%A0%80"]) {
          const res = await ask(def, `${path}?${query}`);
          expect(res.status, `${nameOf(def)}?${query}`).toBe(plain.status);
        }
        continue;
      }
      const props = (z.toJSONSchema(def.query, { io: "input", unrepresentable: "any" }) as Json).properties ?? {};
      for (const name of [...Object.keys(props), "unknownParameter"]) {
        for (const value of ["%00", "a%00b", "%00%00%00"]) {
          const label = `${nameOf(def)}?${name}=${value}`;
          const res = await ask(def, `${path}?${name}=${value}`);
          expect(res.status, label).toBe(400);
          const envelope = ErrorEnvelope.parse(res.json);
          expect(envelope.error, label).toBe("validation_failed");
          expect(envelope.details, label).toContainEqual({ field: name, message: expect.stringMatching(/NUL/) });
        }
        // Percent-encoded surrogates decode to U+FFFD, which text holds: whatever the schema says, never a 500.
        const replaced = await ask(def, `${path}?${name}=%ED%A0%80`);
        expect(replaced.status, `${nameOf(def)}?${name}=%ED%A0%80`).toBeLessThan(500);
      }
      const key = await ask(def, `${path}?a%00b=1`);
      expect(key.status, `${nameOf(def)}?a%00b=1`).toBe(400);
      expect(ErrorEnvelope.parse(key.json).details).toContainEqual({ field: "a\u0000b", message: expect.any(String) });
    }
    expect(await everyRow()).toBe(before);
  });

  /** Strings no text column can hold, as JSON sends them (JSON.stringify escapes lone surrogates as \\udXXX). */
  const BAD_TEXT: [string, string][] = [
    ["NUL", "\u0000"],
    ["NUL inside", "status\u0000page"],
    ["a lone high surrogate", "\ud800"],
    ["a lone low surrogate inside", "a\udc00b"],
    ["a surrogate pair the wrong way round", "\udc00\ud800"],
  ];

  test("NUL and unpaired surrogates in every string field of every body (fields from the zod schemas): a 400 naming the field, and nothing written", async () => {
    const before = await everyRow();
    const bodies = validBodies();
    let sent = 0;
    for (const def of routes.filter((d) => d.body)) {
      const fields = stringFields(def.body as z.ZodType);
      expect(fields.length, nameOf(def)).toBeGreaterThan(0);
      for (const field of fields) {
        for (const [what, text] of BAD_TEXT) {
          const label = `${nameOf(def)}: ${field.join(".")} = ${what}`;
          const res = await ask(def, pathOf(def), withValue(bodies[nameOf(def)], field, text));
          sent++;
          expect(res.status, label).toBe(400);
          const envelope = ErrorEnvelope.parse(res.json);
          expect(envelope.error, label).toBe("validation_failed");
          expect(envelope.details?.[0], label).toEqual({
            field: field.join("."),
            message: expect.stringMatching(/NUL|surrogate/),
          });
        }
      }
      // A field whose name no store could hold is refused too, and named.
      const res = await ask(def, pathOf(def), { ...(bodies[nameOf(def)] as Json), "na\u0000me": "x" });
      expect(res.status, `${nameOf(def)}: a NUL in a field's name`).toBe(400);
      expect(ErrorEnvelope.parse(res.json).details?.[0]?.field).toBe("na\u0000me");
    }
    expect(sent).toBeGreaterThan(200);
    expect(await everyRow()).toBe(before);
  });

  test("the fast paths answer these inputs as the app does", async () => {
    const server = createServer(made.listener);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const auth = { authorization: `Bearer ${owner.token}` };
      const slug = ids.slug as string;
      // Views and records in memory, so that the fast paths can answer.
      await fetch(`${base}/public/v1/status-page/${slug}`);
      await fetch(`${base}/public/v1/site/${ids.siteId}`, { headers: auth });
      made.fastPathCounts.take();
      const cases: [string, Record<string, string>][] = [
        [`/public/v1/status-page/${slug}`, {}],
        [`/public/v1/status-page/${slug}?x=%00`, {}],
        [`/api/status-page/${slug}/items?%00`, {}],
        [`/public/v1/status-page/${slug}%00`, {}],
        [`/public/v1/status-page/%00/incidents`, {}],
        [`/api/status-page/${slug}%ED%A0%80`, {}],
        [`/public/v1/site/${ids.siteId}`, auth],
        [`/public/v1/site/${ids.siteId}?statDays=%00`, auth],
        [`/public/v1/site/${ids.siteId}?%00=7`, auth],
        [`/public/v1/site/${ids.siteId}?statDays=%ED%A0%80`, auth],
        [`/public/v1/site/${ids.siteId}%00`, auth],
      ];
      for (const [path, headers] of cases) {
        const viaSocket = await fetch(`${base}${path}`, { headers });
        const viaApp = await app.request(path, { headers });
        expect(viaSocket.status, path).toBe(viaApp.status);
        const [socketBody, appBody] = [await viaSocket.json(), await viaApp.json()];
        expect(socketBody, path).toEqual(appBody);
        expect(viaSocket.headers.get("x-content-type-options"), path).toBe("nosniff");
      }
      expect(made.fastPathCounts.take()["status page 200"], "the fast path answered the valid reads").toBeGreaterThan(
        0,
      );
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
