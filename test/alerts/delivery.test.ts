import { createHmac } from "node:crypto";
import { afterAll, beforeAll, expect, test } from "vitest";
import { SecretBox } from "../../server/accounts/sealed.ts";
import { AlertSender } from "../../server/alerts/sender.ts";
import { AlertEvent } from "../../server/contract/alerts.ts";
import { createLogger } from "../../server/log.ts";
import type { Store } from "../../server/store/store.ts";
import { appWithEngine, localTargets, testSender } from "../api/with-engine.ts";
import { client, describeStores, seedOwner, TestClock, testConfig, useStore } from "../helpers.ts";
import { listen } from "../support/listen.ts";

/**
 * Issue 18, the engine's alerts: a state change writes its alerts to the outbox in its own transaction, by the site's
 * rule (its own, else the workspace's, else every enabled channel for down and recovered); the sender delivers them
 * with leases, records every attempt, retries with backoff, and gives up after the delivery window.
 */
describeStores("alerts from the engine to a receiver", (kind) => {
  let store: Store;
  let clock: TestClock;
  let made: ReturnType<typeof appWithEngine>;
  let api: ReturnType<typeof client>;
  let sender: AlertSender;
  let targets: Awaited<ReturnType<typeof localTargets>>;
  let receiver: Awaited<ReturnType<typeof listen>>;
  let received: { headers: Record<string, unknown>; event: AlertEvent; body: string }[] = [];
  let status = 200;
  /** What a failing receiver answers: its body, and headers. */
  let failure: { body: string; headers?: Record<string, string> } = { body: "broken" };

  beforeAll(async () => {
    targets = await localTargets();
    receiver = await listen((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const body = Buffer.concat(chunks).toString();
        if (status === 200) received.push({ headers: req.headers, event: AlertEvent.parse(JSON.parse(body)), body });
        res.writeHead(status, status === 200 ? {} : (failure.headers ?? {}));
        res.end(status === 200 ? "thanks" : failure.body);
      });
    });
  });
  afterAll(async () => {
    targets?.close();
    await new Promise((resolve) => receiver?.server.close(resolve));
  });

  useStore(kind, { each: true }, async (opened) => {
    ({ store } = opened);
    clock = new TestClock();
    made = appWithEngine(store, clock, { PORCHLIGHT_ALLOW_PRIVATE_TARGETS: "true" });
    api = client(made.app, (await seedOwner(store, "stack")).token);
    sender = testSender(store, clock);
    received = [];
    status = 200;
    failure = { body: "broken" };
    return () => made.engine.stop();
  });

  /** A site checked every minute against `url`, and a webhook channel to the receiver. */
  const setUp = async (url = targets.fail) => {
    const channel = (
      await api.post("/public/v1/alert-channels", {
        name: "Hook",
        type: "webhook",
        config: { url: `${receiver.origin}/hook` },
      })
    ).json.data;
    const site = (await api.post("/public/v1/sites", { url, name: "Shop", checkInterval: 60, timeout: 5 })).json.data;
    return { channel, site };
  };
  /** A minute passes and the engine checks. */
  const minute = async () => {
    clock.advance(60_000);
    await made.engine.runOnce();
  };
  const outbox = () => store.db.selectFrom("alert_outbox").selectAll().orderBy("id").execute();

  test("down once, then recovered with the outage's length; each delivered once, signed, and in the delivery log", async () => {
    const { channel, site } = await setUp();
    clock.advance(3000);
    await made.engine.runOnce();
    // One failure: degraded, which alerts nobody by default.
    expect(await outbox()).toEqual([]);
    await minute();
    const [down] = await outbox();
    expect(down).toMatchObject({ type: "site.down", state: "pending", channel_id: channel.id, site_id: site.id });
    await minute(); // still down: no second alert
    expect(await outbox()).toHaveLength(1);

    expect(await sender.tick()).toBe(1);
    expect(await sender.tick()).toBe(0);
    expect(received).toHaveLength(1);
    const first = received[0] as (typeof received)[number];
    expect(first.event).toMatchObject({
      type: "site.down",
      site: { id: site.id, name: "Shop" },
      summary: "Shop is down.",
    });
    expect(first.event.reason).toMatch(/HTTP 500/);
    expect(first.headers["x-porchlight-event-id"]).toBe(first.event.id);

    // Back up: the recovery tells how long it was down (from the confirming check, two minutes ago).
    expect((await api.patch(`/public/v1/site/${site.id}`, { url: targets.ok })).status).toBe(200);
    for (let i = 0; i < 3 && (await outbox()).length < 2; i++) await minute();
    const rows = await outbox();
    expect(rows.map((r) => r.type)).toEqual(["site.down", "site.recovered"]);
    await sender.tick();
    const recovered = received[1]?.event as AlertEvent;
    expect(recovered.type).toBe("site.recovered");
    expect(recovered.downtimeSeconds).toBe(
      Math.round((Date.parse(recovered.occurredAt) - Date.parse(first.event.occurredAt)) / 1000),
    );
    expect(recovered.summary).toMatch(/^Shop is back up after \d+ min\.$/);

    const log = (await api.get(`/public/v1/site/${site.id}/alert-deliveries`)).json.data.deliveries;
    expect(log.map((d: { type: string; state: string }) => [d.type, d.state])).toEqual([
      ["site.recovered", "delivered"],
      ["site.down", "delivered"],
    ]);
    expect(log[1].attempts).toEqual([expect.objectContaining({ ok: true, statusCode: 200, response: "thanks" })]);
    const byChannel = (await api.get(`/public/v1/alert-channels/${channel.id}/deliveries?limit=1`)).json.data
      .deliveries;
    expect(byChannel).toHaveLength(1);
  });

  test("a real delivery verifies with the secret the creating answer showed, and after a rotation with the new one only", async () => {
    const { channel, site } = await setUp();
    expect(channel.secret).toMatch(/^whsec_[0-9a-f]{48}$/);
    /** Whether a received request's signature is the HMAC of its timestamp and body under `secret`. */
    const signedWith = (secret: string, r: (typeof received)[number]) =>
      r.headers["x-porchlight-signature"] ===
      `v1=${createHmac("sha256", secret).update(`${r.headers["x-porchlight-timestamp"]}.${r.body}`).digest("hex")}`;
    clock.advance(3000);
    await made.engine.runOnce();
    await minute();
    expect(await sender.tick()).toBe(1);
    const down = received[0] as (typeof received)[number];
    expect(down.event.type).toBe("site.down");
    expect(signedWith(channel.secret, down)).toBe(true);

    const rotated = await api.post(`/public/v1/alert-channels/${channel.id}/rotate-secret`);
    expect(rotated.status, rotated.text).toBe(200);
    const secret = rotated.json.data.secret as string;
    expect(secret).toMatch(/^whsec_[0-9a-f]{48}$/);
    expect(secret).not.toBe(channel.secret);
    expect(rotated.json.data).toMatchObject({ id: channel.id, type: "webhook", name: "Hook" });
    // Shown once: reading the channel never answers it.
    expect((await api.get(`/public/v1/alert-channels/${channel.id}`)).text).not.toContain(secret);

    expect((await api.patch(`/public/v1/site/${site.id}`, { url: targets.ok })).status).toBe(200);
    for (let i = 0; i < 3 && (await outbox()).length < 2; i++) await minute();
    expect(await sender.tick()).toBe(1);
    const recovered = received[1] as (typeof received)[number];
    expect(recovered.event.type).toBe("site.recovered");
    expect(signedWith(secret, recovered)).toBe(true);
    expect(signedWith(channel.secret, recovered)).toBe(false);
  });

  test("a failing receiver is tried again with backoff (30 s, 60 s, …), then delivered; each attempt is recorded", async () => {
    await setUp();
    clock.advance(3000);
    await made.engine.runOnce();
    await minute();
    status = 500;
    await sender.tick();
    let [row] = await outbox();
    expect(row).toMatchObject({ state: "pending", attempts: 1, last_status: 500 });
    expect(Date.parse(row?.next_attempt_at as string) - clock.now().getTime()).toBe(30_000);
    clock.advance(29_000);
    expect(await sender.tick()).toBe(0);
    clock.advance(1_000);
    await sender.tick();
    [row] = await outbox();
    expect(row).toMatchObject({ attempts: 2 });
    expect(Date.parse(row?.next_attempt_at as string) - clock.now().getTime()).toBe(60_000);
    status = 200;
    clock.advance(60_000);
    await sender.tick();
    [row] = await outbox();
    expect(row).toMatchObject({ state: "delivered", attempts: 3, last_status: 200, last_error: null });
    expect(received).toHaveLength(1);
    // Signed when sent, 90 s after the event: the README's check (five minutes at most) takes the retry.
    const [delivered] = received;
    const timestamp = Number(delivered?.headers["x-porchlight-timestamp"]);
    expect(timestamp).toBe(Math.floor(clock.now().getTime() / 1000));
    expect(Date.parse(delivered?.event.occurredAt as string) / 1000).toBeLessThan(timestamp - 60);
    const attempts = await store.db.selectFrom("alert_attempts").select(["ok", "status_code"]).orderBy("id").execute();
    expect(attempts).toEqual([
      { ok: 0, status_code: 500 },
      { ok: 0, status_code: 500 },
      { ok: 1, status_code: 200 },
    ]);
  });

  test("an answer with NUL or binary bytes is stored as text, and a redirect is not followed nor its address named", async () => {
    const { channel } = await setUp();
    clock.advance(3000);
    await made.engine.runOnce();
    await minute();
    status = 500;
    failure = { body: "bad\u0000answer\u00ff" };
    await sender.tick();
    let [row] = await outbox();
    expect(row).toMatchObject({ state: "pending", attempts: 1, last_status: 500 });
    const [attempt] = await store.db.selectFrom("alert_attempts").select(["response", "error"]).execute();
    expect(attempt?.response).toBe("bad\ufffdanswer\u00ff");
    // A redirect to the same address (a loop) says only that redirects are not followed.
    status = 302;
    failure = { body: "", headers: { location: `${receiver.origin}/hook` } };
    clock.advance(30_000);
    await sender.tick();
    [row] = await outbox();
    expect(row?.last_error).toBe("too many redirects (more than 0)");
    // The receiver's own status is what the log shows.
    expect(row?.last_status).toBe(302);
    const log = (await api.get(`/public/v1/alert-channels/${channel.id}/deliveries`)).json.data.deliveries;
    expect(JSON.stringify(log)).not.toContain("/hook");
  });

  test("a process with another secret key cannot open a channel: the delivery stays for a process that can", async () => {
    await setUp();
    clock.advance(3000);
    await made.engine.runOnce();
    await minute();
    const config = testConfig();
    const stranger = new AlertSender({
      store,
      clock,
      logger: createLogger("silent"),
      secrets: new SecretBox("another key of at least thirty-two characters", config.dataDir),
      delivery: { mailer: { send: async () => ({ messageId: "x" }) }, allowPrivate: true },
      providers: { apis: config.alertApis },
      random: () => 0.5,
    });
    await stranger.tick();
    let [row] = await outbox();
    expect(row).toMatchObject({ state: "pending", attempts: 1 });
    expect(row?.last_error).toMatch(/PORCHLIGHT_SECRET_KEY/);
    clock.advance(30_000);
    await sender.tick();
    [row] = await outbox();
    expect(row?.state).toBe("delivered");
  });

  test("a receiver that never accepts is given up after 24 hours", async () => {
    await setUp();
    clock.advance(3000);
    await made.engine.runOnce();
    await minute();
    status = 500;
    let rounds = 0;
    for (; rounds < 100; rounds++) {
      const [row] = await outbox();
      if (row?.state !== "pending") break;
      clock.advance(Math.max(0, Date.parse(row.next_attempt_at) - clock.now().getTime()));
      await sender.tick();
    }
    const [row] = await outbox();
    expect(row?.state).toBe("failed");
    expect(Date.parse(row?.finished_at as string) - Date.parse(row?.created_at as string)).toBeGreaterThanOrEqual(
      24 * 3_600_000,
    );
    // 30 s doubling to an hour, then hourly: about 30 attempts, not thousands.
    expect(row?.attempts).toBeGreaterThan(20);
    expect(row?.attempts).toBeLessThan(40);
  });

  test("a claim of a sender that died is taken over when its lease expires, and delivered once", async () => {
    await setUp();
    clock.advance(3000);
    await made.engine.runOnce();
    await minute();
    const now = clock.now().getTime();
    const claimed = await store.alerts.claimDue({
      owner: "dead-sender",
      now: new Date(now).toISOString(),
      leaseUntil: new Date(now + 60_000).toISOString(),
      limit: 10,
      perChannel: 8,
      underWay: new Map(),
    });
    expect(claimed).toHaveLength(1);
    expect(await sender.tick()).toBe(0);
    clock.advance(60_000);
    expect(await sender.tick()).toBe(1);
    expect(received).toHaveLength(1);
    // The dead sender's late report is not recorded: the claim is no longer its.
    const late = await store.alerts.finishDelivery({
      id: claimed[0]?.id as number,
      owner: "dead-sender",
      state: "delivered",
      attempts: 1,
      nextAttemptAt: null,
      at: clock.now().toISOString(),
      startedAt: clock.now().toISOString(),
      result: { ok: true, statusCode: 200, error: null, responseTimeMs: 1, response: "" },
    });
    expect(late).toBe(false);
    expect((await store.db.selectFrom("alert_attempts").selectAll().execute()).length).toBe(1);
  });

  test("rules: a site's own rule in place of the default, degraded on request, none when no channel; a deleted page keeps them", async () => {
    const { channel, site } = await setUp();
    // The default rule as the workspace sets it: degraded too.
    expect(
      (await api.call("PUT", "/public/v1/alert-rules/default", { channels: "all", events: { degraded: true } })).status,
    ).toBe(200);
    clock.advance(3000);
    await made.engine.runOnce();
    expect((await outbox()).map((r) => r.type)).toEqual(["site.degraded"]);
    // The site's own rule: no channel at all.
    const own = await api.call("PUT", `/public/v1/site/${site.id}/alert-rule`, { channels: [] });
    expect(own.json.data).toMatchObject({
      channels: [],
      inherited: false,
      events: { down: true, recovered: true, degraded: false },
    });
    await minute();
    expect((await outbox()).map((r) => r.type)).toEqual(["site.degraded"]);
    // A status page showing the site comes and goes; the rule stays.
    const page = (await api.post("/public/v1/status-pages", { name: "P", slug: `p-${kind.name}` })).json.data;
    await api.post(`/public/v1/status-pages/${page.id}/items`, { siteId: site.id });
    expect((await api.delete(`/public/v1/status-pages/${page.id}`, { confirmName: "P" })).status).toBe(200);
    expect((await api.get(`/public/v1/site/${site.id}/alert-rule`)).json.data).toMatchObject({
      channels: [],
      inherited: false,
    });
    // Removed: the default again.
    const back = await api.delete(`/public/v1/site/${site.id}/alert-rule`);
    expect(back.json.data).toMatchObject({ channels: "all", inherited: true, events: { degraded: true } });
    // A channel not of this workspace is refused by name.
    const wrong = await api.call("PUT", "/public/v1/alert-rules/default", {
      channels: [channel.id, "ch_000000000000000000000000"],
    });
    expect(wrong.status).toBe(400);
    expect(wrong.json.details[0].field).toBe("channels.1");
  });

  test("a channel turned off before its delivery is not sent to; deleting it drops what it had pending", async () => {
    const { channel } = await setUp();
    clock.advance(3000);
    await made.engine.runOnce();
    await minute();
    await api.patch(`/public/v1/alert-channels/${channel.id}`, { enabled: false });
    await sender.tick();
    expect(received).toEqual([]);
    expect((await outbox())[0]).toMatchObject({ state: "failed", last_error: "the channel is turned off" });
    await api.delete(`/public/v1/alert-channels/${channel.id}`);
    expect(await outbox()).toEqual([]);
  });
});
