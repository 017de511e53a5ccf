import { resolve } from "node:path";
import { PAGE_BUILD } from "../server/builds.ts";
import { pageScriptFile } from "../server/views/embed-assets.ts";
import { loadSiteConfig } from "./config.ts";

/**
 * The element's build, from the project root (Astro runs there): this code is bundled into dist/site/chunks at
 * build time, so a path relative to the module would point into the output.
 */
export const EMBED_BUILD_DIR = resolve(process.cwd(), "dist/embed");

/** The path the static site is served under, "/" or "/sub/path/" (PORCHLIGHT_SITE_BASE). */
export function siteBase(env: NodeJS.ProcessEnv = process.env): string {
  return loadSiteConfig(env).base;
}

/** The site's public origin for canonical URLs, feeds and the sitemap (PORCHLIGHT_SITE_URL), or undefined. */
export function siteUrl(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return loadSiteConfig(env).siteUrl;
}

let script: string | undefined;

/**
 * The page script's hashed file name, read once per build (every page names it); the build needs it, so a missing
 * one is an error that says what to run.
 */
export function pageScript(): string {
  if (script === undefined) {
    const file = pageScriptFile(EMBED_BUILD_DIR);
    if (!file)
      throw new Error(`dist/embed/${PAGE_BUILD.manifest} is missing: run npm run build (vite builds it first)`);
    script = file;
  }
  return script;
}

/** The words and formats of prerendered pages (PORCHLIGHT_PAGE_LOCALE, default en), by the server's rule. */
export function pageLocale(): string {
  return loadSiteConfig().pageLocale;
}
