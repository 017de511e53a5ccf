import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type PageBuild, pageUrl } from "../../site/page-files.ts";
import { buildThreads, MAX_DEFAULT_THREADS, PagePool } from "../../site/page-pool.ts";
import { publicPageView } from "../support/fixtures.ts";

const WORKER = resolve("site/page-worker.mjs");

/** A public page with an incident, and a name that shows up in every file made of it. */
const view = (name: string) =>
  publicPageView({
    name,
    description: "Live status.",
    incidents: [
      {
        id: 7,
        title: "Slow <checkout>",
        status: "resolved",
        started_at: "2026-11-19T10:00:00.000Z",
        resolved_at: "2026-11-19T11:00:00.000Z",
        duration_minutes: 60,
        updates: [{ status: "resolved", message: "Fixed.", timestamp: "2026-11-19T11:00:00.000Z" }],
        affected: [{ id: 1, label: "Website", status: "partial_outage" }],
      },
    ],
    items: [
      { ...(publicPageView().items[0] as object), id: 1, label: "Website", group_id: 7 },
      { ...(publicPageView().items[0] as object), id: 2, label: "Search" },
    ],
    groups: [{ id: 7, name: "Front", description: "", status: "operational", collapsed: true, items: [1] }],
  });

describe("PORCHLIGHT_BUILD_THREADS", () => {
  test("defaults to the cores this process may use, at most 8; 0 and whole numbers are taken as they are", () => {
    expect(buildThreads({})).toBe(Math.min(availableParallelism(), MAX_DEFAULT_THREADS));
    expect(MAX_DEFAULT_THREADS).toBe(8);
    expect(buildThreads({ PORCHLIGHT_BUILD_THREADS: "" })).toBe(Math.min(availableParallelism(), 8));
    expect(buildThreads({ PORCHLIGHT_BUILD_THREADS: "0" })).toBe(0);
    expect(buildThreads({ PORCHLIGHT_BUILD_THREADS: "3" })).toBe(3);
  });

  test("anything else stops the build with a message naming the variable", () => {
    for (const bad of ["-1", "1.5", "two", "0x2", " 2", "1000"]) {
      expect(() => buildThreads({ PORCHLIGHT_BUILD_THREADS: bad })).toThrow(/PORCHLIGHT_BUILD_THREADS must be/);
    }
  });
});

describe("the build threads", () => {
  let root: string;
  const build = (outDir: string): PageBuild => ({
    at: Date.parse("2026-11-21T10:00:30.000Z"),
    base: "/status/",
    origin: "https://status.example.com",
    script: "porchlight-page.abc.js",
    apiBase: "https://api.example.com",
    locale: "en",
    outDir,
  });

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), "porchlight-pool-"));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  test("render in threads exactly what the build renders on its own thread, feeds and snapshot included", async () => {
    const threaded = new PagePool(2, WORKER);
    const inline = new PagePool(0, WORKER);
    try {
      const jobs = Array.from({ length: 12 }, (_, n) => ({
        slug: `acme-${n}`,
        visibility: "public" as const,
        json: JSON.stringify(view(`Acme ${n}`)),
      }));
      const [fromThreads, fromInline] = await Promise.all([
        Promise.all(jobs.map((job) => threaded.render(job, build(join(root, "threads"))))),
        Promise.all(jobs.map((job) => inline.render(job, build(join(root, "inline"))))),
      ]);
      const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
      for (const [n, html] of fromThreads.entries()) {
        const text = decode(html);
        // Each answer is its own page, not another job's.
        expect(text).toContain(`<title>Acme ${n} status</title>`);
        expect(text).toContain(`<link rel="canonical" href="${pageUrl(build(""), `acme-${n}`)}">`);
        expect(text).toBe(decode(fromInline[n] as Uint8Array));
      }
      for (const file of ["feed.xml", "atom.xml", "status.json", "items/1/feed.xml", "items/1/atom.xml"]) {
        const made = readFileSync(join(root, "threads", "acme-3", file), "utf8");
        expect(made).toBe(readFileSync(join(root, "inline", "acme-3", file), "utf8"));
      }
      expect(readFileSync(join(root, "threads", "acme-3", "status.json"), "utf8")).toBe(jobs[3]?.json);
      expect(readFileSync(join(root, "threads", "acme-3", "feed.xml"), "utf8")).toContain(
        "<title>Slow &lt;checkout&gt; (Resolved)</title>",
      );
      // Each service's feeds beside the page's, at the server's paths: its incidents only.
      const website = readFileSync(join(root, "threads", "acme-3", "items", "1", "atom.xml"), "utf8");
      expect(website).toContain('<title type="text">Acme 3: Website status</title>');
      expect(website).toContain('<title type="text">Slow &lt;checkout&gt; (Resolved)</title>');
      expect(website).toContain("https://status.example.com/status/acme-3/items/1/atom.xml");
      expect(readdirSync(join(root, "threads", "acme-3", "items"))).toEqual(["1", "2"]);
      expect(readFileSync(join(root, "threads", "acme-3", "items", "2", "feed.xml"), "utf8")).not.toContain("Slow");
      // Each group's too, with its members' incidents.
      const front = readFileSync(join(root, "threads", "acme-3", "groups", "7", "feed.xml"), "utf8");
      expect(front).toContain("<title>Acme 3: Front status</title>");
      expect(front).toContain("Slow &lt;checkout&gt; (Resolved)");
      expect(front).toContain("https://status.example.com/status/acme-3/groups/7/feed.xml");
    } finally {
      await threaded.close();
    }
  });

  test("a protected page is the prompt alone: no feed, no snapshot, nothing of its data", async () => {
    const pool = new PagePool(1, WORKER);
    try {
      const html = new TextDecoder().decode(
        await pool.render(
          { slug: "vault", visibility: "password-protected", json: JSON.stringify({ error: "password_required" }) },
          build(join(root, "protected")),
        ),
      );
      expect(html).toContain('<meta name="robots" content="noindex">');
      expect(html).not.toContain("feed.xml");
      expect(existsSync(join(root, "protected", "vault"))).toBe(false);
      expect(existsSync(join(root, "protected")) ? readdirSync(join(root, "protected")) : []).toEqual([]);
    } finally {
      await pool.close();
    }
  });

  test("a page that cannot be rendered fails with its slug, and the threads go on with the others", async () => {
    const pool = new PagePool(1, WORKER);
    try {
      await expect(
        pool.render({ slug: "broken", visibility: "public", json: "{not json" }, build(join(root, "failing"))),
      ).rejects.toThrow(/^status page "broken": SyntaxError/);
      const html = await pool.render(
        { slug: "fine", visibility: "public", json: JSON.stringify(view("Fine")) },
        build(join(root, "failing")),
      );
      expect(new TextDecoder().decode(html)).toContain("<title>Fine status</title>");
    } finally {
      await pool.close();
    }
  });

  test("a thread that dies fails its pages and every page after, rather than the build going on short", async () => {
    const pool = new PagePool(1, WORKER);
    await pool.close();
    await expect(
      pool.render({ slug: "late", visibility: "public", json: "{}" }, build(join(root, "dying"))),
    ).rejects.toThrow(/a build thread stopped/);
  });
});
