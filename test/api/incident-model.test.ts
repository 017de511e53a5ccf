import { expect, test } from "vitest";
import { Envelope } from "../../server/contract/common.ts";
import { overallStatus } from "../../server/contract/status.ts";
import {
  DEFAULT_INCIDENT_POLICY,
  OwnerIncident,
  PublicIncidents,
  PublicItems,
  PublicStatusPage,
  StatusPage,
} from "../../server/contract/status-page.ts";
import type { Store } from "../../server/store/store.ts";
import { PUBLIC_INCIDENT_LIMIT, publicViews } from "../../server/views/page-views.ts";
import {
  type App,
  client,
  describeStores,
  fromAddress,
  makeApp,
  seedOwner,
  type TestClock,
  useStore,
} from "../helpers.ts";

const OwnerEnvelope = Envelope(OwnerIncident);

/**
 * Issue 27, part 3: an incident has an impact and names its services each with a status; while open and published it
 * moves their shown status and the page's banner; drafts and owner-only details never reach visitors.
 */
describeStores("the incident model", (kind) => {
  let store: Store;
  let app: App;
  let clock: TestClock;
  let api: ReturnType<typeof client>;

  useStore(kind, async (opened) => {
    ({ store } = opened);
    ({ app, clock } = makeApp(store));
    api = client(app, (await seedOwner(store, "stack")).token);
  });

  let n = 0;
  /** A page with three healthy items, in this order: Website, Checkout, Search. */
  const newPage = async () => {
    n++;
    const slug = `model-${kind.name}-${n}`;
    const page = await api.post("/public/v1/status-pages", { name: `Model ${n}`, slug });
    expect(page.status, JSON.stringify(page.json)).toBe(201);
    const id = page.json.data.id as number;
    const items: Record<string, number> = {};
    const sites: Record<string, string> = {};
    for (const label of ["Website", "Checkout", "Search"]) {
      const site = await api.post("/public/v1/sites", {
        url: `https://${label.toLowerCase()}${n}.example.com`,
        name: label,
      });
      expect(site.status, JSON.stringify(site.json)).toBe(201);
      sites[label] = site.json.data.id;
      await store.db.updateTable("sites").set({ state: "healthy" }).where("id", "=", site.json.data.id).execute();
      const item = await api.post(`/public/v1/status-pages/${id}/items`, { siteId: site.json.data.id, label });
      expect(item.status, JSON.stringify(item.json)).toBe(201);
      items[label] = item.json.data.id;
    }
    clock.advance(60_000); // past the view TTL: the sites' states, written outside the API, are seen
    type Labels = "Website" | "Checkout" | "Search";
    return { id, slug, items: items as Record<Labels, number>, sites: sites as Record<Labels, string> };
  };
  const incidents = (pageId: number) => `/public/v1/status-pages/${pageId}/incidents`;
  const anonJson = async (path: string) => {
    const res = await app.request(path, {}, fromAddress("203.0.113.7"));
    expect(res.status, path).toBe(200);
    return res.json();
  };
  const publicPage = async (slug: string) => PublicStatusPage.parse(await anonJson(`/public/v1/status-page/${slug}`));
  const rows = (view: { items: { label: string; status: string }[] }) =>
    Object.fromEntries(view.items.map((i) => [i.label, i.status]));
  const open = async (pageId: number, body: Record<string, unknown>) => {
    const res = await api.post(incidents(pageId), { title: "Payments failing", message: "Looking into it.", ...body });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    return OwnerEnvelope.parse(res.json).data;
  };

  test("an open incident with two services moves their rows and the banner in every public answer; resolving restores them", async () => {
    const page = await newPage();
    const { Website, Checkout } = page.items;
    const before = await publicPage(page.slug);
    expect(rows(before)).toEqual({ Website: "operational", Checkout: "operational", Search: "operational" });
    expect(overallStatus(before.items)).toBe("operational");

    const incident = await open(page.id, {
      impact: "critical",
      items: [
        { id: Website, status: "major_outage" },
        { id: Checkout, status: "degraded" },
      ],
    });
    expect(incident.impact).toBe("critical");
    expect(incident.affected).toEqual([
      { id: Website, label: "Website", status: "major_outage" },
      { id: Checkout, label: "Checkout", status: "degraded" },
    ]);
    // No time passes: the change itself rebuilds the views.
    const moved = await publicPage(page.slug);
    expect(rows(moved)).toEqual({ Website: "major_outage", Checkout: "degraded", Search: "operational" });
    expect(overallStatus(moved.items)).toBe("partial");
    expect(moved.incidents[0]).toMatchObject({ id: incident.id, impact: "critical" });
    const items = PublicItems.parse(await anonJson(`/public/v1/status-page/${page.slug}/items`));
    expect(rows(items)).toEqual(rows(moved));

    const resolved = await api.post(`${incidents(page.id)}/${incident.id}/updates`, {
      status: "resolved",
      message: "Fixed.",
    });
    expect(resolved.status, JSON.stringify(resolved.json)).toBe(201);
    const after = await publicPage(page.slug);
    expect(rows(after)).toEqual({ Website: "operational", Checkout: "operational", Search: "operational" });
    expect(overallStatus(after.items)).toBe("operational");
    // Still listed, resolved, with what it said.
    expect(after.incidents[0]?.affected.map((a) => a.status)).toEqual(["major_outage", "degraded"]);
  });

  test("the shown status is the worse of the engine's and the incidents'; operational moves nothing; deleting restores", async () => {
    const page = await newPage();
    const { Website, Checkout, Search } = page.items;
    await store.db.updateTable("sites").set({ state: "unhealthy" }).where("id", "=", page.sites.Website).execute();
    const first = await open(page.id, {
      items: [
        { id: Website, status: "degraded" },
        { id: Checkout, status: "partial_outage" },
        { id: Search, status: "operational" },
      ],
    });
    await open(page.id, { items: [{ id: Checkout, status: "degraded" }] });
    const view = await publicPage(page.slug);
    // The engine's major outage beats the incident's degraded; the worse of two incidents counts.
    expect(rows(view)).toEqual({ Website: "major_outage", Checkout: "partial_outage", Search: "operational" });
    expect(overallStatus(view.items)).toBe("partial");
    const removed = await api.delete(`${incidents(page.id)}/${first.id}`);
    expect(removed.status).toBe(200);
    expect(rows(await publicPage(page.slug))).toEqual({
      Website: "major_outage",
      Checkout: "degraded",
      Search: "operational",
    });
  });

  test("impact defaults to the worst status named; an id alone takes the impact's status; mixed forms, a repeat counts once, worst", async () => {
    const page = await newPage();
    const { Website, Checkout, Search } = page.items;
    const mixed = await open(page.id, { items: [Website, { id: Checkout, status: "partial_outage" }] });
    expect(mixed.impact).toBe("major");
    expect(mixed.affected.map((a) => [a.label, a.status])).toEqual([
      ["Website", "partial_outage"],
      ["Checkout", "partial_outage"],
    ]);
    for (const [status, impact] of [
      ["major_outage", "critical"],
      ["degraded", "minor"],
      ["maintenance", "none"],
      ["operational", "none"],
    ] as const) {
      expect((await open(page.id, { items: [{ id: Search, status }] })).impact).toBe(impact);
    }
    for (const [impact, status] of [
      ["critical", "major_outage"],
      ["major", "partial_outage"],
      ["minor", "degraded"],
      ["none", "operational"],
    ] as const) {
      expect((await open(page.id, { impact, items: [Search] })).affected).toEqual([
        { id: Search, label: "Search", status },
      ]);
    }
    const twice = await open(page.id, {
      items: [{ id: Search, status: "degraded" }, { id: Search, status: "major_outage" }, Search],
    });
    expect(twice.affected).toEqual([{ id: Search, label: "Search", status: "major_outage" }]);
    // Today's calls: ids alone and no impact move nothing.
    await open(page.id, { items: [Website, Checkout] });
    await api.post(incidents(page.id), { title: "Other", message: "x", items: [] });
    const created = (await api.get(incidents(page.id))).json.data.incidents as OwnerIncident[];
    expect(created.every((i) => i.source === "manual" && i.published)).toBe(true);
  });

  test("a PATCH sets title, impact or items (ids take the impact's status); impact alone keeps the statuses; none is a 400", async () => {
    const page = await newPage();
    const { Website, Checkout } = page.items;
    const incident = await open(page.id, { items: [{ id: Website, status: "degraded" }] });
    const path = `${incidents(page.id)}/${incident.id}`;
    const impact = await api.patch(path, { impact: "critical" });
    expect(impact.status, JSON.stringify(impact.json)).toBe(200);
    expect(OwnerEnvelope.parse(impact.json).data).toMatchObject({
      impact: "critical",
      affected: [{ id: Website, status: "degraded" }],
    });
    const items = await api.patch(path, { items: [Checkout, { id: Website, status: "maintenance" }] });
    expect(OwnerEnvelope.parse(items.json).data.affected.map((a) => a.status)).toEqual(["maintenance", "major_outage"]);
    expect(rows(await publicPage(page.slug))).toMatchObject({ Website: "maintenance", Checkout: "major_outage" });
    const both = await api.patch(path, { title: "Renamed", impact: "minor", items: [Checkout] });
    expect(OwnerEnvelope.parse(both.json).data).toMatchObject({
      title: "Renamed",
      impact: "minor",
      affected: [{ id: Checkout, status: "degraded" }],
    });
    for (const body of [
      {},
      { impact: "severe" },
      { impact: null },
      { items: [{ id: Website, status: "down" }] },
      { items: [{ id: Website }] },
      { items: [{ id: Website, status: "degraded", extra: 1 }] },
      { items: [{ id: "x", status: "degraded" }] },
      { status: "resolved" },
    ]) {
      const res = await api.patch(path, body);
      expect(res.status, `${JSON.stringify(body)}: ${JSON.stringify(res.json)}`).toBe(400);
      expect(res.json.error).toBe("validation_failed");
    }
    const stranger = await api.patch(path, { items: [{ id: 2_000_000, status: "degraded" }] });
    expect(stranger.status).toBe(400);
    expect(JSON.stringify(stranger.json)).toContain("items");
  });

  test("a draft is the owner's until published; publishing is idempotent; visitors never read drafts nor details", async () => {
    const page = await newPage();
    const draft = await open(page.id, { publish: false, items: [{ id: page.items.Search, status: "major_outage" }] });
    expect(draft).toMatchObject({ published: false, publishedAt: null, source: "manual" });
    expect(draft.updates[0]).toMatchObject({ detail: null, message: "Looking into it." });
    const hidden = await publicPage(page.slug);
    expect(hidden.incidents).toEqual([]);
    expect(rows(hidden).Search).toBe("operational");
    const listed = PublicIncidents.parse(await anonJson(`/public/v1/status-page/${page.slug}/incidents`));
    expect(listed.incidents).toEqual([]);
    const owned = (await api.get(incidents(page.id))).json.data.incidents as OwnerIncident[];
    expect(owned.map((i) => [i.id, i.published])).toEqual([[draft.id, false]]);

    clock.advance(5 * 60_000);
    // The view is rebuilt now, still without it: publishing must rebuild it again, no time passing.
    expect((await publicPage(page.slug)).incidents).toEqual([]);
    const publishedAt = clock.now().toISOString();
    const published = await api.post(`${incidents(page.id)}/${draft.id}/publish`, {});
    expect(published.status, JSON.stringify(published.json)).toBe(200);
    expect(OwnerEnvelope.parse(published.json).data).toMatchObject({ published: true, publishedAt });
    const shown = await publicPage(page.slug);
    expect(shown.incidents.map((i) => i.id)).toEqual([draft.id]);
    expect(rows(shown).Search).toBe("major_outage");
    clock.advance(60_000);
    const again = await api.post(`${incidents(page.id)}/${draft.id}/publish`);
    expect(again.status).toBe(200);
    expect(again.json.data.publishedAt).toBe(publishedAt);

    // An automatic update's detail: the owner's only.
    await store.db
      .updateTable("incident_updates")
      .set({ detail: "HTTP 500" })
      .where("incident_id", "=", draft.id)
      .execute();
    await api.patch(`${incidents(page.id)}/${draft.id}`, { title: "Search is unavailable" });
    const mine = (await api.get(incidents(page.id))).json.data.incidents as OwnerIncident[];
    expect(mine[0]?.updates[0]?.detail).toBe("HTTP 500");
    for (const path of ["", "/incidents", "/items"]) {
      const text = JSON.stringify(await anonJson(`/public/v1/status-page/${page.slug}${path}`));
      expect(text).not.toContain("HTTP 500");
      expect(text).not.toContain("detail");
      expect(text).not.toContain("publishedAt");
    }
  });

  test("the static build's views list published incidents only, and are moved by them", async () => {
    const page = await newPage();
    await open(page.id, { publish: false, items: [{ id: page.items.Website, status: "major_outage" }] });
    const shown = await open(page.id, { items: [{ id: page.items.Checkout, status: "partial_outage" }] });
    const now = clock.now();
    const bulk = await store.views.publicPagesViewData("2000-01-01", PUBLIC_INCIDENT_LIMIT);
    const view = publicViews(bulk, now).find((v) => v.page.slug === page.slug)?.view;
    expect(view?.incidents.map((i) => i.id)).toEqual([shown.id]);
    expect(view && rows(view)).toEqual({ Website: "operational", Checkout: "partial_outage", Search: "operational" });
  });

  test("an update's text and time are corrected; the opening update moves the start, the resolving one resolved_at", async () => {
    const page = await newPage();
    const incident = await open(page.id, { startedAt: "2026-10-31T10:00:00Z" });
    const updates = `${incidents(page.id)}/${incident.id}/updates`;
    for (const [status, at] of [
      ["identified", "2026-10-31T10:20:00Z"],
      ["resolved", "2026-10-31T11:00:00Z"],
    ]) {
      expect((await api.post(updates, { status, at, message: status })).status).toBe(201);
    }
    const read = async () =>
      ((await api.get(incidents(page.id))).json.data.incidents as OwnerIncident[]).find((i) => i.id === incident.id);
    const [resolving, identified, opening] = (await read())?.updates ?? [];
    if (!resolving || !identified || !opening) throw new Error("three updates expected");

    const reworded = await api.patch(`${updates}/${identified.id}`, { message: "Found it: a bad deploy." });
    expect(reworded.status, JSON.stringify(reworded.json)).toBe(200);
    expect(OwnerEnvelope.parse(reworded.json).data.updates[1]).toMatchObject({
      id: identified.id,
      message: "Found it: a bad deploy.",
      timestamp: "2026-10-31T10:20:00.000Z",
    });
    const moved = await api.patch(`${updates}/${identified.id}`, { at: "2026-10-31T10:30:00Z" });
    expect(moved.json.data.updates[1].timestamp).toBe("2026-10-31T10:30:00.000Z");

    const earlier = await api.patch(`${updates}/${opening.id}`, { at: "2026-10-31T09:45:00Z", message: "Began." });
    expect(OwnerEnvelope.parse(earlier.json).data).toMatchObject({
      started_at: "2026-10-31T09:45:00.000Z",
      duration_minutes: 75,
    });
    const later = await api.patch(`${updates}/${resolving.id}`, { at: "2026-10-31T11:15:00Z" });
    expect(OwnerEnvelope.parse(later.json).data).toMatchObject({
      resolved_at: "2026-10-31T11:15:00.000Z",
      duration_minutes: 90,
    });
    // Visitors read the corrections at once.
    const shown = (await publicPage(page.slug)).incidents[0];
    expect(shown).toMatchObject({ started_at: "2026-10-31T09:45:00.000Z", resolved_at: "2026-10-31T11:15:00.000Z" });
    expect(shown?.updates.map((u) => u.message)).toEqual(["resolved", "Found it: a bad deploy.", "Began."]);

    // Refusals: 400 naming at, nothing written.
    const stored = JSON.stringify(await read());
    const future = new Date(clock.now().getTime() + 3_600_000).toISOString();
    for (const [id, at, says] of [
      [identified.id, "2026-10-31T09:00:00Z", "before the incident started"],
      [identified.id, "2026-10-31T11:20:00Z", "after the update after it"],
      [resolving.id, "2026-10-31T10:00:00Z", "before the update before it"],
      [opening.id, "2026-10-31T10:40:00Z", "after the update after it"],
      [resolving.id, future, "future"],
    ] as const) {
      const res = await api.patch(`${updates}/${id}`, { at });
      expect(res.status, `${at}: ${JSON.stringify(res.json)}`).toBe(400);
      expect(res.json.error).toBe("validation_failed");
      expect(JSON.stringify(res.json)).toContain(says);
      expect(JSON.stringify(res.json)).toContain('"at"');
    }
    for (const body of [{}, { message: "" }, { at: "yesterday" }, { at: null }, { status: "resolved" }, []]) {
      const res = await api.patch(`${updates}/${identified.id}`, body);
      expect(res.status, `${JSON.stringify(body)}: ${JSON.stringify(res.json)}`).toBe(400);
    }
    expect(JSON.stringify(await read())).toBe(stored);
  });

  test("an incident recorded resolved: moving its one update moves resolved_at, never before the start", async () => {
    const page = await newPage();
    const done = await open(page.id, {
      status: "resolved",
      startedAt: "2026-10-31T10:00:00Z",
      resolvedAt: "2026-10-31T11:00:00Z",
    });
    const only = done.updates[0]?.id as number;
    const path = `${incidents(page.id)}/${done.id}/updates/${only}`;
    const moved = await api.patch(path, { at: "2026-10-31T10:30:00Z" });
    expect(OwnerEnvelope.parse(moved.json).data).toMatchObject({
      started_at: "2026-10-31T10:00:00.000Z",
      resolved_at: "2026-10-31T10:30:00.000Z",
      duration_minutes: 30,
      updates: [{ id: only, timestamp: "2026-10-31T10:30:00.000Z" }],
    });
    const early = await api.patch(path, { at: "2026-10-31T09:59:00Z" });
    expect(early.status).toBe(400);
    expect(JSON.stringify(early.json)).toContain("before the incident started");
  });

  test("an update is found only under its own incident, page and workspace; bad ids are 4xx, never 500", async () => {
    const page = await newPage();
    const a = await open(page.id, {});
    const b = await open(page.id, {});
    const updateOfB = b.updates[0]?.id as number;
    const wrong = await api.patch(`${incidents(page.id)}/${a.id}/updates/${updateOfB}`, { message: "No." });
    expect(wrong.status).toBe(404);
    expect(wrong.json.error).toBe("not_found");
    const other = client(app, (await seedOwner(store, "stack")).token);
    for (const [method, path, body] of [
      ["patch", `${incidents(page.id)}/${b.id}/updates/${updateOfB}`, { message: "No." }],
      ["post", `${incidents(page.id)}/${b.id}/publish`, {}],
      ["patch", `${incidents(page.id)}/${b.id}`, { impact: "minor" }],
      ["delete", `${incidents(page.id)}/${b.id}`, undefined],
    ] as const) {
      const res = await other[method](path, body);
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    for (const path of [
      `${incidents(page.id)}/${b.id}/updates/0`,
      `${incidents(page.id)}/${b.id}/updates/x`,
      `${incidents(page.id)}/${b.id}/updates/99999999999`,
      `${incidents(page.id)}/0/updates/${updateOfB}`,
    ]) {
      const res = await api.patch(path, { message: "x" });
      expect([400, 404], `${path}: ${res.status}`).toContain(res.status);
    }
    for (const path of [`${incidents(page.id)}/999999/publish`, `${incidents(page.id)}/999999/updates/1`]) {
      const res = path.endsWith("publish") ? await api.post(path) : await api.patch(path, { message: "x" });
      expect(res.status).toBe(404);
    }
    const unchanged = (await api.get(incidents(page.id))).json.data.incidents as OwnerIncident[];
    expect(unchanged.find((i) => i.id === b.id)?.updates[0]?.message).toBe("Looking into it.");
  });

  test("bad creations are 400s in the envelope and write nothing", async () => {
    const page = await newPage();
    const count = async () => (await store.db.selectFrom("incidents").select("id").execute()).length;
    const before = await count();
    for (const extra of [
      { impact: "catastrophic" },
      { impact: 3 },
      { publish: "yes" },
      { publish: null },
      { items: [{ id: page.items.Website, status: "outage" }] },
      { items: [{ status: "degraded" }] },
      { items: [{ id: 1.5, status: "degraded" }] },
      { items: [{ id: page.items.Website, status: "paused" }] },
      { items: [{ id: 2_000_000, status: "degraded" }] },
    ]) {
      const res = await api.post(incidents(page.id), { title: "Bad", message: "Bad.", ...extra });
      expect(res.status, `${JSON.stringify(extra)}: ${JSON.stringify(res.json)}`).toBe(400);
      expect(res.json).toMatchObject({ success: false, code: 400, error: "validation_failed" });
    }
    expect(await count()).toBe(before);
  });

  test("an automatic incident can be deleted, and its site's items no longer move", async () => {
    const page = await newPage();
    const at = clock.now().toISOString();
    const id = await store.incidents.create(
      {
        page_id: page.id,
        title: "Search is unavailable",
        status: "investigating",
        started_at: at,
        resolved_at: null,
        created_at: at,
        updated_at: at,
        site_id: page.sites.Search,
        source: "automatic",
        impact: "major",
        published_at: at,
      },
      "We are seeing problems reaching Search.",
    );
    clock.advance(60_000);
    const owned = (await api.get(incidents(page.id))).json.data.incidents as OwnerIncident[];
    expect(owned.find((i) => i.id === id)).toMatchObject({ source: "automatic", impact: "major" });
    expect(rows(await publicPage(page.slug)).Search).toBe("partial_outage");
    const res = await api.delete(`${incidents(page.id)}/${id}`);
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json.data).toEqual({ id });
    const after = await publicPage(page.slug);
    expect(after.incidents).toEqual([]);
    expect(rows(after).Search).toBe("operational");
    expect(await store.db.selectFrom("incident_updates").select("id").where("incident_id", "=", id).execute()).toEqual(
      [],
    );
    expect((await api.delete(`${incidents(page.id)}/${id}`)).status).toBe(404);
  });
});

/** Issue 27, part 2: a page's incident policy, as the owner sets and reads it. */
describeStores("a page's incident policy", (kind) => {
  let store: Store;
  let app: App;
  let api: ReturnType<typeof client>;

  useStore(kind, async (opened) => {
    ({ store } = opened);
    ({ app } = makeApp(store));
    api = client(app, (await seedOwner(store, "stack")).token);
  });
  const PageEnvelope = Envelope(StatusPage);
  let n = 0;
  const slug = () => `policy-${kind.name}-${++n}`;

  test("defaults on creation; a PATCH merges field by field, the template per field; the stored JSON keeps only what was set", async () => {
    const created = await api.post("/public/v1/status-pages", { name: "Policy", slug: slug() });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    expect(PageEnvelope.parse(created.json).data.incidentPolicy).toEqual(DEFAULT_INCIDENT_POLICY);
    expect(DEFAULT_INCIDENT_POLICY).toMatchObject({ publish: "after", afterMinutes: 5 });
    const path = `/public/v1/status-pages/${created.json.data.id}`;

    const first = await api.patch(path, {
      incidentPolicy: { publish: "draft", template: { title: "{service} is down" } },
    });
    expect(first.status, JSON.stringify(first.json)).toBe(200);
    const second = await api.patch(path, {
      incidentPolicy: { afterMinutes: 15, template: { recovered: "{service} is back." } },
    });
    const policy = PageEnvelope.parse(second.json).data.incidentPolicy;
    expect(policy).toEqual({
      publish: "draft",
      afterMinutes: 15,
      template: {
        ...DEFAULT_INCIDENT_POLICY.template,
        title: "{service} is down",
        recovered: "{service} is back.",
      },
    });
    expect(PageEnvelope.parse((await api.get(path)).json).data.incidentPolicy).toEqual(policy);
    // Other changes leave it alone.
    const renamed = await api.patch(path, { name: "Renamed" });
    expect(PageEnvelope.parse(renamed.json).data.incidentPolicy).toEqual(policy);
  });

  test("given on creation, the rest defaults; every bad policy is a 400 on create and on PATCH", async () => {
    const created = await api.post("/public/v1/status-pages", {
      name: "Given",
      slug: slug(),
      incidentPolicy: { publish: "immediately", template: { down: "{service} has a problem." } },
    });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    expect(PageEnvelope.parse(created.json).data.incidentPolicy).toEqual({
      ...DEFAULT_INCIDENT_POLICY,
      publish: "immediately",
      template: { ...DEFAULT_INCIDENT_POLICY.template, down: "{service} has a problem." },
    });
    const path = `/public/v1/status-pages/${created.json.data.id}`;
    for (const incidentPolicy of [
      { publish: "later" },
      { afterMinutes: 0 },
      { afterMinutes: 1441 },
      { afterMinutes: 2.5 },
      { template: { title: "" } },
      { template: { title: "x".repeat(201) } },
      { template: { body: "x" } },
      { other: true },
      null,
      "after",
    ]) {
      const patched = await api.patch(path, { incidentPolicy });
      expect(patched.status, `${JSON.stringify(incidentPolicy)}: ${JSON.stringify(patched.json)}`).toBe(400);
      expect(patched.json.error).toBe("validation_failed");
      const made = await api.post("/public/v1/status-pages", { name: "Bad", slug: slug(), incidentPolicy });
      expect(made.status, `${JSON.stringify(incidentPolicy)}: ${JSON.stringify(made.json)}`).toBe(400);
    }
    expect(PageEnvelope.parse((await api.get(path)).json).data.incidentPolicy.publish).toBe("immediately");
  });
});
