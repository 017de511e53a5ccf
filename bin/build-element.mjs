#!/usr/bin/env node
// The element's two scripts in dist/embed (what the server serves), built only when their sources changed since the
// last build: `npm start` runs this first, and the tests' global setup calls it. The stamp is a SHA-256 of every
// input file's path and bytes, so a checkout, an edit or a dependency change rebuilds and nothing else does.
// `--force` builds regardless.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
/**
 * What the two builds read: the element, the contract it shares with the server (its types, and the status math it
 * runs), the build config and what it shares with the server (the builds' names, the CSS minifier), the lock file.
 */
const INPUTS = [
  "components",
  "server/contract",
  "vite.config.ts",
  "server/builds.ts",
  "server/html.ts",
  "package-lock.json",
];
/** What the server needs from a build: the element's files in dist/embed, the dashboard's index in dist/dashboard. */
const OUTPUTS = [
  "embed/porchlight.js",
  "embed/manifest.json",
  "embed/porchlight-page.js",
  "embed/page-manifest.json",
  "dashboard/index.html",
];

function files(root, path) {
  const full = join(root, path);
  if (!existsSync(full)) return [];
  if (!statSync(full).isDirectory()) return [full];
  return readdirSync(full, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

/** The stamp of the sources under `root` as they are now (`inputs`: the element's; bin/build-docs.mjs passes its own). */
export function sourcesStamp(root = ROOT, inputs = INPUTS) {
  const hash = createHash("sha256");
  for (const file of inputs.flatMap((input) => files(root, input)).sort()) {
    hash
      .update(`${relative(root, file)}\0`)
      .update(readFileSync(file))
      .update("\0");
  }
  return hash.digest("hex");
}

/** Vite's command-line entry, resolved from `root`; throws where Vite is not installed. */
const viteEntry = (root) =>
  join(dirname(createRequire(join(root, "package.json")).resolve("vite/package.json")), "bin/vite.js");

/**
 * Builds dist/embed unless it is current. Returns what happened: "current", "built", or "kept" (sources changed but
 * the build tools are not installed, as in `npm ci --omit=dev`, and a build is there to serve). Throws when there
 * is nothing to serve and nothing to build with.
 */
export function buildElement({
  root = ROOT,
  force = false,
  log = (line) => console.log(line),
  resolveVite = viteEntry,
} = {}) {
  const outDir = join(root, "dist/embed");
  const stampFile = join(outDir, ".sources");
  const built = () => OUTPUTS.every((name) => existsSync(join(root, "dist", name)));
  const stamp = sourcesStamp(root);
  if (!force && built() && existsSync(stampFile) && readFileSync(stampFile, "utf8") === stamp) return "current";
  let vite;
  try {
    vite = resolveVite(root);
  } catch {
    if (built()) {
      log(
        "porchlight: the element's sources differ from dist/embed, but Vite is not installed; serving dist/embed as it is",
      );
      return "kept";
    }
    throw new Error(
      "dist/embed is missing and Vite is not installed: run `npm install` (with dev dependencies) first, or install the published package, which ships dist/",
    );
  }
  log("porchlight: building the element and the dashboard (dist/embed, dist/dashboard)");
  for (const mode of ["production", "page", "dashboard"]) {
    // NODE_ENV=production: under Vitest it is "test", and Vite would then bundle Lit's development build.
    execFileSync(process.execPath, [vite, "build", "--mode", mode, "--logLevel", "warn"], {
      cwd: root,
      env: { ...process.env, NODE_ENV: "production" },
      stdio: "inherit",
    });
  }
  writeFileSync(stampFile, stamp);
  return "built";
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    const result = buildElement({ force: process.argv.includes("--force") });
    if (result === "current") console.log("porchlight: the element's build is current (dist/embed)");
  } catch (error) {
    console.error(`porchlight: ${error.message}`);
    process.exit(1);
  }
}
