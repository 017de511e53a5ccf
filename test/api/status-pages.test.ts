import { expect, test } from "vitest";
import { z } from "zod";
import { Envelope, Pagination } from "../../server/contract/common.ts";
import { Incident, OwnerItem, StatusPage } from "../../server/contract/status-page.ts";
import type { Store } from "../../server/store/store.ts";
import {
  type App,
  client,
  describeStores,
  makeApp,
  seedMember,
  seedOwner,
  seedStats,
  type TestClock,
  useStore,
} from "../helpers.ts";

const PageEnvelope = Envelope(StatusPage);
const IncidentEnvelope = Envelope(Incident);

describeStores("status pages API", (kind) => {
  let store: Store;
  let app: App;
  let clock: TestClock;

  useStore(kind, (opened) => {
    ({ store } = opened);
    ({ app, clock } = makeApp(store));
  });

  let n = 0;
  const slug = () => `page-${kind.name}-${++n}`;
  const newOwner = async (plan = "stack") => {
    const owner = await seedOwner(store, plan);
    return { ...owner, api: client(app, owner.token) };
  };
  const createPage = async (api: ReturnType<typeof client>, body: Record<string, unknown> = {}) => {
    const res = await api.post("/public/v1/status-pages", { name: "Acme Status", slug: slug(), ...body });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    return PageEnvelope.parse(res.json).data;
  };
  const createSite = async (api: ReturnType<typeof client>, name = "API") => {
    const res = await api.post("/public/v1/sites", { url: "https://api.example.com", name });
    return res.json.data.id as string;
  };

  test("create returns the configuration with defaults and never the password", async () => {
    const { api } = await newOwner();
    const page = await createPage(api, { visibility: "password", password: "correct horse" });
    expect(page).toMatchObject({
      name: "Acme Status",
      description: "",
      visibility: "password-protected",
      hasPassword: true,
      theme: { mode: "auto", accentColor: "#2563eb" },
      display: { historyDays: 90, showUptime: true, showResponseTime: true, showIncidents: true },
      customDomain: null,
      url: `http://status.test/${page.slug}`,
      items: [],
    });
    expect(JSON.stringify(page)).not.toContain("correct horse");
    const row = await store.pages.get((await store.pages.getBySlug(page.slug))?.workspaceId ?? "", page.id);
    expect(row?.password_hash).toMatch(/^scrypt\$/);
    expect(row?.password_hash).not.toContain("correct horse");
  });

  test.each([
    [{ slug: "Has Caps" }, "slug"],
    [{ slug: "-dash" }, "slug"],
    [{ slug: "a".repeat(65) }, "slug"],
    [{ slug: "api" }, "slug"],
    [{ slug: "embed" }, "slug"],
    [{ slug: "ümlaut" }, "slug"],
    [{ visibility: "password" }, "password"],
    [{ visibility: "password", password: "short" }, "password"],
    [{ visibility: "password", password: " leading space" }, "password"],
    [{ visibility: "password", password: "trailing space " }, "password"],
    [{ visibility: "password", password: "line\nbreak!!" }, "password"],
    [{ visibility: "public", password: "a long password" }, "password"],
    [{ password: "a long password" }, "password"],
    [{ visibility: "secret" }, "visibility"],
    [{ customDomain: "https://status.example.com" }, "customDomain"],
    [{ customDomain: "status.example.com:8080" }, "customDomain"],
    [{ customDomain: "10.0.0.1" }, "customDomain"],
    [{ theme: { mode: "neon" } }, "theme.mode"],
    [{ theme: { accentColor: "red" } }, "theme.accentColor"],
    [{ display: { historyDays: 91 } }, "display.historyDays"],
    [{ owner: "me" }, "owner"],
  ])("create with %j is a 400 naming %s", async (body, field) => {
    const { api } = await newOwner();
    const res = await api.post("/public/v1/status-pages", { name: "X", slug: slug(), ...body });
    expect(res.status).toBe(400);
    expect(res.json.details.map((d: { field: string }) => d.field)).toContain(field);
    expect((await api.get("/public/v1/status-pages")).json.data.pagination.total).toBe(0);
  });

  test("slugs and custom domains are unique across workspaces (409)", async () => {
    const a = await newOwner();
    const b = await newOwner();
    const domain = `Status-${n}.Example.com`;
    const page = await createPage(a.api, { customDomain: domain });
    expect(page.customDomain).toBe(domain.toLowerCase());
    const sameSlug = await b.api.post("/public/v1/status-pages", { name: "B", slug: page.slug });
    expect(sameSlug.status).toBe(409);
    expect(sameSlug.json.details[0].field).toBe("slug");
    const sameDomain = await b.api.post("/public/v1/status-pages", {
      name: "B",
      slug: slug(),
      customDomain: page.customDomain,
    });
    expect(sameDomain.status).toBe(409);
    expect(sameDomain.json.details[0].field).toBe("customDomain");
  });

  test.each([
    ["free", 1],
    ["solo", 2],
    ["team", 5],
  ])("the %s plan allows %i page(s); one more is 403 Limit reached and creates nothing", async (plan, limit) => {
    const { api } = await newOwner(plan);
    for (let i = 0; i < limit; i++) await createPage(api);
    const res = await api.post("/public/v1/status-pages", { name: "One too many", slug: slug() });
    expect(res.status).toBe(403);
    expect(res.json).toMatchObject({ success: false, code: 403, error: "limit_reached" });
    expect(res.json.message).toMatch(/^Limit reached/);
    expect((await api.get("/public/v1/status-pages")).json.data.pagination.total).toBe(limit);
  });

  test("the stack plan is unlimited", async () => {
    const { api } = await newOwner("stack");
    for (let i = 0; i < 7; i++) await createPage(api);
    expect((await api.get("/public/v1/status-pages")).json.data.pagination.total).toBe(7);
  });

  test("concurrent creates cannot pass the plan limit", async () => {
    const { api } = await newOwner("solo");
    const results = await Promise.all(
      Array.from({ length: 6 }, () => api.post("/public/v1/status-pages", { name: "Race", slug: slug() })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(2);
    expect(results.filter((r) => r.status === 403)).toHaveLength(4);
    expect((await api.get("/public/v1/status-pages")).json.data.pagination.total).toBe(2);
  });

  test("the list is newest first with 10, 25 or 50 per page; anything else is a 400 listing them", async () => {
    const { api } = await newOwner();
    const ids: number[] = [];
    for (let i = 0; i < 27; i++) {
      clock.advance(1000);
      ids.push((await createPage(api)).id);
    }
    const List = Envelope(z.object({ statusPages: z.array(StatusPage), pagination: Pagination }));
    const first = List.parse((await api.get("/public/v1/status-pages")).json).data;
    expect(first.pagination).toEqual({ page: 1, perPage: 10, total: 27, totalPages: 3 });
    expect(first.statusPages.map((p) => p.id)).toEqual(ids.slice(-10).reverse());
    const third = List.parse((await api.get("/public/v1/status-pages?page=3")).json).data;
    expect(third.statusPages.map((p) => p.id)).toEqual(ids.slice(0, 7).reverse());
    expect(List.parse((await api.get("/public/v1/status-pages?perPage=25")).json).data.statusPages).toHaveLength(25);
    expect(List.parse((await api.get("/public/v1/status-pages?perPage=50")).json).data.statusPages).toHaveLength(27);
    for (const bad of ["perPage=20", "perPage=100", "perPage=ten", "perPage=10&perPage=25", "page=0", "page=-1"]) {
      const res = await api.get(`/public/v1/status-pages?${bad}`);
      expect(res.status, bad).toBe(400);
    }
    expect((await api.get("/public/v1/status-pages?perPage=7")).json.message).toContain("10, 25 or 50");
  });

  test("PATCH merges theme and display, changes visibility and password rules", async () => {
    const { api } = await newOwner();
    const page = await createPage(api);
    const res = await api.patch(`/public/v1/status-pages/${page.id}`, {
      theme: { mode: "dark" },
      display: { historyDays: 30 },
      description: "All systems",
    });
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({
      theme: { mode: "dark", accentColor: "#2563eb" },
      display: { historyDays: 30, showUptime: true },
      description: "All systems",
    });
    const noPassword = await api.patch(`/public/v1/status-pages/${page.id}`, { visibility: "password" });
    expect(noPassword.status).toBe(400);
    expect(noPassword.json.details[0].field).toBe("password");
    const stray = await api.patch(`/public/v1/status-pages/${page.id}`, { password: "a long password" });
    expect(stray.status).toBe(400);
    const locked = await api.patch(`/public/v1/status-pages/${page.id}`, {
      visibility: "password",
      password: "a long password",
    });
    expect(locked.json.data).toMatchObject({ visibility: "password-protected", hasPassword: true });
    const opened = await api.patch(`/public/v1/status-pages/${page.id}`, { visibility: "public" });
    expect(opened.json.data).toMatchObject({ visibility: "public", hasPassword: false });
  });

  test("items: one site on several pages with its own label and visibility; duplicates 409", async () => {
    const { api } = await newOwner();
    const siteId = await createSite(api, "Checkout API");
    const p1 = await createPage(api);
    const p2 = await createPage(api);
    const a = await api.post(`/public/v1/status-pages/${p1.id}/items`, { siteId, label: "Payments" });
    const b = await api.post(`/public/v1/status-pages/${p2.id}/items`, { siteId, visible: false });
    expect(a.status).toBe(201);
    expect(Envelope(OwnerItem).parse(a.json).data).toMatchObject({ siteId, label: "Payments", visible: true });
    expect(b.json.data).toMatchObject({ siteId, label: "Checkout API", visible: false });
    const dup = await api.post(`/public/v1/status-pages/${p1.id}/items`, { siteId });
    expect(dup.status).toBe(409);
    const patched = await api.patch(`/public/v1/status-pages/${p1.id}/items/${a.json.data.id}`, {
      label: "Payments API",
      position: 5,
    });
    expect(patched.json.data).toMatchObject({ label: "Payments API", position: 5 });
    const page1 = PageEnvelope.parse((await api.get(`/public/v1/status-pages/${p1.id}`)).json).data;
    expect(page1.items.map((i) => i.label)).toEqual(["Payments API"]);
    const wrongPage = await api.patch(`/public/v1/status-pages/${p2.id}/items/${a.json.data.id}`, { label: "x" });
    expect(wrongPage.status).toBe(404);
    expect((await api.delete(`/public/v1/status-pages/${p1.id}/items/${a.json.data.id}`)).status).toBe(200);
    expect((await api.get(`/public/v1/site/${siteId}`)).status).toBe(200);
  });

  test("an item cannot name another workspace's site", async () => {
    const a = await newOwner();
    const b = await newOwner();
    const theirSite = await createSite(b.api);
    const page = await createPage(a.api);
    const res = await a.api.post(`/public/v1/status-pages/${page.id}/items`, { siteId: theirSite });
    expect(res.status).toBe(400);
    expect(res.json.details[0].field).toBe("siteId");
  });

  test("incidents: updates move the status, duration is computed, history is newest first", async () => {
    const { api } = await newOwner();
    const page = await createPage(api);
    const start = clock.now();
    const created = await api.post(`/public/v1/status-pages/${page.id}/incidents`, {
      title: "Checkout errors",
      message: "We are looking into failed payments.",
    });
    expect(created.status).toBe(201);
    const incident = IncidentEnvelope.parse(created.json).data;
    expect(incident).toMatchObject({
      status: "investigating",
      started_at: start.toISOString(),
      resolved_at: null,
      duration_minutes: null,
    });
    for (const [status, minutes] of [
      ["identified", 10],
      ["monitoring", 20],
      ["resolved", 47],
    ] as const) {
      clock.current = new Date(start.getTime() + minutes * 60_000 + 30_000);
      const res = await api.post(`/public/v1/status-pages/${page.id}/incidents/${incident.id}/updates`, {
        status,
        message: `Now ${status}`,
      });
      expect(res.status).toBe(201);
    }
    const done = IncidentEnvelope.parse(
      await api
        .post(`/public/v1/status-pages/${page.id}/incidents`, {
          title: "Old outage",
          message: "Recorded afterwards",
          status: "resolved",
          startedAt: new Date(start.getTime() - 86_400_000).toISOString(),
          resolvedAt: new Date(start.getTime() - 86_400_000 + 90 * 60_000).toISOString(),
        })
        .then((r) => r.json),
    ).data;
    expect(done.duration_minutes).toBe(90);
    // Its one update is stamped when it resolved, not when it was typed (issue 17; more in incident-times.test.ts).
    expect(done.updates.map((u) => u.timestamp)).toEqual([
      new Date(start.getTime() - 86_400_000 + 90 * 60_000).toISOString(),
    ]);
    const list = (await api.get(`/public/v1/status-pages/${page.id}/incidents`)).json.data.incidents;
    expect(list.map((i: { title: string }) => i.title)).toEqual(["Checkout errors", "Old outage"]);
    expect(list[0]).toMatchObject({ status: "resolved", duration_minutes: 47 });
    expect(list[0].updates.map((u: { status: string }) => u.status)).toEqual([
      "resolved",
      "monitoring",
      "identified",
      "investigating",
    ]);
    const future = await api.post(`/public/v1/status-pages/${page.id}/incidents`, {
      title: "x",
      message: "y",
      startedAt: new Date(clock.now().getTime() + 3_600_000).toISOString(),
    });
    expect(future.status).toBe(400);
    expect(future.json.details[0].field).toBe("startedAt");
    const badStatus = await api.post(`/public/v1/status-pages/${page.id}/incidents/${incident.id}/updates`, {
      status: "fixed",
      message: "m",
    });
    expect(badStatus.status).toBe(400);
    const reopened = await api.post(`/public/v1/status-pages/${page.id}/incidents/${incident.id}/updates`, {
      status: "investigating",
      message: "It is back",
    });
    expect(reopened.json.data).toMatchObject({ status: "investigating", resolved_at: null, duration_minutes: null });
    const renamed = await api.patch(`/public/v1/status-pages/${page.id}/incidents/${incident.id}`, { title: "New" });
    expect(renamed.json.data.title).toBe("New");
    expect((await api.delete(`/public/v1/status-pages/${page.id}/incidents/${done.id}`)).status).toBe(200);
    expect((await api.get(`/public/v1/status-pages/${page.id}/incidents`)).json.data.incidents).toHaveLength(1);
  });

  test("delete needs the exact name: any other character or case is refused and nothing is deleted", async () => {
    const { api } = await newOwner();
    const page = await createPage(api, { name: "Acme Status" });
    for (const wrong of ["acme status", "Acme Status ", " Acme Status", "Acme  Status", "ACME STATUS", ""]) {
      const res = await api.delete(`/public/v1/status-pages/${page.id}`, { confirmName: wrong });
      expect(res.status, JSON.stringify(wrong)).toBe(400);
      expect(res.json.details[0].field).toBe("confirmName");
    }
    expect((await api.delete(`/public/v1/status-pages/${page.id}`)).status).toBe(415);
    expect((await api.delete(`/public/v1/status-pages/${page.id}`, {})).status).toBe(400);
    expect((await api.get(`/public/v1/status-pages/${page.id}`)).status).toBe(200);
    const ok = await api.delete(`/public/v1/status-pages/${page.id}`, { confirmName: "Acme Status" });
    expect(ok.status).toBe(200);
    expect((await api.get(`/public/v1/status-pages/${page.id}`)).status).toBe(404);
  });

  test("delete removes the page's configuration, items, incidents and visibility, and keeps sites, their history and other pages", async () => {
    const { api, workspaceId } = await newOwner();
    const siteId = await createSite(api);
    await seedStats(store, siteId, clock.now(), 5);
    const doomed = await createPage(api, {
      visibility: "password",
      password: "a long password",
      customDomain: `doomed-${n}.example.com`,
      theme: { mode: "dark" },
    });
    const kept = await createPage(api);
    await api.post(`/public/v1/status-pages/${doomed.id}/items`, { siteId });
    await api.post(`/public/v1/status-pages/${kept.id}/items`, { siteId, label: "Kept label" });
    await api.post(`/public/v1/status-pages/${doomed.id}/incidents`, { title: "t", message: "m" });
    await api.post(`/public/v1/status-pages/${kept.id}/incidents`, { title: "kept incident", message: "m" });

    expect((await api.delete(`/public/v1/status-pages/${doomed.id}`, { confirmName: doomed.name })).status).toBe(200);

    // Gone: the page row (name, slug, visibility, password, theme, display, domain), its items and incidents.
    expect(await store.pages.get(workspaceId, doomed.id)).toBeUndefined();
    expect(await store.pages.listItems([doomed.id])).toEqual([]);
    expect(await store.incidents.list(doomed.id, 100)).toEqual([]);
    const orphans = await store.db
      .selectFrom("incident_updates")
      .leftJoin("incidents", "incidents.id", "incident_updates.incident_id")
      .select("incident_updates.id")
      .where("incidents.id", "is", null)
      .execute();
    expect(orphans).toEqual([]);
    expect((await app.request(`/public/v1/status-page/${doomed.slug}`)).status).toBe(404);
    // The slug and custom domain are free again.
    const reuse = await api.post("/public/v1/status-pages", {
      name: "Reborn",
      slug: doomed.slug,
      customDomain: doomed.customDomain,
    });
    expect(reuse.status).toBe(201);
    // Kept: the site, its statistics, the other page with its item and incident.
    const site = await api.get(`/public/v1/site/${siteId}`);
    expect(site.status).toBe(200);
    expect(site.json.data.uptimeSummary.daysCount).toBe(5);
    const other = PageEnvelope.parse((await api.get(`/public/v1/status-pages/${kept.id}`)).json).data;
    expect(other.items.map((i) => i.label)).toEqual(["Kept label"]);
    expect((await api.get(`/public/v1/status-pages/${kept.id}/incidents`)).json.data.incidents).toHaveLength(1);
  });

  test("a member with status_pages:write can edit; a viewer cannot; another workspace sees 404", async () => {
    const owner = await newOwner();
    const page = await createPage(owner.api);
    const editor = client(app, (await seedMember(store, owner.email, "editor")).token);
    const viewer = client(app, (await seedMember(store, owner.email, "viewer")).token);
    const stranger = (await newOwner()).api;
    expect((await editor.patch(`/public/v1/status-pages/${page.id}`, { description: "e" })).status).toBe(200);
    expect((await viewer.get(`/public/v1/status-pages/${page.id}`)).status).toBe(200);
    expect((await viewer.patch(`/public/v1/status-pages/${page.id}`, { description: "v" })).status).toBe(403);
    expect(
      (await viewer.post(`/public/v1/status-pages/${page.id}/incidents`, { title: "t", message: "m" })).status,
    ).toBe(403);
    expect((await stranger.get(`/public/v1/status-pages/${page.id}`)).status).toBe(404);
    expect((await stranger.delete(`/public/v1/status-pages/${page.id}`, { confirmName: page.name })).status).toBe(404);
    expect((await owner.api.get(`/public/v1/status-pages/${page.id}`)).status).toBe(200);
  });

  test("a PATCH of one theme or display field changes that field only; the others keep their values", async () => {
    const owner = await newOwner();
    const page = await createPage(owner.api, {
      theme: { mode: "dark", accentColor: "#123456" },
      display: { historyDays: 30, showUptime: true, showResponseTime: false, showIncidents: true },
    });
    const changed = await owner.api.patch(`/public/v1/status-pages/${page.id}`, {
      theme: { accentColor: "#abcdef" },
      display: { showUptime: false },
    });
    expect(changed.status).toBe(200);
    expect(changed.json.data.theme).toEqual({ mode: "dark", accentColor: "#abcdef" });
    expect(changed.json.data.display).toEqual({
      historyDays: 30,
      showUptime: false,
      showResponseTime: false,
      showIncidents: true,
    });
  });
});
