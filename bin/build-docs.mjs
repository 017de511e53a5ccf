#!/usr/bin/env node
// The documentation site in dist/docs (what the server serves at /docs/), built only when its sources changed since
// the last build, like the element (bin/build-element.mjs, whose stamp this shares): `npm start` runs this with
// `--optional`, so that a checkout without a docs build still starts (/docs/ then says how to build it), and the
// tests' global setup calls it. `--force` builds regardless; a failed build (a broken link included) exits 1 unless
// `--optional`.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { sourcesStamp } from "./build-element.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
/** What the build reads: the site's config, pages and files, and the lock file (Astro's and Starlight's versions). */
export const DOCS_INPUTS = ["docs/astro.config.mjs", "docs/src", "docs/public", "package-lock.json"];
/** The stamp beside the build: the server serves no file whose name starts with a dot. */
const STAMP = "dist/docs/.sources";

/** Astro's command-line entry, resolved from `root`; throws where Astro is not installed (`--omit=dev`). */
const astroEntry = (root) =>
  join(dirname(createRequire(join(root, "package.json")).resolve("astro/package.json")), "bin/astro.mjs");

/** The stamp of the documentation's sources under `root` as they are now. */
export const docsStamp = (root = ROOT) => sourcesStamp(root, DOCS_INPUTS);

/** Whether dist/docs holds a build of the sources as they are now. */
export function docsCurrent(root = ROOT) {
  const stampFile = join(root, STAMP);
  return (
    existsSync(join(root, "dist/docs/index.html")) &&
    existsSync(stampFile) &&
    readFileSync(stampFile, "utf8") === docsStamp(root)
  );
}

/**
 * Builds dist/docs unless it is current. Returns "current", "built", "kept" (sources changed, Astro is not
 * installed, a build is there to serve) or "missing" (no build and no Astro: the server's /docs/ says so). Throws
 * when the build fails, with Astro's output in the message.
 */
export function buildDocs({
  root = ROOT,
  force = false,
  log = (line) => console.log(line),
  resolveAstro = astroEntry,
} = {}) {
  if (!force && docsCurrent(root)) return "current";
  const built = existsSync(join(root, "dist/docs/index.html"));
  let astro;
  try {
    astro = resolveAstro(root);
  } catch {
    log(
      built
        ? "porchlight: the documentation's sources differ from dist/docs, but Astro is not installed; serving dist/docs as it is"
        : "porchlight: the documentation is not built and Astro is not installed; /docs/ shows how to build it",
    );
    return built ? "kept" : "missing";
  }
  log("porchlight: building the documentation (dist/docs)");
  const stamp = docsStamp(root);
  try {
    execFileSync(process.execPath, [astro, "build", "--root", "docs", "--silent"], {
      cwd: root,
      env: { ...process.env, NODE_ENV: "production", ASTRO_TELEMETRY_DISABLED: "1" },
      stdio: "pipe",
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (error) {
    const output = `${error.stdout ?? ""}${error.stderr ?? ""}`.trim();
    throw new Error(`the documentation's build failed (npm run build:docs):\n${output || error.message}`);
  }
  writeFileSync(join(root, STAMP), stamp);
  return "built";
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const optional = process.argv.includes("--optional");
  try {
    const result = buildDocs({ force: process.argv.includes("--force") });
    if (result === "current") console.log("porchlight: the documentation's build is current (dist/docs)");
  } catch (error) {
    console.error(`porchlight: ${error.message}`);
    if (!optional) process.exit(1);
    console.error("porchlight: starting without it; /docs/ says the documentation is not built");
  }
}
