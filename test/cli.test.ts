import { type ChildProcess, execFile, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, afterEach, describe, expect, test } from "vitest";
import { bootstrapOwner } from "../server/accounts/accounts.ts";
import { hashToken } from "../server/accounts/secrets.ts";
import { firstStartMessage, startLine } from "../server/cli/first-start.ts";
import { type CliDeps, runCli } from "../server/cli/program.ts";
import { shutdown } from "../server/cli/shutdown.ts";
import type { Config } from "../server/config.ts";
import { loadConfig } from "../server/config.ts";
import { createLogger } from "../server/log.ts";
import type { Store } from "../server/store/store.ts";
import { client, createPostgresDatabase, describeStores, freePort, makeApp, useStore } from "./helpers.ts";
import { makeKumaDb } from "./support/uptime-kuma.ts";

const execFileAsync = promisify(execFile);
const { version } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
  version: string;
};
const tokenIn = (text: string) => /pl_[\w-]{43}/.exec(text)?.[0];
const RULE = /^\+-+\+$/;

/** `node bin/porchlight.js ARGS` to its end: exit code, stdout, stderr. */
async function porchlight(args: string[], env: Record<string, string> = {}, nodeArgs: string[] = []) {
  try {
    const { stdout, stderr } = await execFileAsync("node", [...nodeArgs, "bin/porchlight.js", ...args], {
      env: { ...process.env, ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** The `launch`ed processes still running, each with the promise of its exit. */
const running = new Map<ChildProcess, Promise<number | null>>();

/**
 * Kills (SIGKILL) whatever `launch` started and is still running, and waits for it to go: a test that fails between
 * `launch` and `stop` must not leave a server listening with its engine running (on PostgreSQL, over a database
 * that its `finally` drops). Each test's `finally` calls it before its clean-up, and every test ends with it.
 * (Not a detached process group as in package.test.ts: `node bin/porchlight.js` starts no processes of its own, and
 * in this process group an interrupted run's Ctrl-C reaches it too.)
 */
async function killSurvivors(): Promise<void> {
  const exits = [...running].map(([child, exited]) => {
    child.kill("SIGKILL");
    return exited;
  });
  await Promise.all(exits);
}
afterEach(killSurvivors);
afterAll(killSurvivors);

/** A long-running `porchlight ARGS` (serve, worker), its stdout and stderr apart; killed at the test's end. */
function launch(args: string[], env: Record<string, string>) {
  const child = spawn("node", ["bin/porchlight.js", ...args], {
    env: { ...process.env, LOG_LEVEL: "info", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  const exited = new Promise<number | null>((resolve) =>
    child.on("exit", (code) => {
      running.delete(child);
      resolve(code);
    }),
  );
  running.set(child, exited);
  child.stdout.on("data", (d) => {
    stdout += d;
  });
  child.stderr.on("data", (d) => {
    stderr += d;
  });
  return {
    stdout: () => stdout,
    /** Resolves once stdout satisfies `done`; rejects if the process exits first. */
    until: (done: (stdout: string) => boolean) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (!done(stdout)) return;
          child.stdout.off("data", check);
          resolve();
        };
        child.stdout.on("data", check);
        check();
        void exited.then((code) => reject(new Error(`exited (${code}) early:\n${stdout}\n${stderr}`)));
      }),
    stop: (signal: NodeJS.Signals = "SIGTERM") => {
      child.kill(signal);
      return exited;
    },
  };
}

const boxDone = (stdout: string) => stdout.split("\n").filter((line) => RULE.test(line)).length >= 2;

const unused = () => Promise.reject(new Error("not used by this test"));

/** The command line in this process, printing into arrays. */
async function cli(argv: string[], deps: Partial<CliDeps> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, {
    io: { out: (l) => out.push(l), err: (l) => err.push(l) },
    env: {},
    cwd: "/srv/porchlight",
    version: "9.9.9",
    now: () => new Date(),
    withStore: unused,
    serve: unused,
    work: unused,
    refreshRdap: unused,
    ...deps,
  });
  return { code, out: out.join("\n"), err: err.join("\n") };
}

describe("the porchlight command line", () => {
  test("--version and -V print package.json's version", async () => {
    for (const flag of ["--version", "-V"]) {
      const { code, stdout } = await porchlight([flag]);
      expect(code).toBe(0);
      expect(stdout).toBe(`${version}\n`);
    }
  });

  test.each([
    [["--help"], ["serve", "worker", "rdap", "user", "token", "help", "--version"]],
    [["help"], ["serve", "worker", "rdap", "user", "token"]],
    [
      ["serve", "--help"],
      ["--port", "--host", "--data-dir"],
    ],
    [
      ["help", "serve"],
      ["--port", "--host", "--data-dir"],
    ],
    [
      ["worker", "--help"],
      ["--region", "--data-dir"],
    ],
    [["rdap", "--help"], ["refresh"]],
    [
      ["rdap", "refresh", "--help"],
      ["--from", "--data-dir"],
    ],
    [["user", "--help"], ["create"]],
    [
      ["user", "create", "--help"],
      ["--email", "--plan", "--join", "--role", "--data-dir"],
    ],
    [
      ["help", "user", "create"],
      ["--email", "--plan", "--join", "--role", "--data-dir"],
    ],
    [
      ["token", "--help"],
      ["create", "list", "revoke"],
    ],
    [
      ["token", "create", "--help"],
      ["--email", "--name", "--data-dir"],
    ],
    [
      ["token", "list", "--help"],
      ["--email", "--data-dir"],
    ],
    [
      ["token", "revoke", "--help"],
      ["<id>", "--data-dir"],
    ],
  ])("%j prints the usage with %j and exits 0", async (argv, names) => {
    const { code, stdout, stderr } = await porchlight(argv);
    expect(code).toBe(0);
    expect(stderr).toBe("");
    expect(stdout).toMatch(/^Usage: porchlight/);
    for (const name of names) expect(stdout).toContain(name);
  });

  test("serve --help neither listens nor opens the store", async () => {
    const root = mkdtempSync(join(tmpdir(), "porchlight-cli-"));
    try {
      const port = await freePort();
      // It exits by itself (a server would not), and makes no data directory.
      const res = await porchlight(["serve", "--help", "--port", String(port), "--data-dir", join(root, "flag")], {
        PORCHLIGHT_DATA_DIR: join(root, "env"),
      });
      expect(res.code).toBe(0);
      expect(res.stdout).toContain("Usage: porchlight serve");
      expect(existsSync(join(root, "flag"))).toBe(false);
      expect(existsSync(join(root, "env"))).toBe(false);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  test.each([
    [["frobnicate"], /^error: unknown command 'frobnicate'/, "Usage: porchlight [options] [command]"],
    [["help", "frobnicate"], /^error: unknown command 'frobnicate'/, "Usage: porchlight [options] [command]"],
    [["serve", "--bogus"], /^error: unknown option '--bogus'/, "Usage: porchlight serve"],
    [["serve", "extra"], /^error: too many arguments for 'serve'/, "Usage: porchlight serve"],
    [
      ["serve", "--port", "eighty"],
      /^error: option '--port <port>' argument 'eighty' is invalid/,
      "Usage: porchlight serve",
    ],
    [["worker", "--region", "EU West"], /^error: option '--region <region>'/, "Usage: porchlight worker"],
    [["token"], /^Usage: porchlight token/, "create"],
    [["token", "revoke"], /^error: missing required argument 'id'/, "Usage: porchlight token revoke"],
    [
      ["user", "create", "--plan", "team"],
      /^error: required option '--email <email>'/,
      "Usage: porchlight user create",
    ],
  ])("%j is a usage error: exit 2, the message and the usage on stderr", async (argv, message, usage) => {
    const { code, stdout, stderr } = await porchlight(argv);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toMatch(message);
    expect(stderr).toContain(usage);
  });

  test.each(["20.19.0", "22.18.1"])(
    "on Node.js %s it says what it needs and exits 1 before loading anything",
    async (node) => {
      const pretend = `data:text/javascript,Object.defineProperty(process,"versions",{value:{...process.versions,node:"${node}"}})`;
      const { code, stdout, stderr } = await porchlight(["--version"], {}, ["--import", pretend]);
      expect(code).toBe(1);
      expect(stdout).toBe("");
      expect(stderr).toMatch(new RegExp(`^Porchlight needs Node.js 22.19 or newer; this is v${node}\\. .*\\n$`));
    },
  );

  test("flags override the environment and are checked by the same schema", async () => {
    let served: Config | undefined;
    const serve = async (config: Config) => {
      served = config;
    };
    const env = { PORT: "1234", HOST: "0.0.0.0", PORCHLIGHT_DATA_DIR: "/var/lib/env" };
    const argv = ["serve", "--port", "9999", "--host", "127.0.0.1", "--data-dir", "here"];
    expect((await cli(argv, { env, serve })).code).toBe(0);
    expect(served).toMatchObject({
      port: 9999,
      host: "127.0.0.1",
      dataDir: "/srv/porchlight/here",
      publicUrl: "http://localhost:9999",
    });
    // Without flags, the environment; with a flag, a bad variable it overrides no longer matters.
    expect((await cli([], { env, serve })).code).toBe(0);
    expect(served).toMatchObject({ port: 1234, host: "0.0.0.0", dataDir: "/var/lib/env" });
    expect((await cli(["serve", "--port", "80"], { env: { PORT: "eighty" }, serve })).code).toBe(0);
    expect(served?.port).toBe(80);

    for (const [flag, value] of [
      ["--port", "70000"],
      ["--port", ""],
      ["--host", ""],
      ["--data-dir", ""],
    ] as const) {
      const res = await cli(["serve", flag, value], { serve });
      expect(res.code).toBe(2);
      expect(res.err).toContain(`option '${flag} <`);
      expect(res.err).toContain("Usage: porchlight serve");
    }
    // A bad variable that no flag overrides is a refusal naming it, as for the server itself.
    const bad = await cli(["serve"], { env: { PORT: "eighty" }, serve });
    expect(bad).toMatchObject({ code: 1, out: "" });
    expect(bad.err).toContain('PORT="eighty"');
  });

  test("worker takes --region (default PORCHLIGHT_REGION) and --data-dir", async () => {
    const started: [string, string][] = [];
    const work = async (config: Config, region: string) => {
      started.push([config.dataDir, region]);
    };
    const env = { PORCHLIGHT_REGION: "eu", PORCHLIGHT_DATA_DIR: "/var/lib/env" };
    expect((await cli(["worker"], { env, work })).code).toBe(0);
    expect((await cli(["worker", "--region", "us-east", "--data-dir", "/data"], { env, work })).code).toBe(0);
    expect(started).toEqual([
      ["/var/lib/env", "eu"],
      ["/data", "us-east"],
    ]);
  });

  test("rdap refresh: a bad --from is a usage error, a failed download a refusal", async () => {
    const refreshRdap = async (_config: Config, from: string | undefined) => {
      if (from === "https://down.example/dns.json") throw new Error(`${from} answered HTTP 503`);
      return {
        publication: "2026-01-01T00:00:00Z",
        services: [[["com"], ["https://rdap.example/"]]] as [string[], string[]][],
      };
    };
    const saved = await cli(["rdap", "refresh", "--data-dir", "/data"], { refreshRdap });
    expect(saved).toMatchObject({
      code: 0,
      out: "Saved the RDAP bootstrap (1 services, published 2026-01-01T00:00:00Z) to /data",
    });
    expect((await cli(["rdap", "refresh", "--from", "ftp://x"], { refreshRdap })).code).toBe(2);
    const down = await cli(["rdap", "refresh", "--from", "https://down.example/dns.json"], { refreshRdap });
    expect(down).toMatchObject({
      code: 1,
      err: "The RDAP bootstrap was not refreshed: https://down.example/dns.json answered HTTP 503",
    });
  });

  test("a worker stopped with SIGTERM exits 0", async () => {
    const root = mkdtempSync(join(tmpdir(), "porchlight-cli-"));
    try {
      const worker = launch(["worker", "--region", "eu", "--data-dir", root], { DATABASE_URL: "" });
      await worker.until((out) => out.includes('"msg":"engine started"'));
      expect(await worker.stop()).toBe(0);
      expect(worker.stdout()).toContain('"msg":"stopped"');
    } finally {
      await killSurvivors();
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe("shutdown", () => {
  const logged = () => {
    const lines: { level: number; msg: string }[] = [];
    const logger = createLogger("info", { write: (line: string) => lines.push(JSON.parse(line)) });
    return { logger, lines };
  };

  test("a stop that finishes in time exits 0", async () => {
    const { logger, lines } = logged();
    expect(await shutdown({ logger, timeoutMs: 60_000, stop: async () => {} })).toBe(0);
    expect(lines.map((l) => l.msg)).toEqual(["stopped"]);
  });

  test("a stop that fails, or is still running at the deadline, is a forced exit: 1, logged", async () => {
    for (const stop of [() => Promise.reject(new Error("store gone")), () => new Promise<void>(() => {})]) {
      const { logger, lines } = logged();
      expect(await shutdown({ logger, timeoutMs: 1, stop })).toBe(1);
      expect(lines).toEqual([expect.objectContaining({ level: 50, msg: expect.stringContaining("forced exit") })]);
    }
  });
});

describe("the first start's message", () => {
  const token = `pl_${"x".repeat(43)}`;
  test.each([
    ["127.0.0.1", "http://127.0.0.1:8787", false],
    ["0.0.0.0", "http://localhost:8787", true],
    ["::", "http://localhost:8787", true],
    ["::1", "http://[::1]:8787", false],
    ["status.internal", "http://status.internal:8787", false],
  ])(
    "listening on %s: within 80 columns, naming %s, the link, the token and a curl example",
    (host, url, everywhere) => {
      const setupUrl = `${url}/dashboard/setup#token=${"s".repeat(43)}`;
      const text = firstStartMessage({ ownerEmail: "me@example.com", token, setupUrl, host, port: 8787 });
      const lines = text.replace(/^\n/, "").replace(/\n$/, "").split("\n");
      const [first, last] = [lines[0] as string, lines.at(-1) as string];
      expect(first).toMatch(RULE);
      expect(first).toHaveLength(80);
      expect(last).toBe(first);
      // Everything fits 80 columns but the link, which no line break may cut: it has a line of its own.
      for (const line of lines.filter((l) => l !== setupUrl)) expect(line.length, line).toBeLessThanOrEqual(80);
      expect(lines).toContain(setupUrl);
      expect(lines).toContain(token);
      const words = lines.join(" ").replace(/\s+/g, " ");
      expect(words).toContain(`Porchlight is listening on ${url}`);
      expect(words.includes("every other address")).toBe(everywhere);
      expect(words).toContain("me@example.com (plan stack)");
      expect(words).toContain("It is shown only this once.");
      // The command as a shell reads it: the line continuation joins its two lines.
      expect(text.replace(/ \\\n\s*/g, " ")).toContain(
        `curl -H "Authorization: Bearer ${token}" ${url}/public/v1/sites`,
      );
    },
  );

  test("the start line names the dashboard, the status pages and the docs under the public address", () => {
    expect(startLine("https://status.example.com")).toBe(
      "Porchlight is running: dashboard https://status.example.com/dashboard/, status pages https://status.example.com/<slug>, docs https://status.example.com/docs/",
    );
  });
});

describeStores("porchlight command", (kind) => {
  let store: Store;
  let dataDir: string;
  let databaseUrl: string | undefined;

  useStore(kind, (opened) => {
    ({ store, dataDir, databaseUrl } = opened);
  });

  const run = (...argv: string[]) =>
    cli(argv, { env: { PORCHLIGHT_DATA_DIR: dataDir }, withStore: (_config, use) => use(store) });

  test("user create makes an owner of a new workspace on a plan (default free)", async () => {
    expect((await run("user", "create", "--email", "Ada@Example.com")).code).toBe(0);
    expect(await store.accounts.findUserByEmail("ada@example.com")).toMatchObject({ role: "owner", plan: "free" });
    expect((await run("user", "create", "--email", "team@example.com", "--plan", "team")).code).toBe(0);
    expect(await store.accounts.findUserByEmail("team@example.com")).toMatchObject({ plan: "team" });
  });

  test("user create --join adds a member with a role to the owner's workspace", async () => {
    await run("user", "create", "--email", "boss@example.com", "--plan", "solo");
    const res = await run(
      "user",
      "create",
      "--email",
      "ed@example.com",
      "--join",
      "boss@example.com",
      "--role",
      "editor",
    );
    expect(res.code).toBe(0);
    const boss = await store.accounts.findUserByEmail("boss@example.com");
    const ed = await store.accounts.findUserByEmail("ed@example.com");
    expect(ed).toMatchObject({ role: "editor", plan: "solo", workspace_id: boss?.workspace_id });
  });

  // 2: how the command was typed (the usage follows the message); 1: refused for what is in the store.
  test.each([
    [["user", "create"], 2, /required option '--email <email>'/],
    [["user", "create", "--email", "nope"], 2, /--email: Invalid email address/],
    [["user", "create", "--email", "a1@example.com", "--plan", "gold"], 2, /--plan <plan>' argument 'gold'/],
    [["user", "create", "--email", "a2@example.com", "--join", "ghost@example.com"], 1, /No user/],
    [["user", "create", "--email", "a2@example.com", "--join", "nope"], 2, /--join: Invalid email address/],
    [["user", "create", "--email", "a3@example.com", "--role", "admin"], 2, /--role goes with --join/],
    [["user", "create", "--email", "a4@example.com", "--join", "boss@example.com", "--role", "owner"], 2, /--role/],
    [["user", "create", "--email", "a5@example.com", "--join", "boss@example.com", "--plan", "team"], 2, /--plan/],
    [["user", "create", "--email", "boss@example.com"], 1, /already exists/],
    [["token", "create", "--email", "ghost@example.com"], 1, /No user/],
    [["token", "create", "--email", "nope"], 2, /--email: Invalid email address/],
    [["token", "create", "--email", "boss@example.com", "--name", " "], 2, /--name: /],
    [["token", "list", "--email", "ghost@example.com"], 1, /No user/],
    [["token", "revoke"], 2, /missing required argument 'id'/],
    [["token", "revoke", "tok_a", "tok_b"], 2, /too many arguments/],
    [["token", "revoke", "tok_missing"], 1, /No token/],
    [["token", "list", "--email", "boss@example.com", "--bogus"], 2, /unknown option '--bogus'/],
    [["frobnicate"], 2, /unknown command 'frobnicate'/],
  ])("%j exits %i with a message", async (argv, code, message) => {
    const res = await run(...(argv as string[]));
    expect(res.code).toBe(code);
    expect(res.out).toBe("");
    expect(res.err).toMatch(message);
    expect(res.err.includes("Usage: porchlight")).toBe(code === 2);
  });

  test("token create prints the token alone; it works, lists, and revokes at once", async () => {
    await run("user", "create", "--email", "tok@example.com");
    const created = await run("token", "create", "--email", "tok@example.com", "--name", "laptop");
    const token = created.out;
    expect(token).toMatch(/^pl_[\w-]{43}$/);
    const rows = await store.db.selectFrom("api_tokens").selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(token);
    expect(rows.some((r) => r.token_hash === hashToken(token))).toBe(true);

    const { app } = makeApp(store);
    expect((await client(app, token).get("/public/v1/sites")).status).toBe(200);
    const listed = (await run("token", "list", "--email", "tok@example.com")).out.split("\n");
    expect(listed[0]).toBe("ID\tNAME\tCREATED\tLAST USED\tSTATE");
    const line = listed.find((l) => l.includes("laptop")) as string;
    const id = line.split("\t")[0] as string;
    expect(line).toMatch(/\tactive$/);
    expect(line.split("\t")[3]).not.toBe("never");
    expect((await run("token", "revoke", id)).out).toBe(`Revoked ${id}`);
    expect((await client(app, token).get("/public/v1/sites")).status).toBe(401);
    expect((await run("token", "list", "--email", "tok@example.com")).out.split("\n")[1]).toMatch(/\trevoked /);
    expect(await run("token", "revoke", id)).toMatchObject({ code: 0, out: `${id} was already revoked` });
  });

  test("the default owner the server creates (owner@localhost) is an address the CLI accepts", async () => {
    // A fresh install: an empty store, where the server's first start makes the owner from the config's default.
    const fresh = await kind.open();
    try {
      const onFresh = (...argv: string[]) =>
        cli(argv, { env: { PORCHLIGHT_DATA_DIR: fresh.dataDir }, withStore: (_config, use) => use(fresh.store) });
      expect((await bootstrapOwner(fresh.store, loadConfig({}).ownerEmail, new Date()))?.token).toMatch(/^pl_/);
      const created = await onFresh("token", "create", "--email", "owner@localhost", "--name", "replacement");
      expect(created.code).toBe(0);
      const { app } = makeApp(fresh.store);
      expect((await client(app, created.out).get("/public/v1/sites")).status).toBe(200);
      const member = await onFresh("user", "create", "--email", "ed@localhost", "--join", "owner@localhost");
      expect(member.code).toBe(0);
      expect(await fresh.store.accounts.findUserByEmail("ed@localhost")).toMatchObject({ role: "viewer" });
      // Still not addresses: no @, a space, no host.
      for (const bad of ["owner", "own er@localhost", "owner@"]) {
        expect((await onFresh("token", "create", "--email", bad)).code).toBe(2);
      }
    } finally {
      await fresh.cleanup();
    }
  });

  test("the installed command works against the same data directory or DATABASE_URL", async () => {
    const env = {
      PORCHLIGHT_DATA_DIR: dataDir,
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : { DATABASE_URL: "" }),
    };
    expect((await porchlight(["user", "create", "--email", "bin@example.com", "--plan", "team"], env)).code).toBe(0);
    const { stdout } = await porchlight(["token", "create", "--email", "bin@example.com"], env);
    expect(stdout).toMatch(/^pl_[\w-]{43}\n$/);
    const { app } = makeApp(store);
    // A revocation by another process is honoured on the very next request, whatever this process cached.
    const api = client(app, stdout.trim());
    expect((await api.get("/public/v1/sites")).status).toBe(200);
    const listed = await porchlight(["token", "list", "--email", "bin@example.com"], env);
    const id = listed.stdout.split("\n")[1]?.split("\t")[0] as string;
    expect((await porchlight(["token", "revoke", id], env)).code).toBe(0);
    expect((await api.get("/public/v1/sites")).status).toBe(401);
    const bad = await porchlight(["token", "revoke"], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("Usage: porchlight token revoke");
  });

  test("import reads Uptime Kuma's database where it lies (never writing it), Statuspage by URL and Gatus; --dry-run writes nothing", async () => {
    const owner = `importer-${kind.name}@example.com`;
    expect((await run("user", "create", "--email", owner, "--plan", "stack")).code).toBe(0);
    const user = await store.accounts.findUserByEmail(owner);
    const sites = async () =>
      (await store.sites.list(user?.workspace_id as string, 0, 100)).rows.map((s) => s.name).sort();
    const folder = mkdtempSync(join(tmpdir(), "porchlight-cli-import-"));
    const server = createServer((req, res) => {
      const page = { id: "pg1", name: "Remote Status" };
      const bodies: Record<string, unknown> = {
        "/api/v2/summary.json": {
          page,
          components: [{ id: "c1", name: "Edge", position: 1, group: false, group_id: null }],
        },
        "/api/v2/incidents.json": { page, incidents: [] },
      };
      const body = bodies[req.url ?? ""];
      res.writeHead(body ? 200 : 404, { "content-type": "application/json" });
      res.end(JSON.stringify(body ?? { error: "not found" }));
    });
    try {
      const kuma = join(folder, "kuma.db");
      makeKumaDb(
        kuma,
        "2.x",
        "INSERT INTO monitor (id, name, type, url, interval) VALUES (1, 'Shop', 'http', 'https://shop.test/', 60);",
      );
      const hash = createHash("sha256").update(readFileSync(kuma)).digest("hex");
      const dry = await run("import", "uptime-kuma", kuma, "--email", owner, "--dry-run");
      expect(dry.code).toBe(0);
      expect(dry.out.split("\n").slice(0, 3)).toEqual([
        "Uptime Kuma 2.x: would create 1 site; skipped nothing.",
        "Nothing was written (--dry-run).",
        "would create\tsite\tShop",
      ]);
      expect(await sites()).toEqual([]);
      const real = await run("import", "uptime-kuma", kuma, "--email", owner);
      expect(real.out).toMatch(
        /^Uptime Kuma 2\.x: created 1 site; skipped nothing\.\ncreated\tsite\tShop \([0-9a-f]{24}\)$/,
      );
      expect(createHash("sha256").update(readFileSync(kuma)).digest("hex")).toBe(hash);
      const again = await run("import", "uptime-kuma", kuma, "--email", owner);
      expect(again.out).toContain("created nothing; skipped 1 site.");

      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      const { port } = server.address() as AddressInfo;
      const remote = await run(
        "import",
        "statuspage",
        `http://127.0.0.1:${port}/`,
        "--email",
        owner,
        "--slug",
        `remote-${kind.name}`,
        "--bind",
        "Edge=https://edge.test/?a=b",
      );
      expect(remote.code).toBe(0);
      expect(remote.out).toContain(`created\tpage\tRemote Status`);
      const edge = (await store.sites.list(user?.workspace_id as string, 0, 100)).rows.find((s) => s.name === "Edge");
      expect(edge).toMatchObject({ url: "https://edge.test/?a=b", pause: 0 });

      const yaml = join(folder, "config.yaml");
      writeFileSync(
        yaml,
        "endpoints:\n  - name: api\n    url: https://api.test/\n    conditions: ['[STATUS] == 200']\n",
      );
      const gatus = await run("import", "gatus", yaml, "--email", owner, "--json", "--slug", `gatus-${kind.name}`);
      expect(JSON.parse(gatus.out)).toMatchObject({
        source: "gatus",
        dryRun: false,
        created: [{ kind: "site", name: "api" }, { kind: "page" }],
      });
      expect(await sites()).toEqual(["Edge", "Shop", "api"]);

      writeFileSync(join(folder, "bad.yaml"), "{ not: [yaml");
      const bad = await run("import", "gatus", join(folder, "bad.yaml"), "--email", owner);
      expect(bad.code).toBe(1);
      expect(bad.err).toMatch(/^Nothing was imported: This is not YAML/);
      const viewer = `viewer-import-${kind.name}@example.com`;
      await run("user", "create", "--email", viewer, "--join", owner, "--role", "viewer");
      const refused = await run("import", "gatus", yaml, "--email", viewer);
      expect(refused).toMatchObject({
        code: 1,
        err: `${viewer} is a viewer: only an owner, an admin or an editor imports`,
      });
    } finally {
      server.close();
      rmSync(folder, { recursive: true, force: true });
    }
  });

  test("serve listens where its flags say, ends its first start with the token's box, and stops with 0 (or 1 when forced)", async () => {
    const root = mkdtempSync(join(tmpdir(), "porchlight-cli-"));
    const database = kind.name === "postgres" ? await createPostgresDatabase() : undefined;
    try {
      const port = await freePort();
      const dir = join(root, "data");
      // What the flags override: nothing may listen on 192.0.2.1 (TEST-NET) or use the environment's directory.
      const env = {
        PORT: String(await freePort()),
        HOST: "192.0.2.1",
        PORCHLIGHT_DATA_DIR: join(root, "env"),
        DATABASE_URL: database?.url ?? "",
        PORCHLIGHT_OWNER_EMAIL: "me@example.com",
      };
      const args = ["serve", "--port", String(port), "--host", "127.0.0.1", "--data-dir", dir];
      const first = launch(args, env);
      await first.until(boxDone);
      const lines = first.stdout().split("\n");
      const top = lines.findIndex((l) => RULE.test(l));
      // The box is the last thing printed, right after the "listening" log line, the start line and a blank line.
      expect(lines.findLastIndex((l) => RULE.test(l))).toBe(lines.length - 2);
      expect(lines.at(-1)).toBe("");
      expect(lines[top - 1]).toBe("");
      expect(JSON.parse(lines[top - 3] as string)).toMatchObject({
        msg: "porchlight listening",
        port,
        host: "127.0.0.1",
      });
      // Where the owner said the server is (PORCHLIGHT_PUBLIC_URL's default: localhost and PORT).
      expect(JSON.parse(lines[top - 2] as string)).toMatchObject({
        level: 30,
        msg: expect.stringContaining(`dashboard http://localhost:${port}/dashboard/`),
      });
      const box = lines.slice(top).join("\n");
      const token = tokenIn(box) as string;
      expect(token).toBeDefined();
      expect(box).toContain(`Porchlight is listening on http://127.0.0.1:${port}.`);
      expect(box).toContain("me@example.com (plan stack)");
      expect(box).toContain("It is shown only this once.");
      expect(box).toContain(`curl -H "Authorization: Bearer ${token}" \\\n  http://127.0.0.1:${port}/public/v1/sites`);

      const base = `http://127.0.0.1:${port}`;
      expect(await (await fetch(`${base}/healthz`)).json()).toEqual({ status: "ok" });
      expect(existsSync(join(dir, "porchlight.db"))).toBe(kind.name === "sqlite");
      expect(existsSync(join(root, "env"))).toBe(false);
      // The command line reaches the same store through the same flag.
      const made = await porchlight(["token", "create", "--data-dir", dir, "--email", "me@example.com"], env);
      expect(made.code).toBe(0);
      const sites = await fetch(`${base}/public/v1/sites`, {
        headers: { authorization: `Bearer ${made.stdout.trim()}` },
      });
      expect(sites.status).toBe(200);
      expect(await first.stop()).toBe(0);
      expect(first.stdout()).toContain('"msg":"stopped"');

      // A second start on the same store prints no box. Its shutdown cannot finish while a request is under way
      // (its body never comes), so it is forced at the deadline.
      const second = launch(args, { ...env, PORCHLIGHT_SHUTDOWN_TIMEOUT_SECONDS: "1" });
      await second.until((out) => out.includes('"msg":"porchlight listening"'));
      expect(tokenIn(second.stdout())).toBeUndefined();
      expect(second.stdout()).not.toMatch(/^\+-/m);
      const held = connect(port, "127.0.0.1");
      try {
        held.write(
          [
            "POST /public/v1/sites HTTP/1.1",
            "Host: 127.0.0.1",
            `Authorization: Bearer ${token}`,
            "Content-Type: application/json",
            "Content-Length: 100",
            // Node answers 100 Continue once the request is under way: the moment to stop the server.
            "Expect: 100-continue",
            "",
            "",
          ].join("\r\n"),
        );
        await new Promise<void>((resolve) => {
          let answer = "";
          held.on("data", (d) => {
            answer += d;
            if (answer.includes("100 Continue")) resolve();
          });
        });
        expect(await second.stop()).toBe(1);
        expect(second.stdout()).toContain("shutdown did not finish in time; forced exit");
      } finally {
        held.destroy();
      }
    } finally {
      await killSurvivors();
      await database?.drop();
      rmSync(root, { recursive: true, force: true });
    }
  });
});
