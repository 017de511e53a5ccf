import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Store } from "../../server/store/store.ts";
import { hasPostgres, postgresKind, type Running, seedOwner, startServer } from "../helpers.ts";

const PASSWORD = "the right password";
const ATTEMPTS = 5;

/**
 * Two real `porchlight serve` processes on one PostgreSQL database, as a deployment behind a load balancer runs
 * them: a client's wrong passwords count once, whichever process answers them.
 */
(hasPostgres ? describe : describe.skip)(
  `wrong passwords across processes on one PostgreSQL database${hasPostgres ? "" : " (skipped: no PostgreSQL)"}`,
  () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    let servers: Running[] = [];
    let slug = "";

    beforeAll(async () => {
      const opened = await postgresKind.open();
      ({ store, cleanup } = opened);
      const owner = await seedOwner(store);
      const env = {
        DATABASE_URL: opened.databaseUrl as string,
        PORCHLIGHT_DATA_DIR: opened.dataDir,
        PORCHLIGHT_ENGINE: "off",
        PORCHLIGHT_PASSWORD_ATTEMPTS: String(ATTEMPTS),
        // The client is named by X-Forwarded-For, as behind a load balancer.
        PORCHLIGHT_TRUSTED_PROXIES: "127.0.0.1",
      };
      servers = await Promise.all([startServer(env), startServer(env)]);
      slug = `shared-${Date.now().toString(36)}`;
      const created = await fetch(`http://127.0.0.1:${servers[0]?.port}/public/v1/status-pages`, {
        method: "POST",
        headers: { authorization: `Bearer ${owner.token}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "Shared", slug, visibility: "password", password: PASSWORD }),
      });
      expect(created.status).toBe(201);
    }, 60_000);
    afterAll(async () => {
      await Promise.all(servers.map((s) => s.stop()));
      await cleanup?.();
    });

    const attempt = (server: number, password: string, client: string) =>
      fetch(`http://127.0.0.1:${servers[server]?.port}/public/v1/status-page/${slug}`, {
        headers: { "x-status-page-password": password, "x-forwarded-for": client },
      });

    test("wrong guesses alternating between the two processes get 429 after the configured number in total", async () => {
      const client = "198.51.100.7";
      const statuses: number[] = [];
      for (let i = 0; i < 2 * ATTEMPTS + 2; i++) {
        const res = await attempt(i % 2, `guess ${i}`, client);
        statuses.push(res.status);
        await res.arrayBuffer();
      }
      expect(statuses).toEqual([...Array(ATTEMPTS).fill(401), ...Array(ATTEMPTS + 2).fill(429)]);
      for (const server of [0, 1]) {
        const refused = await attempt(server, PASSWORD, client);
        expect(refused.status, `process ${server + 1}`).toBe(429);
        expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
        expect(refused.headers.get("cache-control")).toBe("private, no-store");
        expect(refused.headers.get("vary")).toBe("Authorization, Cookie, X-Status-Page-Password");
      }
      // Another client is not affected, on either process.
      for (const server of [0, 1]) expect((await attempt(server, PASSWORD, "198.51.100.8")).status).toBe(200);
    });

    test("a right password gives its point back in the shared count", async () => {
      const client = "198.51.100.9";
      for (let i = 0; i < 3 * ATTEMPTS; i++) {
        const res = await attempt(i % 2, PASSWORD, client);
        expect(res.status, `attempt ${i + 1}`).toBe(200);
      }
      for (let i = 0; i < ATTEMPTS; i++) expect((await attempt(i % 2, `wrong ${i}`, client)).status).toBe(401);
      expect((await attempt(0, "wrong again", client)).status).toBe(429);
    });
  },
);
