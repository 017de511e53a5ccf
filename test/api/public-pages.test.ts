import { createServer, type RequestListener } from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test } from "vitest";
import { PublicIncidents, PublicItems, PublicStatusPage } from "../../server/contract/status-page.ts";
import type { Store } from "../../server/store/store.ts";
import {
  type App,
  client,
  describeStores,
  fromAddress,
  makeApp,
  seedMember,
  seedOwner,
  seedStats,
  type TestClock,
  useStore,
} from "../helpers.ts";

const PASSWORD = "Correct Horse 🐎 Battery";
/** What a client that sends UTF-8 bytes in a header looks like after Node's Latin-1 header decoding. */
const asHeader = (text: string) => Buffer.from(text, "utf8").toString("latin1");
/** The work budget has its own tests (password-work.test.ts); here it stays out of the way of sequential guesses. */
const ROOMY_BUDGET = {
  PORCHLIGHT_PASSWORD_HASHES_PER_SECOND: "100",
  PORCHLIGHT_PASSWORD_PAGE_HASHES_PER_SECOND: "100",
};

describeStores("public status page reads", (kind) => {
  let store: Store;
  let app: App;
  let listener: RequestListener;
  let clock: TestClock;
  let owner: Awaited<ReturnType<typeof seedOwner>>;
  let api: ReturnType<typeof client>;
  let queries: string[] = [];

  useStore(kind, { onQuery: (sql) => queries.push(sql) }, async (opened) => {
    ({ store } = opened);
    ({ app, listener, clock } = makeApp(store, {
      env: { PORCHLIGHT_PASSWORD_ATTEMPTS: "5", ...ROOMY_BUDGET },
    }));
    owner = await seedOwner(store, "stack");
    api = client(app, owner.token);
  });

  let n = 0;
  const makePage = async (body: Record<string, unknown> = {}, items = 2) => {
    const slug = `pub-${kind.name}-${++n}`;
    const page = (await api.post("/public/v1/status-pages", { name: `Page ${n}`, slug, ...body })).json.data;
    const siteIds: string[] = [];
    for (let i = 0; i < items; i++) {
      const site = (await api.post("/public/v1/sites", { url: `https://s${i}.example.com`, name: `Site ${i}` })).json
        .data;
      siteIds.push(site.id);
      await api.post(`/public/v1/status-pages/${page.id}/items`, { siteId: site.id, label: `Service ${i}` });
    }
    return { page, slug, siteIds };
  };
  const anon = (path: string, headers: Record<string, string> = {}, address = "203.0.113.7") =>
    app.request(path, { headers }, fromAddress(address));

  test("a public page answers spec 2.6 to anyone, with items and incidents, at both prefixes", async () => {
    const { page, slug, siteIds } = await makePage({ description: "Acme's services" });
    await seedStats(store, siteIds[0] as string, clock.now(), 3);
    const hidden = (await api.post("/public/v1/sites", { url: "https://hidden.example.com", name: "Hidden" })).json
      .data;
    await api.post(`/public/v1/status-pages/${page.id}/items`, { siteId: hidden.id, label: "Secret", visible: false });
    await api.post(`/public/v1/status-pages/${page.id}/incidents`, { title: "Slow checkout", message: "Looking" });
    const res = await anon(`/public/v1/status-page/${slug}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("public, no-cache");
    expect(res.headers.get("content-type")).toContain("application/json");
    const view = PublicStatusPage.parse(await res.json());
    expect(view).toMatchObject({
      name: page.name,
      slug,
      description: "Acme's services",
      visibility: "public",
      custom_domain: null,
    });
    expect(view.items.map((i) => i.label)).toEqual(["Service 0", "Service 1"]);
    // Seeded: 0, 1 and 2 of 100 checks down on the last three days.
    expect(view.items[0]).toMatchObject({
      type: "website",
      status: "unknown",
      uptime: 99,
      response_time: null,
      last_check: null,
    });
    expect(view.items[0]?.history.map((h) => h.uptime)).toEqual([98, 99, 100]);
    // The engine's minutes down each day (5 a failed check, as seeded), which the tooltip says.
    expect(view.items[0]?.history.map((h) => h.downtime_minutes)).toEqual([10, 5, undefined]);
    expect(view.items[1]).toMatchObject({ uptime: null, history: [] });
    expect(view.incidents.map((i) => i.title)).toEqual(["Slow checkout"]);
    expect(JSON.stringify(view)).not.toContain("Secret");

    const items = PublicItems.parse(await (await anon(`/public/v1/status-page/${slug}/items`)).json());
    expect(items.items).toEqual(view.items);
    const incidents = PublicIncidents.parse(await (await anon(`/public/v1/status-page/${slug}/incidents`)).json());
    expect(incidents.incidents).toEqual(view.incidents);
    for (const suffix of ["", "/items", "/incidents"]) {
      const a = await anon(`/public/v1/status-page/${slug}${suffix}`);
      const b = await anon(`/api/status-page/${slug}${suffix}`);
      expect(b.status).toBe(200);
      expect(await b.text()).toBe(await a.text());
    }
  });

  test("each service has its own RSS and Atom feeds beside the page's: the incidents that affect it and the maintenance that covers it", async () => {
    const { page, slug, siteIds } = await makePage({}, 2);
    const items = (await api.get(`/public/v1/status-pages/${page.id}`)).json.data.items as { id: number }[];
    const [first, second] = items.map((i) => i.id) as [number, number];
    const open = async (title: string, id: number) =>
      expect(
        (
          await api.post(`/public/v1/status-pages/${page.id}/incidents`, {
            title,
            message: "Looking",
            items: [{ id, status: "partial_outage" }],
          })
        ).status,
      ).toBe(201);
    await open("First is slow", first);
    await open("Second is down", second);
    expect(
      (
        await api.post("/public/v1/maintenance-windows", {
          title: "Second's upgrade",
          sites: [siteIds[1]],
          start: new Date(clock.now().getTime() + 3_600_000).toISOString().slice(0, 16),
          durationMinutes: 30,
        })
      ).status,
    ).toBe(201);

    const rss = await anon(`/${slug}/items/${second}/feed.xml`);
    expect(rss.status).toBe(200);
    expect(rss.headers.get("content-type")).toBe("application/rss+xml; charset=utf-8");
    const rssText = await rss.text();
    expect(rssText).toContain("<title>Page ");
    expect(rssText).toContain(": Service 1 status</title>");
    expect(rssText).toContain("Second is down");
    expect(rssText).toContain("Maintenance: Second&apos;s upgrade (scheduled)");
    expect(rssText).not.toContain("First is slow");
    expect(rssText).toContain(`href="http://status.test/${slug}/items/${second}/feed.xml"`);

    const atom = await (await anon(`/${slug}/items/${first}/atom.xml`)).text();
    expect(atom).toContain("First is slow");
    expect(atom).not.toContain("Second is down");
    expect(atom).not.toContain("upgrade");
    expect(atom).toContain(`<id>http://status.test/${slug}/items/${first}/</id>`);
    // The page's own feed has them all; a service the page does not show has none.
    const whole = await (await anon(`/${slug}/atom.xml`)).text();
    expect(whole).toContain("First is slow");
    expect(whole).toContain("Second is down");
    const unknown = await anon(`/${slug}/items/999999/feed.xml`);
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toBe(await (await anon("/no-such-page/feed.xml")).text());
  });

  test("an unknown slug is 404 in the envelope", async () => {
    const res = await anon("/public/v1/status-page/no-such-page");
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ success: false, code: 404, error: "not_found" });
    expect((await anon(`/public/v1/status-page/${"x".repeat(5000)}`)).status).toBe(404);
  });

  test("item status follows the site: paused, and the engine's states", async () => {
    const { slug, siteIds } = await makePage({}, 1);
    const id = siteIds[0] as string;
    await api.patch(`/public/v1/site/${id}`, { pause: true });
    const paused = PublicStatusPage.parse(await (await anon(`/public/v1/status-page/${slug}`)).json());
    expect(paused.items[0]?.status).toBe("paused");
    await api.patch(`/public/v1/site/${id}`, { pause: false });
    for (const [state, status] of [
      ["healthy", "operational"],
      ["degraded", "degraded"],
      ["unhealthy", "major_outage"],
    ]) {
      await store.db.updateTable("sites").set({ state }).where("id", "=", id).execute();
      clock.advance(60_000); // past the view TTL: a change made outside this process is seen
      const view = PublicStatusPage.parse(await (await anon(`/public/v1/status-page/${slug}`)).json());
      expect(view.items[0]?.status).toBe(status);
    }
  });

  test("ETag and If-None-Match: 304 while unchanged, a new ETag at once after a change", async () => {
    const { page, slug } = await makePage();
    const first = await anon(`/public/v1/status-page/${slug}`);
    const etag = first.headers.get("etag") as string;
    // Weak: it covers what a visitor sees, not the check times (wire.test.ts), and every coding alike.
    expect(etag).toMatch(/^W\/"[\w-]+"$/);
    const again = await anon(`/public/v1/status-page/${slug}`, { "if-none-match": etag });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    expect(
      (await anon(`/public/v1/status-page/${slug}`, { "if-none-match": `${etag.slice(2)}, "other"` })).status,
    ).toBe(304);
    expect((await anon(`/public/v1/status-page/${slug}`, { "if-none-match": '"stale"' })).status).toBe(200);
    await api.patch(`/public/v1/status-pages/${page.id}`, { description: "Changed" });
    const changed = await anon(`/public/v1/status-page/${slug}`, { "if-none-match": etag });
    expect(changed.status).toBe(200);
    expect(changed.headers.get("etag")).not.toBe(etag);
    expect((await changed.json()).description).toBe("Changed");
  });

  test("a view is assembled with a fixed number of queries and then served with none", async () => {
    const small = await makePage({}, 1);
    const large = await makePage({}, 10);
    await api.post(`/public/v1/status-pages/${small.page.id}/incidents`, { title: "I", message: "m" });
    for (const id of large.siteIds) await seedStats(store, id, clock.now(), 30);
    for (let i = 0; i < 5; i++) {
      await api.post(`/public/v1/status-pages/${large.page.id}/incidents`, { title: `I${i}`, message: "m" });
    }
    const count = async (slug: string) => {
      queries = [];
      expect((await anon(`/public/v1/status-page/${slug}`)).status).toBe(200);
      return queries.length;
    };
    const smallQueries = await count(small.slug);
    const largeQueries = await count(large.slug);
    expect(smallQueries).toBeGreaterThan(0);
    expect(largeQueries).toBe(smallQueries);
    expect(await count(large.slug)).toBe(0);
    expect(await count(large.slug)).toBe(0);
  });

  test("CORS: any origin, the password header allowed, preflight answered", async () => {
    const { slug } = await makePage({ visibility: "password", password: PASSWORD });
    const preflight = await app.request(`/public/v1/status-page/${slug}`, {
      method: "OPTIONS",
      headers: {
        origin: "https://customer.example",
        "access-control-request-method": "GET",
        "access-control-request-headers": "x-status-page-password",
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("*");
    expect(preflight.headers.get("access-control-allow-headers")?.toLowerCase()).toContain("x-status-page-password");
    expect(preflight.headers.get("access-control-allow-methods")).toContain("GET");
    const res = await anon(`/api/status-page/${slug}`, { origin: "https://customer.example" });
    expect(res.status).toBe(401);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("access-control-expose-headers")?.toLowerCase()).toContain("etag");
  });

  test("a password page: 401 without or with a wrong password, the page with the exact one, never cached", async () => {
    const { slug } = await makePage({ visibility: "password", password: PASSWORD });
    const path = `/public/v1/status-page/${slug}`;
    const none = await anon(path, {}, "198.51.100.1");
    expect(none.status).toBe(401);
    const body = await none.json();
    expect(body).toMatchObject({ success: false, code: 401, error: "password_required" });
    expect(body.message).toMatch(/password/i);
    expect(JSON.stringify(body)).not.toContain("Service 0");

    const good = await anon(path, { "x-status-page-password": asHeader(PASSWORD) }, "198.51.100.1");
    expect(good.status).toBe(200);
    expect(good.headers.get("cache-control")).toBe("private, no-store");
    expect(PublicStatusPage.parse(await good.json()).items).toHaveLength(2);
    // A second right answer takes the in-memory fast path and still works.
    expect((await anon(path, { "x-status-page-password": asHeader(PASSWORD) }, "198.51.100.1")).status).toBe(200);
    // Without the password again: refused, so no cache can have kept it unlocked.
    expect((await anon(path, {}, "198.51.100.1")).status).toBe(401);

    for (const [i, wrong] of [
      PASSWORD.toLowerCase(),
      PASSWORD.toUpperCase(),
      PASSWORD.replace("Horse", "Horse "),
      `${PASSWORD}x`,
      PASSWORD.replace("🐎", ""),
    ].entries()) {
      const res = await anon(path, { "x-status-page-password": asHeader(wrong) }, `198.51.100.${10 + i}`);
      expect(res.status, JSON.stringify(wrong)).toBe(401);
      expect((await res.json()).error).toBe("password_incorrect");
    }
    const huge = await anon(path, { "x-status-page-password": "x".repeat(10_240) }, "198.51.100.30");
    expect(huge.status).toBe(401);
    for (const suffix of ["/items", "/incidents"]) {
      expect((await anon(`${path}${suffix}`, {}, "198.51.100.31")).status).toBe(401);
      expect((await anon(`${path}${suffix}`, { "x-status-page-password": asHeader(PASSWORD) })).status).toBe(200);
    }
  });

  test("repeated wrong passwords from one client on one page get 429 with Retry-After; others are unaffected", async () => {
    const { slug } = await makePage({ visibility: "password", password: PASSWORD });
    const other = await makePage({ visibility: "password", password: PASSWORD });
    const path = `/public/v1/status-page/${slug}`;
    const attacker = "192.0.2.66";
    for (let i = 0; i < 5; i++) {
      expect((await anon(path, { "x-status-page-password": `guess-${i}` }, attacker)).status).toBe(401);
    }
    const limited = await anon(path, { "x-status-page-password": "guess-6" }, attacker);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await limited.json()).toMatchObject({ success: false, code: 429, error: "rate_limited" });
    // Even the right password waits: the limit stops guessing, not just wrong guesses.
    expect((await anon(path, { "x-status-page-password": asHeader(PASSWORD) }, attacker)).status).toBe(429);
    // Another client, and the same client on another page, are not limited.
    expect((await anon(path, { "x-status-page-password": asHeader(PASSWORD) }, "192.0.2.67")).status).toBe(200);
    const otherPath = `/public/v1/status-page/${other.slug}`;
    expect((await anon(otherPath, { "x-status-page-password": asHeader(PASSWORD) }, attacker)).status).toBe(200);
  });

  test("IPv6 clients are limited by /64, and X-Forwarded-For is ignored unless the peer is a trusted proxy", async () => {
    const { slug } = await makePage({ visibility: "password", password: PASSWORD });
    const path = `/public/v1/status-page/${slug}`;
    for (let i = 0; i < 5; i++) {
      const address = `2001:db8:1:2::${i + 1}`;
      const forged = { "x-status-page-password": "nope", "x-forwarded-for": `203.0.113.${i}` };
      expect((await anon(path, forged, address)).status).toBe(401);
    }
    expect((await anon(path, { "x-status-page-password": "nope" }, "2001:db8:1:2:ffff::9")).status).toBe(429);
    expect((await anon(path, { "x-status-page-password": asHeader(PASSWORD) }, "2001:db8:1:3::1")).status).toBe(200);

    const { app: proxied } = makeApp(store, {
      env: { PORCHLIGHT_PASSWORD_ATTEMPTS: "2", PORCHLIGHT_TRUSTED_PROXIES: "10.0.0.0/8", ...ROOMY_BUDGET },
    });
    const via = (client: string) =>
      proxied.request(
        path,
        { headers: { "x-status-page-password": "nope", "x-forwarded-for": `${client}, 10.1.1.1` } },
        fromAddress("10.0.0.5"),
      );
    expect((await via("198.51.100.200")).status).toBe(401);
    expect((await via("198.51.100.200")).status).toBe(401);
    expect((await via("198.51.100.200")).status).toBe(429);
    expect((await via("198.51.100.201")).status).toBe(401);
    // Proxies that append the client's port still key by the client, not by the proxy.
    expect((await via("198.51.100.202:5555")).status).toBe(401);
    expect((await via("198.51.100.202:6666")).status).toBe(401);
    expect((await via("198.51.100.202:7777")).status).toBe(429);
    expect((await via("[2001:db8:9::1]:443")).status).toBe(401);
  });

  test("a private page: members with a token only; others 401 saying sign-in is required", async () => {
    const { slug } = await makePage({ visibility: "private" });
    const path = `/public/v1/status-page/${slug}`;
    const anonymous = await anon(path);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({
      error: "sign_in_required",
      message: expect.stringMatching(/sign in/i),
    });
    const viewer = await seedMember(store, owner.email, "viewer");
    const member = await app.request(path, { headers: { authorization: `Bearer ${viewer.token}` } });
    expect(member.status).toBe(200);
    expect(member.headers.get("cache-control")).toBe("private, no-store");
    const stranger = await seedOwner(store);
    expect((await app.request(path, { headers: { authorization: `Bearer ${stranger.token}` } })).status).toBe(401);
    expect((await app.request(path, { headers: { authorization: "Bearer pl_forged" } })).status).toBe(401);
    expect((await anon(path, { "x-status-page-password": "anything" })).status).toBe(401);
  });

  test("a page turned from public to password stops answering without the password at once", async () => {
    const { page, slug } = await makePage();
    const path = `/public/v1/status-page/${slug}`;
    expect((await anon(path)).status).toBe(200);
    await api.patch(`/public/v1/status-pages/${page.id}`, { visibility: "password", password: PASSWORD });
    expect((await anon(path)).status).toBe(401);
    await api.patch(`/public/v1/status-pages/${page.id}`, { password: "A new password" });
    expect((await anon(path, { "x-status-page-password": asHeader(PASSWORD) }, "192.0.2.200")).status).toBe(401);
    expect((await anon(path, { "x-status-page-password": "A new password" }, "192.0.2.200")).status).toBe(200);
  });
  test("every answer of a password or private page, refusals included, is private, no-store and varies by the credentials, on every read path", async () => {
    const locked = await makePage({
      visibility: "password",
      password: PASSWORD,
      customDomain: `locked-${kind.name}.example.org`,
    });
    const inside = await makePage({ visibility: "private" });
    const viewer = await seedMember(store, owner.email, "viewer");
    const stranger = await seedOwner(store);
    const right = { "x-status-page-password": asHeader(PASSWORD) };
    const member = { authorization: `Bearer ${viewer.token}` };
    const expectProtected = (res: Response, what: string) => {
      expect(res.headers.get("cache-control"), what).toBe("private, no-store");
      expect(res.headers.get("vary"), what).toBe("Authorization, Cookie, X-Status-Page-Password");
    };
    const limited = "192.0.2.250";
    for (let i = 0; i < 5; i++)
      await anon(`/public/v1/status-page/${locked.slug}`, { "x-status-page-password": `no ${i}` }, limited);

    let answers = 0;
    for (const prefix of ["/public/v1", "/api"]) {
      for (const suffix of ["", "/items", "/incidents"]) {
        const lockedPath = `${prefix}/status-page/${locked.slug}${suffix}`;
        const insidePath = `${prefix}/status-page/${inside.slug}${suffix}`;
        const lockedTag = (await anon(lockedPath, right)).headers.get("etag") as string;
        const insideTag = (await app.request(insidePath, { headers: member })).headers.get("etag") as string;
        const cases: [string, string, RequestInit, number, string?][] = [
          ["right password", lockedPath, { headers: right }, 200],
          ["revalidated", lockedPath, { headers: { ...right, "if-none-match": lockedTag } }, 304],
          ["HEAD", lockedPath, { method: "HEAD", headers: right }, 200],
          ["no password", lockedPath, {}, 401, "password_required"],
          ["wrong password", lockedPath, { headers: { "x-status-page-password": "wrong" } }, 401, "password_incorrect"],
          ["member", insidePath, { headers: member }, 200],
          ["member revalidating", insidePath, { headers: { ...member, "if-none-match": insideTag } }, 304],
          ["anonymous", insidePath, {}, 401, "sign_in_required"],
          [
            "another workspace",
            insidePath,
            { headers: { authorization: `Bearer ${stranger.token}` } },
            401,
            "sign_in_required",
          ],
        ];
        const overLimit: [string, string, RequestInit, number, string?][] = [
          ["over the limit", lockedPath, { headers: right }, 429, "rate_limited"],
          ["over the limit, no password", lockedPath, {}, 429, "rate_limited"],
        ];
        for (const [what, path, init, status, error] of [...cases, ...overLimit]) {
          // A new client for each answer but the limited ones, so that no other limit is reached on the way.
          const address = status === 429 ? limited : `198.18.${answers >> 8}.${answers & 255}`;
          const res = await app.request(path, init, fromAddress(address));
          const where = `${what}: ${init.method ?? "GET"} ${path}`;
          expect(res.status, where).toBe(status);
          expectProtected(res, where);
          if (error) expect((await res.json()).error, where).toBe(error);
          answers++;
        }
      }
    }
    expect(answers).toBe(66);

    // The hosted pages show a protected page's prompt; their feeds are the same 404 as an unknown page's.
    for (const slug of [locked.slug, inside.slug]) {
      for (const path of [`/${slug}`, `/${slug}/`, `/${slug}?embed=1`]) {
        const res = await anon(path);
        expect(res.status, path).toBe(200);
        expectProtected(res, path);
        expect(await res.text(), path).not.toContain("Service 0");
      }
      for (const file of ["feed.xml", "atom.xml", "status.json", "items/1/feed.xml", "items/99/atom.xml"]) {
        const res = await anon(`/${slug}/${file}`);
        const unknown = await anon(`/no-such-page/${file}`);
        expect(res.status).toBe(404);
        expect(await res.text()).toBe(await unknown.text());
        expect(res.headers.get("cache-control")).toBe("no-store");
        expect(unknown.headers.get("cache-control")).toBe("no-store");
      }
    }
    const byDomain = await app.request("/", { headers: { host: `locked-${kind.name}.example.org` } });
    expect(byDomain.status).toBe(200);
    expectProtected(byDomain, "custom domain");

    // Through node:http, fast paths first: the views are in memory now, and protected ones still go to the app.
    const server = createServer(listener);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      for (const suffix of ["", "/items", "/incidents"]) {
        const path = `${base}/public/v1/status-page/${locked.slug}${suffix}`;
        const ok = await fetch(path, { headers: right });
        const etag = ok.headers.get("etag") as string;
        const answers = [
          [ok, 200],
          [await fetch(path, { headers: { ...right, "if-none-match": etag } }), 304],
          [await fetch(path), 401],
          [await fetch(path, { headers: { "x-status-page-password": "wrong" } }), 401],
          [await fetch(`${base}/api/status-page/${inside.slug}${suffix}`), 401],
          [await fetch(`${base}/api/status-page/${inside.slug}${suffix}`, { headers: member }), 200],
        ] as const;
        for (const [res, status] of answers) {
          expect(res.status, `${res.url} ${status}`).toBe(status);
          expectProtected(res, `${res.url} ${status}`);
          await res.arrayBuffer();
        }
      }
    } finally {
      server.close();
    }
  });
  test("the OpenAPI document lists Cache-Control and Vary on every answer a protected page gives", async () => {
    const doc = await (await app.request("/public/v1/openapi.json")).json();
    let operations = 0;
    for (const prefix of ["/public/v1", "/api"]) {
      for (const suffix of ["", "/items", "/incidents"]) {
        const op = doc.paths[`${prefix}/status-page/{slug}${suffix}`].get;
        for (const status of ["200", "304", "401", "429"]) {
          expect(Object.keys(op.responses[status].headers), `${prefix}${suffix} ${status}`).toEqual(
            expect.arrayContaining(["Cache-Control", "Vary"]),
          );
        }
        expect(Object.keys(op.responses["404"].headers)).not.toContain("Vary");
        operations++;
      }
    }
    expect(operations).toBe(6);
    expect(doc.components.headers.StatusPageCacheControl.schema.enum).toContain("private, no-store");
    expect(doc.components.headers.StatusPageVary.schema.enum).toContain(
      "Authorization, Cookie, X-Status-Page-Password",
    );
  });
});
