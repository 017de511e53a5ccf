// The static build of the public status pages: `astro build` (the last step of `npm run build`) writes dist/site,
// which works from any static host, under the sub-path PORCHLIGHT_SITE_BASE when set.
import { defineConfig } from "astro/config";
// Astro loads this file through Vite, so it imports the build's variables as the pages do: one schema, read once.
import { loadSiteConfig } from "./site/config.ts";

// No build phones home: Astro's telemetry reads this when it records the build, which is after this file loads.
process.env.ASTRO_TELEMETRY_DISABLED = "1";

const { base, siteUrl } = loadSiteConfig();

export default defineConfig({
  srcDir: "./site",
  publicDir: "./site/public",
  outDir: "./dist/site",
  base,
  site: siteUrl,
  output: "static",
  // Eight pages in flight: each renders on a build thread (site/page-pool.ts) while Astro writes the ones done, and
  // eight keep two threads busy; sixteen gained nothing measurable.
  build: { format: "file", concurrency: 8 },
  devToolbar: { enabled: false },
});
