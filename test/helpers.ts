import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, afterEach, beforeAll, beforeEach, describe } from "vitest";
import { createToken, createUser } from "../server/accounts/accounts.ts";
import type { Mailer } from "../server/anon/mail.ts";
import { type AppDeps, createApp } from "../server/app.ts";
import { loadConfig } from "../server/config.ts";
import { createLogger } from "../server/log.ts";
import { openStore, type Store } from "../server/store/store.ts";
import { seedStats } from "./support/fixtures.ts";

/** Where test PostgreSQL databases are created: a server database the tests may create databases from. */
export const POSTGRES_ADMIN_URL =
  process.env.PORCHLIGHT_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
/** Set by .ci/run: a missing PostgreSQL fails the run instead of skipping. */
const POSTGRES_REQUIRED = process.env.PORCHLIGHT_REQUIRE_POSTGRES === "1";

async function postgresReachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query("select 1");
    return true;
  } catch (error) {
    if (POSTGRES_REQUIRED) throw new Error(`PostgreSQL is required but unreachable at ${POSTGRES_ADMIN_URL}: ${error}`);
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

export const hasPostgres = await postgresReachable();

async function adminQuery(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** A fresh, empty PostgreSQL database; drop() removes it. */
export async function createPostgresDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `porchlight_test_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  await adminQuery(`create database ${name}`);
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => adminQuery(`drop database if exists ${name} with (force)`) };
}

export interface StoreKind {
  name: "sqlite" | "postgres";
  open(options?: {
    onQuery?: (sql: string) => void;
  }): Promise<{ store: Store; dataDir: string; databaseUrl?: string; cleanup: () => Promise<void> }>;
}

export const sqliteKind: StoreKind = {
  name: "sqlite",
  async open(options = {}) {
    const dataDir = mkdtempSync(join(tmpdir(), "porchlight-test-"));
    const store = await openStore({ dataDir, ...options });
    return {
      store,
      dataDir,
      async cleanup() {
        await store.close();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  },
};

export const postgresKind: StoreKind = {
  name: "postgres",
  async open(options = {}) {
    const dataDir = mkdtempSync(join(tmpdir(), "porchlight-test-"));
    const database = await createPostgresDatabase();
    const store = await openStore({ dataDir, databaseUrl: database.url, ...options });
    return {
      store,
      dataDir,
      databaseUrl: database.url,
      async cleanup() {
        await store.close();
        await database.drop();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  },
};

/**
 * Runs a suite once per store: a real SQLite file, and a real PostgreSQL database when one is reachable. Without
 * PostgreSQL the second run is reported as "skipped: no PostgreSQL".
 */
export function describeStores(title: string, body: (kind: StoreKind) => void): void {
  describe(`${title} [sqlite]`, () => body(sqliteKind));
  if (hasPostgres) describe(`${title} [postgres]`, () => body(postgresKind));
  else describe.skip(`${title} [postgres] (skipped: no PostgreSQL)`, () => body(postgresKind));
}

/** A store a suite opened with useStore: its fields are set once the suite's before hook has run. */
export interface OpenedStore {
  store: Store;
  dataDir: string;
  databaseUrl?: string | undefined;
}

/** What a suite builds over its store (an app, an owner, shared seed data); may answer its own teardown. */
type StoreSetup = (opened: OpenedStore) => undefined | Teardown | Promise<undefined | Teardown>;
type Teardown = () => unknown;

/**
 * Opens a store of `kind` before the suite's tests (before each test, with `each`; `onQuery` sees every query's
 * SQL) and runs `setup` with it; after them, the function `setup` answered, if any (an engine to stop, a server to
 * close), then the store's close and removal: the beforeAll and afterAll pair a store suite begins with. The handle
 * answered is filled in by the time the tests run: read it in tests and hooks, not in the describe body.
 */
export function useStore(kind: StoreKind, setup?: StoreSetup): OpenedStore;
export function useStore(
  kind: StoreKind,
  options: { each?: boolean; onQuery?: (sql: string) => void },
  setup?: StoreSetup,
): OpenedStore;
export function useStore(
  kind: StoreKind,
  optionsOrSetup?: { each?: boolean; onQuery?: (sql: string) => void } | StoreSetup,
  maybeSetup?: StoreSetup,
): OpenedStore {
  const options = typeof optionsOrSetup === "function" ? {} : (optionsOrSetup ?? {});
  const setup = typeof optionsOrSetup === "function" ? optionsOrSetup : maybeSetup;
  const opened = {} as OpenedStore;
  let cleanup: (() => Promise<void>) | undefined;
  let teardown: Teardown | undefined;
  (options.each ? beforeEach : beforeAll)(async () => {
    const { cleanup: close, ...fields } = await kind.open(options.onQuery ? { onQuery: options.onQuery } : {});
    cleanup = close;
    Object.assign(opened, fields);
    teardown = await setup?.(opened);
  });
  (options.each ? afterEach : afterAll)(async () => {
    try {
      await teardown?.();
    } finally {
      teardown = undefined;
      await cleanup?.();
      cleanup = undefined;
    }
  });
  return opened;
}

/** A clock the test moves by hand. */
export class TestClock {
  constructor(public current = new Date("2026-11-21T12:00:00.000Z")) {}
  now(): Date {
    return new Date(this.current);
  }
  advance(ms: number): void {
    this.current = new Date(this.current.getTime() + ms);
  }
}

export function testConfig(env: Record<string, string> = {}) {
  return loadConfig({
    LOG_LEVEL: "silent",
    PORCHLIGHT_PUBLIC_URL: "http://status.test",
    // Alert channels' settings are sealed under this key: no test writes a key file into ./data.
    PORCHLIGHT_SECRET_KEY: "test-secret-key-0123456789abcdefghij",
    ...env,
  });
}

export type App = ReturnType<typeof createApp>["app"];

/** The app over a store, with a fixed clock and silent logs. */
export function makeApp(
  store: Store,
  options: {
    clock?: TestClock;
    env?: Record<string, string>;
    logger?: ReturnType<typeof createLogger>;
    mailer?: Mailer;
    alertPolicy?: AppDeps["alertPolicy"];
  } = {},
) {
  const clock = options.clock ?? new TestClock();
  const { app, listener, fastPath, fastPathCounts, recorded } = createApp({
    store,
    config: testConfig(options.env),
    logger: options.logger ?? createLogger("silent"),
    clock,
    checkResponses: true,
    ...(options.mailer ? { mailer: options.mailer } : {}),
    ...(options.alertPolicy ? { alertPolicy: options.alertPolicy } : {}),
  });
  return { app, listener, fastPath, fastPathCounts, recorded, clock };
}

/** A user owning a workspace on a plan, with a token. */
export async function seedOwner(
  store: Store,
  plan = "stack",
  email = `owner-${Math.random().toString(36).slice(2)}@example.com`,
) {
  const user = await createUser(store, { email, plan }, new Date());
  const { token, id } = await createToken(store, email, "test", new Date());
  return { ...user, email, token, tokenId: id };
}

export async function seedMember(store: Store, ownerEmail: string, role: string) {
  const email = `${role}-${Math.random().toString(36).slice(2)}@example.com`;
  await createUser(store, { email, join: ownerEmail, role }, new Date());
  const { token, id } = await createToken(store, email, "test", new Date());
  return { email, token, tokenId: id };
}

/** Requests with JSON and a token, answering status, headers and parsed JSON. */
export function client(app: App, token?: string, env?: unknown) {
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const init: RequestInit = { method, headers: { ...headers } };
    if (token) (init.headers as Record<string, string>).authorization = `Bearer ${token}`;
    if (body !== undefined) {
      (init.headers as Record<string, string>)["content-type"] ??= "application/json";
      init.body = typeof body === "string" ? body : JSON.stringify(body);
    }
    const res = await app.request(path, init, env);
    const text = await res.text();
    let json: any = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = text;
    }
    return { status: res.status, headers: res.headers, json, text };
  };
  return {
    get: (path: string, headers?: Record<string, string>) => call("GET", path, undefined, headers),
    post: (path: string, body?: unknown, headers?: Record<string, string>) => call("POST", path, body, headers),
    patch: (path: string, body?: unknown, headers?: Record<string, string>) => call("PATCH", path, body, headers),
    delete: (path: string, body?: unknown, headers?: Record<string, string>) => call("DELETE", path, body, headers),
    call,
  };
}

/**
 * A status page "Acme <slug>" made through the API, with one site per label (https://<label>.example.com, 30 days
 * of daily stats ending `now`) as its items: the page's id and the sites' ids.
 */
export async function seedStatusPage(
  call: ReturnType<typeof client>,
  store: Store,
  now: Date,
  slug: string,
  extra: Record<string, unknown>,
  labels: string[],
): Promise<{ id: string; ids: string[] }> {
  const created = await call.post("/public/v1/status-pages", { name: `Acme ${slug}`, slug, ...extra });
  if (created.status !== 201) throw new Error(`creating status page ${slug}: ${created.status} ${created.text}`);
  const ids: string[] = [];
  for (const label of labels) {
    const site = (
      await call.post("/public/v1/sites", { url: `https://${label.toLowerCase()}.example.com`, name: label })
    ).json.data;
    ids.push(site.id);
    await call.post(`/public/v1/status-pages/${created.json.data.id}/items`, { siteId: site.id, label });
    await seedStats(store, site.id, now, 30);
  }
  return { id: created.json.data.id, ids };
}

export { seedStats };

/** The Hono env the node server passes, naming the client's socket address. */
export function fromAddress(remoteAddress: string) {
  return { incoming: { socket: { remoteAddress } } };
}

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface Running {
  child: ChildProcess;
  port: number;
  output: () => string;
  stop: () => Promise<number | null>;
}

/** Runs `porchlight ARGS` as a user would (info logs), collecting stdout and stderr together. */
export function spawnPorchlight(args: string[], env: Record<string, string>) {
  const child = spawn("node", ["bin/porchlight.js", ...args], {
    env: { ...process.env, LOG_LEVEL: "info", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (d) => {
    output += d;
  });
  child.stderr?.on("data", (d) => {
    output += d;
  });
  return { child, output: () => output };
}

/** Starts `porchlight serve` as a user would and waits until it listens. */
export async function startServer(env: Record<string, string>): Promise<Running> {
  const port = await freePort();
  const { child, output: read } = spawnPorchlight(["serve"], {
    PORT: String(port),
    HOST: "127.0.0.1",
    DATABASE_URL: "",
    ...env,
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const timer = setInterval(() => {
      if (read().includes("porchlight listening")) {
        clearInterval(timer);
        resolve();
      }
    }, 50);
    exited.then(() => {
      clearInterval(timer);
      reject(new Error(`server exited before listening:\n${read()}`));
    });
  });
  return {
    child,
    port,
    output: read,
    stop: () => {
      child.kill("SIGTERM");
      return exited;
    },
  };
}

/** Sends `signal` to a child still running and resolves once it has exited (at once when it already has). */
export function stopChild(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.kill(signal);
  });
}

/** For each path parameter of the route table, a value that is well formed but names nothing (the unknown's 404). */
export const UNKNOWN_PARAMS: Record<string, string> = {
  siteId: "000000000000000000000000",
  id: "2147483647",
  itemId: "2147483647",
  incidentId: "2147483647",
  updateId: "2147483647",
  slug: "no-such-page",
  snapshotId: "nope",
  memberId: "000000000000000000000000",
  invitationId: "lnk_0000000000000000",
  tokenId: "tok_0000000000000000",
  token: "A".repeat(32),
  subscriberId: "sub_000000000000000000000000",
};
