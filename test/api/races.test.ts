import { join } from "node:path";
import SQLite from "better-sqlite3";
import { describe, expect, test } from "vitest";
import { hashToken } from "../../server/accounts/secrets.ts";
import type { Store } from "../../server/store/store.ts";
import { ReadModel } from "../../server/views/read-model.ts";
import {
  type App,
  client,
  describeStores,
  fromAddress,
  makeApp,
  seedOwner,
  sqliteKind,
  startServer,
  TestClock,
  useStore,
} from "../helpers.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Makes a store method slow, as a busy database would, so that requests overlap. */
function slowDown<T extends object>(target: T, name: keyof T & string, ms = 60): () => void {
  const original = (target[name] as (...a: unknown[]) => Promise<unknown>).bind(target);
  (target as unknown as Record<string, unknown>)[name] = async (...args: unknown[]) => {
    const value = await original(...args);
    await sleep(ms);
    return value;
  };
  return () => {
    (target as unknown as Record<string, unknown>)[name] = original;
  };
}

test("ReadModel: a write detaches builds already under way; later readers get a fresh build", async () => {
  const model = new ReadModel<string>(new TestClock(), 60_000);
  let release: (value: string) => void = () => {};
  const first = model.get("k", () => new Promise((resolve) => (release = resolve)));
  model.invalidate();
  const second = model.get("k", async () => "after the write");
  release("before the write");
  expect(await first).toBe("before the write");
  expect(await second).toBe("after the write");
  expect(model.peek("k")).toBe("after the write");
});

describeStores("races between reads and writes", (kind) => {
  let store: Store;
  let app: App;
  let api: ReturnType<typeof client>;

  useStore(kind, async (opened) => {
    ({ store } = opened);
    ({ app } = makeApp(store, { env: { PORCHLIGHT_PASSWORD_ATTEMPTS: "3" } }));
    api = client(app, (await seedOwner(store)).token);
  });

  test("password attempts sent together are all counted: the limit holds, and the right one last gets 429", async () => {
    await api.post("/public/v1/status-pages", {
      name: "Locked",
      slug: `locked-${kind.name}`,
      visibility: "password",
      password: "the right password",
    });
    const attempt = (password: string) =>
      app.request(
        `/public/v1/status-page/locked-${kind.name}`,
        { headers: { "x-status-page-password": password } },
        fromAddress("198.51.100.99"),
      );
    const answers = await Promise.all([
      ...Array.from({ length: 39 }, (_, i) => attempt(`guess ${i}`)),
      attempt("the right password"),
    ]);
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s !== 429)).toHaveLength(3);
    expect(statuses.at(-1)).toBe(429);
    // A right password does not use up the allowance of a client that has not failed.
    for (let i = 0; i < 5; i++) {
      const ok = await app.request(
        `/public/v1/status-page/locked-${kind.name}`,
        { headers: { "x-status-page-password": "the right password" } },
        fromAddress("198.51.100.100"),
      );
      expect(ok.status).toBe(200);
    }
  });

  test("a page made password-protected while its public view is being built is never served without the password", async () => {
    const page = (await api.post("/public/v1/status-pages", { name: "Flip", slug: `flip-${kind.name}` })).json.data;
    const restore = slowDown(store.views, "pageViewData");
    try {
      const early = app.request(`/public/v1/status-page/flip-${kind.name}`);
      await sleep(20);
      const patched = await api.patch(`/public/v1/status-pages/${page.id}`, {
        visibility: "password",
        password: "correct horse",
      });
      expect(patched.status).toBe(200);
      const after = await app.request(`/public/v1/status-page/flip-${kind.name}`);
      expect(after.status).toBe(401);
      expect(after.headers.get("cache-control")).not.toBe("public, no-cache");
      await early;
      expect((await app.request(`/public/v1/status-page/flip-${kind.name}`)).status).toBe(401);
    } finally {
      restore();
    }
  });

  test("a site write answers, and is then read, with its own data, even while an older read is being built", async () => {
    const site = (await api.post("/public/v1/sites", { url: "https://race.example.com", name: "Old name" })).json.data;
    const restore = slowDown(store.sites, "dailyStats");
    try {
      const slowRead = api.get(`/public/v1/site/${site.id}`);
      await sleep(20);
      const patched = await api.patch(`/public/v1/site/${site.id}`, { name: "New name" });
      expect(patched.json.data).toMatchObject({ name: "New name", __v: 1 });
      await slowRead;
      expect((await api.get(`/public/v1/site/${site.id}`)).json.data.name).toBe("New name");

      const slowAgain = api.get(`/public/v1/site/${site.id}`);
      await sleep(20);
      expect((await api.delete(`/public/v1/site/${site.id}`)).status).toBe(200);
      expect((await api.get(`/public/v1/site/${site.id}`)).status).toBe(404);
      await slowAgain;
      expect((await api.get(`/public/v1/site/${site.id}`)).status).toBe(404);
    } finally {
      restore();
    }
  });

  test("ids beyond the database's integer range are a 404 (no such record can exist), never a 500", async () => {
    for (const [method, path] of [
      ["GET", "/public/v1/status-pages/3000000000"],
      ["PATCH", "/public/v1/status-pages/9999999999"],
      ["DELETE", "/public/v1/status-pages/1/items/3000000000"],
      ["DELETE", "/public/v1/status-pages/1/incidents/2147483648"],
    ] as const) {
      const res = await api.call(method, path, method === "GET" ? undefined : {});
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    expect((await api.get("/public/v1/status-pages/2147483647")).status).toBe(404);
  });

  test("a page renamed after it was read cannot be deleted by its old name", async () => {
    const owner = await seedOwner(store);
    const page = (
      await client(app, owner.token).post("/public/v1/status-pages", { name: "Before", slug: `rename-${kind.name}` })
    ).json.data;
    await client(app, owner.token).patch(`/public/v1/status-pages/${page.id}`, { name: "After" });
    expect(await store.pages.delete(owner.workspaceId, page.id, "Before")).toBe(false);
    expect(await store.pages.get(owner.workspaceId, page.id)).toBeDefined();
    expect(await store.pages.delete(owner.workspaceId, page.id, "After")).toBe(true);
  });
});

describe("SQLite shared by two processes", () => {
  let store: Store;
  let dataDir: string;

  useStore(sqliteKind, (opened) => {
    ({ store, dataDir } = opened);
  });

  test("a token revoked by another process while this one is looking it up is not kept in the cache", async () => {
    const { app } = makeApp(store);
    const a = await seedOwner(store);
    const b = await seedOwner(store);
    const other = new SQLite(join(dataDir, "porchlight.db"));
    const internals = store.accounts as unknown as { touchToken: (...args: unknown[]) => Promise<void> };
    const touch = internals.touchToken.bind(store.accounts);
    let first = true;
    internals.touchToken = async (...args: unknown[]) => {
      if (first && args[0] === a.tokenId) {
        first = false;
        other.prepare("update api_tokens set revoked_at = ? where id = ?").run(new Date().toISOString(), a.tokenId);
        await sleep(2);
        await client(app, b.token).get("/public/v1/sites"); // passes the data_version check meanwhile
      }
      return touch(...args);
    };
    try {
      await client(app, a.token).get("/public/v1/sites");
      await sleep(5);
      for (let i = 0; i < 3; i++) {
        await sleep(10);
        expect((await client(app, a.token).get("/public/v1/sites")).status).toBe(401);
      }
      expect(store.accounts.peekPrincipal(hashToken(a.token), new Date())).toBeUndefined();
    } finally {
      internals.touchToken = touch;
      other.close();
    }
  });

  test("two server processes on one SQLite file: concurrent page creation answers 201 or 403, never 500", async () => {
    const owner = await seedOwner(store, "team");
    const env = { PORCHLIGHT_DATA_DIR: dataDir };
    const servers = await Promise.all([startServer(env), startServer(env)]);
    try {
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          fetch(`http://127.0.0.1:${servers[i % 2]?.port}/public/v1/status-pages`, {
            method: "POST",
            headers: { authorization: `Bearer ${owner.token}`, "content-type": "application/json" },
            body: JSON.stringify({ name: `P${i}`, slug: `two-${i}` }),
          }),
        ),
      );
      expect(results.map((r) => r.status).sort()).toEqual([201, 201, 201, 201, 201, 403, 403, 403, 403, 403]);
      expect(await store.pages.count(owner.workspaceId)).toBe(5);
    } finally {
      await Promise.all(servers.map((s) => s.stop()));
    }
  });
});
