import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import SQLite from "better-sqlite3";
import { afterAll, expect, test } from "vitest";
import { ImportReport } from "../../server/contract/imports.ts";
import type { Store } from "../../server/store/store.ts";
import { type App, describeStores, makeApp, seedOwner, useStore } from "../helpers.ts";
import { makeKumaDb } from "../support/uptime-kuma.ts";

/**
 * Issue 31, item 3: importers. Each source is a file made in the tool's own schema; the tests import it through the
 * API (the CLI shares the code: cli.test.ts runs the command), read what was created, import it again (nothing
 * twice), and refuse a foreign or damaged file with a clear 400 and nothing written.
 */

const dir = mkdtempSync(join(tmpdir(), "porchlight-imports-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Monitors of every kind a Kuma owner has, two pages' worth of sections, incidents and maintenance. */
const KUMA_SEED = `
INSERT INTO monitor (id, name, type, url, interval, timeout, accepted_statuscodes_json, headers, maxredirects, method, body, description, created_date)
  VALUES (1, 'Website', 'http', 'https://www.acme.test/', 60, 48, '["200-299","301"]', '{"X-Probe": "kuma", "Accept": "text/html"}', 0, 'HEAD', NULL, 'The public site', '2025-01-01 00:00:00');
INSERT INTO monitor (id, name, type, url, interval, keyword, invert_keyword) VALUES (2, 'No maintenance banner', 'keyword', 'https://www.acme.test/', 120, 'Down for maintenance', 1);
INSERT INTO monitor (id, name, type, url, interval, json_path, expected_value) VALUES (3, 'API health', 'json-query', 'https://api.acme.test/health', 30, 'data.checks[0].status', 'ok');
INSERT INTO monitor (id, name, type, hostname, port, interval) VALUES (4, 'Database', 'port', 'db.acme.test', 5432, 60);
INSERT INTO monitor (id, name, type, hostname, interval, active) VALUES (5, 'Gateway', 'ping', 'gw.acme.test', 20, 0);
INSERT INTO monitor (id, name, type, hostname, dns_resolve_type, dns_resolve_server, port, interval) VALUES (6, 'Mail DNS', 'dns', 'acme.test', 'MX', '1.1.1.1', 53, 300);
INSERT INTO monitor (id, name, type, push_token, interval) VALUES (7, 'Nightly backup', 'push', 'abcdefghij', 86400);
INSERT INTO monitor (id, name, type, hostname) VALUES (8, 'Containers', 'docker', 'unix');
INSERT INTO monitor (id, name, type) VALUES (9, 'Backend', 'group');
INSERT INTO monitor (id, name, type, url, parent) VALUES (10, 'Queue', 'http', 'https://queue.acme.test/', 9);
INSERT INTO monitor (id, name, type, hostname) VALUES (11, 'Broker', 'mqtt', 'mqtt.acme.test');
INSERT INTO monitor (id, name, type, url, upside_down) VALUES (12, 'Honeypot', 'http', 'https://trap.acme.test/', 1);
INSERT INTO status_page (id, slug, title, description, icon, theme) VALUES (1, 'acme', 'Acme Status', 'How Acme is doing', '', 'light');
INSERT INTO status_page (id, slug, title, description, icon, theme, published) VALUES (2, 'internal', 'Internal', NULL, '', 'dark', 0);
INSERT INTO status_page_cname (status_page_id, domain) VALUES (1, 'Status.Acme.test');
INSERT INTO "group" (id, name, weight, status_page_id, public) VALUES (1, 'Web', 1, 1, 1), (2, 'Infrastructure', 2, 1, 1), (3, 'Everything', 1, 2, 1);
INSERT INTO monitor_group (monitor_id, group_id, weight) VALUES (1, 1, 2), (2, 1, 1), (3, 1, 3), (4, 2, 1), (8, 2, 2), (5, 2, 3), (10, 3, 1);
INSERT INTO incident (title, content, style, created_date, last_updated_date, pin, active, status_page_id)
  VALUES ('Checkout is slow', 'We are looking into slow checkouts.', 'danger', '2026-11-20 08:00:00', '2026-11-20 09:00:00', 1, 1, 1),
         ('Old outage', 'It was the DNS.', 'warning', '2026-10-01 10:00:00', '2026-10-01 11:30:00', 0, 1, 1);
INSERT INTO maintenance (id, title, description, strategy, start_date, start_time, end_time, weekdays, timezone, duration, active)
  VALUES (1, 'Patch night', 'Weekly patching', 'recurring-weekday', '2026-01-05 00:00:00', '02:00', '03:00', '[1,3]', 'Europe/Berlin', 3600, 1);
INSERT INTO maintenance (id, title, description, strategy, cron, duration, active) VALUES (2, 'Cron job', '', 'cron', '0 3 * * *', 3600, 1);
INSERT INTO maintenance (id, title, description, strategy, active) VALUES (3, 'By hand', '', 'manual', 1);
INSERT INTO maintenance (id, title, description, strategy, start_date, end_date, timezone, active)
  VALUES (4, 'Database upgrade', 'Moving to a bigger machine', 'single', '2026-12-01 02:00:00', '2026-12-01 04:00:00', 'UTC', 1);
INSERT INTO maintenance (id, title, description, strategy, start_date, start_time, end_time, days_of_month, duration, active)
  VALUES (5, 'Month end', '', 'recurring-day-of-month', '2026-01-01 00:00:00', '23:00', '01:00', '["lastDay1"]', 7200, 1);
INSERT INTO monitor_maintenance (monitor_id, maintenance_id) VALUES (1, 1), (1, 2), (1, 5), (3, 5);
INSERT INTO maintenance_status_page (status_page_id, maintenance_id) VALUES (1, 4);
`;

const sha = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");

describeStores("importers", (kind) => {
  let store: Store;
  let app: App;
  // A store per test: each imports the same slugs and domains.
  useStore(kind, { each: true }, (opened) => {
    ({ store } = opened);
    ({ app } = makeApp(store));
  });

  /** A new owner (a workspace of its own) and a way to import for them. */
  const owner = async (plan = "stack") => {
    const seeded = await seedOwner(store, plan);
    const user = await store.accounts.findUserByEmail(seeded.email);
    const workspaceId = user?.workspace_id as string;
    const send = async (source: string, body: Uint8Array | string, type: string, query = "") => {
      const res = await app.request(`/public/v1/imports/${source}${query}`, {
        method: "POST",
        headers: { authorization: `Bearer ${seeded.token}`, "content-type": type },
        body: typeof body === "string" ? body : new Uint8Array(body),
      });
      return { status: res.status, json: (await res.json()) as any };
    };
    const sites = async () => (await store.sites.list(workspaceId, 0, 500)).rows;
    const pages = async () => store.pages.list(workspaceId, 0, 100);
    return { workspaceId, send, sites, pages, token: seeded.token };
  };

  for (const version of ["1.23", "2.x"] as const) {
    test(`Uptime Kuma ${version}: monitors, pages with their sections and order, incidents and maintenance; twice creates nothing twice`, async () => {
      const file = join(dir, `kuma-${version}-${kind.name}.db`);
      makeKumaDb(file, version, KUMA_SEED);
      const before = { hash: sha(file), mtime: statSync(file).mtimeMs };
      const me = await owner();
      const bytes = readFileSync(file);

      const preview = await me.send("uptime-kuma", bytes, "application/octet-stream", "?dryRun=true");
      expect(preview.status).toBe(200);
      const previewed = ImportReport.parse(preview.json.data);
      expect(previewed.dryRun).toBe(true);
      expect(previewed.detected).toBe(`Uptime Kuma ${version}`);
      expect(await me.sites()).toEqual([]);
      expect(await me.pages()).toEqual([]);

      const res = await me.send("uptime-kuma", bytes, "application/octet-stream");
      expect(res.status).toBe(200);
      const report = ImportReport.parse(res.json.data);
      // The preview said exactly what the import did, but for the ids.
      expect(report.created.map((c) => [c.kind, c.name])).toEqual(previewed.created.map((c) => [c.kind, c.name]));
      const created = (k: string) => report.created.filter((c) => c.kind === k).map((c) => c.name);
      const skipped = (k: string) => report.skipped.filter((c) => c.kind === k).map((c) => `${c.name}: ${c.reason}`);
      expect(created("site").sort()).toEqual(
        [
          "API health",
          "Database",
          "Gateway",
          "Mail DNS",
          "Nightly backup",
          "No maintenance banner",
          "Queue",
          "Website",
        ].sort(),
      );
      expect(skipped("site")).toEqual([
        "Containers: type docker is not one Porchlight checks",
        "Broker: type mqtt is not one Porchlight checks",
        "Honeypot: upside-down mode (up when unreachable) has no equivalent",
      ]);
      expect(report.created.find((c) => c.name === "Nightly backup")?.pushUrl).toMatch(
        /^http:\/\/status\.test\/public\/v1\/push\/[\w-]{32}$/,
      );

      const sites = new Map((await me.sites()).map((s) => [s.name, s]));
      const website = sites.get("Website");
      expect(website).toMatchObject({
        url: "https://www.acme.test/",
        method: "HEAD",
        check_interval: 60,
        timeout: 48,
        notes: "The public site",
      });
      expect(JSON.parse(website?.headers ?? "")).toEqual([
        { name: "X-Probe", value: "kuma" },
        { name: "Accept", value: "text/html" },
      ]);
      const codes = JSON.parse(website?.success_codes ?? "[]") as number[];
      expect(codes).toHaveLength(101);
      expect(codes.at(-1)).toBe(301);
      expect(JSON.parse(website?.settings ?? "{}").request.followRedirects).toBe(false);
      expect(JSON.parse(sites.get("No maintenance banner")?.settings ?? "{}").assertions.keyword).toEqual({
        text: "Down for maintenance",
        absent: true,
        caseSensitive: true,
      });
      expect(JSON.parse(sites.get("API health")?.settings ?? "{}").assertions.json).toEqual({
        path: "$.data.checks[0].status",
        equals: "ok",
      });
      expect(sites.get("Database")?.url).toBe("tcp://db.acme.test:5432");
      // Kuma's 20 s interval is below Porchlight's floor: 30 s, said in the report. A paused monitor stays paused.
      expect(sites.get("Gateway")).toMatchObject({ url: "icmp://gw.acme.test", check_interval: 30, pause: 1 });
      expect(report.created.find((c) => c.name === "Gateway")?.notes).toContain(
        "interval 20 s is outside 30 to 86400 s: 30 s",
      );
      expect(sites.get("Mail DNS")?.url).toBe("dns://acme.test");
      expect(JSON.parse(sites.get("Mail DNS")?.settings ?? "{}").dns).toMatchObject({
        recordType: "MX",
        resolver: "1.1.1.1",
      });
      expect(sites.get("Nightly backup")).toMatchObject({ url: "push://", check_interval: 86_400 });
      expect(sites.get("Queue")?.parent_group).toBe("Backend");

      // Pages: the sections as groups in their weight order, members in theirs; the custom domain; unpublished is private.
      const pages = (await me.pages()).sort((a, b) => a.id - b.id);
      expect(pages.map((p) => [p.slug, p.name, p.visibility, p.custom_domain])).toEqual([
        ["acme", "Acme Status", "public", "status.acme.test"],
        ["internal", "Internal", "private", null],
      ]);
      const acme = pages[0] as (typeof pages)[number];
      const { groups, items } = await store.pages.contents([acme.id]);
      expect(groups.map((g) => [g.name, g.position, g.collapsed])).toEqual([
        ["Web", 0, 0],
        ["Infrastructure", 1, 0],
      ]);
      const siteName = new Map([...sites.values()].map((s) => [s.id, s.name]));
      const membersOf = (groupId: number) =>
        items
          .filter((i) => i.group_id === groupId)
          .sort((a, b) => a.position - b.position)
          .map((i) => siteName.get(i.site_id));
      expect(membersOf(groups[0]?.id as number)).toEqual(["No maintenance banner", "Website", "API health"]);
      expect(membersOf(groups[1]?.id as number)).toEqual(["Database", "Gateway"]);
      expect(skipped("item")).toEqual(["Acme Status: Containers: its monitor is not imported"]);

      const incidents = await store.incidents.list(acme.id, 50);
      expect(incidents.map((i) => [i.title, i.status, i.impact, i.startedAt, i.resolvedAt])).toEqual([
        ["Checkout is slow", "investigating", "major", "2026-11-20T08:00:00.000Z", null],
        ["Old outage", "resolved", "minor", "2026-10-01T10:00:00.000Z", "2026-10-01T11:30:00.000Z"],
      ]);
      expect(incidents[0]?.updates[0]?.message).toBe("We are looking into slow checkouts.");

      const windows = new Map((await store.maintenance.list(me.workspaceId)).map((w) => [w.title, w]));
      expect(windows.get("Patch night")).toMatchObject({
        start: "2026-01-05T02:00",
        time_zone: "Europe/Berlin",
        duration_minutes: 60,
        recurrence: "FREQ=WEEKLY;BYDAY=MO,WE",
        sites: [website?.id],
      });
      expect(windows.get("Month end")).toMatchObject({
        recurrence: "FREQ=MONTHLY;BYMONTHDAY=-1",
        duration_minutes: 120,
      });
      // A maintenance on a page covers the monitors shown on it.
      expect(
        windows
          .get("Database upgrade")
          ?.sites.map((id) => siteName.get(id))
          .sort(),
      ).toEqual(["API health", "Database", "Gateway", "No maintenance banner", "Website"].sort());
      expect(skipped("maintenance")).toEqual([
        "Cron job: a cron schedule is not converted: enter it as a repeating window",
        "By hand: manual maintenance has no schedule: start one from Porchlight when needed",
      ]);

      // Never writes to the source.
      expect(sha(file)).toBe(before.hash);
      expect(statSync(file).mtimeMs).toBe(before.mtime);

      // Twice: nothing twice, each said to be imported before.
      const again = ImportReport.parse((await me.send("uptime-kuma", bytes, "application/octet-stream")).json.data);
      expect(again.created).toEqual([]);
      expect(again.skipped.filter((s) => s.reason.startsWith("imported before")).length).toBe(8 + 2 + 3);
      expect((await me.sites()).length).toBe(8);
      expect((await me.pages()).length).toBe(2);
      expect((await store.maintenance.list(me.workspaceId)).length).toBe(3);
    });
  }

  test("Uptime Kuma 2.x: a JSON query with another operator than == is skipped, named", async () => {
    const file = join(dir, `kuma-ops-${kind.name}.db`);
    makeKumaDb(
      file,
      "2.x",
      `INSERT INTO monitor (id, name, type, url, json_path, json_path_operator, expected_value) VALUES (1, 'Queue depth', 'json-query', 'https://q.test/', 'depth', '<', '100');
       INSERT INTO monitor (id, name, type, url, json_path, json_path_operator, expected_value) VALUES (2, 'Count', 'json-query', 'https://q.test/', '$count(items)', '==', '3');`,
    );
    const me = await owner();
    const report = ImportReport.parse(
      (await me.send("uptime-kuma", readFileSync(file), "application/octet-stream")).json.data,
    );
    expect(report.created).toEqual([]);
    expect(report.skipped).toEqual([
      { kind: "site", name: "Queue depth", reason: "the JSON query operator < is not supported (only ==)" },
      { kind: "site", name: "Count", reason: "the JSON query $count(items) is an expression, not a path" },
    ]);
  });

  test("a foreign or damaged file is refused with a clear 400, and nothing is written", async () => {
    const me = await owner();
    const notSqlite = await me.send(
      "uptime-kuma",
      new TextEncoder().encode("hello, this is not a database".repeat(40)),
      "application/octet-stream",
    );
    expect(notSqlite.status).toBe(400);
    expect(notSqlite.json.message).toMatch(/Nothing was imported: This file is not a SQLite database/);

    const foreign = join(dir, `foreign-${kind.name}.db`);
    const db = new SQLite(foreign);
    db.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT); INSERT INTO notes (text) VALUES ('hi');");
    db.close();
    const other = await me.send("uptime-kuma", readFileSync(foreign), "application/octet-stream");
    expect(other.status).toBe(400);
    expect(other.json.message).toMatch(/SQLite database but not Uptime Kuma's: it has no "monitor", "status_page"/);

    // A real Kuma database cut short: damaged.
    const whole = join(dir, `whole-${kind.name}.db`);
    makeKumaDb(whole, "1.23", KUMA_SEED);
    const cut = readFileSync(whole).subarray(0, 8192);
    const damaged = await me.send("uptime-kuma", cut, "application/octet-stream");
    expect(damaged.status).toBe(400);
    expect(damaged.json.message).toMatch(/^Nothing was imported: /);

    const yaml = await me.send("gatus", "endpoints: [unclosed", "application/yaml");
    expect(yaml.status).toBe(400);
    expect(yaml.json.message).toMatch(/^Nothing was imported: This is not YAML/);
    const notGatus = await me.send("gatus", "title: hello\nitems: [1, 2]\n", "application/yaml");
    expect(notGatus.json.message).toBe("Nothing was imported: This is not a Gatus configuration: it has no endpoints.");
    const notStatuspage = await me.send("statuspage", JSON.stringify({ page: { id: "x" } }), "application/json");
    expect(notStatuspage.status).toBe(400);
    expect(notStatuspage.json.message).toMatch(/^Nothing was imported: This is not Statuspage's summary.json: /);
    const wrongType = await me.send("uptime-kuma", "x", "application/json");
    expect(wrongType.status).toBe(415);

    expect(await me.sites()).toEqual([]);
    expect(await me.pages()).toEqual([]);
  });

  test("what a file holds oddly is skipped or refused with a 400, never a 500: names twice, odd dates and lists", async () => {
    const me = await owner();
    // Two Gatus endpoints with the same group and name: refused as a whole, nothing written.
    const twice = [
      "endpoints:",
      "  - {name: api, group: core, url: 'https://api.acme.test/', conditions: ['[STATUS] == 200']}",
      "  - {name: api, group: core, url: 'https://api2.acme.test/', conditions: ['[STATUS] == 200']}",
    ].join("\n");
    const refusedTwice = await me.send("gatus", twice, "application/yaml");
    expect(refusedTwice.status, JSON.stringify(refusedTwice.json)).toBe(400);
    expect(refusedTwice.json.message).toBe(
      "Nothing was imported: the file names one object twice (the same id or name).",
    );
    expect(await me.sites()).toEqual([]);

    // Kuma: a single window with a date and no time, weekdays that are not a list, a Sunday-only window (Sunday is 0
    // in Kuma), and status codes that are not a list.
    const file = join(dir, `odd-${kind.name}.db`);
    makeKumaDb(
      file,
      "2.x",
      `
INSERT INTO monitor (id, name, type, url, interval, accepted_statuscodes_json) VALUES (1, 'Website', 'http', 'https://www.acme.test/', 60, '{"a": 1}');
INSERT INTO monitor (id, name, type, url, interval) VALUES (2, 'Shop', 'http', 'https://shop.acme.test/', 60);
INSERT INTO maintenance (id, title, description, strategy, start_date, end_date, timezone, active)
  VALUES (1, 'Date only', '', 'single', '2099-07-01', '2099-07-02', 'UTC', 1);
INSERT INTO maintenance (id, title, description, strategy, start_date, start_time, end_time, weekdays, timezone, duration, active)
  VALUES (2, 'Odd weekdays', '', 'recurring-weekday', '2026-01-05 00:00:00', '02:00', '03:00', '{"x": 1}', 'UTC', 3600, 1),
         (3, 'Sunday backup', '', 'recurring-weekday', '2026-01-04 00:00:00', '02:00', '03:00', '[0]', 'UTC', 3600, 1);
INSERT INTO monitor_maintenance (monitor_id, maintenance_id) VALUES (2, 1), (2, 2), (2, 3);
`,
    );
    const res = await me.send("uptime-kuma", readFileSync(file), "application/octet-stream");
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    const report = ImportReport.parse(res.json.data);
    const skipped = Object.fromEntries(report.skipped.map((s) => [s.name, s.reason]));
    expect(skipped.Website).toMatch(/status codes/);
    expect(skipped["Date only"]).toBe("it has no valid start and end");
    expect(skipped["Odd weekdays"]).toBe("no weekday is chosen");
    const sunday = report.created.find((c) => c.name === "Sunday backup");
    expect(sunday?.kind).toBe("maintenance");
    const windows = await store.maintenance.list(me.workspaceId);
    expect(JSON.stringify(windows)).toContain("BYDAY=SU");
  });

  test("Statuspage v2 JSON: groups, components, incident history and upcoming maintenance", async () => {
    const page = {
      id: "y2j98763l5sh",
      name: "Acme Cloud",
      url: "https://status.acme.test",
      time_zone: "Etc/UTC",
      updated_at: "2026-11-21T11:00:00.000Z",
    };
    const component = (id: string, name: string, position: number, extra: object = {}) => ({
      id,
      name,
      status: "operational",
      created_at: "2025-01-01T00:00:00.000Z",
      updated_at: "2026-11-01T00:00:00.000Z",
      position,
      description: null,
      showcase: true,
      start_date: null,
      group_id: null,
      page_id: page.id,
      group: false,
      only_show_if_degraded: false,
      ...extra,
    });
    const summary = {
      page,
      components: [
        component("g1", "Core", 2, { group: true, components: ["c2", "c1"], description: "What everything needs" }),
        component("c1", "API", 2, { group_id: "g1" }),
        component("c2", "Web app", 1, { group_id: "g1" }),
        component("c3", "Billing", 1),
      ],
      incidents: [],
      scheduled_maintenances: [],
      status: { indicator: "none", description: "All Systems Operational" },
    };
    const update = (status: string, body: string, at: string, affected: object[] = []) => ({
      id: `u-${at}`,
      status,
      body,
      incident_id: "i1",
      created_at: at,
      updated_at: at,
      display_at: at,
      affected_components: affected,
    });
    const incidents = {
      page,
      incidents: [
        {
          id: "i1",
          name: "API errors",
          status: "resolved",
          impact: "major",
          shortlink: "https://stspg.io/x",
          created_at: "2026-11-10T10:00:00.000Z",
          started_at: "2026-11-10T10:00:00.000Z",
          resolved_at: "2026-11-10T11:00:00.000Z",
          monitoring_at: null,
          updated_at: "2026-11-10T11:00:00.000Z",
          page_id: page.id,
          incident_updates: [
            update("resolved", "Fixed.", "2026-11-10T11:00:00.000Z"),
            update("investigating", "Errors on the API.", "2026-11-10T10:00:00.000Z", [
              { code: "c1", name: "API", old_status: "operational", new_status: "major_outage" },
            ]),
          ],
          components: [component("c1", "API", 2, { group_id: "g1" })],
        },
      ],
    };
    const maintenances = {
      page,
      scheduled_maintenances: [
        {
          id: "m1",
          name: "Billing migration",
          status: "scheduled",
          impact: "maintenance",
          created_at: "2026-11-15T00:00:00.000Z",
          scheduled_for: "2026-12-02T01:00:00.000Z",
          scheduled_until: "2026-12-02T03:00:00.000Z",
          incident_updates: [update("scheduled", "We move billing.", "2026-11-15T00:00:00.000Z")],
          components: [component("c3", "Billing", 1)],
        },
        {
          id: "m0",
          name: "Done long ago",
          status: "completed",
          impact: "maintenance",
          created_at: "2026-01-01T00:00:00.000Z",
          scheduled_for: "2026-01-02T01:00:00.000Z",
          scheduled_until: "2026-01-02T02:00:00.000Z",
          incident_updates: [],
          components: [],
        },
      ],
    };
    const me = await owner();
    const body = JSON.stringify({ summary, incidents, scheduledMaintenances: maintenances });
    const res = await me.send("statuspage", body, "application/json", "?slug=acme-cloud");
    expect(res.status).toBe(200);
    const report = ImportReport.parse(res.json.data);
    const unbound = ["no address to check yet: give it one (the site is paused until then)"];
    expect(report.created.filter((c) => c.kind === "site").map((c) => [c.name, c.notes])).toEqual([
      ["Web app", unbound],
      ["Billing", unbound],
      ["API", unbound],
    ]);
    expect(report.skipped).toEqual([{ kind: "maintenance", name: "Done long ago", reason: "it is over" }]);
    const [p] = await me.pages();
    expect(p).toMatchObject({ slug: "acme-cloud", name: "Acme Cloud" });
    const { groups, items } = await store.pages.contents([p?.id as number]);
    expect(groups.map((g) => [g.name, g.description, g.collapsed, g.position])).toEqual([
      ["Core", "What everything needs", 1, 1],
    ]);
    const sites = new Map((await me.sites()).map((s) => [s.id, s]));
    expect([...sites.values()].every((s) => s.pause === 1 && s.url === "push://")).toBe(true);
    expect(items.filter((i) => i.group_id === null).map((i) => [i.label, i.position])).toEqual([["Billing", 0]]);
    expect(
      items
        .filter((i) => i.group_id === groups[0]?.id)
        .sort((a, b) => a.position - b.position)
        .map((i) => i.label),
    ).toEqual(["Web app", "API"]);
    const [incident] = await store.incidents.list(p?.id as number, 10);
    expect(incident).toMatchObject({
      title: "API errors",
      status: "resolved",
      impact: "major",
      resolvedAt: "2026-11-10T11:00:00.000Z",
    });
    expect(incident?.updates.map((u) => [u.status, u.message])).toEqual([
      ["resolved", "Fixed."],
      ["investigating", "Errors on the API."],
    ]);
    expect([...(incident?.named.values() ?? [])]).toEqual(["major_outage"]);
    const [window] = await store.maintenance.list(me.workspaceId);
    expect(window).toMatchObject({
      title: "Billing migration",
      start: "2026-12-02T01:00",
      duration_minutes: 120,
      recurrence: null,
    });

    const again = ImportReport.parse(
      (await me.send("statuspage", body, "application/json", "?slug=acme-cloud")).json.data,
    );
    expect(again.created).toEqual([]);
    expect((await me.sites()).length).toBe(3);
  });

  test("Gatus YAML: endpoints with groups and the conditions that map; the others listed as skipped", async () => {
    const yaml = `
ui:
  title: Acme Platform
endpoints:
  - name: frontend
    group: core
    url: "https://www.acme.test/health"
    interval: 2m
    client:
      timeout: 5s
    headers:
      Authorization: "Bearer $TOKEN"
    conditions:
      - "[STATUS] == 200"
      - "[BODY].status == UP"
      - "[RESPONSE_TIME] < 800"
      - "[CERTIFICATE_EXPIRATION] > 48h"
  - name: postgres
    group: core
    url: "tcp://db.acme.test:5432"
    conditions: ["[CONNECTED] == true"]
  - name: docs
    url: "https://docs.acme.test/"
    interval: 10s
    conditions:
      - "[STATUS] < 400"
      - "[BODY] == pat(*Welcome*)"
  - name: resolver
    group: network
    url: "8.8.8.8"
    dns:
      query-name: "acme.test."
      query-type: "AAAA"
    conditions: ["[DNS_RCODE] == NOERROR"]
  - name: ssh
    group: network
    url: "ssh://bastion.acme.test:22"
    conditions: ["[CONNECTED] == true"]
external-endpoints:
  - name: backup
    group: jobs
    token: "secret"
    heartbeat:
      interval: 1h
`;
    const me = await owner();
    const res = await me.send("gatus", yaml, "application/yaml");
    expect(res.status).toBe(200);
    const report = ImportReport.parse(res.json.data);
    expect(report.skipped).toEqual([
      {
        kind: "condition",
        name: "core/frontend: [CERTIFICATE_EXPIRATION] > 48h",
        reason: "Porchlight warns of certificate expiry by its own rule",
      },
      { kind: "site", name: "network/ssh", reason: "ssh:// endpoints are not checked by Porchlight" },
    ]);
    const sites = new Map((await me.sites()).map((s) => [s.name, s]));
    expect(sites.get("frontend")).toMatchObject({
      url: "https://www.acme.test/health",
      check_interval: 120,
      timeout: 5,
      slow_threshold_ms: 800,
    });
    expect(JSON.parse(sites.get("frontend")?.success_codes ?? "")).toEqual([200]);
    expect(JSON.parse(sites.get("frontend")?.headers ?? "")).toEqual([
      { name: "Authorization", value: "Bearer $TOKEN" },
    ]);
    expect(JSON.parse(sites.get("frontend")?.settings ?? "").assertions.json).toEqual({
      path: "$.status",
      equals: "UP",
    });
    expect(sites.get("postgres")?.url).toBe("tcp://db.acme.test:5432");
    expect(sites.get("docs")?.check_interval).toBe(30);
    expect(JSON.parse(sites.get("docs")?.settings ?? "").assertions.keyword).toEqual({
      text: "Welcome",
      absent: false,
      caseSensitive: true,
    });
    expect(JSON.parse(sites.get("docs")?.success_codes ?? "").length).toBe(300);
    expect(sites.get("resolver")?.url).toBe("dns://acme.test");
    expect(JSON.parse(sites.get("resolver")?.settings ?? "").dns).toMatchObject({
      recordType: "AAAA",
      resolver: "8.8.8.8",
    });
    expect(sites.get("backup")).toMatchObject({ url: "push://", check_interval: 3600 });
    const [page] = await me.pages();
    expect(page).toMatchObject({ name: "Acme Platform", slug: "acme-platform" });
    const { groups, items } = await store.pages.contents([page?.id as number]);
    expect(groups.map((g) => [g.name, g.position])).toEqual([
      ["core", 0],
      ["network", 2],
      ["jobs", 3],
    ]);
    expect(items.filter((i) => i.group_id === null).map((i) => [i.label, i.position])).toEqual([["docs", 1]]);
    const again = ImportReport.parse((await me.send("gatus", yaml, "application/yaml")).json.data);
    expect(again.created).toEqual([]);
  });

  test("Gatus YAML without ui: the page is named as Gatus's dashboard is (Health Status), at its own address", async () => {
    const me = await owner();
    const yaml = "endpoints:\n  - name: api\n    url: https://api.example.com/health\n";
    const report = ImportReport.parse((await me.send("gatus", yaml, "application/yaml")).json.data);
    const page = report.created.find((c) => c.kind === "page");
    expect(page?.name).toBe("Health Status");
    // Not "Status" at /status (the landing page's address), renamed to status-2 with a note about it.
    expect(page?.notes.some((n) => n.includes("taken or reserved"))).toBe(false);
    expect((await me.pages()).map((p) => p.slug)).toEqual(["health-status"]);
    const headed = `ui:\n  title: Acme | Gatus\n  header: Acme Platform\n${yaml.replace("api", "web")}`;
    const second = ImportReport.parse((await me.send("gatus", headed, "application/yaml")).json.data);
    expect(second.created.find((c) => c.kind === "page")?.name).toBe("Acme Platform");
  });

  test("an import respects the plan: pages beyond it are skipped, named, and the rest is imported", async () => {
    const file = join(dir, `kuma-plan-${kind.name}.db`);
    makeKumaDb(file, "1.23", KUMA_SEED);
    const me = await owner("free");
    const report = ImportReport.parse(
      (await me.send("uptime-kuma", readFileSync(file), "application/octet-stream")).json.data,
    );
    expect(report.created.filter((c) => c.kind === "page").map((c) => c.name)).toEqual(["Acme Status"]);
    expect(report.skipped.filter((s) => s.kind === "page")).toEqual([
      { kind: "page", name: "Internal", reason: "the free plan allows 1 status page" },
    ]);
    // A slug taken by another workspace's page: the next free one, said in the report.
    const other = await owner();
    const second = ImportReport.parse(
      (await other.send("uptime-kuma", readFileSync(file), "application/octet-stream")).json.data,
    );
    const acme = second.created.find((c) => c.kind === "page" && c.name === "Acme Status");
    expect(acme?.notes).toEqual([
      "/acme-2",
      "the slug acme is taken or reserved: acme-2",
      "the custom domain status.acme.test belongs to another page: left out",
    ]);
  });
});
