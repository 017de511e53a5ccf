/**
 * The wire: what the status pages' reads, hosted pages and feeds send. Compressed (br, else gzip, as the request
 * accepts) once per view build; revalidated by a weak ETag over what a visitor sees, so that a check that moves only
 * check times answers 304; and a 10-item page's first visit within its byte budget.
 */
import { createServer, type IncomingHttpHeaders, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Store } from "../../server/store/store.ts";
import { negotiateEncoding } from "../../server/views/compression.ts";
import { CHECK_TIME_GRANULARITY_MS } from "../../server/views/page-views.ts";
import { client, makeApp, seedOwner, sqliteKind, type TestClock } from "../helpers.ts";
import { insertStats, markChecked } from "../support/fixtures.ts";

const PASSWORD = "correct horse";

interface Raw {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** A request on a real socket, as a browser sends it: the answer's bytes as they came, not decompressed. */
function raw(base: string, path: string, headers: Record<string, string> = {}, method = "GET"): Promise<Raw> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const req = request({ hostname: url.hostname, port: url.port, path, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on("error", reject);
    req.end();
  });
}

const decode = (answer: Raw): Buffer => {
  const coding = answer.headers["content-encoding"];
  if (coding === "br") return brotliDecompressSync(answer.body);
  if (coding === "gzip") return gunzipSync(answer.body);
  expect(coding).toBeUndefined();
  return answer.body;
};

async function listen(listener: Parameters<typeof createServer>[1]): Promise<{ base: string; server: Server }> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** A small deterministic generator, so that a page's history is as irregular as a real one and the same each run. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

test("Accept-Encoding: br when it is accepted at least as much as gzip, then gzip, then the plain bytes", () => {
  const cases: [string | undefined, string][] = [
    [undefined, "identity"],
    ["", "identity"],
    ["identity", "identity"],
    ["deflate", "identity"],
    ["gzip, deflate", "gzip"],
    ["gzip, deflate, br, zstd", "br"],
    ["gzip, br", "br"],
    ["br;q=0, gzip", "gzip"],
    ["br;q=0.5, gzip", "gzip"],
    ["br;q=0.5, gzip;q=0.5", "br"],
    ["gzip;q=0, br;q=0", "identity"],
    ["*", "br"],
    ["*;q=0.1, gzip", "gzip"],
    ["*, br;q=0", "gzip"],
    ["x-gzip", "gzip"],
    ["GZIP;Q=1", "gzip"],
    ["br;q=oops, gzip", "gzip"],
    [`${"x, ".repeat(400)}br`, "identity"],
  ];
  for (const [header, expected] of cases) expect(negotiateEncoding(header), String(header)).toBe(expected);
});

describe("the status page's answers on the wire", () => {
  let store: Store;
  let cleanup: () => Promise<void>;
  let clock: TestClock;
  let made: ReturnType<typeof makeApp>;
  let full: { base: string; server: Server };
  let fastOnly: { base: string; server: Server };
  let api: ReturnType<typeof client>;
  const siteIds: string[] = [];
  let pageId: string;

  /** As the engine leaves a site after a check: its state, when, and how fast it answered. */
  const check = (id: string, state: string, at: Date, ms: number) =>
    markChecked(store, id, { state, last_check_time: at.toISOString(), last_response_ms: ms });
  /** Past the views' time to live, as a check recorded by another process (or one that changed no state) is seen. */
  const afterTtl = () => clock.advance(11_000);

  beforeAll(async () => {
    ({ store, cleanup } = await sqliteKind.open());
    made = makeApp(store);
    clock = made.clock;
    full = await listen(made.listener);
    fastOnly = await listen((req, res) => {
      if (!made.fastPath(req, res)) res.writeHead(599).end();
    });
    const owner = await seedOwner(store);
    api = client(made.app, owner.token);
    const page = (
      await api.post("/public/v1/status-pages", {
        name: "Acme services",
        slug: "wire",
        description: "Live status of Acme's public services.",
        display: { historyDays: 90, showResponseTime: true },
      })
    ).json.data;
    pageId = page.id;
    const next = random(17);
    const now = clock.now();
    for (let i = 0; i < 10; i++) {
      const site = (await api.post("/public/v1/sites", { url: `https://s${i}.example.com`, name: `Service ${i}` })).json
        .data;
      siteIds.push(site.id);
      // 90 days of 2,880 checks (one each 30 s), a few of them failed on most days, none on others.
      const rows = [];
      for (let d = 0; d < 90; d++) {
        const day = new Date(now.getTime() - d * 86_400_000).toISOString().slice(0, 10);
        const down = next() < 0.3 ? 0 : Math.floor(next() * next() * 60);
        rows.push({
          id: `${site.id}:${day}`,
          site_id: site.id,
          day,
          checks_total: 2880,
          checks_up: 2880 - down,
          downtime_minutes: Math.ceil(down / 2),
          downtime_ms: down * 30_000,
          version: 1,
          created_at: now.toISOString(),
          updated_at: now.toISOString(),
        });
      }
      await insertStats(store, rows);
      await check(site.id, i === 3 ? "degraded" : "healthy", now, 100 + Math.floor(next() * 200));
      await api.post(`/public/v1/status-pages/${page.id}/items`, { siteId: site.id, label: `Service ${i}` });
    }
    const incidents = `/public/v1/status-pages/${page.id}/incidents`;
    const resolved = (
      await api.post(incidents, {
        title: "Elevated error rates on checkout",
        message: "We are investigating reports of failed payments.",
      })
    ).json.data;
    await api.post(`${incidents}/${resolved.id}/updates`, {
      status: "resolved",
      message: "The rollback is complete and error rates are back to normal.",
    });
    const open = (
      await api.post(incidents, {
        title: "Slow responses from Service 3",
        message: "Response times of Service 3 are higher than usual; we are looking into it.",
      })
    ).json.data;
    await api.post(`${incidents}/${open.id}/updates`, {
      status: "monitoring",
      message: "A cache was warmed; we are watching response times.",
    });
    await api.post("/public/v1/status-pages", {
      name: "Locked",
      slug: "wire-locked",
      visibility: "password",
      password: PASSWORD,
    });
  });
  afterAll(async () => {
    full.server.close();
    fastOnly.server.close();
    await cleanup();
  });

  const READS = ["", "/items", "/incidents"].flatMap((suffix) =>
    ["/public/v1", "/api"].map((prefix) => `${prefix}/status-page/wire${suffix}`),
  );

  test("every read answers br, gzip or plain bytes as asked, on the app and the fast path alike", async () => {
    for (const path of READS) {
      const plain = await raw(full.base, path);
      expect(plain.status, path).toBe(200);
      expect(plain.headers["content-encoding"], path).toBeUndefined();
      expect(plain.headers.vary, path).toBe("Accept-Encoding");
      expect(Number(plain.headers["content-length"]), path).toBe(plain.body.byteLength);
      JSON.parse(plain.body.toString("utf8"));
      for (const [accept, coding] of [
        ["gzip, deflate, br", "br"],
        ["gzip, deflate", "gzip"],
        ["identity", undefined],
      ] as const) {
        const viaApp = await raw(full.base, path, { "accept-encoding": accept });
        const viaFast = await raw(fastOnly.base, path, { "accept-encoding": accept });
        for (const [answer, what] of [
          [viaApp, "app"],
          [viaFast, "fast path"],
        ] as const) {
          const label = `${path} ${accept} (${what})`;
          expect(answer.status, label).toBe(200);
          expect(answer.headers["content-encoding"], label).toBe(coding);
          expect(answer.headers.vary, label).toBe("Accept-Encoding");
          expect(answer.headers.etag, label).toBe(plain.headers.etag);
          expect(answer.headers["cache-control"], label).toBe("public, no-cache");
          expect(Number(answer.headers["content-length"]), label).toBe(answer.body.byteLength);
          expect(decode(answer).equals(plain.body), label).toBe(true);
        }
        // The same bytes, compressed once: both paths send what the view keeps.
        expect(viaFast.body.equals(viaApp.body), path).toBe(true);
        if (coding) expect(viaApp.body.byteLength, path).toBeLessThan(plain.body.byteLength);
      }
    }
  });

  test("HEAD sends a GET's headers without its body; a 304 sends the validator and Vary, no coding", async () => {
    for (const path of READS) {
      for (const base of [full.base, fastOnly.base]) {
        const get = await raw(base, path, { "accept-encoding": "br" });
        const head = await raw(base, path, { "accept-encoding": "br" }, "HEAD");
        expect(head.status, path).toBe(200);
        expect(head.body.byteLength, path).toBe(0);
        for (const name of ["content-encoding", "content-length", "content-type", "etag", "vary", "cache-control"]) {
          expect(head.headers[name], `${path} ${name}`).toBe(get.headers[name]);
        }
        const etag = get.headers.etag as string;
        expect(etag, path).toMatch(/^W\/"[\w-]{27}"$/);
        const notModified = await raw(base, path, { "accept-encoding": "br", "if-none-match": etag });
        expect(notModified.status, path).toBe(304);
        expect(notModified.body.byteLength, path).toBe(0);
        expect(notModified.headers.etag, path).toBe(etag);
        expect(notModified.headers.vary, path).toBe("Accept-Encoding");
        expect(notModified.headers["cache-control"], path).toBe("public, no-cache");
        expect(notModified.headers["content-encoding"], path).toBeUndefined();
      }
    }
  });

  test("the hosted page and its feeds are compressed too, and HEAD answers their headers", async () => {
    for (const path of ["/wire", "/wire/", "/wire?embed=1&transparent=1", "/wire/feed.xml", "/wire/atom.xml"]) {
      const plain = await raw(full.base, path);
      expect(plain.status, path).toBe(200);
      expect(plain.headers.vary, path).toBe("Accept-Encoding");
      expect(Number(plain.headers["content-length"]), path).toBe(plain.body.byteLength);
      for (const [accept, coding] of [
        ["br", "br"],
        ["gzip", "gzip"],
        ["compress", undefined],
      ] as const) {
        const answer = await raw(full.base, path, { "accept-encoding": accept });
        expect(answer.headers["content-encoding"], `${path} ${accept}`).toBe(coding);
        expect(answer.headers.vary, path).toBe("Accept-Encoding");
        expect(Number(answer.headers["content-length"]), `${path} ${accept}`).toBe(answer.body.byteLength);
        expect(decode(answer).equals(plain.body), `${path} ${accept}`).toBe(true);
        const head = await raw(full.base, path, { "accept-encoding": accept }, "HEAD");
        expect(head.body.byteLength, path).toBe(0);
        expect(head.headers["content-length"], path).toBe(answer.headers["content-length"]);
        expect(head.headers["content-encoding"], path).toBe(coding);
      }
    }
    // The snapshot is the API's own answer, and so are its compressed bytes.
    const snapshot = await raw(full.base, "/wire/status.json", { "accept-encoding": "br" });
    const read = await raw(full.base, "/public/v1/status-page/wire", { "accept-encoding": "br" });
    expect(snapshot.headers["content-encoding"]).toBe("br");
    expect(snapshot.headers["access-control-allow-origin"]).toBe("*");
    expect(snapshot.body.equals(read.body)).toBe(true);
  });

  test("the hosted page inlines the API's answer and its ETag for the element to take over", async () => {
    const read = await raw(full.base, "/public/v1/status-page/wire");
    const html = decode(await raw(full.base, "/wire", { "accept-encoding": "br" })).toString("utf8");
    const etag = (read.headers.etag as string).replace(/"/g, "&quot;");
    expect(html).toContain(`data-etag="${etag}"`);
    const inlined = /<script type="application\/json">(.*?)<\/script>/s.exec(html)?.[1] ?? "";
    expect(inlined.replace(/\\u003c/g, "<")).toBe(read.body.toString("utf8"));
  });

  test("a protected page's answers are compressed as well, and stay private, no-store, varying by the credentials", async () => {
    const right = { "x-status-page-password": PASSWORD, "accept-encoding": "br" };
    for (const path of ["/public/v1/status-page/wire-locked", "/api/status-page/wire-locked/items"]) {
      const ok = await raw(full.base, path, right);
      expect(ok.status, path).toBe(200);
      expect(ok.headers["content-encoding"], path).toBe("br");
      expect(ok.headers["cache-control"], path).toBe("private, no-store");
      expect(ok.headers.vary, path).toBe("Authorization, Cookie, X-Status-Page-Password");
      expect(Number(ok.headers["content-length"]), path).toBe(ok.body.byteLength);
      const plain = await raw(full.base, path, { "x-status-page-password": PASSWORD });
      expect(decode(ok).equals(plain.body), path).toBe(true);
      const again = await raw(full.base, path, { ...right, "if-none-match": ok.headers.etag as string });
      expect(again.status, path).toBe(304);
      expect(again.headers["cache-control"], path).toBe("private, no-store");
      expect(again.headers.vary, path).toBe("Authorization, Cookie, X-Status-Page-Password");
      const refused = await raw(full.base, path, { "accept-encoding": "br" });
      expect(refused.status, path).toBe(401);
      expect(refused.headers.vary, path).toBe("Authorization, Cookie, X-Status-Page-Password");
    }
    const prompt = await raw(full.base, "/wire-locked", { "accept-encoding": "gzip" });
    expect(prompt.headers["content-encoding"]).toBe("gzip");
    expect(prompt.headers["cache-control"]).toBe("private, no-store");
    expect(prompt.headers.vary).toBe("Authorization, Cookie, X-Status-Page-Password");
    expect(decode(prompt).toString("utf8")).not.toContain("data-etag");
  });

  test("the ETag moves with what a visitor sees, not with check times and response times", async () => {
    const paths = ["/public/v1/status-page/wire", "/api/status-page/wire/items"];
    const etags = async () => {
      const tags: string[] = [];
      for (const path of paths) tags.push((await raw(full.base, path)).headers.etag as string);
      return tags;
    };
    /** What each path answers to a revalidation with `tags`, on the app and on the fast path. */
    const revalidate = async (tags: string[]) => {
      const statuses: number[] = [];
      for (const [i, path] of paths.entries()) {
        for (const base of [full.base, fastOnly.base]) {
          statuses.push((await raw(base, path, { "if-none-match": tags[i] as string })).status);
        }
      }
      return statuses;
    };
    // Checks later in the same half hour: times and response times move, nothing shown does.
    const start = Math.ceil(clock.now().getTime() / CHECK_TIME_GRANULARITY_MS) * CHECK_TIME_GRANULARITY_MS;
    clock.current = new Date(start + 60_000);
    for (const [i, id] of siteIds.entries()) await check(id, i === 3 ? "degraded" : "healthy", clock.now(), 150 + i);
    afterTtl();
    const before = await etags();
    const body = JSON.parse((await raw(full.base, paths[0] as string)).body.toString("utf8"));
    for (let round = 1; round <= 3; round++) {
      clock.advance(30_000);
      for (const [i, id] of siteIds.entries()) {
        await check(id, i === 3 ? "degraded" : "healthy", clock.now(), 150 + ((i * 37 + round * 11) % 300));
      }
      afterTtl();
      expect(await revalidate(before), `round ${round}`).toEqual([304, 304, 304, 304]);
      expect(await etags()).toEqual(before);
    }
    // The body did move: it says when each site was last checked and how fast it answered, as the contract has it.
    const moved = JSON.parse((await raw(full.base, paths[0] as string)).body.toString("utf8"));
    expect(moved.items[0].last_check).not.toBe(body.items[0].last_check);
    expect(moved.items.map((i: { response_time: number }) => i.response_time)).not.toEqual(
      body.items.map((i: { response_time: number }) => i.response_time),
    );

    // A state change shows: a new ETag and the page at once, on both paths.
    await check(siteIds[5] as string, "unhealthy", clock.now(), 0);
    made.recorded({ sites: [siteIds[5] as string], pagesChanged: true });
    expect(await revalidate(before)).toEqual([200, 200, 200, 200]);
    const down = await etags();
    expect(down[0]).not.toBe(before[0]);
    expect(down[1]).not.toBe(before[1]);
    const changed = JSON.parse((await raw(full.base, paths[0] as string)).body.toString("utf8"));
    expect(changed.items[5].status).toBe("major_outage");

    // And back: the same visible page has the same ETag as before it went down.
    await check(siteIds[5] as string, "healthy", clock.now(), 170);
    made.recorded({ sites: [siteIds[5] as string], pagesChanged: true });
    expect(await etags()).toEqual(before);

    // A label, a page setting and an incident are seen.
    const tags = await etags();
    const first = changed.items[0].id;
    expect((await api.patch(`/public/v1/status-pages/${pageId}/items/${first}`, { label: "Renamed" })).status).toBe(
      200,
    );
    expect(await revalidate(tags)).toEqual([200, 200, 200, 200]);
    const renamed = await etags();
    await api.patch(`/public/v1/status-pages/${pageId}`, { display: { showResponseTime: false } });
    expect((await revalidate(renamed)).slice(0, 2)).toEqual([200, 200]);
    const incidentTag = (await raw(full.base, "/public/v1/status-page/wire/incidents")).headers.etag as string;
    await api.post(`/public/v1/status-pages/${pageId}/incidents`, { title: "Another", message: "m" });
    const incidents = await raw(full.base, "/public/v1/status-page/wire/incidents", { "if-none-match": incidentTag });
    expect(incidents.status).toBe(200);
  });

  test("a day's bar that changes as shown moves the ETag; a change below what is shown does not", async () => {
    const path = "/public/v1/status-page/wire";
    const today = clock.now().toISOString().slice(0, 10);
    const id = siteIds[0] as string;
    const setToday = (total: number, up: number) =>
      store.db
        .updateTable("daily_stats")
        .set({ checks_total: total, checks_up: up })
        .where("id", "=", `${id}:${today}`)
        .execute();
    const todays = async () => {
      const view = JSON.parse((await raw(full.base, path)).body.toString("utf8"));
      return view.items[0].history.at(-1).uptime;
    };
    await setToday(100_000, 99_500);
    made.recorded({ sites: [id], pagesChanged: true });
    expect(await todays()).toBe(99.5);
    const tag = (await raw(full.base, path)).headers.etag as string;
    // 99.503%: the API's three decimals move, the element shows 99.5% as before.
    await setToday(100_000, 99_503);
    afterTtl();
    expect(await todays()).toBe(99.503);
    expect((await raw(full.base, path, { "if-none-match": tag })).status).toBe(304);
    // 99.51%: shown.
    await setToday(100_000, 99_510);
    afterTtl();
    expect((await raw(full.base, path, { "if-none-match": tag })).status).toBe(200);
  });

  test("the latest check entering another half hour moves the ETag, so 'checked … ago' never ages past it", async () => {
    const path = "/public/v1/status-page/wire";
    const tag = (await raw(full.base, path)).headers.etag as string;
    const next = Math.ceil((clock.now().getTime() + 1) / CHECK_TIME_GRANULARITY_MS) * CHECK_TIME_GRANULARITY_MS;
    clock.current = new Date(next + 5_000);
    await check(siteIds[0] as string, "healthy", clock.now(), 150);
    afterTtl();
    const answer = await raw(full.base, path, { "if-none-match": tag });
    expect(answer.status).toBe(200);
    expect(answer.headers.etag).not.toBe(tag);
  });
});

describe("a 10-item page's first visit, as a browser downloads it with br", () => {
  let store: Store;
  let cleanup: () => Promise<void>;
  let server: { base: string; server: Server };

  beforeAll(async () => {
    ({ store, cleanup } = await sqliteKind.open());
    const made = makeApp(store);
    server = await listen(made.listener);
    const owner = await seedOwner(store);
    const api = client(made.app, owner.token);
    const now = made.clock.now();
    const page = (
      await api.post("/public/v1/status-pages", {
        name: "Acme services",
        slug: "budget",
        description: "Live status of Acme's public services.",
        display: { historyDays: 90 },
      })
    ).json.data;
    const next = random(90);
    for (let i = 0; i < 10; i++) {
      const site = (await api.post("/public/v1/sites", { url: `https://s${i}.example.com`, name: `Service ${i}` })).json
        .data;
      const rows = [];
      for (let d = 0; d < 90; d++) {
        const day = new Date(now.getTime() - d * 86_400_000).toISOString().slice(0, 10);
        const total = 2800 + Math.floor(next() * 80);
        const down = next() < 0.3 ? 0 : Math.floor(next() * next() * 80);
        rows.push({
          id: `${site.id}:${day}`,
          site_id: site.id,
          day,
          checks_total: total,
          checks_up: total - down,
          downtime_minutes: Math.ceil(down / 2),
          downtime_ms: down * 30_000,
          version: 1,
          created_at: now.toISOString(),
          updated_at: now.toISOString(),
        });
      }
      await insertStats(store, rows);
      await markChecked(store, site.id, {
        state: "healthy",
        last_check_time: new Date(now.getTime() - Math.floor(next() * 30_000)).toISOString(),
        last_response_ms: 80 + Math.floor(next() * 400),
      });
      await api.post(`/public/v1/status-pages/${page.id}/items`, { siteId: site.id, label: `Service ${i}` });
    }
    for (let n = 0; n < 2; n++) {
      const incident = (
        await api.post(`/public/v1/status-pages/${page.id}/incidents`, {
          title: `Elevated error rates on service ${n}`,
          message: "We are investigating reports of failed requests.",
        })
      ).json.data;
      await api.post(`/public/v1/status-pages/${page.id}/incidents/${incident.id}/updates`, {
        status: "resolved",
        message: "A faulty deploy was rolled back; error rates are back to normal.",
      });
    }
  });
  afterAll(async () => {
    server.server.close();
    await cleanup();
  });

  test("the hosted page, its script and its data (inlined) come to at most 26.375 KB", async () => {
    const br = { "accept-encoding": "gzip, deflate, br, zstd" };
    const html = await raw(server.base, "/budget", br);
    expect(html.status).toBe(200);
    expect(html.headers["content-encoding"]).toBe("br");
    const text = decode(html).toString("utf8");
    const script = /<script type="module" src="\/embed\/([^"]+)"/.exec(text)?.[1] as string;
    const js = await raw(server.base, `/embed/${script}`, br);
    expect(js.status).toBe(200);
    expect(js.headers["content-encoding"]).toBe("br");
    // The data is inlined in the page: the element does not fetch it again on load (test/e2e/wire.test.ts).
    const json = await raw(server.base, "/public/v1/status-page/budget");
    const sizes = {
      htmlIdentity: decode(html).byteLength,
      htmlBr: html.body.byteLength,
      htmlGzip: (await raw(server.base, "/budget", { "accept-encoding": "gzip" })).body.byteLength,
      jsonIdentity: json.body.byteLength,
      jsonBr: (await raw(server.base, "/public/v1/status-page/budget", br)).body.byteLength,
      jsonGzip: (await raw(server.base, "/public/v1/status-page/budget", { "accept-encoding": "gzip" })).body
        .byteLength,
      scriptBr: js.body.byteLength,
    };
    const total = sizes.htmlBr + sizes.scriptBr;
    console.log(`a 10-item page on the wire (bytes): ${JSON.stringify({ ...sizes, total })}`);
    // 25 KB until issue 27's reading work: the element's script grew with it (25,899 bytes), then each day with
    // downtime carries the engine's minutes for the tooltip (26,874 bytes for this page, whose days are down more
    // often than most); rounded up to 128 and one step more, for another Node's brotli. Issue 31's component groups
    // in the element took it to 27,249 bytes: 26.75 KB by the same rule.
    expect(total).toBeLessThanOrEqual(26.75 * 1024);
  });
});
