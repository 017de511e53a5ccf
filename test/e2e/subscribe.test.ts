// Issue 30: a visitor subscribes from the page. In real Chromium, keyboard only: the element's "Subscribe to updates"
// link on the embed (another origin's page) and on the hosted page opens the server's form; the visitor types an
// address, picks a service, submits, and reads "Check your inbox"; a wrong address is named. axe-clean. Screenshots
// of the form in light, dark and at 375 px, its error state, and the link in the embed
// (test-artifacts/subscribe-*.png).
import { mkdirSync } from "node:fs";
import type { Server } from "node:http";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { Store } from "../../server/store/store.ts";
import { client, makeApp, seedOwner, seedStatusPage, sqliteKind, TestClock } from "../helpers.ts";
import { axeViolations, collectPageErrors, describeBrowser, launchChromium } from "../support/browser.ts";
import { listen } from "../support/listen.ts";

const ARTIFACTS = "test-artifacts";

describeBrowser("a visitor subscribes from the page, in Chromium", () => {
  let store: Store;
  let cleanup: () => Promise<void>;
  let browser: Browser;
  let api: { server: Server; origin: string };
  let host: { server: Server; origin: string };
  let serverNow = 0;
  let subscribers: () => Promise<{ type: string; address: string; items: number[] }[]>;
  let setKinds: (kinds: string[]) => Promise<void>;
  let checkoutId = 0;

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    ({ store, cleanup } = await sqliteKind.open());
    const made = makeApp(store, { clock: new TestClock(new Date()), env: { PORCHLIGHT_VIEW_TTL_SECONDS: "300" } });
    serverNow = made.clock.now().getTime();
    const owner = await seedOwner(store, "stack");
    const call = client(made.app, owner.token);
    const seeded = await seedStatusPage(call, store, made.clock.now(), "acme", {}, ["Website", "Checkout", "Search"]);
    await call.patch(`/public/v1/status-pages/${seeded.id}`, {
      subscriptions: { enabled: true },
      theme: { accentColor: "#7c3aed" },
    });
    const page = (await call.get(`/public/v1/status-pages/${seeded.id}`)).json.data;
    checkoutId = page.items.find((i: { label: string }) => i.label === "Checkout").id;
    setKinds = async (kinds) => {
      expect((await call.patch(`/public/v1/status-pages/${seeded.id}`, { subscriptions: { kinds } })).status).toBe(200);
    };
    subscribers = async () =>
      (await call.get(`/public/v1/status-pages/${seeded.id}/subscribers`)).json.data.subscribers;
    api = await listen(made.listener);
    host = await listen((_req, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Host page</title></head>
<body><main><h1>Acme's own page</h1><script type="module" src="${api.origin}/embed/porchlight.js"></script>
<porchlight-status slug="acme" api-base="${api.origin}"></porchlight-status></main></body></html>`);
    });
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => api?.server.close(resolve));
    await new Promise((resolve) => host?.server.close(resolve));
    await cleanup?.();
  });

  async function open(options: { width?: number; colorScheme?: "light" | "dark" } = {}) {
    const context = await browser.newContext({
      bypassCSP: true,
      viewport: { width: options.width ?? 1280, height: 900 },
      colorScheme: options.colorScheme ?? "light",
      locale: "en-US",
    });
    await context.clock.install({ time: serverNow + 5000 });
    return context;
  }

  /** Tabs until the focused element matches `test` (run in the page with `arg`), at most 40 times. */
  async function tabTo(page: Page, test: (arg: string) => boolean, arg = "") {
    for (let i = 0; i < 40; i++) {
      await page.keyboard.press("Tab");
      if (await page.evaluate(test, arg)) return;
    }
    throw new Error("never reached by Tab");
  }

  test("the embed's link opens the form; a keyboard subscribes to one service", async () => {
    const context = await open();
    const page = await context.newPage();
    const errors = collectPageErrors(page);
    await page.goto(host.origin);
    const link = page.locator("porchlight-status").locator("[part~=subscribe]");
    await expect.poll(() => link.count()).toBe(1);
    expect(await link.textContent()).toBe("Subscribe to updates");
    expect(await link.getAttribute("href")).toBe(`${api.origin}/subscriptions/new?page=acme`);
    await page.locator("porchlight-status").screenshot({ path: `${ARTIFACTS}/subscribe-embed-link.png` });
    // Keyboard only: Tab to the link, Enter opens the form in a new tab.
    await tabTo(page, () => {
      const inner = document.querySelector("porchlight-status")?.shadowRoot?.activeElement;
      return inner?.getAttribute("part") === "subscribe";
    });
    const [form] = await Promise.all([context.waitForEvent("page"), page.keyboard.press("Enter")]);
    await form.waitForLoadState();
    expect(new URL(form.url()).pathname).toBe("/subscriptions/new");
    expect(await form.locator("h1").textContent()).toBe("Subscribe to Acme acme");
    expect(await axeViolations(form)).toEqual([]);
    await form.screenshot({ path: `${ARTIFACTS}/subscribe-form-light.png`, fullPage: true });

    // A wrong address is named, beside the field, and the form keeps what was typed.
    await tabTo(form, () => document.activeElement?.id === "email");
    await form.keyboard.type("not-an-address@");
    await tabTo(form, () => document.activeElement?.tagName === "BUTTON");
    // The browser's own check stops a malformed address first; the server's answer is what a visitor without
    // that check (or with an address only the server refuses) reads.
    await form.evaluate(() => document.querySelector("form")?.setAttribute("novalidate", ""));
    await form.keyboard.press("Enter");
    // The answer is a new document at the same address: wait for what it says, not for a load already done.
    await expect.poll(() => form.locator("[role=alert]").count()).toBe(1);
    expect(await form.locator("[role=alert]").textContent()).toContain("Enter an e-mail address");
    expect(await form.locator("#email").inputValue()).toBe("not-an-address@");
    expect(await axeViolations(form)).toEqual([]);
    await form.screenshot({ path: `${ARTIFACTS}/subscribe-form-error.png`, fullPage: true });

    await form.locator("#email").fill("");
    await tabTo(form, () => document.activeElement?.id === "email");
    await form.keyboard.type("visitor@example.com");
    await tabTo(form, (id) => (document.activeElement as HTMLInputElement | null)?.value === id, String(checkoutId));
    await form.keyboard.press("Space");
    await tabTo(form, () => document.activeElement?.tagName === "BUTTON");
    await form.keyboard.press("Enter");
    await expect.poll(() => form.locator("h1").textContent()).toBe("Check your inbox");
    expect(await form.locator("main").textContent()).toContain("visitor@example.com");
    expect(await axeViolations(form)).toEqual([]);
    await form.screenshot({ path: `${ARTIFACTS}/subscribe-form-sent.png`, fullPage: true });
    expect(await subscribers()).toEqual([
      expect.objectContaining({ address: "visitor@example.com", items: [checkoutId], state: "pending" }),
    ]);
    expect(errors).toEqual([]);
    await context.close();
  });

  test("the hosted page links to the form; the form reads well dark and at 375 px", async () => {
    for (const [name, options] of [
      ["dark", { colorScheme: "dark" as const }],
      ["375", { width: 375 }],
    ] as const) {
      const context = await open(options);
      const page = await context.newPage();
      await page.goto(`${api.origin}/acme`);
      const link = page.locator("porchlight-status").locator("[part~=subscribe]");
      await expect.poll(() => link.count()).toBe(1);
      await page.goto(`${api.origin}/subscriptions/new?page=acme`);
      expect(await page.locator("fieldset label").allTextContents()).toEqual([" Website", " Checkout", " Search"]);
      expect(await axeViolations(page)).toEqual([]);
      await page.screenshot({ path: `${ARTIFACTS}/subscribe-form-${name}.png`, fullPage: true });
      await context.close();
    }
  });
  test("where the page takes them, a keyboard subscribes a Slack channel; a wrong URL is named beside its field", async () => {
    await setKinds(["email", "webhook", "slack", "discord", "teams"]);
    const context = await open();
    const form = await context.newPage();
    await form.goto(`${api.origin}/subscriptions/new?page=acme`);
    expect(await form.locator("h2").allTextContents()).toEqual(["By e-mail", "In a chat, or by webhook", "By feed"]);
    expect(await form.locator("#type option").allTextContents()).toEqual([
      "webhook",
      "Slack",
      "Discord",
      "Microsoft Teams",
    ]);
    expect(await axeViolations(form)).toEqual([]);
    await form.screenshot({ path: `${ARTIFACTS}/subscribe-form-hooks.png`, fullPage: true });

    await tabTo(form, () => document.activeElement?.id === "type");
    await form.keyboard.type("Slack");
    expect(await form.locator("#type").inputValue()).toBe("slack");
    await tabTo(form, () => document.activeElement?.id === "url");
    await form.keyboard.type("hooks.slack.test/no-scheme");
    await form.evaluate(() => document.querySelectorAll("form")[1]?.setAttribute("novalidate", ""));
    await tabTo(form, () => document.activeElement?.textContent === "Subscribe this URL");
    await form.keyboard.press("Enter");
    await expect.poll(() => form.locator("[role=alert]").count()).toBe(1);
    expect(await form.locator("#hook-problem").textContent()).toBe("Enter the Slack URL, starting with https://.");
    expect(await form.locator("#url").getAttribute("aria-describedby")).toBe("hook-problem");
    expect(await form.locator("#url").inputValue()).toBe("hooks.slack.test/no-scheme");
    expect(await form.locator("#type").inputValue()).toBe("slack");
    expect(await axeViolations(form)).toEqual([]);
    await form.screenshot({ path: `${ARTIFACTS}/subscribe-form-hooks-error.png`, fullPage: true });

    await form.locator("#url").fill("");
    await tabTo(form, () => document.activeElement?.id === "url");
    await form.keyboard.type("https://hooks.slack.test/services/T0/B0/secret");
    await tabTo(form, () => document.activeElement?.textContent === "Subscribe this URL");
    await form.keyboard.press("Enter");
    await expect.poll(() => form.locator("h1").textContent()).toBe("Watch for the test message");
    expect(await form.locator("main").textContent()).toContain("Slack URL");
    expect(await form.locator("main").textContent()).not.toContain("secret");
    const slack = (await subscribers()).find((s) => s.type === "slack");
    expect(slack?.address).toMatch(/^https:\/\/hooks\.slack\.test\/… #[0-9a-f]{16}$/);
    await context.close();
  });
});
