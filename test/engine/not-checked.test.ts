import { afterAll, beforeAll, expect, test } from "vitest";
import { Engine } from "../../server/engine/engine.ts";
import { createLogger } from "../../server/log.ts";
import type { Store } from "../../server/store/store.ts";
import { client, describeStores, makeApp, seedMember, seedOwner, TestClock, useStore } from "../helpers.ts";
import { listen } from "../support/listen.ts";

/**
 * Issue 27: a check the server refuses by its own address policy (a loopback target without
 * PORCHLIGHT_ALLOW_PRIVATE_TARGETS) is "not checked": unknown with the reason naming the setting, never in the
 * statistics, never alerted, no incident. And the add/edit form can ask beforehand (POST /public/v1/sites/target-check).
 */
let target: Awaited<ReturnType<typeof listen>>;
beforeAll(async () => {
  target = await listen((_req, res) => res.end("ok"));
});
afterAll(async () => {
  target?.server.closeAllConnections();
  await new Promise((resolve) => target?.server.close(resolve));
});

describeStores("checks refused by the server's address policy", (kind) => {
  let store: Store;
  let clock: TestClock;
  let api: ReturnType<typeof client>;
  let engine: Engine;
  let app: ReturnType<typeof makeApp>["app"];
  let owner: Awaited<ReturnType<typeof seedOwner>>;

  useStore(kind, { each: true }, async (opened) => {
    ({ store } = opened);
    clock = new TestClock();
    const made = makeApp(store, { clock });
    app = made.app;
    owner = await seedOwner(store, "stack");
    api = client(made.app, owner.token);
    engine = new Engine({
      store,
      region: "local",
      clock,
      logger: createLogger("silent"),
      concurrency: 10,
      retentionHours: 48,
      // As served without PORCHLIGHT_ALLOW_PRIVATE_TARGETS.
      policy: { allowPrivate: false },
      domains: null,
      onRecorded: made.recorded,
    });
    return () => engine.stop();
  });

  test("a loopback site is not checked: unknown with the reason and the setting; no statistics, alert or incident", async () => {
    const channel = await store.db
      .insertInto("alert_channels")
      .values({
        id: "ch_000000000000000000000001",
        workspace_id: (await store.db.selectFrom("workspaces").select("id").executeTakeFirstOrThrow()).id,
        name: "Mail",
        type: "email",
        config: "{}",
        target: "example.com",
        enabled: 1,
        created_at: clock.now().toISOString(),
        updated_at: clock.now().toISOString(),
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    expect(channel.id).toBeTruthy();
    const created = await api.post("/public/v1/sites", {
      url: `${target.origin}/`,
      name: "Local",
      checkInterval: 60,
      timeout: 5,
    });
    expect(created.status).toBe(201);
    const site = created.json.data;
    const page = (await api.post("/public/v1/status-pages", { name: "Local", slug: "local-page" })).json.data;
    await store.db
      .updateTable("status_pages")
      .set({ incident_policy: JSON.stringify({ publish: "immediately" }) })
      .where("id", "=", page.id)
      .execute();
    await api.post(`/public/v1/status-pages/${page.id}/items`, { siteId: site.id });
    clock.advance(3000);
    for (let i = 0; i < 6; i++) {
      await engine.runOnce();
      clock.advance(60_000);
    }
    const detail = (await api.get(`/public/v1/site/${site.id}`)).json.data;
    expect(detail.state).toBe("unknown");
    expect(detail.healthSummary).toMatch(
      /^Not checked: 127\.0\.0\.1 is 127\.0\.0\.1 \(loopback, not a public address\)\./,
    );
    expect(detail.healthSummary).toContain("PORCHLIGHT_ALLOW_PRIVATE_TARGETS=true");
    // The refusals were recorded as raw results (the owner sees them), but count nowhere.
    const raw = await store.db.selectFrom("check_results").select("error").where("site_id", "=", site.id).execute();
    expect(raw.length).toBeGreaterThanOrEqual(5);
    const stats = await store.db.selectFrom("daily_stats").selectAll().where("site_id", "=", site.id).execute();
    expect(stats.every((s) => s.checks_total === 0 && s.downtime_ms === 0)).toBe(true);
    expect(await store.db.selectFrom("alert_outbox").selectAll().execute()).toEqual([]);
    expect(await store.db.selectFrom("incidents").selectAll().execute()).toEqual([]);
    expect(
      JSON.parse((await store.db.selectFrom("sites").select("conditions").executeTakeFirstOrThrow()).conditions),
    ).toEqual([]);
  });

  test("the chronic window counts neither refused nor not-checked results as slow or failed", async () => {
    const site = (await api.post("/public/v1/sites", { url: "https://example.com/", name: "Window" })).json.data;
    const at = (minutes: number) => new Date(clock.now().getTime() - minutes * 60_000).toISOString();
    const result = (minutes: number, ok: number, error: string | null) => ({
      site_id: site.id,
      region: "local",
      at: at(minutes),
      ok,
      slow: 0,
      status_code: null,
      response_ms: null,
      error,
      timings: "{}",
    });
    await store.db
      .insertInto("check_results")
      .values([
        result(5, 1, null),
        result(4, 0, "HTTP 500"),
        result(3, 0, "not checked: ping is not available on this machine (EPERM)"),
        result(2, 0, "not checked: waiting for the job's first call"),
        result(1, 0, "refused: 127.0.0.1 is loopback; set PORCHLIGHT_ALLOW_PRIVATE_TARGETS=true"),
      ])
      .execute();
    const data = await store.checks.judgingData(store.db, [site.id], { windowsOf: [site.id], windowFrom: at(60) });
    expect(data.windows.get(site.id)).toMatchObject({ checks: 2, slowOrFailed: 1 });
  });

  test("target-check: a loopback or private target is refused, naming the setting; a public one is allowed; bad input is a 400", async () => {
    const ask = (body: unknown) => api.post("/public/v1/sites/target-check", body);
    const loopback = await ask({ url: "http://127.0.0.1:8080/health" });
    expect(loopback.status).toBe(200);
    expect(loopback.json.data).toEqual({
      allowed: false,
      reason:
        "127.0.0.1 is not a public address (loopback): this server checks private, loopback and link-local targets only with PORCHLIGHT_ALLOW_PRIVATE_TARGETS=true",
      setting: "PORCHLIGHT_ALLOW_PRIVATE_TARGETS",
    });
    expect((await ask({ url: "https://10.1.2.3/" })).json.data).toMatchObject({ allowed: false });
    expect((await ask({ url: "https://[::1]/" })).json.data).toMatchObject({ allowed: false });
    // A name: the answer gives its range, never the address it resolved to.
    const named = await ask({ url: "http://localhost:3000/" });
    expect(named.json.data).toMatchObject({ allowed: false, setting: "PORCHLIGHT_ALLOW_PRIVATE_TARGETS" });
    expect(named.json.data.reason).toMatch(/^localhost is not a public address \(loopback\)/);
    expect(named.text).not.toContain("127.0.0.1");
    // For the forms that add and edit sites: a viewer, who can do neither, may not ask.
    const viewer = client(app, (await seedMember(store, owner.email, "viewer")).token);
    expect((await viewer.post("/public/v1/sites/target-check", { url: "http://10.0.0.1/" })).status).toBe(403);
    expect((await ask({ url: "https://93.184.216.34/" })).json.data).toEqual({
      allowed: true,
      reason: null,
      setting: null,
    });
    for (const bad of [{}, { url: "ftp://example.com/" }, { url: "not a url" }, { url: "https://a.test/", x: 1 }]) {
      const res = await ask(bad);
      expect(res.status).toBe(400);
      expect(res.json.error ?? res.json).toBeTruthy();
    }
  });

  test("target-check with PORCHLIGHT_ALLOW_PRIVATE_TARGETS=true allows every target", async () => {
    const made = makeApp(store, { clock, env: { PORCHLIGHT_ALLOW_PRIVATE_TARGETS: "true" } });
    const open = client(made.app, (await seedOwner(store, "stack")).token);
    const res = await open.post("/public/v1/sites/target-check", { url: "http://127.0.0.1:8080/" });
    expect(res.json.data).toEqual({ allowed: true, reason: null, setting: null });
  });
});
