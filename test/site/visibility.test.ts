import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { DEFAULT_INCIDENT_POLICY } from "../../server/contract/status-page.ts";
import { loadSiteData } from "../../site/data.ts";

/**
 * The static build reads the owner's page list from an API: this release's server names a password page
 * password-protected, an earlier one password. Either builds the page as password-protected with its prompt; a
 * value neither names stops the build with the field.
 */
describe("static build data from the API: the visibility of a password page", () => {
  let server: Server;
  let origin = "";
  let visibility = "password-protected";

  beforeAll(async () => {
    server = createServer((_req, res) => {
      res.setHeader("content-type", "application/json");
      res.end(
        JSON.stringify({
          success: true,
          message: "Status pages",
          code: 200,
          data: {
            statusPages: [
              {
                id: 1,
                name: "Locked",
                slug: "locked",
                description: "",
                visibility,
                hasPassword: true,
                theme: { mode: "auto", accentColor: "#2563eb" },
                display: { historyDays: 90, showUptime: true, showResponseTime: true, showIncidents: true },
                customDomain: null,
                url: "http://x/locked",
                incidentPolicy: DEFAULT_INCIDENT_POLICY,
                createdAt: "2026-11-21T10:00:00.000Z",
                updatedAt: "2026-11-21T10:00:00.000Z",
                items: [],
              },
            ],
            pagination: { page: 1, perPage: 50, total: 1, totalPages: 1 },
          },
        }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const load = () => loadSiteData({ PORCHLIGHT_API_URL: origin, PORCHLIGHT_API_TOKEN: "pl_test" });

  test.each(["password-protected", "password"])("answered as %s: built as password-protected", async (named) => {
    visibility = named;
    expect((await load()).pages).toEqual([
      { slug: "locked", visibility: "password-protected", data: { error: "password_required" } },
    ]);
  });

  test("any other value stops the build, naming the field", async () => {
    visibility = "secret";
    await expect(load()).rejects.toThrow("the page list: data.statusPages.0.visibility: malformed");
  });
});
