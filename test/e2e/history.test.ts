import { mkdirSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import axe from "axe-core";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { PublicItem, PublicStatusPage } from "../../server/contract/status-page.ts";
import { EMBED_DIR } from "../../server/views/embed-assets.ts";
import { describeBrowser, launchChromium } from "../support/browser.ts";

/** Screenshots a reviewer can look at (not compared): the daily bars with a day's tooltip, and an outage. */
const ARTIFACTS = "test-artifacts";
const DAY = 86_400_000;
const isoDay = (daysAgo: number) => new Date(Date.now() - daysAgo * DAY).toISOString().slice(0, 10);
/** The axis: the first and last days' dates, as the element writes them in `locale`. */
const axis = (from: number, locale = "en") => {
  const day = new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeZone: "UTC" });
  const [first, last] = [from, 0].map((d) => day.format(new Date(isoDay(d))));
  return `${first}${last}`;
};
const axisText = (text: string) => text.replace(/\s+/g, "");

/** 90 days of uptime, oldest first; `undefined` days have no data (the API leaves them out). */
function history(uptimes: (number | undefined)[]): PublicItem["history"] {
  return uptimes.flatMap((uptime, i) => (uptime === undefined ? [] : [{ date: isoDay(89 - i), uptime }]));
}
const days = (make: (daysAgo: number) => number | undefined) => Array.from({ length: 90 }, (_, i) => make(89 - i));

function item(id: number, label: string, status: PublicItem["status"], uptimes: (number | undefined)[]): PublicItem {
  return {
    id,
    label,
    type: "website",
    status,
    uptime: 99.1,
    response_time: 182,
    last_check: new Date(Date.now() - 60_000).toISOString(),
    history: history(uptimes),
  };
}

const base = (items: PublicItem[], incidents: PublicStatusPage["incidents"] = []): PublicStatusPage => ({
  name: "Acme Status",
  slug: "acme",
  description: "Everything Acme runs.",
  visibility: "public",
  custom_domain: null,
  theme: { mode: "auto", accentColor: "#2563eb" },
  display: { historyDays: 90, showUptime: true, showResponseTime: true, showIncidents: true },
  items,
  incidents,
});

const PAGES: Record<string, PublicStatusPage> = {
  // Monitoring started 70 days ago; a bad day 3 days ago, a degraded one 12 days ago, a day without data 40 days ago.
  acme: base([
    item(
      1,
      "Shop",
      "operational",
      days((d) => (d > 69 || d === 40 ? undefined : d === 3 ? 82.4 : d === 12 ? 97.1 : 100)),
    ),
    item(
      2,
      "Checkout",
      "operational",
      days((d) => (d === 5 ? 96.5 : d === 33 ? 91 : 99.9)),
    ),
    item(
      3,
      "Search",
      "operational",
      days(() => 100),
    ),
  ]),
  down: base(
    [
      item(
        1,
        "Shop",
        "outage",
        days((d) => (d === 0 ? 62.5 : d === 1 ? 98.2 : 100)),
      ),
      item(
        2,
        "Checkout",
        "degraded",
        days((d) => (d === 0 ? 97.3 : 100)),
      ),
    ],
    [
      {
        id: 1,
        title: "Shop unreachable",
        status: "investigating",
        started_at: new Date(Date.now() - 95 * 60_000).toISOString(),
        resolved_at: null,
        updates: [
          {
            status: "investigating",
            message: "The shop answers 503.",
            timestamp: new Date(Date.now() - 90 * 60_000).toISOString(),
          },
        ],
      },
    ] as PublicStatusPage["incidents"],
  ),
};

describeBrowser("the daily bars people can read, in Chromium", () => {
  let browser: Browser;
  let server: Server;
  let origin: string;

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    const script = readFileSync(join(EMBED_DIR, "porchlight.js"));
    server = createServer((req, res) => {
      const url = new URL(req.url ?? "/", "http://host");
      const slug = /^\/public\/v1\/status-page\/(\w+)$/.exec(url.pathname)?.[1];
      if (slug) {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(PAGES[slug]));
      } else if (url.pathname === "/porchlight.js") {
        res.writeHead(200, { "content-type": "text/javascript" });
        res.end(script);
      } else if (/^\/embed\/words-[a-z]+\.json$/.test(url.pathname)) {
        // The other languages' words, which the script fetches from where it came from.
        res.writeHead(200, { "content-type": "application/json" });
        res.end(readFileSync(join(EMBED_DIR, url.pathname.slice("/embed/".length))));
      } else {
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
        res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Bars</title>
<style>body { margin: 8px; }</style></head><body><main><h1>Status</h1>
<script type="module" src="/porchlight.js"></script>
<porchlight-status slug="${url.searchParams.get("slug") ?? "acme"}" ${url.searchParams.get("attrs") ?? ""}></porchlight-status>
</main></body></html>`);
      }
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  async function visit(query: string, width = 900) {
    const context = await browser.newContext({ viewport: { width, height: 900 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(String(error)));
    page.on("console", (m) => (m.type() === "error" ? errors.push(m.text()) : undefined));
    await page.goto(`${origin}/?${query}`);
    const inShadow = (selector: string) => page.locator("porchlight-status").locator(selector);
    await expect.poll(() => inShadow("[part~=history] li").count()).toBeGreaterThan(0);
    const tip = inShadow(".tip");
    const audit = async () => {
      await page.addScriptTag({ content: axe.source });
      const result = await page.evaluate(() =>
        (window as unknown as { axe: typeof axe }).axe.run(document, { resultTypes: ["violations"] }),
      );
      return result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
    };
    return { context, page, errors, inShadow, tip, audit };
  }

  /** The tip sits over its day: centred on it unless an edge is near, and above it. */
  async function tipOver(v: Awaited<ReturnType<typeof visit>>, day: ReturnType<typeof v.inShadow>) {
    const [d, t] = [await day.boundingBox(), await v.tip.boundingBox()];
    if (!d || !t) throw new Error("no box");
    expect(t.y + t.height).toBeLessThanOrEqual(d.y);
    expect(d.y - (t.y + t.height)).toBeLessThan(10);
    expect(t.x).toBeLessThanOrEqual(d.x + d.width);
    expect(t.x + t.width).toBeGreaterThanOrEqual(d.x);
  }

  for (const theme of ["light", "dark"] as const) {
    test(`hovering a day shows its date and uptime (${theme}), named after its service, with the axis`, async () => {
      const v = await visit(`attrs=theme%3D${theme}`);
      const shop = v.inShadow("[part~=history]").first();
      expect(await shop.getAttribute("aria-label")).toBe("Shop: daily uptime, 90 days");
      const words = await v.inShadow("[part~=item]").first().locator(".axis").innerText();
      expect(axisText(words)).toBe(axisText(axis(89)));
      await expect.poll(() => v.tip.isVisible()).toBe(false);
      const bad = shop.locator("li").nth(86);
      const label = await bad.getAttribute("aria-label");
      expect(label).toMatch(/: 82\.4% uptime$/);
      await bad.hover();
      await expect.poll(() => v.tip.isVisible()).toBe(true);
      expect(await v.tip.innerText()).toBe(label);
      await tipOver(v, bad);
      await v.inShadow("[part~=base]").screenshot({ path: `${ARTIFACTS}/history-tooltip-${theme}.png` });
      // A day without data is fainter than one with: nearer the background.
      const colours = await shop.evaluate((list) =>
        [list.children[0], list.children[89]].map((li) => getComputedStyle(li as Element).backgroundColor),
      );
      expect(colours[0]).not.toBe(colours[1]);
      await v.page.mouse.move(0, 0);
      await expect.poll(() => v.tip.isVisible()).toBe(false);
      expect(await v.audit()).toEqual([]);
      expect(v.errors).toEqual([]);
      await v.context.close();
    });
  }

  test("keyboard focus shows the tooltip, and it follows the arrow keys", async () => {
    const v = await visit("");
    const today = v.inShadow("[part~=history]").first().locator("li").last();
    await today.focus();
    await expect.poll(() => v.tip.isVisible()).toBe(true);
    expect(await v.tip.innerText()).toBe(await today.getAttribute("aria-label"));
    await v.page.keyboard.press("ArrowLeft");
    await v.page.keyboard.press("ArrowLeft");
    await v.page.keyboard.press("ArrowLeft");
    const focused = v.inShadow("[part~=history]").first().locator("li").nth(86);
    expect(await v.tip.innerText()).toBe(await focused.getAttribute("aria-label"));
    expect(await v.tip.innerText()).toMatch(/82\.4% uptime$/);
    await tipOver(v, focused);
    // Escape dismisses it without moving the focus (WCAG 1.4.13); the next day shows it again.
    await v.page.keyboard.press("Escape");
    await expect.poll(() => v.tip.isVisible()).toBe(false);
    expect(await focused.evaluate((el) => el.matches(":focus"))).toBe(true);
    await v.page.keyboard.press("ArrowRight");
    await v.page.keyboard.press("ArrowLeft");
    await expect.poll(() => v.tip.isVisible()).toBe(true);
    expect(await v.tip.innerText()).toBe(await focused.getAttribute("aria-label"));
    // The next Tab goes to the next service's today, and so does the tip; leaving the bars hides it.
    await v.page.keyboard.press("Tab");
    expect(await v.tip.innerText()).toBe(
      await v.inShadow("[part~=history]").nth(1).locator("li").last().getAttribute("aria-label"),
    );
    await v.page.keyboard.press("Shift+Tab");
    await v.page.keyboard.press("Shift+Tab");
    await expect.poll(() => v.tip.isVisible()).toBe(false);
    await v.context.close();
  });

  test("at 375 px: the last 30 days, wider bars, Home stops at the oldest shown", async () => {
    const v = await visit("", 375);
    const shop = v.inShadow("[part~=history]").first();
    const shown = await shop.evaluate(
      (list) => [...list.children].filter((li) => getComputedStyle(li).display !== "none").length,
    );
    expect(shown).toBe(30);
    const width = (await shop.locator("li").last().boundingBox())?.width ?? 0;
    expect(width).toBeGreaterThan(8);
    expect(axisText(await v.inShadow("[part~=item]").first().locator(".axis").innerText())).toBe(axisText(axis(29)));
    const today = shop.locator("li").last();
    await today.focus();
    await v.page.keyboard.press("Home");
    expect(await v.tip.innerText()).toBe(await shop.locator("li").nth(60).getAttribute("aria-label"));
    await shop.locator("li").nth(86).hover();
    await expect.poll(() => v.tip.isVisible()).toBe(true);
    await tipOver(v, shop.locator("li").nth(86));
    // The tip stays inside the box.
    const [t, box] = [await v.tip.boundingBox(), await v.inShadow("[part~=base]").boundingBox()];
    expect(t && box && t.x >= box.x && t.x + t.width <= box.x + box.width).toBe(true);
    await v.page.screenshot({ path: `${ARTIFACTS}/history-tooltip-375.png` });
    expect(await v.audit()).toEqual([]);
    await v.context.close();
  });

  test("an outage page: today's red bar, its tooltip, in light and dark", async () => {
    for (const theme of ["light", "dark"]) {
      const v = await visit(`slug=down&attrs=theme%3D${theme}`);
      const today = v.inShadow("[part~=history]").first().locator("li").last();
      await today.hover();
      await expect.poll(() => v.tip.isVisible()).toBe(true);
      expect(await v.tip.innerText()).toMatch(/62\.5% uptime$/);
      await v.inShadow("[part~=base]").screenshot({ path: `${ARTIFACTS}/history-outage-${theme}.png` });
      expect(await v.audit()).toEqual([]);
      await v.context.close();
    }
  });

  test("the axis dates in German and Hebrew, through Intl", async () => {
    for (const locale of ["de", "he"]) {
      const v = await visit(`attrs=locale%3D${locale}`);
      const words = await v.inShadow("[part~=item]").first().locator(".axis").innerText();
      expect(axisText(words)).toBe(axisText(axis(89, locale)));
      // The words too, fetched from the server: the bars' list is named in the page's language.
      expect(await v.inShadow("[part~=history]").first().getAttribute("aria-label")).toMatch(
        locale === "de" ? /: tägliche Verfügbarkeit, 90 Tage$/ : /: זמינות יומית, 90 ימים$/,
      );
      await v.context.close();
    }
  });
});
