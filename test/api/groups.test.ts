import { expect, test } from "vitest";
import { Envelope } from "../../server/contract/common.ts";
import {
  OwnerGroup,
  PublicItems,
  PublicStatusPage,
  StatusPage,
  type StatusPage as StatusPageT,
} from "../../server/contract/status-page.ts";
import type { Store } from "../../server/store/store.ts";
import { type App, client, describeStores, makeApp, seedOwner, useStore } from "../helpers.ts";

/**
 * Issue 31, item 1: component groups. An owner makes, renames, moves and removes a page's groups and moves items
 * between them; visitors see the page's order (groups and ungrouped items by position, a group's members in its
 * place), a group's status rolled up from its members, and a collapsed group opened while a member is at fault.
 */
describeStores("component groups", (kind) => {
  let store: Store;
  let app: App;

  useStore(kind, (opened) => {
    ({ store } = opened);
    ({ app } = makeApp(store));
  });

  let n = 0;
  /** A page "groups-N" with one item per label, in that order; the owner's client, the page, items by label. */
  const pageWith = async (...labels: string[]) => {
    const api = client(app, (await seedOwner(store, "stack")).token);
    const slug = `groups-${kind.name}-${++n}`;
    const page = (await api.post("/public/v1/status-pages", { name: "Acme", slug })).json.data;
    const items: Record<string, number> = {};
    const sites: Record<string, string> = {};
    for (const label of labels) {
      const site = await api.post("/public/v1/sites", {
        url: `https://${label.toLowerCase()}.example.com`,
        name: label,
      });
      sites[label] = site.json.data.id;
      const item = await api.post(`/public/v1/status-pages/${page.id}/items`, { siteId: site.json.data.id });
      expect(item.status).toBe(201);
      items[label] = item.json.data.id;
    }
    const base = `/public/v1/status-pages/${page.id}`;
    const group = async (body: Record<string, unknown>) => {
      const made = await api.post(`${base}/groups`, body);
      expect(made.status, JSON.stringify(made.json)).toBe(201);
      return Envelope(OwnerGroup).parse(made.json).data;
    };
    const move = async (label: string, body: Record<string, unknown>) => {
      const res = await api.patch(`${base}/items/${items[label]}`, body);
      expect(res.status, JSON.stringify(res.json)).toBe(200);
      return res.json.data;
    };
    const publicPage = async () => {
      const res = await app.request(`/public/v1/status-page/${slug}`);
      expect(res.status).toBe(200);
      return PublicStatusPage.parse(await res.json());
    };
    const owner = async (): Promise<StatusPageT> => Envelope(StatusPage).parse((await api.get(base)).json).data;
    /** Sets a site as the engine would, and has the page's view rebuilt (an empty patch marks it changed). */
    const setSite = async (label: string, columns: { state?: string; pause?: number }) => {
      await store.db
        .updateTable("sites")
        .set(columns)
        .where("id", "=", sites[label] as string)
        .execute();
      const first = Object.values(items)[0];
      expect((await api.patch(`${base}/items/${first}`, {})).status).toBe(200);
    };
    const setState = (label: string, state: string) => setSite(label, { state });
    return { api, page, slug, base, items, group, move, publicPage, owner, setState, setSite };
  };

  test("groups sit among ungrouped items by position; members keep their own order inside", async () => {
    const p = await pageWith("Website", "API", "Checkout", "Search");
    // Top level: Website (0), API (1), Checkout (2), Search (3); a group made without a position goes last.
    const core = await p.group({ name: "Core", description: "Money paths" });
    expect(core).toMatchObject({ name: "Core", description: "Money paths", collapsed: true, position: 4 });
    await p.move("Search", { groupId: core.id });
    await p.move("Checkout", { groupId: core.id });
    // Moved without a position, each goes last in its group.
    const shown = await p.publicPage();
    expect(shown.items.map((i) => [i.label, i.group_id ?? null])).toEqual([
      ["Website", null],
      ["API", null],
      ["Search", core.id],
      ["Checkout", core.id],
    ]);
    expect(shown.groups?.map((g) => [g.name, g.items])).toEqual([["Core", [p.items.Search, p.items.Checkout]]]);

    // The group moves to the top (position 0 ties with Website's: groups first), a member to the front.
    await p.api.patch(`${p.base}/groups/${core.id}`, { position: 0 });
    await p.move("Checkout", { position: 0 });
    expect((await p.publicPage()).items.map((i) => i.label)).toEqual(["Checkout", "Search", "Website", "API"]);

    // Out of the group with null: last at the top level.
    await p.move("Search", { groupId: null });
    const after = await p.publicPage();
    expect(after.items.map((i) => [i.label, i.group_id ?? null])).toEqual([
      ["Checkout", core.id],
      ["Website", null],
      ["API", null],
      ["Search", null],
    ]);
    // The owner's view says the same in its own words.
    const owner = await p.owner();
    expect(owner.groups.map((g) => [g.id, g.name, g.position])).toEqual([[core.id, "Core", 0]]);
    expect(owner.items.find((i) => i.id === p.items.Checkout)?.groupId).toBe(core.id);
    expect(owner.items.find((i) => i.id === p.items.Search)?.groupId).toBeNull();
  });

  test("a group rolls up its worst member and opens while one is at fault; empty and hidden groups are not shown", async () => {
    const p = await pageWith("Website", "API", "Checkout");
    const core = await p.group({ name: "Core" });
    const empty = await p.group({ name: "Nothing yet" });
    await p.move("API", { groupId: core.id });
    await p.move("Checkout", { groupId: core.id });
    await p.setState("Website", "healthy");
    await p.setState("API", "healthy");
    await p.setState("Checkout", "healthy");
    let shown = await p.publicPage();
    expect(shown.groups).toEqual([
      {
        id: core.id,
        name: "Core",
        description: "",
        status: "operational",
        collapsed: true,
        items: [p.items.API, p.items.Checkout],
      },
    ]);
    expect(shown.groups?.some((g) => g.id === empty.id)).toBe(false);

    // Checkout degraded: the group is degraded and shown open whatever its default.
    await p.setState("Checkout", "degraded");
    await p.api.patch(`${p.base}/groups/${core.id}`, { name: "Core services" });
    shown = await p.publicPage();
    expect(shown.groups?.[0]).toMatchObject({ name: "Core services", status: "degraded", collapsed: false });
    // API down too: the worst wins.
    await p.setState("API", "unhealthy");
    await p.api.patch(`${p.base}/groups/${core.id}`, { description: "Sign-in and payments" });
    shown = await p.publicPage();
    expect(shown.groups?.[0]).toMatchObject({ status: "major_outage", collapsed: false });
    // An owner's incident moves a member, and the group with it.
    await p.setState("API", "healthy");
    await p.setState("Checkout", "healthy");
    const incident = await p.api.post(`${p.base}/incidents`, {
      title: "Card payments fail",
      message: "Some cards are refused.",
      items: [{ id: p.items.Checkout, status: "partial_outage" }],
    });
    expect(incident.status).toBe(201);
    await p.api.post(`${p.base}/incidents/${incident.json.data.id}/publish`);
    shown = await p.publicPage();
    expect(shown.incidents.map((i) => i.title)).toEqual(["Card payments fail"]);
    expect(shown.groups?.[0]).toMatchObject({ status: "partial_outage", collapsed: false });

    // Hidden members do not count, and a group whose members are all hidden is not shown.
    await p.move("API", { visible: false });
    await p.move("Checkout", { visible: false });
    shown = await p.publicPage();
    expect(shown.groups).toBeUndefined();
    expect(shown.items.map((i) => i.label)).toEqual(["Website"]);
    // The items document carries the groups too.
    await p.move("API", { visible: true });
    const items = PublicItems.parse(await (await app.request(`/public/v1/status-page/${p.slug}/items`)).json());
    expect(items.groups?.map((g) => g.items)).toEqual([[p.items.API]]);
  });

  test("a group's badges: its status, its members' uptime; a group with no visible member is the one 404", async () => {
    const p = await pageWith("Website", "API", "Checkout");
    const core = await p.group({ name: "Core" });
    const empty = await p.group({ name: "Empty" });
    await p.move("API", { groupId: core.id });
    await p.move("Checkout", { groupId: core.id });
    await p.setState("Website", "healthy");
    await p.setState("API", "healthy");
    await p.setState("Checkout", "unhealthy");
    const badge = async (path: string) => {
      const res = await app.request(`/badge/${p.slug}${path}`);
      return { status: res.status, body: res.status === 200 ? await res.json() : null };
    };
    expect(await badge(`/groups/${core.id}/status.json`)).toEqual({
      status: 200,
      body: { schemaVersion: 1, label: "Core", message: "major outage", color: "red" },
    });
    const svg = await app.request(`/badge/${p.slug}/groups/${core.id}/status.svg`);
    expect(svg.status).toBe(200);
    expect(await svg.text()).toContain("major outage");
    expect((await badge(`/groups/${core.id}/uptime.json`)).body.label).toBe("uptime 30d");
    // No visible member, another page's, none by that id: the same 404 as any badge of nothing.
    const nothing = await badge("/groups/999999/status.json");
    expect(nothing.status).toBe(404);
    expect((await badge(`/groups/${empty.id}/status.json`)).status).toBe(404);
    const malformed = await app.request(`/badge/${p.slug}/groups/abc/status.json`);
    expect(malformed.status).toBe(404);
    expect((await malformed.json()).message).toBe("Badge not found");
  });

  test("a group's feeds: the incidents that affect any of its members, titled with its name", async () => {
    const p = await pageWith("Website", "API", "Checkout");
    const core = await p.group({ name: "Core" });
    await p.move("API", { groupId: core.id });
    await p.move("Checkout", { groupId: core.id });
    const incident = async (title: string, label: string) => {
      const made = await p.api.post(`${p.base}/incidents`, { title, message: "m", items: [p.items[label]] });
      expect(made.status).toBe(201);
      await p.api.post(`${p.base}/incidents/${made.json.data.id}/publish`);
    };
    await incident("Cards refused", "Checkout");
    await incident("Homepage slow", "Website");
    const rss = await app.request(`/${p.slug}/groups/${core.id}/feed.xml`);
    expect(rss.status).toBe(200);
    expect(rss.headers.get("content-type")).toBe("application/rss+xml; charset=utf-8");
    const text = await rss.text();
    expect(text).toContain("<title>Acme: Core status</title>");
    expect(text).toContain("Cards refused");
    expect(text).not.toContain("Homepage slow");
    expect(text).toContain(`href="http://status.test/${p.slug}/groups/${core.id}/feed.xml"`);
    const atom = await (await app.request(`/${p.slug}/groups/${core.id}/atom.xml`)).text();
    expect(atom).toContain(`<id>http://status.test/${p.slug}/groups/${core.id}/</id>`);
    // A group the page does not show (none, or no visible member) is the page's 404.
    const empty = await p.group({ name: "Empty" });
    expect((await app.request(`/${p.slug}/groups/${empty.id}/feed.xml`)).status).toBe(404);
    expect((await app.request(`/${p.slug}/groups/999999/atom.xml`)).status).toBe(404);
    // Only items/ and groups/ name feeds: nothing that merely begins or ends like them.
    for (const path of [
      `xgroups/${core.id}`,
      `groupsx/${core.id}`,
      `itemsfoo/${p.items.API}`,
      `xitems/${p.items.API}`,
    ]) {
      const res = await app.request(`/${p.slug}/${path}/feed.xml`);
      expect(res.status, path).toBe(404);
    }
  });

  test("a paused member counts only when all are; unknown keeps a group from claiming operational", async () => {
    const p = await pageWith("API", "Checkout");
    const core = await p.group({ name: "Core", collapsed: false });
    await p.move("API", { groupId: core.id });
    await p.move("Checkout", { groupId: core.id });
    await p.setState("API", "healthy");
    await p.setSite("Checkout", { state: "unhealthy", pause: 1 });
    // Checkout paused (its last state down, which a pause no longer tells), API fine: operational, open as chosen.
    let group = (await p.publicPage()).groups?.[0];
    expect(group).toMatchObject({ status: "operational", collapsed: false });
    await p.setState("API", "unknown");
    group = (await p.publicPage()).groups?.[0];
    expect(group?.status).toBe("unknown");
    // Every member paused: paused.
    await p.setSite("API", { pause: 1 });
    expect((await p.publicPage()).groups?.[0]?.status).toBe("paused");
  });

  test("deleting a group keeps its items on the page, in its place and their order", async () => {
    const p = await pageWith("Website", "API", "Checkout", "Search");
    const core = await p.group({ name: "Core", position: 1 });
    await p.move("Checkout", { groupId: core.id });
    await p.move("API", { groupId: core.id });
    // Website 0, Core 1 (ties with nothing: API moved in), Search 3.
    expect((await p.publicPage()).items.map((i) => i.label)).toEqual(["Website", "Checkout", "API", "Search"]);
    const removed = await p.api.delete(`${p.base}/groups/${core.id}`);
    expect(removed.status).toBe(200);
    const shown = await p.publicPage();
    expect(shown.items.map((i) => [i.label, i.group_id ?? null])).toEqual([
      ["Website", null],
      ["Checkout", null],
      ["API", null],
      ["Search", null],
    ]);
    expect(shown.groups).toBeUndefined();
    const owner = await p.owner();
    expect(owner.groups).toEqual([]);
    expect(owner.items.map((i) => i.position).sort()).toEqual([0, 1, 2, 3]);
    expect((await p.api.delete(`${p.base}/groups/${core.id}`)).status).toBe(404);
  });

  test("bad input is a clear 4xx and writes nothing", async () => {
    const p = await pageWith("Website");
    const other = await pageWith("API");
    const theirs = await other.group({ name: "Theirs" });
    await p.group({ name: "Core" });
    const add = (body: unknown) => p.api.post(`${p.base}/groups`, body);
    const taken = await add({ name: "Core" });
    expect(taken.status).toBe(409);
    expect(taken.json.details).toEqual([{ field: "name", message: expect.any(String) }]);
    for (const body of [
      {},
      { name: "" },
      { name: "x".repeat(101) },
      { name: "A", position: -1 },
      { name: "A", extra: 1 },
    ]) {
      const res = await add(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.success).toBe(false);
    }
    // An item may only join a group of its own page.
    const wrong = await p.api.patch(`${p.base}/items/${p.items.Website}`, { groupId: theirs.id });
    expect(wrong.status).toBe(400);
    expect(wrong.json.details[0].field).toBe("groupId");
    const missing = await p.api.patch(`${p.base}/items/${p.items.Website}`, { groupId: 999_999 });
    expect(missing.status).toBe(400);
    // Another workspace's group is as good as none.
    expect((await p.api.patch(`${other.base}/groups/${theirs.id}`, { name: "Mine" })).status).toBe(404);
    expect((await p.api.patch(`${p.base}/groups/${theirs.id}`, { name: "Mine" })).status).toBe(404);
    expect((await p.api.delete(`${p.base}/groups/${theirs.id}`)).status).toBe(404);
    // Renaming onto a taken name is a 409 too; nothing changed.
    const second = await p.group({ name: "Edge" });
    expect((await p.api.patch(`${p.base}/groups/${second.id}`, { name: "Core" })).status).toBe(409);
    expect((await p.owner()).groups.map((g) => g.name)).toEqual(["Core", "Edge"]);
    expect((await other.owner()).groups.map((g) => g.name)).toEqual(["Theirs"]);
    expect((await p.owner()).items[0]?.groupId).toBeNull();
  });

  test("a group deleted while items move into it: every answer a 200 or a clear 4xx, and nothing half-written", async () => {
    const p = await pageWith("A", "B", "C", "D", "E");
    for (let round = 0; round < 8; round++) {
      const group = await p.group({ name: `Round ${round}` });
      const answers = await Promise.all([
        p.api.delete(`${p.base}/groups/${group.id}`),
        ...["A", "B", "C", "D", "E"].map((label) =>
          p.api.patch(`${p.base}/items/${p.items[label]}`, { groupId: group.id }),
        ),
      ]);
      for (const answer of answers) expect([200, 400], JSON.stringify(answer.json)).toContain(answer.status);
      expect(answers[0]?.status).toBe(200);
      // The group is gone and no item points at it; the page still shows every item.
      const owner = await p.owner();
      expect(owner.groups).toEqual([]);
      expect(owner.items.every((i) => i.groupId === null)).toBe(true);
      expect((await p.publicPage()).items).toHaveLength(5);
    }
  });

  test("groups added at once never pass the limit; items added at once each go last, in distinct places", async () => {
    const p = await pageWith();
    for (let i = 0; i < 98; i++) await p.group({ name: `G${i}` });
    const made = await Promise.all(
      Array.from({ length: 6 }, (_, i) => p.api.post(`${p.base}/groups`, { name: `Late ${i}` })),
    );
    expect(made.filter((r) => r.status === 201)).toHaveLength(2);
    expect(made.filter((r) => r.status === 403).every((r) => r.json.error === "limit_reached")).toBe(true);
    expect((await p.owner()).groups).toHaveLength(100);

    const q = await pageWith();
    const sites = await Promise.all(
      ["One", "Two", "Three", "Four"].map(
        async (name) =>
          (await q.api.post("/public/v1/sites", { url: `https://${name.toLowerCase()}.example.com`, name })).json.data
            .id as string,
      ),
    );
    const added = await Promise.all(sites.map((siteId) => q.api.post(`${q.base}/items`, { siteId })));
    expect(added.map((r) => r.status)).toEqual([201, 201, 201, 201]);
    expect(new Set((await q.owner()).items.map((i) => i.position)).size).toBe(4);
  });

  test("a page has at most 100 groups", async () => {
    const p = await pageWith();
    for (let i = 0; i < 100; i++) await p.group({ name: `G${i}` });
    const more = await p.api.post(`${p.base}/groups`, { name: "One more" });
    expect(more.status).toBe(403);
    expect(more.json.error).toBe("limit_reached");
    expect((await p.owner()).groups).toHaveLength(100);
  });
});
