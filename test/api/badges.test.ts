import { afterAll, beforeAll, expect, test } from "vitest";
import { BadgeParams, ItemBadgeParams, ShieldsEndpoint } from "../../server/contract/badge.ts";
import { ErrorEnvelope } from "../../server/contract/common.ts";
import type { Store } from "../../server/store/store.ts";
import { client, describeStores, seedOwner, seedStatusPage, TestClock, useStore } from "../helpers.ts";
import { appWithEngine, localTargets } from "./with-engine.ts";

let targets: Awaited<ReturnType<typeof localTargets>>;
beforeAll(async () => {
  targets = await localTargets();
});
afterAll(() => targets.close());

/** Headers that differ between any two answers, whatever they answer. */
const PER_REQUEST = new Set(["x-request-id", "date"]);
const comparable = (res: Response) => [...res.headers].filter(([name]) => !PER_REQUEST.has(name));

test("the path parameters are a page's Slug and an item id: the route table answers anything else its own 404", () => {
  for (const slug of ["acme", "acme-status", "a0"]) expect(BadgeParams.safeParse({ slug }).success, slug).toBe(true);
  for (const slug of ["\u0000ä/..".repeat(1000), "ACME", "-acme", "acme-", "a".repeat(65), "api", ""]) {
    expect(BadgeParams.safeParse({ slug }).success, slug.slice(0, 20)).toBe(false);
  }
  expect(ItemBadgeParams.safeParse({ slug: "acme", itemId: "42" }).success).toBe(true);
  for (const itemId of ["0", "01", "1e3", "-1", "1.0", "9".repeat(11), ""]) {
    expect(ItemBadgeParams.safeParse({ slug: "acme", itemId }).success, itemId).toBe(false);
  }
});

describeStores("status badges", (kind) => {
  let store: Store;
  let clock: TestClock;
  let made: ReturnType<typeof appWithEngine>;
  let api: ReturnType<typeof client>;
  /** Every badge route of the OpenAPI document, OpenAPI style. */
  let badgePaths: string[];
  let items: { id: number; label: string }[];
  let groupId: number;

  useStore(kind, { each: true }, async (opened) => {
    ({ store } = opened);
    clock = new TestClock();
    made = appWithEngine(store, clock);
    api = client(made.app, (await seedOwner(store)).token);
    // "acme": Web and Api, each with 30 days of statistics (day i back: 100 - i % 10 percent up).
    const acme = await seedStatusPage(api, store, clock.now(), "acme", {}, ["Web", "Api"]);
    items = (await api.get(`/public/v1/status-pages/${acme.id}`)).json.data.items;
    // Web in a group of its own (Issue 31): the group's badges are read like an item's.
    groupId = (await api.post(`/public/v1/status-pages/${acme.id}/groups`, { name: "Front" })).json.data.id;
    await api.patch(`/public/v1/status-pages/${acme.id}/items/${items[0]?.id}`, { groupId });
    const doc = (await api.get("/public/v1/openapi.json")).json;
    badgePaths = Object.keys(doc.paths).filter((path) => path.startsWith("/badge/"));
    return () => made.engine.stop();
  });

  const get = (path: string, headers: Record<string, string> = {}) => made.app.request(path, { headers });
  const json = async (path: string) => {
    const res = await get(path);
    expect(res.status, path).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    return ShieldsEndpoint.parse(await res.json());
  };
  /** A badge path with its slug, and `id` as its item or group (the page's group by default). */
  const fill = (path: string, slug: string, itemId: number | string, group: number | string = groupId) =>
    path.replace("{slug}", slug).replace("{itemId}", String(itemId)).replace("{groupId}", String(group));

  test("the document lists a badge for each of status, uptime and response time, of a page, an item and a group, as SVG and JSON", () => {
    expect(badgePaths.sort()).toEqual(
      ["status", "uptime", "response-time"]
        .flatMap((metric) => [
          `/badge/{slug}/${metric}`,
          `/badge/{slug}/{itemId}/${metric}`,
          `/badge/{slug}/groups/{groupId}/${metric}`,
        ])
        .flatMap((path) => [`${path}.svg`, `${path}.json`])
        .sort(),
    );
  });

  test("shields' endpoint JSON: the page's and each item's status, uptime and response time, from the engine's checks", async () => {
    const [web, apiItem] = items as unknown as [{ id: number }, { id: number }];
    expect(await json("/badge/acme/status.json")).toEqual({
      schemaVersion: 1,
      label: "Acme acme",
      message: "unknown",
      color: "lightgrey",
    });
    expect(await json(`/badge/acme/${web.id}/response-time.json`)).toMatchObject({ message: "no data" });

    // The engine checks both sites: Web against a target that answers 200, Api against one that answers 500.
    const sites = (await api.get("/public/v1/sites")).json.data.sites as { id: string; name: string }[];
    for (const site of sites) {
      const url = site.name === "Web" ? targets.ok : targets.fail;
      expect((await api.patch(`/public/v1/site/${site.id}`, { url, timeout: 5, checkInterval: 60 })).status).toBe(200);
    }
    clock.advance(3000);
    await made.engine.runOnce();
    expect(await json(`/badge/acme/${web.id}/status.json`)).toEqual({
      schemaVersion: 1,
      label: "Web",
      message: "operational",
      color: "brightgreen",
    });
    // One failure is not yet an outage.
    expect(await json(`/badge/acme/${apiItem.id}/status.json`)).toMatchObject({ message: "degraded", color: "yellow" });
    expect(await json("/badge/acme/status.json")).toMatchObject({ message: "degraded", color: "yellow" });
    clock.advance(60_000);
    await made.engine.runOnce();
    expect(await json(`/badge/acme/${apiItem.id}/status.json`)).toMatchObject({
      message: "major outage",
      color: "red",
    });
    expect(await json("/badge/acme/status.json")).toMatchObject({ message: "partial outage", color: "orange" });

    const time = await json(`/badge/acme/${web.id}/response-time.json`);
    expect(time).toMatchObject({ schemaVersion: 1, label: "response time" });
    expect(time.message).toMatch(/^\d+ ms$/);
    expect((await json("/badge/acme/response-time.json")).message).toMatch(/^\d+ ms$/);

    // Day i back was (100 - i % 10)% up: the last 7 days' mean is 97.00%, the last 30 days' 95.50%. Today also holds
    // the engine's checks (2 of them for Web, both up; day 0 was 100% already).
    expect(await json(`/badge/acme/${web.id}/uptime.json?days=7`)).toEqual({
      schemaVersion: 1,
      label: "uptime 7d",
      message: "97.00%",
      color: "yellowgreen",
    });
    expect(await json(`/badge/acme/${web.id}/uptime.json`)).toMatchObject({ label: "uptime 30d", message: "95.50%" });
    expect(await json("/badge/acme/uptime.json?days=1")).toMatchObject({ label: "uptime 1d" });
    expect(await json(`/badge/acme/${web.id}/uptime.json?days=1`)).toMatchObject({
      message: "100%",
      color: "brightgreen",
    });
    expect(await json(`/badge/acme/${web.id}/uptime.json?label=Web%20uptime&style=for-the-badge`)).toMatchObject({
      label: "Web uptime",
      style: "for-the-badge",
    });
  });

  test("an uptime badge never reaches further back than the page shows", async () => {
    const page = (await api.get("/public/v1/status-pages")).json.data.statusPages[0];
    await api.patch(`/public/v1/status-pages/${page.id}`, { display: { historyDays: 7 } });
    expect(await json("/badge/acme/uptime.json?days=90")).toMatchObject({ label: "uptime 7d", message: "97.00%" });
  });

  test("SVG by badge-maker: the label and message as text, with its content type and a CSP", async () => {
    const web = items[0] as { id: number };
    for (const path of ["/badge/acme/status.svg", `/badge/acme/${web.id}/uptime.svg?days=7&style=flat-square`]) {
      const res = await get(path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get("content-type")).toBe("image/svg+xml; charset=utf-8");
      expect(res.headers.get("content-security-policy")).toContain("default-src 'none'");
      const svg = await res.text();
      expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[^>]* role="img" aria-label="[^"]+">/);
      expect(svg).not.toMatch(/<script|\son\w+=/i);
      if (path.includes("status")) expect(svg).toContain("<title>Acme acme: unknown</title>");
      else expect(svg).toContain("<title>uptime 7d: 97.00%</title>");
    }
    // A label is text, escaped.
    const svg = await (await get("/badge/acme/status.svg?label=%3Cscript%3E%26")).text();
    expect(svg).toContain("&lt;script&gt;&amp;");
    expect(svg).not.toContain("<script>");
  });

  test("cached and revalidated: Cache-Control, ETag, 304 while unchanged, 200 with a new ETag after a change, HEAD, CORS", async () => {
    for (const path of badgePaths.map((p) => fill(p, "acme", (items[0] as { id: number }).id))) {
      const first = await get(path);
      expect(first.status, path).toBe(200);
      expect(first.headers.get("cache-control")).toBe("public, max-age=60");
      expect(first.headers.get("x-content-type-options")).toBe("nosniff");
      expect(first.headers.get("access-control-allow-origin")).toBe("*");
      const etag = first.headers.get("etag") as string;
      expect(etag).toMatch(/^"[\w-]{27}"$/);
      const again = await get(path, { "if-none-match": etag });
      expect(again.status, path).toBe(304);
      expect(await again.text()).toBe("");
      expect(again.headers.get("etag")).toBe(etag);
      expect(again.headers.get("cache-control")).toBe("public, max-age=60");
    }
    const etag = (await get("/badge/acme/status.json")).headers.get("etag") as string;
    const page = (await api.get("/public/v1/status-pages")).json.data.statusPages[0];
    await api.patch(`/public/v1/status-pages/${page.id}`, { name: "Renamed" });
    const changed = await get("/badge/acme/status.json", { "if-none-match": etag });
    expect(changed.status).toBe(200);
    expect(changed.headers.get("etag")).not.toBe(etag);
    expect((await changed.json()).label).toBe("Renamed");

    const head = await made.app.request("/badge/acme/status.svg", { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
    const preflight = await made.app.request("/badge/acme/status.svg", { method: "OPTIONS" });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("*");
  });

  test("private, password and unknown pages, hidden and unknown items: one and the same 404 on every badge route", async () => {
    await seedStatusPage(api, store, clock.now(), "secret", { visibility: "private" }, ["Hidden1"]);
    await seedStatusPage(api, store, clock.now(), "locked", { visibility: "password", password: "a long password" }, [
      "Hidden2",
    ]);
    const acme = (await api.get("/public/v1/status-pages")).json.data.statusPages.find(
      (p: { slug: string }) => p.slug === "acme",
    );
    const hidden = items[1] as { id: number };
    await api.patch(`/public/v1/status-pages/${acme.id}/items/${hidden.id}`, { visible: false });
    const otherItems = async (slug: string) => {
      const all = (await api.get("/public/v1/status-pages")).json.data.statusPages;
      const id = all.find((p: { slug: string }) => p.slug === slug).id;
      return (await api.get(`/public/v1/status-pages/${id}`)).json.data.items[0].id as number;
    };
    // Read each protected page once as its visitors would, so that its view is in memory too.
    await api.get("/public/v1/status-page/secret");
    await get("/public/v1/status-page/locked", { "x-status-page-password": "a long password" });

    const cases: [string, number | string][] = [
      ["secret", await otherItems("secret")],
      ["locked", await otherItems("locked")],
      ["no-such-page", 1],
      ["acme", hidden.id],
      ["acme", 999_999],
      ["ACME", (items[0] as { id: number }).id],
      ["acme", "0"],
      ["acme", "1e3"],
      ["%00", 1],
      ["%E2%9C%93", "%F0%9F%98%80"],
      ["%E0%A4%A", 1],
      ["a".repeat(10_000), "9".repeat(10_000)],
    ];
    let reference: { body: string; headers: [string, string][] } | undefined;
    for (const path of badgePaths) {
      for (const [slug, itemId] of cases) {
        // The page-wide badges of acme exist; its items' and groups' are what is tested there.
        if (slug === "acme" && !path.includes("{itemId}") && !path.includes("{groupId}")) continue;
        for (const twice of [1, 2]) {
          const res = await get(fill(path, slug, itemId, slug === "acme" ? itemId : groupId));
          const what = `${fill(path, slug.slice(0, 20), String(itemId).slice(0, 20))} #${twice}`;
          expect(res.status, what).toBe(404);
          const answer = { body: await res.text(), headers: comparable(res) };
          reference ??= answer;
          expect(answer, what).toEqual(reference);
        }
      }
    }
    expect(ErrorEnvelope.parse(JSON.parse(reference?.body ?? ""))).toEqual({
      success: false,
      message: "Badge not found",
      code: 404,
      error: "not_found",
    });

    // A page made private stops at once; made public, it is there at once.
    await api.patch(`/public/v1/status-pages/${acme.id}`, { visibility: "private" });
    expect((await get("/badge/acme/status.svg")).status).toBe(404);
    await api.patch(`/public/v1/status-pages/${acme.id}`, { visibility: "public" });
    expect((await get("/badge/acme/status.svg")).status).toBe(200);
  });

  test("bad parameters: 400 in the envelope, before any page is looked up; never a 500", async () => {
    const web = (items[0] as { id: number }).id;
    const bad = [
      "days=0",
      "days=91",
      "days=1000",
      "days=abc",
      "days=1.5",
      "days=-1",
      "days=",
      "days=7&days=8",
      "days[]=7",
      "days[$gt]=1",
      "style=bogus",
      "style=flat&style=flat",
      "label=%00",
      `label=${"x".repeat(65)}`,
      "label=a&label=b",
      "colour=red",
      `${"a=1&".repeat(2000)}`,
    ];
    for (const slug of ["acme", "secret-or-unknown"]) {
      for (const query of bad) {
        for (const path of [`/badge/${slug}/uptime.json`, `/badge/${slug}/${web}/uptime.svg`]) {
          const res = await get(`${path}?${query}`);
          expect(res.status, `${path}?${query.slice(0, 40)}`).toBe(400);
          const envelope = ErrorEnvelope.parse(await res.json());
          expect(envelope.error).toBe("validation_failed");
        }
      }
    }
    // days belongs to the uptime badges only.
    expect((await get("/badge/acme/status.json?days=7")).status).toBe(400);
    for (const query of ["label=", "label=%E2%9C%93%20ok", "style=social", `label=${"x".repeat(64)}`]) {
      expect((await get(`/badge/acme/status.svg?${query}`)).status, query).toBe(200);
    }
  });
});
