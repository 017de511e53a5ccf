import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test } from "vitest";
import { createApp } from "../../server/app.ts";
import type { Route } from "../../server/http/route.ts";
import { createLogger } from "../../server/log.ts";
import {
  client,
  seedOwner,
  seedStatusPage,
  sqliteKind,
  TestClock,
  testConfig,
  UNKNOWN_PARAMS,
  useStore,
} from "../helpers.ts";

/**
 * Every answer carries X-Content-Type-Options: nosniff, so that no browser runs JSON, an error or an SVG as a script
 * or renders it as a page: every route of the table (success, errors, 304), the pages and files beside it, the fast
 * paths that answer before the framework, and the body limit's 413 on a real socket.
 */

let made: ReturnType<typeof createApp>;
let server: Server;
let base: string;
let token: string;
let ids: Record<string, string>;
const clock = new TestClock();

useStore(sqliteKind, async ({ store }) => {
  made = createApp({ store, config: testConfig(), logger: createLogger("silent"), clock, checkResponses: true });
  token = (await seedOwner(store)).token;
  const api = client(made.app, token);
  const page = await seedStatusPage(api, store, clock.now(), "sniff", {}, ["Web"]);
  const detail = (await api.get(`/public/v1/status-pages/${page.id}`)).json.data;
  const incident = (await api.post(`/public/v1/status-pages/${page.id}/incidents`, { title: "t", message: "m" })).json
    .data;
  ids = {
    siteId: page.ids[0] as string,
    id: String(page.id),
    itemId: String(detail.items[0].id),
    incidentId: String(incident.id),
    slug: "sniff",
    snapshotId: "AAAAAAAAAAAAAAAAAAAAAA",
  };
  server = createServer(made.listener);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
});

const UNKNOWN = UNKNOWN_PARAMS;

function expectNosniff(res: Response, what: string) {
  expect(res.headers.get("x-content-type-options"), `${what} (${res.status})`).toBe("nosniff");
}

const fill = (def: Route, values: Record<string, string>) =>
  def.path.replace(/\{(\w+)\}/g, (_, name: string) => values[name] ?? "x");

test("every route of the table: its answers to a stranger, to its owner, to bad input, to an unknown id, and its 304", async () => {
  const statuses = new Set<number>();
  for (const def of made.routes) {
    const method = def.method.toUpperCase();
    const what = `${method} ${def.path}`;
    const auth = { authorization: `Bearer ${token}` };
    const json = { "content-type": "application/json" };
    const asks: [string, RequestInit][] = [
      // Without credentials: 401 on token routes, the answer itself elsewhere.
      [fill(def, ids), { method, ...(def.body ? { headers: json, body: "{}" } : {}) }],
      // Its owner with an unknown id: 404 (nothing is deleted or changed).
      [fill(def, UNKNOWN), { method, headers: { ...auth, ...json }, ...(def.body ? { body: "{}" } : {}) }],
      // Malformed input: a NUL where a value goes (unknown ids where a write could change something).
      [
        `${fill(def, { ...(method === "GET" ? ids : UNKNOWN), slug: "%00" })}?label=%00&page=%00`,
        { method, headers: { ...auth, ...json } },
      ],
    ];
    // Reads as their owner: the success answer.
    if (method === "GET") asks.push([fill(def, ids), { headers: auth }]);
    // Bad bodies: 400, 415 and 413.
    if (def.body) {
      asks.push([fill(def, ids), { method, headers: { ...auth, ...json }, body: "{" }]);
      asks.push([fill(def, ids), { method, headers: { ...auth, "content-type": "text/plain" }, body: "x" }]);
      asks.push([fill(def, ids), { method, headers: { ...auth, ...json }, body: "x".repeat(70 * 1024) }]);
    }
    for (const [path, init] of asks) {
      const res = await made.app.request(path, init);
      statuses.add(res.status);
      expectNosniff(res, `${what} as ${path.slice(0, 80)}`);
      if (res.status === 200 && res.headers.get("etag")) {
        const again = await made.app.request(path, {
          ...init,
          headers: { ...(init.headers as Record<string, string>), "if-none-match": res.headers.get("etag") as string },
        });
        expect(again.status, `${what} revalidated`).toBe(304);
        statuses.add(again.status);
        expectNosniff(again, `${what} revalidated`);
      }
    }
  }
  const created = await made.app.request("/public/v1/sites", {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ url: "https://new.example.com", name: "New" }),
  });
  statuses.add(created.status);
  expectNosniff(created, "a site created");
  // The table gave every kind of answer this test claims to cover.
  expect([...statuses].sort()).toEqual(expect.arrayContaining([200, 201, 304, 400, 401, 404, 413, 415]));
});

test("the pages and files beside the table: HTML, SVG, JS, feeds, the document, metrics, preflights, unmatched paths", async () => {
  const paths: [string, RequestInit?][] = [
    ["/"],
    ["/sniff"],
    ["/sniff/"],
    ["/sniff/feed.xml"],
    ["/sniff/atom.xml"],
    ["/sniff/status.json"],
    ["/no-such-page"],
    ["/badge/sniff/status.svg"],
    ["/badge/sniff/uptime.json"],
    ["/embed/porchlight.js"],
    ["/embed/manifest.json"],
    ["/embed/nothing.js"],
    ["/docs"],
    ["/docs/"],
    ["/docs/nothing.js"],
    ["/metrics"],
    ["/public/v1/openapi.json"],
    ["/public/anon/domain-report-24h/confirm?token=nope"],
    ["/public/anon/domain-report-24h/unsubscribe?token=nope"],
    ["/public/v1/status-page/sniff", { method: "OPTIONS", headers: { origin: "https://example.org" } }],
    ["/public/anon/domain-snapshot", { method: "OPTIONS", headers: { origin: "https://example.org" } }],
    ["/nothing/here"],
    ["/public/v1/nothing"],
  ];
  for (const [path, init] of paths) {
    const res = await made.app.request(path, init);
    expect(res.status, path).toBeLessThan(500);
    expectNosniff(res, path);
  }
});

test("the fast paths' answers (200, 304, a site detail) and the 413 on a real socket carry it too", async () => {
  const auth = { authorization: `Bearer ${token}` };
  // The first reads build the view and the record; the next ones are answered before the framework.
  await fetch(`${base}/public/v1/status-page/sniff`);
  await fetch(`${base}/public/v1/site/${ids.siteId}`, { headers: auth });
  made.fastPathCounts.take();
  for (const path of [
    "/public/v1/status-page/sniff",
    "/api/status-page/sniff/items",
    "/public/v1/status-page/sniff/incidents",
  ]) {
    const res = await fetch(`${base}${path}`);
    expectNosniff(res, path);
    const again = await fetch(`${base}${path}`, { headers: { "if-none-match": res.headers.get("etag") as string } });
    expect(again.status, path).toBe(304);
    expectNosniff(again, `${path} revalidated`);
  }
  const site = await fetch(`${base}/public/v1/site/${ids.siteId}`, { headers: auth });
  expect(site.status).toBe(200);
  expectNosniff(site, "a site detail");
  const counts = made.fastPathCounts.take();
  expect(counts["status page 200"]).toBe(3);
  expect(counts["status page 304"]).toBe(3);
  expect(counts["site detail 200"]).toBe(1);
  const refused = await fetch(`${base}/public/v1/sites`, {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: "x".repeat(1024 * 1024),
  });
  expect(refused.status).toBe(413);
  expectNosniff(refused, "a 413 on a socket");
});
