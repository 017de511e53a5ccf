// The dashboard's end-to-end setup, shared by test/e2e/dashboard*.test.ts: `porchlight serve` on a fresh data
// directory as a new owner starts it (private targets allowed, so local HTTP servers can be checked), one Chromium,
// browser contexts at a width and colour scheme, and the first start's setup link turned into a signed-in owner.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, BrowserContext, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, expect } from "vitest";
import { type Running, startServer } from "../helpers.ts";
import { collectPageErrors, launchChromium } from "./browser.ts";

export const ARTIFACTS = "test-artifacts";
export const PASSWORD = "porch light at dusk";
export const OWNER_EMAIL = "owner@example.com";
/** The screenshots every screen gets: light and dark at a desktop width, and a phone's 375 px. */
export const SHOTS = [
  { name: "light", width: 1280, colorScheme: "light" },
  { name: "dark", width: 1280, colorScheme: "dark" },
  { name: "375", width: 375, colorScheme: "light" },
] as const;

/** A browser tab with what it reports as wrong (console errors and warnings, uncaught errors). */
export interface Tab {
  context: BrowserContext;
  page: Page;
  errors: string[];
}

export interface OpenOptions {
  width?: number;
  colorScheme?: "light" | "dark";
  /** The browser's zone; UTC unless named (test/support/browser.ts). */
  timezoneId?: string;
  /** A signed-in context's cookies to start with: an object, or its JSON (never a file path). */
  storageState?: string | Awaited<ReturnType<BrowserContext["storageState"]>>;
}

export interface DashboardServer {
  readonly server: Running;
  readonly origin: string;
  readonly dataDir: string;
  readonly browser: Browser;
  /** A new browser context and tab; 1280 px wide and light unless told. */
  open(options?: OpenOptions): Promise<Tab>;
  /** The owner set up from the first start's setup link (a password), signed in, on the dashboard's home. */
  signInOwner(options?: OpenOptions): Promise<Tab>;
}

/** The dashboard's element, whose shadow roots Playwright's locators pierce. */
export const dashboard = (page: Page): Locator => page.locator("porchlight-dashboard");

/** The setup link the first start prints, with its token after # so no request carries it. */
export function setupLink(server: Running): string {
  const link = /(http:\/\/\S+\/dashboard\/setup#token=[A-Za-z0-9_-]{43})/.exec(server.output())?.[1];
  expect(link, server.output()).toBeDefined();
  return link as string;
}

/**
 * Registers, in the calling suite, a server on a fresh data directory and a Chromium, both ended after the suite.
 * `env` adds to (or overrides) the server's variables. The returned object is filled in before the first test.
 */
export function useDashboardServer(name: string, env: Record<string, string> = {}): DashboardServer {
  const state: { server?: Running; dataDir?: string; browser?: Browser } = {};
  const tabs: Tab[] = [];
  const must = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error("the dashboard's server is not started yet (use it inside a test)");
    return value;
  };
  const served: DashboardServer = {
    get server() {
      return must(state.server);
    },
    get origin() {
      return `http://localhost:${must(state.server).port}`;
    },
    get dataDir() {
      return must(state.dataDir);
    },
    get browser() {
      return must(state.browser);
    },
    async open(options = {}) {
      const storageState =
        typeof options.storageState === "string" ? JSON.parse(options.storageState) : options.storageState;
      const context = await served.browser.newContext({
        viewport: { width: options.width ?? 1280, height: 900 },
        colorScheme: options.colorScheme ?? "light",
        locale: "en-US",
        ...(options.timezoneId ? { timezoneId: options.timezoneId } : {}),
        ...(storageState ? { storageState } : {}),
      });
      const page = await context.newPage();
      return { context, page, errors: collectPageErrors(page) };
    },
    async signInOwner(options = {}) {
      const tab = await served.open(options);
      tabs.push(tab);
      await tab.page.goto(setupLink(served.server));
      const d = dashboard(tab.page);
      await d.getByLabel("New password").fill(PASSWORD);
      await d.getByLabel("Repeat the password").fill(PASSWORD);
      await d.getByRole("button", { name: "Save and sign in" }).click();
      await d.getByRole("button", { name: "Sign out" }).waitFor();
      return tab;
    },
  };

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    state.dataDir = mkdtempSync(join(tmpdir(), `porchlight-${name}-`));
    state.server = await startServer({
      PORCHLIGHT_DATA_DIR: state.dataDir,
      PORCHLIGHT_ALLOW_PRIVATE_TARGETS: "true",
      PORCHLIGHT_OWNER_EMAIL: OWNER_EMAIL,
      ...env,
    });
    state.browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    for (const tab of tabs) await tab.context.close();
    await state.browser?.close();
    await state.server?.stop();
    if (state.dataDir) rmSync(state.dataDir, { recursive: true, force: true });
  });

  return served;
}

/**
 * The API as the signed-in tab calls it: its session cookie and CSRF token. The answer's JSON is null when there is
 * none (a 204).
 */
export async function callAs(
  tab: Tab,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: any }> {
  return tab.page.evaluate(
    async ({ method, path, body }) => {
      const session = await (await fetch("/public/v1/session")).json();
      const res = await fetch(path, {
        method,
        headers: { "content-type": "application/json", "x-csrf-token": session.data.csrfToken },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: res.status, json: await res.json().catch(() => null) };
    },
    { method, path, body },
  );
}

/** Closes a local target from test/support/listen.ts, if it was started. */
export async function closeListener(listener: { server: Server } | undefined): Promise<void> {
  await new Promise((resolve) => (listener ? listener.server.close(resolve) : resolve(undefined)));
}
