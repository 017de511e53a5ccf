import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createLogger } from "../../server/log.ts";
import type { Store } from "../../server/store/store.ts";
import { client, makeApp, seedMember, seedOwner, seedStats, sqliteKind, type TestClock } from "../helpers.ts";

/** Serves with a listener on a real port; answers 599 when the fast path declines a request. */
async function listen(listener: RequestListener): Promise<{ base: string; server: Server }> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const IGNORED = new Set(["date", "connection", "keep-alive", "x-request-id", "transfer-encoding"]);
/**
 * The headers both answers must share. The token's remaining count (RateLimit's r=) differs by one request, and the
 * seconds to the window's end (t=) by one when a second ends between the two requests (see resetSeconds).
 */
/** RateLimit's t=: the seconds to the token's window's end, from 1 to the window (60). */
const resetSeconds = (headers: Headers) => {
  const t = Number(/;t=(\d+)/.exec(headers.get("ratelimit") ?? "")?.[1]);
  expect(t).toBeGreaterThanOrEqual(1);
  expect(t).toBeLessThanOrEqual(60);
  return t;
};
const comparable = (headers: Headers) =>
  Object.fromEntries(
    [...headers]
      .filter(([name]) => !IGNORED.has(name))
      .map(([name, value]) => [
        name,
        name === "ratelimit" ? value.replace(/;r=\d+/, ";r=N").replace(/;t=\d+/, ";t=T") : value,
      ])
      .sort(([a], [b]) => (a as string).localeCompare(b as string)),
  );

let store: Store;
let cleanup: () => Promise<void>;
let clock: TestClock;
let full: { base: string; server: Server };
let fastOnly: { base: string; server: Server };
let api: ReturnType<typeof client>;
let owner: Awaited<ReturnType<typeof seedOwner>>;
let passwordSlug: string;
const logLines: Record<string, unknown>[] = [];
let made: ReturnType<typeof makeApp>;

beforeAll(async () => {
  ({ store, cleanup } = await sqliteKind.open());
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split("\n").filter(Boolean)) logLines.push(JSON.parse(line));
      done();
    },
  });
  made = makeApp(store, { logger: createLogger("debug", sink) });
  clock = made.clock;
  full = await listen(made.listener);
  fastOnly = await listen((req, res) => {
    if (!made.fastPath(req, res)) {
      res.writeHead(599);
      res.end();
    }
  });
  owner = await seedOwner(store);
  api = client(made.app, owner.token);
  const page = (await api.post("/public/v1/status-pages", { name: "Fast", slug: "fast", description: "d" })).json.data;
  const site = (await api.post("/public/v1/sites", { url: "https://example.com", name: "S" })).json.data;
  await api.post(`/public/v1/status-pages/${page.id}/items`, { siteId: site.id });
  await api.post(`/public/v1/status-pages/${page.id}/incidents`, { title: "t", message: "m" });
  passwordSlug = (
    await api.post("/public/v1/status-pages", {
      name: "Locked",
      slug: "locked",
      visibility: "password",
      password: "a long password",
    })
  ).json.data.slug;
});
afterAll(async () => {
  full.server.close();
  fastOnly.server.close();
  await cleanup();
});

test("a cached public view is answered by the fast path exactly as the app answers it", async () => {
  for (const path of [
    "/public/v1/status-page/fast",
    "/public/v1/status-page/fast/items",
    "/public/v1/status-page/fast/incidents",
    "/api/status-page/fast",
    "/api/status-page/fast/items?cachebust=1",
    // Statuspage's v2 documents of the same page.
    "/fast/api/v2/summary.json",
    "/fast/api/v2/incidents/unresolved.json",
    "/fast/api/v2/scheduled-maintenances/active.json",
  ]) {
    const viaApp = await fetch(`${full.base}${path}`, { headers: { origin: "https://customer.example" } });
    const viaFast = await fetch(`${fastOnly.base}${path}`, { headers: { origin: "https://customer.example" } });
    expect(viaFast.status, path).toBe(200);
    expect(viaApp.status, path).toBe(200);
    expect(comparable(viaFast.headers), path).toEqual(comparable(viaApp.headers));
    expect(Buffer.from(await viaFast.arrayBuffer()).equals(Buffer.from(await viaApp.arrayBuffer())), path).toBe(true);
  }
});

test("304, HEAD and request ids are the same on both paths", async () => {
  const path = "/public/v1/status-page/fast";
  const etag = (await fetch(`${full.base}${path}`)).headers.get("etag") as string;
  for (const base of [full.base, fastOnly.base]) {
    const notModified = await fetch(`${base}${path}`, { headers: { "if-none-match": etag } });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get("etag")).toBe(etag);
    const head = await fetch(`${base}${path}`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
    const kept = await fetch(`${base}${path}`, { headers: { "x-request-id": "trace-123" } });
    expect(kept.headers.get("x-request-id")).toBe("trace-123");
    const replaced = await fetch(`${base}${path}`, { headers: { "x-request-id": "bad id<script>" } });
    expect(replaced.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  }
});

test("the fast path declines what it must not answer: protected pages, misses, expired views, other methods", async () => {
  expect((await fetch(`${fastOnly.base}/public/v1/status-page/${passwordSlug}`)).status).toBe(599);
  await fetch(`${full.base}/public/v1/status-page/${passwordSlug}`); // built and cached, still protected
  expect((await fetch(`${fastOnly.base}/public/v1/status-page/${passwordSlug}`)).status).toBe(599);
  expect((await fetch(`${full.base}/public/v1/status-page/${passwordSlug}`)).status).toBe(401);
  expect((await fetch(`${fastOnly.base}/public/v1/status-page/no-such-page`)).status).toBe(599);
  expect((await fetch(`${fastOnly.base}/${passwordSlug}/api/v2/summary.json`)).status).toBe(599);
  expect((await fetch(`${fastOnly.base}/fast/api/v2/nothing.json`)).status).toBe(599);
  expect((await fetch(`${fastOnly.base}/public/v1/status-page/fast/`)).status).toBe(599);
  expect((await fetch(`${fastOnly.base}/public/v1/status-page/fast`, { method: "POST" })).status).toBe(599);
  expect((await fetch(`${fastOnly.base}/public/v1/status-page/fast`, { method: "OPTIONS" })).status).toBe(599);
  clock.advance(3_600_000);
  expect((await fetch(`${fastOnly.base}/public/v1/status-page/fast`)).status).toBe(599);
  expect((await fetch(`${full.base}/public/v1/status-page/fast`)).status).toBe(200);
  expect((await fetch(`${fastOnly.base}/public/v1/status-page/fast`)).status).toBe(200);
});

test("a change shows at once: the write clears the view the fast path serves", async () => {
  await fetch(`${full.base}/public/v1/status-page/fast`);
  expect((await fetch(`${fastOnly.base}/public/v1/status-page/fast`)).status).toBe(200);
  const page = (await api.get("/public/v1/status-pages")).json.data.statusPages.find(
    (p: { slug: string }) => p.slug === "fast",
  );
  await api.patch(`/public/v1/status-pages/${page.id}`, { description: "changed" });
  expect((await fetch(`${fastOnly.base}/public/v1/status-page/fast`)).status).toBe(599);
  const fresh = await (await fetch(`${full.base}/public/v1/status-page/fast`)).json();
  expect(fresh.description).toBe("changed");
});

test("every request is logged once with its id: reads from memory at debug and counted, the rest at info", async () => {
  await fetch(`${full.base}/public/v1/status-page/fast`);
  made.fastPathCounts.take();
  logLines.length = 0;
  await fetch(`${fastOnly.base}/public/v1/status-page/fast?secret=1`, { headers: { "x-request-id": "fast-1" } });
  await fetch(`${full.base}/public/v1/status-page/no-such-page`, { headers: { "x-request-id": "app-1" } });
  await new Promise((resolve) => setTimeout(resolve, 50));
  const requests = logLines.filter((l) => l.msg === "request");
  expect(requests).toEqual([
    expect.objectContaining({ level: 20, requestId: "fast-1", path: "/public/v1/status-page/fast", status: 200 }),
    expect.objectContaining({
      level: 30,
      requestId: "app-1",
      path: "/public/v1/status-page/no-such-page",
      status: 404,
    }),
  ]);
  expect(JSON.stringify(logLines)).not.toContain("secret");
  expect(made.fastPathCounts.take()).toEqual({ "status page 200": 1 });
  expect(made.fastPathCounts.take()).toEqual({});
});

describe("site detail", () => {
  let siteId: string;
  let viewerToken: string;
  const get = (base: string, path: string, token: string, init: RequestInit = {}) =>
    fetch(`${base}${path}`, { ...init, headers: { authorization: `Bearer ${token}` } });

  beforeAll(async () => {
    siteId = (await api.post("/public/v1/sites", { url: "https://fast.example.com", name: "Fast site" })).json.data.id;
    await seedStats(store, siteId, clock.now(), 40);
    clock.advance(60_000);
    viewerToken = (await seedMember(store, owner.email, "viewer")).token;
  });

  test("a cached answer is served by the fast path exactly as the app serves it, for each role and window", async () => {
    for (const token of [owner.token, viewerToken]) {
      for (const query of ["", "?statDays=7", "?statDays=abc", "?statDays=7&statDays=8", "?statDays=200", "?x=1"]) {
        const path = `/public/v1/site/${siteId}${query}`;
        const viaApp = await get(full.base, path, token);
        const viaFast = await get(fastOnly.base, path, token);
        expect(viaApp.status, path).toBe(200);
        expect(viaFast.status, path).toBe(200);
        expect(comparable(viaFast.headers), path).toEqual(comparable(viaApp.headers));
        expect(Math.abs(resetSeconds(viaFast.headers) - resetSeconds(viaApp.headers)), path).toBeLessThanOrEqual(1);
        const [a, b] = [Buffer.from(await viaApp.arrayBuffer()), Buffer.from(await viaFast.arrayBuffer())];
        expect(b.equals(a), path).toBe(true);
      }
    }
    const viewerBody = await (await get(fastOnly.base, `/public/v1/site/${siteId}`, viewerToken)).json();
    expect(viewerBody.data.role.name).toBe("viewer");
    expect(viewerBody.data.stat).toHaveLength(30);
  });

  test("a poll sending the ETag gets the app's 304, without a body, from the fast path too", async () => {
    const path = `/public/v1/site/${siteId}`;
    const first = await get(full.base, path, owner.token);
    const etag = first.headers.get("etag") as string;
    const poll = (base: string) =>
      fetch(`${base}${path}`, { headers: { authorization: `Bearer ${owner.token}`, "if-none-match": etag } });
    const [viaApp, viaFast] = [await poll(full.base), await poll(fastOnly.base)];
    expect(viaApp.status).toBe(304);
    expect(viaFast.status).toBe(304);
    expect(await viaFast.text()).toBe("");
    expect(comparable(viaFast.headers)).toEqual(comparable(viaApp.headers));
  });

  test("the fast path declines unknown, revoked and foreign tokens, stale records and other methods; never serves old data", async () => {
    const path = `/public/v1/site/${siteId}`;
    await get(full.base, path, owner.token);
    expect((await get(fastOnly.base, path, owner.token)).status).toBe(200);
    expect((await fetch(`${fastOnly.base}${path}`)).status).toBe(599);
    expect((await get(fastOnly.base, path, "pl_never_seen_token_000000000000000000000000")).status).toBe(599);
    expect((await get(full.base, path, "pl_never_seen_token_000000000000000000000000")).status).toBe(401);
    expect((await get(fastOnly.base, path, owner.token, { method: "HEAD" })).status).toBe(599);

    const stranger = await seedOwner(store);
    expect((await get(full.base, "/public/v1/sites", stranger.token)).status).toBe(200); // its token is now cached
    expect((await get(fastOnly.base, path, stranger.token)).status).toBe(599);
    expect((await get(full.base, path, stranger.token)).status).toBe(404);

    await get(full.base, path, owner.token);
    clock.advance(11_000); // past the read model's TTL: the record is stale
    expect((await get(fastOnly.base, path, owner.token)).status).toBe(599);
    expect((await get(full.base, path, owner.token)).status).toBe(200);
    expect((await get(fastOnly.base, path, owner.token)).status).toBe(200);

    await get(full.base, path, owner.token);
    await api.patch(`/public/v1/site/${siteId}`, { name: "Renamed" });
    // The write dropped the old record; the PATCH answer built the new one, which is what the fast path serves.
    const afterWrite = await get(fastOnly.base, path, owner.token);
    expect(afterWrite.status).toBe(200);
    expect((await afterWrite.json()).data.name).toBe("Renamed");

    const victim = await seedMember(store, owner.email, "editor");
    expect((await get(full.base, path, victim.token)).status).toBe(200);
    expect((await get(fastOnly.base, path, victim.token)).status).toBe(200);
    await store.accounts.revokeToken(victim.tokenId, clock.now().toISOString());
    expect((await get(fastOnly.base, path, victim.token)).status).toBe(599);
    expect((await get(full.base, path, victim.token)).status).toBe(401);
  });

  test("a token due a last-used write goes through the app, which records the use", async () => {
    const path = `/public/v1/site/${siteId}`;
    await get(full.base, path, owner.token);
    expect((await get(fastOnly.base, path, owner.token)).status).toBe(200);
    clock.advance(61_000);
    expect((await get(fastOnly.base, path, owner.token)).status).toBe(599);
    expect((await get(full.base, path, owner.token)).status).toBe(200);
    const row = await store.db
      .selectFrom("api_tokens")
      .select("last_used_at")
      .where("id", "=", owner.tokenId)
      .executeTakeFirst();
    expect(row?.last_used_at).toBe(clock.now().toISOString());
    expect((await get(fastOnly.base, path, owner.token)).status).toBe(200);
  });
});

const getWith = (base: string, path: string, token: string) =>
  fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } });

test("a token over its limit gets the 429 from the fast path too, with the same envelope and headers", async () => {
  const limited = makeApp(store, { env: { PORCHLIGHT_API_REQUESTS_PER_MINUTE: "3" } });
  const fast = await listen((req, res) => {
    if (!limited.fastPath(req, res)) {
      res.writeHead(599);
      res.end();
    }
  });
  try {
    const site = (await client(limited.app, owner.token).get("/public/v1/sites")).json.data.sites[0];
    const path = `/public/v1/site/${site.id}`;
    expect((await client(limited.app, owner.token).get(path)).status).toBe(200); // 2 of 3 used; the record is cached
    expect((await getWith(fast.base, path, owner.token)).status).toBe(200); // 3 of 3, from memory
    const refused = await getWith(fast.base, path, owner.token);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({ success: false, message: "Rate Limited", code: 429, error: "rate_limited" });
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get("ratelimit")).toMatch(/^"api";r=0;t=\d+$/);
    expect((await client(limited.app, owner.token).get(path)).status).toBe(429);
  } finally {
    fast.server.close();
  }
});
