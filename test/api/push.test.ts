import { expect, test } from "vitest";
import { PUSH_LIMITS } from "../../server/api/push.ts";
import { Envelope } from "../../server/contract/common.ts";
import { SiteCreated, SiteDetail } from "../../server/contract/site.ts";
import type { Engine } from "../../server/engine/engine.ts";
import { FIRST_CHECK_SPREAD_MS } from "../../server/store/checks.ts";
import type { Store } from "../../server/store/store.ts";
import { client, describeStores, fromAddress, seedOwner, TestClock, useStore } from "../helpers.ts";
import { appWithEngine } from "./with-engine.ts";

const MIN = 60_000;

describeStores("push (heartbeat) sites", (kind) => {
  let store: Store;
  let clock: TestClock;
  let engine: Engine;
  let made: ReturnType<typeof appWithEngine>;
  let api: ReturnType<typeof client>;
  let anyone: ReturnType<typeof client>;
  const writes: string[] = [];

  useStore(kind, { onQuery: (sql) => writes.push(sql) }, async (opened) => {
    ({ store } = opened);
    clock = new TestClock();
    made = appWithEngine(store, clock);
    engine = made.engine;
    const owner = await seedOwner(store);
    api = client(made.app, owner.token);
    anyone = client(made.app);
  });

  /** A new push site: its id and the path of its secret address. */
  async function pushSite(body: Record<string, unknown> = {}) {
    const created = await api.post("/public/v1/sites", { name: "Nightly backup", url: "push://", ...body });
    expect(created.status).toBe(201);
    const data = Envelope(SiteCreated).parse(created.json).data;
    const url = new URL(data.pushUrl as string);
    // Past the first check's spread (FIRST_CHECK_SPREAD_MS): the new site is due.
    clock.advance(FIRST_CHECK_SPREAD_MS);
    return { id: data.id, path: url.pathname, token: url.pathname.split("/").pop() as string, data };
  }

  const detail = async (id: string) => Envelope(SiteDetail).parse((await api.get(`/public/v1/site/${id}`)).json).data;
  const latestCheck = async (id: string) => (await api.get(`/public/v1/site/${id}/checks`)).json.data[0];

  /** The push route as a job calls it, then the coalesced calls written and one engine round. */
  async function settle() {
    await made.pushInbox.flush();
    await engine.runOnce();
  }

  test("adding one answers its secret address once; no later answer holds the token", async () => {
    const { id, token, data } = await pushSite({ checkInterval: 300, push: { graceSeconds: 60 } });
    expect(data.pushUrl).toMatch(/^http:\/\/status\.test\/public\/v1\/push\/[A-Za-z0-9_-]{32}$/);
    expect(data.protocol).toBe("push");
    expect(data.push).toEqual({ graceSeconds: 60, lastCallAt: null, tokenHint: token.slice(-4) });
    expect(data.assertions).toBeNull();
    expect(data.dns).toBeNull();
    const again = await api.get(`/public/v1/site/${id}`);
    expect(again.text).not.toContain(token);
    expect((await api.get("/public/v1/sites")).text).not.toContain(token);
    // Stored hashed: the database holds no copy a reader could call with.
    const row = await store.sites.getById(id);
    expect(JSON.stringify(row)).not.toContain(token);
  });

  test("silence before the first call is due is 'not checked'; calls on time are up; silence past the grace is down", async () => {
    const { id, path } = await pushSite({ checkInterval: 300, push: { graceSeconds: 60 } });
    await engine.runOnce();
    expect((await detail(id)).state).toBe("unknown");
    expect((await detail(id)).healthSummary).toBe("Not checked: waiting for the job's first call.");

    const call = await anyone.get(`${path}?ms=1234`);
    expect(call.status).toBe(200);
    expect(call.json).toMatchObject({ success: true, code: 200, data: { received: true, status: "up" } });
    clock.advance(5 * MIN);
    await settle();
    expect((await detail(id)).state).toBe("healthy");
    expect(await latestCheck(id)).toMatchObject({ ok: true, responseMs: 1234, error: null });

    // The job is late: six minutes after its last call is still within 5 min + 1 min of grace.
    clock.advance(MIN);
    await settle();
    expect((await latestCheck(id)).ok).toBe(true);
    clock.advance(5 * MIN);
    await settle();
    expect(await latestCheck(id)).toMatchObject({
      ok: false,
      error: "no call for 11 min (expected every 5 min with 1 min of grace)",
    });
    clock.advance(5 * MIN);
    await settle();
    expect((await detail(id)).state).toBe("unhealthy");

    // It calls again: the check is made due at once, so the site is up without waiting an interval.
    await anyone.post(path, "anything the job sends", { "content-type": "text/plain" });
    clock.advance(1000);
    await settle();
    expect((await detail(id)).state).toBe("healthy");
    expect((await detail(id)).push?.lastCallAt).toBe(new Date(clock.now().getTime() - 1000).toISOString());
  });

  test("?status=down with a message is an outage at once, in the job's words", async () => {
    const { id, path } = await pushSite({ checkInterval: 3600 });
    await anyone.get(path);
    clock.advance(1000);
    await settle();
    expect((await detail(id)).state).toBe("healthy");
    // The job sent no time: the summary says where it is up, and no made-up figure.
    expect((await detail(id)).healthSummary).toBe("Up in local.");
    const down = await anyone.get(`${path}?status=down&msg=${encodeURIComponent("disk full on /backup")}`);
    expect(down.json.data).toEqual({ received: true, status: "down" });
    clock.advance(1000);
    await settle();
    expect(await latestCheck(id)).toMatchObject({ ok: false, error: "the job reported down: disk full on /backup" });
    // The job said so: no second check to wait for.
    expect(await detail(id)).toMatchObject({
      state: "unhealthy",
      healthSummary: "Down in local: the job reported down: disk full on /backup.",
    });
    await anyone.get(path);
    clock.advance(1000);
    await settle();
    expect((await detail(id)).state).toBe("healthy");
  });

  test("a wrong, malformed or rotated token is 404 in the envelope; a bad status is 400", async () => {
    const { id, path, token } = await pushSite();
    const wrong = await anyone.get(`/public/v1/push/${"A".repeat(32)}`);
    expect(wrong.status).toBe(404);
    expect(wrong.json).toMatchObject({ success: false, code: 404, error: "not_found" });
    expect((await anyone.get("/public/v1/push/short")).status).toBe(404);
    expect((await anyone.get(`/public/v1/push/${token}x`)).status).toBe(404);
    const bad = await anyone.get(`${path}?status=maybe`);
    expect(bad.status).toBe(400);
    expect(bad.json.details[0].field).toBe("status");

    const rotated = await api.post(`/public/v1/site/${id}/push-token`);
    expect(rotated.status).toBe(200);
    const next = new URL(rotated.json.data.pushUrl).pathname;
    expect(next).not.toBe(path);
    expect((await anyone.get(path)).status).toBe(404);
    expect((await anyone.get(next)).status).toBe(200);
    expect((await detail(id)).push?.tokenHint).toBe(rotated.json.data.token.slice(-4));

    const http = await api.post("/public/v1/sites", { name: "Shop", url: "https://shop.example.com" });
    expect((await api.post(`/public/v1/site/${http.json.data.id}/push-token`)).status).toBe(409);
  });

  test("a push site stays one; settings of another kind are refused, naming the field", async () => {
    const { id } = await pushSite();
    const toHttp = await api.patch(`/public/v1/site/${id}`, { url: "https://shop.example.com" });
    expect(toHttp.status).toBe(400);
    expect(toHttp.json.details[0].field).toBe("url");
    expect((await api.patch(`/public/v1/site/${id}`, { assertions: { keyword: null } })).json.details[0].field).toBe(
      "assertions",
    );
    expect((await api.post("/public/v1/sites", { name: "P", url: "push://host.example" })).status).toBe(400);
    const http = await api.post("/public/v1/sites", { name: "Shop", url: "https://shop.example.com" });
    const toPush = await api.patch(`/public/v1/site/${http.json.data.id}`, { url: "push://" });
    expect(toPush.status).toBe(400);
    expect(toPush.json.details[0].field).toBe("url");
    const patched = await api.patch(`/public/v1/site/${id}`, { push: { graceSeconds: 600 } });
    expect(patched.status).toBe(200);
    expect(patched.json.data.push.graceSeconds).toBe(600);
  });

  test("many calls cost one write per flush, and every call is acknowledged", async () => {
    const { path } = await pushSite();
    await made.pushInbox.flush();
    writes.length = 0;
    const answers = await Promise.all(Array.from({ length: 50 }, () => anyone.get(path)));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    await made.pushInbox.flush();
    const pushWrites = writes.filter((sql) => /update "sites" set "push_last_at"/i.test(sql));
    expect(pushWrites).toHaveLength(1);
  });

  test("a flood from one client is refused with 429 past its limit, in the envelope", async () => {
    const { path } = await pushSite();
    const flood = client(made.app, undefined, fromAddress("198.51.100.7"));
    const statuses: number[] = [];
    for (let i = 0; i < PUSH_LIMITS.token.points + 5; i++) statuses.push((await flood.get(path)).status);
    expect(statuses.slice(0, PUSH_LIMITS.token.points).every((s) => s === 200)).toBe(true);
    expect(statuses.slice(PUSH_LIMITS.token.points)).toEqual([429, 429, 429, 429, 429]);
    const refused = await flood.get(path);
    expect(refused.json).toMatchObject({ success: false, code: 429, error: "rate_limited" });
  });
});
