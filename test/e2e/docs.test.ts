import { mkdirSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { AppEnv } from "../../server/http/route.ts";
import { makeApp, sqliteKind, useStore } from "../helpers.ts";
import { describeBrowser, launchChromium } from "../support/browser.ts";

const ARTIFACTS = "test-artifacts";
const TYPES: Record<string, RegExp> = {
  ".js": /^text\/javascript; charset=utf-8$/,
  ".css": /^text\/css; charset=utf-8$/,
  ".png": /^image\/png$/,
};

let app: ReturnType<typeof makeApp>["app"];
let listener: ReturnType<typeof makeApp>["listener"];

useStore(sqliteKind, ({ store }) => {
  ({ app, listener } = makeApp(store));
});

/** The addresses the page's markup asks for (stylesheets, icons, scripts, links). */
function referenced(html: string): string[] {
  return [...html.matchAll(/\s(?:href|src)="([^"]+)"/g)].map((m) => m[1] as string);
}

describe("GET /docs/api/reference/: the API reference page and its files", () => {
  test("/docs/api/reference and /docs/api/reference/ answer the page, with a policy that allows no inline or foreign script", async () => {
    for (const path of ["/docs/api/reference", "/docs/api/reference/"]) {
      const res = await app.request(path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      const csp = res.headers.get("content-security-policy") ?? "";
      const directives = Object.fromEntries(
        csp.split(";").map((d) => {
          const [name = "", ...values] = d.trim().split(/\s+/);
          return [name, values];
        }),
      );
      expect(directives["default-src"]).toEqual(["'none'"]);
      expect(directives["script-src"]).toEqual(["'self'"]);
      expect(directives["frame-ancestors"]).toEqual(["'none'"]);
      const html = await res.text();
      expect(html).not.toMatch(/<script(?![^>]*\bsrc=)/);
      expect(html).toContain('data-url="/public/v1/openapi.json"');
      // No CDN: every file is this server's.
      expect(html).not.toMatch(/(?:href|src)="(?:https?:)?\/\//);
    }
  });

  test("every file the page names answers 200 with its type, cached a year, and gzip when asked", async () => {
    const html = await (await app.request("/docs/api/reference/")).text();
    const files = referenced(html).filter((path) => path.startsWith("/docs/"));
    expect(files.map((path) => path.replace(/\.[0-9a-f]{10}\./, "."))).toEqual([
      "/docs/api/reference/swagger-ui.css",
      "/docs/api/reference/index.css",
      "/docs/api/reference/favicon-32x32.png",
      "/docs/api/reference/favicon-16x16.png",
      "/docs/api/reference/swagger-ui-bundle.js",
      "/docs/api/reference/init.js",
    ]);
    for (const path of files) {
      const plain = await app.request(path);
      expect(plain.status, path).toBe(200);
      expect(plain.headers.get("content-type"), path).toMatch(TYPES[path.slice(path.lastIndexOf("."))] as RegExp);
      expect(plain.headers.get("cache-control"), path).toBe("public, max-age=31536000, immutable");
      const bytes = new Uint8Array(await plain.arrayBuffer());
      expect(bytes.byteLength, path).toBeGreaterThan(100);
      if (path.endsWith(".png")) continue;
      const zipped = await app.request(path, { headers: { "accept-encoding": "br;q=1, gzip;q=0.5" } });
      expect(zipped.headers.get("content-encoding"), path).toBe("gzip");
      expect(zipped.headers.get("vary"), path).toBe("Accept-Encoding");
      // Buffer.equals: a deep comparison of a 1.7 MB array element by element takes seconds.
      expect(gunzipSync(new Uint8Array(await zipped.arrayBuffer())).equals(bytes), path).toBe(true);
    }
    const refused = await app.request(files[4] as string, { headers: { "accept-encoding": "gzip;q=0" } });
    expect(refused.headers.get("content-encoding")).toBeNull();
  });

  test("an unknown file is a 404, and the page is not an operation of the API", async () => {
    expect((await app.request("/docs/api/reference/swagger-ui-bundle.js")).status).toBe(404);
    expect((await app.request("/docs/api/reference/nothing.0123456789.js")).status).toBe(404);
    const doc = await (await app.request("/public/v1/openapi.json")).json();
    expect(Object.keys(doc.paths).filter((path) => path.startsWith("/docs"))).toEqual([]);
  });
});

describe("GET /docs/: the documentation site (dist/docs, built by the global setup as npm start does)", () => {
  test("/docs/ is the Starlight site, with its sidebar, the OpenAPI reference linked, and a strict policy", async () => {
    const res = await app.request("/docs/");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("no-cache");
    const csp = res.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    // Starlight's inline scripts are allowed by digest, never as a class.
    expect(csp).not.toContain("'unsafe-inline' 'self'");
    expect(csp).toMatch(/script-src 'self' 'wasm-unsafe-eval'( 'sha256-[A-Za-z0-9+/=]+')+;/);
    const html = await res.text();
    expect(html).toContain('<meta name="generator" content="Starlight');
    expect(html).toContain("<title>Porchlight");
    for (const link of ["/docs/getting-started/", "/docs/api/sites/", "/docs/configuration/", "/docs/api/reference/"])
      expect(html, link).toContain(`href="${link}"`);
    // No CDN: every script, style and image is this server's.
    expect(html).not.toMatch(/(?:src|href)="(?:https?:)?\/\/[^"]*\.(?:js|css|svg|png|woff2)"/);
    const again = await app.request("/docs/", { headers: { "if-none-match": res.headers.get("etag") as string } });
    expect(again.status).toBe(304);
  });

  test("a page without its slash redirects, hashed files are cached a year and compressed, the rest is a 404 page", async () => {
    const bare = await app.request("/docs");
    expect(bare.status).toBe(301);
    expect(bare.headers.get("location")).toBe("/docs/");
    const cli = await app.request("/docs/cli");
    expect(cli.status).toBe(301);
    expect(cli.headers.get("location")).toBe("/docs/cli/");
    const page = await (await app.request("/docs/cli/")).text();
    expect(page).toContain("porchlight token create");
    const style = referenced(page).find((path) => /^\/docs\/_astro\/.*\.css$/.test(path)) as string;
    const css = await app.request(style, { headers: { "accept-encoding": "br" } });
    expect(css.status).toBe(200);
    expect(css.headers.get("content-type")).toBe("text/css; charset=utf-8");
    expect(css.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(css.headers.get("content-encoding")).toBe("br");
    for (const path of [
      "/docs/no-such-page/",
      "/docs/.sources",
      "/docs/%2e%2e/package.json",
      "/docs/_astro/nothing.js",
    ]) {
      const missing = await app.request(path);
      expect(missing.status, path).toBe(404);
      expect(await missing.text(), path).toContain("404");
    }
  });

  test("a server whose documentation is not built still serves /docs/: a page saying how to build it", async () => {
    const { Hono } = await import("hono");
    const { docsPages } = await import("../../server/api/docs.ts");
    const { mountPages } = await import("../../server/http/mount.ts");
    const bare = new Hono<AppEnv>();
    mountPages(bare, docsPages({ publicUrl: "http://status.test", dir: "/nonexistent/porchlight-docs" }));
    const res = await bare.request("/docs/");
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const html = await res.text();
    expect(html).toContain("The documentation is not built");
    expect(html).toContain("npm run build:docs");
    expect(html).toContain('href="/docs/api/reference/"');
    // The API reference needs no build.
    expect((await bare.request("/docs/api/reference/")).status).toBe(200);
  });
});

describeBrowser("the API reference in Chromium", () => {
  let browser: Browser;
  let server: Server;
  let origin: string;

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    server = createServer(listener);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  test("renders every operation of the document from this origin alone, with no error and no policy violation", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const problems: string[] = [];
    const requests: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error" || message.type() === "warning") problems.push(message.text());
    });
    page.on("pageerror", (error) => problems.push(String(error)));
    page.on("request", (request) => requests.push(request.url()));
    await page.addInitScript(() => {
      document.addEventListener("securitypolicyviolation", (event) => {
        console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`);
      });
    });

    const res = await page.goto(`${origin}/docs/api/reference/`);
    expect(res?.status()).toBe(200);
    const listSites = page
      .locator(".opblock-summary", { has: page.locator(".opblock-summary-path[data-path='/public/v1/sites']") })
      .filter({ hasText: "GET" });
    // Swagger UI parses a 1.4 MB bundle before it renders: more than expect.poll's one second on a busy machine.
    await expect.poll(() => listSites.count(), { timeout: 15_000 }).toBe(1);
    await expect.poll(() => listSites.innerText()).toContain("List the workspace's sites, newest first");

    const doc = await (await app.request("/public/v1/openapi.json")).json();
    const documented = Object.values(doc.paths).flatMap((methods) => Object.keys(methods as object)).length;
    expect(await page.locator(".opblock").count()).toBe(documented);
    for (const tag of doc.tags as { name: string }[]) {
      expect(await page.locator(".opblock-tag", { hasText: tag.name }).count(), tag.name).toBeGreaterThan(0);
    }
    await expect.poll(() => page.locator(".info .title").innerText()).toContain("Porchlight API");
    // The validator badge would load an image from validator.swagger.io.
    expect(await page.locator(".validator-badge, img[src*='validator']").count()).toBe(0);

    await page.screenshot({ path: `${ARTIFACTS}/docs.png` });

    // An operation opened: its 429 and the headers its answers carry, from the document's components.
    await listSites.click();
    const opened = page.locator(".opblock.is-open", { hasText: "/public/v1/sites" });
    await expect.poll(() => opened.locator(".responses-table .response[data-code='429']").count()).toBe(1);
    const answers = await opened.locator(".responses-table").first().innerText();
    for (const name of ["X-Request-Id", "RateLimit-Policy", "RateLimit", "Retry-After"])
      expect(answers).toContain(name);
    await opened.screenshot({ path: `${ARTIFACTS}/docs-operation.png` });
    expect(problems).toEqual([]);
    expect(requests.filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith("data:"))).toEqual([]);
    expect(requests).toContain(`${origin}/public/v1/openapi.json`);
    await context.close();
  });

  test("the documentation site: no policy violation, light, dark and 375 px, search finds a route, the reference one click away", async () => {
    for (const [name, options] of [
      ["light", { viewport: { width: 1280, height: 900 }, colorScheme: "light" }],
      ["dark", { viewport: { width: 1280, height: 900 }, colorScheme: "dark" }],
      ["375", { viewport: { width: 375, height: 800 }, colorScheme: "light" }],
    ] as const) {
      const context = await browser.newContext(options);
      const page = await context.newPage();
      const problems: string[] = [];
      const requests: string[] = [];
      page.on("console", (message) => {
        if (message.type() === "error") problems.push(message.text());
      });
      page.on("pageerror", (error) => problems.push(String(error)));
      page.on("request", (request) => requests.push(request.url()));
      await page.addInitScript(() => {
        document.addEventListener("securitypolicyviolation", (event) => {
          console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`);
        });
      });
      const res = await page.goto(`${origin}/docs/api/sites/`);
      expect(res?.status(), name).toBe(200);
      await expect.poll(() => page.locator("h1").innerText()).toBe("Sites");
      // Nothing wider than the screen.
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), name).toBe(true);
      await page.screenshot({ path: `${ARTIFACTS}/docs-site-${name}.png` });
      if (name === "light") {
        // Pagefind's search (WebAssembly) runs under the page's policy.
        await page.locator("site-search button[data-open-modal]").click();
        await page.locator("dialog input").fill("maintenance");
        await expect.poll(() => page.locator(".pagefind-ui__result").count(), { timeout: 15_000 }).toBeGreaterThan(0);
        await page.screenshot({ path: `${ARTIFACTS}/docs-site-search.png` });
        await page.keyboard.press("Escape");
        await page.locator('a[href="/docs/api/reference/"]').first().click();
        await page.waitForURL(`${origin}/docs/api/reference/`);
        await expect
          .poll(() => page.locator(".info .title").innerText(), { timeout: 15_000 })
          .toContain("Porchlight API");
      }
      expect(problems, name).toEqual([]);
      expect(
        requests.filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith("data:")),
        name,
      ).toEqual([]);
      await context.close();
    }
  });
});
