/**
 * The element's two builds into dist/embed, each a script NAME.js, its content-hashed copy and a manifest naming
 * that copy: the embed script, and the hosted and prerendered pages' script (with hydration support). No imports,
 * so that vite.config.ts, which makes them, can share it with the server, which serves them.
 */
export const EMBED_BUILD = { name: "porchlight", manifest: "manifest.json" } as const;
export const PAGE_BUILD = { name: "porchlight-page", manifest: "page-manifest.json" } as const;

/** Both builds, the embed script first. */
export const BUILDS = [EMBED_BUILD, PAGE_BUILD] as const;

/** The file of a language's words for the embed script (components/porchlight-status/languages.ts), in dist/embed. */
export const wordsFile = (lang: string) => `words-${lang}.json`;
