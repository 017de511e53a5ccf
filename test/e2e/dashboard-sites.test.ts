// Issue 28: the Sites screen in real Chromium against `porchlight serve`, with local targets that are up, down and
// slow: the status overview's counts and their filter, the sites at fault first, a sort by a column, the tag filter,
// a bulk pause of three sites confirmed by count, the add/edit form (the duplicate-address warning, the API's
// messages beside their fields, Cancel forgetting what was typed, tags, status codes and headers saved), a
// 100-character name at 375 px without sideways scrolling, the row menu on a phone; axe clean; screenshots.
import type { Server } from "node:http";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, expect, test } from "vitest";
import { axeViolations, describeBrowser } from "../support/browser.ts";
import { ARTIFACTS, callAs, closeListener, dashboard, type Tab, useDashboardServer } from "../support/dashboard.ts";
import { listen } from "../support/listen.ts";

const LONG_NAME = `The customer-facing checkout and payments gateway for the European storefronts (primary) ${"x".repeat(11)}`;

/** The sites seeded, and what their targets answer: /down/* fails, /slow answers after 300 ms. */
const SEED = [
  { name: "Checkout", path: "/down/checkout", tags: ["shop", "eu"] },
  { name: "Billing", path: "/down/billing", tags: ["api"] },
  { name: "Search", path: "/slow", tags: ["api", "eu"], slowThresholdMs: 50 },
  { name: "Blog", path: "/blog", tags: ["eu"] },
  { name: "Docs", path: "/docs", tags: [] },
  { name: "Mail", path: "/mail", tags: ["api"] },
  { name: "Status API", path: "/status", tags: ["api"] },
  { name: "Legacy", path: "/legacy", tags: [], pause: true },
];

/** The seeded sites once checked, most severe first: down, degraded, up (by name), paused. */
const BY_SEVERITY = ["Billing", "Checkout", "Search", "Blog", "Docs", "Mail", "Status API", "Legacy"];

describeBrowser("the Sites screen, in Chromium", () => {
  const served = useDashboardServer("sites");
  let origin: string;
  let target: { server: Server; origin: string };
  let owner: Tab;

  beforeAll(async () => {
    ({ origin } = served);
    target = await listen((req, res) => {
      const answer = () => {
        const down = req.url?.startsWith("/down") ?? false;
        res.writeHead(down ? 503 : 200, { "content-type": "text/plain" });
        res.end(down ? "unavailable" : "ok");
      };
      if (req.url === "/slow") setTimeout(answer, 300);
      else answer();
    });
  });

  afterAll(() => closeListener(target));

  /** A tab; `state` is a signed-in context's storage state, as JSON. */
  const open = (options: { width?: number; colorScheme?: "light" | "dark"; state?: string } = {}) =>
    served.open({ ...options, storageState: options.state });

  const rowNames = (page: Page) => dashboard(page).locator("tbody tr td.name a").allTextContents();
  const counts = (page: Page) => dashboard(page).locator(".counts button.count").allTextContents();

  /** The API, as the signed-in browser calls it (its cookie and CSRF token). */
  const call = (method: string, path: string, body?: unknown) => callAs(owner, method, path, body);

  const sitesByName = async () => {
    const { json } = await call("GET", "/public/v1/sites?perPage=50");
    return new Map<string, any>(json.data.sites.map((s: { name: string }) => [s.name, s]));
  };

  /** A screenshot (the whole page, or the window while a dialog is open), no sideways scroll, and axe clean. */
  async function shoot(page: Page, name: string, what: string, fullPage = true): Promise<void> {
    expect(
      await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth),
      `${what}: no sideways scroll`,
    ).toBe(true);
    await page.screenshot({ path: `${ARTIFACTS}/dashboard-sites-${name}.png`, fullPage });
    expect(await axeViolations(page), what).toEqual([]);
  }

  test("a new owner's sites: the overview counts them by state, the sites at fault first", async () => {
    owner = await served.signInOwner();
    const { page } = owner;
    await expect.poll(() => dashboard(page).getByRole("heading", { name: "No sites yet" }).count()).toBe(1);

    for (const site of SEED) {
      const { path, ...rest } = site;
      const created = await call("POST", "/public/v1/sites", {
        ...rest,
        url: `${target.origin}${path}`,
        checkInterval: 30,
      });
      expect(created.status, JSON.stringify(created.json)).toBe(201);
    }
    // Down takes two failed checks, 30 s apart: the list shows it live, without a reload.
    await expect
      .poll(() => counts(page), { timeout: 75_000, interval: 1000 })
      .toEqual(["2 down", "1 degraded", "4 up", "1 paused"]);
    expect(await dashboard(page).locator(".headline").textContent()).toBe("2 sites are down");
    expect(await rowNames(page)).toEqual(BY_SEVERITY);
    await shoot(page, "light", "sites with two down, light");

    // A count is a filter; pressed again, it shows every site.
    const down = dashboard(page).getByRole("button", { name: "2 down" });
    await down.click();
    expect(await down.getAttribute("aria-pressed")).toBe("true");
    expect(await rowNames(page)).toEqual(["Billing", "Checkout"]);
    await down.click();
    expect(await rowNames(page)).toHaveLength(8);
    expect(owner.errors).toEqual([]);
  }, 120_000);

  test("sorted by a column from its heading, which says so (aria-sort)", async () => {
    const { page } = owner;
    const d = dashboard(page);
    const heading = (name: string) => d.locator("th", { has: page.getByRole("button", { name, exact: true }) });
    expect(await heading("Status").getAttribute("aria-sort")).toBe("ascending");
    await d.getByRole("button", { name: "Site", exact: true }).click();
    expect(await heading("Site").getAttribute("aria-sort")).toBe("ascending");
    expect(await heading("Status").getAttribute("aria-sort")).toBeNull();
    expect(await rowNames(page)).toEqual([
      "Billing",
      "Blog",
      "Checkout",
      "Docs",
      "Legacy",
      "Mail",
      "Search",
      "Status API",
    ]);
    await d.getByRole("button", { name: "Site", exact: true }).click();
    expect(await heading("Site").getAttribute("aria-sort")).toBe("descending");
    expect((await rowNames(page))[0]).toBe("Status API");
    // Uptime, lowest first: the two sites that never answered lead.
    await d.getByRole("button", { name: "Uptime (30 d)" }).click();
    expect((await rowNames(page)).slice(0, 2).sort()).toEqual(["Billing", "Checkout"]);
    await d.getByRole("button", { name: "Status", exact: true }).click();
    expect(await rowNames(page)).toEqual(BY_SEVERITY);
  });

  test("a tag narrows the list and the overview, through the API's tag query; a row's tag chip does the same", async () => {
    const { page } = owner;
    const d = dashboard(page);
    const asked = page.waitForRequest(
      (r) => r.url().includes("/public/v1/sites/overview") && r.url().includes("tag=eu"),
    );
    await d.getByLabel("Tag").selectOption("eu");
    await asked;
    await expect.poll(() => rowNames(page)).toEqual(["Checkout", "Search", "Blog"]);
    expect(await counts(page)).toEqual(["1 down", "1 degraded", "1 up"]);
    await d.getByLabel("Tag").selectOption("");
    await expect.poll(() => rowNames(page)).toHaveLength(8);
    await d.locator("tr", { hasText: "Mail" }).getByRole("button", { name: "api" }).click();
    await expect.poll(() => rowNames(page)).toEqual(["Billing", "Search", "Mail", "Status API"]);
    expect(await d.getByLabel("Tag").inputValue()).toBe("api");
    await d.getByLabel("Tag").selectOption("");
    await expect.poll(() => rowNames(page)).toHaveLength(8);
    expect(owner.errors).toEqual([]);
  });

  test("bulk pause of three sites: the confirmation names the count, and the API has them paused", async () => {
    const { page } = owner;
    const d = dashboard(page);
    for (const name of ["Blog", "Docs", "Mail"]) await d.getByLabel(`Select ${name}`, { exact: true }).check();
    const bar = d.getByRole("region", { name: "Selected sites" });
    expect(await bar.locator("strong").textContent()).toBe("3 selected");
    await bar.getByRole("button", { name: "Pause" }).click();
    const dialog = d.getByRole("dialog", { name: "Pause 3 sites?" });
    await expect.poll(() => dialog.count()).toBe(1);
    expect(await dialog.locator("li").allTextContents()).toEqual(["Blog", "Docs", "Mail"]);
    await shoot(page, "bulk-confirm", "bulk confirmation", false);
    await dialog.getByRole("button", { name: "Pause 3 sites" }).click();
    await expect.poll(() => d.getByRole("status").filter({ hasText: "3 sites paused." }).count()).toBe(1);
    const sites = await sitesByName();
    expect(["Blog", "Docs", "Mail", "Status API"].map((n) => sites.get(n).pause)).toEqual([true, true, true, false]);
    await expect.poll(() => counts(page)).toEqual(["2 down", "1 degraded", "1 up", "4 paused"]);
    // Done: nothing stays ticked.
    expect(await bar.count()).toBe(0);

    // And back, from the select-all box narrowed to the paused ones (Legacy included).
    await d.getByRole("button", { name: "4 paused" }).click();
    await d.getByLabel("Select every site shown").check();
    await bar.getByRole("button", { name: "Resume" }).click();
    await d.getByRole("dialog", { name: "Resume 4 sites?" }).getByRole("button", { name: "Resume 4 sites" }).click();
    await expect.poll(async () => [...(await sitesByName()).values()].filter((s) => s.pause).length).toBe(0);
    await d.getByRole("button", { name: "Show all 8" }).click();
    expect(owner.errors).toEqual([]);
  });

  test("the form: a duplicate address is a warning, the API's messages stand beside their fields, Cancel forgets", async () => {
    const { page } = owner;
    const d = dashboard(page);
    await d.getByRole("button", { name: "Add a site" }).click();
    const form = d.getByRole("dialog", { name: "Add a site" });
    await form.getByLabel("Address").fill(`${target.origin.replace("http:", "HTTP:")}/docs/`);
    await expect.poll(() => form.locator("#f-url-twin").textContent()).toBe("Already monitored as Docs. Add anyway?");
    // A warning, not a refusal: the button says what it does.
    expect(await form.getByRole("button", { name: "Add anyway" }).count()).toBe(1);
    expect(await form.getByLabel("Name", { exact: true }).getAttribute("aria-describedby")).toBe("f-name-hint");
    expect(await form.locator("#f-name-hint").textContent()).toBe("At most 100 characters.");

    // No name, a status code that is not one: the API's own messages, beside each field.
    await form.getByText("More settings").click();
    await form.getByLabel("Expected status codes").fill("200, abc");
    await form.getByRole("button", { name: "Add anyway" }).click();
    const refusal = await call("POST", "/public/v1/sites", {
      url: `${target.origin}/docs/`,
      name: "",
      successCodes: [200, "abc"],
    });
    expect(refusal.status).toBe(400);
    const message = (field: string) =>
      refusal.json.details.find((e: { field: string }) => e.field === field || e.field.startsWith(`${field}.`))
        ?.message;
    await expect.poll(() => form.locator("#f-name-error").textContent()).toBe(message("name"));
    expect(await form.locator("#f-successCodes-error").textContent()).toBe(message("successCodes"));
    expect(await form.getByLabel("Name", { exact: true }).getAttribute("aria-invalid")).toBe("true");
    expect(await form.getByLabel("Name", { exact: true }).getAttribute("aria-describedby")).toBe(
      "f-name-hint f-name-error",
    );
    await shoot(page, "form-errors", "the form with a duplicate warning and the API's messages", false);

    // Cancel, then Add again: nothing typed, no message, no warning.
    await form.getByRole("button", { name: "Cancel" }).click();
    await d.getByRole("button", { name: "Add a site" }).click();
    expect(await form.getByLabel("Address").inputValue()).toBe("");
    expect(await form.getByLabel("Name", { exact: true }).inputValue()).toBe("");
    expect(await form.locator(".error:not(:empty)").count()).toBe(0);
    expect(await form.locator("#f-url-twin").textContent()).toBe("");
    // Every folded section folded again (more settings, the checks on the answer).
    expect(await form.locator("details").count()).toBeGreaterThan(1);
    expect(await form.locator("details[open]").count()).toBe(0);

    // A new site with tags (comma and Enter), status codes and a header.
    await form.getByLabel("Address").fill(`${target.origin}/new`);
    await form.getByLabel("Name", { exact: true }).fill("New API");
    await form.getByLabel("Tags", { exact: true }).fill("API, fresh,");
    await form.getByLabel("Tags", { exact: true }).fill("team one");
    await form.getByLabel("Tags", { exact: true }).press("Enter");
    expect(await form.getByRole("list", { name: "Tags of this site" }).locator("li").allTextContents()).toEqual([
      "API×",
      "fresh×",
      "team one×",
    ]);
    await form.getByRole("button", { name: "Remove tag team one" }).click();
    await form.getByText("More settings").click();
    await form.getByLabel("Expected status codes").fill("200-204");
    await form.getByRole("button", { name: "Add a header" }).click();
    await form.getByLabel("Header 1 name").fill("X-Check");
    await form.getByLabel("Header 1 value").fill("yes");
    await form.getByRole("button", { name: "Add site" }).click();
    await expect.poll(() => rowNames(page)).toContain("New API");
    const added = (await sitesByName()).get("New API");
    expect(added.tags).toEqual(["api", "fresh"]);
    expect(added.successCodes).toEqual([200, 201, 202, 203, 204]);
    expect(added.headers).toEqual([{ name: "X-Check", value: "yes" }]);

    // Edit from the row's menu: the form opens on the site; saved, the list shows the new name.
    await d.getByRole("button", { name: "Actions for New API" }).click();
    await d.locator("[popover]:popover-open").getByRole("button", { name: "Edit" }).click();
    const edit = d.getByRole("dialog", { name: "Edit New API" });
    expect(await edit.getByLabel("Name", { exact: true }).inputValue()).toBe("New API");
    expect(await edit.getByLabel("Expected status codes").inputValue()).toBe("200-204");
    await edit.getByLabel("Name", { exact: true }).fill("New API v2");
    await edit.getByRole("button", { name: "Save" }).click();
    await expect.poll(() => rowNames(page)).toContain("New API v2");

    // Deleted from its menu, after a confirmation naming it.
    await d.getByRole("button", { name: "Actions for New API v2" }).click();
    await d.locator("[popover]:popover-open").getByRole("button", { name: "Delete" }).click();
    await d.getByRole("dialog", { name: "Delete New API v2?" }).getByRole("button", { name: "Delete site" }).click();
    await expect.poll(async () => (await sitesByName()).has("New API v2")).toBe(false);
    expect(owner.errors).toEqual([
      "Failed to load resource: the server responded with a status of 400 (Bad Request)",
      "Failed to load resource: the server responded with a status of 400 (Bad Request)",
    ]);
    owner.errors.length = 0;
  }, 60_000);

  test("a 100-character name at 375 px: dense rows, the name ellipsised with its full text in title, no sideways scroll", async () => {
    expect(LONG_NAME).toHaveLength(100);
    const created = await call("POST", "/public/v1/sites", { url: `${target.origin}/long`, name: LONG_NAME });
    expect(created.status).toBe(201);
    const state = JSON.stringify(await owner.context.storageState());
    for (const shot of [
      { name: "375", width: 375, colorScheme: "light" },
      { name: "dark", width: 1280, colorScheme: "dark" },
    ] as const) {
      const phone = await open({ ...shot, state });
      const d = dashboard(phone.page);
      await phone.page.goto(`${origin}/dashboard/`);
      const link = d.getByRole("link", { name: LONG_NAME });
      await expect.poll(() => link.count()).toBe(1);
      await expect.poll(() => counts(phone.page)).toContain("2 down");
      expect(await link.getAttribute("title")).toBe(LONG_NAME);
      expect(await link.evaluate((a) => a.scrollWidth > a.clientWidth)).toBe(true);
      if (shot.width === 375) {
        // A dense row: one line of name, one of status, not a stacked card.
        const row = d.locator("tr", { has: phone.page.getByRole("link", { name: LONG_NAME }) });
        expect((await row.boundingBox())?.height).toBeLessThan(80);
        expect(await d.locator("th.status").isVisible()).toBe(false);
        // The row's actions are in its menu.
        await row.getByRole("button", { name: `Actions for ${LONG_NAME}` }).click();
        const menu = d.locator("[popover]:popover-open");
        expect(await menu.getByRole("button").allTextContents()).toEqual(["Edit", "Pause", "Delete"]);
        const box = await menu.boundingBox();
        expect((box?.x ?? -1) >= 0 && (box?.x ?? 0) + (box?.width ?? 0) <= 375).toBe(true);
        await phone.page.keyboard.press("Escape");
      }
      await shoot(phone.page, shot.name, `sites ${shot.name}`);
      expect(phone.errors).toEqual([]);
      await phone.context.close();
    }
  }, 60_000);

  test("more sites than one page of the API: every page is polled, and the counts and the order are the workspace's", async () => {
    const { page } = owner;
    for (let i = 1; i <= 51; i++) {
      const name = `Archive ${String(i).padStart(2, "0")}`;
      const created = await call("POST", "/public/v1/sites", {
        url: `${target.origin}/archive/${i}`,
        name,
        pause: true,
      });
      expect(created.status).toBe(201);
    }
    const second = page.waitForRequest((r) => r.url().includes("/public/v1/sites/overview?perPage=50&page=2"));
    await page.reload();
    await second;
    await expect.poll(async () => (await rowNames(page)).length).toBe(60);
    expect(await counts(page)).toContain("51 paused");
    const names = await rowNames(page);
    // The sites at fault first, the 51 paused last, whichever page the API listed them on.
    expect(names.slice(0, 3)).toEqual(["Billing", "Checkout", "Search"]);
    expect(names.slice(-51)).toEqual(Array.from({ length: 51 }, (_, i) => `Archive ${String(i + 1).padStart(2, "0")}`));
    expect(owner.errors).toEqual([]);
  }, 60_000);
});
