import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { request, type Server } from "node:http";
import { tmpdir } from "node:os";
import { extname, join, normalize } from "node:path";
import { promisify } from "node:util";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { Store } from "../../server/store/store.ts";
import { client, makeApp, seedOwner, seedStatusPage, sqliteKind, TestClock } from "../helpers.ts";
import { axeViolations, collectPageErrors, describeBrowser, launchChromium } from "../support/browser.ts";
import { svgLogo } from "../support/images.ts";
import { listen } from "../support/listen.ts";

const PASSWORD = "correct horse";
/** Words that exist only in protected pages: no file of the static build may hold them. */
const SECRETS = ["SECRET-ITEM-7f3a", "SECRET-INCIDENT-9b2c", "SECRET-PRIVATE-41d0"];
const SITE_URL = "https://status.example.com";
const BASE = "/status/";
const DOMAIN = "status.acme.test";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".xml": "application/xml; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".svg": "image/svg+xml",
};

/** Every file under a folder, recursively. */
function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? walk(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

/** A GET with a Host header of our choosing (fetch does not let a caller set Host). */
function getWithHost(
  origin: string,
  path: string,
  host: string,
): Promise<{ status: number; body: string; location: string | undefined }> {
  const url = new URL(path, origin);
  return new Promise((resolve, reject) => {
    const req = request({ hostname: url.hostname, port: url.port, path: url.pathname, headers: { host } }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => {
        body += chunk;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body, location: res.headers.location }));
    });
    req.on("error", reject);
    req.end();
  });
}

describeBrowser("the status site: the static build and the hosted pages, in Chromium", () => {
  let store: Store;
  let dataDir: string;
  let cleanup: () => Promise<void>;
  let browser: Browser;
  let outDir: string;
  let call: ReturnType<typeof client>;
  let recorded: ReturnType<typeof makeApp>["recorded"];
  let app: { server: Server; origin: string };
  let site: { server: Server; origin: string };
  let host: { server: Server; origin: string };
  let siteIds: string[] = [];
  /** The acme page's uploaded logo: its path on the server, /assets/<sha-256>.svg. */
  let logo: string;
  /** The moved page's open incident (Checkout major outage, Search degraded), which a test resolves. */
  let movedIncident: { pageId: string; id: number };

  beforeAll(async () => {
    ({ store, dataDir, cleanup } = await sqliteKind.open());
    // The browser reads real time, so the server's clock starts at real time too.
    const made = makeApp(store, { clock: new TestClock(new Date()), env: { PORCHLIGHT_VIEW_TTL_SECONDS: "300" } });
    recorded = made.recorded;
    const owner = await seedOwner(store, "stack");
    call = client(made.app, owner.token);
    const now = made.clock.now();
    const page = async (slug: string, extra: Record<string, unknown>, labels: string[]) => {
      const made = await seedStatusPage(call, store, now, slug, extra, labels);
      await store.db
        .updateTable("sites")
        .set({ state: "healthy", last_check_time: now.toISOString(), last_response_ms: 182 })
        .where("id", "in", made.ids)
        .execute();
      return made;
    };
    const incident = async (pageId: string, title: string) => {
      const created = await call.post(`/public/v1/status-pages/${pageId}/incidents`, {
        title,
        message: "Payments answer slowly.",
        startedAt: new Date(now.getTime() - 90 * 60_000).toISOString(),
      });
      expect(created.status).toBe(201);
      const update = await call.post(`/public/v1/status-pages/${pageId}/incidents/${created.json.data.id}/updates`, {
        status: "resolved",
        message: "The payment provider fixed it.",
      });
      expect(update.status).toBe(201);
    };
    const acme = await page(
      "acme",
      { description: "Everything Acme runs.", display: { historyDays: 30 }, customDomain: DOMAIN },
      ["Website", "Checkout", "Search"],
    );
    siteIds = acme.ids;
    await incident(acme.id, "Slow checkout");
    // An uploaded logo, which the build copies beside the pages.
    const uploaded = await made.app.request(`/public/v1/status-pages/${acme.id}/logo`, {
      method: "PUT",
      headers: { authorization: `Bearer ${owner.token}`, "content-type": "image/svg+xml" },
      body: svgLogo() as Uint8Array<ArrayBuffer>,
    });
    expect(uploaded.status).toBe(200);
    logo = ((await uploaded.json()) as { data: { logo: string } }).data.logo;
    const locked = await page("locked", { visibility: "password", password: PASSWORD }, ["SECRET-ITEM-7f3a"]);
    await incident(locked.id, "SECRET-INCIDENT-9b2c");
    await page("inside", { visibility: "private" }, ["SECRET-PRIVATE-41d0"]);
    // An open incident of its owner's, with an impact and two services named: the build prerenders the page it moves.
    const moved = await page("moved", {}, ["Website", "Checkout", "Search"]);
    const movedItems = (await call.get(`/public/v1/status-pages/${moved.id}`)).json.data.items as { id: number }[];
    const opened = await call.post(`/public/v1/status-pages/${moved.id}/incidents`, {
      title: "Checkout errors",
      message: "Payments fail for some customers.",
      impact: "critical",
      items: [
        { id: movedItems[1]?.id, status: "major_outage" },
        { id: movedItems[2]?.id, status: "degraded" },
      ],
    });
    expect(opened.status, opened.text).toBe(201);
    movedIncident = { pageId: moved.id, id: opened.json.data.id };
    recorded({ sites: [], pagesChanged: true });

    app = await listen(made.listener);
    // The static build, into a folder of its own, from the same SQLite file in a child process (as `npm run build`
    // would run it: NODE_ENV=production, so Vite does not bundle Lit's development build).
    outDir = mkdtempSync(join(tmpdir(), "porchlight-site-"));
    const networkLog = `${outDir}-network.log`;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORCHLIGHT_DATA_DIR: dataDir,
      PORCHLIGHT_SITE_URL: SITE_URL,
      PORCHLIGHT_SITE_BASE: BASE,
      PORCHLIGHT_SITE_API_URL: app.origin,
      NODE_ENV: "production",
      // Every connection or lookup towards another host is written here: a build makes none (Astro's telemetry is
      // off in astro.config.mjs, not by this environment).
      NODE_OPTIONS: `--import ${join(process.cwd(), "test/support/network-log.mjs")}`,
      PORCHLIGHT_NETWORK_LOG: networkLog,
      LOG_LEVEL: "silent",
    };
    for (const name of ["PORCHLIGHT_API_URL", "PORCHLIGHT_API_TOKEN", "DATABASE_URL", "PORCHLIGHT_PUBLIC_URL"]) {
      delete env[name];
    }
    await promisify(execFile)(process.execPath, ["node_modules/.bin/astro", "build", "--outDir", outDir], {
      env,
      maxBuffer: 16 * 1024 * 1024,
    });
    expect(existsSync(networkLog) ? readFileSync(networkLog, "utf8") : "").toBe("");
    rmSync(networkLog, { force: true });

    // A plain static host: /status/... from the build, its 404 page for anything else.
    site = await listen((req, res) => {
      const path = decodeURIComponent(new URL(req.url ?? "/", "http://site").pathname);
      let file: string | undefined;
      if (path.startsWith(BASE)) {
        const relative = normalize(path.slice(BASE.length)).replace(/^(\.\.(\/|$))+/, "");
        const candidate = join(outDir, relative);
        file = existsSync(candidate) && statSync(candidate).isDirectory() ? join(candidate, "index.html") : candidate;
      }
      if (file && existsSync(file) && statSync(file).isFile()) {
        res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" });
        res.end(readFileSync(file));
        return;
      }
      res.writeHead(404, { "content-type": TYPES[".html"] });
      res.end(readFileSync(join(outDir, "404.html")));
    });
    // Another site (another host name, so another site, not only another origin) that frames the hosted pages.
    host = await listen((req, res) => {
      const slug = new URL(req.url ?? "/", "http://host").searchParams.get("slug") ?? "acme";
      res.writeHead(200, { "content-type": TYPES[".html"] });
      res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Host page</title></head>
<body><main><h1>Our status</h1><iframe title="Acme status" style="border:0;width:100%;height:40rem"
  src="${app.origin}/${slug}?embed=1"></iframe></main></body></html>`);
    }, "localhost");
    browser = await launchChromium();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    for (const s of [app, site, host]) await new Promise((resolve) => s?.server.close(resolve));
    await cleanup?.();
    if (outDir) rmSync(outDir, { recursive: true, force: true });
  });

  /** A fresh visitor: its own context, console errors, warnings and page errors collected. */
  async function visit(
    url: string,
    options: { javaScript?: boolean; before?: (page: Page) => Promise<unknown>; waitUntil?: "load" | "commit" } = {},
  ) {
    const context: BrowserContext = await browser.newContext({
      viewport: { width: 900, height: 900 },
      javaScriptEnabled: options.javaScript ?? true,
    });
    const page = await context.newPage();
    const errors = collectPageErrors(page);
    await options.before?.(page);
    const response = await page.goto(url, { waitUntil: options.waitUntil ?? "load" });
    const inShadow = (selector: string) => page.locator("porchlight-status").locator(selector);
    const audit = () => axeViolations(page);
    /** Console errors other than the browser's own line for a load that answered one of `statuses`. */
    const unexpectedErrors = (...statuses: number[]) =>
      errors.filter((e) => !statuses.some((s) => e.includes(`status of ${s}`)));
    const upgraded = () =>
      page.evaluate(
        () =>
          customElements.get("porchlight-status") !== undefined &&
          (document.querySelector("porchlight-status") as unknown as { hasUpdated: boolean }).hasUpdated,
      );
    return { context, page, response, errors, inShadow, audit, unexpectedErrors, upgraded };
  }

  test("without JavaScript, the static page shows everything: name, banner, items and incident", async () => {
    const v = await visit(`${site.origin}${BASE}acme/`, { javaScript: false });
    expect(v.response?.status()).toBe(200);
    expect(await v.page.evaluate(() => customElements.get("porchlight-status"))).toBeUndefined();
    // Declarative shadow DOM: the parser attached the rendered shadow root, no script ran.
    expect(await v.page.evaluate(() => document.querySelector("porchlight-status")?.shadowRoot?.mode)).toBe("open");
    expect(await v.inShadow("h2").textContent()).toBe("Acme acme");
    expect(await v.inShadow("[part~=banner]").textContent()).toContain("All systems operational");
    const items = v.inShadow("[part~=item]");
    expect(await items.count()).toBe(3);
    expect((await items.allInnerTexts()).map((text) => text.split("\n")[0])).toEqual(["Website", "Checkout", "Search"]);
    // A 30-day history: one slider, its days 0 to 29.
    expect(await items.first().locator("[part~=history]").getAttribute("aria-valuemax")).toBe("29");
    // Resolved: a past incident, under its day's heading.
    expect(await v.inShadow("[part~=incident] h5").textContent()).toBe("Slow checkout");
    expect(await v.page.title()).toBe("Acme acme status");
    expect(await v.page.locator('link[rel="canonical"]').getAttribute("href")).toBe(`${SITE_URL}${BASE}acme/`);
    expect(await v.page.locator('link[type="application/rss+xml"]').getAttribute("href")).toBe(`${BASE}acme/feed.xml`);
    expect(v.unexpectedErrors()).toEqual([]);
    await v.context.close();
  });

  test("the static build shows an open incident's services and banner as it says; resolving it restores them live", async () => {
    const rows = async (v: Awaited<ReturnType<typeof visit>>) =>
      (await v.inShadow("[part~=item]").allInnerTexts()).map((text) => text.replace(/\s+/g, " "));
    const still = await visit(`${site.origin}${BASE}moved/`, { javaScript: false });
    expect(await still.inShadow("[part~=banner]").textContent()).toContain("Partial outage");
    const prerendered = await rows(still);
    expect(prerendered.find((row) => row.startsWith("Checkout"))).toContain("Major outage");
    expect(prerendered.find((row) => row.startsWith("Search"))).toContain("Degraded");
    expect(prerendered.find((row) => row.startsWith("Website"))).toContain("Operational");
    expect(await still.inShadow("[part~=incident] h4, [part~=incident] h5").first().textContent()).toContain(
      "Checkout errors",
    );
    await still.context.close();

    const resolved = await call.post(
      `/public/v1/status-pages/${movedIncident.pageId}/incidents/${movedIncident.id}/updates`,
      { status: "resolved", message: "Payments go through again." },
    );
    expect(resolved.status).toBe(201);
    // The static page refreshes from the API: every service back to what the engine sees, the banner with them.
    const live = await visit(`${site.origin}${BASE}moved/`);
    await expect.poll(() => live.upgraded()).toBe(true);
    await live.page.evaluate(() =>
      (document.querySelector("porchlight-status") as unknown as { reload(): void }).reload(),
    );
    await expect.poll(() => live.inShadow("[part~=banner]").textContent()).toContain("All systems operational");
    expect((await rows(live)).every((row) => row.includes("Operational"))).toBe(true);
    await live.context.close();
  });

  test("with JavaScript, the element takes the markup over: no error, no new nodes, no layout shift", async () => {
    const url = `${site.origin}${BASE}acme/`;
    const still = await visit(url, { javaScript: false });
    const box = await still.page.locator("porchlight-status").boundingBox();
    expect(box?.height).toBeGreaterThan(0);
    await still.context.close();

    // The page script is held until the server-rendered banner is marked, so the takeover can be seen to keep it.
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const v = await visit(url, {
      waitUntil: "commit",
      before: (page) =>
        page.route("**/embed/porchlight-page.*.js", async (route) => {
          await held;
          await route.continue();
        }),
    });
    const refreshed = v.page.waitForResponse(`${app.origin}/public/v1/status-page/acme`);
    await expect
      .poll(() =>
        v.page.evaluate(() => {
          const banner = document.querySelector("porchlight-status")?.shadowRoot?.querySelector("[part~=banner]");
          if (banner) (window as unknown as { banner: Element }).banner = banner;
          return Boolean(banner);
        }),
      )
      .toBe(true);
    // From here on, every layout shift is recorded: the takeover's and the live refresh's. The static page's own load
    // (parsed and painted in pieces on a busy machine, before any script) is not what this test is about.
    await expect.poll(() => v.page.evaluate(() => document.readyState)).not.toBe("loading");
    await v.page.evaluate(
      () =>
        new Promise<void>((resolve) => {
          const w = window as unknown as { shifts: string[]; shifted: number };
          w.shifts = [];
          w.shifted = 0;
          requestAnimationFrame(() =>
            requestAnimationFrame(() => {
              new PerformanceObserver((list) => {
                for (const entry of list.getEntries()) {
                  const shift = entry as unknown as { value: number; sources?: { node?: Node }[] };
                  w.shifted += shift.value;
                  const nodes = (shift.sources ?? []).map((s) =>
                    (s.node as Element | undefined)?.outerHTML?.slice(0, 80),
                  );
                  w.shifts.push(`${shift.value}: ${nodes.join(" | ")}`);
                }
              }).observe({ type: "layout-shift" });
              resolve();
            }),
          );
        }),
    );
    release();
    await v.page.waitForLoadState("load");
    await expect.poll(() => v.upgraded()).toBe(true);
    // The live refresh from the API (another origin, allowed by the page's CSP) arrives and changes nothing visible.
    expect((await refreshed).status()).toBe(200);
    await v.page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    expect(
      await v.page.evaluate(
        () =>
          document.querySelector("porchlight-status")?.shadowRoot?.querySelector("[part~=banner]") ===
          (window as unknown as { banner: Element }).banner,
      ),
    ).toBe(true);
    // Hydration keeps the server's part markers; a fresh client render would have replaced them.
    expect(
      await v.page.evaluate(() =>
        document.querySelector("porchlight-status")?.shadowRoot?.innerHTML.includes("lit-part"),
      ),
    ).toBe(true);
    const { shifted, shifts } = await v.page.evaluate(
      () =>
        new Promise<{ shifted: number; shifts: string[] }>((resolve) => {
          const w = window as unknown as { shifts: string[]; shifted: number };
          requestAnimationFrame(() =>
            requestAnimationFrame(() => setTimeout(() => resolve({ shifted: w.shifted, shifts: w.shifts }), 50)),
          );
        }),
    );
    expect(shifted, shifts.join("\n")).toBe(0);
    expect(await v.page.locator("porchlight-status").boundingBox()).toEqual(box);
    expect(await v.inShadow("[part~=banner]").textContent()).toContain("All systems operational");
    expect(await v.inShadow("[part~=item]").count()).toBe(3);
    expect(v.errors.filter((e) => /hydration/i.test(e))).toEqual([]);
    expect(v.unexpectedErrors()).toEqual([]);
    await v.context.close();
  });

  test("the uploaded logo heads the static page (copied into the build) and the hosted page, loaded under their CSP", async () => {
    expect(readFileSync(join(outDir, logo.slice(1)), "utf8")).toBe(new TextDecoder().decode(svgLogo()));
    for (const [url, src] of [
      [`${site.origin}${BASE}acme/`, `${BASE}${logo.slice(1)}`],
      [`${app.origin}/acme`, logo],
    ] as const) {
      const v = await visit(url);
      const img = v.page.locator("h1.logo img");
      expect(await img.getAttribute("src")).toBe(src);
      expect(await img.getAttribute("alt")).toBe("Acme acme status");
      await expect.poll(() => img.evaluate((i: HTMLImageElement) => i.complete && i.naturalWidth)).toBeGreaterThan(0);
      expect(v.unexpectedErrors()).toEqual([]);
      await v.context.close();
    }
  });

  test("the static page refreshes live from the API: a state recorded after the build shows", async () => {
    const v = await visit(`${site.origin}${BASE}acme/`);
    await expect.poll(() => v.upgraded()).toBe(true);
    const requests: string[] = [];
    v.page.on("request", (r) => {
      if (r.url().includes("/public/v1/status-page/")) requests.push(r.url());
    });
    const unhealthy = siteIds[1] as string;
    expect(await v.page.locator("link[rel=icon][data-status]").getAttribute("href")).toContain("%231a7f37");
    try {
      await store.db.updateTable("sites").set({ state: "unhealthy" }).where("id", "=", unhealthy).execute();
      recorded({ sites: [unhealthy], pagesChanged: true });
      await v.page.evaluate(() =>
        (document.querySelector("porchlight-status") as unknown as { reload(): void }).reload(),
      );
      await expect.poll(() => v.inShadow("[part~=banner]").textContent()).toContain("Partial outage");
      // The tab's status disc follows: from the build's green to the orange of a partial outage.
      expect(await v.page.locator("link[rel=icon][data-status]").getAttribute("href")).toContain("%23bc4c00");
      expect(await v.inShadow("[part~=item]").nth(1).innerText()).toContain("Major outage");
      expect(requests).toEqual([`${app.origin}/public/v1/status-page/acme`]);
    } finally {
      await store.db.updateTable("sites").set({ state: "healthy" }).where("id", "=", unhealthy).execute();
      recorded({ sites: [unhealthy], pagesChanged: true });
    }
    expect(v.unexpectedErrors()).toEqual([]);
    await v.context.close();
  });

  test("nothing of a protected page is in the build; they are shells with the prompt, without feeds", async () => {
    const files = walk(outDir);
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const text = readFileSync(file, "latin1");
      for (const secret of SECRETS) expect(text.includes(secret), `${file} holds ${secret}`).toBe(false);
    }
    for (const slug of ["locked", "inside"]) {
      expect(existsSync(join(outDir, slug, "index.html")), `${slug}/index.html`).toBe(true);
      for (const name of ["feed.xml", "atom.xml", "status.json"]) {
        expect(existsSync(join(outDir, slug, name)), `${slug}/${name}`).toBe(false);
        expect((await fetch(`${site.origin}${BASE}${slug}/${name}`)).status).toBe(404);
      }
    }
    for (const name of ["feed.xml", "atom.xml", "status.json"]) {
      expect((await fetch(`${site.origin}${BASE}acme/${name}`)).status).toBe(200);
    }

    const locked = await visit(`${site.origin}${BASE}locked/`, { javaScript: false });
    expect(locked.response?.status()).toBe(200);
    expect(await locked.inShadow("label[for=password]").textContent()).toBe("Password");
    expect(await locked.inShadow("input[type=password]").count()).toBe(1);
    expect(await locked.inShadow("[part~=item]").count()).toBe(0);
    expect(await locked.page.title()).toBe("Status page");
    expect(await locked.page.locator('meta[name="robots"]').getAttribute("content")).toBe("noindex");
    await locked.context.close();

    const inside = await visit(`${site.origin}${BASE}inside/`, { javaScript: false });
    expect(inside.response?.status()).toBe(200);
    expect(await inside.inShadow("h2").textContent()).toBe("This status page is private to its workspace's members.");
    expect(await inside.inShadow("[part~=item]").count()).toBe(0);
    await inside.context.close();

    const sitemap = await (await fetch(`${site.origin}${BASE}sitemap.xml`)).text();
    expect(sitemap).toContain(`<loc>${SITE_URL}${BASE}acme/</loc>`);
    expect(sitemap).not.toContain("locked");
    expect(sitemap).not.toContain("inside");
    const index = await (await fetch(`${site.origin}${BASE}`)).text();
    expect(index).toContain(`href="${BASE}acme/"`);
    expect(index).not.toMatch(/locked|inside/);
    // A miss is the site's 404 page.
    const missing = await fetch(`${site.origin}${BASE}nothing-here/`);
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain("No such status page");
  });

  test("the static private page explains itself, without a link or a retry, before and after the script", async () => {
    const words = "This status page is private to its workspace's members.";
    const inside = await visit(`${site.origin}${BASE}inside/`, { javaScript: false });
    expect(await inside.inShadow("h2").textContent()).toBe(words);
    // No sign-in for visitors exists yet: a link would lead back to this same prompt.
    expect(await inside.inShadow("a, button").count()).toBe(0);
    // Nothing to unlock here, so no note about JavaScript.
    expect(await inside.page.locator("noscript").count()).toBe(0);
    await inside.context.close();
    // And once the script has taken the page over and asked the API, which answered sign_in_required.
    const live = await visit(`${site.origin}${BASE}inside/`);
    await expect.poll(() => live.upgraded()).toBe(true);
    await expect.poll(() => live.errors.some((e) => e.includes("status of 401"))).toBe(true);
    expect(await live.inShadow("h2").textContent()).toBe(words);
    expect(await live.inShadow("a, button").count()).toBe(0);
    const box = await live.page.locator("porchlight-status").evaluate((host) => ({
      message: host.matches(":state(message)"),
      height: host.getBoundingClientRect().height,
    }));
    expect(box.message).toBe(true);
    expect(box.height).toBeLessThan(300);
    expect(await live.audit()).toEqual([]);
    expect(live.unexpectedErrors(401)).toEqual([]);
    await live.context.close();
  });

  test("the static password page says, without JavaScript, that it needs JavaScript to unlock", async () => {
    const still = await visit(`${site.origin}${BASE}locked/`, { javaScript: false });
    const note = still.page.locator("p.nojs");
    expect(await note.textContent()).toBe(
      "This page needs JavaScript to check the password. Turn JavaScript on and reload the page to unlock it.",
    );
    expect(await note.isVisible()).toBe(true);
    expect(await still.inShadow("label[for=password]").textContent()).toBe("Password");
    await still.context.close();
    // With it, the note is not there, the prompt is as tall as its content, and unlocking focuses the heading.
    const v = await visit(`${site.origin}${BASE}locked/`);
    await expect.poll(() => v.upgraded()).toBe(true);
    expect(await v.page.locator("p.nojs").count()).toBe(0);
    // As tall as the prompt's lock, name, field, toggle and button, not the element's 600 px box.
    expect((await v.page.locator("porchlight-status").boundingBox())?.height).toBeLessThan(400);
    await v.inShadow("[part~=input]").fill(PASSWORD);
    await v.inShadow("[part~=input]").press("Enter");
    await expect.poll(() => v.inShadow("[part~=item]").count()).toBe(1);
    await expect
      .poll(() =>
        v.page.evaluate(() => document.querySelector("porchlight-status")?.shadowRoot?.activeElement?.localName),
      )
      .toBe("h2");
    expect(v.unexpectedErrors(401)).toEqual([]);
    await v.context.close();
  });

  test("the feeds parse as XML, RSS and Atom, with the incident and absolute links under the site's URL", async () => {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${site.origin}${BASE}`);
    const rss = await (await fetch(`${site.origin}${BASE}acme/feed.xml`)).text();
    const atom = await (await fetch(`${site.origin}${BASE}acme/atom.xml`)).text();
    const parse = (text: string) =>
      page.evaluate((xml) => {
        const doc = new DOMParser().parseFromString(xml, "application/xml");
        const root = doc.documentElement;
        const ns = "http://www.w3.org/2005/Atom";
        const texts = (name: string) => [...doc.getElementsByTagName(name)].map((e) => e.textContent ?? "");
        return {
          errors: doc.getElementsByTagName("parsererror").length,
          root: root.localName,
          namespace: root.namespaceURI,
          channels: doc.querySelectorAll("rss > channel").length,
          items: doc.querySelectorAll("channel > item").length,
          entries: doc.getElementsByTagNameNS(ns, "entry").length,
          titles: [...texts("title")],
          links: [
            ...texts("link").filter(Boolean),
            ...texts("id"),
            ...[...doc.getElementsByTagNameNS(ns, "link")].map((e) => e.getAttribute("href") ?? ""),
          ].filter(Boolean),
        };
      }, text);
    const r = await parse(rss);
    expect(r.errors).toBe(0);
    expect(r.root).toBe("rss");
    expect(r.channels).toBe(1);
    expect(r.items).toBeGreaterThanOrEqual(1);
    expect(r.titles).toContain("Slow checkout (Resolved)");
    expect(r.links.length).toBeGreaterThanOrEqual(3);
    for (const link of r.links) expect(link.startsWith(`${SITE_URL}${BASE}acme/`), link).toBe(true);
    expect(r.links).toContain(`${SITE_URL}${BASE}acme/feed.xml`);

    const a = await parse(atom);
    expect(a.errors).toBe(0);
    expect(a.root).toBe("feed");
    expect(a.namespace).toBe("http://www.w3.org/2005/Atom");
    expect(a.entries).toBeGreaterThanOrEqual(1);
    expect(a.titles).toContain("Slow checkout (Resolved)");
    expect(a.links.length).toBeGreaterThanOrEqual(4);
    for (const link of a.links) expect(link.startsWith(`${SITE_URL}${BASE}acme/`), link).toBe(true);
    expect(a.links).toContain(`${SITE_URL}${BASE}acme/atom.xml`);
    await page.context().close();
  });

  test("the server hosts /<slug> with its security headers, hydrating under its CSP; a new page at once", async () => {
    const response = await fetch(`${app.origin}/acme`);
    expect(response.status).toBe(200);
    const csp = response.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("frame-ancestors *");
    expect(csp).toContain("script-src 'self'");
    const scriptSrc = csp.split(";").find((d) => d.trim().startsWith("script-src")) ?? "";
    expect(scriptSrc).not.toContain("unsafe-inline");
    expect(scriptSrc).not.toContain("unsafe-eval");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(response.headers.get("referrer-policy")).toBeTruthy();
    expect(await response.text()).toContain("Slow checkout");

    const v = await visit(`${app.origin}/acme`);
    await expect.poll(() => v.upgraded()).toBe(true);
    await v.page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    expect(await v.inShadow("[part~=banner]").textContent()).toContain("All systems operational");
    expect(await v.inShadow("[part~=item]").count()).toBe(3);
    expect(v.errors.filter((e) => /Content Security Policy/i.test(e))).toEqual([]);
    expect(v.unexpectedErrors()).toEqual([]);
    await v.context.close();

    // Created after the static build: the server renders it on request.
    const late = await call.post("/public/v1/status-pages", { name: "Late arrival", slug: "late" });
    expect(late.status).toBe(201);
    const served = await fetch(`${app.origin}/late`);
    expect(served.status).toBe(200);
    expect(await served.text()).toContain("Late arrival");
    expect((await fetch(`${site.origin}${BASE}late/`)).status).toBe(404);
  });

  test("a custom domain serves its page at / by the Host header", async () => {
    const root = await getWithHost(app.origin, "/", DOMAIN);
    expect(root.status).toBe(200);
    expect(root.body).toContain("Acme acme");
    expect(root.body).toContain(`<link rel="canonical" href="https://${DOMAIN}/">`);
    expect(root.body).toContain('href="/feed.xml"');
    const feed = await getWithHost(app.origin, "/feed.xml", DOMAIN);
    expect(feed.status).toBe(200);
    expect(feed.body).toContain(`<link>https://${DOMAIN}/</link>`);
    // Another host name that is no page's domain is not given a page: it goes to the server's dashboard.
    const other = await getWithHost(app.origin, "/", "unknown.example.net");
    expect(other.status).toBe(302);
    expect(other.location).toBe("/dashboard/");
    expect(other.body).not.toContain("<porchlight-status");
  });

  test("framed by another site: the public page renders, the password page unlocks by header", async () => {
    const framed = await visit(`${host.origin}/?slug=acme`);
    const banner = framed.page.frameLocator("iframe").locator("porchlight-status").locator("[part~=banner]");
    await expect.poll(() => banner.textContent()).toContain("All systems operational");
    expect(framed.unexpectedErrors()).toEqual([]);
    await framed.context.close();

    const sent: { url: string; password?: string }[] = [];
    const v = await visit(`${host.origin}/?slug=locked`, {
      before: async (page) =>
        page.on("request", (r) => {
          if (r.url().includes("/status-page/")) {
            sent.push({ url: r.url(), password: r.headers()["x-status-page-password"] });
          }
        }),
    });
    const frame = v.page.frameLocator("iframe").locator("porchlight-status");
    await expect.poll(() => frame.locator("label[for=password]").textContent()).toBe("Password");
    await expect.poll(() => sent.length).toBeGreaterThanOrEqual(1);
    expect(await frame.locator("[part~=item]").count()).toBe(0);
    await frame.locator("[part~=input]").fill(PASSWORD);
    await frame.locator("[part~=input]").press("Enter");
    await expect.poll(() => frame.locator("[part~=item]").count()).toBe(1);
    expect(await frame.locator("[part~=item]").innerText()).toContain("SECRET-ITEM-7f3a");
    expect(await frame.locator("[part~=incident] :is(h4, h5)").textContent()).toBe("SECRET-INCIDENT-9b2c");
    expect(sent.map((s) => s.password)).toContain(PASSWORD);
    expect(sent.every((s) => !s.url.includes("horse"))).toBe(true);
    for (const f of v.page.frames()) expect(f.url()).not.toContain("horse");
    expect(await v.context.cookies()).toEqual([]);
    expect(v.unexpectedErrors(401)).toEqual([]);
    await v.context.close();
  });

  test("the static acme page and the hosted password page pass the axe-core audit", async () => {
    const statics = await visit(`${site.origin}${BASE}acme/`);
    await expect.poll(() => statics.upgraded()).toBe(true);
    expect(await statics.audit()).toEqual([]);
    await statics.context.close();

    const locked = await visit(`${app.origin}/locked`);
    await expect.poll(() => locked.upgraded()).toBe(true);
    expect(await locked.inShadow("label[for=password]").textContent()).toBe("Password");
    expect(await locked.audit()).toEqual([]);
    await locked.context.close();
  });
});
