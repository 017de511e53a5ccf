// Issue 17, part 3: times that are right for the visitor. One instant, read in Los Angeles and in Tokyo, on the
// hosted page (server-rendered in UTC, then hydrated) and in the embed: the visitor's local time with its zone named,
// relative times and an open incident's duration that keep moving. Without JavaScript the hosted page says UTC and
// nothing relative to now. The server's clock (the app's TestClock) and the browser's (Playwright's) are fixed, never
// today's date. Date is never faked in this process: Playwright's clock, installed from a process with a fake Date,
// leaves the page on the real time.
import { mkdirSync } from "node:fs";
import type { Server } from "node:http";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { Store } from "../../server/store/store.ts";
import { client, makeApp, seedOwner, seedStatusPage, sqliteKind, TestClock } from "../helpers.ts";
import { collectPageErrors, describeBrowser, launchChromium } from "../support/browser.ts";
import { listen } from "../support/listen.ts";

const ARTIFACTS = "test-artifacts";
const MINUTE = 60_000;
/** The server's now: the resolving update's instant. 10:37 PM the evening before in Los Angeles, 3:37 PM in Tokyo. */
const T = Date.parse("2026-11-24T06:37:00.000Z");
/**
 * The visitor opens the page 40 seconds after the server read its data: within the refresh interval, so the hosted
 * page shows its server's data, hydrated, before any request.
 */
const VISIT = T + 40_000;

const squash = (text: string | null) => (text ?? "").replace(/\s+/g, " ").trim();

/** What each zone shows for the incidents: started 90 minutes before T and resolved at T, and one open since T − 130. */
const ZONES = {
  "America/Los_Angeles": {
    resolved: "Resolved Nov 23, 2026, 9:07 PM PST – 10:37 PM PST · 1 hour 30 minutes",
    update: "Resolved · Nov 23, 2026, 10:37 PM PST The payment provider fixed it.",
    open: "Investigating Nov 23, 2026, 8:27 PM PST · 2 hours 11 minutes",
    updatedTitle: "Nov 23, 2026, 10:37 PM PST",
  },
  "Asia/Tokyo": {
    resolved: "Resolved Nov 24, 2026, 2:07 PM GMT+9 – 3:37 PM GMT+9 · 1 hour 30 minutes",
    update: "Resolved · Nov 24, 2026, 3:37 PM GMT+9 The payment provider fixed it.",
    open: "Investigating Nov 24, 2026, 1:27 PM GMT+9 · 2 hours 11 minutes",
    updatedTitle: "Nov 24, 2026, 3:37 PM GMT+9",
  },
} as const;

describeBrowser("times in the visitor's zone, on the hosted page and the embed, in Chromium", () => {
  let store: Store;
  let cleanup: () => Promise<void>;
  let browser: Browser;
  let api: { server: Server; origin: string };
  let host: { server: Server; origin: string };

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    ({ store, cleanup } = await sqliteKind.open());
    const made = makeApp(store, { clock: new TestClock(new Date(T)), env: { PORCHLIGHT_VIEW_TTL_SECONDS: "300" } });
    const owner = await seedOwner(store, "stack");
    const call = client(made.app, owner.token);
    const seeded = await seedStatusPage(call, store, new Date(T), "acme", { display: { historyDays: 30 } }, [
      "Website",
      "Checkout",
    ]);
    await store.db
      .updateTable("sites")
      .set({ state: "healthy", last_check_time: new Date(T).toISOString(), last_response_ms: 182 })
      .where("id", "in", seeded.ids)
      .execute();
    const incidents = `/public/v1/status-pages/${seeded.id}/incidents`;
    const resolved = await call.post(incidents, {
      title: "Slow checkout",
      message: "Payments answer slowly.",
      startedAt: new Date(T - 90 * MINUTE).toISOString(),
    });
    expect(resolved.status).toBe(201);
    const update = await call.post(`${incidents}/${resolved.json.data.id}/updates`, {
      status: "resolved",
      message: "The payment provider fixed it.",
    });
    expect(update.status).toBe(201);
    const open = await call.post(incidents, {
      title: "Search is slow",
      message: "Searches take seconds.",
      startedAt: new Date(T - 130 * MINUTE).toISOString(),
    });
    expect(open.status).toBe(201);
    made.recorded({ sites: seeded.ids, pagesChanged: true });
    api = await listen(made.listener);
    host = await listen((_req, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Host page</title></head>
<body><main><h1>Acme's own page</h1><script type="module" src="${api.origin}/embed/porchlight.js"></script>
<porchlight-status slug="acme" api-base="${api.origin}" locale="en-US"></porchlight-status></main></body></html>`);
    });
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => api?.server.close(resolve));
    await new Promise((resolve) => host?.server.close(resolve));
    await cleanup?.();
  });

  /** A visitor in `timezoneId` whose clock reads VISIT, at `url`. */
  async function visit(
    url: string,
    timezoneId: string,
    options: { width?: number; colorScheme?: "light" | "dark"; javaScript?: boolean } = {},
  ) {
    const context = await browser.newContext({
      timezoneId,
      locale: "en-US",
      viewport: { width: options.width ?? 900, height: 900 },
      colorScheme: options.colorScheme ?? "light",
      javaScriptEnabled: options.javaScript ?? true,
    });
    await context.clock.install({ time: VISIT });
    const page = await context.newPage();
    const errors = collectPageErrors(page);
    await page.goto(url);
    const element = page.locator("porchlight-status");
    const incident = (title: string) => element.locator("[part~=incident]").filter({ hasText: title });
    const line = async (title: string) => squash(await incident(title).locator("> p").textContent());
    const updated = element.locator("[part~=base] > p").first();
    return { context, page, errors, element, incident, line, updated };
  }

  const hydrated = (v: Awaited<ReturnType<typeof visit>>) =>
    expect
      .poll(() =>
        v.page.evaluate(
          () => (document.querySelector("porchlight-status") as unknown as { hasUpdated?: boolean }).hasUpdated,
        ),
      )
      .toBe(true);

  for (const [zone, expected] of Object.entries(ZONES)) {
    for (const surface of ["hosted", "embed"] as const) {
      test(`${surface}, a visitor in ${zone}: local times with the zone named, relative times that move`, async () => {
        const v = await visit(surface === "hosted" ? `${api.origin}/acme` : `${host.origin}/`, zone);
        if (surface === "hosted") await hydrated(v);
        await expect.poll(() => v.line("Slow checkout")).toBe(expected.resolved);
        // A past incident's updates are folded: open them.
        await v.incident("Slow checkout").locator("summary").click();
        expect(squash(await v.incident("Slow checkout").locator("li").first().innerText())).toBe(expected.update);
        // Counted from its start to now from the first render (never "0 min"), and never in UTC after hydration.
        expect(await v.line("Search is slow")).toBe(expected.open);
        expect(squash(await v.element.locator("[part~=base]").textContent())).not.toContain("UTC");
        // Hosted: read at T, some 40 seconds ago. Embed: fetched just now.
        const ago = surface === "hosted" ? /^Updated 4\d seconds ago$/ : /^Updated now$/;
        expect(squash(await v.updated.textContent())).toMatch(ago);
        const stamp = v.updated.locator("time");
        if (surface === "hosted") {
          expect(await stamp.getAttribute("datetime")).toBe(new Date(T).toISOString());
          expect(await stamp.getAttribute("title")).toBe(expected.updatedTitle);
        }
        // Every shown instant carries its own, for machines and for the next redraw.
        const instants = await v.element
          .locator("[part~=incidents] time")
          .evaluateAll((times) => times.map((time) => time.getAttribute("datetime")));
        expect(instants).toContain(new Date(T).toISOString());
        expect(instants).toContain(new Date(T - 130 * MINUTE).toISOString());

        // The page stays open: "Updated" and the open incident's duration keep moving.
        await v.page.clock.runFor(3 * MINUTE);
        await expect.poll(() => v.line("Search is slow")).toContain("· 2 hours 14 minutes");
        expect(v.errors).toEqual([]);
        await v.context.close();
      });
    }
  }

  test("hosted without JavaScript: absolute times in UTC, named so, and nothing relative to now", async () => {
    const v = await visit(`${api.origin}/acme`, "America/Los_Angeles", { javaScript: false });
    expect(await v.line("Slow checkout")).toBe("Resolved Nov 24, 2026, 5:07 AM UTC – 6:37 AM UTC · 1 hour 30 minutes");
    // An open incident's duration would go stale in the page: its start alone.
    expect(await v.line("Search is slow")).toBe("Investigating Nov 24, 2026, 4:27 AM UTC");
    expect(squash(await v.updated.textContent())).toBe("Updated Nov 24, 2026, 6:37 AM UTC");
    const text = squash(await v.element.locator("[part~=base]").textContent());
    expect(text).not.toMatch(/\bago\b|\bnow\b|yesterday|\babout\b/);
    await v.element
      .locator("[part~=incidents]")
      .last()
      .screenshot({ path: `${ARTIFACTS}/times-incidents-noscript.png` });
    await v.context.close();
  });

  for (const shot of [
    { name: "light", width: 900, colorScheme: "light" },
    { name: "dark", width: 900, colorScheme: "dark" },
    { name: "375", width: 375, colorScheme: "light" },
  ] as const) {
    test(`the incident timeline in Los Angeles, ${shot.name}: screenshot for a reviewer`, async () => {
      const v = await visit(`${api.origin}/acme`, "America/Los_Angeles", shot);
      await hydrated(v);
      await expect.poll(() => v.line("Slow checkout")).toBe(ZONES["America/Los_Angeles"].resolved);
      // The active incident above the services, the resolved one under them: nothing spills sideways at 375 px.
      const [active, past] = [
        v.element.locator("[part~=incidents]").first(),
        v.element.locator("[part~=incidents]").last(),
      ];
      for (const list of [active, past]) {
        expect(await list.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
      }
      expect(await active.textContent()).toContain("Search is slow");
      expect(await past.textContent()).toContain("Slow checkout");
      await past.screenshot({ path: `${ARTIFACTS}/times-incidents-${shot.name}.png` });
      expect(v.errors).toEqual([]);
      await v.context.close();
    });
  }
});
