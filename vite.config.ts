import { createHash } from "node:crypto";
import { resolve } from "node:path";
import type { Plugin } from "vite";
/// <reference types="vitest/config" />
import { defineConfig } from "vite";
import { TABLES } from "./components/porchlight-status/languages.ts";
import { EMBED_BUILD, PAGE_BUILD, wordsFile } from "./server/builds.ts";
import { minifyCss } from "./server/html.ts";

/**
 * A second minifier pass over the embed, after rolldown's own: terser's compressor finds what the first leaves
 * (about 50 bytes gzipped of a budget where every byte is spoken for). Tagged templates stay as they are.
 */
function terserPass(name: string): Plugin {
  return {
    name: "porchlight-terser",
    async generateBundle(_options, bundle) {
      const chunk = bundle[`${name}.js`];
      if (chunk?.type !== "chunk") return;
      const { minify } = await import("terser");
      const out = await minify(chunk.code, { module: true, compress: { passes: 3 }, format: { comments: false } });
      if (out.code) chunk.code = out.code;
    },
  };
}

/**
 * Beside dist/embed/NAME.js, a copy named by its content hash (safe to cache for a year) and a manifest naming that
 * copy with its Subresource Integrity value, so owners can pin a version and pages can name the copy.
 */
function hashedCopy(name: string, manifest: string): Plugin {
  return {
    name: "porchlight-hashed-copy",
    generateBundle(_options, bundle) {
      const chunk = bundle[`${name}.js`];
      if (chunk?.type !== "chunk") return;
      const hash = createHash("sha256").update(chunk.code).digest("hex").slice(0, 10);
      const fileName = `${name}.${hash}.js`;
      const integrity = `sha384-${createHash("sha384").update(chunk.code).digest("base64")}`;
      this.emitFile({ type: "asset", fileName, source: chunk.code });
      this.emitFile({
        type: "asset",
        fileName: manifest,
        source: `${JSON.stringify({ file: fileName, integrity })}\n`,
      });
    },
  };
}

/**
 * The element's other languages, each as dist/embed/words-LANG.json (messages.ts, LANGUAGES): the embed script does
 * not carry them, and fetches the one its locale asks for.
 */
function wordFiles(): Plugin {
  return {
    name: "porchlight-words",
    generateBundle() {
      for (const [lang, table] of Object.entries(TABLES)) {
        this.emitFile({ type: "asset", fileName: wordsFile(lang), source: `${JSON.stringify(table)}\n` });
      }
    },
  };
}

function minifyHtml(html: string): string {
  return (
    html
      .replace(/(^|>)\s*\n\s*(?=<|$)/g, "$1")
      .replace(/\s*\n\s*/g, " ")
      // The space a line break left before a tag's end (after its last attribute).
      .replace(/ (\/?>)/g, "$1")
      .replace(/="([\w-]+)"(?=[\s>])/g, "=$1")
  );
}

/**
 * Lit's html`` and css`` templates keep every space of the source, and no minifier may touch the inside of a
 * template literal; this rewrites only their literal parts, never the expressions between them.
 */
function minifyTemplates(): Plugin {
  return {
    name: "porchlight-minify-templates",
    enforce: "post",
    apply: "build",
    transform(code, id) {
      if (!/\/components\/.*\.ts$/.test(id) || !/\b(?:html|css)`/.test(code)) return null;
      const edits: { start: number; end: number; text: string }[] = [];
      const visit = (node: unknown): void => {
        if (!node || typeof node !== "object") return;
        const n = node as Record<string, unknown> & { type?: string };
        if (n.type === "TaggedTemplateExpression") {
          const tag = (n.tag as { name?: string }).name;
          const quasis = (n.quasi as { quasis: { start: number; end: number; value: { raw: string } }[] }).quasis;
          if (tag === "css" || tag === "html") {
            for (const q of quasis) {
              edits.push({ start: q.start, end: q.end, text: (tag === "css" ? minifyCss : minifyHtml)(q.value.raw) });
            }
          }
        }
        // Arrays are objects too: their values are the nodes of a list.
        for (const value of Object.values(n)) visit(value);
      };
      visit(this.parse(code));
      let out = code;
      for (const edit of edits.sort((a, b) => b.start - a.start)) {
        out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
      }
      return { code: out, map: null };
    },
  };
}

/**
 * Two single-module builds into dist/embed: the embed script (the default mode: porchlight.js, manifest.json) and,
 * with `--mode page`, the hosted and prerendered pages' script (porchlight-page.js with Lit's hydration support,
 * page-manifest.json). One module each, so neither loads a shared chunk.
 */
const ENTRIES = {
  embed: { entry: "components/porchlight-status/index.ts", ...EMBED_BUILD },
  page: { entry: "components/porchlight-status/page.ts", ...PAGE_BUILD },
};

/**
 * With `--mode dashboard`, the owner's dashboard: an application build of components/porchlight-dashboard into
 * dist/dashboard, served under /dashboard/ with content-hashed assets (long-cached) and an index.html (revalidated).
 * Its screens are chunks that load on first use.
 */
function dashboardConfig() {
  return {
    root: resolve(import.meta.dirname, "components/porchlight-dashboard"),
    base: "/dashboard/",
    publicDir: false as const,
    build: {
      outDir: resolve(import.meta.dirname, "dist/dashboard"),
      emptyOutDir: true,
      target: "es2022",
      assetsDir: "assets",
      modulePreload: { polyfill: false },
      rolldownOptions: { output: { minify: true, comments: false } },
    },
    plugins: [minifyTemplates()],
  };
}

export default defineConfig(({ mode }) => {
  if (mode === "dashboard") return dashboardConfig();
  const target = mode === "page" ? ENTRIES.page : ENTRIES.embed;
  return {
    build: {
      outDir: "dist/embed",
      // The embed build runs first and clears the folder; the page build adds to it.
      emptyOutDir: mode !== "page",
      target: "es2022",
      lib: {
        entry: target.entry,
        formats: ["es"],
        fileName: () => `${target.name}.js`,
      },
      rolldownOptions: { output: { minify: true, comments: false } },
    },
    // The page script keeps its templates as written: hydration matches them by a digest of their text against the
    // markup the server rendered from the source, so minifying them would break the takeover.
    plugins: [
      ...(mode === "page" ? [] : [minifyTemplates(), wordFiles(), terserPass(target.name)]),
      hashedCopy(target.name, target.manifest),
    ],
    test: {
      include: ["test/**/*.test.ts"],
      globalSetup: ["test/global-setup.ts"],
      // Store suites open real SQLite files and PostgreSQL databases; two workers suit a 2-core machine.
      pool: "forks",
      maxWorkers: 2,
      testTimeout: 30_000,
      hookTimeout: 60_000,
      // expect.poll waits for what a browser or a server will show; one second (Vitest's default) is too short on a
      // shared 2-core machine where a page's first render or a password's scrypt can take longer. Timing is never
      // what a test asserts.
      expect: { poll: { timeout: 15_000 } },
    },
  };
});
