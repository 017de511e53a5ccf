import { createServer as createHttpServer, type Server } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { createServer as createTlsServer } from "node:tls";
import { afterAll, afterEach, beforeAll, beforeEach, expect, onTestFinished, test } from "vitest";
import { Engine } from "../../server/engine/engine.ts";
import { claimDue, nextDue, type Outcome, recordOutcomes } from "../../server/engine/record.ts";
import { createLogger } from "../../server/log.ts";
import type { Store } from "../../server/store/store.ts";
import { client, describeStores, makeApp, seedOwner, TestClock } from "../helpers.ts";
import { makeCertificates, type TestCertificates } from "../support/certificates.ts";

/** How each scripted path answers; tests flip these between rounds. */
const behaviour = { flaky: "up" as "up" | "down", slowMs: 150, failRegion: "" };
const servers: Server[] = [];
let http = "";
let certs: TestCertificates;
const https: Record<string, string> = {};

async function listen(server: Server): Promise<number> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

beforeAll(async () => {
  const target = createHttpServer((req, res) => {
    const path = req.url ?? "/";
    const agent = req.headers["user-agent"] ?? "";
    if (behaviour.failRegion && agent.includes(`region ${behaviour.failRegion}`)) {
      res.statusCode = 503;
      return res.end("down here");
    }
    if (path === "/ok") return res.end("hello");
    if (path === "/flaky") {
      res.statusCode = behaviour.flaky === "up" ? 200 : 500;
      return res.end();
    }
    if (path === "/slow") {
      setTimeout(() => res.end("late"), behaviour.slowMs);
      return;
    }
    if (path === "/wp") {
      res.setHeader("link", '<https://shop.test/wp-json/>; rel="https://api.w.org/"');
      return res.end('<html><link rel="stylesheet" href="/wp-content/themes/twentytwenty/style.css"></html>');
    }
    res.statusCode = 404;
    res.end();
  });
  http = `http://127.0.0.1:${await listen(target)}`;
  certs = makeCertificates();
  for (const [name, pair] of [
    ["valid", certs.valid],
    ["expired", certs.expired],
  ] as const) {
    const port = await listen(createHttpsServer(pair, (_req, res) => res.end("secure")));
    https[name] = `https://localhost:${port}`;
  }
});

afterAll(() => {
  for (const s of servers) {
    s.closeAllConnections();
    s.close();
  }
});

const INTERVAL = 60_000;
const DAY = 86_400_000;

describeStores("engine", (kind) => {
  let store: Store;
  let cleanup: () => Promise<void>;
  let clock: TestClock;
  let api: ReturnType<typeof client>;
  let engines: Engine[];
  let recorded: ReturnType<typeof makeApp>["recorded"];

  const engine = (region = "local") => {
    const e = new Engine({
      store,
      region,
      clock,
      logger: createLogger("silent"),
      concurrency: 50,
      retentionHours: 48,
      policy: { allowPrivate: true, extraCa: [certs.ca], resolve: async () => ["127.0.0.1"] },
      domains: null,
      onRecorded: recorded,
    });
    engines.push(e);
    return e;
  };

  beforeEach(async () => {
    behaviour.flaky = "up";
    behaviour.failRegion = "";
    ({ store, cleanup } = await kind.open());
    // The certificates are made for the real clock (TLS reads it); the engine's clock starts where they were issued.
    clock = new TestClock(certs.issuedAt);
    const made = makeApp(store, { clock });
    recorded = made.recorded;
    const owner = await seedOwner(store);
    api = client(made.app, owner.token);
    engines = [];
  });
  afterEach(async () => {
    for (const e of engines) await e.stop();
    await cleanup();
  });

  const createSite = async (path: string, extra: Record<string, unknown> = {}) => {
    const url = /^[a-z]+:\/\//.test(path) ? path : `${http}${path}`;
    const res = await api.post("/public/v1/sites", {
      url,
      name: `Site ${path}`,
      checkInterval: 60,
      timeout: 5,
      ...extra,
    });
    expect(res.status).toBe(201);
    return res.json.data as { id: string };
  };
  const site = async (id: string) => (await api.get(`/public/v1/site/${id}`)).json.data;
  /** Moves the clock by `ms` and lets the engine do everything that is due. */
  const round = async (e: Engine, ms = INTERVAL) => {
    clock.advance(ms);
    await e.runOnce();
  };
  const makePage = async (siteId: string, label: string, visible = true) => {
    const slug = `p-${Math.random().toString(36).slice(2, 8)}`;
    const page = (await api.post("/public/v1/status-pages", { name: slug, slug })).json.data;
    await api.post(`/public/v1/status-pages/${page.id}/items`, { siteId, label, visible });
    // Published as they open, titled as before page templates (issue 27): what these tests read.
    const policy = { publish: "immediately", template: { title: "{service} is down" } };
    await store.db
      .updateTable("status_pages")
      .set({ incident_policy: JSON.stringify(policy) })
      .where("id", "=", page.id)
      .execute();
    return { id: page.id as number, slug };
  };
  const publicPage = async (slug: string) => (await api.get(`/public/v1/status-page/${slug}`)).json;

  test("a new site is checked within seconds; its detail and status-page item show the measured result", async () => {
    const e = engine();
    const { id } = await createSite("/ok");
    const page = await makePage(id, "Website");
    expect(await site(id)).toMatchObject({ state: "unknown", status: "unknown", lastCheckTime: null });
    // The first check is due somewhere in the next 3 s (FIRST_CHECK_SPREAD_MS), which may be now itself.
    const added = clock.now().getTime();
    await e.runOnce();
    expect([null, new Date(added).toISOString()]).toContain((await site(id)).lastCheckTime);
    await round(e, 3000);
    const checked = await site(id);
    expect(checked).toMatchObject({ state: "healthy", status: "up" });
    const firstAt = Date.parse(checked.lastCheckTime);
    expect(firstAt).toBeGreaterThanOrEqual(added);
    expect(firstAt).toBeLessThanOrEqual(clock.now().getTime());
    expect(checked.healthSummary).toMatch(/^Up: \d+ ms in local\.$/);
    const today = clock.now().toISOString().slice(0, 10);
    expect(checked.stat).toHaveLength(1);
    expect(checked.stat[0]).toMatchObject({ date: today, upRate: 1, downRate: 0, checks: 1, downtimeMinutes: 0 });
    expect(checked.stat[0].responseTimeMs).toBeGreaterThanOrEqual(0);
    expect(checked.uptimeSummary).toEqual({
      uptimePercentage: 100,
      downtimePercentage: 0,
      totalDowntimeMinutes: 0,
      daysCount: 1,
    });
    const item = (await publicPage(page.slug)).items[0];
    expect(item).toMatchObject({ status: "operational", uptime: 100, last_check: checked.lastCheckTime });
    expect(typeof item.response_time).toBe("number");

    // The interval is honoured: nothing half-way, one more check a full interval after.
    await round(e, INTERVAL / 2);
    expect((await site(id)).stat[0].checks).toBe(1);
    await round(e, INTERVAL / 2);
    expect((await site(id)).stat[0].checks).toBe(2);
  });

  test("one failure degrades, two confirm an outage with an incident on every page showing the site, recovery resolves it", async () => {
    const e = engine();
    const { id } = await createSite("/flaky");
    const shown = await makePage(id, "Checkout");
    const also = await makePage(id, "Payments");
    const hidden = await makePage(id, "Hidden", false);
    const manual = await api.post(`/public/v1/status-pages/${shown.id}/incidents`, {
      title: "Planned maintenance",
      message: "We are upgrading the database.",
    });
    expect(manual.status).toBe(201);
    await round(e, 3000);
    expect((await site(id)).state).toBe("healthy");

    behaviour.flaky = "down";
    await round(e);
    const blip = await site(id);
    expect(blip).toMatchObject({ state: "degraded", status: "up" });
    expect(blip.healthSummary).toBe("A check failed in local, not yet confirmed: HTTP 500.");
    expect((await publicPage(shown.slug)).incidents).toHaveLength(1);

    await round(e);
    const down = await site(id);
    expect(down).toMatchObject({ state: "unhealthy", status: "down", healthSummary: "Down in local: HTTP 500." });
    for (const [page, label] of [
      [shown, "Checkout"],
      [also, "Payments"],
    ] as const) {
      const view = await publicPage(page.slug);
      expect(view.items[0].status).toBe("major_outage");
      const auto = view.incidents.find((i: { title: string }) => i.title === `${label} is down`);
      expect(auto).toMatchObject({ status: "investigating", resolved_at: null });
      expect(auto.updates).toHaveLength(1);
      // In the page's template, with this page's label: no product name, no region name, no HTTP code.
      expect(auto.updates[0].message).toBe(`We are seeing problems reaching ${label} and are looking into it.`);
    }
    expect((await publicPage(hidden.slug)).incidents).toEqual([]);

    // Downtime accrues while unhealthy, by the minute, in the day's statistics.
    await round(e);
    const still = await site(id);
    expect(still.stat.at(-1).downtimeMinutes).toBe(1);
    expect(still.uptimeSummary.totalDowntimeMinutes).toBe(1);
    expect(still.stat.at(-1).upRate).toBeCloseTo(1 / 4);

    behaviour.flaky = "up";
    await round(e);
    expect((await site(id)).state).toBe("healthy");
    // One answer is not yet a return: the incident resolves at the second in a row, as two failures made the outage.
    // Until then its open incident names the service as in a major outage (issue 27: incident_items.status).
    const once = await publicPage(shown.slug);
    expect(once.items[0].status).toBe("major_outage");
    expect(once.incidents.find((i: { title: string }) => i.title === "Checkout is down").status).toBe("investigating");
    await round(e);
    const after = await publicPage(shown.slug);
    expect(after.items[0].status).toBe("operational");
    const resolved = after.incidents.find((i: { title: string }) => i.title === "Checkout is down");
    expect(resolved).toMatchObject({ status: "resolved", resolved_at: clock.now().toISOString(), duration_minutes: 3 });
    expect(resolved.updates.map((u: { status: string }) => u.status)).toEqual(["resolved", "investigating"]);
    expect(resolved.updates[0].message).toMatch(
      /^Checkout is available again\. It was unavailable for \d+ minutes?\.$/,
    );
    // The manual incident sits beside it, untouched.
    const planned = after.incidents.find((i: { title: string }) => i.title === "Planned maintenance");
    expect(planned).toMatchObject({ status: "investigating", resolved_at: null });
  });

  test("slow beyond the site's threshold is degraded, and chronically slow becomes a critical condition", async () => {
    const e = engine();
    const { id } = await createSite("/slow", { slowThresholdMs: 50 });
    await round(e, 3000);
    const slow = await site(id);
    expect(slow).toMatchObject({ state: "degraded", status: "up", slowThresholdMs: 50 });
    expect(slow.healthSummary).toMatch(/^Slow in local: \d+ ms, above the 50 ms threshold\.$/);
    expect(slow.conditions).toEqual([]);
    for (let i = 0; i < 10; i++) await round(e);
    // Ten minutes of slow checks are not 24 hours of them (issue 27): the condition waits for the whole window.
    const early = (await site(id)).conditions.find((c: { key: string }) => c.key === "chronic_performance");
    expect(early).toBeUndefined();
    // Checked since before the window began (a raw result a day and an hour old): now it is judged.
    await store.db
      .insertInto("check_results")
      .values({
        site_id: id,
        region: "local",
        at: new Date(clock.now().getTime() - 25 * 3_600_000).toISOString(),
        ok: 1,
        slow: 1,
        status_code: 200,
        response_ms: 100,
        error: null,
        timings: "{}",
      })
      .execute();
    for (let i = 0; i < 6; i++) await round(e);
    const chronic = (await site(id)).conditions.find((c: { key: string }) => c.key === "chronic_performance");
    expect(chronic).toMatchObject({ level: "critical", scope: "performance" });
    expect(chronic.summary).toMatch(/^100% of the last 24 hours' 1[67] checks were slow or failed\.$/);
    for (let i = 0; i < 6; i++) await round(e);
    const later = (await site(id)).conditions.find((c: { key: string }) => c.key === "chronic_performance");
    expect(later.since).toBe(chronic.since);
    expect(later.evaluatedAt > chronic.evaluatedAt).toBe(true);
  });

  test("without fresh results a site becomes unknown; paused sites are not checked and resume within seconds", async () => {
    const e = engine();
    const { id } = await createSite("/ok");
    await round(e, 3000);
    expect((await site(id)).state).toBe("healthy");
    // No engine ran for two intervals and the timeout: the last result no longer speaks for the site.
    clock.advance(2 * INTERVAL + 5000 + 1000);
    await e.sweep();
    expect(await site(id)).toMatchObject({
      state: "unknown",
      status: "unknown",
      healthSummary: "No recent check result.",
    });
    await e.runOnce();
    expect((await site(id)).state).toBe("healthy");

    expect((await api.patch(`/public/v1/site/${id}`, { pause: true })).status).toBe(200);
    const checks = (await site(id)).stat[0].checks;
    await round(e, 3000);
    expect(await site(id)).toMatchObject({ state: "unknown", status: "paused", healthSummary: "Paused: not checked." });
    await round(e);
    await round(e);
    expect((await site(id)).stat[0].checks).toBe(checks);

    await api.patch(`/public/v1/site/${id}`, { pause: false });
    await round(e, 3000);
    expect(await site(id)).toMatchObject({ state: "healthy", status: "up" });
    expect((await site(id)).stat[0].checks).toBe(checks + 1);
  });

  test("HTTPS: the certificate's issuer and expiry are reported; an expired one is an error with its reason", async () => {
    const e = engine();
    const valid = await createSite(https.valid as string);
    const expired = await createSite(https.expired as string);
    await round(e, 3000);
    const ok = await site(valid.id);
    expect(ok).toMatchObject({ state: "healthy", hasCertificateError: false, protocol: "https" });
    expect(ok.sslInfo.issuer).toBe("Porchlight Test CA");
    expect(ok.sslInfo.daysRemaining).toBe(10);
    // Ten days left is inside the 21-day warning threshold.
    expect(ok.conditions.find((c: { key: string }) => c.key === "ssl_expiry")).toMatchObject({
      level: "warning",
      scope: "certificate",
    });
    const bad = await site(expired.id);
    expect(bad.hasCertificateError).toBe(true);
    expect(bad.healthSummary).toContain("CERT_HAS_EXPIRED");
    expect(bad.sslInfo.expiresAt).toBe("2020-02-01T00:00:00.000Z");
    expect(bad.conditions.find((c: { key: string }) => c.key === "ssl_expiry")).toMatchObject({ level: "critical" });
  });

  test("tls://: a mail port's certificate 5 days from expiry raises ssl_expiry and its reminders, as a website's does", async () => {
    const server = createTlsServer({ ...certs.valid }, (socket) => socket.end());
    server.on("tlsClientError", () => {});
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as AddressInfo).port;
    onTestFinished(() => void server.close());
    const hook = await api.post("/public/v1/alert-channels", {
      name: "Hook",
      type: "webhook",
      config: { url: "https://hooks.example.com/porchlight" },
    });
    expect(hook.status, JSON.stringify(hook.json)).toBe(201);
    const { id } = await createSite(`tls://localhost:${port}`);
    const reminders = async () =>
      (await store.db.selectFrom("alert_outbox").select(["type", "event"]).where("site_id", "=", id).execute())
        .filter((row) => row.type === "certificate.expiring")
        .map((row) => JSON.parse(row.event).certificate?.daysLeft ?? JSON.parse(row.event));
    const e = engine();
    // The certificate ends 10.5 days after issuedAt (the clock's start); TLS verifies it by the real clock.
    await round(e, 5.5 * DAY);
    const read = await site(id);
    expect(read).toMatchObject({ protocol: "tls", state: "healthy", hasCertificateError: false });
    expect(read.sslInfo).toMatchObject({ issuer: "Porchlight Test CA", daysRemaining: 5 });
    expect(read.conditions.find((c: { key: string }) => c.key === "ssl_expiry")).toMatchObject({
      level: "critical",
      scope: "certificate",
    });
    expect(await reminders()).toHaveLength(1);
    // Two days on, 3 days left: a reminder day (THRESHOLDS.reminderDays), so a second reminder.
    await round(e, 2 * DAY);
    expect((await site(id)).sslInfo.daysRemaining).toBe(3);
    expect(await reminders()).toHaveLength(2);
  });

  test("WordPress is detected from headers and HTML; the owner's manualOverride is respected", async () => {
    const e = engine();
    const wp = await createSite("/wp");
    const plain = await createSite("/ok");
    expect((await site(wp.id)).wordpress).toBeUndefined();
    await round(e, 3000);
    expect((await site(wp.id)).wordpress).toEqual({ value: true, manualOverride: false });
    expect((await site(plain.id)).wordpress).toEqual({ value: false, manualOverride: false });
    const set = await api.patch(`/public/v1/site/${wp.id}`, { wordpress: { value: false, manualOverride: true } });
    expect(set.json.data.wordpress).toEqual({ value: false, manualOverride: true });
    await round(e);
    expect((await site(wp.id)).wordpress).toEqual({ value: false, manualOverride: true });
    await api.patch(`/public/v1/site/${wp.id}`, { wordpress: { value: false, manualOverride: false } });
    await round(e);
    expect((await site(wp.id)).wordpress).toEqual({ value: true, manualOverride: false });
  });

  test("regions: the verdict combines each region's latest results by majority", async () => {
    const a = engine("a");
    const b = engine("b");
    const { id } = await createSite("/ok", { regions: ["a", "b"] });
    const both = async (ms = INTERVAL) => {
      clock.advance(ms);
      await a.runOnce();
      await b.runOnce();
    };
    await both(3000);
    expect((await site(id)).healthSummary).toMatch(/^Up: \d+ ms in a, b\.$/);
    behaviour.failRegion = "b";
    await both();
    expect(await site(id)).toMatchObject({
      state: "degraded",
      healthSummary: "A check failed in b, not yet confirmed: HTTP 503.",
    });
    await both();
    expect(await site(id)).toMatchObject({
      state: "degraded",
      status: "up",
      healthSummary: "Down in b (1 of 2 regions): HTTP 503.",
    });
    const rows = await store.db.selectFrom("check_results").select(["region"]).where("site_id", "=", id).execute();
    expect(new Set(rows.map((r) => r.region))).toEqual(new Set(["a", "b"]));
    behaviour.flaky = "down";
    await api.patch(`/public/v1/site/${id}`, { url: `${http}/flaky` });
    await both(3000);
    await both();
    expect(await site(id)).toMatchObject({ state: "unhealthy", status: "down" });
    expect((await site(id)).healthSummary).toMatch(/^Down in a, b: HTTP (500|503)\.$/);
  });

  test("a lease keeps a check from running twice; a dead engine's lease expires and the check runs again", async () => {
    const e = engine();
    const { id } = await createSite("/ok");
    clock.advance(3000);
    const claimed = await claimDue(store, {
      region: "local",
      owner: "dead-engine",
      now: clock.now().getTime(),
      limit: 10,
    });
    expect(claimed.map((c) => c.siteId)).toEqual([id]);
    expect(await claimDue(store, { region: "local", owner: "other", now: clock.now().getTime(), limit: 10 })).toEqual(
      [],
    );
    await e.runOnce();
    expect((await site(id)).lastCheckTime).toBeNull();
    // The lease outlives the site's timeout (5 s) by the margin (60 s).
    await round(e, 5000 + 60_000 + 1);
    expect((await site(id)).lastCheckTime).toBe(clock.now().toISOString());
  });

  test("an incident left open while the site was out of sight resolves when it is back; deleting a site resolves its incidents", async () => {
    const e = engine();
    const { id } = await createSite("/flaky");
    const other = await createSite("/flaky");
    const page = await makePage(id, "Shop");
    await api.post(`/public/v1/status-pages/${page.id}/items`, { siteId: other.id, label: "Blog" });
    await round(e, 3000);
    behaviour.flaky = "down";
    await round(e);
    await round(e);
    expect((await site(id)).state).toBe("unhealthy");
    await api.patch(`/public/v1/site/${id}`, { pause: true });
    await round(e, 3000);
    const paused = (await publicPage(page.slug)).incidents.find((i: { title: string }) => i.title === "Shop is down");
    expect(paused.status).toBe("investigating");
    expect(paused.updates[0].message).toBe("Shop is not being checked at the moment, so its state is unknown.");
    behaviour.flaky = "up";
    await api.patch(`/public/v1/site/${id}`, { pause: false });
    await round(e, 3000);
    await round(e);
    const back = (await publicPage(page.slug)).incidents.find((i: { title: string }) => i.title === "Shop is down");
    expect(back.status).toBe("resolved");

    behaviour.flaky = "down";
    await round(e);
    await round(e);
    const blog = (await publicPage(page.slug)).incidents.find((i: { title: string }) => i.title === "Blog is down");
    expect(blog.status).toBe("investigating");
    expect((await api.delete(`/public/v1/site/${other.id}`)).status).toBe(200);
    const gone = (await publicPage(page.slug)).incidents.find((i: { title: string }) => i.title === "Blog is down");
    expect(gone).toMatchObject({ status: "resolved", resolved_at: clock.now().toISOString() });
    expect(gone.updates[0].message).toBe("The site was removed from monitoring.");
  });

  test("an edit while a check runs keeps the new early schedule; a batch written twice counts once", async () => {
    const { id } = await createSite("/ok", { checkInterval: 3600 });
    clock.advance(3000);
    const [check] = await claimDue(store, { region: "local", owner: "e1", now: clock.now().getTime(), limit: 1 });
    expect(check?.siteId).toBe(id);
    await api.patch(`/public/v1/site/${id}`, { url: `${http}/flaky` });
    const outcome: Outcome = {
      check: check as NonNullable<typeof check>,
      at: clock.now().getTime(),
      ok: true,
      slow: false,
      statusCode: 200,
      responseMs: 12,
      error: null,
      timings: { totalMs: 12 },
      certificate: null,
      wordpress: false,
    };
    const first = await recordOutcomes(store, [outcome], clock.now().getTime());
    expect(first.sites).toEqual([id]);
    recorded(first);
    const row = await store.db
      .selectFrom("site_checks")
      .selectAll()
      .where("site_id", "=", id)
      .executeTakeFirstOrThrow();
    expect(Date.parse(row.next_check_at) - clock.now().getTime()).toBeLessThan(3000);
    // The same batch again (a retry whose first commit did land): the lease is gone, nothing is counted twice.
    const again = await recordOutcomes(store, [outcome], clock.now().getTime());
    expect(again).toEqual({ sites: [], pagesChanged: false, rows: 0 });
    expect(await countResults(store)).toBe(1);
    expect((await site(id)).stat[0].checks).toBe(1);
  });

  test("a late check keeps its phase; a new address forgets the old certificate", async () => {
    const check = { dueAt: 0, intervalMs: 60_000 } as Parameters<typeof nextDue>[0];
    expect(nextDue(check, 30_000)).toBe(60_000);
    expect(nextDue(check, 150_000)).toBe(180_000);
    expect(nextDue(check, 180_000)).toBe(240_000);
    const e = engine();
    const { id } = await createSite(https.valid as string);
    await round(e, 3000);
    expect((await site(id)).sslInfo).not.toBeNull();
    const moved = await api.patch(`/public/v1/site/${id}`, { url: `${http}/ok` });
    expect(moved.json.data).toMatchObject({ sslInfo: null, hasCertificateError: false });
    await round(e, 3000);
    const after = await site(id);
    expect(after.sslInfo).toBeNull();
    expect(after.conditions.find((c: { key: string }) => c.key === "ssl_expiry")).toBeUndefined();
  });

  test("start times are spread, results are written in batches, and raw results are pruned after the retention", async () => {
    const e = engine();
    const ids: string[] = [];
    for (let i = 0; i < 60; i++) ids.push((await createSite("/ok")).id);
    const due = await store.db.selectFrom("site_checks").select("next_check_at").execute();
    const times = due.map((d) => Date.parse(d.next_check_at) - clock.now().getTime());
    expect(new Set(times).size).toBeGreaterThan(40);
    expect(Math.min(...times)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...times)).toBeLessThan(3000);
    await round(e, 3000);
    expect(e.stats.checks).toBe(60);
    // 60 checks, 50 at once: a transaction per batch of results (claims are separate), not one per check.
    expect(e.stats.transactions).toBe(2);
    expect(await countResults(store)).toBe(60);
    await round(e, 47 * 3_600_000);
    expect(await countResults(store)).toBe(120);
    clock.advance(2 * 3_600_000);
    expect(await e.prune()).toBe(60);
    expect(await countResults(store)).toBe(60);
  });
});

async function countResults(store: Store): Promise<number> {
  const row = await store.db
    .selectFrom("check_results")
    .select((eb) => eb.fn.countAll().as("n"))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
