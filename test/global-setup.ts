import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/**
 * Every run tests the element as it is now: build dist/embed (both scripts) once before the suites, as `npm run
 * build` does. In a child process, because Vitest sets NODE_ENV=test and Vite would then bundle Lit's development build.
 */
export default function setup(): void {
  const vite = join(dirname(createRequire(import.meta.url).resolve("vite/package.json")), "bin/vite.js");
  for (const mode of ["production", "page"]) {
    execFileSync(process.execPath, [vite, "build", "--mode", mode, "--logLevel", "warn"], {
      env: { ...process.env, NODE_ENV: "production" },
      stdio: "inherit",
    });
  }
}
