import { expect, test } from "vitest";
import { Envelope } from "../../server/contract/common.ts";
import { CLOCK_SKEW_SECONDS, Incident, PublicIncidents, PublicStatusPage } from "../../server/contract/status-page.ts";
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

/** Issue 17: incidents and updates entered after the fact carry the times they happened, not the time typed. */
describeStores("incident times given after the fact", (kind) => {
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
  const newPage = async () => {
    const slug = `times-${kind.name}-${++n}`;
    const res = await api.post("/public/v1/status-pages", { name: `Times ${n}`, slug });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    return { id: res.json.data.id as number, slug };
  };
  const incidentsPath = (pageId: number) => `/public/v1/status-pages/${pageId}/incidents`;
  const updatesPath = (pageId: number, incidentId: number) => `${incidentsPath(pageId)}/${incidentId}/updates`;
  const createIncident = async (pageId: number, body: Record<string, unknown>) => {
    const res = await api.post(incidentsPath(pageId), { title: "Outage", message: "Recorded afterwards", ...body });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    return IncidentEnvelope.parse(res.json).data;
  };
  const postUpdate = (pageId: number, incidentId: number, body: Record<string, unknown>) =>
    api.post(updatesPath(pageId, incidentId), { message: "An update", ...body });
  /** The incident as its owner reads it back, and every stored update row: what a refusal must leave unchanged. */
  const readBack = async (pageId: number, incidentId: number) => {
    const list = (await api.get(incidentsPath(pageId))).json.data.incidents as Incident[];
    const rows = await store.db
      .selectFrom("incident_updates")
      .selectAll()
      .where("incident_id", "=", incidentId)
      .orderBy("id")
      .execute();
    const page = (await api.get(`/public/v1/status-pages/${pageId}`)).json.data;
    // What visitors also read: the owner's fields (publication, update ids) are checked in incident-edits.test.ts.
    const incident = list.find((i) => i.id === incidentId);
    return { incident: incident && Incident.parse(incident), rows, pageUpdatedAt: page.updatedAt };
  };
  const anon = (path: string) => app.request(path, {}, fromAddress("203.0.113.9"));
  const iso = (text: string) => new Date(text).toISOString();

  test("a retrospective incident keeps its own times: first update at startedAt, updates at `at`, resolved_at and duration from them, in the owner's list and the public view", async () => {
    const page = await newPage();
    const posted = clock.now().toISOString();
    const incident = await createIncident(page.id, { startedAt: "2026-10-31T10:00:00Z" });
    expect(incident).toMatchObject({
      status: "investigating",
      started_at: "2026-10-31T10:00:00.000Z",
      resolved_at: null,
      duration_minutes: null,
      updates: [{ timestamp: "2026-10-31T10:00:00.000Z", status: "investigating", message: "Recorded afterwards" }],
    });

    for (const [status, at] of [
      ["identified", "2026-10-31T10:20:00Z"],
      ["monitoring", "2026-10-31T11:05:30.250Z"],
    ] as const) {
      const res = await postUpdate(page.id, incident.id, { status, at, message: `Now ${status}` });
      expect(res.status, JSON.stringify(res.json)).toBe(201);
      expect(res.json.data).toMatchObject({ status, resolved_at: null, duration_minutes: null });
    }
    const resolved = await postUpdate(page.id, incident.id, {
      status: "resolved",
      at: "2026-10-31T11:30:00Z",
      message: "Fixed.",
    });
    expect(resolved.status, JSON.stringify(resolved.json)).toBe(201);
    const expected = {
      id: incident.id,
      title: "Outage",
      status: "resolved",
      started_at: "2026-10-31T10:00:00.000Z",
      resolved_at: "2026-10-31T11:30:00.000Z",
      duration_minutes: 90,
      impact: "none",
      affected: [],
      updates: [
        { timestamp: "2026-10-31T11:30:00.000Z", status: "resolved", message: "Fixed." },
        { timestamp: "2026-10-31T11:05:30.250Z", status: "monitoring", message: "Now monitoring" },
        { timestamp: "2026-10-31T10:20:00.000Z", status: "identified", message: "Now identified" },
        { timestamp: "2026-10-31T10:00:00.000Z", status: "investigating", message: "Recorded afterwards" },
      ],
    };
    expect(IncidentEnvelope.parse(resolved.json).data).toEqual(expected);

    const back = await readBack(page.id, incident.id);
    expect(back.incident).toEqual(expected);
    // The page changed now (its views rebuild), whatever time the updates carry.
    expect(back.pageUpdatedAt).toBe(posted);

    const view = PublicStatusPage.parse(await (await anon(`/public/v1/status-page/${page.slug}`)).json());
    expect(view.incidents).toEqual([expected]);
    const incidents = PublicIncidents.parse(await (await anon(`/public/v1/status-page/${page.slug}/incidents`)).json());
    expect(incidents.incidents).toEqual([expected]);
  });

  test("an incident recorded resolved stamps its one update with resolvedAt; one recorded open, with startedAt", async () => {
    const page = await newPage();
    const done = await createIncident(page.id, {
      status: "resolved",
      startedAt: "2026-10-31T10:00:00Z",
      resolvedAt: "2026-10-31T11:30:00Z",
    });
    expect(done).toMatchObject({
      started_at: "2026-10-31T10:00:00.000Z",
      resolved_at: "2026-10-31T11:30:00.000Z",
      duration_minutes: 90,
      updates: [{ timestamp: "2026-10-31T11:30:00.000Z", status: "resolved" }],
    });
    // Without resolvedAt it resolved now; without startedAt it started now.
    const now = clock.now().toISOString();
    const resolvedNow = await createIncident(page.id, { status: "resolved", startedAt: "2026-11-21T11:00:00Z" });
    expect(resolvedNow).toMatchObject({ resolved_at: now, duration_minutes: 60, updates: [{ timestamp: now }] });
    const openNow = await createIncident(page.id, {});
    expect(openNow).toMatchObject({ started_at: now, updates: [{ timestamp: now }] });
  });

  test("without `at` an update is stamped now and resolves now; equal times are allowed and keep the order of entry", async () => {
    const page = await newPage();
    const incident = await createIncident(page.id, { startedAt: "2026-11-21T09:00:00Z" });
    const same = "2026-11-21T09:15:00.000Z";
    expect((await postUpdate(page.id, incident.id, { status: "identified", at: same, message: "A" })).status).toBe(201);
    expect((await postUpdate(page.id, incident.id, { status: "monitoring", at: same, message: "B" })).status).toBe(201);
    clock.advance(90_000);
    const now = clock.now().toISOString();
    const res = await postUpdate(page.id, incident.id, { status: "resolved", message: "C" });
    expect(res.status).toBe(201);
    expect(IncidentEnvelope.parse(res.json).data).toMatchObject({
      status: "resolved",
      resolved_at: now,
      duration_minutes: Math.floor((Date.parse(now) - Date.parse("2026-11-21T09:00:00Z")) / 60_000),
      updates: [
        { timestamp: now, message: "C" },
        { timestamp: same, message: "B" },
        { timestamp: same, message: "A" },
        { timestamp: "2026-11-21T09:00:00.000Z", message: "Recorded afterwards" },
      ],
    });
    // An update equal to the start is allowed on a fresh incident too (its first update is at the start).
    const fresh = await createIncident(page.id, { startedAt: "2026-11-21T08:00:00Z" });
    expect((await postUpdate(page.id, fresh.id, { status: "identified", at: "2026-11-21T08:00:00Z" })).status).toBe(
      201,
    );
  });

  test("a resolving update on a resolved incident keeps its resolved_at; reopening clears it and a later `at` resolves again", async () => {
    const page = await newPage();
    const incident = await createIncident(page.id, { startedAt: "2026-10-31T10:00:00Z" });
    await postUpdate(page.id, incident.id, { status: "resolved", at: "2026-10-31T11:30:00Z" });
    const note = await postUpdate(page.id, incident.id, { status: "resolved", at: "2026-10-31T12:00:00Z" });
    expect(note.json.data).toMatchObject({ resolved_at: "2026-10-31T11:30:00.000Z", duration_minutes: 90 });
    const reopened = await postUpdate(page.id, incident.id, { status: "investigating", at: "2026-10-31T13:00:00Z" });
    expect(reopened.json.data).toMatchObject({ status: "investigating", resolved_at: null, duration_minutes: null });
    const again = await postUpdate(page.id, incident.id, { status: "resolved", at: "2026-10-31T14:00:00Z" });
    expect(again.json.data).toMatchObject({ resolved_at: "2026-10-31T14:00:00.000Z", duration_minutes: 240 });
  });

  test(`a time up to ${CLOCK_SKEW_SECONDS} s ahead of the server's clock is taken as now; more is refused`, async () => {
    const page = await newPage();
    const now = clock.now();
    const ahead = (seconds: number) => new Date(now.getTime() + seconds * 1000).toISOString();
    const incident = await createIncident(page.id, { startedAt: ahead(CLOCK_SKEW_SECONDS) });
    expect(incident.started_at).toBe(now.toISOString());
    const res = await postUpdate(page.id, incident.id, { status: "resolved", at: ahead(CLOCK_SKEW_SECONDS) });
    expect(res.status).toBe(201);
    expect(res.json.data).toMatchObject({
      resolved_at: now.toISOString(),
      updates: [
        { timestamp: now.toISOString(), status: "resolved" },
        { timestamp: now.toISOString(), status: "investigating" },
      ],
    });
    // The next update, posted now without `at`, is not before it.
    expect((await postUpdate(page.id, incident.id, { status: "investigating" })).status).toBe(201);

    for (const field of ["startedAt", "resolvedAt"]) {
      const body = { title: "t", message: "m", status: "resolved", [field]: ahead(CLOCK_SKEW_SECONDS + 0.001) };
      const refused = await api.post(incidentsPath(page.id), body);
      expect(refused.status, field).toBe(400);
      expect(refused.json.details).toEqual([{ field, message: expect.stringContaining("not in the future") }]);
    }
  });

  test("each refusal of `at` is a 400 naming the field and writes nothing", async () => {
    const page = await newPage();
    const incident = await createIncident(page.id, { startedAt: "2026-10-31T10:00:00Z" });
    expect((await postUpdate(page.id, incident.id, { status: "identified", at: "2026-10-31T10:30:00Z" })).status).toBe(
      201,
    );
    const before = await readBack(page.id, incident.id);
    clock.advance(60_000);
    const now = clock.now().getTime();
    const cases: [string, unknown, RegExp][] = [
      ["in the future", new Date(now + (CLOCK_SKEW_SECONDS + 1) * 1000).toISOString(), /not in the future/],
      ["year 9999", "9999-12-31T23:59:59.999Z", /not in the future/],
      ["before the start", "2026-10-31T09:59:59.999Z", /before the incident started \(2026-10-31T10:00:00.000Z\)/],
      ["year 0000", "0000-01-01T00:00:00Z", /before the incident started/],
      ["before the latest update", "2026-10-31T10:29:59Z", /before the incident's latest update \(2026-10-31T10:30:00/],
      ["a local time", "2026-10-31T10:45:00", /./],
      ["an offset", "2026-10-31T10:45:00+01:00", /./],
      ["a date only", "2026-10-31", /./],
      ["no such day", "2026-02-30T10:00:00Z", /./],
      ["a second 60", "2026-10-31T10:45:60Z", /./],
      ["words", "yesterday", /./],
      ["empty", "", /./],
      ["a number", 1_793_000_000_000, /./],
      ["null", null, /./],
      ["true", true, /./],
      ["an object", { at: "2026-10-31T10:45:00Z" }, /./],
      ["an array", ["2026-10-31T10:45:00Z"], /./],
      ["a long string", "9".repeat(10_000), /./],
    ];
    for (const status of ["monitoring", "resolved"]) {
      for (const [what, at, message] of cases) {
        const res = await postUpdate(page.id, incident.id, { status, at });
        expect(res.status, `${status}, ${what}: ${JSON.stringify(res.json)}`).toBe(400);
        expect(res.json).toMatchObject({ success: false, code: 400, error: "validation_failed" });
        expect(res.json.details, what).toEqual([{ field: "at", message: expect.stringMatching(message) }]);
        expect(await readBack(page.id, incident.id), what).toEqual(before);
      }
    }
    // An incident that is not there is still a 404, with or without `at`.
    expect((await postUpdate(page.id, 999_999, { status: "resolved", at: "2026-10-31T11:00:00Z" })).status).toBe(404);
  });

  test("no input to startedAt or resolvedAt answers 500", async () => {
    const page = await newPage();
    for (const value of ["0000-01-01T00:00:00Z", "9999-12-31T23:59:59.999Z", "2026-02-30T10:00:00Z", "", 0, null, []]) {
      for (const field of ["startedAt", "resolvedAt"]) {
        const res = await api.post(incidentsPath(page.id), {
          title: "t",
          message: "m",
          status: "resolved",
          [field]: value,
        });
        expect([201, 400], `${field} ${JSON.stringify(value)}`).toContain(res.status);
        if (res.status === 400) expect(res.json.details[0].field).toBe(field);
      }
    }
  });

  test("updates posted at once with times of their own stay ordered: none is stored before one entered earlier", async () => {
    const page = await newPage();
    const incident = await createIncident(page.id, { startedAt: "2026-10-31T10:00:00Z" });
    const minutes = [30, 10, 50, 20, 40, 5, 55, 15, 45, 25];
    const answers = await Promise.all(
      minutes.map((m) =>
        postUpdate(page.id, incident.id, {
          status: "monitoring",
          at: `2026-10-31T10:${String(m).padStart(2, "0")}:00Z`,
        }),
      ),
    );
    for (const res of answers) expect([201, 400], JSON.stringify(res.json)).toContain(res.status);
    const { rows, incident: back } = await readBack(page.id, incident.id);
    expect(rows).toHaveLength(1 + answers.filter((r) => r.status === 201).length);
    const times = rows.map((r) => Date.parse(r.created_at));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    // Newest first by time is then the reverse of the order of entry.
    expect(back?.updates.map((u) => u.timestamp)).toEqual(rows.map((r) => iso(r.created_at)).reverse());
  });
});
