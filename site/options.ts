import { resolve } from "node:path";
import { PAGE_BUILD } from "../server/api/builds.ts";
import { pageScriptFile } from "../server/api/embed.ts";
import { loadConfig } from "../server/config.ts";

/**
 * The element's build, from the project root (Astro runs there): this code is bundled into dist/site/chunks at
 * build time, so a path relative to the module would point into the output.
 */
export const EMBED_BUILD_DIR = resolve(process.cwd(), "dist/embed");

/** The path the static site is served under, "/" or "/sub/path/" (PORCHLIGHT_SITE_BASE). */
export function siteBase(env: NodeJS.ProcessEnv = process.env): string {
  const trimmed = (env.PORCHLIGHT_SITE_BASE ?? "/").replace(/^\/+|\/+$/g, "");
  return trimmed ? `/${trimmed}/` : "/";
}

/** The site's public origin for canonical URLs, feeds and the sitemap (PORCHLIGHT_SITE_URL), or undefined. */
export function siteUrl(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return env.PORCHLIGHT_SITE_URL?.replace(/\/+$/, "") || undefined;
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

let locale: string | undefined;

/** The words and formats of prerendered pages (PORCHLIGHT_PAGE_LOCALE, default en), as the server reads it; once. */
export function pageLocale(): string {
  locale ??= loadConfig(process.env).pageLocale;
  return locale;
}
