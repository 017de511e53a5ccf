import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";
import { describe } from "vitest";

/** Set by .ci/run: a missing Chromium fails the run instead of skipping. */
const CHROMIUM_REQUIRED = process.env.PORCHLIGHT_REQUIRE_CHROMIUM === "1";

/** Playwright cannot download browsers here: use CHROMIUM_PATH, else a Chromium on PATH (Debian's `chromium`). */
function findChromium(): string | undefined {
  const configured = process.env.CHROMIUM_PATH;
  if (configured && existsSync(configured)) return configured;
  for (const name of ["chromium", "chromium-browser", "google-chrome"]) {
    try {
      const path = execFileSync("which", [name], { encoding: "utf8" }).trim();
      if (path) return path;
    } catch {}
  }
  if (CHROMIUM_REQUIRED) throw new Error("Chromium is required: install Debian's chromium or set CHROMIUM_PATH");
  return undefined;
}

export const CHROMIUM_PATH = findChromium();
export const hasChromium = CHROMIUM_PATH !== undefined;

/** Headless Chromium with the flags this machine kind needs (no sandbox as root, no background networking). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

/** A suite that needs Chromium: reported as skipped, with the reason, where there is none. */
export function describeBrowser(title: string, body: () => void): void {
  if (hasChromium) describe(title, body);
  else describe.skip(`${title} (skipped: no Chromium)`, body);
}
