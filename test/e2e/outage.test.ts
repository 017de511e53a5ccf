// Issue 17, part 1: during an outage the page leads with what is broken. In real Chromium, on the embed (another
// origin's page, full and compact), the hosted page and its iframe form: a solid banner that names the affected
// services, the active incident above the services, and in the embed the services at fault first with the others
// folded. Screenshots of each, light and dark, 1280 and 375 px, for a reviewer (test-artifacts/outage-*.png).
import { mkdirSync } from "node:fs";
import type { Server } from "node:http";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { Store } from "../../server/store/store.ts";
import { client, makeApp, seedOwner, seedStatusPage, sqliteKind, TestClock } from "../helpers.ts";
import { axeViolations, collectPageErrors, describeBrowser, launchChromium } from "../support/browser.ts";
import { contrast } from "../support/contrast.ts";
import { svgLogo } from "../support/images.ts";
import { listen } from "../support/listen.ts";

const ARTIFACTS = "test-artifacts";
const SERVICES = ["Website", "Checkout", "Search", "API", "CDN", "Email", "Docs", "Billing"];

describeBrowser("an outage leads the page, in Chromium", () => {
  let store: Store;
  let cleanup: () => Promise<void>;
  let browser: Browser;
  let api: { server: Server; origin: string };
  /** The same store served by a second app whose pages are in German (PORCHLIGHT_PAGE_LOCALE). */
  let german: { server: Server; origin: string };
  /** The server's fixed clock (it does not run): every page it renders was built then. */
  let serverNow = 0;
  let host: { server: Server; origin: string };

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    ({ store, cleanup } = await sqliteKind.open());
    // The browser reads real time, so the server's clock starts at real time too: every time shown is relative.
    const made = makeApp(store, { clock: new TestClock(new Date()), env: { PORCHLIGHT_VIEW_TTL_SECONDS: "300" } });
    const owner = await seedOwner(store, "stack");
    const call = client(made.app, owner.token);
    const now = made.clock.now();
    serverNow = now.getTime();
    const seeded = await seedStatusPage(
      call,
      store,
      now,
      "acme",
      { description: "Live status of Acme's services.", display: { historyDays: 90 } },
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
    const incidents = `/public/v1/status-pages/${seeded.id}/incidents`;
    const past = (
      await call.post(incidents, {
        title: "Slow logins",
        message: "Logins took seconds.",
        startedAt: new Date(now.getTime() - 3 * 86_400_000).toISOString(),
      })
    ).json.data;
    await call.post(`${incidents}/${past.id}/updates`, {
      status: "resolved",
      message: "A cache was cold; it is warm again.",
      at: new Date(now.getTime() - 3 * 86_400_000 + 40 * 60_000).toISOString(),
    });
    const items = await store.db
      .selectFrom("status_page_items")
      .select(["id", "label"])
      .where("page_id", "=", Number(seeded.id))
      .execute();
    await call.post(incidents, {
      title: "Checkout is down",
      items: items.filter((item) => item.label === "Checkout").map((item) => item.id),
      message: "Payments fail for every customer. We are working on it.",
      startedAt: new Date(now.getTime() - 25 * 60_000).toISOString(),
    });
    // The owner's logo heads the hosted page (issue 17, part 5).
    const logo = await made.app.request(`/public/v1/status-pages/${seeded.id}/logo`, {
      method: "PUT",
      headers: { authorization: `Bearer ${owner.token}`, "content-type": "image/svg+xml" },
      body: svgLogo() as Uint8Array<ArrayBuffer>,
    });
    expect(logo.status).toBe(200);
    made.recorded({ sites: seeded.ids, pagesChanged: true });
    api = await listen(made.listener);
    const inGerman = makeApp(store, {
      clock: made.clock,
      env: { PORCHLIGHT_VIEW_TTL_SECONDS: "300", PORCHLIGHT_PAGE_LOCALE: "de" },
    });
    german = await listen(inGerman.listener);
    host = await listen((req, res) => {
      const url = new URL(req.url ?? "/", "http://host");
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Host page</title>
<style>body{margin:0;padding:16px;font-family:Georgia,serif}</style></head>
<body><main><h1>Acme's own page</h1><script type="module" src="${api.origin}/embed/porchlight.js"></script>
<porchlight-status slug="acme" api-base="${api.origin}" ${url.searchParams.get("attrs") ?? ""}></porchlight-status>
</main></body></html>`);
    });
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => api?.server.close(resolve));
    await new Promise((resolve) => host?.server.close(resolve));
    await new Promise((resolve) => german?.server.close(resolve));
    await cleanup?.();
  });

  async function visit(url: string, options: { width?: number; colorScheme?: "light" | "dark" } = {}) {
    const requests: string[] = [];
    const context = await browser.newContext({
      // axe is added as an inline script, which the hosted page's CSP (rightly) refuses.
      bypassCSP: true,
      viewport: { width: options.width ?? 1280, height: 900 },
      colorScheme: options.colorScheme ?? "light",
      locale: "en-US",
    });
    // The browser's clock runs from 5 s after the server's: a page reads "updated 5 seconds ago" and is not due for a
    // refresh, however long the tests before took on a busy machine (an inlined page older than the refresh interval
    // is fetched again at once, rightly).
    await context.clock.install({ time: serverNow + 5000 });
    const page = await context.newPage();
    const errors = collectPageErrors(page);
    page.on("request", (request) => requests.push(request.url()));
    await page.goto(url);
    const inShadow = (selector: string) => page.locator("porchlight-status").locator(selector);
    await expect.poll(() => inShadow("[part~=banner]").count()).toBe(1);
    const banner = inShadow("[part~=banner]");
    const audit = () => axeViolations(page);
    /** The banner's text against its own background: at least 4.5:1. */
    const bannerContrast = async () => {
      const [color, background] = await banner.evaluate((el) => {
        const style = getComputedStyle(el);
        return [style.color, style.backgroundColor];
      });
      return contrast(color, background);
    };
    /** Headings and items in the order of the markup, the folded ones too. */
    const reading = async () =>
      (
        await page
          .locator("porchlight-status")
          .locator("h3, [part~=incident] :is(h4, h5), [part~=item] > div > span:first-child")
          .allTextContents()
      ).map((words) => words.trim());
    return { context, page, errors, requests, inShadow, banner, audit, bannerContrast, reading };
  }

  for (const colorScheme of ["light", "dark"] as const) {
    test(`the embed (${colorScheme}): a solid banner naming what is affected, the incident, then what is at fault`, async () => {
      const v = await visit(`${host.origin}/?attrs=theme%3Dauto`, { colorScheme });
      expect((await v.banner.innerText()).replace(/\s+/g, " ")).toBe(
        "Partial outage Major outage: Checkout Degraded: Search",
      );
      expect(await v.bannerContrast()).toBeGreaterThanOrEqual(4.5);
      expect(await v.banner.evaluate((el) => getComputedStyle(el).backgroundColor)).not.toBe("rgba(0, 0, 0, 0)");
      expect(await v.reading()).toEqual([
        "Active incidents",
        "Checkout is down",
        "Services",
        "Checkout",
        "Search",
        "Website",
        "API",
        "CDN",
        "Email",
        "Docs",
        "Billing",
        "Past incidents",
        "Slow logins",
      ]);
      // The incident names the service it affected.
      expect(
        (await v.inShadow("[part~=incident] p").allInnerTexts()).some((line) => line.startsWith("Affected: Checkout")),
      ).toBe(true);
      // The operational six behind one closed line: not shown until opened.
      const others = v.inShadow("[part~=others]");
      expect(await others.locator("summary").innerText()).toContain("Operational (6)");
      expect(await v.inShadow("[part~=others] [part~=item]").first().isVisible()).toBe(false);
      // Checkout's row is within the first screen of the box.
      const [row, box] = [
        await v.inShadow("[part~=item]").first().boundingBox(),
        await v.inShadow("[part~=base]").boundingBox(),
      ];
      expect((row?.y ?? 0) + (row?.height ?? 0)).toBeLessThanOrEqual((box?.y ?? 0) + (box?.height ?? 0));
      await v.inShadow("[part~=base]").screenshot({ path: `${ARTIFACTS}/outage-embed-${colorScheme}.png` });
      await others.locator("summary").click();
      await expect.poll(() => v.inShadow("[part~=others] [part~=item]").first().isVisible()).toBe(true);
      expect(await v.audit()).toEqual([]);
      expect(v.errors).toEqual([]);
      await v.context.close();
    });
  }

  test("compact at 375 px: the summary line, the incident and the down service without scrolling", async () => {
    const v = await visit(`${host.origin}/?attrs=compact`, { width: 375 });
    const base = v.inShadow("[part~=base]");
    const down = v.inShadow("[part~=item]").filter({ hasText: "Checkout" });
    const [row, box] = [await down.boundingBox(), await base.boundingBox()];
    expect((row?.y ?? 0) + (row?.height ?? 0)).toBeLessThanOrEqual((box?.y ?? 0) + (box?.height ?? 0));
    expect(await base.evaluate((el) => el.scrollTop)).toBe(0);
    // Compact leads with the services at fault, then the active incident.
    expect(await v.reading()).toEqual([
      // Read, not shown: the services have their heading for a screen reader's outline.
      "Services",
      "Checkout",
      "Search",
      "Website",
      "API",
      "CDN",
      "Email",
      "Docs",
      "Billing",
      "Active incidents",
      "Checkout is down",
    ]);
    expect(await v.inShadow("[part~=incident] ol").count()).toBe(0);
    await base.screenshot({ path: `${ARTIFACTS}/outage-compact-375.png` });
    expect(await v.audit()).toEqual([]);
    await v.context.close();
  });

  for (const shot of [
    { name: "light", width: 1280, colorScheme: "light" },
    { name: "dark", width: 1280, colorScheme: "dark" },
    { name: "375", width: 375, colorScheme: "light" },
  ] as const) {
    test(`the hosted page (${shot.name}): every service in order, the active incident above them`, async () => {
      const v = await visit(`${api.origin}/acme`, shot);
      await expect
        .poll(async () => (await v.banner.innerText()).replace(/\s+/g, " "))
        .toContain("Major outage: Checkout Degraded: Search");
      expect(await v.bannerContrast()).toBeGreaterThanOrEqual(4.5);
      expect(await v.reading()).toEqual([
        "Active incidents",
        "Checkout is down",
        "Services",
        ...SERVICES,
        "Past incidents",
        "Slow logins",
      ]);
      expect(await v.inShadow("[part~=others]").count()).toBe(0);
      // One type scale (steps of 1.2 from 15 px): 24 px the name, 18 px sections and banner, 15 px what is read, 13 px
      // what is secondary.
      const size = (selector: string) =>
        v
          .inShadow(selector)
          .first()
          .evaluate((e) => Math.round(Number.parseFloat(getComputedStyle(e).fontSize)));
      expect({
        name: await size("h2"),
        section: await size("h3"),
        banner: await size("[part~=banner]"),
        service: await size("[part~=item] div span"),
        incident: await size("[part~=incident] h4"),
        message: await size("[part~=incident] li p"),
        figure: await size("[part~=item] p"),
        day: await size("section > h4"),
      }).toEqual({ name: 24, section: 18, banner: 18, service: 15, incident: 15, message: 15, figure: 13, day: 13 });
      // The logo is drawn, 48 px tall, and the tab's icon is the orange of a partial outage (the banner's).
      const logo = v.page.locator("h1.logo img");
      await expect.poll(() => logo.evaluate((i: HTMLImageElement) => i.complete && i.naturalWidth)).toBeGreaterThan(0);
      expect((await logo.boundingBox())?.height).toBe(48);
      expect(await v.page.locator("link[rel=icon]").getAttribute("href")).toContain("%23bc4c00");
      // Nothing spills sideways.
      expect(await v.page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      await v.page.screenshot({ path: `${ARTIFACTS}/outage-hosted-${shot.name}.png`, fullPage: true });
      expect(await v.audit()).toEqual([]);
      expect(v.errors).toEqual([]);
      await v.context.close();
    });
  }

  test("the iframe form (?embed=1) leads the same way", async () => {
    const v = await visit(`${api.origin}/acme?embed=1`);
    expect((await v.reading()).slice(0, 3)).toEqual(["Active incidents", "Checkout is down", "Services"]);
    await expect
      .poll(async () => (await v.banner.innerText()).replace(/\s+/g, " "))
      .toContain("Major outage: Checkout Degraded: Search");
    await v.context.close();
  });

  test("the embed in German fetches its words once and names the affected services in German", async () => {
    const v = await visit(`${host.origin}/?attrs=locale%3Dde`);
    expect((await v.banner.innerText()).replace(/\s+/g, " ")).toBe(
      "Teilweiser Ausfall Schwerer Ausfall: Checkout Eingeschränkt: Search",
    );
    expect(await v.inShadow("h3").first().innerText()).toBe("Aktuelle Vorfälle");
    expect(await v.inShadow("[part~=base]").getAttribute("lang")).toBe("de");
    expect(v.requests.filter((url) => url.includes("/embed/words-"))).toEqual([`${api.origin}/embed/words-de.json`]);
    await v.inShadow("[part~=base]").screenshot({ path: `${ARTIFACTS}/outage-embed-de.png` });
    expect(v.errors).toEqual([]);
    await v.context.close();
  });

  test("a hosted page in German hydrates in German: its words come with it, no fetch, no second render", async () => {
    const v = await visit(`${german.origin}/acme`);
    await expect
      .poll(() =>
        v.page.evaluate(
          () => (document.querySelector("porchlight-status") as unknown as { hasUpdated: boolean }).hasUpdated,
        ),
      )
      .toBe(true);
    await expect.poll(() => v.inShadow("[part~=base] > p").first().innerText()).toMatch(/^Aktualisiert vor/);
    expect((await v.banner.innerText()).replace(/\s+/g, " ")).toBe(
      "Teilweiser Ausfall Schwerer Ausfall: Checkout Eingeschränkt: Search",
    );
    // One page, taken over: a mismatch would have drawn a second one beside the server's and thrown.
    expect(
      await v.page.evaluate(
        () => document.querySelector("porchlight-status")?.shadowRoot?.querySelectorAll("section").length,
      ),
    ).toBe(1);
    expect(v.requests.filter((url) => url.includes("/embed/words-"))).toEqual([]);
    expect(v.errors).toEqual([]);
    await v.context.close();
  });

  test("an embed is light unless asked, even for a visitor who prefers dark; theme=auto follows the visitor", async () => {
    const background = (v: Awaited<ReturnType<typeof visit>>) =>
      v.inShadow("[part~=base]").evaluate((el) => getComputedStyle(el).backgroundColor);
    const plain = await visit(`${host.origin}/`, { colorScheme: "dark" });
    expect(await background(plain)).toBe("rgb(255, 255, 255)");
    await plain.context.close();
    const auto = await visit(`${host.origin}/?attrs=theme%3Dauto`, { colorScheme: "dark" });
    expect(await background(auto)).toBe("rgb(13, 17, 23)");
    await auto.context.close();
  });

  test("one background per theme: the hosted page and its card share it, light and dark", async () => {
    for (const colorScheme of ["light", "dark"] as const) {
      const v = await visit(`${api.origin}/acme`, { colorScheme });
      const body = await v.page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      const card = await v.inShadow("[part~=base]").evaluate((el) => getComputedStyle(el).backgroundColor);
      expect(body).toBe(card);
      expect(body).toBe(colorScheme === "light" ? "rgb(255, 255, 255)" : "rgb(13, 17, 23)");
      await v.context.close();
    }
  });

  test("transparent=1 is transparent: no background and no card, the text readable on a light site, dark visitor too", async () => {
    const v = await visit(`${api.origin}/acme?embed=1&transparent=1`, { colorScheme: "dark" });
    // Light unless the page says dark: dark text, for the light site around it.
    expect(await v.inShadow("h2").evaluate((el) => getComputedStyle(el).color)).toBe("rgb(31, 35, 40)");
    const base = v.inShadow("[part~=base]");
    expect(await base.evaluate((el) => getComputedStyle(el).backgroundColor)).toBe("rgba(0, 0, 0, 0)");
    expect(await base.evaluate((el) => getComputedStyle(el).borderTopWidth)).toBe("0px");
    expect(await v.page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe("rgba(0, 0, 0, 0)");
    expect(await v.bannerContrast()).toBeGreaterThanOrEqual(4.5);
    // Seen over a host's coloured page: the iframe shows it through.
    await v.page.evaluate(() => {
      document.documentElement.style.background = "#f6e7c8";
    });
    await v.page.screenshot({ path: `${ARTIFACTS}/outage-iframe-transparent.png` });
    await v.context.close();
  });
});
