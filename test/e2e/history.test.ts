import { mkdirSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { PublicItem, PublicStatusPage } from "../../server/contract/status-page.ts";
import { EMBED_DIR } from "../../server/views/embed-assets.ts";
import { axeViolations, describeBrowser, launchChromium } from "../support/browser.ts";

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
  // Minutes down as the engine would have measured them over a whole day.
  return uptimes.flatMap((uptime, i) =>
    uptime === undefined ? [] : [{ date: isoDay(89 - i), uptime, downtime_minutes: Math.round((100 - uptime) * 14.4) }],
  );
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
  logo: null,
  favicon: null,
  theme: { mode: "auto", accentColor: "#2563eb" },
  display: { historyDays: 90, showUptime: true, showResponseTime: true, showIncidents: true },
  items,
  incidents,
  maintenance: [],
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
        "major_outage",
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
    await expect.poll(() => inShadow("[part~=history] i").count()).toBeGreaterThan(0);
    const tip = inShadow(".tip");
    const audit = () => axeViolations(page);
    return { context, page, errors, inShadow, tip, audit };
  }

  type Visit = Awaited<ReturnType<typeof visit>>;
  type Located = ReturnType<Visit["inShadow"]>;

  /**
   * Where day `at` (0 the oldest of 90, 89 today) is drawn in a list of bars showing its last `shown` days, left to
   * right: its centre, and the bars' top.
   */
  async function dayAt(history: Located, at: number, shown = 90) {
    const box = await history.boundingBox();
    if (!box) throw new Error("no box");
    const width = box.width / shown;
    return { x: box.x + (at - (90 - shown) + 0.5) * width, y: box.y + box.height / 2, top: box.y, width };
  }

  /** The tip sits over its day: over its centre (unless an edge is near, it is centred), touching the bars' top. */
  async function tipOver(v: Visit, day: { x: number; top: number }) {
    const t = await v.tip.boundingBox();
    if (!t) throw new Error("no box");
    expect(t.y + t.height).toBeLessThanOrEqual(day.top + 0.5);
    expect(day.top - (t.y + t.height)).toBeLessThan(2);
    expect(t.x).toBeLessThanOrEqual(day.x);
    expect(t.x + t.width).toBeGreaterThanOrEqual(day.x);
  }

  /** The slider's value and value text, as assistive technology reads them. */
  const value = async (history: Located) => [
    await history.getAttribute("aria-valuenow"),
    await history.getAttribute("aria-valuetext"),
  ];

  for (const theme of ["light", "dark"] as const) {
    test(`hovering a day shows its date and uptime (${theme}), named after its service, with the axis`, async () => {
      const v = await visit(`attrs=theme%3D${theme}`);
      const shop = v.inShadow("[part~=history]").first();
      expect(await shop.getAttribute("aria-label")).toBe("Shop: daily uptime, 90 days");
      expect(await shop.getAttribute("role")).toBe("slider");
      // The axis begins at Shop's first day with data, 69 days ago.
      const words = await v.inShadow("[part~=item]").first().locator(".axis").innerText();
      expect(axisText(words)).toBe(axisText(axis(69)));
      await expect.poll(() => v.tip.isVisible()).toBe(false);
      // A handful of bars, not 90, from the first day with data (none drawn before it): 100% (29), no data (1),
      // 100% (27), 97.1% (1, 95% and up), 100% (8), 82.4% (1, 75% and up), 100% (3).
      const runs = await shop.evaluate((list) =>
        [...list.children].map((bar) => `${bar.className} ${(bar as HTMLElement).style.getPropertyValue("--d")}`),
      );
      expect(runs).toEqual(["ok 29", "none 1", "ok 27", "g2 1", "ok 8", "g3 1", "ok 3"]);
      const bad = await dayAt(shop, 86);
      await v.page.mouse.move(bad.x, bad.y);
      await expect.poll(() => v.tip.isVisible()).toBe(true);
      const day = new Intl.DateTimeFormat("en", { dateStyle: "medium", timeZone: "UTC" }).format(new Date(isoDay(3)));
      // Its date, its uptime to two decimals, and its time down (the engine's minutes: 17.6% of the day here).
      expect(await v.tip.innerText()).toMatch(new RegExp(`^${day}\\n82\\.40% uptime\\n4\\shours 13\\sminutes down$`));
      expect(await value(shop)).toEqual(["86", await v.tip.innerText()]);
      await tipOver(v, bad);
      // The neighbours either side are their own days.
      await v.page.mouse.move(bad.x + bad.width, bad.y);
      expect(await v.tip.innerText()).toMatch(/\n100% uptime\nNo downtime$/);
      await v.page.mouse.move(bad.x, bad.y);
      await v.inShadow("[part~=base]").screenshot({ path: `${ARTIFACTS}/history-tooltip-${theme}.png` });
      // A day without data is fainter than one with: nearer the background.
      const colours = await shop.evaluate((list) =>
        [list.children[0], list.children[1]].map((bar) => getComputedStyle(bar as Element).color),
      );
      expect(colours[0]).not.toBe(colours[1]);
      // The tooltip can be hovered (WCAG 1.4.13): the pointer moved up onto it keeps it; moved off it, it goes.
      const t = await v.tip.boundingBox();
      if (!t) throw new Error("no tip");
      await v.page.mouse.move(bad.x, t.y + t.height - 2, { steps: 4 });
      await v.page.waitForTimeout(100);
      expect(await v.tip.isVisible()).toBe(true);
      await v.page.mouse.move(bad.x, t.y - 40, { steps: 4 });
      await expect.poll(() => v.tip.isVisible()).toBe(false);
      // Escape dismisses it while the pointer stays on the bars and the focus is on the host page.
      await v.page.mouse.move(bad.x, bad.y);
      await expect.poll(() => v.tip.isVisible()).toBe(true);
      await v.page.keyboard.press("Escape");
      await expect.poll(() => v.tip.isVisible()).toBe(false);
      await v.page.mouse.move(0, 0);
      expect(await v.audit()).toEqual([]);
      expect(v.errors).toEqual([]);
      await v.context.close();
    });
  }

  test("keyboard focus shows the tooltip, and it follows the arrow keys", async () => {
    const v = await visit("");
    const shop = v.inShadow("[part~=history]").first();
    await shop.focus();
    await expect.poll(() => v.tip.isVisible()).toBe(true);
    const [now, today] = await value(shop);
    expect(now).toBe("89");
    expect(await v.tip.innerText()).toBe(today);
    expect(today).toMatch(/\n100% uptime\nNo downtime$/);
    await v.page.keyboard.press("ArrowLeft");
    await v.page.keyboard.press("ArrowLeft");
    await v.page.keyboard.press("ArrowLeft");
    expect(await value(shop)).toEqual(["86", await v.tip.innerText()]);
    expect(await v.tip.innerText()).toMatch(/\n82\.40% uptime\n/);
    await tipOver(v, await dayAt(shop, 86));
    // Escape dismisses it without moving the focus (WCAG 1.4.13); the next day shows it again.
    await v.page.keyboard.press("Escape");
    await expect.poll(() => v.tip.isVisible()).toBe(false);
    expect(await shop.evaluate((el) => el.matches(":focus"))).toBe(true);
    await v.page.keyboard.press("ArrowRight");
    await v.page.keyboard.press("ArrowLeft");
    await expect.poll(() => v.tip.isVisible()).toBe(true);
    expect(await v.tip.innerText()).toMatch(/\n82\.40% uptime\n/);
    // The next Tab goes to the next service's bars, at today, and so does the tip; leaving the bars hides it.
    await v.page.keyboard.press("Tab");
    const checkout = v.inShadow("[part~=history]").nth(1);
    expect(await value(checkout)).toEqual(["89", await v.tip.innerText()]);
    await v.page.keyboard.press("Shift+Tab");
    // Shop's bars kept the day picked.
    expect(await v.tip.innerText()).toMatch(/\n82\.40% uptime\n/);
    await v.page.keyboard.press("Shift+Tab");
    await expect.poll(() => v.tip.isVisible()).toBe(false);
    await v.context.close();
  });

  test("at 375 px: the last 30 days, wider bars, Home stops at the oldest shown", async () => {
    const v = await visit("", 375);
    const shop = v.inShadow("[part~=history]").first();
    // The bars' days are the last 30: today's bar (the last run, 3 days at 100%) is 3/30 of the width.
    const [list, last] = [await shop.boundingBox(), await shop.locator("i").last().boundingBox()];
    expect(last && list && Math.abs(last.width - (list.width * 3) / 30)).toBeLessThan(1);
    expect(((list?.width ?? 0) / 30) | 0).toBeGreaterThan(8);
    expect(axisText(await v.inShadow("[part~=item]").first().locator(".axis").innerText())).toBe(axisText(axis(29)));
    await shop.focus();
    await v.page.keyboard.press("Home");
    expect((await value(shop))[0]).toBe("60");
    const oldest = new Intl.DateTimeFormat("en", { dateStyle: "medium", timeZone: "UTC" }).format(new Date(isoDay(29)));
    expect(await v.tip.innerText()).toBe(`${oldest}\n100% uptime\nNo downtime`);
    await v.page.keyboard.press("ArrowLeft");
    expect((await value(shop))[0]).toBe("60");
    const bad = await dayAt(shop, 86, 30);
    await v.page.mouse.move(bad.x, bad.y);
    await expect.poll(() => v.tip.innerText()).toMatch(/\n82\.40% uptime\n/);
    await tipOver(v, bad);
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
      const today = await dayAt(v.inShadow("[part~=history]").first(), 89);
      await v.page.mouse.move(today.x, today.y);
      await expect.poll(() => v.tip.isVisible()).toBe(true);
      expect(await v.tip.innerText()).toMatch(/\n62\.50% uptime\n/);
      await v.inShadow("[part~=base]").screenshot({ path: `${ARTIFACTS}/history-outage-${theme}.png` });
      expect(await v.audit()).toEqual([]);
      await v.context.close();
    }
  });

  test("right to left: today is on the left, and the pointer and the arrows find the right day", async () => {
    const v = await visit("attrs=locale%3Dhe");
    const shop = v.inShadow("[part~=history]").first();
    const box = await shop.boundingBox();
    if (!box) throw new Error("no box");
    // Day 86 (3 days ago, the bad one) is the fourth from the left.
    await v.page.mouse.move(box.x + 3.5 * (box.width / 90), box.y + box.height / 2);
    await expect.poll(() => v.tip.isVisible()).toBe(true);
    expect((await value(shop))[0]).toBe("86");
    await shop.focus();
    await v.page.keyboard.press("ArrowLeft"); // towards today, on the left
    expect((await value(shop))[0]).toBe("87");
    await v.context.close();
  });

  test("a tap picks the day tapped and keeps it shown (a phone)", async () => {
    const context = await browser.newContext({ viewport: { width: 900, height: 900 }, hasTouch: true, isMobile: true });
    const page = await context.newPage();
    await page.goto(`${origin}/`);
    const shop = page.locator("porchlight-status").locator("[part~=history]").first();
    const tip = page.locator("porchlight-status").locator(".tip");
    await expect.poll(() => shop.locator("i").count()).toBeGreaterThan(0);
    for (const at of [86, 69]) {
      const day = await dayAt(shop, at);
      await page.touchscreen.tap(day.x, day.y);
      await expect.poll(() => shop.getAttribute("aria-valuenow")).toBe(String(at));
      await expect.poll(() => tip.isVisible()).toBe(true);
      expect(await tip.innerText()).toBe(await shop.getAttribute("aria-valuetext"));
    }
    expect(await tip.innerText()).toMatch(/\n100% uptime\nNo downtime$/);
    await context.close();
  });

  for (const style of ["zoom: 0.8", "zoom: 1.5", "display: block; transform: scale(1.5); transform-origin: 0 0"]) {
    test(`scaled by the host page (${style}): every day is reached, and no other`, async () => {
      const v = await visit(`attrs=${encodeURIComponent(`style="${style}"`)}`);
      const shop = v.inShadow("[part~=history]").first();
      await shop.focus();
      // Home: Shop's first day with data (20 of 90).
      await v.page.keyboard.press("Home");
      expect(await shop.getAttribute("aria-valuenow")).toBe("20");
      await v.page.keyboard.press("End");
      expect(await shop.getAttribute("aria-valuenow")).toBe("89");
      const box = await shop.boundingBox();
      if (!box) throw new Error("no box");
      await v.page.mouse.move(box.x + box.width * (20.5 / 90), box.y + box.height / 2);
      await expect.poll(() => shop.getAttribute("aria-valuenow")).toBe("20");
      await v.page.mouse.move(box.x + box.width - 1, box.y + box.height / 2);
      await expect.poll(() => shop.getAttribute("aria-valuenow")).toBe("89");
      await v.context.close();
    });
  }

  test("the axis dates in German and Hebrew, through Intl", async () => {
    for (const locale of ["de", "he"]) {
      const v = await visit(`attrs=locale%3D${locale}`);
      const words = await v.inShadow("[part~=item]").first().locator(".axis").innerText();
      expect(axisText(words)).toBe(axisText(axis(69, locale)));
      // The words too, fetched from the server: the bars' list is named in the page's language.
      expect(await v.inShadow("[part~=history]").first().getAttribute("aria-label")).toMatch(
        locale === "de" ? /: tägliche Verfügbarkeit, 90 Tage$/ : /: זמינות יומית, 90 ימים$/,
      );
      await v.context.close();
    }
  });
});
