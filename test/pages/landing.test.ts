import { sql } from "kysely";
import { expect, test } from "vitest";
import { LANDING_PAGE_LIMIT } from "../../server/pages/landing.ts";
import type { Store } from "../../server/store/store.ts";
import { type App, client, describeStores, makeApp, seedOwner, useStore } from "../helpers.ts";

describeStores("GET /: the landing page", (kind) => {
  let store: Store;
  let app: App;
  let api: ReturnType<typeof client>;

  useStore(kind, { each: true }, async (opened) => {
    ({ store } = opened);
    ({ app } = makeApp(store));
    api = client(app, (await seedOwner(store)).token);
  });

  const landing = async (headers: Record<string, string> = {}) => {
    const res = await app.request("/status", { headers });
    return { res, html: await res.text() };
  };
  const createPage = async (slug: string, extra: Record<string, unknown> = {}) => {
    const res = await api.post("/public/v1/status-pages", { name: `Page ${slug}`, slug, ...extra });
    expect(res.status).toBe(201);
    return res.json.data as { id: number };
  };

  test("an HTML page with the product's name and links to the API reference and the OpenAPI document", async () => {
    const { res, html } = await landing();
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(html).toMatch(/^<!doctype html>\n<html lang="en">/);
    expect(html).toContain("<title>Porchlight</title>");
    expect(html).toContain("<h1>Porchlight</h1>");
    expect(html).toContain('<meta name="color-scheme" content="light dark">');
    expect(html).toContain("@media (prefers-color-scheme:dark)");
    expect(html).toContain('<a href="/docs/">Documentation</a>');
    expect(html).toContain('<a href="/docs/api/reference/">API reference</a>');
    expect(html).toContain('<a href="/public/v1/openapi.json">OpenAPI document</a>');
    expect(html).toContain("No public status pages yet.");
  });

  test("a strict CSP: nothing runs or loads but its own inline style, named by its hash", async () => {
    const { res, html } = await landing();
    const csp = res.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain("script-src");
    expect(csp).not.toContain("unsafe-inline");
    expect(csp).toContain("form-action 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    const style = /<style>(.*?)<\/style>/s.exec(html)?.[1] ?? "";
    const { createHash } = await import("node:crypto");
    expect(csp).toContain(`style-src 'sha256-${createHash("sha256").update(style).digest("base64")}'`);
    expect(html).not.toMatch(/<script|\son\w+=/i);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  });

  test("public pages are listed; private and password pages never are; a change shows at once", async () => {
    await createPage("open-page", { name: "Open <b>&</b> page" });
    const secret = await createPage("secret-page", { visibility: "private" });
    await createPage("locked-page", { visibility: "password", password: "a long password" });
    const { html } = await landing();
    expect(html).toContain('<a href="/open-page">Open &lt;b&gt;&amp;&lt;/b&gt; page</a>');
    expect(html).not.toContain("secret-page");
    expect(html).not.toContain("locked-page");
    expect(html).not.toContain("No public status pages yet.");

    // Made public, then private again: the list follows at once.
    await api.patch(`/public/v1/status-pages/${secret.id}`, { visibility: "public" });
    expect((await landing()).html).toContain('<a href="/secret-page">Page secret-page</a>');
    await api.patch(`/public/v1/status-pages/${secret.id}`, { visibility: "private" });
    expect((await landing()).html).not.toContain("secret-page");
  });

  test(`at most ${LANDING_PAGE_LIMIT} pages, by address`, async () => {
    const slugs = Array.from({ length: LANDING_PAGE_LIMIT + 1 }, (_, i) => `p${String(i).padStart(3, "0")}`);
    for (const slug of slugs) await createPage(slug);
    const { html } = await landing();
    const listed = [...html.matchAll(/<li><a href="\/(p\d{3})">/g)].map((m) => m[1]);
    expect(listed).toEqual(slugs.slice(0, LANDING_PAGE_LIMIT));
    expect(html).toContain(`The first ${LANDING_PAGE_LIMIT}, by address.`);
  });

  test("an ETag, 304 while unchanged, and HEAD", async () => {
    const first = await landing();
    const etag = first.res.headers.get("etag") as string;
    expect(etag).toMatch(/^"[\w-]+"$/);
    // Revalidated on every use, so that a page made private leaves the list at once, for caches too.
    expect(first.res.headers.get("cache-control")).toBe("no-cache");
    expect((await landing({ "if-none-match": etag })).res.headers.get("cache-control")).toBe("no-cache");
    const again = await landing({ "if-none-match": etag });
    expect(again.res.status).toBe(304);
    expect(again.html).toBe("");
    await createPage("new-page");
    expect((await landing({ "if-none-match": etag })).res.status).toBe(200);
    const head = await app.request("/status", { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
  });

  test("a custom domain's / is still its status page, not the landing page", async () => {
    const page = await createPage("domain-page");
    await api.patch(`/public/v1/status-pages/${page.id}`, { customDomain: "status.acme.test" });
    const res = await app.request("/", { headers: { host: "status.acme.test" } });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("<porchlight-status");
    expect(html).not.toContain("<h1>Porchlight</h1>");
  });

  test("in code-unit order of their slugs, whatever the database's collation", async () => {
    if (store.dialect === "postgres") {
      // As en_US.utf8 does, an ICU collation that ignores punctuation: it puts a0 before a-b, and ab before a-c.
      await sql`create collation words (provider = icu, locale = 'en-u-ka-shifted')`.execute(store.db);
      await sql`alter table status_pages alter column slug type text collate words`.execute(store.db);
      const { rows } = await sql<{
        slug: string;
      }>`select slug from (values ('a-b'), ('a0')) v(slug) order by slug collate words`.execute(store.db);
      expect(
        rows.map((r) => r.slug),
        "the collation sorts differently",
      ).toEqual(["a0", "a-b"]);
    }
    for (const slug of ["ab", "a0", "a-c", "a-b"]) await createPage(slug);
    const { html } = await landing();
    const listed = [...html.matchAll(/<li><a href="\/([a-z0-9-]+)">Page /g)].map((m) => m[1]);
    expect(listed).toEqual(["a-b", "a-c", "a0", "ab"]);
  });

  test("PORCHLIGHT_LANDING_PAGES=false: no list and no word about pages, the developer links alone", async () => {
    await createPage("open-page");
    const hidden = makeApp(store, { env: { PORCHLIGHT_LANDING_PAGES: "false" } }).app;
    const res = await hidden.request("/status");
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-cache");
    const html = await res.text();
    expect(html).toContain('<a href="/docs/">Documentation</a>');
    expect(html).toContain('<a href="/docs/api/reference/">API reference</a>');
    expect(html).toContain('<a href="/public/v1/openapi.json">OpenAPI document</a>');
    expect(html).not.toContain("open-page");
    expect(html).not.toContain('<h2 id="pages">');
    expect(html).not.toContain("No public status pages yet.");
    expect(html).not.toContain("POST /public/v1/status-pages");
    expect(html.match(/<ul>/g)).toHaveLength(1);
    // The page itself is where it always was.
    expect((await hidden.request("/open-page")).status).toBe(200);
  });
});
