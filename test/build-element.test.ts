import { appendFileSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
// @ts-expect-error: a plain ES module script, shared with `npm start`.
import { buildElement } from "../bin/build-element.mjs";

/** A scratch checkout: the element's sources and build config copied, the dependencies linked. */
let root: string;
const lines: string[] = [];
const build = (options: Record<string, unknown> = {}): string =>
  buildElement({ root, log: (line: string) => lines.push(line), ...options });
const noVite = () => {
  throw new Error("Cannot find package 'vite'");
};

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "porchlight-build-"));
  for (const path of [
    "components",
    "server/contract",
    "vite.config.ts",
    "server/builds.ts",
    "server/html.ts",
    "package.json",
    "package-lock.json",
  ]) {
    cpSync(path, join(root, path), { recursive: true });
  }
  symlinkSync(join(process.cwd(), "node_modules"), join(root, "node_modules"));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

test("npm start builds the element once, then only when a source changes", () => {
  expect(build()).toBe("built");
  expect(existsSync(join(root, "dist/embed/porchlight.js"))).toBe(true);
  expect(existsSync(join(root, "dist/embed/porchlight-page.js"))).toBe(true);
  const stamp = readFileSync(join(root, "dist/embed/.sources"), "utf8");
  expect(stamp).toMatch(/^[0-9a-f]{64}$/);

  expect(build()).toBe("current");
  appendFileSync(join(root, "components/porchlight-status/messages.ts"), "\n// an edit\n");
  expect(build()).toBe("built");
  expect(readFileSync(join(root, "dist/embed/.sources"), "utf8")).not.toBe(stamp);
  expect(build()).toBe("current");
  expect(build({ force: true })).toBe("built");
}, 120_000);

test("without Vite (npm ci --omit=dev) the shipped build is served as it is; with no build at all, a clear error", () => {
  appendFileSync(join(root, "vite.config.ts"), "\n// another edit\n");
  expect(build({ resolveVite: noVite })).toBe("kept");
  expect(lines.at(-1)).toContain("Vite is not installed");
  rmSync(join(root, "dist"), { recursive: true });
  expect(() => build({ resolveVite: noVite })).toThrow(/dist\/embed is missing and Vite is not installed/);
});
