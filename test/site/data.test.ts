import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { checkPage, loadSiteData } from "../../site/data.ts";

/** A status page as the API answers it. */
const page = (overrides: Record<string, unknown> = {}) => ({
  name: "Acme",
  slug: "acme",
  description: "",
  visibility: "public",
  custom_domain: null,
  theme: { mode: "auto", accentColor: "#2563eb" },
  display: { historyDays: 90, showUptime: true, showResponseTime: true, showIncidents: true },
  items: [
    {
      id: 1,
      label: "Website",
      type: "website",
      status: "operational",
      uptime: 99.5,
      response_time: 120,
      last_check: "2026-11-21T10:00:00.000Z",
      history: [{ date: "2026-11-20", uptime: 100 }],
    },
  ],
  incidents: [],
  ...overrides,
});

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

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push({ path: req.url ?? "", auth: req.headers.authorization });
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
      ["locked", "password"],
    ]);
    expect(data.pages[1]?.data).toEqual({ error: "password_required" });
    expect(seen.map((s) => s.path)).toEqual([
      "/public/v1/status-pages?page=1&perPage=50",
      "/public/v1/status-page/acme",
    ]);
    expect(seen[0]?.auth).toBe("Bearer pl_test");
    expect(data.apiBase).toBe(origin);
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
