import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { beforeAll, describe, expect, test } from "vitest";
// @ts-expect-error: a plain ES module script, shared with `npm start`.
import { buildDocs, docsCurrent } from "../bin/build-docs.mjs";
import { makeApp, sqliteKind, useStore } from "./helpers.ts";

/**
 * The documentation site (docs/, built into dist/docs by the global setup as `npm start` does): built from the
 * sources as they are now, and every link of every built page leads somewhere the server answers, its anchor
 * included. Astro's build checks the Markdown's links too (starlight-links-validator); this reads what is served,
 * so a link Starlight itself makes (the sidebar, the pagination, the OpenAPI reference) counts as well.
 */

const ROOT = join(import.meta.dirname, "..");
const DIST = join(ROOT, "dist/docs");
const PAGES = join(ROOT, "docs/src/content/docs");

const walk = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));

/** A page's address from its Markdown file: docs/src/content/docs/api/sites.md is /docs/api/sites/. */
const addressOf = (file: string) =>
  `/docs/${relative(PAGES, file)
    .replace(/\.mdx?$/, "")
    .replace(/(^|\/)index$/, "")}/`.replace(/\/+$/, "/");

let app: ReturnType<typeof makeApp>["app"];
useStore(sqliteKind, ({ store }) => {
  ({ app } = makeApp(store));
});

describe("the documentation site", () => {
  beforeAll(() => {
    // Current after the global setup unless its build failed: building again shows why (Astro's output).
    if (!docsCurrent()) buildDocs({ log: () => {} });
  }, 180_000);

  test("is built from the sources as they are now, one page per Markdown file, each in the sidebar", async () => {
    expect(docsCurrent()).toBe(true);
    const sources = walk(PAGES).filter((file) => /\.mdx?$/.test(file));
    expect(sources.length).toBeGreaterThan(20);
    const home = await (await app.request("/docs/")).text();
    const sidebar = home.slice(home.indexOf('id="starlight__sidebar"'));
    for (const file of sources) {
      const address = addressOf(file);
      const res = await app.request(address);
      expect(res.status, address).toBe(200);
      expect(res.headers.get("content-type"), address).toBe("text/html; charset=utf-8");
      if (address !== "/docs/") expect(sidebar, `${address} in the sidebar`).toContain(`href="${address}"`);
    }
  });

  test("every link and anchor of every built page leads to something the server answers", async () => {
    const pages = walk(DIST).filter((file) => file.endsWith(".html") && !file.endsWith("404.html"));
    /** The ids of each HTML answer, by address, fetched once. */
    const ids = new Map<string, Set<string>>();
    const broken: string[] = [];
    let links = 0;
    for (const file of pages) {
      const from = `/docs/${relative(DIST, file).replace(/index\.html$/, "")}`;
      const html = readFileSync(file, "utf8");
      for (const [, raw] of html.matchAll(/\s(?:href|src)="([^"]+)"/g)) {
        const link = (raw as string).replaceAll("&amp;", "&");
        if (/^(?:[a-z]+:|\/\/)/i.test(link)) continue;
        const url = new URL(link, `http://docs.test${from}`);
        links++;
        if (!ids.has(url.pathname)) {
          const res = await app.request(url.pathname);
          if (res.status !== 200) {
            broken.push(`${from}: ${link} → ${res.status}`);
            ids.set(url.pathname, new Set());
            continue;
          }
          const body = res.headers.get("content-type")?.startsWith("text/html") ? await res.text() : "";
          ids.set(url.pathname, new Set([...body.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1] as string)));
        }
        const anchor = decodeURIComponent(url.hash.slice(1));
        // Starlight's "#_top" is the top of any page.
        if (anchor && anchor !== "_top" && !ids.get(url.pathname)?.has(anchor)) {
          broken.push(`${from}: ${link} → no id="${anchor}"`);
        }
      }
    }
    expect(links).toBeGreaterThan(500);
    expect([...new Set(broken)]).toEqual([]);
    // The OpenAPI reference is one of the pages linked, and it answers.
    expect(ids.has("/docs/api/reference/")).toBe(true);
  });
});

describe("npm start's documentation build (bin/build-docs.mjs)", () => {
  test("an unchanged checkout does not build again", () => {
    const lines: string[] = [];
    expect(buildDocs({ log: (line: string) => lines.push(line) })).toBe("current");
    expect(lines).toEqual([]);
  });

  test("without Astro (--omit=dev) it never fails the start: it keeps a build it has, and says when it has none", () => {
    const root = mkdtempSync(join(tmpdir(), "porchlight-docs-"));
    try {
      cpSync(join(ROOT, "docs/src"), join(root, "docs/src"), { recursive: true });
      writeFileSync(join(root, "package.json"), "{}");
      const lines: string[] = [];
      const noAstro = () => {
        throw new Error("Cannot find package 'astro'");
      };
      const build = () => buildDocs({ root, log: (line: string) => lines.push(line), resolveAstro: noAstro });
      expect(build()).toBe("missing");
      expect(lines.at(-1)).toContain("/docs/ shows how to build it");
      mkdirSync(join(root, "dist/docs"), { recursive: true });
      writeFileSync(join(root, "dist/docs/index.html"), "<!doctype html>");
      expect(build()).toBe("kept");
      expect(lines.at(-1)).toContain("serving dist/docs as it is");
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
