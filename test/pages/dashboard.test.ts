/**
 * The dashboard as the server serves it: `/` and `/dashboard` lead to it, every path under it is the application's
 * page (revalidated, with a strict Content-Security-Policy, never framed), its hashed assets are cached a year, and
 * its first download stays within the budget: 60 KB of JavaScript, gzipped.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { expect, test } from "vitest";
import { percent } from "../../components/porchlight-dashboard/lib/format.ts";
import { DASHBOARD_DIR } from "../../server/pages/dashboard.ts";
import { client, makeApp, seedOwner, sqliteKind } from "../helpers.ts";

/** The budget for the JavaScript the dashboard's first visit downloads, gzipped. */
const INITIAL_JS_BUDGET = 60 * 1024;

test("the first visit's JavaScript (the entry and what it preloads) is at most 60 KB gzipped; screens load later", () => {
  const html = readFileSync(join(DASHBOARD_DIR, "index.html"), "utf8");
  const initial = [...html.matchAll(/(?:src|href)="\/dashboard\/(assets\/[^"]+\.js)"/g)].map((m) => m[1] as string);
  expect(initial.length).toBeGreaterThan(0);
  const gzipped = initial.map((file) => gzipSync(readFileSync(join(DASHBOARD_DIR, file)), { level: 9 }).byteLength);
  const total = gzipped.reduce((a, b) => a + b, 0);
  expect(total).toBeLessThanOrEqual(INITIAL_JS_BUDGET);
  // The screens (the site's chart with its own) are chunks of their own, not in the first download.
  const all = readdirSync(join(DASHBOARD_DIR, "assets"));
  expect(all.some((name) => /^site-.*\.js$/.test(name))).toBe(true);
  expect(initial.some((file) => /assets\/(sites|site|page|account)-/.test(file))).toBe(false);
});

test("/ and /dashboard lead to the dashboard; every path under it is its page; assets are cached a year", async () => {
  const { store, cleanup } = await sqliteKind.open();
  try {
    const { app } = makeApp(store);
    const root = await app.request("/");
    expect(root.status).toBe(302);
    expect(root.headers.get("location")).toBe("/dashboard/");
    const bare = await app.request("/dashboard");
    expect(bare.status).toBe(301);
    expect(bare.headers.get("location")).toBe("/dashboard/");
    for (const path of ["/dashboard/", "/dashboard/pages/12", "/dashboard/setup"]) {
      const res = await app.request(path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(res.headers.get("cache-control")).toBe("no-cache");
      const csp = res.headers.get("content-security-policy") ?? "";
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toMatch(/script-src[^;]*unsafe/);
      expect(res.headers.get("x-frame-options")).toBe("DENY");
      expect(res.headers.get("referrer-policy")).toBe("no-referrer");
      expect(await res.text()).toContain("<porchlight-dashboard>");
    }
    const html = await (await app.request("/dashboard/")).text();
    const entry = /src="(\/dashboard\/assets\/[^"]+\.js)"/.exec(html)?.[1] as string;
    const script = await app.request(entry, { headers: { "accept-encoding": "br" } });
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(script.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(script.headers.get("content-encoding")).toBe("br");
    const etag = script.headers.get("etag") as string;
    expect((await app.request(entry, { headers: { "if-none-match": etag } })).status).toBe(304);
    const missing = await app.request("/dashboard/assets/nope-123.js");
    expect(missing.status).toBe(404);
    expect((await missing.json()).error).toBe("not_found");
    // A status page cannot take the dashboard's address.
    const { token } = await seedOwner(store);
    const taken = await client(app, token).post("/public/v1/status-pages", { name: "D", slug: "dashboard" });
    expect(taken.status).toBe(400);
    expect(taken.json.details[0].field).toBe("slug");
  } finally {
    await cleanup();
  }
});

test("uptime reads with one precision across the dashboard: two decimals, cut not rounded, 100% only when perfect", () => {
  expect([100, 99.999, 99.5, 57.14, 96, 0, null].map(percent)).toEqual([
    "100%",
    "99.99%",
    "99.50%",
    "57.14%",
    "96.00%",
    "0.00%",
    "—",
  ]);
});
