import { expect, test } from "vitest";
import { Envelope } from "../../server/contract/common.ts";
import { Incident, MAX_INCIDENT_ITEMS, PublicStatusPage } from "../../server/contract/status-page.ts";
import type { Store } from "../../server/store/store.ts";
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

const IncidentEnvelope = Envelope(Incident);

/**
 * Issue 17, part 4: an incident lists the services it affected. An owner names the page's items (items on create, or
 * on a PATCH that replaces them); an automatic incident affects its site's items. Visitors see only visible items;
 * an item removed from the page leaves the incidents that named it.
 */
describeStores("the services an incident affected", (kind) => {
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
  /** A page with three items, in this order: Website, Checkout (hidden from visitors), Search. */
  const newPage = async () => {
    n++;
    const slug = `affected-${kind.name}-${n}`;
    const page = await api.post("/public/v1/status-pages", { name: `Affected ${n}`, slug });
    expect(page.status, JSON.stringify(page.json)).toBe(201);
    const id = page.json.data.id as number;
    const items: Record<string, number> = {};
    const siteIds: Record<string, string> = {};
    for (const [label, visible] of [
      ["Website", true],
      ["Checkout", false],
      ["Search", true],
    ] as const) {
      const site = await api.post("/public/v1/sites", {
        url: `https://${label.toLowerCase()}${n}.example.com`,
        name: label,
      });
      expect(site.status, JSON.stringify(site.json)).toBe(201);
      siteIds[label] = site.json.data.id;
      const item = await api.post(`/public/v1/status-pages/${id}/items`, { siteId: site.json.data.id, label, visible });
      expect(item.status, JSON.stringify(item.json)).toBe(201);
      items[label] = item.json.data.id;
    }
    return { id, slug, items: items as Record<"Website" | "Checkout" | "Search", number>, siteIds };
  };
  const incidents = (pageId: number) => `/public/v1/status-pages/${pageId}/incidents`;
  const anon = async (slug: string) =>
    PublicStatusPage.parse(
      await (await app.request(`/public/v1/status-page/${slug}`, {}, fromAddress("203.0.113.7"))).json(),
    );
  const owned = async (pageId: number, incidentId: number) =>
    ((await api.get(incidents(pageId))).json.data.incidents as Incident[]).find((i) => i.id === incidentId);
  const rows = async () => (await store.db.selectFrom("incident_items").selectAll().execute()).length;
  const count = async () => (await store.db.selectFrom("incidents").select("id").execute()).length;

  test("named on creation: in the page's order, repeats once; the owner sees hidden items, visitors only visible ones", async () => {
    const page = await newPage();
    const { Website, Checkout, Search } = page.items;
    const res = await api.post(incidents(page.id), {
      title: "Payments failing",
      message: "Checkout and search answer errors.",
      items: [Search, Checkout, Search, Website],
    });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    const created = IncidentEnvelope.parse(res.json).data;
    // Ids alone take the status of the impact, none here: operational, which moves nothing.
    expect(created.impact).toBe("none");
    const all = [
      { id: Website, label: "Website", status: "operational" },
      { id: Checkout, label: "Checkout", status: "operational" },
      { id: Search, label: "Search", status: "operational" },
    ];
    expect(created.affected).toEqual(all);
    expect((await owned(page.id, created.id))?.affected).toEqual(all);
    const view = await anon(page.slug);
    expect(view.incidents.find((i) => i.id === created.id)?.affected).toEqual([all[0], all[2]]);
    // Without items: none.
    const plain = await api.post(incidents(page.id), { title: "Slow", message: "Slow." });
    expect(plain.json.data.affected).toEqual([]);
  });

  test("an item not on the page, or not an id, is a 400 naming items, and nothing is written", async () => {
    const page = await newPage();
    const other = await newPage();
    const [before, linksBefore] = [await count(), await rows()];
    for (const items of [
      [page.items.Website, other.items.Search],
      [2_000_000_000],
      ["1"],
      [0],
      [-3],
      [1.5],
      "1",
      null,
      Array.from({ length: MAX_INCIDENT_ITEMS + 1 }, (_, i) => i + 1),
    ]) {
      const res = await api.post(incidents(page.id), { title: "Bad", message: "Bad.", items });
      expect(res.status, `${JSON.stringify(items)}: ${JSON.stringify(res.json)}`).toBe(400);
      expect(res.json.error).toBe("validation_failed");
      expect(JSON.stringify(res.json)).toContain("items");
    }
    expect([await count(), await rows()]).toEqual([before, linksBefore]);
    // The same on a PATCH: the incident keeps what it had.
    const res = await api.post(incidents(page.id), { title: "Kept", message: "Kept.", items: [page.items.Search] });
    const id = res.json.data.id as number;
    const patch = await api.patch(`${incidents(page.id)}/${id}`, { items: [other.items.Website] });
    expect(patch.status).toBe(400);
    expect((await owned(page.id, id))?.affected.map((i) => i.label)).toEqual(["Search"]);
  });

  test("a PATCH replaces them ([] names none), a rename keeps them, and an empty PATCH is a 400", async () => {
    const page = await newPage();
    const res = await api.post(incidents(page.id), { title: "Outage", message: "Down.", items: [page.items.Website] });
    const path = `${incidents(page.id)}/${res.json.data.id}`;
    const etag = (await app.request(`/public/v1/status-page/${page.slug}`)).headers.get("etag");
    clock.advance(1000);
    const patched = await api.patch(path, { items: [page.items.Search, page.items.Website] });
    expect(patched.status, JSON.stringify(patched.json)).toBe(200);
    expect(patched.json.data.affected.map((i: { label: string }) => i.label)).toEqual(["Website", "Search"]);
    // Visitors see it at once: the page's view (and its ETag) changed.
    const after = await app.request(`/public/v1/status-page/${page.slug}`);
    expect(after.headers.get("etag")).not.toBe(etag);
    expect((await anon(page.slug)).incidents[0]?.affected.map((i) => i.label)).toEqual(["Website", "Search"]);
    const renamed = await api.patch(path, { title: "Outage of two" });
    expect(renamed.json.data).toMatchObject({ title: "Outage of two" });
    expect(renamed.json.data.affected).toHaveLength(2);
    const cleared = await api.patch(path, { items: [] });
    expect(cleared.json.data.affected).toEqual([]);
    const empty = await api.patch(path, {});
    expect(empty.status).toBe(400);
    expect(empty.json.error).toBe("validation_failed");
  });

  test("an item removed from the page leaves the incidents that named it; the incident stays", async () => {
    const page = await newPage();
    const { Website, Search } = page.items;
    const res = await api.post(incidents(page.id), { title: "Both", message: "Both.", items: [Website, Search] });
    const removed = await api.delete(`/public/v1/status-pages/${page.id}/items/${Website}`);
    expect(removed.status, JSON.stringify(removed.json)).toBe(200);
    expect((await owned(page.id, res.json.data.id))?.affected.map((i) => i.label)).toEqual(["Search"]);
    expect((await anon(page.slug)).incidents[0]?.affected.map((i) => i.label)).toEqual(["Search"]);
  });

  test("an automatic incident affects its site's items without naming them", async () => {
    const page = await newPage();
    const at = clock.now().toISOString();
    const id = await store.incidents.create(
      {
        page_id: page.id,
        title: "Search is down",
        status: "investigating",
        started_at: at,
        resolved_at: null,
        created_at: at,
        updated_at: at,
        site_id: page.siteIds.Search as string,
        source: "automatic",
        impact: "critical",
        published_at: at,
      },
      "Search is down: it answered with an error (HTTP 503).",
    );
    // Its site's items take the status its impact speaks of.
    const search = { id: page.items.Search, label: "Search", status: "major_outage" };
    expect((await owned(page.id, id))?.affected).toEqual([search]);
    // The page's view is rebuilt on its next read (the engine signals the change; here its time passes).
    clock.advance(3_600_000);
    expect((await anon(page.slug)).incidents.find((i) => i.id === id)?.affected).toEqual([search]);
  });
});
