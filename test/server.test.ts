import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { createPostgresDatabase, hasPostgres, startServer as start } from "./helpers.ts";

const tokenIn = (text: string) => /pl_[\w-]{43}/.exec(text)?.[0];

describe("npm start on SQLite", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "porchlight-serve-"));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  test("the first start creates the owner and prints its token once; logs never carry secrets", async () => {
    const first = await start({ PORCHLIGHT_DATA_DIR: dataDir, PORCHLIGHT_OWNER_EMAIL: "me@example.com" });
    const token = tokenIn(first.output()) as string;
    expect(token).toBeDefined();
    expect(first.output()).toContain("me@example.com (plan stack)");
    expect(first.output()).toContain(`Authorization: Bearer ${token}`);
    const base = `http://127.0.0.1:${first.port}`;
    expect(await (await fetch(`${base}/healthz`)).json()).toEqual({ status: "ok" });
    expect(await (await fetch(`${base}/readyz`)).json()).toEqual({ status: "ok", store: "sqlite" });
    const auth = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    const secret = "Sup3r secret pass";
    const created = await fetch(`${base}/public/v1/status-pages`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ name: "Mine", slug: "mine", visibility: "password", password: secret }),
    });
    expect(created.status).toBe(201);
    const page = await fetch(`${base}/public/v1/status-page/mine`, { headers: { "x-status-page-password": secret } });
    expect(page.status).toBe(200);
    expect(page.headers.get("x-request-id")).toBeTruthy();
    expect(
      (await fetch(`${base}/public/v1/status-page/mine`, { headers: { "x-status-page-password": "wrong" } })).status,
    ).toBe(401);
    await fetch(`${base}/public/v1/status-pages`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ name: "Open", slug: "open" }),
    });
    for (let i = 0; i < 3; i++) expect((await fetch(`${base}/public/v1/status-page/open`)).status).toBe(200);
    // A push site's address carries its secret: the request line names the route, never the token.
    const push = await fetch(`${base}/public/v1/sites`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ name: "Nightly backup", url: "push://" }),
    });
    expect(push.status).toBe(201);
    const pushPath = new URL((await push.json()).data.pushUrl).pathname;
    const pushToken = pushPath.split("/").pop() as string;
    expect((await fetch(`${base}${pushPath}?status=up`, { method: "POST" })).status).toBe(200);
    expect(await first.stop()).toBe(0);

    const logLines = first
      .output()
      .split("\n")
      .filter((l) => l.startsWith("{"));
    const requests = logLines.map((l) => JSON.parse(l)).filter((l) => l.msg === "request");
    // At info, the writes and the refusal; the successful reads (health, status pages) are debug lines.
    expect(requests.map((r) => `${r.method} ${r.status}`).sort()).toEqual([
      "GET 401",
      "POST 200",
      "POST 201",
      "POST 201",
      "POST 201",
    ]);
    expect(requests.find((r) => r.status === 200).path).toBe("/public/v1/push/***");
    for (const entry of requests)
      expect(entry).toMatchObject({ level: 30, requestId: expect.any(String), path: expect.any(String) });
    const started = logLines.map((l) => JSON.parse(l)).find((l) => l.msg.startsWith("Porchlight is running"));
    expect(started.msg).toContain(`dashboard http://localhost:${first.port}/dashboard/`);
    // The first read of the open page built its view (an info line); the two after it came from memory, counted.
    const summary = logLines.map((l) => JSON.parse(l)).find((l) => l.msg === "reads served from memory");
    expect(summary).toMatchObject({ level: 30, counts: { "status page 200": 2 } });
    const logs = logLines.join("\n");
    expect(logs).not.toContain(token);
    expect(logs).not.toContain(secret);
    expect(logs).not.toContain("wrong");
    expect(logs).not.toContain(pushToken);

    const second = await start({ PORCHLIGHT_DATA_DIR: dataDir });
    expect(tokenIn(second.output())).toBeUndefined();
    const still = await fetch(`http://127.0.0.1:${second.port}/public/v1/sites`, { headers: auth });
    expect(still.status).toBe(200);
    await second.stop();
  });

  test("the dashboard links its icon, and /favicon.ico answers it", async () => {
    const server = await start({ PORCHLIGHT_DATA_DIR: dataDir, PORCHLIGHT_ENGINE: "off" });
    try {
      const base = `http://127.0.0.1:${server.port}`;
      const html = await (await fetch(`${base}/dashboard/`)).text();
      const href = /<link rel="?icon"? href="?([^" >]+)"?[^>]*type="?image\/svg\+xml/.exec(html)?.[1];
      expect(href).toMatch(/^\/dashboard\/assets\/favicon-[\w-]+\.svg$/);
      const linked = await fetch(`${base}${href}`);
      expect(linked.status).toBe(200);
      expect(linked.headers.get("content-type")).toBe("image/svg+xml");
      const icon = await linked.text();
      expect(icon).toMatch(/^<svg /);
      const ico = await fetch(`${base}/favicon.ico`);
      expect(ico.status).toBe(200);
      expect(ico.headers.get("content-type")).toBe("image/svg+xml");
      expect(await ico.text()).toBe(icon);
    } finally {
      await server.stop();
    }
  });

  test("a bad variable stops start-up with a message naming it", async () => {
    const child = spawn("node", ["bin/porchlight.js", "serve"], {
      env: { ...process.env, PORT: "eighty", PORCHLIGHT_DATA_DIR: dataDir },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    const code = await new Promise((resolve) => child.on("exit", resolve));
    expect(code).toBe(1);
    expect(stderr).toContain('PORT="eighty"');
  });
});

describe.skipIf(!hasPostgres)(`npm start on PostgreSQL${hasPostgres ? "" : " (skipped: no PostgreSQL)"}`, () => {
  test("two processes starting together on one empty database create one owner", async () => {
    const db = await createPostgresDatabase();
    try {
      const dataDir = mkdtempSync(join(tmpdir(), "porchlight-serve-"));
      const env = { DATABASE_URL: db.url, PORCHLIGHT_DATA_DIR: dataDir };
      const [a, b] = await Promise.all([start(env), start(env)]);
      const tokens = [tokenIn(a.output()), tokenIn(b.output())].filter(Boolean);
      expect(tokens).toHaveLength(1);
      const ready = await (await fetch(`http://127.0.0.1:${a.port}/readyz`)).json();
      expect(ready).toEqual({ status: "ok", store: "postgres" });
      const viaOther = await fetch(`http://127.0.0.1:${b.port}/public/v1/sites`, {
        headers: { authorization: `Bearer ${tokens[0]}` },
      });
      expect(viaOther.status).toBe(200);
      await Promise.all([a.stop(), b.stop()]);
      rmSync(dataDir, { recursive: true, force: true });
    } finally {
      await db.drop();
    }
  });
});
