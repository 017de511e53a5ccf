import { spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";

/**
 * The project's .npmrc (engine-strict) as npm applies it: npm runs in a folder holding copies of package.json, the
 * lock file and .npmrc, under the Node running this test, offline and with an empty cache, so nothing can be
 * fetched and nothing is installed anywhere else. An older Node is simulated by raising engines above this one.
 */
const ROOT = join(import.meta.dirname, "..");
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function project({ engines, npmrc = true }: { engines?: string; npmrc?: boolean } = {}): string {
  const dir = mkdtempSync(join(tmpdir(), "porchlight-engines-"));
  dirs.push(dir);
  const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
  if (engines) pkg.engines = { node: engines };
  writeFileSync(join(dir, "package.json"), JSON.stringify(pkg, null, 2));
  copyFileSync(join(ROOT, "package-lock.json"), join(dir, "package-lock.json"));
  if (npmrc) copyFileSync(join(ROOT, ".npmrc"), join(dir, ".npmrc"));
  return dir;
}

/** npm in `dir` on this test's Node (npm's `#!/usr/bin/env node` finds it first on PATH). */
function npm(dir: string, args: string[]): Promise<{ code: number | null; output: string }> {
  // Whatever an outer `npm test` exported (its npm_config_* carry this checkout's .npmrc) stays out.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
  const child = spawn("npm", [...args, "--offline", "--ignore-scripts", "--no-audit", "--no-fund"], {
    cwd: dir,
    env: {
      ...env,
      PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ""}`,
      npm_config_cache: join(dir, ".npm-cache"),
      npm_config_update_notifier: "false",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr.on("data", (chunk) => {
    output += chunk;
  });
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, output })));
}

const major = Number(process.versions.node.split(".")[0]);
const tooNew = `>=${major + 1}.0.0`;

describe("engine-strict: a Node older than package.json's engines", () => {
  test.each([["install"], ["ci"]])("fails npm %s at once, naming the range it needs", async (command) => {
    const dir = project({ engines: tooNew });
    const { code, output } = await npm(dir, [command]);
    expect(code).not.toBe(0);
    expect(output).toContain("EBADENGINE");
    expect(output).toContain(`Required: {"node":"${tooNew}"}`);
    expect(output).toContain(`"node":"v${process.versions.node}"`);
    // Before any package was fetched (an offline fetch would fail with ENOTCACHED) or installed.
    expect(output).not.toContain("ENOTCACHED");
    expect(existsSync(join(dir, "node_modules"))).toBe(false);
  });

  test("without the project's .npmrc, npm only warns and goes on (what engine-strict changes)", async () => {
    const { code, output } = await npm(project({ engines: tooNew, npmrc: false }), ["install", "--dry-run"]);
    expect(output).toMatch(/warn EBADENGINE/);
    expect(code).toBe(0);
  });

  test("this Node, a supported one, passes the check for the project and every dependency", async () => {
    const supported = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).engines.node;
    expect(supported).toBe(">=22.19.0");
    const { code, output } = await npm(project(), ["install", "--dry-run"]);
    expect(output).not.toContain("EBADENGINE");
    expect(code).toBe(0);
  });
});
