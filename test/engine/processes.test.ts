import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { SiteCreate } from "../../server/contract/site.ts";
import { newSiteRecord } from "../../server/store/site-columns.ts";
import { openStore, type Store } from "../../server/store/store.ts";
import { createPostgresDatabase, hasPostgres, seedOwner, spawnPorchlight, startServer } from "../helpers.ts";

/** A target that fails for the regions listed in `failFor` (it reads the region from the User-Agent). */
const failFor = new Set<string>();
let target: Server;
let targetUrl = "";

beforeAll(async () => {
  target = createServer((req, res) => {
    const region = /region ([a-z0-9-]+)/.exec(req.headers["user-agent"] ?? "")?.[1] ?? "";
    res.statusCode = failFor.has(region) ? 503 : 200;
    res.end();
  });
  await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve));
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}/`;
});
afterAll(() => {
  target.closeAllConnections();
  target.close();
});

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const worker = (region: string, env: Record<string, string>) =>
  spawnPorchlight(["worker", "--region", region], { PORCHLIGHT_ALLOW_PRIVATE_TARGETS: "true", ...env });

const stopped = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    if (child.exitCode !== null) return resolve(child.exitCode);
    child.once("exit", (code) => resolve(code));
    child.kill("SIGTERM");
  });

describe("engine processes", () => {
  test("npm start runs the engine: a site added through the API is checked within seconds", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "porchlight-serve-"));
    const server = await startServer({ PORCHLIGHT_DATA_DIR: dataDir, PORCHLIGHT_ALLOW_PRIVATE_TARGETS: "true" });
    try {
      const token = /pl_[\w-]{43}/.exec(server.output())?.[0] as string;
      const base = `http://127.0.0.1:${server.port}`;
      const auth = { authorization: `Bearer ${token}`, "content-type": "application/json" };
      const created = await fetch(`${base}/public/v1/sites`, {
        method: "POST",
        headers: auth,
        body: JSON.stringify({ url: targetUrl, name: "Local" }),
      });
      const id = (await created.json()).data.id;
      const site = await until("the first check", async () => {
        const res = await fetch(`${base}/public/v1/site/${id}`, { headers: auth });
        const data = (await res.json()).data;
        return data.lastCheckTime ? data : undefined;
      });
      expect(site).toMatchObject({ state: "healthy", status: "up" });
      expect(server.output()).toContain('"msg":"engine started"');
    } finally {
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test("worker refuses a bad region with a usage error", async () => {
    const bad = worker("Not A Region", { DATABASE_URL: "" });
    expect(await new Promise((resolve) => bad.child.once("exit", resolve))).toBe(2);
    expect(bad.output()).toContain("--region");
  });

  const twoRegions = "two worker processes in two regions share one PostgreSQL database and their results combine";
  (hasPostgres ? test : test.skip)(
    hasPostgres ? twoRegions : `${twoRegions} (skipped: no PostgreSQL)`,
    async () => {
      const db = await createPostgresDatabase();
      let store: Store | undefined;
      const workers: ChildProcess[] = [];
      try {
        store = await openStore({ dataDir: "", databaseUrl: db.url });
        const owner = await seedOwner(store);
        const now = new Date().toISOString();
        const id = "a1b2c3d4e5f60718293a4b5c";
        await store.sites.insert(
          newSiteRecord(
            owner.workspaceId,
            SiteCreate.parse({
              url: targetUrl,
              name: "Two regions",
              timeout: 5,
              checkInterval: 30,
              regions: ["eu", "us"],
            }),
            now,
            id,
          ),
        );
        for (const region of ["eu", "us"]) workers.push(worker(region, { DATABASE_URL: db.url }).child);
        const summary = async () =>
          await (store as Store).db
            .selectFrom("sites")
            .select(["state", "health_summary"])
            .where("id", "=", id)
            .executeTakeFirstOrThrow();
        const both = await until("both regions' results", async () => {
          const s = await summary();
          return /in eu, us\.$/.test(s.health_summary) ? s : undefined;
        });
        expect(both.state).toBe("healthy");
        const regions = await store.db.selectFrom("check_results").select("region").where("site_id", "=", id).execute();
        expect(new Set(regions.map((r) => r.region))).toEqual(new Set(["eu", "us"]));

        // Only us fails now; a change of headers asks for a check within seconds.
        failFor.add("us");
        await store.sites.update(
          owner.workspaceId,
          id,
          { headers: '[{"name":"x-try","value":"1"}]' },
          new Date().toISOString(),
        );
        const split = await until("the failure in us", async () => {
          const s = await summary();
          return s.health_summary.includes(" in us") ? s : undefined;
        });
        expect(split).toEqual({
          state: "degraded",
          health_summary: "A check failed in us, not yet confirmed: HTTP 503.",
        });
      } finally {
        failFor.clear();
        for (const child of workers) await stopped(child);
        await store?.close();
        await db.drop();
      }
    },
    60_000,
  );
});
