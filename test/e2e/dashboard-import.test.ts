// Issue 31, item 3: moving in from the dashboard, in real Chromium against `porchlight serve`. From the empty Sites
// screen to the import screen; no file, and a file that is not Kuma's (the API's refusal, nothing written); a real
// kuma.db previewed (nothing written until confirmed: the rows the API's dry run answers), imported (links to what
// was created, a push address shown once), and imported again (nothing new); a Statuspage summary.json with the
// page's address chosen, a bad address refused beside its field. Screenshots in test-artifacts/dashboard-import-*.png.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import type { Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, expect, test } from "vitest";
import { axeViolations, describeBrowser } from "../support/browser.ts";
import {
  ARTIFACTS,
  callAs,
  closeListener,
  dashboard,
  SHOTS,
  type Tab,
  useDashboardServer,
} from "../support/dashboard.ts";
import { listen } from "../support/listen.ts";
import { makeKumaDb } from "../support/uptime-kuma.ts";

describeBrowser("the dashboard's import screen", () => {
  const served = useDashboardServer("dashboard-import");
  const dir = mkdtempSync(join(tmpdir(), "porchlight-dashboard-import-"));
  let origin: string;
  let owner: Tab;
  let target: { server: Server; origin: string };
  let kumaFile: string;
  let summaryFile: string;
  let notKuma: string;

  const call = (method: string, path: string, body?: unknown) => callAs(owner, method, path, body);

  /** The dry run the API answers for a file, as the screen asks it (bytes, the source's media type). */
  const dryRun = (page: Page, path: string, type: string) =>
    page.evaluate(
      async ({ bytes, type }) => {
        const session = await (await fetch("/public/v1/session")).json();
        const res = await fetch("/public/v1/imports/uptime-kuma?dryRun=true", {
          method: "POST",
          headers: { "content-type": type, "x-csrf-token": session.data.csrfToken },
          body: new Uint8Array(bytes),
        });
        return (await res.json()).data as { created: { kind: string; name: string }[]; skipped: unknown[] };
      },
      { bytes: [...readFileSync(path)], type },
    );

  beforeAll(async () => {
    origin = served.origin;
    target = await listen((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end("ok");
    });
    kumaFile = join(dir, "kuma.db");
    makeKumaDb(
      kumaFile,
      "2.x",
      `
INSERT INTO monitor (id, name, type, url, interval) VALUES (1, 'Website', 'http', '${target.origin}/', 60);
INSERT INTO monitor (id, name, type, url, interval) VALUES (2, 'API', 'http', '${target.origin}/api', 60);
INSERT INTO monitor (id, name, type, push_token, interval) VALUES (3, 'Nightly backup', 'push', 'abcdefghij', 86400);
INSERT INTO monitor (id, name, type, hostname) VALUES (4, 'Containers', 'docker', 'unix');
INSERT INTO status_page (id, slug, title, description, icon, theme) VALUES (1, 'kuma-acme', 'Acme Status', 'How Acme is doing', '', 'light');
INSERT INTO "group" (id, name, weight, status_page_id, public) VALUES (1, 'Web', 1, 1, 1);
INSERT INTO monitor_group (monitor_id, group_id, weight) VALUES (1, 1, 1), (2, 1, 2);
INSERT INTO maintenance (id, title, description, strategy, start_date, start_time, end_time, weekdays, timezone, duration, active)
  VALUES (1, 'Patch night', 'Weekly patching', 'recurring-weekday', '2026-01-05 00:00:00', '02:00', '03:00', '[1,3]', 'UTC', 3600, 1);
INSERT INTO monitor_maintenance (monitor_id, maintenance_id) VALUES (1, 1);
`,
    );
    notKuma = join(dir, "notes.db");
    writeFileSync(notKuma, "these are my notes, not a database\n");
    summaryFile = join(dir, "summary.json");
    const page = { id: "p1", name: "Acme Cloud", url: "https://status.acme.test", time_zone: "Etc/UTC" };
    const component = (id: string, name: string, position: number, extra: object = {}) => ({
      id,
      name,
      status: "operational",
      position,
      description: null,
      group_id: null,
      page_id: page.id,
      group: false,
      only_show_if_degraded: false,
      created_at: "2025-01-01T00:00:00.000Z",
      updated_at: "2025-01-01T00:00:00.000Z",
      ...extra,
    });
    writeFileSync(
      summaryFile,
      JSON.stringify({
        page,
        components: [
          component("g1", "Core", 1, { group: true, components: ["c1", "c2"] }),
          component("c1", "API", 1, { group_id: "g1" }),
          component("c2", "Web app", 2, { group_id: "g1" }),
        ],
        incidents: [],
        scheduled_maintenances: [],
        status: { indicator: "none", description: "All Systems Operational" },
      }),
    );
    owner = await served.signInOwner();
  }, 60_000);

  afterAll(async () => {
    await closeListener(target);
    rmSync(dir, { recursive: true, force: true });
  });

  /** The id of what has the focus, inside the dashboard's and the screen's shadow roots. */
  const focusedId = (page: Page) =>
    page.evaluate(() => document.activeElement?.shadowRoot?.activeElement?.shadowRoot?.activeElement?.id);
  const sitesTotal = async () => (await call("GET", "/public/v1/sites")).json.data.pagination.total as number;

  test("from the empty Sites screen: no file, then a file that is not Kuma's, refused with nothing written", async () => {
    const { page } = owner;
    const d = dashboard(page);
    await page.goto(`${origin}/dashboard/`);
    await d.getByRole("heading", { name: "No sites yet" }).waitFor();
    await d.getByRole("link", { name: "Import from Uptime Kuma, Statuspage or Gatus" }).click();
    await d.getByRole("heading", { name: "Move in from another tool", level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/dashboard/import");
    expect(await page.title()).toBe("Import · Porchlight");
    expect(await d.getByRole("link", { name: "Sites", exact: true }).getAttribute("aria-current")).toBe("page");
    expect(await d.getByLabel("Uptime Kuma", { exact: false }).first().isChecked()).toBe(true);

    // No file: said beside the field, which takes the focus.
    await d.getByRole("button", { name: "Preview the import" }).click();
    const file = d.locator("#im-file");
    await expect.poll(() => d.locator("#im-file-error").textContent()).toBe("Choose kuma.db first.");
    expect(await file.getAttribute("aria-invalid")).toBe("true");
    expect(
      await page.evaluate(() => document.activeElement?.shadowRoot?.activeElement?.shadowRoot?.activeElement?.id),
    ).toBe("im-file");

    // Not a database: the API's sentence, and nothing written.
    await file.setInputFiles(notKuma);
    await d.getByRole("button", { name: "Preview the import" }).click();
    await expect.poll(() => d.getByRole("alert").first().textContent()).toMatch(/^Nothing was imported: /);
    expect(await d.getByRole("heading", { name: "What this import would do" }).count()).toBe(0);
    expect(await sitesTotal()).toBe(0);
  }, 60_000);

  test("a kuma.db previewed (nothing written), imported (links, the push address once), and again (nothing new)", async () => {
    const { page } = owner;
    const d = dashboard(page);
    await page.goto(`${origin}/dashboard/import`);
    await d.locator("#im-file").setInputFiles(kumaFile);
    await d.getByRole("button", { name: "Preview the import" }).click();
    await d.getByRole("heading", { name: "What this import would do" }).waitFor();
    expect(await d.getByText("Read kuma.db as Uptime Kuma 2.x.").count()).toBe(1);
    // The form is gone: the focus is on the preview's heading, not lost to the page's body.
    await expect.poll(() => focusedId(page)).toBe("pv-title");

    // The preview is the API's dry run, row for row; nothing is written yet.
    const expected = await dryRun(page, kumaFile, "application/octet-stream");
    const rows = d.locator("tbody tr");
    expect(await rows.count()).toBe(expected.created.length);
    const names = await rows.locator('td[data-label="Name"]').allTextContents();
    expect(names).toEqual(expected.created.map((c) => c.name));
    expect(names).toEqual(expect.arrayContaining(["Website", "API", "Nightly backup", "Acme Status", "Patch night"]));
    expect(await d.locator(".tally").textContent()).toMatch(/3\s*sites/);
    // Docker is not a kind Porchlight checks: skipped, with the reason.
    expect(await d.locator("ul.skipped").textContent()).toContain("Containers");
    expect(await sitesTotal()).toBe(0);

    await d.getByRole("button", { name: `Import ${expected.created.length} objects` }).click();
    await d.getByRole("heading", { name: "Imported from Uptime Kuma 2.x" }).waitFor();
    expect(await d.getByRole("status").first().textContent()).toMatch(/^Created 3 sites, /);
    expect(await sitesTotal()).toBe(3);
    const sites = (await call("GET", "/public/v1/sites")).json.data.sites as { id: string; name: string }[];
    const website = sites.find((s) => s.name === "Website");
    expect(await d.getByRole("link", { name: "Website" }).getAttribute("href")).toBe(`/dashboard/sites/${website?.id}`);
    const pages = (await call("GET", "/public/v1/status-pages")).json.data.statusPages as {
      id: number;
      slug: string;
    }[];
    expect(pages.map((p) => p.slug)).toEqual(["kuma-acme"]);
    expect(await d.getByRole("link", { name: "Acme Status" }).getAttribute("href")).toBe(
      `/dashboard/pages/${pages[0]?.id}`,
    );
    // The push site's new address, shown this once: it is the address that reports to the new site.
    const pushUrl = (await d.locator(".push pre").textContent()) ?? "";
    expect(pushUrl).toMatch(/\/push\/[A-Za-z0-9_-]{20,}$/);
    const pushed = await page.evaluate(async (url) => (await fetch(url)).status, pushUrl);
    expect(pushed).toBe(200);

    for (const shot of SHOTS) {
      const tab = await served.open({
        width: shot.width,
        colorScheme: shot.colorScheme,
        storageState: await owner.context.storageState(),
      });
      await tab.page.goto(`${origin}/dashboard/import`);
      const t = dashboard(tab.page);
      await t.locator("#im-file").setInputFiles(kumaFile);
      await t.getByRole("button", { name: "Preview the import" }).click();
      // Imported already: the preview says so, and offers no import.
      await t.getByText("Nothing new to create", { exact: false }).waitFor();
      expect(await t.getByRole("button", { name: /^Import / }).count()).toBe(0);
      expect(await tab.page.evaluate(() => document.documentElement.scrollWidth <= innerWidth)).toBe(true);
      await tab.page.screenshot({ path: `${ARTIFACTS}/dashboard-import-again-${shot.name}.png`, fullPage: true });
      expect(tab.errors).toEqual([]);
      await tab.context.close();
    }
    expect(await sitesTotal()).toBe(3);
  }, 120_000);

  test("a Statuspage summary.json: a bad address refused beside its field, then the page at the address chosen", async () => {
    const { page } = owner;
    const d = dashboard(page);
    await page.goto(`${origin}/dashboard/import`);
    await d.getByLabel("Atlassian Statuspage").check();
    await d.locator("#im-file").setInputFiles(summaryFile);
    const slug = d.getByLabel("The new page's address");
    await slug.fill("Not a slug!");
    await d.getByRole("button", { name: "Preview the import" }).click();
    await expect.poll(() => d.locator("#im-slug-error").textContent()).toBeTruthy();
    expect(await slug.getAttribute("aria-invalid")).toBe("true");

    await slug.fill("acme-cloud");
    await d.getByRole("button", { name: "Preview the import" }).click();
    await d.getByRole("heading", { name: "What this import would do" }).waitFor();
    expect(await d.locator('tbody td[data-label="Name"]').allTextContents()).toEqual(
      expect.arrayContaining(["Acme Cloud", "Acme Cloud / Core", "API", "Web app"]),
    );
    for (const shot of SHOTS) {
      await page.setViewportSize({ width: shot.width, height: 900 });
      await page.emulateMedia({ colorScheme: shot.colorScheme });
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth)).toBe(true);
      await page.screenshot({ path: `${ARTIFACTS}/dashboard-import-preview-${shot.name}.png`, fullPage: true });
      if (shot.name === "light") expect(await axeViolations(page)).toEqual([]);
    }
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.emulateMedia({ colorScheme: "light" });

    await d.getByRole("button", { name: /^Import \d+ objects$/ }).click();
    await d.getByRole("heading", { name: /^Imported from Statuspage/ }).waitFor();
    await page.screenshot({ path: `${ARTIFACTS}/dashboard-import-done.png`, fullPage: true });
    expect(await axeViolations(page)).toEqual([]);
    const pages = (await call("GET", "/public/v1/status-pages")).json.data.statusPages as { slug: string }[];
    expect(pages.map((p) => p.slug).sort()).toEqual(["acme-cloud", "kuma-acme"]);
    // Components with no address are paused push sites, for the owner to point somewhere.
    const sites = (await call("GET", "/public/v1/sites")).json.data.sites as { name: string; status: string }[];
    expect(
      sites.filter((s) => ["API", "Web app"].includes(s.name) && s.status === "paused").length,
    ).toBeGreaterThanOrEqual(2);
    // The console's only complaints are the two refusals asked for above (the file that is not Kuma's, the bad address).
    expect(owner.errors).toEqual(
      Array(2).fill("Failed to load resource: the server responded with a status of 400 (Bad Request)"),
    );
  }, 120_000);
});
