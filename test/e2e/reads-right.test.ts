// Issue 27, parts 6 and 7: the page reads right in every box. In real Chromium, on a real server: an active
// incident with three updates (impact and two affected services, each with its status), maintenance tomorrow, a
// service in a major outage, one degraded and one named by the incident only. The down service is visible without
// scrolling in the 600 px embed, compact, the iframe and the hosted page at 375 px; the earlier updates fold; the
// upcoming maintenance sits under the services; a day's tooltip lies inside the card; the graded days keep their
// contrast; the password prompt and the 404 look finished. Screenshots in light, dark and 375 px
// (test-artifacts/reads-*.png).
import { mkdirSync } from "node:fs";
import type { Server } from "node:http";
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { Store } from "../../server/store/store.ts";
import { client, makeApp, seedOwner, seedStatusPage, sqliteKind, TestClock } from "../helpers.ts";
import { axeViolations, collectPageErrors, describeBrowser, launchChromium } from "../support/browser.ts";
import { contrast } from "../support/contrast.ts";
import { insertStats } from "../support/fixtures.ts";
import { listen } from "../support/listen.ts";

/** A wordmark-like logo, 120 by 32: a mark and a bar. */
const PROMPT_LOGO = new TextEncoder().encode(
  '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="32" viewBox="0 0 120 32"><rect width="32" height="32" rx="7" fill="#b45309"/><rect x="40" y="9" width="76" height="14" rx="4" fill="#92400e"/></svg>',
);
const ARTIFACTS = "test-artifacts";
const SERVICES = ["Website", "Checkout", "Search", "API", "CDN", "Email", "Docs", "Billing"];
const MINUTE = 60_000;
const DAY = 86_400_000;

describeBrowser("a page that reads right in every box, in Chromium", () => {
  let store: Store;
  let cleanup: () => Promise<void>;
  let browser: Browser;
  let api: { server: Server; origin: string };
  let host: { server: Server; origin: string };
  let call: ReturnType<typeof client>;
  let incidentsPath: string;
  let incidentId: number;
  let apiItem: number;

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    ({ store, cleanup } = await sqliteKind.open());
    const made = makeApp(store, { clock: new TestClock(new Date()), env: { PORCHLIGHT_VIEW_TTL_SECONDS: "300" } });
    const owner = await seedOwner(store, "stack");
    call = client(made.app, owner.token);
    const now = made.clock.now();
    const seeded = await seedStatusPage(
      call,
      store,
      now,
      "acme",
      { name: "Acme", description: "Live status of Acme's services.", display: { historyDays: 90 } },
      SERVICES,
    );
    const state = (label: string) => (label === "Checkout" ? "unhealthy" : label === "Search" ? "degraded" : "healthy");
    for (const [i, id] of seeded.ids.entries()) {
      await store.db
        .updateTable("sites")
        .set({ state: state(SERVICES[i] as string), last_check_time: now.toISOString(), last_response_ms: 180 })
        .where("id", "=", id)
        .execute();
    }
    // Checkout's data began 40 days ago: seedStats gave 30; ten more, one a 99.5% day.
    const checkout = seeded.ids[1] as string;
    const older = Array.from({ length: 10 }, (_, i) => {
      const day = new Date(now.getTime() - (30 + i) * DAY).toISOString().slice(0, 10);
      return {
        id: `${checkout}:${day}`,
        site_id: checkout,
        day,
        checks_total: 1000,
        checks_up: i === 3 ? 995 : 1000,
        downtime_minutes: i === 3 ? 7 : 0,
        downtime_ms: i === 3 ? 7 * MINUTE : 0,
        version: 1,
        created_at: now.toISOString(),
        updated_at: now.toISOString(),
      };
    });
    await insertStats(store, older);
    incidentsPath = `/public/v1/status-pages/${seeded.id}/incidents`;
    const items = await store.db
      .selectFrom("status_page_items")
      .select(["id", "label"])
      .where("page_id", "=", Number(seeded.id))
      .execute();
    const itemId = (label: string) => items.find((item) => item.label === label)?.id as number;
    apiItem = itemId("API");
    const opened = await call.post(incidentsPath, {
      title: "Payments fail at checkout",
      impact: "critical",
      items: [
        { id: itemId("Checkout"), status: "major_outage" },
        { id: apiItem, status: "partial_outage" },
      ],
      message: "Payments fail for every customer. We are looking into it.",
      startedAt: new Date(now.getTime() - 50 * MINUTE).toISOString(),
    });
    expect(opened.status).toBe(201);
    incidentId = opened.json.data.id;
    for (const [status, message, ago] of [
      ["identified", "The payment provider rejects our requests after a certificate change.", 30],
      ["monitoring", "A fix is deployed; payments are going through again for most customers.", 5],
    ] as const) {
      const posted = await call.post(`${incidentsPath}/${incidentId}/updates`, {
        status,
        message,
        at: new Date(now.getTime() - ago * MINUTE).toISOString(),
      });
      expect(posted.status).toBe(201);
    }
    const tomorrow = new Date(now.getTime() + DAY);
    tomorrow.setUTCHours(2, 0, 0, 0);
    const coming = await call.post("/public/v1/maintenance-windows", {
      title: "Database upgrade",
      sites: [seeded.ids[0]],
      start: tomorrow.toISOString(),
      durationMinutes: 90,
    });
    expect(coming.status).toBe(201);
    // A password page with a name of its own and an accent.
    const vault = await call.post("/public/v1/status-pages", {
      name: "Acme Internal Tools",
      slug: "vault",
      visibility: "password-protected",
      password: "correct horse",
      theme: { accentColor: "#7c3aed" },
    });
    expect(vault.status).toBe(201);
    await call.post(`/public/v1/status-pages/${vault.json.data.id}/items`, {
      siteId: seeded.ids[1],
      label: "Secret ledger",
    });
    // A password page with an uploaded logo (a path on the API's server, which the embed resolves against api-base).
    const logoPage = await call.post("/public/v1/status-pages", {
      name: "Acme Payroll",
      slug: "payroll",
      visibility: "password-protected",
      password: "correct horse",
      theme: { accentColor: "#b45309" },
    });
    expect(logoPage.status).toBe(201);
    const uploaded = await made.app.request(`/public/v1/status-pages/${logoPage.json.data.id}/logo`, {
      method: "PUT",
      headers: { authorization: `Bearer ${owner.token}`, "content-type": "image/svg+xml" },
      body: PROMPT_LOGO,
    });
    expect(uploaded.status).toBe(200);
    made.recorded({ sites: seeded.ids, pagesChanged: true });
    api = await listen(made.listener);
    host = await listen((req, res) => {
      const url = new URL(req.url ?? "/", "http://host");
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      const attrs = url.searchParams.get("attrs") ?? "";
      const body = url.searchParams.has("frame")
        ? `<iframe title="Acme status" src="${api.origin}/acme?embed=1" style="border:0;width:100%;height:40rem"></iframe>`
        : `<script type="module" src="${api.origin}/embed/porchlight.js"></script>
<porchlight-status slug="${url.searchParams.get("slug") ?? "acme"}" api-base="${api.origin}" ${attrs}></porchlight-status>`;
      res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Host page</title>
<style>body{margin:0;padding:16px;font-family:Georgia,serif}</style></head>
<body><main><h1>Acme's own page</h1>${body}</main></body></html>`);
    });
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    for (const listening of [api, host]) {
      if (listening) await new Promise((resolve) => listening.server.close(resolve));
    }
    await cleanup?.();
  });

  async function visit(url: string, options: { width?: number; height?: number; colorScheme?: "light" | "dark" } = {}) {
    const context = await browser.newContext({
      bypassCSP: true,
      viewport: { width: options.width ?? 1280, height: options.height ?? 900 },
      colorScheme: options.colorScheme ?? "light",
      locale: "en-US",
    });
    const page = await context.newPage();
    const errors = collectPageErrors(page);
    await page.goto(url);
    return { context, page, errors };
  }

  /** The element's shadow parts in `page`, or in its iframe. */
  const element = (page: Page, framed = false) =>
    (framed ? page.frameLocator("iframe") : page).locator("porchlight-status");

  /** The box is inside `outer` (1 px of rounding allowed). */
  async function inside(inner: Locator, outer: { x: number; y: number; width: number; height: number }) {
    const box = await inner.boundingBox();
    if (!box) throw new Error("no box");
    expect(box.y).toBeGreaterThanOrEqual(outer.y - 1);
    expect(box.y + box.height).toBeLessThanOrEqual(outer.y + outer.height + 1);
    expect(box.x).toBeGreaterThanOrEqual(outer.x - 1);
    expect(box.x + box.width).toBeLessThanOrEqual(outer.x + outer.width + 1);
  }

  /** Checkout's row, the down service, is within the element's box (the embed's) and the viewport, unscrolled. */
  async function downVisible(page: Page, framed = false) {
    const el = element(page, framed);
    const row = el.locator("[part~=item]").filter({ hasText: "Checkout" }).first();
    await expect.poll(() => row.count()).toBe(1);
    const base = el.locator("[part~=base]");
    expect(await base.evaluate((box) => box.scrollTop)).toBe(0);
    const viewport = page.viewportSize() as { width: number; height: number };
    await inside(row.locator("div").first(), { x: 0, y: 0, ...viewport });
    await inside(
      row.locator("div").first(),
      (await base.boundingBox()) as NonNullable<Awaited<ReturnType<Locator["boundingBox"]>>>,
    );
  }

  for (const colorScheme of ["light", "dark"] as const) {
    test(`the 600 px embed (${colorScheme}): statuses by name and shape, the incident folded, the fault in view`, async () => {
      const v = await visit(`${host.origin}/?attrs=theme%3Dauto`, { colorScheme });
      const el = element(v.page);
      const banner = el.locator("[part~=banner]");
      await expect.poll(() => banner.count()).toBe(1);
      await el.locator("[part~=base]").screenshot({ path: `${ARTIFACTS}/reads-embed-${colorScheme}.png` });
      // Each service under its own status's word: the degraded one is not in an outage.
      expect((await banner.innerText()).replace(/\s+/g, " ").trim()).toBe(
        "Partial outage Major outage: Checkout Partial outage: API Degraded: Search",
      );
      // Major outage, partial outage and degraded differ by their mark's shape, not by hue alone.
      const marks = await el.locator("[part~=item] [data-mark]").evaluateAll((marks) =>
        marks.map((mark) => {
          const style = getComputedStyle(mark, "::before");
          return `${mark.parentElement?.textContent?.trim()}|${style.content}|${style.backgroundImage !== "none"}|${style.boxShadow !== "none"}`;
        }),
      );
      expect(marks).toContain('Major outage|"×"|false|false');
      expect(marks).toContain('Partial outage|" "|true|true');
      expect(marks).toContain('Degraded|"!"|false|true');
      const incident = el.locator("[part~=incident]").first();
      expect(await incident.getAttribute("data-impact")).toBe("critical");
      // The phase is a neutral chip: no status colour behind it.
      const chip = incident.locator(".chip");
      expect(await chip.innerText()).toBe("Monitoring");
      expect(await chip.evaluate((c) => getComputedStyle(c).backgroundColor)).toBe("rgba(0, 0, 0, 0)");
      // Each affected service with its status.
      expect((await incident.locator(".svc").allInnerTexts()).map((t) => t.replace(/\s+/g, " ").trim())).toEqual([
        "Checkout Major outage",
        "API Partial outage",
      ]);
      // The latest update shows; the two before it fold behind one line, which opens.
      expect(await incident.locator(":scope > ol > li").count()).toBe(1);
      expect(await incident.locator(":scope > ol > li").innerText()).toContain("A fix is deployed");
      const earlier = incident.locator("details");
      expect(await earlier.locator("summary").innerText()).toBe("+2 earlier updates");
      expect(await earlier.locator("li").first().isVisible()).toBe(false);
      await downVisible(v.page);
      // Maintenance to come is under the services, one quiet line.
      const order = await el
        .locator("h3, [part~=maintenance], [part~=items]")
        .evaluateAll((nodes) => nodes.map((n) => n.getAttribute("part") ?? n.textContent?.trim()));
      expect(order.slice(0, 4), order.join(",")).toEqual(["Active incidents", "Services", "items", "items"]);
      expect(order.indexOf("maintenance")).toBeGreaterThan(order.indexOf("Services"));
      expect(await el.locator(".soon").innerText()).toContain("Database upgrade");
      // The box scrolls, and shows that it does: a shade at its bottom edge.
      const base = el.locator("[part~=base]");
      expect(await base.evaluate((b) => b.scrollHeight > b.clientHeight)).toBe(true);
      expect(await base.evaluate((b) => getComputedStyle(b).backgroundImage)).toMatch(/radial-gradient/);
      await earlier.locator("summary").click();
      await expect.poll(() => earlier.locator("li").first().isVisible()).toBe(true);
      expect(await earlier.locator("li").allInnerTexts()).toEqual([
        expect.stringContaining("The payment provider rejects"),
        expect.stringContaining("Payments fail for every customer"),
      ]);
      expect(await axeViolations(v.page)).toEqual([]);
      expect(v.errors).toEqual([]);
      await v.context.close();
    });
  }

  test("compact (360 px) at 375 px wide: the fault in view", async () => {
    for (const colorScheme of ["light", "dark"] as const) {
      const v = await visit(`${host.origin}/?attrs=compact%20theme%3Dauto`, { width: 375, colorScheme });
      await downVisible(v.page);
      await element(v.page)
        .locator("[part~=base]")
        .screenshot({ path: `${ARTIFACTS}/reads-compact-${colorScheme}.png` });
      expect(await axeViolations(v.page)).toEqual([]);
      await v.context.close();
    }
  });

  test("the iframe (?embed=1, 40rem): the fault in view", async () => {
    const v = await visit(`${host.origin}/?frame=1`);
    await downVisible(v.page, true);
    const frame = await v.page.locator("iframe").boundingBox();
    await inside(
      element(v.page, true).locator("[part~=item]").filter({ hasText: "Checkout" }).locator("div").first(),
      frame as NonNullable<typeof frame>,
    );
    await v.page.screenshot({ path: `${ARTIFACTS}/reads-iframe.png` });
    await v.context.close();
  });

  for (const colorScheme of ["light", "dark"] as const) {
    test(`the hosted page at 375 px (${colorScheme}): the fault on the first screen`, async () => {
      const v = await visit(`${api.origin}/acme`, { width: 375, height: 812, colorScheme });
      await expect.poll(() => element(v.page).locator("[part~=banner]").count()).toBe(1);
      await v.page.screenshot({ path: `${ARTIFACTS}/reads-hosted-375-${colorScheme}.png` });
      await v.page.screenshot({ path: `${ARTIFACTS}/reads-hosted-375-${colorScheme}-full.png`, fullPage: true });
      await downVisible(v.page);
      expect(await axeViolations(v.page)).toEqual([]);
      expect(v.errors).toEqual([]);
      await v.context.close();
    });
  }

  for (const [colorScheme, width] of [
    ["light", 1280],
    ["dark", 1280],
    ["light", 375],
  ] as const) {
    test(`a day's tooltip lies inside the card, with uptime, downtime and incidents (${colorScheme}, ${width} px)`, async () => {
      const v = await visit(`${api.origin}/acme`, { width, colorScheme });
      const el = element(v.page);
      const row = el.locator("[part~=item]").filter({ hasText: "Checkout" }).first();
      const bars = row.locator("[part~=history]");
      await expect.poll(() => bars.count()).toBe(1);
      // Bars from the first day with data (40 days ago), its date the axis's first (the last 30 at 375 px).
      expect(await bars.getAttribute("aria-valuemin")).toBe("50");
      await bars.focus();
      await v.page.keyboard.press("End");
      const tip = el.locator(".tip");
      await expect.poll(() => tip.isVisible()).toBe(true);
      const text = await tip.innerText();
      // Today: its date, the uptime to two decimals, the time down, and the incident that affected Checkout.
      expect(text).toMatch(
        /^\w{3} \d+, \d{4}\n(100|\d+\.\d\d)% uptime\n(No downtime|.+ down)\nPayments fail at checkout$/,
      );
      await inside(
        tip,
        (await el.locator("[part~=base]").boundingBox()) as NonNullable<Awaited<ReturnType<Locator["boundingBox"]>>>,
      );
      // The graded days keep at least 3:1 against the card (WCAG 1.4.11), each grade.
      const background = await el.locator("[part~=base]").evaluate((b) => getComputedStyle(b).backgroundColor);
      const colours = await el
        .locator("[part~=history] i")
        .evaluateAll((bars) => [...new Set(bars.map((bar) => `${bar.className}|${getComputedStyle(bar).color}`))]);
      expect(colours.length).toBeGreaterThan(2);
      for (const colour of colours) {
        expect(contrast(colour.split("|")[1] as string, background), colour).toBeGreaterThanOrEqual(3);
      }
      await el.locator("[part~=base]").screenshot({ path: `${ARTIFACTS}/reads-tooltip-${colorScheme}-${width}.png` });
      expect(await axeViolations(v.page)).toEqual([]);
      await v.context.close();
    });
  }

  test("a 99.5% day is not a 0% day: its grade, its words", async () => {
    const v = await visit(`${api.origin}/acme`);
    const bars = element(v.page)
      .locator("[part~=item]")
      .filter({ hasText: "Checkout" })
      .first()
      .locator("[part~=history]");
    await bars.focus();
    await v.page.keyboard.press("Home");
    // Six days after the first day with data (39 days ago) is the 99.5% day.
    for (let i = 0; i < 6; i++) await v.page.keyboard.press("ArrowRight");
    const text = (await bars.getAttribute("aria-valuetext")) as string;
    expect(text).toMatch(/\n99\.50% uptime\n7\sminutes down$/);
    const grades = await bars.locator("i").evaluateAll((list) => list.map((bar) => bar.className));
    expect(grades.slice(0, 3)).toEqual(["ok", "g1", "ok"]);
    await v.context.close();
  });

  for (const [colorScheme, width] of [
    ["light", 1280],
    ["dark", 1280],
    ["light", 375],
    ["dark", 375],
  ] as const) {
    test(`the password prompt: the page's name, a lock, the accent, a show-password box (${colorScheme}, ${width} px)`, async () => {
      const v = await visit(`${api.origin}/vault`, { width, colorScheme });
      expect(await v.page.title()).toBe("Acme Internal Tools status");
      const html = await v.page.content();
      expect(html).not.toContain("Secret ledger");
      const el = element(v.page);
      await expect.poll(() => el.locator("form h2").innerText()).toBe("Acme Internal Tools");
      expect(await el.locator("form p").first().innerText()).toBe("This page is password-protected.");
      expect(await el.locator("form svg").count()).toBe(1);
      const field = el.locator("#password");
      const button = el.locator("[part~=button]");
      expect(await button.evaluate((b) => getComputedStyle(b).backgroundColor)).toBe("rgb(124, 58, 237)");
      // The field and the button as wide as the form.
      const [f, b, form] = [
        await field.boundingBox(),
        await button.boundingBox(),
        await el.locator("form").boundingBox(),
      ];
      expect(Math.abs((f?.width ?? 0) - (form?.width ?? 0))).toBeLessThan(1);
      expect(Math.abs((b?.width ?? 0) - (form?.width ?? 0))).toBeLessThan(1);
      // The sentence does not break inside "password-protected".
      const lines = await el
        .locator("form p")
        .first()
        .evaluate((p) => p.getClientRects().length);
      expect(lines).toBe(1);
      await field.fill("correct horse");
      expect(await field.getAttribute("type")).toBe("password");
      await el.getByLabel("Show password").check();
      expect(await field.getAttribute("type")).toBe("text");
      await v.page.screenshot({ path: `${ARTIFACTS}/reads-prompt-${colorScheme}-${width}.png` });
      expect(await axeViolations(v.page)).toEqual([]);
      await button.click();
      await expect.poll(() => el.locator("[part~=item]").count()).toBe(1);
      expect(v.errors.filter((e) => !/401/.test(e))).toEqual([]);
      await v.context.close();
    });
  }

  for (const [name, colorScheme, width] of [
    ["light", "light", 900],
    ["dark", "dark", 900],
    ["375", "light", 375],
  ] as const) {
    test(`the embed's password prompt: the page's name, logo and accent from its 401 (${name})`, async () => {
      const v = await visit(`${host.origin}/?slug=payroll&attrs=theme%3Dauto`, { width, colorScheme });
      const el = element(v.page);
      await expect.poll(() => el.locator("form h2").innerText()).toBe("Acme Payroll");
      expect(await el.locator("form p").first().innerText()).toBe("This page is password-protected.");
      // The logo in place of the lock, loaded from the API's server; decorative, the heading names the page.
      const logo = el.locator("form img");
      expect(await logo.getAttribute("src")).toMatch(new RegExp(`^${api.origin}/assets/[0-9a-f]{64}\\.svg$`));
      expect(await logo.getAttribute("alt")).toBe("");
      await expect.poll(() => logo.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(120);
      expect(await el.locator("form svg").count()).toBe(0);
      const box = await logo.boundingBox();
      expect(box?.height).toBeLessThanOrEqual(48.5);
      const button = el.locator("[part~=button]");
      expect(await button.evaluate((b) => getComputedStyle(b).backgroundColor)).toBe("rgb(180, 83, 9)");
      await el.locator("[part~=base]").screenshot({ path: `${ARTIFACTS}/reads-embed-prompt-${name}.png` });
      expect(await axeViolations(v.page)).toEqual([]);
      // A wrong password's 401 keeps them; the right one shows the page.
      await el.locator("#password").fill("wrong horse");
      await button.click();
      await expect.poll(() => el.locator("[role=alert]").innerText()).toBe("The password is incorrect.");
      expect(await el.locator("form h2").innerText()).toBe("Acme Payroll");
      expect(await el.locator("form img").count()).toBe(1);
      await el.locator("#password").fill("correct horse");
      await button.click();
      await expect.poll(() => el.locator("form").count()).toBe(0);
      expect(v.errors.filter((e) => !/401/.test(e))).toEqual([]);
      await v.context.close();
    });
  }

  test("the logo shows once: above a hosted page's prompt, inside a framed page's (?embed=1) prompt", async () => {
    const hosted = await visit(`${api.origin}/payroll`);
    await expect.poll(() => element(hosted.page).locator("form h2").innerText()).toBe("Acme Payroll");
    expect(await hosted.page.locator("h1.logo img").getAttribute("alt")).toBe("Acme Payroll status");
    expect(await element(hosted.page).locator("form img").count()).toBe(0);
    await hosted.context.close();
    const framed = await visit(`${api.origin}/payroll?embed=1`);
    const el = element(framed.page);
    await expect.poll(() => el.locator("form h2").innerText()).toBe("Acme Payroll");
    expect(await framed.page.locator("h1.logo").count()).toBe(0);
    expect(await el.locator("form img").getAttribute("src")).toMatch(/\/assets\/[0-9a-f]{64}\.svg$/);
    await expect.poll(() => el.locator("form img").evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(120);
    await framed.context.close();
  });

  for (const [colorScheme, width] of [
    ["light", 1280],
    ["dark", 1280],
    ["light", 375],
  ] as const) {
    test(`an unknown page: a 404 in the pages' style (${colorScheme}, ${width} px)`, async () => {
      const v = await visit(`${api.origin}/no-such-page`, { width, colorScheme });
      expect(await v.page.title()).toBe("Page not found · status");
      const link = v.page.locator(".card a");
      expect(await link.evaluate((a) => getComputedStyle(a).color)).not.toBe("rgb(0, 0, 238)");
      const card = await v.page.locator(".card").boundingBox();
      expect((card?.width ?? 0) <= width).toBe(true);
      await v.page.screenshot({ path: `${ARTIFACTS}/reads-404-${colorScheme}-${width}.png` });
      expect(await axeViolations(v.page)).toEqual([]);
      await v.context.close();
    });
  }

  test("a manual incident moves the banner and the rows (hosted, embed, iframe); resolving it restores them", async () => {
    const rowStatus = (page: Page, framed = false) =>
      element(page, framed).locator("[part~=item]").filter({ hasText: "API" }).first().locator("div > span").last();
    const said = (page: Page, framed = false) => rowStatus(page, framed).evaluate((span) => span.textContent?.trim());
    const places = [
      { url: `${api.origin}/acme`, framed: false },
      { url: `${host.origin}/`, framed: false },
      { url: `${host.origin}/?frame=1`, framed: true },
    ];
    for (const place of places) {
      const v = await visit(place.url);
      await expect.poll(() => said(v.page, place.framed)).toBe("Partial outage");
      expect(await element(v.page, place.framed).locator("[part~=banner]").innerText()).toContain(
        "Partial outage: API",
      );
      await v.context.close();
    }
    const resolved = await call.post(`${incidentsPath}/${incidentId}/updates`, {
      status: "resolved",
      message: "Payments work again.",
    });
    expect(resolved.status).toBe(201);
    try {
      for (const place of places) {
        const v = await visit(place.url);
        await expect.poll(() => said(v.page, place.framed)).toBe("Operational");
        expect(await element(v.page, place.framed).locator("[part~=banner]").innerText()).not.toContain("API");
        await v.context.close();
      }
    } finally {
      // Opened again for any test after this one.
      await call.post(`${incidentsPath}/${incidentId}/updates`, { status: "monitoring", message: "Watching." });
    }
    expect(apiItem).toBeGreaterThan(0);
  });
});
