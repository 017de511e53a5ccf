import type { ChildProcess } from "node:child_process";
import { SMTPServer, type SMTPServerSession } from "smtp-server";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { SMTP_POOL_CONNECTIONS } from "../../server/anon/mail.ts";
import { downAlerts } from "../api/with-engine.ts";
import {
  client,
  makeApp,
  seedOwner,
  spawnPorchlight,
  sqliteKind,
  stopChild,
  TestClock,
  testConfig,
  useStore,
} from "../helpers.ts";
import { insertConfirmedSubscribers } from "../support/fixtures.ts";

/**
 * Issue 30: "fan-out never delays alerts to owners". A real `porchlight worker` tells 200 subscribers of an incident
 * through an SMTP server in this process that takes their messages and never answers them, so every connection the
 * subscribers' mail may use is held. An owner's e-mail alert written then still reaches the same server, while all
 * those connections are still held: the owners' alerts go over SMTP connections of their own (cli/engine.ts
 * createSenders), not behind the fan-out's.
 */
const SUBSCRIBERS = 200;
const OWNER = "owner@owner.test";

/** Subscribers' messages the server holds unanswered, by session; the owner's messages received. */
const held = new Map<string, () => void>();
const closedWhileHeld: string[] = [];
let ownerMail: { subject: string; heldThen: number }[] = [];
let smtp: SMTPServer;
let smtpPort = 0;

const isSubscriber = (session: SMTPServerSession) => session.envelope.rcptTo.some((r) => r.address !== OWNER);

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    maxClients: 100,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        if (isSubscriber(session)) {
          // Taken, never answered: the connection stays busy with this message.
          held.set(session.id, () => callback(new Error("closing")));
          return;
        }
        const subject = /^Subject: (.*)$/im.exec(Buffer.concat(chunks).toString("utf8"))?.[1] ?? "";
        ownerMail.push({ subject, heldThen: held.size });
        callback();
      });
    },
    onClose(session) {
      if (held.delete(session.id)) closedWhileHeld.push(session.id);
    },
  });
  smtp.on("error", () => {});
  await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", resolve));
  smtpPort = (smtp.server.address() as { port: number }).port;
});
/** The worker, stopped here too: a test cut off by its time limit never reaches its own finally. */
let worker: ChildProcess | undefined;

afterAll(async () => {
  if (worker) await stopChild(worker, "SIGKILL");
  for (const release of held.values()) release();
  await new Promise<void>((resolve) => smtp?.close(() => resolve()));
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("a fan-out holding every subscriber connection does not hold an owner's alert [sqlite]", () => {
  const opened = useStore(sqliteKind);

  test(`with all ${SMTP_POOL_CONNECTIONS} of the notices' SMTP connections held, an owner's e-mail alert is delivered`, async () => {
    const { store } = opened;
    ownerMail = [];
    // The real clock: the notice is written now, after the subscribers confirmed, as the worker sees it.
    const { app } = makeApp(store, { clock: new TestClock(new Date()) });
    const api = client(app, (await seedOwner(store, "stack")).token);
    const page = (await api.post("/public/v1/status-pages", { name: "Share Status", slug: "share" })).json.data;
    await api.patch(`/public/v1/status-pages/${page.id}`, { subscriptions: { enabled: true } });
    await insertConfirmedSubscribers(store, Number(page.id), SUBSCRIBERS);
    const made = await api.post(`/public/v1/status-pages/${page.id}/incidents`, {
      title: "Checkout is slow",
      message: "Looking into it.",
    });
    expect(made.status).toBe(201);
    const channel = (
      await api.post("/public/v1/alert-channels", { name: "Inbox", type: "email", config: { to: [OWNER] } })
    ).json.data;
    // Paused: the worker's engine checks nothing, so the only owner's alert is the one written below.
    const site = (await api.post("/public/v1/sites", { url: "https://shop.example.com", name: "Shop", pause: true }))
      .json.data;

    const { child, output } = spawnPorchlight(["worker", "--region", "local"], {
      DATABASE_URL: "",
      PORCHLIGHT_DATA_DIR: opened.dataDir,
      PORCHLIGHT_SECRET_KEY: testConfig().secretKey as string,
      SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
      PORCHLIGHT_MAIL_FROM: "Status <status@share.test>",
      LOG_LEVEL: "warn",
    });
    const running: ChildProcess = child;
    worker = child;
    try {
      // The fan-out fills every connection its mailer may open, each with a message the server never answers.
      while (held.size < SMTP_POOL_CONNECTIONS && running.exitCode === null) await sleep(20);
      expect(held.size, output()).toBe(SMTP_POOL_CONNECTIONS);

      const { workspace_id } = await store.db
        .selectFrom("sites")
        .select("workspace_id")
        .where("id", "=", site.id)
        .executeTakeFirstOrThrow();
      await store.db.transaction().execute((trx) =>
        store.alerts.insertOutbox(
          trx,
          downAlerts({
            ids: ["evt_owner_share"],
            now: new Date().toISOString(),
            workspaceId: workspace_id,
            channelId: channel.id,
            site: { id: site.id, name: "Shop", url: site.url },
          }),
        ),
      );
      // Waited for past the mail socket's 30 s timeout, after which a shared pool would free a held connection.
      const until = Date.now() + 45_000;
      while (ownerMail.length === 0 && running.exitCode === null && Date.now() < until) await sleep(20);
      expect(ownerMail, output()).toHaveLength(1);
      expect(ownerMail[0]?.subject).toContain("Shop");
      // It came while the subscribers' messages were all still held: it did not wait for one of their connections.
      expect(ownerMail[0]?.heldThen).toBe(SMTP_POOL_CONNECTIONS);
      expect(closedWhileHeld).toEqual([]);
      // And the fan-out opened no more connections than its own pool: the owner's was not one of them.
      expect(held.size).toBe(SMTP_POOL_CONNECTIONS);
    } finally {
      for (const release of held.values()) release();
      await stopChild(running, "SIGTERM");
    }
  }, 90_000);
});
