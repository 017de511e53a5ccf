// Issue 19: the owner's dashboard in real Chromium, against `porchlight serve` started as a new owner would on a
// fresh data directory: the first start's setup link, a password, a site on a local target turning healthy live, a
// page with the site, the hosted page, the embed snippet copied into another origin's page, an incident opened and
// resolved, and the page deleted once its exact name is typed. Then what the issue asks of sessions: a viewer cannot
// edit, a cross-site form post is refused, sign-in brute force gets 429, the cookie is HttpOnly and SameSite, and
// sign-out ends the session at once. Screenshots of each screen, light, dark and 375 px, in test-artifacts/.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, expect, test } from "vitest";
import { type Running, startServer } from "../helpers.ts";
import { axeViolations, collectPageErrors, describeBrowser } from "../support/browser.ts";
import {
  ARTIFACTS,
  callAs,
  closeListener,
  dashboard,
  PASSWORD,
  SHOTS,
  setupLink,
  type Tab,
  useDashboardServer,
} from "../support/dashboard.ts";
import { svgLogo } from "../support/images.ts";
import { listen } from "../support/listen.ts";

describeBrowser("the dashboard, as a new owner, in Chromium", () => {
  const served = useDashboardServer("dashboard", { PORCHLIGHT_VIEW_TTL_SECONDS: "1" });
  const { open } = served;
  let dataDir: string;
  let server: Running;
  let origin: string;
  let browser: Browser;
  let target: { server: Server; origin: string };
  let foreign: { server: Server; origin: string; html: string };
  /** The owner's signed-in browser, kept across the journey's steps. */
  let owner: Tab;
  const created: { siteUrl?: string; pageId?: string } = {};

  beforeAll(async () => {
    ({ dataDir, server, origin, browser } = served);
    target = await listen((req, res) => {
      // /down fails as a broken service does: the automatic incident's test.
      res.writeHead(req.url === "/down" ? 503 : 200, { "content-type": "text/plain" });
      res.end(req.url === "/down" ? "unavailable" : "ok");
    });
    foreign = Object.assign(
      await listen((_req, res) => {
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
        res.end(foreign.html);
      }),
      { html: "" },
    );
  });

  afterAll(async () => {
    await owner?.context.close();
    for (const s of [target, foreign]) await closeListener(s);
  });

  test("first start → setup link → password → add a site that turns healthy live", async () => {
    const setup = setupLink(server);
    // The setup link names the server's own address; the token is after #, so no request carries it.
    expect(setup?.startsWith(`${origin}/dashboard/setup#`)).toBe(true);
    owner = await open();
    const { page } = owner;
    // The server's root goes to the dashboard, which asks to sign in first.
    await page.goto(`${origin}/`);
    await expect.poll(() => dashboard(page).getByRole("heading", { name: "Sign in to Porchlight" }).count()).toBe(1);
    expect(page.url()).toBe(`${origin}/dashboard/`);

    await page.goto(setup as string);
    await expect.poll(() => dashboard(page).getByText("For owner@example.com").count()).toBe(1);
    await dashboard(page).getByLabel("New password").fill(PASSWORD);
    await dashboard(page).getByLabel("Repeat the password").fill(PASSWORD);
    await dashboard(page).getByRole("button", { name: "Save and sign in" }).click();
    await expect.poll(() => dashboard(page).getByRole("heading", { name: "No sites yet" }).count()).toBe(1);
    expect(page.url()).toBe(`${origin}/dashboard/`);

    await dashboard(page).getByRole("button", { name: "Add your first site" }).click();
    created.siteUrl = `${target.origin}/health`;
    await dashboard(page).getByLabel("Address").fill(created.siteUrl);
    await dashboard(page).getByLabel("Name").fill("Local API");
    await dashboard(page).getByLabel("Check every").selectOption("30");
    await dashboard(page).getByRole("button", { name: "Add site" }).click();
    const row = dashboard(page).locator("tr", { hasText: "Local API" });
    await expect.poll(() => row.count()).toBe(1);
    // No reload: the list polls, and the engine's first check turns the site up.
    await expect.poll(() => row.locator(".chip").textContent(), { timeout: 30_000 }).toBe("Up");
    expect(owner.errors).toEqual([]);
  }, 60_000);

  test("bad input is shown inline, beside the field", async () => {
    const { page } = owner;
    await dashboard(page).getByRole("button", { name: "Add a site" }).click();
    await dashboard(page).getByLabel("Address").fill("ftp://nowhere");
    await dashboard(page).getByLabel("Name").fill("Bad");
    await dashboard(page).getByRole("button", { name: "Add site" }).click();
    const error = dashboard(page).locator("#f-url-error");
    await expect
      .poll(() => error.textContent())
      .toBe("Start the address with http://, https://, tcp://, tls://, dns://, icmp:// or push://.");
    expect(await dashboard(page).getByLabel("Address").getAttribute("aria-invalid")).toBe("true");
    await dashboard(page).getByRole("button", { name: "Cancel" }).click();
    // The browser reported that 400, as it reports every refused request: it was the answer this test asked for.
    expect(owner.errors).toEqual(["Failed to load resource: the server responded with a status of 400 (Bad Request)"]);
    owner.errors.length = 0;
  });

  test("a page with the site, the hosted page, and the embed snippet rendering on another origin", async () => {
    const { page, context } = owner;
    await dashboard(page).getByRole("link", { name: "Status pages" }).click();
    await dashboard(page).getByRole("button", { name: "Create a page" }).click();
    await dashboard(page).getByLabel("Name").fill("Acme Status");
    expect(await dashboard(page).getByLabel("Address").inputValue()).toBe("acme-status");
    await dashboard(page).getByRole("button", { name: "Create", exact: true }).click();
    await expect.poll(() => dashboard(page).getByRole("heading", { name: "Acme Status", level: 1 }).count()).toBe(1);
    created.pageId = new URL(page.url()).pathname.split("/").pop();

    // A logo, uploaded from the settings: stored by the server and shown on the page.
    await dashboard(page)
      .getByLabel(/Upload a logo/)
      .setInputFiles({ name: "logo.svg", mimeType: "image/svg+xml", buffer: Buffer.from(svgLogo("Acme")) });
    await expect.poll(() => dashboard(page).getByRole("img", { name: "The page's logo" }).count()).toBe(1);
    expect(await dashboard(page).getByRole("img", { name: "The page's logo" }).getAttribute("src")).toMatch(
      /^\/assets\/[0-9a-f]{64}\.svg$/,
    );
    // Fewer days of history, saved without touching the other display options.
    await dashboard(page).getByLabel("Days of history").selectOption("30");
    await dashboard(page).getByRole("button", { name: "Save settings" }).click();
    await expect.poll(() => dashboard(page).getByText("Saved.").count()).toBe(1);
    const saved = await page.evaluate(
      async (id) => (await (await fetch(`/public/v1/status-pages/${id}`)).json()).data,
      created.pageId,
    );
    expect(saved.display).toEqual({ historyDays: 30, showUptime: true, showResponseTime: true, showIncidents: true });

    await dashboard(page).getByRole("button", { name: "Add item" }).click();
    await expect.poll(() => dashboard(page).getByLabel("Label of Local API").count()).toBe(1);
    // The preview is the real element.
    const preview = dashboard(page).locator("porchlight-status");
    await expect.poll(() => preview.locator("[part~=banner]").count()).toBe(1);

    const hosted = await context.newPage();
    await hosted.goto(`${origin}/acme-status`);
    await expect
      .poll(() => hosted.locator("porchlight-status").locator("[part~=item]").allInnerTexts())
      .toEqual([expect.stringContaining("Local API")]);
    await hosted.close();

    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin });
    await dashboard(page).getByRole("button", { name: "Copy the script snippet" }).click();
    const snippet = await page.evaluate(() => navigator.clipboard.readText());
    expect(snippet).toBe(
      `<script type="module" src="${origin}/embed/porchlight.js"></script>\n<porchlight-status slug="acme-status"></porchlight-status>`,
    );
    foreign.html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Acme</title></head><body><main><h1>Acme's own site</h1>${snippet}</main></body></html>`;
    const visitor = await browser.newPage();
    const visitorErrors = collectPageErrors(visitor);
    await visitor.goto(foreign.origin);
    const banner = visitor.locator("porchlight-status").locator("[part~=banner]");
    await expect.poll(() => banner.textContent()).toContain("All systems operational");
    expect(visitorErrors).toEqual([]);
    await visitor.close();
  }, 60_000);

  test("an incident opened and resolved from the dashboard reaches the page", async () => {
    const { page } = owner;
    await dashboard(page).getByRole("link", { name: "Incidents" }).click();
    await dashboard(page).getByRole("button", { name: "Open an incident" }).click();
    // No page is chosen for the owner: the incident goes where they tick.
    await dashboard(page)
      .getByRole("checkbox", { name: /Acme Status/ })
      .check();
    await dashboard(page).getByLabel("Title").fill("Slow checkout");
    await dashboard(page).getByLabel("What visitors read").fill("We are looking into slow payments.");
    await dashboard(page).getByRole("button", { name: "Open incident" }).click();
    const incident = dashboard(page).locator("article", { hasText: "Slow checkout" });
    await expect.poll(() => incident.locator(".bar .chip").textContent()).toBe("Investigating");
    const api = await page.request.get(`${origin}/public/v1/status-page/acme-status`);
    expect((await api.json()).incidents[0]).toMatchObject({ title: "Slow checkout", status: "investigating" });
    await incident.getByRole("button", { name: "Resolve" }).click();
    await expect.poll(() => incident.locator(".bar .chip").textContent()).toBe("Resolved");
    await expect
      .poll(
        async () =>
          (await (await page.request.get(`${origin}/public/v1/status-page/acme-status`)).json()).incidents[0]?.status,
      )
      .toBe("resolved");
  });

  /** Calls the API as the owner's signed-in browser does: the session's cookie and its CSRF token. */
  const call = (method: string, path: string, body?: unknown) => callAs(owner, method, path, body);

  interface Shown {
    title: string;
    impact: string;
    started_at: string;
    affected: { label: string; status: string }[];
    updates: { message: string; timestamp: string }[];
  }
  /** What visitors read: the page's public JSON. */
  const publicIncidents = async (): Promise<Shown[]> =>
    (await (await owner.page.request.get(`${origin}/public/v1/status-page/acme-status`)).json()).incidents;
  const shownTitled = async (title: string) => (await publicIncidents()).find((i) => i.title === title);

  test("the dashboard saves a draft, publishes it, edits it and an update, and deletes it; visitors' JSON follows", async () => {
    const { page } = owner;
    const d = dashboard(page);
    await page.goto(`${origin}/dashboard/incidents`);
    await d.getByRole("button", { name: "Open an incident" }).click();
    await d.getByRole("checkbox", { name: /Acme Status/ }).check();
    await d.getByLabel("Title").fill("Payments failing");
    await d.getByLabel("Impact").selectOption("major");
    await d.getByRole("checkbox", { name: "Local API" }).check();
    await d.getByLabel("Status of Local API").selectOption("partial_outage");
    await d.getByLabel("What visitors read").fill("Some card payments fail.");
    await d.getByRole("button", { name: "Save as draft" }).click();
    const draft = d.locator("article", { hasText: "Payments failing" });
    await expect.poll(() => draft.locator(".badge").textContent()).toBe("Draft");
    expect(await draft.textContent()).toContain("Affects Local API (Partial outage)");
    // A draft is the owner's alone.
    expect((await publicIncidents()).map((i) => i.title)).not.toContain("Payments failing");

    await draft.getByRole("button", { name: "Publish Payments failing" }).click();
    await expect.poll(() => draft.locator(".badge").count()).toBe(0);
    await expect
      .poll(() => shownTitled("Payments failing"))
      .toMatchObject({ impact: "major", affected: [{ label: "Local API", status: "partial_outage" }] });

    await draft.getByRole("button", { name: "Edit Payments failing" }).click();
    const editor = draft.getByRole("form", { name: "Edit Payments failing" });
    await editor.getByLabel("Title").fill("Payments slow");
    await editor.getByLabel("Impact").selectOption("minor");
    await editor.getByLabel("Status of Local API").selectOption("degraded");
    await editor.getByRole("button", { name: "Save changes" }).click();
    const edited = d.locator("article", { hasText: "Payments slow" });
    await expect.poll(() => edited.count()).toBe(1);
    await expect
      .poll(() => shownTitled("Payments slow"))
      .toMatchObject({ impact: "minor", affected: [{ label: "Local API", status: "degraded" }] });

    // The opening update's text and time, corrected: the incident's start moves with it.
    const earlier = await page.evaluate(() => {
      const at = new Date(Date.now() - 2 * 3_600_000);
      at.setSeconds(0, 0);
      const local = new Date(at.getTime() - at.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
      return { local, ms: at.getTime() };
    });
    await edited.getByRole("button", { name: /^Edit the \w+ update of / }).click();
    const correction = edited.getByRole("form", { name: /^Edit the \w+ update of / });
    await correction.getByLabel("Text of the update").fill("Card payments are slow.");
    await correction.getByLabel("Time").fill(earlier.local);
    await correction.getByRole("button", { name: "Save update" }).click();
    await expect
      .poll(async () => {
        const shown = await shownTitled("Payments slow");
        const first = shown?.updates.at(-1);
        return first && [first.message, Date.parse(first.timestamp), Date.parse(shown?.started_at ?? "")];
      })
      .toEqual(["Card payments are slow.", earlier.ms, earlier.ms]);
    await expect.poll(() => edited.getByText("Card payments are slow.").count()).toBe(1);

    // Deleted only through a confirmation that names it.
    await edited.getByRole("button", { name: "Delete Payments slow" }).click();
    const confirm = d.getByRole("dialog", { name: "Delete the incident “Payments slow”?" });
    await expect.poll(() => confirm.isVisible()).toBe(true);
    await confirm.getByRole("button", { name: "Delete incident" }).click();
    await expect.poll(() => edited.count()).toBe(0);
    await expect.poll(async () => (await publicIncidents()).map((i) => i.title)).toEqual(["Slow checkout"]);
    expect(owner.errors).toEqual([]);
  }, 60_000);

  test("with many pages the incident form chooses none and a search narrows the list; a page's screen chooses itself", async () => {
    const { page } = owner;
    const d = dashboard(page);
    const regions: number[] = [];
    for (let n = 1; n <= 10; n++) {
      const name = `Region ${String(n).padStart(2, "0")}`;
      const made = await call("POST", "/public/v1/status-pages", { name, slug: name.toLowerCase().replace(" ", "-") });
      expect(made.status).toBe(201);
      regions.push(made.json.data.id);
    }
    try {
      await page.goto(`${origin}/dashboard/incidents`);
      await d.getByRole("button", { name: "Open an incident" }).click();
      const choices = d.locator("#page-choices input[type=checkbox]");
      await expect.poll(() => choices.count()).toBe(11);
      const ticked = () => choices.evaluateAll((all) => all.filter((c) => (c as HTMLInputElement).checked).length);
      expect(await ticked()).toBe(0);
      await d.getByLabel("Find a page").fill("Region 1");
      await expect.poll(() => choices.count()).toBe(1);
      expect(await d.getByRole("checkbox", { name: /Region 10/ }).count()).toBe(1);
      expect(await d.getByRole("status").filter({ hasText: "pages match" }).textContent()).toBe("1 of 11 pages match");
      await d.getByLabel("Find a page").fill("acme");
      await expect.poll(() => choices.count()).toBe(1);
      // Sent with no page ticked: refused beside the choice, nothing opened.
      await d.getByLabel("Title").fill("Nowhere");
      await d.getByLabel("What visitors read").fill("Nothing.");
      await d.getByRole("button", { name: "Open incident" }).click();
      await expect.poll(() => d.locator("#i-page-error").textContent()).toBe("Choose at least one page.");
      await page.screenshot({ path: `${ARTIFACTS}/dashboard-incident-form-search-light.png`, fullPage: true });
      expect(await axeViolations(page)).toEqual([]);

      await page.goto(`${origin}/dashboard/pages/${created.pageId}`);
      await d.getByRole("link", { name: "Open an incident on this page" }).click();
      await expect.poll(() => d.getByRole("checkbox", { name: /Acme Status/ }).isChecked()).toBe(true);
      expect(page.url()).toBe(`${origin}/dashboard/incidents?page=${created.pageId}`);
      expect(await ticked()).toBe(1);
      // The page's services are offered at once.
      expect(await d.getByRole("checkbox", { name: "Local API" }).count()).toBe(1);
    } finally {
      for (const [i, id] of regions.entries()) {
        const confirmName = `Region ${String(i + 1).padStart(2, "0")}`;
        await call("DELETE", `/public/v1/status-pages/${id}`, { confirmName });
      }
    }
    expect(owner.errors).toEqual([]);
  }, 60_000);

  test("a page's incident policy: publication and texts saved, a wrong delay refused beside its field", async () => {
    const { page } = owner;
    const d = dashboard(page);
    await page.goto(`${origin}/dashboard/pages/${created.pageId}`);
    const policy = d.locator("#policy");
    await expect.poll(() => policy.count()).toBe(1);
    // The default: outages lasting at least 5 minutes.
    expect(await policy.getByRole("radio", { name: /Only outages that last/ }).isChecked()).toBe(true);
    expect(await policy.getByLabel("Minutes").inputValue()).toBe("5");
    expect(await policy.textContent()).toContain("{service} becomes the service's name on this page");
    await policy.getByLabel("Minutes").fill("0");
    await policy.getByRole("button", { name: "Save incident policy" }).click();
    await expect.poll(() => policy.locator("#p-afterMinutes-error").count()).toBe(1);
    expect(await policy.getByLabel("Minutes").getAttribute("aria-invalid")).toBe("true");
    expect(owner.errors).toEqual(["Failed to load resource: the server responded with a status of 400 (Bad Request)"]);
    owner.errors.length = 0;

    await policy.getByLabel("Minutes").fill("10");
    await policy.getByLabel(/^Title/).fill("{service}: trouble");
    await policy.getByRole("button", { name: "Save incident policy" }).click();
    await expect.poll(() => policy.getByRole("status").textContent()).toBe("Saved.");
    const saved = await call("GET", `/public/v1/status-pages/${created.pageId}`);
    expect(saved.json.data.incidentPolicy).toMatchObject({
      publish: "after",
      afterMinutes: 10,
      template: {
        title: "{service}: trouble",
        recovered: "{service} is available again. It was unavailable for {duration}.",
      },
    });
    await policy.getByRole("radio", { name: /As drafts/ }).check();
    expect(await policy.getByLabel("Minutes").count()).toBe(0);
    await policy.getByRole("button", { name: "Save incident policy" }).click();
    await expect
      .poll(async () => (await call("GET", `/public/v1/status-pages/${created.pageId}`)).json.data.incidentPolicy)
      .toMatchObject({ publish: "draft", afterMinutes: 10, template: { title: "{service}: trouble" } });
    expect(owner.errors).toEqual([]);
  });

  test("an automatic incident waits for the page's delay, shows the owner its detail, and is published in one click", async () => {
    const { page } = owner;
    const d = dashboard(page);
    await call("PATCH", `/public/v1/status-pages/${created.pageId}`, {
      incidentPolicy: { publish: "after", afterMinutes: 60 },
    });
    const site = await call("POST", "/public/v1/sites", {
      url: `${target.origin}/down`,
      name: "Payments",
      checkInterval: 30,
    });
    expect(site.status).toBe(201);
    const siteId = site.json.data.id;
    await call("POST", `/public/v1/status-pages/${created.pageId}/items`, { siteId });
    try {
      await page.goto(`${origin}/dashboard/incidents`);
      const incident = d.locator("article", { hasText: "Payments: trouble" });
      // The engine opens it as the outage begins; the screen shows it on its next load.
      await expect
        .poll(
          async () => {
            await page.goto(`${origin}/dashboard/incidents`);
            await expect.poll(() => d.getByRole("heading", { name: "Open" }).count()).toBe(1);
            return incident.count();
          },
          { timeout: 90_000, interval: 2000 },
        )
        .toBe(1);
      expect(await incident.locator(".badge").textContent()).toBe("Waiting");
      expect(await incident.textContent()).toContain("Visitors see it if the outage lasts 60 minutes");
      expect(await incident.locator(".detail").first().textContent()).toMatch(/^Owner only: .*503/);
      expect((await publicIncidents()).map((i) => i.title)).not.toContain("Payments: trouble");
      await page.screenshot({ path: `${ARTIFACTS}/dashboard-incident-waiting-light.png`, fullPage: true });
      expect(await axeViolations(page)).toEqual([]);

      await incident.getByRole("button", { name: "Publish Payments: trouble" }).click();
      await expect.poll(() => incident.locator(".badge").count()).toBe(0);
      const shown = await (async () => {
        let found: Shown | undefined;
        await expect
          .poll(async () => {
            found = await shownTitled("Payments: trouble");
            return found !== undefined;
          })
          .toBe(true);
        return found as Shown;
      })();
      // Visitors read the page's words, never the check's detail.
      expect(JSON.stringify(shown)).not.toContain("503");
      expect(shown.affected).toEqual([expect.objectContaining({ label: "Payments" })]);
    } finally {
      const list = await call("GET", `/public/v1/status-pages/${created.pageId}/incidents`);
      for (const incident of list.json.data.incidents) {
        if (incident.source === "automatic") {
          await call("DELETE", `/public/v1/status-pages/${created.pageId}/incidents/${incident.id}`);
        }
      }
      await call("DELETE", `/public/v1/site/${siteId}`);
    }
    expect(owner.errors).toEqual([]);
  }, 120_000);

  test("the alert rule's confirmations, cool-down and flapping (and off), with the API's refusals inline", async () => {
    const { page } = owner;
    const d = dashboard(page);
    await page.goto(`${origin}/dashboard/alerts`);
    const rule = d.getByRole("form", { name: "The workspace's alert rule" });
    await expect.poll(() => rule.getByLabel("Failed checks before a down alert").inputValue()).toBe("2");
    expect(await rule.getByLabel("Cool-down, in minutes").inputValue()).toBe("15");
    expect(await rule.getByLabel("Detect flapping").isChecked()).toBe(true);
    expect(await rule.getByLabel("Outages that make a site flapping").inputValue()).toBe("3");

    await rule.getByLabel("Failed checks before a down alert").fill("25");
    await rule.getByRole("button", { name: "Save rule" }).click();
    await expect.poll(() => rule.locator("#r-confirmations-error").count()).toBe(1);
    expect(await rule.getByLabel("Failed checks before a down alert").getAttribute("aria-invalid")).toBe("true");
    expect(owner.errors).toEqual(["Failed to load resource: the server responded with a status of 400 (Bad Request)"]);
    owner.errors.length = 0;

    await rule.getByLabel("Failed checks before a down alert").fill("3");
    await rule.getByLabel("Cool-down, in minutes").fill("20");
    await rule.getByLabel("Detect flapping").uncheck();
    expect(await rule.getByLabel("Outages that make a site flapping").count()).toBe(0);
    await rule.getByRole("button", { name: "Save rule" }).click();
    // The screen says so once its answer is in (the API has the rule a moment before): the next edit waits for it,
    // as a person reading the screen would, and the box stays as saved while the screen reloads.
    await expect.poll(() => d.getByRole("status").filter({ hasText: "Rule saved." }).count()).toBe(1);
    expect(await rule.getByLabel("Detect flapping").isChecked()).toBe(false);
    expect((await call("GET", "/public/v1/alert-rules/default")).json.data).toMatchObject({
      confirmations: 3,
      cooldownMinutes: 20,
      flapping: null,
    });

    await rule.getByLabel("Detect flapping").check();
    await rule.getByLabel("Outages that make a site flapping").fill("4");
    await rule.getByLabel("Within, in minutes").fill("60");
    await rule.getByLabel(/^Stable for/).fill("45");
    await rule.getByRole("button", { name: "Save rule" }).click();
    await expect
      .poll(async () => (await call("GET", "/public/v1/alert-rules/default")).json.data.flapping)
      .toEqual({ outages: 4, windowMinutes: 60, quietMinutes: 45 });
    expect(owner.errors).toEqual([]);
  });

  test("the incident editor and the incident policy: light, dark and 375 px, axe clean", async () => {
    const items = (await call("GET", `/public/v1/status-pages/${created.pageId}`)).json.data.items;
    const made = await call("POST", `/public/v1/status-pages/${created.pageId}/incidents`, {
      title: "Database failover",
      impact: "major",
      items: [{ id: items[0].id, status: "partial_outage" }],
      message: "Writes are slow while the database fails over.",
      publish: false,
    });
    expect(made.status).toBe(201);
    const id = made.json.data.id;
    await call("POST", `/public/v1/status-pages/${created.pageId}/incidents/${id}/updates`, {
      status: "identified",
      message: "The standby is catching up.",
    });
    const state = await owner.context.storageState();
    try {
      for (const shot of SHOTS) {
        const { context, page, errors } = await open({ ...shot, storageState: state });
        const d = dashboard(page);
        await page.goto(`${origin}/dashboard/incidents`);
        const article = d.locator("article", { hasText: "Database failover" });
        await article.getByRole("button", { name: "Edit Database failover" }).click();
        await article
          .getByRole("button", { name: /^Edit the \w+ update of / })
          .first()
          .click();
        await expect.poll(() => article.getByRole("form").count()).toBe(2);
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(shot.width);
        await article.screenshot({ path: `${ARTIFACTS}/dashboard-incident-editor-${shot.name}.png` });
        expect(await axeViolations(page), `incident editor ${shot.name}`).toEqual([]);

        await page.goto(`${origin}/dashboard/pages/${created.pageId}`);
        const policy = d.locator("#policy");
        await expect.poll(() => policy.count()).toBe(1);
        await policy.getByRole("radio", { name: /Only outages that last/ }).check();
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(shot.width);
        await policy.screenshot({ path: `${ARTIFACTS}/dashboard-incident-policy-${shot.name}.png` });
        expect(await axeViolations(page), `incident policy ${shot.name}`).toEqual([]);
        expect(errors).toEqual([]);
        await context.close();
      }
    } finally {
      await call("DELETE", `/public/v1/status-pages/${created.pageId}/incidents/${id}`);
    }
  }, 120_000);

  test("alerts: a webhook channel, a test sent and delivered, its log; maintenance planned on the site", async () => {
    const { page } = owner;
    await dashboard(page).getByRole("link", { name: "Alerts" }).click();
    await dashboard(page).getByRole("button", { name: "Add a channel" }).click();
    await dashboard(page).getByLabel("Type").selectOption("webhook");
    await dashboard(page).getByLabel("Name").fill("On-call hook");
    await dashboard(page)
      .getByLabel(/^Address/)
      .fill(`${target.origin}/hook`);
    await dashboard(page).getByRole("button", { name: "Add channel" }).click();
    const channel = dashboard(page).locator("article", { hasText: "On-call hook" });
    await expect.poll(() => channel.count()).toBe(1);
    await channel.getByRole("button", { name: "Send a test" }).click();
    await expect.poll(() => channel.getByRole("status").textContent()).toMatch(/^Delivered in \d+ ms \(HTTP 200\)$/);
    // A test is answered at once and kept out of the log, which holds the alerts the engine sent: none yet.
    await channel.getByRole("button", { name: "Delivery log" }).click();
    await expect.poll(() => channel.getByText("Nothing sent yet.").count()).toBe(1);
    expect(await channel.getByRole("button", { name: "Delivery log" }).getAttribute("aria-expanded")).toBe("true");

    await dashboard(page).getByRole("link", { name: "Maintenance" }).click();
    await dashboard(page).getByRole("button", { name: "Plan maintenance" }).click();
    await dashboard(page).getByLabel("Title").fill("Database upgrade");
    await dashboard(page).getByLabel("Local API").check();
    const soon = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 11);
    await dashboard(page).getByLabel("Starts").fill(`${soon}02:00`);
    await dashboard(page).getByLabel("Time zone").fill("Europe/Berlin");
    await dashboard(page).getByLabel("Repeats").selectOption("FREQ=WEEKLY");
    await dashboard(page).getByRole("button", { name: "Plan", exact: true }).click();
    const planned = dashboard(page).locator("article", { hasText: "Database upgrade" });
    await expect.poll(() => planned.locator(".chip").textContent()).toBe("Scheduled");
    expect(await planned.textContent()).toContain("Every week");
    expect(owner.errors).toEqual([]);
  }, 60_000);

  /**
   * A phone's header: one row (the name and a Menu button), the navigation and the member folded away; the Menu opens
   * them, and following a link goes there and folds them again.
   */
  async function phoneMenu(page: Page): Promise<void> {
    const d = dashboard(page);
    await page.goto(`${origin}/dashboard/`);
    const menu = d.getByRole("button", { name: "Menu" });
    const nav = d.getByRole("navigation", { name: "Dashboard" });
    await menu.waitFor();
    expect(await menu.getAttribute("aria-expanded")).toBe("false");
    expect(await nav.isVisible()).toBe(false);
    expect(await d.getByRole("button", { name: "Sign out" }).isVisible()).toBe(false);
    // One row: the brand and the Menu button side by side, each beside the other's height.
    const brand = await d.getByRole("link", { name: "Porchlight", exact: true }).boundingBox();
    const button = await menu.boundingBox();
    expect(brand && button && button.y < brand.y + brand.height && brand.y < button.y + button.height).toBe(true);
    expect(button && brand && button.x > brand.x + brand.width).toBe(true);

    await menu.click();
    expect(await menu.getAttribute("aria-expanded")).toBe("true");
    await expect.poll(() => nav.isVisible()).toBe(true);
    expect(await nav.getByRole("link").allTextContents()).toEqual([
      "Sites",
      "Status pages",
      "Incidents",
      "Maintenance",
      "Alerts",
      "Account",
    ]);
    await page.screenshot({ path: `${ARTIFACTS}/dashboard-journey-menu-375.png` });
    await nav.getByRole("link", { name: "Status pages" }).click();
    await expect.poll(() => d.getByRole("heading", { name: "Status pages", level: 1 }).count()).toBe(1);
    expect(page.url()).toBe(`${origin}/dashboard/pages`);
    expect(await menu.getAttribute("aria-expanded")).toBe("false");
    expect(await nav.isVisible()).toBe(false);
  }

  test("screens: light, dark and 375 px, axe clean, no console errors", async () => {
    const state = await owner.context.storageState();
    const screens: [string, string, string][] = [
      ["sites", "/dashboard/", "Sites"],
      ["site", "/dashboard/sites/", "Local API"],
      ["pages", "/dashboard/pages", "Status pages"],
      ["page", `/dashboard/pages/${created.pageId}`, "Acme Status"],
      ["incidents", "/dashboard/incidents", "Incidents"],
      ["maintenance", "/dashboard/maintenance", "Maintenance"],
      ["alerts", "/dashboard/alerts", "Alerts"],
      ["account", "/dashboard/account", "Account"],
    ];
    const siteId = await owner.page.evaluate(async () => {
      const res = await fetch("/public/v1/sites");
      return (await res.json()).data.sites[0].id as string;
    });
    for (const shot of SHOTS) {
      const { context, page, errors } = await open({ ...shot, storageState: state });
      if (shot.width === 375) await phoneMenu(page);
      for (const [name, path, heading] of screens) {
        await page.goto(`${origin}${name === "site" ? `${path}${siteId}` : path}`);
        await expect.poll(() => dashboard(page).getByRole("heading", { name: heading, level: 1 }).count()).toBe(1);
        if (name === "site") await expect.poll(() => dashboard(page).locator("pl-response-chart svg").count()).toBe(1);
        if (name === "page") {
          await expect.poll(() => dashboard(page).locator("porchlight-status [part~=banner]").count()).toBe(1);
        }
        // Nothing is wider than the screen.
        expect(
          await page.evaluate(() => document.documentElement.scrollWidth),
          `${name} ${shot.name}`,
        ).toBeLessThanOrEqual(shot.width);
        await page.screenshot({ path: `${ARTIFACTS}/dashboard-journey-${name}-${shot.name}.png`, fullPage: true });
        expect(await axeViolations(page), `${name} ${shot.name}`).toEqual([]);
      }
      expect(errors).toEqual([]);
      await context.close();
    }
    for (const shot of SHOTS) {
      const signIn = await open(shot);
      await signIn.page.goto(`${origin}/dashboard/`);
      await expect.poll(() => dashboard(signIn.page).getByRole("button", { name: "Sign in" }).count()).toBe(1);
      expect(await dashboard(signIn.page).getByRole("link", { name: "Forgot your password?" }).count()).toBe(1);
      await signIn.page.screenshot({ path: `${ARTIFACTS}/dashboard-sign-in-${shot.name}.png` });
      expect(await axeViolations(signIn.page), `sign-in ${shot.name}`).toEqual([]);
      expect(signIn.errors).toEqual([]);
      await signIn.context.close();
    }
  }, 120_000);

  test("a page's items reorder by keyboard (the handle and the arrow keys) and by dragging", async () => {
    const { page } = owner;
    // A second site, by the API the dashboard uses, and both on the page.
    await page.evaluate(async (url) => {
      const session = await (await fetch("/public/v1/session")).json();
      await fetch("/public/v1/sites", {
        method: "POST",
        headers: { "content-type": "application/json", "x-csrf-token": session.data.csrfToken },
        body: JSON.stringify({ url, name: "Second API" }),
      });
    }, `${target.origin}/second`);
    await page.goto(`${origin}/dashboard/pages/${created.pageId}`);
    await expect.poll(() => dashboard(page).getByLabel("Label of Local API").count()).toBe(1);
    await dashboard(page).getByRole("button", { name: "Add item" }).click();
    await expect.poll(() => dashboard(page).getByLabel("Label of Second API").count()).toBe(1);
    const order = () =>
      page.evaluate(async (id) => {
        const { data } = await (await fetch(`/public/v1/status-pages/${id}`)).json();
        return [...data.items]
          .sort((a: { position: number }, b: { position: number }) => a.position - b.position)
          .map((i: { label: string }) => i.label);
      }, created.pageId);
    expect(await order()).toEqual(["Local API", "Second API"]);

    const handle = dashboard(page).getByRole("button", { name: /^Move Local API/ });
    await handle.focus();
    await page.keyboard.press("ArrowDown");
    await expect.poll(order).toEqual(["Second API", "Local API"]);
    // The move is announced, and the moved item's handle keeps the focus for the next key.
    await expect.poll(() => dashboard(page).getByText("Local API moved to position 2 of 2").count()).toBe(1);
    await page.keyboard.press("ArrowUp");
    await expect.poll(order).toEqual(["Local API", "Second API"]);

    await dashboard(page)
      .locator("li[data-item]", { hasText: "Second API" })
      .dragTo(dashboard(page).locator("li[data-item]", { hasText: "Local API" }));
    await expect.poll(order).toEqual(["Second API", "Local API"]);
    // The second site goes again: the steps below know the workspace by its one site.
    await page.evaluate(async () => {
      const session = await (await fetch("/public/v1/session")).json();
      const { data } = await (await fetch("/public/v1/sites")).json();
      const second = data.sites.find((site: { name: string }) => site.name === "Second API");
      await fetch(`/public/v1/site/${second.id}`, {
        method: "DELETE",
        headers: { "x-csrf-token": session.data.csrfToken },
      });
    });
    await expect.poll(order).toEqual(["Local API"]);
  }, 60_000);

  test("a private page: a member reads it on its address; anyone else is asked to sign in, and comes back", async () => {
    const made = await owner.page.evaluate(async () => {
      const session = await (await fetch("/public/v1/session")).json();
      const headers = { "content-type": "application/json", "x-csrf-token": session.data.csrfToken };
      const sites = (await (await fetch("/public/v1/sites")).json()).data.sites;
      const page = await fetch("/public/v1/status-pages", {
        method: "POST",
        headers,
        body: JSON.stringify({ name: "Members only", slug: "members-only", visibility: "private" }),
      });
      const { data } = await page.json();
      await fetch(`/public/v1/status-pages/${data.id}/items`, {
        method: "POST",
        headers,
        body: JSON.stringify({ siteId: sites[0].id }),
      });
      return page.status;
    });
    expect(made).toBe(201);
    const items = (page: Page) => page.locator("porchlight-status").locator("[part~=item]");
    const mine = await owner.context.newPage();
    await mine.goto(`${origin}/members-only`);
    await expect.poll(() => items(mine).allInnerTexts()).toEqual([expect.stringContaining("Local API")]);
    await mine.close();

    const stranger = await open();
    await stranger.page.goto(`${origin}/members-only`);
    await expect.poll(() => items(stranger.page).count()).toBe(0);
    await stranger.page.getByRole("link", { name: "Members: sign in to see this page" }).click();
    await dashboard(stranger.page).getByLabel("E-mail").fill("owner@example.com");
    await dashboard(stranger.page).getByLabel("Password").fill(PASSWORD);
    await dashboard(stranger.page).getByRole("button", { name: "Sign in" }).click();
    await expect.poll(() => stranger.page.url()).toBe(`${origin}/members-only/`);
    await expect.poll(() => items(stranger.page).allInnerTexts()).toEqual([expect.stringContaining("Local API")]);
    // The one thing the browser reports: the element asked for the page before the sign-in and was told 401.
    expect(stranger.errors).toEqual([
      "Failed to load resource: the server responded with a status of 401 (Unauthorized)",
    ]);
    await stranger.context.close();
  }, 60_000);

  test("a page is deleted only once its exact name is typed (letter case counts)", async () => {
    const { page } = owner;
    await page.goto(`${origin}/dashboard/pages/${created.pageId}`);
    const field = dashboard(page).getByLabel(/Type the page's name/);
    const button = dashboard(page).getByRole("button", { name: "Delete Acme Status" });
    await field.fill("acme status");
    expect(await button.isDisabled()).toBe(true);
    // Even sent anyway, the API refuses the wrong case.
    const refused = await page.evaluate(async (id) => {
      const session = await (await fetch("/public/v1/session")).json();
      const res = await fetch(`/public/v1/status-pages/${id}`, {
        method: "DELETE",
        headers: { "content-type": "application/json", "x-csrf-token": session.data.csrfToken },
        body: JSON.stringify({ confirmName: "acme status" }),
      });
      return res.status;
    }, created.pageId);
    expect(refused).toBe(400);
    await field.fill("Acme Status");
    await button.click();
    await expect.poll(() => dashboard(page).getByRole("heading", { name: "Status pages", level: 1 }).count()).toBe(1);
    expect((await page.request.get(`${origin}/public/v1/status-page/acme-status`)).status()).toBe(404);
  });

  test("the session cookie is HttpOnly and SameSite=Lax, and sign-out ends it at once", async () => {
    const cookies = await owner.context.cookies(origin);
    const session = cookies.find((c) => c.name === "porchlight_session");
    expect(session).toMatchObject({ httpOnly: true, sameSite: "Lax", path: "/" });
    expect(await owner.page.evaluate(() => document.cookie)).not.toContain("porchlight_session");
    await owner.page.goto(`${origin}/dashboard/`);
    await dashboard(owner.page).getByRole("button", { name: "Sign out" }).click();
    await expect.poll(() => dashboard(owner.page).getByRole("button", { name: "Sign in" }).count()).toBe(1);
    const kept = await fetch(`${origin}/public/v1/sites`, {
      headers: { cookie: `porchlight_session=${session?.value}` },
    });
    expect(kept.status).toBe(401);
  });

  test("a cross-site form post with the owner's cookie changes nothing", async () => {
    const { page } = owner;
    await dashboard(page).getByLabel("E-mail").fill("owner@example.com");
    await dashboard(page).getByLabel("Password").fill(PASSWORD);
    await dashboard(page).getByRole("button", { name: "Sign in" }).click();
    await expect.poll(() => dashboard(page).getByRole("heading", { name: "Sites", level: 1 }).count()).toBe(1);
    foreign.html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Win a prize</title></head><body>
<form id="f" method="post" action="${origin}/public/v1/sites" enctype="text/plain">
<input name='{"url":"https://evil.example/","name":"Injected","x":"' value='"}'></form>
<script>document.getElementById("f").submit()</script></body></html>`;
    const attack = await owner.context.newPage();
    const answer = attack.waitForResponse((res) => res.url() === `${origin}/public/v1/sites`);
    await attack.goto(foreign.origin);
    expect([401, 403, 415]).toContain((await answer).status());
    await attack.close();
    const sites = await page.evaluate(async () => (await (await fetch("/public/v1/sites")).json()).data.sites);
    expect(sites.map((s: { name: string }) => s.name)).toEqual(["Local API"]);
  });

  test("a viewer sees the sites and no way to change them; the API refuses a viewer's write", async () => {
    const cli = (...args: string[]) =>
      execFileSync("node", ["bin/porchlight.js", ...args], {
        env: { ...process.env, PORCHLIGHT_DATA_DIR: dataDir, DATABASE_URL: "", PORCHLIGHT_PUBLIC_URL: origin },
        encoding: "utf8",
      }).trim();
    cli("user", "create", "--email", "viewer@example.com", "--join", "owner@example.com", "--role", "viewer");
    const link = cli("user", "link", "--email", "viewer@example.com");
    expect(link).toMatch(/\/dashboard\/setup#token=/);
    const viewer = await open();
    await viewer.page.goto(link);
    await dashboard(viewer.page).getByLabel("New password").fill(PASSWORD);
    await dashboard(viewer.page).getByLabel("Repeat the password").fill(PASSWORD);
    await dashboard(viewer.page).getByRole("button", { name: "Save and sign in" }).click();
    const row = dashboard(viewer.page).locator("tr", { hasText: "Local API" });
    await expect.poll(() => row.count()).toBe(1);
    // Counted hidden too: a row's Edit, Pause and Delete live in its closed "⋯" menu (a popover).
    expect(
      await dashboard(viewer.page)
        .getByRole("button", { name: /Add a site|Actions for|Edit|Delete|Pause/, includeHidden: true })
        .count(),
    ).toBe(0);
    expect(
      await dashboard(viewer.page)
        .getByRole("checkbox", { name: /^Select / })
        .count(),
    ).toBe(0);
    const status = await viewer.page.evaluate(async () => {
      const session = await (await fetch("/public/v1/session")).json();
      const res = await fetch("/public/v1/sites", {
        method: "POST",
        headers: { "content-type": "application/json", "x-csrf-token": session.data.csrfToken },
        body: JSON.stringify({ url: "https://example.com", name: "Nope" }),
      });
      return res.status;
    });
    expect(status).toBe(403);
    await viewer.context.close();
  }, 60_000);

  test("after sign-in, ?next= leads only somewhere on this origin", async () => {
    for (const next of ["/.//evil.example/", "//evil.example/", "https://evil.example/", "/\t/evil.example/"]) {
      const visitor = await open();
      await visitor.page.goto(`${origin}/dashboard/sign-in?next=${encodeURIComponent(next)}`);
      await dashboard(visitor.page).getByLabel("E-mail").fill("owner@example.com");
      await dashboard(visitor.page).getByLabel("Password").fill(PASSWORD);
      await dashboard(visitor.page).getByRole("button", { name: "Sign in" }).click();
      await expect.poll(() => dashboard(visitor.page).getByRole("button", { name: "Sign out" }).count()).toBe(1);
      expect(new URL(visitor.page.url()).origin, next).toBe(origin);
      await visitor.context.close();
    }
  }, 60_000);

  test("a server that refuses private targets says so in the site form, naming the setting, before saving", async () => {
    const strictDir = mkdtempSync(join(tmpdir(), "porchlight-dashboard-strict-"));
    const strict = await startServer({ PORCHLIGHT_DATA_DIR: strictDir, PORCHLIGHT_OWNER_EMAIL: "owner@example.com" });
    const visitor = await open();
    try {
      const setup = setupLink(strict);
      const { page } = visitor;
      const d = dashboard(page);
      await page.goto(setup as string);
      await d.getByLabel("New password").fill(PASSWORD);
      await d.getByLabel("Repeat the password").fill(PASSWORD);
      await d.getByRole("button", { name: "Save and sign in" }).click();
      await d.getByRole("button", { name: "Add your first site" }).click();
      await d.getByLabel("Address").fill(`${target.origin}/health`);
      const refused = d.locator("#f-url-refused");
      // As typed: no save asked for, and the form names the server's setting.
      await expect.poll(() => refused.textContent()).toContain("PORCHLIGHT_ALLOW_PRIVATE_TARGETS");
      expect(await refused.textContent()).toMatch(/^This server will not check this address: /);
      expect(await d.getByLabel("Address").getAttribute("aria-describedby")).toContain("f-url-refused");
      await page.screenshot({ path: `${ARTIFACTS}/dashboard-site-refused-light.png` });
      expect(await axeViolations(page)).toEqual([]);
      // A public address is not refused.
      await d.getByLabel("Address").fill("https://1.1.1.1/");
      await d.getByLabel("Address").blur();
      await expect.poll(() => refused.textContent()).toBe("");
      // Saved anyway: the list says the server does not check it, and why, never "Down".
      await d.getByLabel("Address").fill(`${target.origin}/health`);
      await d.getByLabel("Name").fill("Refused API");
      await d.getByRole("button", { name: "Add site" }).click();
      const row = d.locator("tr", { hasText: "Refused API" });
      await expect.poll(() => row.locator(".chip").textContent(), { timeout: 30_000 }).toBe("Not checked");
      expect(await row.locator("td.status small").textContent()).toContain("PORCHLIGHT_ALLOW_PRIVATE_TARGETS");
      expect(visitor.errors).toEqual([]);
    } finally {
      await visitor.context.close();
      await strict.stop();
      rmSync(strictDir, { recursive: true, force: true });
    }
  }, 60_000);

  test("sign-in brute force: after 10 wrong passwords, 429 with the wait shown", async () => {
    const guesser = await open();
    await guesser.page.goto(`${origin}/dashboard/sign-in`);
    const form = dashboard(guesser.page);
    const alert = form.getByRole("alert");
    for (let i = 0; i < 10; i++) {
      await form.getByLabel("E-mail").fill("viewer@example.com");
      await form.getByLabel("Password").fill(`wrong guess ${i}`);
      await form.getByRole("button", { name: "Sign in" }).click();
      await expect.poll(() => alert.textContent()).toBe("The e-mail address or password is wrong.");
      await form.getByLabel("E-mail").fill("");
    }
    await form.getByLabel("E-mail").fill("viewer@example.com");
    await form.getByLabel("Password").fill(PASSWORD);
    await form.getByRole("button", { name: "Sign in" }).click();
    await expect.poll(() => alert.textContent()).toMatch(/^Too many attempts\. Try again in \d+ s\.$/);
    await guesser.page.screenshot({ path: `${ARTIFACTS}/dashboard-sign-in-refused-light.png` });
    await guesser.context.close();
  }, 60_000);
});
