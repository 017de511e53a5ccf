// The documentation site: `npm run build:docs` (part of `npm run build`, and of `npm start` when its sources
// changed: bin/build-docs.mjs) writes dist/docs, which the server serves at /docs/ (server/api/docs.ts). The pages
// are the Markdown files in docs/src/content/docs/; the sidebar below lists them. The build fails on a link to a
// page or heading that does not exist (starlight-links-validator).
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import starlight from "@astrojs/starlight";
import { defineConfig } from "astro/config";
import starlightLinksValidator from "starlight-links-validator";

// No build phones home (as the static site's astro.config.mjs).
process.env.ASTRO_TELEMETRY_DISABLED = "1";

/** Where the server answers the OpenAPI reference (Swagger UI): not a page of this site, so not validated here. */
const OPENAPI_REFERENCE = "/docs/api/reference/";

// Starlight imports js-yaml 4's default export; the copy hoisted to the top of node_modules is js-yaml 5, which has
// none. The build's prerender step imports bare names from dist/, where only the hoisted copy is found: point the
// name at Starlight's own.
const jsYaml = join(
  dirname(createRequire(fileURLToPath(import.meta.resolve("@astrojs/starlight"))).resolve("js-yaml/package.json")),
  "dist/js-yaml.mjs",
);

const here = (path) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  root: here("."),
  outDir: here("../dist/docs"),
  cacheDir: here("../node_modules/.astro-docs"),
  base: "/docs",
  trailingSlash: "always",
  build: { format: "directory" },
  devToolbar: { enabled: false },
  vite: { resolve: { alias: { "js-yaml": jsYaml } }, cacheDir: here("../node_modules/.vite-docs") },
  integrations: [
    starlight({
      title: "Porchlight",
      description: "Open-source site monitoring with status pages.",
      // Served by the Porchlight server itself: nothing from another origin (no fonts, no analytics, no edit links).
      lastUpdated: false,
      pagination: true,
      tableOfContents: { minHeadingLevel: 2, maxHeadingLevel: 3 },
      sidebar: [
        { label: "Start here", items: ["getting-started", "dashboard", "configuration", "cli", "importing"] },
        {
          label: "API",
          items: [
            { label: "Conventions", link: "/api/" },
            "api/sites",
            "api/kinds",
            "api/status-pages",
            "api/incidents",
            "api/alerts",
            "api/maintenance",
            "api/accounts",
            "api/public-reads",
            "api/statuspage",
            "api/subscribers",
            "api/operations",
            "api/anonymous",
            { label: "OpenAPI reference", link: "/api/reference/" },
          ],
        },
        { label: "Status pages", items: ["embed", "hosting"] },
        { label: "Running it", items: ["deploying", "security", "package", "engine", "benchmarks"] },
        { label: "Changing the code", items: ["common-changes", "layout"] },
      ],
      plugins: [starlightLinksValidator({ exclude: [OPENAPI_REFERENCE, `${OPENAPI_REFERENCE}**`] })],
    }),
  ],
});
