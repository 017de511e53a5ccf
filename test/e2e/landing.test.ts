import { mkdirSync } from "node:fs";
import type { Server } from "node:http";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, expect, test } from "vitest";
import { BADGE_METRICS, BADGE_STYLES, ShieldsEndpoint } from "../../server/contract/badge.ts";
import type { Store } from "../../server/store/store.ts";
import { client, makeApp, seedOwner, seedStatusPage, sqliteKind } from "../helpers.ts";
import { axeViolations, collectPageErrors, describeBrowser, launchChromium } from "../support/browser.ts";
import { listen } from "../support/listen.ts";

/** Screenshots a reviewer looks at (not compared): the landing page in both themes at two widths, and the badges. */
const ARTIFACTS = "test-artifacts";
const PASSWORD = "a long enough password";
/** The narrowest phone a visitor is likely to use. */
const PHONE = 375;
/** A long name, as real ones are: it must wrap at 375 px, not push the page sideways. */
const GLOBEX = "Globex Payments, Europe, Middle East and Africa";

const close = (server: Server | undefined) =>
  new Promise((resolve) => {
    server?.closeAllConnections();
    server?.close(resolve);
  });

/** A store and a listening app over it; the app's clock is the fixed TestClock, so nothing here reads today. */
async function serve() {
  const { store, cleanup } = await sqliteKind.open();
  const made = makeApp(store);
  const call = client(made.app, (await seedOwner(store)).token);
  const http = await listen(made.listener);
  return { store, made, call, ...http, cleanup };
}

describeBrowser("the landing page and the badges, in Chromium", () => {
  let browser: Browser;
  /** Two public pages (acme: two items, healthy; globex: one item), one private and one password page. */
  let full: Awaited<ReturnType<typeof serve>>;
  /** Only a private and a password page: nothing public to list. */
  let empty: Awaited<ReturnType<typeof serve>>;
  /** Serves the badge sheet, from an origin of its own as a README would. */
  let sheet: { server: Server; origin: string };
  let sheetHtml = "";
  let acmeItems: { id: number; label: string; siteId: string }[] = [];
  let globexItems: { id: number; label: string; siteId: string }[] = [];

  const items = async (call: ReturnType<typeof client>, pageId: string) =>
    (await call.get(`/public/v1/status-pages/${pageId}`)).json.data.items as {
      id: number;
      label: string;
      siteId: string;
    }[];

  /** Sites made healthy or down as the engine leaves them, then the app told, as the engine tells it. */
  const setState = async (store: Store, made: ReturnType<typeof makeApp>, siteIds: string[], state: string) => {
    await store.db
      .updateTable("sites")
      .set({ state, last_check_time: made.clock.now().toISOString(), last_response_ms: 182 })
      .where("id", "in", siteIds)
      .execute();
    made.recorded({ sites: siteIds, pagesChanged: true });
  };

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    full = await serve();
    const now = full.made.clock.now();
    const page = (slug: string, extra: Record<string, unknown>, labels: string[]) =>
      seedStatusPage(full.call, full.store, now, slug, extra, labels);
    const acme = await page("acme", { name: "Acme Cloud" }, ["Website", "API"]);
    const globex = await page("globex-payments-emea", { name: GLOBEX }, ["Checkout"]);
    await page("initech", { name: "Initech Intranet", visibility: "private" }, ["Wiki"]);
    await page("umbrella", { name: "Umbrella Labs", visibility: "password", password: PASSWORD }, ["Lab"]);
    acmeItems = await items(full.call, acme.id);
    globexItems = await items(full.call, globex.id);
    await setState(full.store, full.made, [...acme.ids, ...globex.ids], "healthy");

    empty = await serve();
    await seedStatusPage(empty.call, empty.store, now, "initech", { visibility: "private" }, ["Wiki"]);
    await seedStatusPage(empty.call, empty.store, now, "umbrella", { visibility: "password", password: PASSWORD }, [
      "Lab",
    ]);

    sheet = await listen((_req, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(sheetHtml);
    });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await close(sheet?.server);
    for (const served of [full, empty]) {
      await close(served?.server);
      await served?.cleanup();
    }
  });

  /** A fresh visitor at `width`, in `scheme`: console errors and CSP violations collected. */
  async function visit(url: string, options: { width?: number; scheme?: "light" | "dark" } = {}) {
    const context: BrowserContext = await browser.newContext({
      viewport: { width: options.width ?? 1280, height: 800 },
      colorScheme: options.scheme ?? "light",
    });
    const page = await context.newPage();
    const errors = collectPageErrors(page);
    await page.addInitScript(() => {
      document.addEventListener("securitypolicyviolation", (event) => {
        console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`);
      });
    });
    const response = await page.goto(url);
    const audit = () => axeViolations(page);
    return { context, page, response, errors, audit };
  }

  const scrollWidth = (page: Page) => page.evaluate(() => document.scrollingElement?.scrollWidth ?? 0);
  const background = (page: Page) => page.evaluate(() => getComputedStyle(document.body).backgroundColor);

  test("lists the public pages only, each a link to its hosted page, in light and dark at 1280 and 375 px", async () => {
    const shots = [
      { width: 1280, scheme: "light", file: "landing-light.png", body: "rgb(255, 255, 255)" },
      { width: 1280, scheme: "dark", file: "landing-dark.png", body: "rgb(13, 17, 23)" },
      { width: PHONE, scheme: "light", file: "landing-375-light.png", body: "rgb(255, 255, 255)" },
      { width: PHONE, scheme: "dark", file: "landing-375-dark.png", body: "rgb(13, 17, 23)" },
    ] as const;
    for (const shot of shots) {
      const v = await visit(`${full.origin}/status`, shot);
      const what = `${shot.width} px ${shot.scheme}`;
      expect(v.response?.status(), what).toBe(200);
      expect(await v.page.title()).toBe("Porchlight");
      expect(await v.page.locator("h1").innerText()).toBe("Porchlight");
      // The system's theme is followed: a dark visitor gets the dark background.
      expect(await background(v.page), what).toBe(shot.body);
      const pages = v.page.locator("#pages + ul a");
      expect(await pages.allInnerTexts(), what).toEqual(["Acme Cloud", GLOBEX]);
      expect(await pages.evaluateAll((links) => links.map((a) => a.getAttribute("href")))).toEqual([
        "/acme",
        "/globex-payments-emea",
      ]);
      const text = await v.page.locator("body").innerText();
      for (const hidden of ["Initech", "initech", "Umbrella", "umbrella"]) expect(text, what).not.toContain(hidden);
      expect(await v.page.locator("a[href*='initech'], a[href*='umbrella']").count()).toBe(0);
      if (shot.width === PHONE) expect(await scrollWidth(v.page), what).toBeLessThanOrEqual(PHONE);
      expect(await v.audit(), what).toEqual([]);
      await v.page.screenshot({ path: `${ARTIFACTS}/${shot.file}`, fullPage: true });
      expect(v.errors, what).toEqual([]);
      await v.context.close();
    }
  });

  test("its links lead somewhere: a public page's hosted page, the API reference and the OpenAPI document", async () => {
    const v = await visit(`${full.origin}/status`);
    // The keyboard reaches the first page's row, and its focus ring is drawn around the whole row.
    await v.page.keyboard.press("Tab");
    expect(await v.page.evaluate(() => document.activeElement?.textContent)).toBe("Acme Cloud");
    const ring = await v.page.evaluate(() => {
      const focused = document.activeElement as Element;
      return getComputedStyle(focused, "::before").outlineStyle;
    });
    expect(ring).toBe("solid");
    // The whole row is the link: a click by its arrow, far from the name, goes to the page too.
    const acmeRow = v.page.locator("#pages + ul li").first();
    const box = (await acmeRow.boundingBox()) as { width: number; height: number };
    await acmeRow.click({ position: { x: box.width - 12, y: box.height - 8 } });
    await v.page.waitForURL(`${full.origin}/acme`);
    await v.page.goBack();
    const hosted = v.page.waitForResponse(`${full.origin}/globex-payments-emea`);
    await v.page.getByRole("link", { name: GLOBEX }).click();
    const answer = await hosted;
    expect(answer.status()).toBe(200);
    expect(answer.headers()["content-type"]).toMatch(/^text\/html/);
    await v.page.waitForURL(`${full.origin}/globex-payments-emea`);
    expect(await v.page.title()).toContain(GLOBEX);
    // The hosted page renders its element's shadow root on the server (declarative shadow DOM).
    const element = v.page.locator("porchlight-status");
    expect(await element.locator("h2").innerText()).toBe(GLOBEX);
    expect(await element.locator("[part~=item]").allInnerTexts()).toEqual([expect.stringContaining("Checkout")]);

    await v.page.goBack();
    const docs = v.page.waitForResponse(`${full.origin}/docs/api/reference/`);
    await v.page.getByRole("link", { name: "API reference" }).click();
    expect((await docs).status()).toBe(200);
    await v.page.waitForURL(`${full.origin}/docs/api/reference/`);
    expect(await v.page.title()).toContain("Porchlight");

    await v.page.goBack();
    const site = v.page.waitForResponse(`${full.origin}/docs/`);
    await v.page.getByRole("link", { name: "Documentation" }).click();
    expect((await site).status()).toBe(200);
    await v.page.waitForURL(`${full.origin}/docs/`);
    expect(await v.page.title()).toContain("Porchlight");

    await v.page.goto(`${full.origin}/status`);
    const openapi = v.page.waitForResponse(`${full.origin}/public/v1/openapi.json`);
    await v.page.getByRole("link", { name: "OpenAPI document" }).click();
    const described = await openapi;
    expect(described.status()).toBe(200);
    expect((await described.json()).openapi).toMatch(/^3\.1\./);

    expect(v.errors).toEqual([]);
    await v.context.close();
  });

  test("with no public page, it says so and what to do, rather than showing an empty list", async () => {
    const shots = [
      { width: 1280, scheme: "light", file: "landing-empty.png" },
      { width: PHONE, scheme: "dark", file: "landing-empty-375-dark.png" },
    ] as const;
    for (const shot of shots) {
      const v = await visit(`${empty.origin}/status`, shot);
      const what = `${shot.width} px ${shot.scheme}`;
      expect(v.response?.status(), what).toBe(200);
      const section = await v.page.locator("#pages + *").innerText();
      expect(section, what).toContain("No public status pages yet.");
      // What to do about it: the route that makes a page, and where the API is described.
      expect(section, what).toContain("POST /public/v1/status-pages");
      expect(await v.page.locator("#pages + * a[href='/docs/api/reference/']").innerText(), what).toBe("API reference");
      expect(await v.page.locator("#pages + ul").count(), what).toBe(0);
      const text = await v.page.locator("body").innerText();
      for (const hidden of ["initech", "umbrella"]) expect(text.toLowerCase(), what).not.toContain(hidden);
      if (shot.width === PHONE) expect(await scrollWidth(v.page), what).toBeLessThanOrEqual(PHONE);
      expect(await v.audit(), what).toEqual([]);
      await v.page.screenshot({ path: `${ARTIFACTS}/${shot.file}`, fullPage: true });
      expect(v.errors, what).toEqual([]);
      await v.context.close();
    }
  });

  /** Every badge of the acme page and of its first item, in each style; and of globex and its item. */
  function badgeAddresses(slug: string, itemId: number) {
    const bases = [`/badge/${slug}`, `/badge/${slug}/${itemId}`];
    return bases.flatMap((base) => BADGE_METRICS.map((metric) => `${base}/${metric}`));
  }

  /** A sheet of badges as <img>, one row per badge, one column per style, on a light and on a dark panel. */
  function badgeSheet(title: string, rows: string[]): string {
    const styles = [undefined, ...BADGE_STYLES.filter((s) => s !== "flat")];
    const head = `<tr><th>badge</th>${styles.map((s) => `<th>${s ?? "default"}</th>`).join("")}</tr>`;
    const table = rows
      .map(
        (row) =>
          `<tr><th><code>${row}</code></th>${styles
            .map(
              (s) =>
                `<td><img alt="" src="${full.origin}${row}.svg${s ? `?style=${s}` : ""}" data-path="${row}" data-style="${s ?? ""}"></td>`,
            )
            .join("")}</tr>`,
      )
      .join("");
    const panel = (theme: string) =>
      `<section class="${theme}"><h2>${theme} background</h2><table>${head}${table}</table></section>`;
    return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title><style>
body{margin:0;width:max-content;min-width:100%;font:14px/1.4 system-ui,sans-serif}th code{white-space:nowrap}section{padding:16px 24px}h2{margin:0 0 8px;font-size:16px}
.light{background:#fff;color:#1f2328}.dark{background:#0d1117;color:#e6edf3}
th,td{padding:6px 10px;text-align:left;vertical-align:middle}th{font-weight:600}img{display:block}
</style></head><body><h1 style="margin:16px 24px;font-size:20px">${title}</h1>${panel("light")}${panel("dark")}</body></html>`;
  }

  /** Every <img> loaded, and each SVG says in its text what the JSON variant of the same badge says. */
  async function checkSheet(page: Page, rows: string[]) {
    const images = page.locator("img");
    expect(await images.count()).toBe(rows.length * BADGE_STYLES.length * 2);
    await expect
      .poll(() => images.evaluateAll((all) => all.filter((img) => !(img as HTMLImageElement).complete).length), {
        timeout: 15_000,
      })
      .toBe(0);
    const broken = await images.evaluateAll((all) =>
      all.filter((img) => (img as HTMLImageElement).naturalWidth === 0).map((img) => (img as HTMLImageElement).src),
    );
    expect(broken).toEqual([]);
    const said: Record<string, { label: string; message: string; color: string }> = {};
    for (const row of rows) {
      for (const style of [undefined, ...BADGE_STYLES]) {
        const query = style ? `?style=${style}` : "";
        const json = ShieldsEndpoint.parse(await (await fetch(`${full.origin}${row}.json${query}`)).json());
        const svgAnswer = await fetch(`${full.origin}${row}.svg${query}`);
        expect(svgAnswer.status, row).toBe(200);
        const svg = await svgAnswer.text();
        // badge-maker writes for-the-badge in capitals and starts social's label with one, as shields.io does:
        // the words are compared without case.
        const words = `${json.label}: ${json.message}`.toLowerCase();
        expect(/<title>([^<]*)<\/title>/.exec(svg)?.[1]?.toLowerCase(), `${row} ${style}`).toBe(words);
        expect(/aria-label="([^"]*)"/.exec(svg)?.[1]?.toLowerCase(), `${row} ${style}`).toBe(words);
        // What is drawn, not only what is said to a screen reader.
        const drawn = [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]?.toLowerCase());
        expect(drawn, `${row} ${style}`).toEqual(
          expect.arrayContaining([json.label?.toLowerCase(), json.message.toLowerCase()]),
        );
        said[row] = { label: json.label ?? "", message: json.message, color: json.color ?? "" };
      }
    }
    return said;
  }

  test("the badges render as images on light and dark, and each says what its JSON says", async () => {
    const acmeItem = acmeItems[0] as { id: number };
    const rows = badgeAddresses("acme", acmeItem.id);
    sheetHtml = badgeSheet("Acme Cloud badges", rows);
    const v = await visit(`${sheet.origin}/status`, { width: 1280 });
    const said = await checkSheet(v.page, rows);
    expect(said["/badge/acme/status"]).toEqual({ label: "Acme Cloud", message: "operational", color: "brightgreen" });
    expect(said[`/badge/acme/${acmeItem.id}/status`]).toMatchObject({ label: "Website", message: "operational" });
    expect(said["/badge/acme/uptime"]?.message).toMatch(/^\d+(\.\d+)?%$/);
    expect(said[`/badge/acme/${acmeItem.id}/response-time`]).toMatchObject({ message: "182 ms" });
    await v.page.screenshot({ path: `${ARTIFACTS}/badges.png`, fullPage: true });
    expect(v.errors).toEqual([]);
    await v.context.close();
  });

  test("an outage: the item's badge reads major outage in red, and its page's major outage", async () => {
    const item = globexItems[0] as { id: number; siteId: string };
    await setState(full.store, full.made, [item.siteId], "unhealthy");
    const rows = badgeAddresses("globex-payments-emea", item.id);
    sheetHtml = badgeSheet(`${GLOBEX} badges, in an outage`, rows);
    const v = await visit(`${sheet.origin}/status`, { width: 1280 });
    const said = await checkSheet(v.page, rows);
    expect(said[`/badge/globex-payments-emea/${item.id}/status`]).toEqual({
      label: "Checkout",
      message: "major outage",
      color: "red",
    });
    expect(said["/badge/globex-payments-emea/status"]).toEqual({
      label: GLOBEX,
      message: "major outage",
      color: "red",
    });
    await v.page.screenshot({ path: `${ARTIFACTS}/badges-outage.png`, fullPage: true });
    expect(v.errors).toEqual([]);
    await v.context.close();
  });
});
