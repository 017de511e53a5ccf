import { createHash } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { DEFAULT_INCIDENT_POLICY, type PublicStatusPage } from "../../server/contract/status-page.ts";
import type { Store } from "../../server/store/store.ts";
import { checkPage, loadSiteData } from "../../site/data.ts";
import { client, describeStores, makeApp, seedOwner, seedStats, TestClock } from "../helpers.ts";
import { publicPageView } from "../support/fixtures.ts";
import { pngImage, svgLogo } from "../support/images.ts";

const page = publicPageView;
const sha = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

describe("build-time data is checked against the contract", () => {
  test("a valid page passes as it is", () => {
    expect(checkPage("acme", page()).items[0]?.label).toBe("Website");
  });

  test("a malformed page fails with the page's slug and the field's path", () => {
    const bad = page({ items: [{ ...page().items[0], uptime: "high" }] });
    expect(() => checkPage("acme", bad)).toThrow(/^status page "acme": items\.0\.uptime: /);
    expect(() => checkPage("beta", { name: "Beta" })).toThrow(/^status page "beta": slug: /);
  });
});

describe("from the API (PORCHLIGHT_API_URL and a token)", () => {
  let server: Server;
  let origin = "";
  let detail: unknown = page();
  const seen: { path: string; auth?: string }[] = [];
  /** The images the mock server has at /assets/, by path: a media type and bytes. */
  const assets = new Map<string, [string, Uint8Array]>();

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push({ path: req.url ?? "", auth: req.headers.authorization });
      if (req.url?.startsWith("/assets/")) {
        const asset = assets.get(req.url);
        res.writeHead(asset ? 200 : 404, { "content-type": asset?.[0] ?? "text/plain" });
        res.end(asset?.[1] ?? "not found");
        return;
      }
      res.setHeader("content-type", "application/json");
      if (req.url?.startsWith("/public/v1/status-pages?")) {
        const owner = (slug: string, visibility: string) => ({
          id: slug.length,
          workspaceId: "w1",
          name: slug,
          slug,
          description: "",
          visibility,
          hasPassword: visibility === "password",
          theme: { mode: "auto", accentColor: "#2563eb" },
          display: { historyDays: 90, showUptime: true, showResponseTime: true, showIncidents: true },
          customDomain: null,
          url: `http://x/${slug}`,
          incidentPolicy: DEFAULT_INCIDENT_POLICY,
          createdAt: "2026-11-21T10:00:00.000Z",
          updatedAt: "2026-11-21T10:00:00.000Z",
          items: [],
        });
        res.end(
          JSON.stringify({
            success: true,
            message: "Status pages",
            code: 200,
            data: {
              statusPages: [owner("acme", "public"), owner("locked", "password")],
              pagination: { page: 1, perPage: 50, total: 2, totalPages: 1 },
            },
          }),
        );
        return;
      }
      res.end(JSON.stringify(detail));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  test("lists the pages with the token, reads only the public ones, and gives protected ones their prompt", async () => {
    seen.length = 0;
    detail = page();
    const data = await loadSiteData({ PORCHLIGHT_API_URL: `${origin}/`, PORCHLIGHT_API_TOKEN: "pl_test" });
    expect(data.pages.map((p) => [p.slug, p.visibility])).toEqual([
      ["acme", "public"],
      ["locked", "password-protected"],
    ]);
    expect(data.pages[1]?.data).toEqual({ error: "password_required" });
    expect(seen.map((s) => s.path)).toEqual([
      "/public/v1/status-pages?page=1&perPage=50",
      "/public/v1/status-page/acme",
    ]);
    expect(seen[0]?.auth).toBe("Bearer pl_test");
    expect(data.apiBase).toBe(origin);
  });

  test("the uploaded images the public pages show are fetched once each, checked, and left out (with the page's reference) when they fail", async () => {
    const png = pngImage(8, 8);
    const svg = svgLogo();
    const good = `/assets/${sha(png)}.png`;
    const favicon = `/assets/${sha(svg)}.svg`;
    const forged = `/assets/${"a".repeat(64)}.png`;
    assets.clear();
    // A proxy's parameters on the media type are fine; bytes that are not what the address names are not.
    assets.set(good, ["image/png", png]);
    assets.set(favicon, ["image/svg+xml; charset=utf-8", svg]);
    assets.set(forged, ["image/png", png]);
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    try {
      detail = page({ logo: good, favicon });
      let data = await loadSiteData({ PORCHLIGHT_API_URL: origin, PORCHLIGHT_API_TOKEN: "pl_test" });
      expect(data.images.map((i) => [i.path, i.contentType, i.bytes])).toEqual([
        [good, "image/png", png],
        [favicon, "image/svg+xml", svg],
      ]);
      expect(seen.filter((s) => s.path.startsWith("/assets/")).map((s) => s.path)).toEqual([good, favicon]);

      detail = page({ logo: forged, favicon: `/assets/${"b".repeat(64)}.svg` });
      data = await loadSiteData({ PORCHLIGHT_API_URL: origin, PORCHLIGHT_API_TOKEN: "pl_test" });
      expect(data.images).toEqual([]);
      const acme = data.pages[0]?.data as { logo: string | null; favicon: string | null };
      expect([acme.logo, acme.favicon]).toEqual([null, null]);
      expect(warn.mock.calls.map((c) => String(c[0]))).toEqual([
        expect.stringContaining("404"),
        expect.stringContaining("is not the image its address names"),
      ]);
    } finally {
      warn.mockRestore();
      assets.clear();
    }
  });

  test("a malformed answer stops the build with the page and the field", async () => {
    detail = page({ incidents: [{ id: 1, title: "x" }] });
    await expect(loadSiteData({ PORCHLIGHT_API_URL: origin, PORCHLIGHT_API_TOKEN: "pl_test" })).rejects.toThrow(
      /^status page "acme": incidents\.0\.status: /,
    );
  });

  test("without a token it says which variable is missing", async () => {
    await expect(loadSiteData({ PORCHLIGHT_API_URL: origin })).rejects.toThrow(/PORCHLIGHT_API_TOKEN is required/);
  });
});

describeStores("from the store (the default): one bulk read that equals the API's views", (kind) => {
  let store: Store;
  let dataDir: string;
  let databaseUrl: string | undefined;
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    ({ store, dataDir, databaseUrl, cleanup } = await kind.open());
  });
  afterAll(() => cleanup());

  test("every public page is exactly what GET /public/v1/status-page/{slug} answers; protected pages are prompts", async () => {
    const clock = new TestClock(new Date());
    const { app } = makeApp(store, { clock });
    const owner = await seedOwner(store);
    const api = client(app, owner.token);
    const made = async (path: string, body: unknown) => {
      const res = await api.post(path, body);
      expect(res.status, JSON.stringify(res.json)).toBe(201);
      return res.json.data as { id: string | number };
    };
    const sites = [];
    for (let i = 0; i < 3; i++) {
      const site = await made("/public/v1/sites", { url: `https://s${i}.example.com`, name: `S${i}`, pause: i === 2 });
      await seedStats(store, String(site.id), clock.now(), 100);
      sites.push(site);
    }
    // A short history, a hidden item, a paused site, more incidents than a view carries (50), a shared site.
    const short = await made("/public/v1/status-pages", { name: "Short", slug: "short", display: { historyDays: 7 } });
    const long = await made("/public/v1/status-pages", { name: "Long", slug: "long" });
    await made("/public/v1/status-pages", {
      name: "Locked",
      slug: "locked",
      visibility: "password",
      password: "pw-123456",
    });
    await made("/public/v1/status-pages", { name: "Inner", slug: "inner", visibility: "private" });
    for (const [i, site] of sites.entries()) {
      await made(`/public/v1/status-pages/${short.id}/items`, {
        siteId: site.id,
        label: `Item ${i}`,
        visible: i !== 1,
      });
    }
    await made(`/public/v1/status-pages/${long.id}/items`, { siteId: sites[0]?.id, label: "Shared" });
    for (let i = 0; i < 55; i++) {
      const incident = await made(`/public/v1/status-pages/${short.id}/incidents`, {
        title: `Incident ${i}`,
        message: "Looking.",
        startedAt: new Date(clock.now().getTime() - (i + 1) * 3_600_000).toISOString(),
      });
      if (i % 2) {
        await made(`/public/v1/status-pages/${short.id}/incidents/${incident.id}/updates`, {
          status: "resolved",
          message: "Fixed.",
        });
      }
    }

    const data = await loadSiteData({
      PORCHLIGHT_DATA_DIR: dataDir,
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    });
    expect(data.pages.map((p) => [p.slug, p.visibility])).toEqual([
      ["inner", "private"],
      ["locked", "password-protected"],
      ["long", "public"],
      ["short", "public"],
    ]);
    for (const slug of ["long", "short"]) {
      const answer = await api.get(`/public/v1/status-page/${slug}`);
      expect(answer.status).toBe(200);
      expect(data.pages.find((p) => p.slug === slug)?.data).toEqual(answer.json);
    }
    const shortView = data.pages.find((p) => p.slug === "short")?.data as PublicStatusPage;
    expect(shortView.items.map((i) => [i.label, i.status, i.history.length])).toEqual([
      ["Item 0", "unknown", 7],
      ["Item 2", "paused", 7],
    ]);
    expect(shortView.incidents).toHaveLength(50);
    expect(shortView.incidents[0]?.title).toBe("Incident 0");
    expect(shortView.incidents[1]?.updates.map((u) => u.status)).toEqual(["resolved", "investigating"]);
    expect(data.pages.find((p) => p.slug === "locked")?.data).toEqual({ error: "password_required" });
    expect(data.pages.find((p) => p.slug === "inner")?.data).toEqual({ error: "sign_in_required" });
  });
});
