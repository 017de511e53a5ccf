// Issue 31, item 1: component groups as visitors see them, in real Chromium. A group is a disclosure (a button with
// aria-expanded, its members under it) that says its worst member's status; a collapsed group with a member at fault
// is served open, and closed by a visitor it still names that member. The hosted page (rendered on the server and
// hydrated) and the embed on another origin's page; axe clean; screenshots light, dark and 375 px
// (test-artifacts/groups-*.png).
import { mkdirSync } from "node:fs";
import type { Server } from "node:http";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { Store } from "../../server/store/store.ts";
import { client, makeApp, seedOwner, seedStatusPage, sqliteKind, TestClock } from "../helpers.ts";
import { axeViolations, collectPageErrors, describeBrowser, launchChromium } from "../support/browser.ts";
import { listen } from "../support/listen.ts";

const ARTIFACTS = "test-artifacts";
const SERVICES = ["Website", "Checkout", "Billing", "Search", "Indexer"];

describeBrowser("component groups on the page, in Chromium", () => {
  let store: Store;
  let cleanup: () => Promise<void>;
  let browser: Browser;
  let api: { server: Server; origin: string };
  let host: { server: Server; origin: string };

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    ({ store, cleanup } = await sqliteKind.open());
    // The browser reads real time, so the server's clock starts at real time too.
    const made = makeApp(store, { clock: new TestClock(new Date()), env: { PORCHLIGHT_VIEW_TTL_SECONDS: "300" } });
    const call = client(made.app, (await seedOwner(store, "stack")).token);
    const now = made.clock.now().getTime();
    const seeded = await seedStatusPage(
      call,
      store,
      new Date(now),
      "acme",
      { description: "Live status of Acme's services." },
      SERVICES,
    );
    const sites = Object.fromEntries(SERVICES.map((label, i) => [label, seeded.ids[i] as string]));
    for (const label of SERVICES) {
      await store.db
        .updateTable("sites")
        .set({
          state: label === "Checkout" ? "unhealthy" : "healthy",
          last_check_time: new Date(now).toISOString(),
          last_response_ms: 120,
        })
        .where("id", "=", sites[label] as string)
        .execute();
    }
    const base = `/public/v1/status-pages/${seeded.id}`;
    const items = (await call.get(base)).json.data.items as { id: number; label: string }[];
    const itemOf = (label: string) => items.find((i) => i.label === label)?.id;
    const group = async (name: string, description: string, members: string[]) => {
      const made = await call.post(`${base}/groups`, { name, description });
      expect(made.status).toBe(201);
      for (const label of members) {
        const moved = await call.patch(`${base}/items/${itemOf(label)}`, { groupId: made.json.data.id });
        expect(moved.status).toBe(200);
      }
    };
    // Both collapsed by default (the API's default); Payments has Checkout down.
    await group("Payments", "Checkout and invoices", ["Checkout", "Billing"]);
    await group("Discovery", "", ["Search", "Indexer"]);
    // A calm page: one group, open by its owner's choice, all fine.
    const calm = await seedStatusPage(call, store, new Date(now), "calm", {}, ["Docs", "Blog", "Status"]);
    for (const id of calm.ids) {
      await store.db
        .updateTable("sites")
        .set({ state: "healthy", last_check_time: new Date(now).toISOString(), last_response_ms: 90 })
        .where("id", "=", id)
        .execute();
    }
    const content = await call.post(`/public/v1/status-pages/${calm.id}/groups`, { name: "Content", collapsed: false });
    const calmItems = (await call.get(`/public/v1/status-pages/${calm.id}`)).json.data.items as { id: number }[];
    for (const item of calmItems.slice(0, 2)) {
      await call.patch(`/public/v1/status-pages/${calm.id}/items/${item.id}`, { groupId: content.json.data.id });
    }
    api = await listen(made.listener);
    host = await listen((req, res) => {
      const slug = new URL(req.url ?? "/", "http://host").searchParams.get("slug") ?? "acme";
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Host page</title></head>
<body><main><h1>Acme's own page</h1><script type="module" src="${api.origin}/embed/porchlight.js"></script>
<porchlight-status slug="${slug}" api-base="${api.origin}"></porchlight-status></main></body></html>`);
    });
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    for (const listening of [api, host]) if (listening) await new Promise((done) => listening.server.close(done));
    await cleanup?.();
  });

  async function visit(url: string, options: { width?: number; colorScheme?: "light" | "dark" } = {}) {
    const context = await browser.newContext({
      bypassCSP: true,
      viewport: { width: options.width ?? 1280, height: 900 },
      colorScheme: options.colorScheme ?? "light",
      locale: "en-US",
      timezoneId: "UTC",
    });
    const page = await context.newPage();
    const errors = collectPageErrors(page);
    await page.goto(url);
    const inShadow = (selector: string) => page.locator("porchlight-status").locator(selector);
    await expect.poll(() => inShadow("[part~=banner]").count()).toBe(1);
    return { context, page, errors, inShadow };
  }

  const text = (s: string) => s.replace(/\s+/g, " ").trim();

  /** Each top-level row: a group's header (its name and status) or a service's. */
  const rows = async (v: Awaited<ReturnType<typeof visit>>) =>
    (await v.inShadow("[part~=items] > li > div").allInnerTexts()).map(text);

  for (const shot of [
    { name: "light", width: 1280, colorScheme: "light" },
    { name: "dark", width: 1280, colorScheme: "dark" },
    { name: "375", width: 375, colorScheme: "light" },
  ] as const) {
    test(`the hosted page (${shot.name}): groups in place, the one at fault open, the quiet one closed`, async () => {
      const v = await visit(`${api.origin}/acme`, shot);
      expect(await rows(v)).toEqual(["Website Operational", "Payments Major outage", "Discovery Operational"]);
      const payments = v.inShadow("[part~=group]").nth(0);
      const search = v.inShadow("[part~=group]").nth(1);
      // Collapsed by default, but Checkout is down: served open, its members listed.
      await expect.poll(() => payments.locator("button").getAttribute("aria-expanded")).toBe("true");
      expect((await payments.locator("[part~=item] > div").allInnerTexts()).map(text)).toEqual([
        "Checkout Major outage",
        "Billing Operational",
      ]);
      expect(await payments.locator("> p").first().innerText()).toBe("Checkout and invoices");
      // Discovery is all fine and stays closed: its members are not shown, its button names what it controls.
      const button = search.locator("button");
      expect(await button.getAttribute("aria-expanded")).toBe("false");
      const panel = await button.getAttribute("aria-controls");
      expect(await search.locator(`#${panel}`).isVisible()).toBe(false);
      await v.page.screenshot({ path: `${ARTIFACTS}/groups-hosted-${shot.name}.png`, fullPage: true });
      expect(await axeViolations(v.page)).toEqual([]);
      expect(v.errors).toEqual([]);
      await v.context.close();
    });
  }

  test("a visitor opens a group by keyboard, and one closed at fault still names its member at fault", async () => {
    const v = await visit(`${api.origin}/acme`);
    const search = v.inShadow("[part~=group]").nth(1);
    await search.locator("button").focus();
    await v.page.keyboard.press("Enter");
    await expect.poll(() => search.locator("button").getAttribute("aria-expanded")).toBe("true");
    expect((await search.locator("[part~=item] > div").allInnerTexts()).map(text)).toEqual([
      "Search Operational",
      "Indexer Operational",
    ]);
    await v.page.keyboard.press("Space");
    await expect.poll(() => search.locator("button").getAttribute("aria-expanded")).toBe("false");
    const payments = v.inShadow("[part~=group]").nth(0);
    await payments.locator("button").click();
    await expect.poll(() => payments.locator("button").getAttribute("aria-expanded")).toBe("false");
    expect(await payments.locator("[part~=item]").first().isVisible()).toBe(false);
    // Closed, the header still says Major outage, and the line under it names Checkout.
    expect(text(await payments.locator("> div").innerText())).toBe("Payments Major outage");
    expect((await payments.locator("> p").allInnerTexts()).map(text)).toContain("Checkout");
    await v.page.screenshot({ path: `${ARTIFACTS}/groups-closed-at-fault.png`, fullPage: true });
    expect(await axeViolations(v.page)).toEqual([]);
    expect(v.errors).toEqual([]);
    await v.context.close();
  });

  test("the embed on another origin shows groups; at fault it folds, what is wrong first, without them", async () => {
    const calm = await visit(`${host.origin}/?slug=calm`);
    // The group was made after the items: it comes last, after Status, the one left ungrouped.
    expect(await rows(calm)).toEqual(["Status Operational", "Content Operational"]);
    const content = calm.inShadow("[part~=group]");
    expect(await content.locator("button").getAttribute("aria-expanded")).toBe("true");
    expect((await content.locator("[part~=item] > div").allInnerTexts()).map(text)).toEqual([
      "Docs Operational",
      "Blog Operational",
    ]);
    await calm.inShadow("[part~=base]").screenshot({ path: `${ARTIFACTS}/groups-embed-light.png` });
    expect(await axeViolations(calm.page)).toEqual([]);
    expect(calm.errors).toEqual([]);
    await calm.context.close();

    const v = await visit(`${host.origin}/?slug=acme`);
    expect(await v.inShadow("[part~=group]").count()).toBe(0);
    expect((await rows(v))[0]).toBe("Checkout Major outage");
    await v.inShadow("[part~=base]").screenshot({ path: `${ARTIFACTS}/groups-embed-fault.png` });
    expect(await axeViolations(v.page)).toEqual([]);
    expect(v.errors).toEqual([]);
    await v.context.close();
  });
});
