// Issue 17, part 6: the protected and error states on the embed, the README's iframe and the hosted pages (the
// static build's are in site.test.ts, which builds it). Each state's box is as tall as its content, passes axe-core,
// offers a retry only after a failed request, and is photographed light, dark and 375 px wide for a reviewer.
import { mkdirSync } from "node:fs";
import type { Server } from "node:http";
import axe from "axe-core";
import type { Browser, BrowserContext, Frame, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Store } from "../../server/store/store.ts";
import { client, makeApp, seedOwner, seedStatusPage, sqliteKind, TestClock } from "../helpers.ts";
import { collectPageErrors, describeBrowser, launchChromium } from "../support/browser.ts";
import { listen } from "../support/listen.ts";

const ARTIFACTS = "test-artifacts";
const PASSWORD = "correct horse";
/** Wrong passwords one client may send a page within the window before it is answered 429. */
const ATTEMPTS = 4;

/**
 * axe-core run in the page or frame through DevTools (a hosted page's CSP allows no inline script), on the whole
 * document or on the elements `include` selects.
 */
async function audit(target: Page | Frame, include?: string): Promise<string[]> {
  await target.evaluate(axe.source);
  const result = await target.evaluate(
    (include) =>
      (window as unknown as { axe: typeof axe }).axe.run(include ?? document, { resultTypes: ["violations"] }),
    include,
  );
  return result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

/** The element's box and its host, as laid out. */
function measure(element: Locator) {
  return element.evaluate((host) => {
    const base = host.shadowRoot?.querySelector("[part~=base]") as HTMLElement;
    return {
      host: host.getBoundingClientRect().height,
      base: base.getBoundingClientRect().height,
      scrolls: base.scrollHeight > base.clientHeight,
      message: host.matches(":state(message)"),
    };
  });
}

/** A box as tall as its content: the host and its box one height, well short of the page's 600 px, nothing hidden. */
async function expectContentSized(element: Locator): Promise<void> {
  const box = await measure(element);
  expect(box.message).toBe(true);
  expect(box.scrolls).toBe(false);
  // The prompt (a lock, the heading, the field, the show-password box, the button) is about 310-360 px.
  expect(box.host).toBeLessThan(400);
  expect(Math.abs(box.host - box.base)).toBeLessThan(1);
}

const VARIANTS = [
  { name: "light", width: 900, colorScheme: "light" },
  { name: "dark", width: 900, colorScheme: "dark" },
  { name: "375", width: 375, colorScheme: "light" },
] as const;

describeBrowser("the protected and error states, in Chromium", () => {
  let store: Store;
  let cleanup: () => Promise<void>;
  let browser: Browser;
  let api: { server: Server; origin: string };
  let host: { server: Server; origin: string };

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    ({ store, cleanup } = await sqliteKind.open());
    // The browser reads real time, so the server's clock starts at real time too.
    const made = makeApp(store, {
      clock: new TestClock(new Date()),
      env: { PORCHLIGHT_VIEW_TTL_SECONDS: "300", PORCHLIGHT_PASSWORD_ATTEMPTS: String(ATTEMPTS) },
    });
    const owner = await seedOwner(store, "stack");
    const call = client(made.app, owner.token);
    const now = made.clock.now();
    // One password page per purpose: wrong passwords count per page and client, and this client is 127.0.0.1.
    for (const slug of ["locked", "unlock", "hosted", "limited"]) {
      await seedStatusPage(call, store, now, slug, { visibility: "password", password: PASSWORD }, ["Internal"]);
    }
    await seedStatusPage(call, store, now, "inside", { visibility: "private" }, ["Intranet"]);
    made.recorded({ sites: [], pagesChanged: true });
    api = await listen(made.listener);
    host = await listen((req, res) => {
      const url = new URL(req.url ?? "/", "http://host");
      const slug = url.searchParams.get("slug") ?? "locked";
      const element = `<script type="module" src="${api.origin}/embed/porchlight.js"></script>
<porchlight-status slug="${slug}" api-base="${api.origin}"></porchlight-status>`;
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><meta name="color-scheme" content="light dark">
<title>Host page</title></head><body><main><h1>Acme's own page</h1>
<p><button id="host-button" type="button">Host button</button></p>
${url.searchParams.has("iframe") ? `<iframe title="Acme status" style="border:0; width:100%; height:42rem" srcdoc='${element}'></iframe>` : element}
<p id="after">After the status.</p></main></body></html>`);
    });
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => api?.server.close(resolve));
    await new Promise((resolve) => host?.server.close(resolve));
    await cleanup?.();
  });

  async function visit(
    url: string,
    options: { width?: number; colorScheme?: "light" | "dark"; javaScript?: boolean } = {},
  ) {
    const context: BrowserContext = await browser.newContext({
      viewport: { width: options.width ?? 900, height: 900 },
      colorScheme: options.colorScheme ?? "light",
      javaScriptEnabled: options.javaScript ?? true,
    });
    const page = await context.newPage();
    const errors = collectPageErrors(page);
    await page.goto(url);
    const element = page.locator("porchlight-status");
    const inShadow = (selector: string) => element.locator(selector);
    /** Console errors other than the browser's own line for a load that answered one of `statuses`. */
    const unexpectedErrors = (...statuses: number[]) =>
      errors.filter((e) => !statuses.some((s) => e.includes(`status of ${s}`)));
    return { context, page, element, inShadow, unexpectedErrors };
  }

  /** The id of the element focused inside the element's shadow root, else the document's focused tag. */
  const focused = (page: Page) =>
    page.evaluate(() => {
      const inside = document.querySelector("porchlight-status")?.shadowRoot?.activeElement;
      return inside ? `${inside.localName}#${inside.id}` : (document.activeElement?.localName ?? "");
    });

  describe("the embed, each state in light, dark and at 375 px", () => {
    test.each(VARIANTS)("the password prompt, $name", async ({ name, width, colorScheme }) => {
      const v = await visit(`${host.origin}/?slug=locked`, { width, colorScheme });
      await expect.poll(() => v.inShadow("label[for=password]").textContent()).toBe("Password");
      await expectContentSized(v.element);
      // The host page's next paragraph follows the box, not a 600 px frame around it.
      const box = await v.element.boundingBox();
      const after = await v.page.locator("#after").boundingBox();
      expect((after?.y ?? 0) - ((box?.y ?? 0) + (box?.height ?? 0))).toBeLessThan(40);
      expect(await v.inShadow("button").textContent()).toBe("Show status");
      expect(await audit(v.page)).toEqual([]);
      await v.element.screenshot({ path: `${ARTIFACTS}/state-prompt-${name}.png` });
      expect(v.unexpectedErrors(401)).toEqual([]);
      await v.context.close();
    });

    test.each(VARIANTS)("a wrong password, $name", async ({ name, width, colorScheme }) => {
      const v = await visit(`${host.origin}/?slug=locked`, { width, colorScheme });
      await expect.poll(() => v.inShadow("[part~=input]").count()).toBe(1);
      await v.inShadow("[part~=input]").fill("wrong horse");
      await v.inShadow("[part~=input]").press("Enter");
      await expect.poll(() => v.inShadow("[role=alert]").textContent()).toBe("The password is incorrect.");
      expect(await focused(v.page)).toBe("input#password");
      await expectContentSized(v.element);
      expect(await audit(v.page)).toEqual([]);
      await v.element.screenshot({ path: `${ARTIFACTS}/state-wrong-password-${name}.png` });
      expect(v.unexpectedErrors(401)).toEqual([]);
      await v.context.close();
    });

    test.each(VARIANTS)("too many attempts, $name", async ({ name, width, colorScheme }) => {
      const v = await visit(`${host.origin}/?slug=limited`, { width, colorScheme });
      await expect.poll(() => v.inShadow("[part~=input]").count()).toBe(1);
      // Wrong passwords until the server says 429 (the first answer already, for the later variants: the window is
      // 15 minutes).
      const limited = async () => (await v.inShadow("[role=alert]").allTextContents()).join("").includes("many");
      for (let i = 0; i <= ATTEMPTS && !(await limited()); i++) {
        await v.inShadow("[part~=input]").fill(`wrong ${i}`);
        const answered = v.page.waitForResponse((r) => r.url().includes("/status-page/limited"));
        await v.inShadow("[part~=input]").press("Enter");
        if ((await answered).status() === 429) break;
      }
      // The server's window (900 s) in words, never in seconds.
      await expect
        .poll(() => v.inShadow("[role=alert]").textContent())
        .toMatch(/^Too many attempts\. Try again in (about )?15\sminutes\.$/);
      await expectContentSized(v.element);
      expect(await audit(v.page)).toEqual([]);
      await v.element.screenshot({ path: `${ARTIFACTS}/state-rate-limited-${name}.png` });
      expect(v.unexpectedErrors(401, 429)).toEqual([]);
      await v.context.close();
    });

    test.each(VARIANTS)("no such page, without a retry, $name", async ({ name, width, colorScheme }) => {
      const v = await visit(`${host.origin}/?slug=nothing-here`, { width, colorScheme });
      await expect.poll(() => v.inShadow("h2").textContent()).toBe("No such status page.");
      expect(await v.inShadow("button").count()).toBe(0);
      await expectContentSized(v.element);
      expect(await audit(v.page)).toEqual([]);
      await v.element.screenshot({ path: `${ARTIFACTS}/state-not-found-${name}.png` });
      expect(v.unexpectedErrors(404)).toEqual([]);
      await v.context.close();
    });

    test.each(VARIANTS)("a private page, without a link or a retry, $name", async ({ name, width, colorScheme }) => {
      const v = await visit(`${host.origin}/?slug=inside`, { width, colorScheme });
      await expect
        .poll(() => v.inShadow("h2").textContent())
        .toBe("This status page is private to its workspace's members.");
      expect(await v.inShadow("a, button").count()).toBe(0);
      await expectContentSized(v.element);
      expect(await audit(v.page)).toEqual([]);
      await v.element.screenshot({ path: `${ARTIFACTS}/state-private-${name}.png` });
      expect(v.unexpectedErrors(401)).toEqual([]);
      await v.context.close();
    });
  });

  test("the embed: a failed request keeps its retry, and the page after it has the page's height again", async () => {
    const context = await browser.newContext({ viewport: { width: 900, height: 900 } });
    const page = await context.newPage();
    let failures = 1;
    await page.route("**/public/v1/status-page/**", (route) =>
      failures-- > 0
        ? route.fulfill({ status: 503, headers: { "access-control-allow-origin": "*" }, body: "" })
        : route.continue(),
    );
    await page.goto(`${host.origin}/?slug=locked`);
    const element = page.locator("porchlight-status");
    await expect.poll(() => element.locator("h2").textContent()).toBe("Could not load the status.");
    await expectContentSized(element);
    expect(await audit(page)).toEqual([]);
    await element.locator("button").click();
    await expect.poll(() => element.locator("label[for=password]").textContent()).toBe("Password");
    await element.locator("[part~=input]").fill(PASSWORD);
    await element.locator("[part~=input]").press("Enter");
    await expect.poll(() => element.locator("[part~=banner]").count()).toBe(1);
    const box = await measure(element);
    expect(box).toMatchObject({ host: 600, base: 600, message: false });
    await context.close();
  });

  test("the embed: unlocking moves the focus to the page's heading, by keyboard", async () => {
    const v = await visit(`${host.origin}/?slug=unlock`);
    await expect.poll(() => v.inShadow("[part~=input]").count()).toBe(1);
    await v.page.focus("#host-button");
    await v.page.keyboard.press("Tab");
    expect(await focused(v.page)).toBe("input#password");
    await v.page.keyboard.type(PASSWORD);
    await v.page.keyboard.press("Enter");
    await expect.poll(() => v.inShadow("[part~=banner]").count()).toBe(1);
    await expect.poll(() => focused(v.page)).toBe("h2#name");
    expect(await v.inShadow("h2").textContent()).toBe("Acme unlock");
    expect(await v.inShadow("h2").getAttribute("tabindex")).toBe("-1");
    // A heading is no tab stop: the next Tab goes on to the box (it scrolls) or into the page, not back to it.
    await v.page.keyboard.press("Tab");
    expect(await focused(v.page)).not.toBe("h2#name");
    expect(await audit(v.page)).toEqual([]);
    expect(v.unexpectedErrors(401)).toEqual([]);
    await v.context.close();
  });

  test("the README's iframe: the prompt is as tall as its content inside the frame", async () => {
    const v = await visit(`${host.origin}/?slug=locked&iframe`);
    const frame = v.page.frameLocator("iframe");
    const element = frame.locator("porchlight-status");
    await expect.poll(() => element.locator("label[for=password]").textContent()).toBe("Password");
    await expectContentSized(element);
    // The frame's document is the owner's two tags (no title, no lang): only the element is ours to audit.
    const inner = v.page.frames().find((f) => f !== v.page.mainFrame()) as Frame;
    expect(await audit(inner, "porchlight-status")).toEqual([]);
    await v.context.close();

    const missing = await visit(`${host.origin}/?slug=nothing-here&iframe`);
    const gone = missing.page.frameLocator("iframe").locator("porchlight-status");
    await expect.poll(() => gone.locator("h2").textContent()).toBe("No such status page.");
    expect(await gone.locator("button").count()).toBe(0);
    await expectContentSized(gone);
    await missing.context.close();
  });

  test("hosted: the password page's note shows only without JavaScript; with it, unlocking focuses the heading", async () => {
    const still = await visit(`${api.origin}/hosted`, { javaScript: false });
    expect(await still.page.locator("p.nojs").textContent()).toBe(
      "This page needs JavaScript to check the password. Turn JavaScript on and reload the page to unlock it.",
    );
    expect(await still.page.locator("p.nojs").isVisible()).toBe(true);
    // The note comes before the prompt, so it is read first.
    const order = await still.page.evaluate(
      () =>
        (document.querySelector("p.nojs") as Element).compareDocumentPosition(
          document.querySelector("porchlight-status") as Element,
        ) & Node.DOCUMENT_POSITION_FOLLOWING,
    );
    expect(order).toBeTruthy();
    expect(await still.inShadow("label[for=password]").textContent()).toBe("Password");
    // (axe-core cannot run here: its checks wait on timers, which a page without JavaScript never fires.)
    await still.page.screenshot({ path: `${ARTIFACTS}/state-hosted-noscript.png` });
    await still.context.close();

    const v = await visit(`${api.origin}/hosted`);
    await expect
      .poll(() =>
        v.page.evaluate(
          () => (document.querySelector("porchlight-status") as unknown as { hasUpdated?: boolean }).hasUpdated,
        ),
      )
      .toBe(true);
    expect(await v.page.locator("p.nojs").count()).toBe(0);
    await expectContentSized(v.element);
    expect(await audit(v.page)).toEqual([]);
    await v.inShadow("[part~=input]").fill(PASSWORD);
    await v.inShadow("[part~=input]").press("Enter");
    await expect.poll(() => v.inShadow("[part~=banner]").count()).toBe(1);
    await expect.poll(() => focused(v.page)).toBe("h2#name");
    expect(v.unexpectedErrors(401)).toEqual([]);
    await v.context.close();
  });

  test("hosted: the private page explains itself, and ?embed=1 frames a content-sized prompt", async () => {
    const inside = await visit(`${api.origin}/inside`);
    await expect
      .poll(() => inside.inShadow("h2").textContent())
      .toBe("This status page is private to its workspace's members.");
    expect(await inside.inShadow("a, button").count()).toBe(0);
    expect(await inside.page.locator("p.nojs").count()).toBe(0);
    await expectContentSized(inside.element);
    expect(await audit(inside.page)).toEqual([]);
    await inside.context.close();

    const framed = await visit(`${api.origin}/locked?embed=1`);
    await expect.poll(() => framed.inShadow("label[for=password]").textContent()).toBe("Password");
    await expectContentSized(framed.element);
    expect(await audit(framed.page)).toEqual([]);
    expect(framed.unexpectedErrors(401)).toEqual([]);
    await framed.context.close();
  });
});
