import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import axe from "axe-core";
import { type Browser, chromium, type Page } from "playwright-core";
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

/** libfaketime moves this process's clock (CI runs the suite once a year ahead); Chromium cannot run under it. */
const FAKED_CLOCK = /faketime/.test(process.env.LD_PRELOAD ?? "");

/** The environment without libfaketime's: Chromium under it never finishes starting a page. */
function withoutFaketime(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] =>
        entry[1] !== undefined && entry[0] !== "LD_PRELOAD" && !entry[0].startsWith("FAKETIME"),
    ),
  );
}

/**
 * Headless Chromium with the flags this machine kind needs (no sandbox as root, no background networking). Under
 * libfaketime the browser runs on the real clock, and every context's pages are set to this process's faked time
 * (Playwright's clock), so the visitor's clock agrees with the server's as it does in life. Every context's time
 * zone is UTC unless its options name another.
 */
export async function launchChromium(): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    ...(FAKED_CLOCK ? { env: withoutFaketime() } : {}),
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
  // Browser.newPage opens its context through newContext too.
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (options) => {
    // The visitor's time zone is UTC unless a test emulates another: what a page shows never depends on the zone
    // of the machine (or of TZ=Pacific/Chatham in .ci/run's year-ahead pass).
    const context = await newContext({ timezoneId: "UTC", ...options });
    if (FAKED_CLOCK) await context.clock.setSystemTime(Date.now());
    return context;
  };
  return browser;
}

/**
 * Collects what a page reports as wrong: console errors and warnings and uncaught page errors, but not the browser's
 * own request for /favicon.ico (no page names an icon), which is not the page's doing.
 */
export function collectPageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("console", (message) => {
    if (message.location().url.endsWith("/favicon.ico")) return;
    if (message.type() === "error" || message.type() === "warning") errors.push(message.text());
  });
  page.on("pageerror", (error) => errors.push(String(error)));
  return errors;
}

/**
 * axe-core's violations on a page, a line each (the rule, then the elements): evaluated through DevTools, which the
 * page's Content-Security-Policy does not govern.
 */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(axe.source);
  const result = await page.evaluate(() =>
    (window as unknown as { axe: typeof axe }).axe.run(document, { resultTypes: ["violations"] }),
  );
  return result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

/** A suite that needs Chromium: reported as skipped, with the reason, where there is none. */
export function describeBrowser(title: string, body: () => void): void {
  if (hasChromium) describe(title, body);
  else describe.skip(`${title} (skipped: no Chromium)`, body);
}
