import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, test } from "vitest";
import { hashToken } from "../server/accounts/secrets.ts";
import { runCommand } from "../server/cli/commands.ts";
import type { Store } from "../server/store/store.ts";
import { client, describeStores, makeApp } from "./helpers.ts";

const run = promisify(execFile);

describeStores("porchlight command", (kind) => {
  let store: Store;
  let dataDir: string;
  let databaseUrl: string | undefined;
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    ({ store, dataDir, databaseUrl, cleanup } = await kind.open());
  });
  afterAll(() => cleanup());

  const cli = async (...argv: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCommand(store, argv, { out: (l) => out.push(l), err: (l) => err.push(l) });
    return { code, out, err };
  };

  test("user create makes an owner of a new workspace on a plan (default free)", async () => {
    expect((await cli("user", "create", "--email", "Ada@Example.com")).code).toBe(0);
    expect(await store.findUserByEmail("ada@example.com")).toMatchObject({ role: "owner", plan: "free" });
    expect((await cli("user", "create", "--email", "team@example.com", "--plan", "team")).code).toBe(0);
    expect(await store.findUserByEmail("team@example.com")).toMatchObject({ plan: "team" });
  });

  test("user create --join adds a member with a role to the owner's workspace", async () => {
    await cli("user", "create", "--email", "boss@example.com", "--plan", "solo");
    const res = await cli(
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
    const boss = await store.findUserByEmail("boss@example.com");
    const ed = await store.findUserByEmail("ed@example.com");
    expect(ed).toMatchObject({ role: "editor", plan: "solo", workspace_id: boss?.workspace_id });
  });

  test.each([
    [["user", "create"], 2, /--email/],
    [["user", "create", "--email", "nope"], 1, /--email/],
    [["user", "create", "--email", "a1@example.com", "--plan", "gold"], 1, /--plan/],
    [["user", "create", "--email", "a2@example.com", "--join", "ghost@example.com"], 1, /No user/],
    [["user", "create", "--email", "a3@example.com", "--role", "admin"], 1, /--join/],
    [["user", "create", "--email", "a4@example.com", "--join", "boss@example.com", "--role", "owner"], 1, /--role/],
    [["user", "create", "--email", "a5@example.com", "--join", "boss@example.com", "--plan", "team"], 1, /--plan/],
    [["user", "create", "--email", "boss@example.com"], 1, /already exists/],
    [["token", "create", "--email", "ghost@example.com"], 1, /No user/],
    [["token", "revoke"], 2, /one token ID/],
    [["token", "revoke", "tok_missing"], 1, /No token/],
    [["token", "list", "--email", "boss@example.com", "--bogus"], 2, /bogus/],
    [["frobnicate"], 2, /Unknown command/],
  ])("%j exits %i with a message", async (argv, code, message) => {
    const res = await cli(...(argv as string[]));
    expect(res.code).toBe(code);
    expect(res.err.join("\n")).toMatch(message);
  });

  test("token create prints the token alone; it works, lists, and revokes at once", async () => {
    await cli("user", "create", "--email", "tok@example.com");
    const created = await cli("token", "create", "--email", "tok@example.com", "--name", "laptop");
    expect(created.out).toHaveLength(1);
    const token = created.out[0] as string;
    expect(token).toMatch(/^pl_[\w-]{43}$/);
    const rows = await store.db.selectFrom("api_tokens").selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(token);
    expect(rows.some((r) => r.token_hash === hashToken(token))).toBe(true);

    const { app } = makeApp(store);
    expect((await client(app, token).get("/public/v1/sites")).status).toBe(200);
    const listed = await cli("token", "list", "--email", "tok@example.com");
    expect(listed.out[0]).toBe("ID\tNAME\tCREATED\tLAST USED\tSTATE");
    const line = listed.out.find((l) => l.includes("laptop")) as string;
    const id = line.split("\t")[0] as string;
    expect(line).toMatch(/\tactive$/);
    expect(line.split("\t")[3]).not.toBe("never");
    expect((await cli("token", "revoke", id)).out).toEqual([`Revoked ${id}`]);
    expect((await client(app, token).get("/public/v1/sites")).status).toBe(401);
    expect((await cli("token", "list", "--email", "tok@example.com")).out[1]).toMatch(/\trevoked /);
    expect((await cli("token", "revoke", id)).out).toEqual([`${id} was already revoked`]);
  });

  test("the installed command works against the same data directory or DATABASE_URL", async () => {
    const env = {
      ...process.env,
      PORCHLIGHT_DATA_DIR: dataDir,
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : { DATABASE_URL: "" }),
    };
    await run("node", ["bin/porchlight.js", "user", "create", "--email", "bin@example.com", "--plan", "team"], { env });
    const { stdout } = await run("node", ["bin/porchlight.js", "token", "create", "--email", "bin@example.com"], {
      env,
    });
    expect(stdout).toMatch(/^pl_[\w-]{43}\n$/);
    const { app } = makeApp(store);
    expect((await client(app, stdout.trim()).get("/public/v1/sites")).status).toBe(200);
    // A revocation by another process is honoured on the very next request, whatever this process cached.
    const api = client(app, stdout.trim());
    expect((await api.get("/public/v1/sites")).status).toBe(200);
    const listed = await run("node", ["bin/porchlight.js", "token", "list", "--email", "bin@example.com"], { env });
    const id = listed.stdout.split("\n")[1]?.split("\t")[0] as string;
    await run("node", ["bin/porchlight.js", "token", "revoke", id], { env });
    expect((await api.get("/public/v1/sites")).status).toBe(401);
    const bad = await run("node", ["bin/porchlight.js", "token", "revoke"], { env }).catch((e) => e);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("Usage: porchlight");
  });
});
