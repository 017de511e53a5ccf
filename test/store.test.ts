import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import pg from "pg";
import { expect, test } from "vitest";
import { bootstrapOwner } from "../server/accounts/accounts.ts";
import { SiteCreate } from "../server/contract/site.ts";
import { isUniqueViolation, newId } from "../server/store/connection.ts";
import { newSiteRecord } from "../server/store/site-columns.ts";
import { openStore, type Store } from "../server/store/store.ts";
import { describeStores, POSTGRES_ADMIN_URL, seedOwner, useStore } from "./helpers.ts";

describeStores("store", (kind) => {
  let store: Store;
  let dataDir: string;
  let databaseUrl: string | undefined;

  useStore(kind, (opened) => {
    ({ store, dataDir, databaseUrl } = opened);
  });

  test("migrations are applied once and re-running them is a no-op", async () => {
    const again = await openStore({ dataDir, databaseUrl });
    const applied = await again.db
      .selectFrom("kysely_migration" as never)
      .select(sql<string>`name`.as("name"))
      .execute();
    expect(applied.map((r) => r.name)).toEqual([
      "0001_foundation",
      "0002_engine",
      "0003_anon",
      "0004_incident_items",
      "0005_page_images",
      "0006_alert_channels",
      "0007_alert_outbox",
      "0008_expiry_reminders",
      "0009_maintenance",
      "0010_sessions",
      "0011_calm_alerts",
      "0012_incident_model",
      "0013_site_tags",
      "0014_maintenance_end",
      "0015_monitor_kinds",
      "0016_check_found",
      "0017_subscribers",
      "0018_resolution_hold",
      "0019_groups",
      "0020_import_origins",
    ]);
    await again.close();
  });

  test("foreign keys are enforced", async () => {
    const now = new Date().toISOString();
    const orphan = store.db
      .insertInto("users")
      .values({ id: newId(), email: "orphan@example.com", workspace_id: "missing", role: "owner", created_at: now })
      .execute();
    await expect(orphan).rejects.toThrow();
  });

  test("unique violations are recognised in this dialect", async () => {
    const owner = await seedOwner(store);
    const error = await store.accounts
      .createUser({ email: owner.email, plan: "free" }, new Date().toISOString())
      .catch((e) => e);
    expect(isUniqueViolation(error)).toBe(true);
    expect(isUniqueViolation(new Error("other"))).toBe(false);
  });

  test("once() runs its work exactly once however many callers race", async () => {
    const results = await Promise.all(
      Array.from({ length: 5 }, (_, i) => store.once("race-test", new Date().toISOString(), async () => i)),
    );
    expect(results.filter((r) => r !== null)).toHaveLength(1);
  });

  test("bootstrapOwner does nothing when users exist", async () => {
    expect(await store.accounts.countUsers()).toBeGreaterThan(0);
    expect(await bootstrapOwner(store, "late@example.com", new Date())).toBeNull();
    expect(await store.accounts.findUserByEmail("late@example.com")).toBeUndefined();
  });

  test("deleting a workspace's site cascades to its items and statistics only", async () => {
    const owner = await seedOwner(store);
    const now = new Date().toISOString();
    const siteId = newId();
    const site = newSiteRecord(
      owner.workspaceId,
      SiteCreate.parse({ url: "https://example.com", name: "S", checkInterval: 60, timeout: 10 }),
      now,
      siteId,
    );
    await store.sites.insert(site);
    const page = await store.transaction((trx) =>
      store.pages.insert(trx, {
        workspace_id: owner.workspaceId,
        name: "P",
        slug: `cascade-${kind.name}`,
        description: "",
        visibility: "public",
        password_hash: null,
        theme: "{}",
        display: "{}",
        custom_domain: null,
        logo: null,
        favicon: null,
        created_at: now,
        updated_at: now,
      }),
    );
    await store.pages.insertItem({
      page_id: page.id,
      site_id: siteId,
      label: "S",
      visible: 1,
      position: 0,
      created_at: now,
    });
    expect(await store.sites.delete(owner.workspaceId, siteId)).toBe(true);
    expect(await store.pages.listItems([page.id])).toEqual([]);
    expect(await store.pages.get(owner.workspaceId, page.id)).toBeDefined();
  });

  if (kind.name === "postgres") {
    test("the store survives PostgreSQL ending its idle connections", async () => {
      await Promise.all([store.ping(), store.ping(), store.ping()]);
      const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
      await admin.connect();
      const ended = await admin.query(
        "select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()",
        [new URL(databaseUrl as string).pathname.slice(1)],
      );
      await admin.end();
      expect(ended.rowCount).toBeGreaterThan(0);
      await new Promise((resolve) => setTimeout(resolve, 200));
      await store.ping();
      expect(await store.accounts.countUsers()).toBeGreaterThan(0);
    });
  }

  if (kind.name === "sqlite") {
    test("SQLite runs in WAL mode with durable commits", async () => {
      const mode = await sql<{ journal_mode: string }>`pragma journal_mode`.execute(store.db);
      const sync = await sql<{ synchronous: number }>`pragma synchronous`.execute(store.db);
      const fk = await sql<{ foreign_keys: number }>`pragma foreign_keys`.execute(store.db);
      expect(mode.rows[0]?.journal_mode).toBe("wal");
      expect(sync.rows[0]?.synchronous).toBe(2);
      expect(fk.rows[0]?.foreign_keys).toBe(1);
    });

    test("a new data directory and its database files are the owner's alone, whatever the umask", async () => {
      const dir = join(mkdtempSync(join(tmpdir(), "porchlight-modes-")), "data");
      const umask = process.umask(0o022);
      try {
        const fresh = await openStore({ dataDir: dir });
        await bootstrapOwner(fresh, "modes@example.com", new Date());
        const mode = (name: string) => (statSync(join(dir, name)).mode & 0o777).toString(8);
        expect(mode("")).toBe("700");
        expect(readdirSync(dir).sort()).toEqual(["porchlight.db", "porchlight.db-shm", "porchlight.db-wal"]);
        for (const name of readdirSync(dir)) expect(mode(name), name).toBe("600");
        await fresh.close();
      } finally {
        process.umask(umask);
        rmSync(join(dir, ".."), { recursive: true, force: true });
      }
    });
  }
});
