// Issue 28: a site's own screen in real Chromium against `porchlight serve` (its engine checking local targets). The
// chart of a site with ten minutes of checks fills the plot and scales to the data, with a legend in words; the
// site's own alert rule is saved and read back through the API, then given back to the workspace; Pause, Resume and
// Delete; a changed site id in the address loads the other site at once (no poll can: the test stops their timers);
// a down site says why; axe is clean; screenshots light, dark, 375 px and down in test-artifacts/.
import type { Server } from "node:http";
import { join } from "node:path";
import SQLite from "better-sqlite3";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { SiteAlertRule } from "../../server/contract/alerts.ts";
import type { RecentCheck, SiteDetail } from "../../server/contract/site.ts";
import { axeViolations, describeBrowser } from "../support/browser.ts";
import {
  ARTIFACTS,
  closeListener,
  dashboard,
  type OpenOptions,
  type Tab,
  useDashboardServer,
} from "../support/dashboard.ts";
import { listen } from "../support/listen.ts";

/** A name at the API's limit, with no space to break at: it must wrap, not push the page sideways. */
const LONG_NAME = `Checkout-${"x".repeat(91)}`;

describeBrowser("a site's own screen, in Chromium", () => {
  const served = useDashboardServer("dashboard-site");
  let dataDir: string;
  let origin: string;
  let target: { server: Server; origin: string };
  let owner: Tab;
  const ids: { chart?: string; other?: string; down?: string } = {};

  beforeAll(async () => {
    ({ dataDir, origin } = served);
    target = await listen((req, res) => {
      res.writeHead(req.url === "/down" ? 503 : 200, { "content-type": "text/plain" });
      res.end(req.url === "/down" ? "unavailable" : "ok");
    });
  });

  afterAll(() => closeListener(target));

  /** A tab, signed in as the owner once there is one. */
  const open = async (options: OpenOptions = {}) =>
    served.open({ ...options, ...(owner ? { storageState: await owner.context.storageState() } : {}) });

  /** The API with the owner's session (its cookie and CSRF token), as the dashboard calls it. */
  async function call<T>(method: string, path: string, body?: unknown): Promise<{ status: number; data: T }> {
    const request = owner.context.request;
    const session = await (await request.get(`${origin}/public/v1/session`)).json();
    const res = await request.fetch(`${origin}${path}`, {
      method,
      headers: { "x-csrf-token": session.data.csrfToken, accept: "application/json" },
      ...(body !== undefined ? { data: body } : {}),
    });
    return { status: res.status(), data: (await res.json().catch(() => ({}))).data as T };
  }

  /** Ten minutes of checks every 30 s, 40 to 160 ms, as the engine would have written them (one region). */
  function seedTenMinutes(siteId: string): void {
    const db = new SQLite(join(dataDir, "porchlight.db"));
    db.pragma("busy_timeout = 5000");
    const insert = db.prepare(
      "INSERT INTO check_results (site_id, region, at, ok, slow, status_code, response_ms, error, timings) VALUES (?, 'local', ?, 1, 0, 200, ?, NULL, '{}')",
    );
    const now = Date.now();
    for (let i = 0; i <= 20; i++) {
      insert.run(siteId, new Date(now - 10 * 60_000 + i * 30_000).toISOString(), 40 + ((i * 37) % 121));
    }
    db.close();
  }

  async function showSite(page: Page, id: string, name: string) {
    await page.goto(`${origin}/dashboard/sites/${id}`);
    await expect
      .poll(() => dashboard(page).getByRole("heading", { level: 1, name }).count(), { timeout: 10_000 })
      .toBe(1);
    await expect
      .poll(() => dashboard(page).locator("pl-response-chart path").count(), { timeout: 10_000 })
      .toBeGreaterThan(0);
  }

  test("sign in, and sites: one with ten minutes of checks, another, one that is down", async () => {
    owner = await served.signInOwner();
    const { page } = owner;
    await expect.poll(() => page.url(), { timeout: 10_000 }).toBe(`${origin}/dashboard/`);
    await expect.poll(async () => (await call("GET", "/public/v1/session")).status).toBe(200);

    const add = async (name: string, path: string) => {
      const made = await call<SiteDetail>("POST", "/public/v1/sites", {
        url: `${target.origin}${path}`,
        name,
        checkInterval: 30,
        timeout: 5,
      });
      expect(made.status).toBe(201);
      return made.data.id;
    };
    ids.chart = await add(LONG_NAME, "/health");
    ids.other = await add("Marketing site", "/");
    ids.down = await add("Billing", "/down");
    seedTenMinutes(ids.chart);
  }, 30_000);

  test("the chart of ten minutes of checks fills the plot, scales to the data and speaks in words", async () => {
    const { page } = owner;
    const id = ids.chart as string;
    // The engine checks this site too, live: a check that lands after the chart drew is not on it, so the
    // scale is bounded below by what existed before the chart loaded and above by what exists after.
    const largestOf = async () => {
      const checks = await call<RecentCheck[]>("GET", `/public/v1/site/${id}/checks?hours=1`);
      return Math.max(...checks.data.map((c) => c.responseMs ?? 0));
    };
    const drawnAtLeast = await largestOf();
    await showSite(page, id, LONG_NAME);
    const chart = dashboard(page).locator("pl-response-chart");
    // The range that fits: one hour, picked for the owner.
    expect(await dashboard(page).getByRole("button", { name: "Last 1 h" }).getAttribute("aria-pressed")).toBe("true");

    const geometry = await chart.evaluate((element) => {
      const svg = element.shadowRoot?.querySelector("svg") as SVGSVGElement;
      const line = element.shadowRoot?.querySelector(".series path") as SVGPathElement;
      const plotWidth = Number(svg.dataset.plotWidth);
      return { plotWidth, drawn: line.getBBox().width, yMax: Number(svg.dataset.yMax) };
    });
    expect(geometry.drawn / geometry.plotWidth).toBeGreaterThan(0.6);
    const drawnAtMost = await largestOf();
    expect(drawnAtLeast).toBeGreaterThanOrEqual(150);
    expect(geometry.yMax).toBeGreaterThanOrEqual(drawnAtLeast);
    expect(geometry.yMax).toBeLessThanOrEqual(2 * drawnAtMost);

    // The legend is a sentence naming the value, the time and its zone; never the raw "TIME: --".
    const legend = await chart.locator(".legend").textContent();
    expect(legend).toMatch(/^Response time, ms: \d+ ms at \d{1,2}:\d{2} (AM|PM) UTC$/);
    expect(await chart.textContent()).not.toContain("--");
    // Hovering the plot's left edge reads the first check.
    const box = (await chart.locator(".plot").boundingBox()) as { x: number; y: number; width: number };
    await page.mouse.move(box.x + 53, box.y + 100);
    await expect.poll(() => chart.locator(".legend").textContent()).toMatch(/^Response time, ms: 40 ms at /);

    // A week: the hourly p50 and p95 lines, named in the key.
    await dashboard(page).getByRole("button", { name: "Last 7 d" }).click();
    await expect
      .poll(() => chart.locator(".series").evaluateAll((g) => g.map((e) => e.getAttribute("data-label"))))
      .toEqual(["p50", "p95"]);
    await dashboard(page).getByRole("button", { name: "Last 1 h" }).click();
    expect(owner.errors).toEqual([]);
  }, 30_000);

  test("light, dark and 375 px: screenshots, axe clean, nothing scrolls sideways", async () => {
    for (const shot of [
      { name: "light", width: 1280, colorScheme: "light" },
      { name: "dark", width: 1280, colorScheme: "dark" },
      { name: "375", width: 375, colorScheme: "light" },
    ] as const) {
      const view = await open(shot);
      await showSite(view.page, ids.chart as string, LONG_NAME);
      const rule = dashboard(view.page).locator("pl-site-alert-rule");
      await expect.poll(() => rule.getByText("Follows the workspace rule.").count(), { timeout: 10_000 }).toBe(1);
      expect(
        await view.page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth),
        shot.name,
      ).toBe(true);
      await view.page.screenshot({ path: `${ARTIFACTS}/dashboard-site-${shot.name}.png`, fullPage: true });
      expect(await axeViolations(view.page), shot.name).toEqual([]);
      expect(view.errors).toEqual([]);
      await view.context.close();
    }
  }, 60_000);

  test("the site's own alert rule: saved, read back through the API, then the workspace's again", async () => {
    const { page } = owner;
    const id = ids.chart as string;
    const rule = dashboard(page).locator("pl-site-alert-rule");
    await expect.poll(() => rule.getByText("Follows the workspace rule.").count(), { timeout: 10_000 }).toBe(1);
    await rule.getByLabel("A rule of its own for this site").check();
    await rule.getByLabel("Degraded").check();
    await rule.getByLabel("Recovered").uncheck();
    await rule.getByLabel("Failed checks before “down”").fill("3");
    await rule.getByLabel("Tell again while down, every (min)").fill("60");
    await rule.getByLabel("Detect flapping (one alert instead of many while it goes up and down)").uncheck();
    await rule.getByRole("button", { name: "Save this site's rule" }).click();
    await expect.poll(() => rule.getByText("Has a rule of its own.").count()).toBe(1);
    const saved = await call<SiteAlertRule>("GET", `/public/v1/site/${id}/alert-rule`);
    expect(saved.data).toMatchObject({
      inherited: false,
      channels: "all",
      events: { down: true, recovered: false, degraded: true },
      confirmations: 3,
      repeatMinutes: 60,
      flapping: null,
    });

    // Bad input: the API's sentence beside the field, the field marked.
    await rule.getByLabel("Failed checks before “down”").fill("1");
    await rule.getByRole("button", { name: "Save this site's rule" }).click();
    await expect.poll(() => rule.locator("#r-confirmations-error").count()).toBe(1);
    expect(await rule.getByLabel("Failed checks before “down”").getAttribute("aria-invalid")).toBe("true");
    await page.screenshot({ path: `${ARTIFACTS}/dashboard-site-alert-rule-light.png`, fullPage: true });
    owner.errors.length = 0;

    await rule.getByLabel("Follow the workspace rule").check();
    await rule.getByRole("button", { name: "Go back to the workspace rule" }).click();
    await expect.poll(() => rule.getByText("Follows the workspace rule.").count()).toBe(1);
    expect((await call<SiteAlertRule>("GET", `/public/v1/site/${id}/alert-rule`)).data.inherited).toBe(true);
  }, 30_000);

  test("a changed site id in the address loads the other site at once, with no poll", async () => {
    const view = await open();
    // Every timer of a poll's length never fires: only the change of address itself can load the other site.
    await view.page.addInitScript(() => {
      const original = window.setTimeout;
      window.setTimeout = ((handler: TimerHandler, delay?: number, ...rest: unknown[]) =>
        (delay ?? 0) >= 5000 ? 0 : original(handler, delay, ...rest)) as typeof window.setTimeout;
    });
    await showSite(view.page, ids.chart as string, LONG_NAME);
    await view.page.evaluate((id) => {
      history.pushState(null, "", `/dashboard/sites/${id}`);
      dispatchEvent(new Event("pl-navigate"));
    }, ids.other as string);
    await expect
      .poll(() => dashboard(view.page).getByRole("heading", { level: 1, name: "Marketing site" }).count())
      .toBe(1);
    expect(await dashboard(view.page).getByRole("heading", { level: 1, name: LONG_NAME }).count()).toBe(0);
    // And back, as the browser's Back button does.
    await view.page.goBack();
    await expect.poll(() => dashboard(view.page).getByRole("heading", { level: 1, name: LONG_NAME }).count()).toBe(1);
    expect(view.errors).toEqual([]);
    await view.context.close();
  }, 30_000);

  test("Pause, Resume, and Delete after a confirmation, back to the list", async () => {
    const { page } = owner;
    const id = ids.other as string;
    await showSite(page, id, "Marketing site");
    await dashboard(page).getByRole("button", { name: "Pause", exact: true }).click();
    await expect.poll(() => dashboard(page).getByRole("button", { name: "Resume" }).count()).toBe(1);
    expect((await call<SiteDetail>("GET", `/public/v1/site/${id}`)).data.pause).toBe(true);
    expect(await dashboard(page).locator(".head .chip").textContent()).toBe("Paused");
    await dashboard(page).getByRole("button", { name: "Resume" }).click();
    await expect.poll(() => dashboard(page).getByRole("button", { name: "Pause", exact: true }).count()).toBe(1);
    expect((await call<SiteDetail>("GET", `/public/v1/site/${id}`)).data.pause).toBe(false);

    await dashboard(page).getByRole("button", { name: "Delete", exact: true }).click();
    const confirm = dashboard(page).getByRole("dialog", { name: "Delete Marketing site?" });
    await expect.poll(() => confirm.isVisible()).toBe(true);
    // Cancel keeps it.
    await confirm.getByRole("button", { name: "Cancel" }).click();
    expect((await call("GET", `/public/v1/site/${id}`)).status).toBe(200);
    await dashboard(page).getByRole("button", { name: "Delete", exact: true }).click();
    await confirm.getByRole("button", { name: "Delete site" }).click();
    await expect.poll(() => page.url()).toBe(`${origin}/dashboard/`);
    expect((await call("GET", `/public/v1/site/${id}`)).status).toBe(404);
    expect(owner.errors).toEqual([]);
  }, 30_000);

  test("a site that is down says so, and why, at the top", async () => {
    const view = await open();
    const id = ids.down as string;
    // The engine's own checks of a target answering 503.
    await expect
      .poll(async () => (await call<SiteDetail>("GET", `/public/v1/site/${id}`)).data.status, {
        timeout: 90_000,
        interval: 1000,
      })
      .toBe("down");
    await view.page.goto(`${origin}/dashboard/sites/${id}`);
    const notice = dashboard(view.page).locator(".notice.bad", { hasText: "Down" });
    await expect
      .poll(() => notice.textContent(), { timeout: 10_000 })
      .toMatch(/Down.*503.*Last failed check: .* UTC\./s);
    expect(await dashboard(view.page).locator(".head .chip").textContent()).toBe("Down");
    // Its failed checks are marks of their own, named in the key, not response times on the line.
    const chart = dashboard(view.page).locator("pl-response-chart");
    await expect.poll(() => chart.locator("rect.fail").count(), { timeout: 10_000 }).toBeGreaterThan(0);
    expect(await chart.locator("figcaption").textContent()).toMatch(/Failed check \(\d+\)/);
    await view.page.screenshot({ path: `${ARTIFACTS}/dashboard-site-down-light.png`, fullPage: true });
    expect(await axeViolations(view.page)).toEqual([]);
    await view.context.close();
  }, 120_000);
});
