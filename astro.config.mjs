// The static build of the public status pages: `astro build` (the last step of `npm run build`) writes dist/site,
// which works from any static host, under the sub-path PORCHLIGHT_SITE_BASE when set.
import { defineConfig } from "astro/config";

// No build phones home: Astro's telemetry reads this when it records the build, which is after this file loads.
process.env.ASTRO_TELEMETRY_DISABLED = "1";

const trimmed = (process.env.PORCHLIGHT_SITE_BASE ?? "/").replace(/^\/+|\/+$/g, "");

export default defineConfig({
  srcDir: "./site",
  publicDir: "./site/public",
  outDir: "./dist/site",
  base: trimmed ? `/${trimmed}/` : "/",
  site: process.env.PORCHLIGHT_SITE_URL || undefined,
  output: "static",
  // Eight pages in flight: each renders on a build thread (site/page-pool.ts) while Astro writes the ones done, and
  // eight keep two threads busy; sixteen gained nothing measurable.
  build: { format: "file", concurrency: 8 },
  devToolbar: { enabled: false },
});
