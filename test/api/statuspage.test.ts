import { afterAll, beforeAll, expect, test } from "vitest";
import type { z } from "zod";
import type { Store } from "../../server/store/store.ts";
import { client, describeStores, seedOwner, TestClock, useStore } from "../helpers.ts";
import { componentRules, DOCUMENTS, type Doc } from "../support/statuspage.ts";
import { appWithEngine, localTargets } from "./with-engine.ts";

/**
 * Issue 31: Statuspage's public v2 API. A page with three services (one failing its real checks, one under a
 * maintenance window now, one fine), an owner's incident under way, one resolved, and maintenance to come; every
 * document is read as a Statuspage consumer would and checked against the shape Statuspage documents (written here
 * from its documentation, not from Porchlight's own schema), and against each other.
 */

let targets: Awaited<ReturnType<typeof localTargets>>;
beforeAll(async () => {
  targets = await localTargets();
});
afterAll(() => targets?.close());

describeStores("the Statuspage v2 API", (kind) => {
  let store: Store;
  let clock: TestClock;
  let made: ReturnType<typeof appWithEngine>;
  let api: ReturnType<typeof client>;

  useStore(kind, { each: true }, async (opened) => {
    ({ store } = opened);
    clock = new TestClock();
    made = appWithEngine(store, clock, { PORCHLIGHT_ALLOW_PRIVATE_TARGETS: "true" });
    api = client(made.app, (await seedOwner(store, "stack")).token);
    return () => made.engine.stop();
  });

  const read = (path: string, headers: Record<string, string> = {}, method = "GET") =>
    made.app.request(path, { method, headers });
  const documentOf = async <D extends Doc>(doc: D, slug = "acme") => {
    const res = await read(`/${slug}/api/v2/${doc}.json`);
    expect(res.status, doc).toBe(200);
    return DOCUMENTS[doc].parse(await res.json()) as z.infer<(typeof DOCUMENTS)[D]>;
  };

  /** Website fine, Checkout failing its checks, Search under maintenance now; an open and a resolved incident. */
  const setUp = async () => {
    const site = async (name: string, url: string) =>
      (await api.post("/public/v1/sites", { url, name, checkInterval: 30, timeout: 5 })).json.data;
    const website = await site("Website", targets.ok);
    const checkout = await site("Checkout", targets.fail);
    const search = await site("Search", targets.ok);
    const page = (await api.post("/public/v1/status-pages", { name: "Acme Status", slug: "acme" })).json.data;
    await store.db
      .updateTable("status_pages")
      .set({ incident_policy: JSON.stringify({ publish: "immediately" }) })
      .where("id", "=", page.id)
      .execute();
    const items: Record<string, number> = {};
    for (const [label, s] of [
      ["Website", website],
      ["Checkout", checkout],
      ["Search", search],
    ] as const) {
      const made = await api.post(`/public/v1/status-pages/${page.id}/items`, { siteId: s.id, label });
      expect(made.status).toBe(201);
      items[label] = made.json.data.id;
    }
    const now = clock.now().getTime();
    const window = (title: string, siteId: string, startMs: number) =>
      api.post("/public/v1/maintenance-windows", {
        title,
        description: `${title}, as planned.`,
        sites: [siteId],
        start: new Date(startMs).toISOString(),
        durationMinutes: 60,
      });
    expect((await window("Index rebuild", search.id, now - 10 * 60_000)).status).toBe(201);
    expect((await window("Database upgrade", website.id, now + 2 * 86_400_000)).status).toBe(201);
    const older = await api.post(`/public/v1/status-pages/${page.id}/incidents`, {
      title: "Slow logins",
      message: "Logins were slow; fixed.",
      status: "resolved",
      impact: "minor",
      items: [items.Website],
      startedAt: new Date(now - 3 * 86_400_000).toISOString(),
      resolvedAt: new Date(now - 3 * 86_400_000 + 3_600_000).toISOString(),
    });
    expect(older.status, JSON.stringify(older.json)).toBe(201);
    clock.advance(60_000);
    const open = await api.post(`/public/v1/status-pages/${page.id}/incidents`, {
      title: "Payments delayed",
      message: "Some payments take minutes.",
      impact: "major",
      items: [{ id: items.Website, status: "degraded" }],
    });
    expect(open.status).toBe(201);
    clock.advance(60_000);
    const update = await api.post(`/public/v1/status-pages/${page.id}/incidents/${open.json.data.id}/updates`, {
      status: "monitoring",
      message: "A fix is out; watching.",
    });
    expect(update.status).toBe(201);
    // The engine checks twice: Checkout's failures confirm its outage (and the engine's own incident).
    for (let i = 0; i < 3; i++) {
      clock.advance(30_000);
      await made.engine.runOnce();
    }
    return { page, items, open: open.json.data, older: older.json.data };
  };

  test("all eight documents have Statuspage's shape, one page object, and agree with each other", async () => {
    const { page, items } = await setUp();
    const docs = {} as { [D in Doc]: z.infer<(typeof DOCUMENTS)[D]> };
    for (const doc of Object.keys(DOCUMENTS) as Doc[]) (docs as Record<Doc, unknown>)[doc] = await documentOf(doc);

    // The page object is the same in all eight.
    const pages = Object.values(docs).map((d) => JSON.stringify(d.page));
    expect(new Set(pages).size).toBe(1);
    // Its id as Statuspage writes ids (twelve of [a-z0-9]), not the server's serial number.
    expect(docs.summary.page.id).toMatch(/^[a-z0-9]{12}$/);
    expect(docs.summary.page.id).not.toBe(String(page.id));
    expect(docs.summary.page).toEqual({
      id: docs.summary.page.id,
      name: "Acme Status",
      url: "http://status.test/acme",
      time_zone: "Etc/UTC",
      updated_at: expect.any(String),
    });

    // Components: the items, in the page's order, positions from 1, none a group; statuses in Statuspage's words.
    const components = docs.components.components;
    expect(components.map((c) => [c.name, c.position, c.group, c.group_id])).toEqual([
      ["Website", 1, false, null],
      ["Checkout", 2, false, null],
      ["Search", 3, false, null],
    ]);
    expect(Object.fromEntries(components.map((c) => [c.name, c.status]))).toEqual({
      Website: "degraded_performance",
      Checkout: "major_outage",
      Search: "under_maintenance",
    });
    expect(components.map((c) => c.id)).toEqual([items.Website, items.Checkout, items.Search].map(String));
    expect(components.every((c) => !("components" in c))).toBe(true);
    expect(docs.summary.components).toEqual(components);
    expect(componentRules(components)).toEqual([]);
    expect(components.every((c) => c.page_id === docs.summary.page.id)).toBe(true);
    // The day each was put on the page (today, on the test's clock), not a day that moves with the history's window.
    expect(components.map((c) => c.start_date)).toEqual(Array(3).fill(clock.now().toISOString().slice(0, 10)));

    // Status: one of three in major outage is a Partial System Outage.
    expect(docs.status.status).toEqual({ indicator: "major", description: "Partial System Outage" });
    expect(docs.summary.status).toEqual(docs.status.status);

    // Incidents: newest first; unresolved ones are the summary's; the owner's under way with its monitoring time.
    const names = docs.incidents.incidents.map((i) => [i.name, i.status]);
    expect(names).toEqual([
      ["Checkout is unavailable", "investigating"],
      ["Payments delayed", "monitoring"],
      ["Slow logins", "resolved"],
    ]);
    expect(docs.summary.incidents).toEqual(docs["incidents/unresolved"].incidents);
    expect(docs["incidents/unresolved"].incidents.map((i) => i.name)).toEqual([
      "Checkout is unavailable",
      "Payments delayed",
    ]);
    const payments = docs.incidents.incidents[1];
    expect(payments?.impact).toBe("major");
    expect(payments?.incident_updates.map((u) => [u.status, u.body])).toEqual([
      ["monitoring", "A fix is out; watching."],
      ["investigating", "Some payments take minutes."],
    ]);
    expect(payments?.monitoring_at).toBe(payments?.incident_updates[0]?.created_at);
    expect(payments?.updated_at).toBe(payments?.incident_updates[0]?.created_at);
    expect(payments?.incident_updates[1]?.affected_components).toEqual([
      { code: String(items.Website), name: "Website", old_status: "operational", new_status: "degraded_performance" },
    ]);
    expect(payments?.components.map((c) => c.name)).toEqual(["Website"]);
    expect(payments?.shortlink).toBe(`http://status.test/acme#incident-${payments?.id}`);
    // The page changed last with the newest update of an incident (the engine's outage, after the owner's update).
    const newest = docs.incidents.incidents.map((i) => Date.parse(i.updated_at)).sort((a, b) => b - a)[0];
    expect(Date.parse(docs.summary.page.updated_at)).toBeGreaterThanOrEqual(newest ?? 0);
    const slow = docs.incidents.incidents[2];
    expect(slow?.resolved_at).not.toBeNull();
    expect(slow?.incident_updates[0]?.affected_components?.[0]?.new_status).toBe("operational");

    // Maintenance: the one under way is active, the one in two days upcoming; the summary lists both.
    const maintenance = docs["scheduled-maintenances"].scheduled_maintenances;
    expect(maintenance.map((m) => [m.name, m.status])).toEqual([
      ["Index rebuild", "in_progress"],
      ["Database upgrade", "scheduled"],
    ]);
    expect(docs["scheduled-maintenances/active"].scheduled_maintenances.map((m) => m.name)).toEqual(["Index rebuild"]);
    expect(docs["scheduled-maintenances/upcoming"].scheduled_maintenances.map((m) => m.name)).toEqual([
      "Database upgrade",
    ]);
    expect(docs.summary.scheduled_maintenances).toEqual([
      ...docs["scheduled-maintenances/upcoming"].scheduled_maintenances,
      ...docs["scheduled-maintenances/active"].scheduled_maintenances,
    ]);
    const rebuild = maintenance[0];
    expect(Date.parse(rebuild?.scheduled_until ?? "") - Date.parse(rebuild?.scheduled_for ?? "")).toBe(3_600_000);
    expect(rebuild?.components.map((c) => c.name)).toEqual(["Search"]);
    expect(rebuild?.incident_updates.map((u) => u.status)).toEqual(["in_progress", "scheduled"]);
    // One maintenance per occurrence (a recurring window's next is another), begun as Statuspage's are: when made.
    expect(rebuild?.id).toMatch(/^mw_[0-9a-f]+-\d+$/);
    expect(rebuild?.id).not.toBe(maintenance[1]?.id);
    expect(Date.parse(rebuild?.started_at ?? "")).toBeLessThanOrEqual(
      Date.parse(rebuild?.scheduled_for ?? "") + 600_000,
    );
    expect(maintenance[1]?.started_at).toBe(maintenance[1]?.created_at);
    expect(Date.parse(maintenance[1]?.started_at ?? "")).toBeLessThan(Date.parse(maintenance[1]?.scheduled_for ?? ""));
  });

  test("on a page with groups: groups and members by Statuspage's rules, a group's status its worst member's", async () => {
    const { page, items } = await setUp();
    // Core holds Checkout (failing) and Search (in maintenance), before Website; Quiet holds Website alone.
    const group = async (name: string, position: number, description = "") => {
      const made = await api.post(`/public/v1/status-pages/${page.id}/groups`, { name, position, description });
      expect(made.status, JSON.stringify(made.json)).toBe(201);
      return made.json.data.id as number;
    };
    const core = await group("Core", 0, "What customers pay through");
    const quiet = await group("Quiet", 5);
    for (const [label, groupId] of [
      ["Search", core],
      ["Checkout", core],
      ["Website", quiet],
    ] as const) {
      expect((await api.patch(`/public/v1/status-pages/${page.id}/items/${items[label]}`, { groupId })).status).toBe(
        200,
      );
    }
    const { components } = await documentOf("components");
    expect(componentRules(components)).toEqual([]);
    expect(components.map((c) => [c.name, c.position, c.group, c.group_id, c.status])).toEqual([
      ["Core", 1, true, null, "major_outage"],
      ["Search", 1, false, `group-${core}`, "under_maintenance"],
      ["Checkout", 2, false, `group-${core}`, "major_outage"],
      ["Quiet", 2, true, null, "degraded_performance"],
      ["Website", 1, false, `group-${quiet}`, "degraded_performance"],
    ]);
    const coreGroup = components[0];
    expect(coreGroup?.id).toBe(`group-${core}`);
    expect(coreGroup?.components).toEqual([items.Search, items.Checkout].map(String));
    expect(coreGroup?.description).toBe("What customers pay through");
    expect(components[3]?.description).toBeNull();
    // Incidents and maintenance name the members, never a group.
    const summary = await documentOf("summary");
    expect(summary.components).toEqual(components);
    const named = [...summary.incidents, ...summary.scheduled_maintenances].flatMap((i) => i.components);
    expect(named.length).toBeGreaterThan(0);
    expect(named.every((c) => !c.group)).toBe(true);
    // The page's status counts the services, not the groups that repeat them: still one of three down.
    expect(summary.status).toEqual({ indicator: "major", description: "Partial System Outage" });
  });

  test("HEAD, ETag and 304, compression and CORS on a public page; 401 and 404 without CORS otherwise", async () => {
    await setUp();
    const head = await read("/acme/api/v2/components.json", {}, "HEAD");
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
    const got = await read("/acme/api/v2/summary.json", { "accept-encoding": "gzip" });
    expect(got.status).toBe(200);
    expect(got.headers.get("access-control-allow-origin")).toBe("*");
    expect(got.headers.get("content-type")).toMatch(/^application\/json/);
    expect(got.headers.get("content-encoding")).toBe("gzip");
    const etag = got.headers.get("etag") as string;
    expect(etag).toMatch(/^W\/"/);
    expect((await read("/acme/api/v2/summary.json", { "if-none-match": etag })).status).toBe(304);
    // Another change on the page is another document.
    clock.advance(30_000);
    const page = (await api.get("/public/v1/status-pages")).json.data.statusPages[0];
    await api.patch(`/public/v1/status-pages/${page.id}`, { name: "Acme Status Center" });
    const after = await read("/acme/api/v2/summary.json", { "if-none-match": etag });
    expect(after.status).toBe(200);
    expect(((await after.json()) as { page: { name: string } }).page.name).toBe("Acme Status Center");

    await api.patch(`/public/v1/status-pages/${page.id}`, {
      visibility: "password-protected",
      password: "a long password",
    });
    const locked = await read("/acme/api/v2/summary.json");
    expect(locked.status).toBe(401);
    expect(locked.headers.get("access-control-allow-origin")).toBeNull();
    expect(((await locked.json()) as { success: boolean }).success).toBe(false);
    await api.patch(`/public/v1/status-pages/${page.id}`, { visibility: "private" });
    const hidden = await read("/acme/api/v2/components.json", {}, "HEAD");
    expect(hidden.status).toBe(404);
    expect(hidden.headers.get("access-control-allow-origin")).toBeNull();
    expect((await read("/nobody/api/v2/summary.json")).status).toBe(404);
  });

  test("maintenance alone: Service Under Maintenance, under the indicator none unless the page asks for maintenance", async () => {
    const site = (await api.post("/public/v1/sites", { url: targets.ok, name: "Search", checkInterval: 30 })).json.data;
    const page = (await api.post("/public/v1/status-pages", { name: "Calm", slug: "calm" })).json.data;
    expect((await api.post(`/public/v1/status-pages/${page.id}/items`, { siteId: site.id })).status).toBe(201);
    const start = new Date(clock.now().getTime() - 60_000).toISOString();
    const window = await api.post("/public/v1/maintenance-windows", {
      title: "Reindex",
      sites: [site.id],
      start,
      durationMinutes: 30,
    });
    expect(window.status).toBe(201);
    const components = await documentOf("components", "calm");
    expect(components.components.map((c) => c.status)).toEqual(["under_maintenance"]);
    expect((await documentOf("status", "calm")).status).toEqual({
      indicator: "none",
      description: "Service Under Maintenance",
    });
    const asked = await api.patch(`/public/v1/status-pages/${page.id}`, { display: { statuspageMaintenance: true } });
    expect(asked.status).toBe(200);
    expect(asked.json.data.display.statuspageMaintenance).toBe(true);
    expect((await documentOf("summary", "calm")).status).toEqual({
      indicator: "maintenance",
      description: "Service Under Maintenance",
    });
    // The other display options kept theirs.
    expect(asked.json.data.display.showUptime).toBe(true);
    // The owner's option, not the visitors': the public page does not carry it.
    const shown = await read("/public/v1/status-page/calm");
    expect(((await shown.json()) as { display: Record<string, unknown> }).display).not.toHaveProperty(
      "statuspageMaintenance",
    );
  });

  test("on a page's custom domain at /api/v2/, and not on the server's own host", async () => {
    await setUp();
    const page = (await api.get("/public/v1/status-pages")).json.data.statusPages[0];
    const domain = `status-${kind.name}.example.org`;
    expect((await api.patch(`/public/v1/status-pages/${page.id}`, { customDomain: domain })).status).toBe(200);
    const res = await read("/api/v2/status.json", { host: domain });
    expect(res.status).toBe(200);
    const body = DOCUMENTS.status.parse(await res.json());
    expect(body.page.url).toBe(`https://${domain}`);
    expect((await read("/api/v2/status.json", { host: "status.test" })).status).toBe(404);
    expect((await read("/api/v2/status.json", { host: "unknown.example.org" })).status).toBe(404);
  });
});
