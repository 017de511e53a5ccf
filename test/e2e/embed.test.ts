import { mkdirSync } from "node:fs";
import type { Server } from "node:http";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { Store } from "../../server/store/store.ts";
import { client, makeApp, seedOwner, seedStatusPage, sqliteKind, TestClock } from "../helpers.ts";
import { axeViolations, describeBrowser, launchChromium } from "../support/browser.ts";
import { listen } from "../support/listen.ts";

/** Screenshots a reviewer can look at (not compared): light, dark, compact and password states. */
const ARTIFACTS = "test-artifacts";
const PASSWORD = "correct horse";

/** Every `div`, `button` and `li` of the host page styled as hard as CSS allows; the element must not notice. */
const AGGRESSIVE_CSS = `
  body { font-family: serif; text-transform: uppercase; letter-spacing: 3px; line-height: 3; color: #000; }
  div, button, li {
    all: unset; display: block !important; color: #000 !important; background: rgb(255, 255, 0) !important;
    font-size: 40px !important; padding: 30px !important; border: 5px dashed rgb(0, 0, 255) !important;
    margin: 20px !important; text-transform: uppercase !important;
  }
  p { color: rgb(0, 0, 0); margin: 7px; }
`;

describeBrowser("<porchlight-status> embedded in a page of another origin, in Chromium", () => {
  let store: Store;
  let cleanup: () => Promise<void>;
  let browser: Browser;
  let api: { server: Server; origin: string };
  let host: { server: Server; origin: string };
  let recorded: ReturnType<typeof makeApp>["recorded"];
  let siteIds: string[] = [];

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    ({ store, cleanup } = await sqliteKind.open());
    // The browser reads real time, so the server's clock starts at real time too.
    const made = makeApp(store, { clock: new TestClock(new Date()), env: { PORCHLIGHT_VIEW_TTL_SECONDS: "300" } });
    recorded = made.recorded;
    const owner = await seedOwner(store, "stack");
    const call = client(made.app, owner.token);
    const now = made.clock.now();
    const page = (slug: string, extra: Record<string, unknown>, labels: string[]) =>
      seedStatusPage(call, store, now, slug, extra, labels);
    const acme = await page(
      "acme",
      { description: "Everything Acme runs, <b>watched</b>.", display: { historyDays: 30 } },
      ["Website", "Checkout", "Search"],
    );
    siteIds = acme.ids;
    await store.db
      .updateTable("sites")
      .set({ state: "healthy", last_check_time: now.toISOString(), last_response_ms: 182 })
      .where("id", "in", siteIds)
      .execute();
    const incident = (
      await call.post(`/public/v1/status-pages/${acme.id}/incidents`, {
        title: "Slow checkout",
        message: "Payments answer slowly; details at https://status.example.com/notes",
        startedAt: new Date(now.getTime() - 90 * 60_000).toISOString(),
      })
    ).json.data;
    await call.post(`/public/v1/status-pages/${acme.id}/incidents/${incident.id}/updates`, {
      status: "resolved",
      message: "The payment provider fixed it.",
    });
    await page("locked", { visibility: "password", password: PASSWORD }, ["Internal"]);
    await page("inside", { visibility: "private" }, ["Intranet"]);
    recorded({ sites: siteIds, pagesChanged: true });

    api = await listen(made.listener);
    host = await listen((req, res) => {
      const url = new URL(req.url ?? "/", "http://host");
      const attributes = url.searchParams.get("attrs") ?? "";
      const twice = url.searchParams.has("twice")
        ? `<script type="module" src="${api.origin}/embed/porchlight.js?copy=2"></script>`
        : "";
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      if (url.searchParams.has("iframe")) {
        // The README's iframe alternative, as written there.
        res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Framed</title></head>
<body><main><h1>Framed status</h1><iframe title="Acme status" style="border:0; width:100%; height:42rem"
  srcdoc='<script type="module" src="${api.origin}/embed/porchlight.js"></script>
          <porchlight-status slug="acme"></porchlight-status>'></iframe></main></body></html>`);
        return;
      }
      res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Host page</title>
<style>${AGGRESSIVE_CSS}</style></head>
<body><main><h1>Acme's own page</h1><p id="before">Before the status.</p>
<ul><li id="host-item">A host list item</li></ul><button id="host-button" type="button">Host button</button>
<script type="module" src="${api.origin}/embed/porchlight.js"></script>${twice}
<porchlight-status slug="${url.searchParams.get("slug") ?? "acme"}" api-base="${api.origin}" ${attributes}></porchlight-status>
<p id="after">After the status.</p></main></body></html>`);
    });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => api?.server.close(resolve));
    await new Promise((resolve) => host?.server.close(resolve));
    await cleanup?.();
  });

  /** A fresh visitor: its own context, console errors collected (expected failed loads are named per test). */
  async function visit(query: string, options: { width?: number; before?: (page: Page) => Promise<unknown> } = {}) {
    const context: BrowserContext = await browser.newContext({
      viewport: { width: options.width ?? 900, height: 900 },
    });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error" || message.type() === "warning") errors.push(message.text());
    });
    page.on("pageerror", (error) => errors.push(String(error)));
    await options.before?.(page);
    await page.goto(`${host.origin}/?${query}`);
    const inShadow = (selector: string) => page.locator("porchlight-status").locator(selector);
    const audit = () => axeViolations(page);
    /** Console errors other than the browser's own line for a load that answered one of `statuses`. */
    const unexpectedErrors = (...statuses: number[]) =>
      errors.filter((e) => !statuses.some((s) => e.includes(`status of ${s}`)));
    return { context, page, errors, inShadow, audit, unexpectedErrors };
  }

  test("renders the page across origins: name, status words with icons, uptime, history and incidents", async () => {
    const v = await visit("slug=acme&attrs=theme%3Dlight");
    await expect.poll(() => v.inShadow("[part~=banner]").textContent()).toContain("All systems operational");
    expect(await v.inShadow("h2").textContent()).toBe("Acme acme");
    // Text from the API is text: the description's markup shows as written.
    expect(await v.inShadow("header p").textContent()).toBe("Everything Acme runs, <b>watched</b>.");
    expect(await v.inShadow("header b").count()).toBe(0);
    const items = v.inShadow("[part~=item]");
    expect(await items.count()).toBe(3);
    const first = (await items.first().innerText()).replace(/\s+/g, " ");
    expect(first).toContain("Website");
    expect(first).toContain("Operational");
    // The status is told by a word and an icon, not by colour alone.
    expect(await items.first().locator('[data-mark="✓"][aria-hidden="true"]').count()).toBe(1);
    expect(first).toMatch(/\d+(\.\d+)?% uptime/);
    // No per-check figures on a visitor's row (the check's time, its response time).
    expect(first).not.toMatch(/\bms\b|checked/);
    // A 30-day history: one slider, its days 0 to 29.
    expect(await items.first().locator("[part~=history]").getAttribute("aria-valuemax")).toBe("29");
    expect(await v.inShadow("[part~=incident] h5").textContent()).toBe("Slow checkout");
    // A past incident's updates are folded behind one line that opens them.
    expect(await v.inShadow("[part~=incident]").innerText()).not.toContain("The payment provider fixed it.");
    await v.inShadow("[part~=incident] summary").click();
    expect(await v.inShadow("[part~=incident]").innerText()).toContain("The payment provider fixed it.");
    expect(await v.audit()).toEqual([]);
    await v.page.locator("porchlight-status").screenshot({ path: `${ARTIFACTS}/embed-light.png` });
    expect(v.unexpectedErrors()).toEqual([]);
    await v.context.close();
  });

  test("the dark theme and the compact layout pass the audit", async () => {
    const dark = await visit("slug=acme&attrs=theme%3Ddark");
    await expect.poll(() => dark.inShadow("[part~=banner]").count()).toBe(1);
    const background = await dark.inShadow("[part~=base]").evaluate((el) => getComputedStyle(el).backgroundColor);
    expect(background).toBe("rgb(13, 17, 23)");
    expect(await dark.audit()).toEqual([]);
    await dark.page.locator("porchlight-status").screenshot({ path: `${ARTIFACTS}/embed-dark.png` });
    expect(dark.unexpectedErrors()).toEqual([]);
    await dark.context.close();

    const compact = await visit("slug=acme&attrs=compact");
    await expect.poll(() => compact.inShadow("[part~=banner]").count()).toBe(1);
    expect(await compact.inShadow("[part~=history]").count()).toBe(0);
    expect(await compact.inShadow("[part~=incident]").count()).toBe(0);
    expect(await compact.audit()).toEqual([]);
    await compact.page.locator("porchlight-status").screenshot({ path: `${ARTIFACTS}/embed-compact.png` });
    expect(compact.unexpectedErrors()).toEqual([]);
    await compact.context.close();
  });

  test("the element keeps one height from skeleton to page, so nothing on the host page moves", async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const v = await visit("slug=acme", {
      before: (page) =>
        page.route("**/public/v1/status-page/**", async (route) => {
          await held;
          await route.continue();
        }),
    });
    const skeleton = v.inShadow("[part~=skeleton]");
    await expect.poll(() => skeleton.count()).toBe(1);
    expect(await v.inShadow("[role=status]").textContent()).toBe("Loading…");
    expect(await v.audit()).toEqual([]);
    const host = v.page.locator("porchlight-status");
    expect((await host.boundingBox())?.height).toBe(600);
    const after = await v.page.locator("#after").boundingBox();
    // Every layout shift from here on (the skeleton is on screen): the bar is none.
    await v.page.evaluate(() => {
      const w = window as unknown as { shifts: number[] };
      w.shifts = [];
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) w.shifts.push((entry as unknown as { value: number }).value);
      }).observe({ type: "layout-shift" });
    });
    release();
    await expect.poll(() => v.inShadow("[part~=history] i").count()).toBeGreaterThan(0);
    // Two frames, so any shift of the last render is reported.
    await v.page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    expect(await v.page.evaluate(() => (window as unknown as { shifts: number[] }).shifts)).toEqual([]);
    expect((await host.boundingBox())?.height).toBe(600);
    expect(await v.page.locator("#after").boundingBox()).toEqual(after);
    // The page is taller than the box: it scrolls inside, and the box is a tab stop so keyboards can scroll it.
    const base = v.inShadow("[part~=base]");
    expect(await base.evaluate((el) => el.scrollHeight > el.clientHeight)).toBe(true);
    expect(await base.getAttribute("tabindex")).toBe("0");
    expect(await v.audit()).toEqual([]);
    expect(v.unexpectedErrors()).toEqual([]);
    await v.context.close();

    // compact has a shorter default, and the host page's own height wins over either.
    const compact = await visit("slug=acme&attrs=compact");
    await expect.poll(() => compact.inShadow("[part~=banner]").count()).toBe(1);
    expect((await compact.page.locator("porchlight-status").boundingBox())?.height).toBe(360);
    await compact.context.close();
    // The README's rule, reserving the space before the script runs: no shift at all, from the first paint on.
    const sized = await visit(`slug=acme&attrs=${encodeURIComponent('style="display:block;height:250px"')}`);
    await expect.poll(() => sized.inShadow("[part~=history] i").count()).toBeGreaterThan(0);
    expect((await sized.page.locator("porchlight-status").boundingBox())?.height).toBe(250);
    const shifts = await sized.page.evaluate(
      () =>
        new Promise((resolve) => {
          requestAnimationFrame(() =>
            requestAnimationFrame(() =>
              new PerformanceObserver((list) => resolve(list.getEntries().length)).observe({
                type: "layout-shift",
                buffered: true,
              }),
            ),
          );
          setTimeout(() => resolve(0), 1000);
        }),
    );
    expect(shifts).toBe(0);
    await sized.context.close();
  });

  test("a server error shows a retry button that works; an unknown slug says so, without one", async () => {
    let failures = 1;
    const v = await visit("slug=acme", {
      before: (page) =>
        page.route("**/public/v1/status-page/**", (route) =>
          failures-- > 0
            ? route.fulfill({
                status: 500,
                contentType: "application/json",
                headers: { "access-control-allow-origin": "*" },
                body: JSON.stringify({ success: false, message: "boom", code: 500, error: "internal" }),
              })
            : route.continue(),
        ),
    });
    await expect.poll(() => v.inShadow("h2").textContent()).toContain("Could not load the status.");
    expect(await v.audit()).toEqual([]);
    await v.inShadow("button").click();
    await expect.poll(() => v.inShadow("[part~=banner]").count()).toBe(1);
    expect(v.unexpectedErrors(500)).toEqual([]);
    await v.context.close();

    const missing = await visit("slug=nothing-here");
    await expect.poll(() => missing.inShadow("h2").textContent()).toContain("No such status page.");
    // Asking again finds no page either: no retry.
    expect(await missing.inShadow("button").count()).toBe(0);
    expect(await missing.audit()).toEqual([]);
    expect(missing.unexpectedErrors(404)).toEqual([]);
    await missing.context.close();
  });

  test("a password page: the prompt by keyboard, a wrong password keeps focus, the right one shows the page", async () => {
    const v = await visit("slug=locked");
    const sent: { url: string; password?: string }[] = [];
    v.page.on("request", (request) => {
      if (request.url().includes("/status-page/")) {
        sent.push({ url: request.url(), password: request.headers()["x-status-page-password"] });
      }
    });
    await expect.poll(() => v.inShadow("label[for=password]").textContent()).toBe("Password");
    expect(await v.inShadow("[part~=item]").count()).toBe(0);
    expect(await v.audit()).toEqual([]);
    await v.page.locator("porchlight-status").screenshot({ path: `${ARTIFACTS}/embed-password.png` });

    // By keyboard only: from the host's button, Tab reaches the field.
    await v.page.focus("#host-button");
    await v.page.keyboard.press("Tab");
    await v.page.keyboard.type("wrong horse");
    await v.page.keyboard.press("Enter");
    await expect.poll(() => v.inShadow("[role=alert]").textContent()).toBe("The password is incorrect.");
    const focused = () =>
      v.page.evaluate(() => document.querySelector("porchlight-status")?.shadowRoot?.activeElement?.id);
    expect(await focused()).toBe("password");
    expect(await v.inShadow("[part~=input]").getAttribute("aria-invalid")).toBe("true");
    expect(await v.audit()).toEqual([]);

    await v.page.keyboard.type(PASSWORD);
    await v.page.keyboard.press("Enter");
    await expect.poll(() => v.inShadow("[part~=banner]").count()).toBe(1);
    expect(await v.inShadow("[part~=item]").innerText()).toContain("Internal");
    // The password went only in the header: never in a URL, a cookie or storage.
    expect(sent.map((s) => s.password)).toEqual(["wrong horse", PASSWORD]);
    expect(sent.every((s) => !s.url.includes("horse"))).toBe(true);
    expect(await v.context.cookies()).toEqual([]);
    expect(await v.page.evaluate(() => sessionStorage.length + localStorage.length)).toBe(0);
    expect(v.unexpectedErrors(401)).toEqual([]);
    await v.context.close();
  });

  test("remember-password keeps the password for the session only", async () => {
    const v = await visit("slug=locked&attrs=remember-password");
    await expect.poll(() => v.inShadow("[part~=input]").count()).toBe(1);
    await v.inShadow("[part~=input]").fill(PASSWORD);
    await v.inShadow("[part~=input]").press("Enter");
    await expect.poll(() => v.inShadow("[part~=banner]").count()).toBe(1);
    await v.page.reload();
    await expect.poll(() => v.inShadow("[part~=banner]").count()).toBe(1);
    expect(await v.inShadow("[part~=input]").count()).toBe(0);
    expect(await v.page.evaluate(() => localStorage.length)).toBe(0);
    expect(v.unexpectedErrors(401)).toEqual([]);
    await v.context.close();
  });

  test("a private page says it is private to its workspace, with no link, and passes the audit", async () => {
    const v = await visit("slug=inside");
    await expect
      .poll(() => v.inShadow("h2").textContent())
      .toBe("This status page is private to its workspace's members.");
    // No sign-in for visitors exists yet: the link it had led back to this same page.
    expect(await v.inShadow("a, button").count()).toBe(0);
    expect(await v.audit()).toEqual([]);
    expect(v.unexpectedErrors(401)).toEqual([]);
    await v.context.close();
  });

  test("survives a host page that styles every div, button and li, and leaks no style into it", async () => {
    const v = await visit("slug=acme");
    await expect.poll(() => v.inShadow("[part~=banner]").count()).toBe(1);
    const inside = await v
      .inShadow("[part~=item]")
      .first()
      .evaluate((li) => {
        const style = getComputedStyle(li);
        const row = getComputedStyle(li.querySelector("div") as Element);
        return {
          fontSize: style.fontSize,
          padding: style.paddingLeft,
          borderStyle: style.borderTopStyle,
          rowBackground: row.backgroundColor,
          transform: row.textTransform,
          spacing: row.letterSpacing,
        };
      });
    expect(inside).toEqual({
      fontSize: "15px",
      padding: "0px",
      borderStyle: "solid",
      rowBackground: "rgba(0, 0, 0, 0)",
      transform: "none",
      spacing: "normal",
    });
    const outside = await v.page.evaluate(() => {
      const li = getComputedStyle(document.querySelector("#host-item") as Element);
      const after = getComputedStyle(document.querySelector("#after") as Element);
      return {
        liBorder: li.borderTopStyle,
        liFont: li.fontSize,
        afterMargin: after.marginTop,
        afterColor: after.color,
      };
    });
    expect(outside).toEqual({ liBorder: "dashed", liFont: "40px", afterMargin: "7px", afterColor: "rgb(0, 0, 0)" });
    expect(v.unexpectedErrors()).toEqual([]);
    await v.context.close();
  });

  test("days are reachable by keyboard, one tab stop per item, with a visible focus", async () => {
    const v = await visit("slug=acme");
    await expect.poll(() => v.inShadow("[part~=history] i").count()).toBeGreaterThan(0);
    await v.page.focus("#host-button");
    const active = () =>
      v.page.evaluate(() => {
        const el = document.querySelector("porchlight-status")?.shadowRoot?.activeElement as HTMLElement | null;
        return el && { label: el.getAttribute("aria-valuetext"), outline: getComputedStyle(el).outlineStyle };
      });
    // The first stop is the box itself (it scrolls), the next the first item's today.
    await v.page.keyboard.press("Tab");
    expect(await v.inShadow("[part~=base]").evaluate((el) => el.matches(":focus-visible"))).toBe(true);
    await v.page.keyboard.press("Tab");
    const today = await active();
    // Its date, its uptime (two decimals, or 100%), and its time down.
    expect(today?.label).toMatch(/\n(100|\d+\.\d\d)% uptime\n(No downtime|.+ down)/);
    expect(today?.outline).toBe("solid");
    await v.page.keyboard.press("ArrowLeft");
    const yesterday = await active();
    expect(yesterday?.label).not.toBe(today?.label);
    await v.page.keyboard.press("Home");
    const oldest = await active();
    await v.page.keyboard.press("End");
    expect((await active())?.label).toBe(today?.label);
    expect(oldest?.label).not.toBe(yesterday?.label);
    // The next Tab leaves this item's bars for the next item's: one stop per item.
    await v.page.keyboard.press("Tab");
    const next = await v.page.evaluate(
      () =>
        document.querySelector("porchlight-status")?.shadowRoot?.activeElement?.closest("[part~=item]")?.textContent,
    );
    expect(next).toContain("Checkout");
    expect(v.unexpectedErrors()).toEqual([]);
    await v.context.close();
  });

  test("refreshes on its own: a state the engine records shows at the next refresh, announced", async () => {
    const v = await visit("slug=acme&attrs=refresh%3D10", { before: (page) => page.clock.install() });
    await expect.poll(() => v.inShadow("[part~=banner]").textContent()).toContain("All systems operational");
    await v.page.evaluate(() => {
      (window as unknown as { changes: unknown[] }).changes = [];
      document.addEventListener("porchlight-status-change", (event) =>
        (window as unknown as { changes: unknown[] }).changes.push((event as CustomEvent).detail),
      );
    });
    await store.db
      .updateTable("sites")
      .set({ state: "unhealthy" })
      .where("id", "=", siteIds[1] as string)
      .execute();
    recorded({ sites: [siteIds[1] as string], pagesChanged: true });
    await v.page.clock.fastForward(11_000);
    await expect.poll(() => v.inShadow("[part~=banner]").textContent()).toContain("Partial outage");
    expect(await v.inShadow("[part~=banner]").getAttribute("role")).toBe("status");
    expect(await v.page.evaluate(() => (window as unknown as { changes: unknown[] }).changes)).toEqual([
      { slug: "acme", status: "partial", previous: "operational" },
    ]);
    await store.db
      .updateTable("sites")
      .set({ state: "healthy" })
      .where("id", "=", siteIds[1] as string)
      .execute();
    recorded({ sites: [siteIds[1] as string], pagesChanged: true });
    expect(v.unexpectedErrors()).toEqual([]);
    await v.context.close();
  });

  test("the iframe alternative of the README works, with the API base taken from the script's origin", async () => {
    const v = await visit("iframe");
    const banner = v.page.frameLocator("iframe").locator("porchlight-status").locator("[part~=banner]");
    await expect.poll(() => banner.textContent()).toContain("All systems operational");
    expect(v.unexpectedErrors()).toEqual([]);
    await v.context.close();
  });

  test("right to left, at 320 px, and loaded twice", async () => {
    const v = await visit("slug=acme&twice&attrs=locale%3Dhe", { width: 320 });
    await expect.poll(() => v.inShadow("[part~=banner]").textContent()).toContain("כל המערכות תקינות");
    expect(await v.inShadow("[part~=base]").getAttribute("dir")).toBe("rtl");
    const overflow = await v.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await expect.poll(() => v.inShadow("[part~=history] i").count()).toBeGreaterThan(0);
    // In right-to-left, the oldest day is on the right: ArrowRight goes back in time.
    await v.page.focus("#host-button");
    await v.page.keyboard.press("Tab");
    await v.page.keyboard.press("Tab");
    const label = () =>
      v.page.evaluate(
        () =>
          document.querySelector("porchlight-status")?.shadowRoot?.activeElement?.getAttribute("aria-valuetext") ?? "",
      );
    const today = await label();
    await v.page.keyboard.press("ArrowRight");
    const before = await label();
    await v.page.keyboard.press("ArrowLeft");
    expect(await label()).toBe(today);
    expect(before).not.toBe(today);
    expect(await v.audit()).toEqual([]);
    expect(v.unexpectedErrors()).toEqual([]);
    await v.context.close();
  });
});
