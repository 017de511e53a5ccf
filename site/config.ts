/**
 * The static build's variables (`astro build`, the last step of `npm run build`), read here and nowhere else:
 * astro.config.mjs takes the base and the site from it, and the build's pages and data everything else. The server's
 * own variables are server/config.ts's; the page locale is both, with one rule (PageLocale).
 */
import { availableParallelism } from "node:os";
import { z } from "zod";
import { ConfigError, ConfigSchema, invalidConfiguration, PageLocale } from "../server/config.ts";

/**
 * The default number of build threads: one per core, at most this many. Astro's own thread writes every page
 * (about 0.7 ms a page), so beyond a handful of threads it is the limit, and each thread holds its own copy of the
 * renderer (tens of MiB).
 */
export const MAX_DEFAULT_THREADS = 8;

/** An empty variable counts as unset. */
const unsetIfEmpty = (value: string | undefined) => value || undefined;

/** Every variable the static build reads, what it makes of each, and the message a bad value stops the build with. */
export const SiteConfigSchema = z
  .object({
    PORCHLIGHT_SITE_BASE: z.string().optional(),
    PORCHLIGHT_SITE_URL: z.string().optional(),
    PORCHLIGHT_API_URL: z.string().optional(),
    PORCHLIGHT_API_TOKEN: z.string().optional(),
    PORCHLIGHT_SITE_API_URL: z.string().optional(),
    PORCHLIGHT_BUILD_THREADS: z
      .string()
      .optional()
      .transform((wanted, ctx) => {
        if (wanted === undefined || wanted === "") return Math.min(availableParallelism(), MAX_DEFAULT_THREADS);
        if (/^\d{1,3}$/.test(wanted)) return Number(wanted);
        ctx.addIssue({
          code: "custom",
          message: `PORCHLIGHT_BUILD_THREADS must be a whole number from 0 to 999, not "${wanted}"`,
        });
        return z.NEVER;
      }),
    PORCHLIGHT_PAGE_LOCALE: z.string().optional().transform(unsetIfEmpty).pipe(PageLocale.default("en")),
  })
  .transform((e) => {
    const base = (e.PORCHLIGHT_SITE_BASE ?? "/").replace(/^\/+|\/+$/g, "");
    return {
      /** The path the site is served under, "/" or "/sub/path/" (PORCHLIGHT_SITE_BASE). */
      base: base ? `/${base}/` : "/",
      /** The site's public origin for canonical URLs, feeds and the sitemap (PORCHLIGHT_SITE_URL), or undefined. */
      siteUrl: e.PORCHLIGHT_SITE_URL?.replace(/\/+$/, "") || undefined,
      /** The API the build reads the pages from (PORCHLIGHT_API_URL); undefined reads the local store. */
      apiUrl: unsetIfEmpty(e.PORCHLIGHT_API_URL),
      /** A token that may read status pages, which PORCHLIGHT_API_URL requires (PORCHLIGHT_API_TOKEN). */
      apiToken: unsetIfEmpty(e.PORCHLIGHT_API_TOKEN),
      /**
       * Where the pages refresh from in the browser (PORCHLIGHT_SITE_API_URL), taken as it is, even empty;
       * undefined is the API the build read, or the server's public URL.
       */
      siteApiUrl: e.PORCHLIGHT_SITE_API_URL,
      /** Threads that render the pages, 0 to 999 (PORCHLIGHT_BUILD_THREADS); 0 renders them on Astro's own. */
      buildThreads: e.PORCHLIGHT_BUILD_THREADS,
      /** The words and formats of the pages (PORCHLIGHT_PAGE_LOCALE), by the server's rule. */
      pageLocale: e.PORCHLIGHT_PAGE_LOCALE,
    };
  });

export type SiteConfig = z.output<typeof SiteConfigSchema>;

/**
 * The error for bad variables: the build's own give their whole message, and a variable the server reads too is
 * named as the server names it, so the same mistake reads the same from `npm start` and `npm run build`.
 */
function siteConfigError(issues: readonly z.core.$ZodIssue[], env: NodeJS.ProcessEnv): ConfigError {
  const shared = issues.filter((issue) => String(issue.path[0]) in ConfigSchema.shape);
  const messages = issues.filter((issue) => !shared.includes(issue)).map((issue) => issue.message);
  if (shared.length > 0) messages.push(invalidConfiguration(shared, env).message);
  return new ConfigError(messages.join("\n"));
}

const loaded = new WeakMap<NodeJS.ProcessEnv, SiteConfig>();

/**
 * The static build's configuration, parsed once per environment object (every page asks for it): a change to
 * `process.env` after the first call is not seen. A bad value throws a ConfigError naming the variable.
 */
export function loadSiteConfig(env: NodeJS.ProcessEnv = process.env): SiteConfig {
  let config = loaded.get(env);
  if (!config) {
    const parsed = SiteConfigSchema.safeParse(env);
    if (!parsed.success) throw siteConfigError(parsed.error.issues, env);
    config = parsed.data;
    loaded.set(env, config);
  }
  return config;
}
