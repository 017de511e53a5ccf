import { createHmac, timingSafeEqual } from "node:crypto";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, expect, test } from "vitest";
import { createMailer } from "../../server/anon/mail.ts";
import { AlertEvent, type Channel } from "../../server/contract/alerts.ts";
import { createLogger } from "../../server/log.ts";
import type { Store } from "../../server/store/store.ts";
import {
  type App,
  client,
  describeStores,
  makeApp,
  seedMember,
  seedOwner,
  type TestClock,
  useStore,
} from "../helpers.ts";
import { makeCertificates } from "../support/certificates.ts";
import { listen } from "../support/listen.ts";

/** One request a receiver got. */
interface Received {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * The README's verification of a webhook, as a receiver writes it: recompute the HMAC over "<timestamp>.<body>"
 * with the channel's secret, compare in constant time, refuse a timestamp older than five minutes.
 */
function verifyWebhook(secret: string, headers: Received["headers"], body: string, nowSeconds: number): boolean {
  const timestamp = String(headers["x-porchlight-timestamp"]);
  const signature = String(headers["x-porchlight-signature"]);
  const expected = `v1=${createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex")}`;
  const fresh = Math.abs(nowSeconds - Number(timestamp)) <= 300;
  return (
    fresh && signature.length === expected.length && timingSafeEqual(Buffer.from(signature), Buffer.from(expected))
  );
}

const SLACK_URL_PATH = "/services/T000/B000/SECRETslackPATH";
const TELEGRAM_TOKEN = "123456789:AAsecretTelegramTokenValue_xyz";
const PD_KEY = "0123456789abcdef0123456789abcdef";

/**
 * Issue 18, the channels: each provider's request against a real local receiver (its documented shape), the
 * webhook's signature checked with the README's snippet, e-mail through a real SMTP server, credentials sealed at
 * rest, masked in every answer and never logged.
 */
describeStores("alert channels", (kind) => {
  let store: Store;
  let app: App;
  let clock: TestClock;
  let api: ReturnType<typeof client>;
  let owner: Awaited<ReturnType<typeof seedOwner>>;
  let receiver: { server: Server; origin: string };
  let received: Received[] = [];
  /** What the receiver answers next: a status and a body. */
  let answer: [number, string] = [200, "ok"];
  let smtp: SMTPServer;
  const mails: string[] = [];
  const logs: string[] = [];
  let tls: { server: import("node:https").Server; origin: string };
  const certificates = makeCertificates();

  beforeAll(async () => {
    receiver = await listen((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        received.push({ path: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
        res.writeHead(answer[0], { "content-type": "text/plain" });
        res.end(answer[1]);
      });
    });
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ["STARTTLS"],
      logger: false,
      onData(stream, _session, callback) {
        const chunks: Buffer[] = [];
        stream.on("data", (chunk: Buffer) => chunks.push(chunk));
        stream.on("end", () => {
          mails.push(Buffer.concat(chunks).toString("utf8"));
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", resolve));
    const httpsServer = createHttpsServer(certificates.selfSigned, (req, res) => {
      received.push({ path: `tls:${req.url}`, headers: req.headers, body: "" });
      res.end("ok");
    });
    await new Promise<void>((resolve) => httpsServer.listen(0, "127.0.0.1", resolve));
    tls = { server: httpsServer, origin: `https://localhost:${(httpsServer.address() as AddressInfo).port}` };
  });
  afterAll(async () => {
    await new Promise((resolve) => receiver?.server.close(resolve));
    await new Promise((resolve) => tls?.server.close(resolve));
    await new Promise<void>((resolve) => smtp?.close(() => resolve()));
  });

  useStore(kind, async (opened) => {
    ({ store } = opened);
    ({ app, clock } = makeApp(store, {
      env: {
        PORCHLIGHT_ALLOW_PRIVATE_TARGETS: "true",
        SMTP_URL: `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`,
        PORCHLIGHT_TELEGRAM_API_URL: `${receiver.origin}/telegram`,
        PORCHLIGHT_PAGERDUTY_EVENTS_URL: `${receiver.origin}/pagerduty/v2/enqueue`,
      },
      logger: createLogger("debug", { write: (line: string) => void logs.push(line) }),
    }));
    owner = await seedOwner(store, "stack");
    api = client(app, owner.token);
  });

  const create = async (body: Record<string, unknown>) => {
    const res = await api.post("/public/v1/alert-channels", body);
    expect(res.status, res.text).toBe(201);
    return res.json.data as Channel & { secret?: string };
  };
  const sendTest = async (id: string) => {
    received = [];
    const res = await api.post(`/public/v1/alert-channels/${id}/test`);
    expect(res.status, res.text).toBe(200);
    return res.json.data as {
      event: { id: string };
      delivery: { ok: boolean; statusCode: number | null; error: string | null; response: string };
    };
  };

  test("a webhook gets the event as JSON, signed; the README's check verifies it and the secret shows once", async () => {
    const made = await create({ name: "Ops hook", type: "webhook", config: { url: `${receiver.origin}/hook?k=1` } });
    expect(made.secret).toMatch(/^whsec_[0-9a-f]{48}$/);
    expect(made.target).toBe(`${receiver.origin}/…`);
    const { event, delivery } = await sendTest(made.id);
    expect(delivery).toMatchObject({ ok: true, statusCode: 200, error: null, response: "ok" });
    const [request] = received;
    expect(request?.path).toBe("/hook?k=1");
    expect(request?.headers["content-type"]).toBe("application/json");
    expect(request?.headers["x-porchlight-event-id"]).toBe(event.id);
    const body = AlertEvent.parse(JSON.parse(request?.body ?? ""));
    expect(body).toMatchObject({ version: 1, type: "test", id: event.id });
    // The server's clock (a test's fixed one) stamps the event: a receiver compares with its own.
    const now = Math.floor(clock.now().getTime() / 1000);
    expect(verifyWebhook(made.secret as string, request?.headers ?? {}, request?.body ?? "", now)).toBe(true);
    expect(verifyWebhook("whsec_wrong_secret_0000000000", request?.headers ?? {}, request?.body ?? "", now)).toBe(
      false,
    );
    expect(verifyWebhook(made.secret as string, request?.headers ?? {}, `${request?.body} `, now)).toBe(false);
    // Never again in an answer; a given secret is kept.
    const read = await api.get(`/public/v1/alert-channels/${made.id}`);
    expect(read.text).not.toContain(made.secret);
    const own = await create({
      name: "Own secret",
      type: "webhook",
      config: { url: `${receiver.origin}/own`, secret: "my-own-signing-secret-123" },
    });
    expect(own.secret).toBe("my-own-signing-secret-123");
  });

  test("Slack, Discord, Teams, Telegram, ntfy and PagerDuty each get their documented shape", async () => {
    const checks: [Record<string, unknown>, (r: Received) => void][] = [
      [
        { type: "slack", config: { url: `${receiver.origin}${SLACK_URL_PATH}` } },
        (r) => {
          const body = JSON.parse(r.body);
          expect(r.path).toBe(SLACK_URL_PATH);
          expect(body.text).toContain("Test alert from Porchlight");
          expect(body.blocks[0]).toMatchObject({ type: "section", text: { type: "mrkdwn" } });
        },
      ],
      [
        { type: "discord", config: { url: `${receiver.origin}/api/webhooks/1/tok` } },
        (r) => {
          const body = JSON.parse(r.body);
          expect(body.allowed_mentions).toEqual({ parse: [] });
          expect(body.embeds[0]).toMatchObject({ color: 0x2563eb });
          expect(body.embeds[0].title).toContain("Test alert");
        },
      ],
      [
        { type: "teams", config: { url: `${receiver.origin}/workflows/abc` } },
        (r) => {
          const body = JSON.parse(r.body);
          expect(body.type).toBe("message");
          expect(body.attachments[0].contentType).toBe("application/vnd.microsoft.card.adaptive");
          expect(body.attachments[0].content).toMatchObject({ type: "AdaptiveCard", version: "1.4" });
        },
      ],
      [
        { type: "telegram", config: { botToken: TELEGRAM_TOKEN, chatId: "-1001234567890" } },
        (r) => {
          expect(r.path).toBe(`/telegram/bot${TELEGRAM_TOKEN}/sendMessage`);
          expect(JSON.parse(r.body)).toMatchObject({ chat_id: "-1001234567890", disable_web_page_preview: true });
        },
      ],
      [
        { type: "ntfy", config: { url: `${receiver.origin}/ntfy/porchlight-alerts`, token: "tk_ntfy_secret" } },
        (r) => {
          expect(r.path).toBe("/ntfy/");
          expect(r.headers.authorization).toBe("Bearer tk_ntfy_secret");
          expect(JSON.parse(r.body)).toMatchObject({ topic: "porchlight-alerts", priority: 3 });
        },
      ],
      [
        { type: "pagerduty", config: { routingKey: PD_KEY } },
        (r) => {
          expect(r.path).toBe("/pagerduty/v2/enqueue");
          const body = JSON.parse(r.body);
          expect(body).toMatchObject({ routing_key: PD_KEY, event_action: "trigger" });
          expect(body.dedup_key).toMatch(/^test_/);
          expect(body.payload).toMatchObject({ severity: "info", source: "https://example.com" });
        },
      ],
    ];
    for (const [body, check] of checks) {
      const made = await create({ name: `A ${body.type}`, ...body });
      const { delivery } = await sendTest(made.id);
      expect(delivery.ok, `${body.type}: ${delivery.error}`).toBe(true);
      expect(received).toHaveLength(1);
      check(received[0] as Received);
    }
  });

  test("e-mail goes through the SMTP server, to every address", async () => {
    const made = await create({
      name: "On call",
      type: "email",
      config: { to: ["ops@example.com", "cto@example.com"] },
    });
    expect(made.target).toBe("o…@example.com, c…@example.com");
    mails.length = 0;
    const { delivery, event } = await sendTest(made.id);
    expect(delivery.ok, delivery.error ?? "").toBe(true);
    expect(mails).toHaveLength(1);
    expect(mails[0]).toMatch(/^To: ops@example\.com, cto@example\.com/m);
    expect(mails[0]).toMatch(new RegExp(`^X-Porchlight-Event-Id: ${event.id}$`, "im"));
    expect(mails[0]).toContain("Test alert from Porchlight");
  });

  test("without SMTP_URL a test e-mail is a file, and the answer names no path of the server's", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "porchlight-mail-"));
    try {
      const fileApp = makeApp(store, {
        env: { PORCHLIGHT_DATA_DIR: dataDir },
        mailer: createMailer({ from: "porchlight@localhost", dataDir, logger: createLogger("silent") }),
      }).app;
      const fileApi = client(fileApp, owner.token);
      const made = (
        await fileApi.post("/public/v1/alert-channels", {
          name: "Mail",
          type: "email",
          config: { to: ["ops@example.com"] },
        })
      ).json.data;
      const res = await fileApi.post(`/public/v1/alert-channels/${made.id}/test`);
      expect(res.status, res.text).toBe(200);
      const { delivery } = res.json.data;
      expect(delivery.ok).toBe(true);
      expect(delivery.response).toMatch(/^written to the server's mail folder as [\w.-]+\.eml \(no SMTP_URL is set\)$/);
      expect(res.text).not.toContain(dataDir);
      expect(readdirSync(join(dataDir, "mail"))).toHaveLength(1);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test("the list is newest first, as every other list", async () => {
    const stranger = client(app, (await seedOwner(store, "stack")).token);
    for (const name of ["First", "Second", "Third"]) {
      const res = await stranger.post("/public/v1/alert-channels", {
        name,
        type: "webhook",
        config: { url: `${receiver.origin}/${name}` },
      });
      expect(res.status).toBe(201);
      clock.advance(1000);
    }
    const names = (await stranger.get("/public/v1/alert-channels")).json.data.channels.map((c: Channel) => c.name);
    expect(names).toEqual(["Third", "Second", "First"]);
  });

  test("a receiver's error, an untrusted certificate and a refused address are answered as such, never thrown", async () => {
    const made = await create({ name: "Flaky", type: "webhook", config: { url: `${receiver.origin}/flaky` } });
    answer = [500, "upstream broke"];
    try {
      const { delivery } = await sendTest(made.id);
      expect(delivery).toMatchObject({ ok: false, statusCode: 500, response: "upstream broke" });
      expect(delivery.error).toMatch(/HTTP 500/);
    } finally {
      answer = [200, "ok"];
    }
    // Self-signed: the handshake fails before a byte of the request is sent.
    const untrusted = await create({ name: "Untrusted", type: "slack", config: { url: `${tls.origin}/services/x` } });
    const { delivery } = await sendTest(untrusted.id);
    expect(delivery.ok).toBe(false);
    expect(delivery.error).toMatch(/TLS|certificate|self-signed/i);
    expect(received).toEqual([]);
  });

  test("credentials are sealed at rest, masked in answers, and in no log line", async () => {
    logs.length = 0;
    const slack = await create({
      name: "Slack",
      type: "slack",
      config: { url: `${receiver.origin}${SLACK_URL_PATH}` },
    });
    const bot = await create({
      name: "Bot",
      type: "telegram",
      config: { botToken: TELEGRAM_TOKEN, chatId: "@porchlight_ops" },
    });
    const pd = await create({ name: "PD", type: "pagerduty", config: { routingKey: PD_KEY } });
    expect(bot.target).toBe("Telegram chat @porchlight_ops");
    expect(pd.target).toBe("PagerDuty integration …cdef");
    await sendTest(slack.id);
    await sendTest(bot.id);
    const list = await api.get("/public/v1/alert-channels");
    expect(list.json.data.channels.map((c: Channel) => c.id)).toEqual(
      expect.arrayContaining([slack.id, bot.id, pd.id]),
    );
    const rows = await store.db.selectFrom("alert_channels").select(["config", "target"]).execute();
    const everywhere = [list.text, JSON.stringify(rows), ...logs].join("\n");
    for (const secret of ["SECRETslackPATH", TELEGRAM_TOKEN, PD_KEY, "secretTelegramToken"]) {
      expect(everywhere).not.toContain(secret);
    }
    expect(rows.every((row) => row.config.startsWith("v1:"))).toBe(true);
  });

  test("a server with another secret key answers 409 for a channel it cannot open, and saving its settings again heals it", async () => {
    const made = await create({ name: "Hook", type: "webhook", config: { url: `${receiver.origin}/k` } });
    const other = client(
      makeApp(store, {
        env: {
          PORCHLIGHT_SECRET_KEY: "a different key of at least thirty-two chars",
          PORCHLIGHT_ALLOW_PRIVATE_TARGETS: "true",
        },
      }).app,
      owner.token,
    );
    const refused = await other.post(`/public/v1/alert-channels/${made.id}/test`);
    expect(refused.status).toBe(409);
    expect(refused.json.details[0].field).toBe("config");
    expect(
      (await other.patch(`/public/v1/alert-channels/${made.id}`, { config: { url: `${receiver.origin}/k` } })).status,
    ).toBe(409);
    expect(
      (
        await other.patch(`/public/v1/alert-channels/${made.id}`, {
          config: { url: `${receiver.origin}/k`, secret: "a-new-secret-0123456789" },
        })
      ).status,
    ).toBe(200);
    expect((await other.post(`/public/v1/alert-channels/${made.id}/test`)).json.data.delivery.ok).toBe(true);
  });

  test("bad settings name the field; a private address is refused unless the operator allows it", async () => {
    for (const [body, field] of [
      [{ name: "x", type: "sms", config: {} }, "type"],
      [{ name: "x", type: "slack", config: { url: "ftp://example.com/x" } }, "config.url"],
      [{ name: "x", type: "slack", config: {} }, "config.url"],
      [{ name: "x", type: "email", config: { to: [] } }, "config.to"],
      [{ name: "x", type: "email", config: { to: ["not an address"] } }, "config.to.0"],
      [{ name: "x", type: "telegram", config: { botToken: "nope", chatId: "1" } }, "config.botToken"],
      [{ name: "x", type: "pagerduty", config: { routingKey: "short" } }, "config.routingKey"],
      [{ name: "x", type: "webhook", config: { url: "https://example.com", secret: "short" } }, "config.secret"],
      [{ name: "x", type: "slack", config: { url: "https://example.com", extra: 1 } }, "config.extra"],
      [{ name: "x", type: "ntfy", config: { url: "https://ntfy.sh/" } }, "config.url"],
      [{ name: "", type: "slack", config: { url: "https://example.com" } }, "name"],
    ] as const) {
      const res = await api.post("/public/v1/alert-channels", body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.details.map((d: { field: string }) => d.field)).toContain(field);
    }
    const strict = makeApp(store, { env: { PORCHLIGHT_ALLOW_PRIVATE_TARGETS: "false" } });
    const refused = await client(strict.app, owner.token).post("/public/v1/alert-channels", {
      name: "Local",
      type: "webhook",
      config: { url: "http://127.0.0.1:9/hook" },
    });
    expect(refused.status).toBe(400);
    expect(refused.json.details[0]).toMatchObject({ field: "config.url" });
    expect(refused.json.details[0].message).toMatch(/loopback/);
  });

  test("rotating a webhook's secret: the test delivery verifies with the new one only; other types 400, unknown 404, viewers 403", async () => {
    const made = await create({ name: "Hook", type: "webhook", config: { url: `${receiver.origin}/r` } });
    const rotated = await api.post(`/public/v1/alert-channels/${made.id}/rotate-secret`);
    expect(rotated.status, rotated.text).toBe(200);
    const secret = rotated.json.data.secret as string;
    expect(secret).toMatch(/^whsec_[0-9a-f]{48}$/);
    expect(secret).not.toBe(made.secret);
    await sendTest(made.id);
    const [request] = received;
    const now = Math.floor(clock.now().getTime() / 1000);
    expect(verifyWebhook(secret, request?.headers ?? {}, request?.body ?? "", now)).toBe(true);
    expect(verifyWebhook(made.secret as string, request?.headers ?? {}, request?.body ?? "", now)).toBe(false);

    const slack = await create({ name: "Chat", type: "slack", config: { url: `${receiver.origin}${SLACK_URL_PATH}` } });
    const refused = await api.post(`/public/v1/alert-channels/${slack.id}/rotate-secret`);
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({ success: false, error: "validation_failed", details: [{ field: "type" }] });
    const unknown = await api.post("/public/v1/alert-channels/ch_000000000000000000000000/rotate-secret");
    expect(unknown.status).toBe(404);
    expect(unknown.json).toMatchObject({ success: false, error: "not_found" });
    const viewer = client(app, (await seedMember(store, owner.email, "viewer")).token);
    expect((await viewer.post(`/public/v1/alert-channels/${made.id}/rotate-secret`)).status).toBe(403);
  });

  test("an edit and a rotation rewrite the sealed config whole: a write based on a read that is no longer current changes nothing", async () => {
    const made = await create({ name: "Hook", type: "webhook", config: { url: `${receiver.origin}/r` } });
    const read = await store.db.selectFrom("alert_channels").selectAll().where("id", "=", made.id).executeTakeFirst();
    const before = read as NonNullable<typeof read>;
    // Another write lands between this read and its write (a rotation in another tab, say).
    clock.advance(1000);
    expect((await api.post(`/public/v1/alert-channels/${made.id}/rotate-secret`)).status).toBe(200);
    const stale = await store.alerts.updateChannel(
      before.workspace_id,
      made.id,
      { sealedConfig: before.config, updatedAt: clock.now().toISOString() },
      before.updated_at,
    );
    expect(stale).toBeUndefined();
    const after = await store.db.selectFrom("alert_channels").selectAll().where("id", "=", made.id).executeTakeFirst();
    expect(after?.config).not.toBe(before.config);
    // Based on the current read, it is written.
    const current = await store.alerts.updateChannel(
      before.workspace_id,
      made.id,
      { name: "Renamed", updatedAt: clock.now().toISOString() },
      after?.updated_at,
    );
    expect(current?.name).toBe("Renamed");
  });

  test("rename, turn off, replace the settings (a webhook keeps its secret), delete; another workspace sees none", async () => {
    const made = await create({ name: "Hook", type: "webhook", config: { url: `${receiver.origin}/a` } });
    const patched = await api.patch(`/public/v1/alert-channels/${made.id}`, {
      name: "Renamed",
      enabled: false,
      config: { url: `${receiver.origin}/b` },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.json.data).toMatchObject({ name: "Renamed", enabled: false });
    const { delivery } = await sendTest(made.id);
    expect(delivery.ok).toBe(true);
    expect(received[0]?.path).toBe("/b");
    expect(
      verifyWebhook(
        made.secret as string,
        received[0]?.headers ?? {},
        received[0]?.body ?? "",
        Math.floor(clock.now().getTime() / 1000),
      ),
    ).toBe(true);
    const bad = await api.patch(`/public/v1/alert-channels/${made.id}`, { config: { url: "nope" } });
    expect(bad.status).toBe(400);
    expect(bad.json.details[0].field).toBe("config.url");

    const stranger = client(app, (await seedOwner(store, "stack")).token);
    expect((await stranger.get(`/public/v1/alert-channels/${made.id}`)).status).toBe(404);
    expect((await stranger.post(`/public/v1/alert-channels/${made.id}/test`)).status).toBe(404);
    expect((await stranger.delete(`/public/v1/alert-channels/${made.id}`)).status).toBe(404);
    expect((await stranger.get("/public/v1/alert-channels")).json.data.channels).toEqual([]);

    const viewer = client(app, (await seedMember(store, owner.email, "viewer")).token);
    expect((await viewer.get("/public/v1/alert-channels")).status).toBe(200);
    expect((await viewer.post(`/public/v1/alert-channels/${made.id}/test`)).status).toBe(403);

    expect((await api.delete(`/public/v1/alert-channels/${made.id}`)).status).toBe(200);
    expect((await api.get(`/public/v1/alert-channels/${made.id}`)).status).toBe(404);
  });
});
