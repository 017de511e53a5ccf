import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { Store } from "../../server/store/store.ts";
import { CHECK_TIME_GRANULARITY_MS } from "../../server/views/page-views.ts";
import { client, makeApp, seedOwner, seedStatusPage, sqliteKind, TestClock } from "../helpers.ts";
import { collectPageErrors, describeBrowser, launchChromium } from "../support/browser.ts";

/** The element's default refresh interval, which the hosted page keeps. */
const REFRESH_MS = 60_000;

describeBrowser("the hosted page on the wire, in Chromium", () => {
  let store: Store;
  let cleanup: () => Promise<void>;
  let browser: Browser;
  let made: ReturnType<typeof makeApp>;
  let app: { server: Server; origin: string };
  let siteIds: string[] = [];

  /** As the engine leaves the sites after a round of checks: when, how fast, and their state. */
  const checked = (ids: string[], state: string, ms: number) =>
    store.db
      .updateTable("sites")
      .set({ state, last_check_time: made.clock.now().toISOString(), last_response_ms: ms })
      .where("id", "in", ids)
      .execute();

  beforeAll(async () => {
    ({ store, cleanup } = await sqliteKind.open());
    // The browser reads real time, so the server's clock starts at real time too; but never in a half hour's last
    // two minutes, where the test's 41 s of checks would cross into the next half hour, which moves the ETag
    // (CHECK_TIME_GRANULARITY_MS): two minutes earlier then, which the page shows nowhere.
    const now = Date.now();
    const late = now % CHECK_TIME_GRANULARITY_MS > CHECK_TIME_GRANULARITY_MS - 120_000;
    made = makeApp(store, { clock: new TestClock(new Date(late ? now - 120_000 : now)) });
    const owner = await seedOwner(store, "stack");
    const call = client(made.app, owner.token);
    siteIds = (await seedStatusPage(call, store, made.clock.now(), "acme", {}, ["Website", "Checkout", "Search"])).ids;
    await checked(siteIds, "healthy", 182);
    made.recorded({ sites: [], pagesChanged: true });
    const server = createServer(made.listener);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    app = { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => app?.server.close(resolve));
    await cleanup?.();
  });

  test("the element takes the inlined page and its ETag over: no request until the refresh interval, then a 304", async () => {
    const context = await browser.newContext();
    // The page's timers on a clock the test moves: a minute passes without waiting one. It starts at the server's
    // fixed clock, when the page was built, however long the set-up took on a busy machine (an inlined page older
    // than the refresh interval is fetched again at once, rightly).
    await context.clock.install({ time: made.clock.now().getTime() });
    const page = await context.newPage();
    const errors = collectPageErrors(page);
    const reads: { url: string; ifNoneMatch: string | undefined; status?: number; etag?: string | undefined }[] = [];
    page.on("request", (request) => {
      if (request.url().includes("/status-page/acme")) {
        reads.push({ url: request.url(), ifNoneMatch: request.headers()["if-none-match"] });
      }
    });
    page.on("response", (response) => {
      const read = reads.find((r) => r.url === response.url() && r.status === undefined);
      if (read) {
        read.status = response.status();
        read.etag = response.headers().etag;
      }
    });
    const hosted = await page.goto(`${app.origin}/acme`);
    expect(hosted?.headers()["content-encoding"]).toBe("br");
    const inlined = await page.locator("porchlight-status").getAttribute("data-etag");
    expect(inlined).toMatch(/^W\/"[\w-]{27}"$/);
    await expect
      .poll(() =>
        page.evaluate(
          () => (document.querySelector("porchlight-status") as unknown as { hasUpdated: boolean }).hasUpdated,
        ),
      )
      .toBe(true);
    const banner = page.locator("porchlight-status").locator("[part~=banner]");
    expect(await banner.textContent()).toContain("All systems operational");

    // The first seconds after load, in real time, and then most of the interval: the page asks for nothing.
    await page.waitForTimeout(3000);
    expect(reads).toEqual([]);
    await page.clock.runFor(REFRESH_MS - 10_000);
    expect(reads).toEqual([]);

    // Meanwhile the sites were checked again: their check times and response times moved, nothing shown did.
    made.clock.advance(30_000);
    await checked(siteIds, "healthy", 240);
    made.clock.advance(11_000); // past the views' time to live: the view is built again with the new times
    await page.clock.runFor(10_000);
    await expect.poll(() => reads.length).toBe(1);
    await expect.poll(() => reads[0]?.status).toBe(304);
    expect(reads[0]).toMatchObject({ url: `${app.origin}/public/v1/status-page/acme`, ifNoneMatch: inlined });

    // A state that changes shows at the next refresh, with a new ETag.
    await checked([siteIds[1] as string], "unhealthy", 0);
    made.recorded({ sites: [siteIds[1] as string], pagesChanged: true });
    await page.clock.runFor(REFRESH_MS);
    await expect.poll(() => reads[1]?.status).toBe(200);
    expect(reads).toHaveLength(2);
    expect(reads[1]?.ifNoneMatch).toBe(inlined);
    expect(reads[1]?.etag).not.toBe(inlined);
    await expect.poll(() => banner.textContent()).toContain("Partial outage");
    expect(errors).toEqual([]);
    await context.close();
  });
});
