import type { ChildProcess } from "node:child_process";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  client,
  hasPostgres,
  makeApp,
  postgresKind,
  type StoreKind,
  seedOwner,
  spawnPorchlight,
  stopChild,
  TestClock,
  testConfig,
  useStore,
} from "../helpers.ts";
import { insertConfirmedSubscribers } from "../support/fixtures.ts";

/**
 * Issue 30, a fan-out through SIGKILL: `porchlight worker` processes (each with its subscribers' sender) killed with
 * SIGKILL at random moments, 10 times, while they fan one incident's notice out to 5,000 subscribers and mail it to
 * an SMTP server in this process; after the last ones run to the end, every subscriber received the notice, and
 * every copy an address received is the same message (one Message-ID per address). Delivery is at least once: a
 * message the mail server accepted but whose outcome its killed sender had not yet recorded is sent again, with the
 * same Message-ID, by which mail servers and clients know a repeat; those repeats are counted and bounded by what the
 * kills interrupted. Two workers run at once on PostgreSQL, their claims meeting.
 */
const SUBSCRIBERS = 5000;
const KILLS = 10;
const LEASE_SECONDS = 10;
/** Messages a sender has under way at once (cli/engine.ts NOTICE_SLOTS). */
const SLOTS = 32;
const workersOf = (kind: StoreKind) => (kind.name === "postgres" ? 2 : 1);

/** Each message received: its recipient and its Message-ID. */
let received: { to: string; messageId: string }[] = [];
let smtp: SMTPServer;
let smtpPort = 0;

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
        const raw = Buffer.concat(chunks).toString("utf8");
        const messageId = /^Message-ID: (.*)$/im.exec(raw)?.[1]?.trim() ?? "";
        for (const rcpt of session.envelope.rcptTo) received.push({ to: rcpt.address, messageId });
        // A moment's work, different each time: kills land before sending, while the server takes a message, and
        // between its acceptance and the sender's record of it.
        setTimeout(callback, Math.floor(Math.random() * 5));
      });
    },
  });
  // A killed worker's connections end in a reset: the server's to shrug off, as a real one does.
  smtp.on("error", () => {});
  await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", resolve));
  smtpPort = (smtp.server.address() as { port: number }).port;
});
afterAll(async () => {
  await new Promise<void>((resolve) => smtp?.close(() => resolve()));
});

const killed = (child: ChildProcess) => stopChild(child, "SIGKILL");
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// PostgreSQL only: two workers claiming side by side is the case the kills test (SQLite runs one worker at a time,
// and the alerts' crash test already kills SQLite workers); CI runs the suite four times, and time counts.
describe.skipIf(!hasPostgres)(
  `a subscribers' fan-out through SIGKILL [postgres]${hasPostgres ? "" : " (skipped: no PostgreSQL)"}`,
  () => {
    const kind = postgresKind;
    const opened = useStore(kind);
    const WORKERS = workersOf(kind);

    const env = () => ({
      DATABASE_URL: opened.databaseUrl ?? "",
      PORCHLIGHT_DATA_DIR: opened.dataDir,
      PORCHLIGHT_SECRET_KEY: testConfig().secretKey as string,
      PORCHLIGHT_ALERT_LEASE_SECONDS: String(LEASE_SECONDS),
      SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
      PORCHLIGHT_MAIL_FROM: "Status <status@crash.test>",
      LOG_LEVEL: "warn",
    });

    /** Deliveries still to send, and notices still to fan out. */
    const waiting = async () => {
      const { db } = opened.store;
      const deliveries = await db
        .selectFrom("subscriber_deliveries")
        .select((eb) => eb.fn.countAll().as("n"))
        .where("state", "=", "pending")
        .executeTakeFirstOrThrow();
      const notices = await db
        .selectFrom("subscriber_notices")
        .select((eb) => eb.fn.countAll().as("n"))
        .where("fanned_out_at", "is", null)
        .executeTakeFirstOrThrow();
      return Number(deliveries.n) + Number(notices.n);
    };

    test(`${KILLS} workers (${WORKERS} at once) killed at random moments during a fan-out to ${SUBSCRIBERS} subscribers: each address gets the notice, every copy the same message`, async () => {
      const { store } = opened;
      received = [];
      // The real clock: the notice is written now, after the subscribers confirmed.
      const { app } = makeApp(store, { clock: new TestClock(new Date()) });
      const api = client(app, (await seedOwner(store, "stack")).token);
      const page = (await api.post("/public/v1/status-pages", { name: "Crash Status", slug: "crash" })).json.data;
      await api.patch(`/public/v1/status-pages/${page.id}`, { subscriptions: { enabled: true } });
      await insertConfirmedSubscribers(store, Number(page.id), SUBSCRIBERS);
      const made = await api.post(`/public/v1/status-pages/${page.id}/incidents`, {
        title: "Checkout is slow",
        message: "Looking into it.",
      });
      expect(made.status).toBe(201);

      const spawned: ChildProcess[] = [];
      const worker = () => {
        const running = spawnPorchlight(["worker", "--region", "local"], env());
        spawned.push(running.child);
        return running;
      };
      let kills = 0;
      let receivedWhileKilling = 0;
      try {
        while (kills < KILLS && (await waiting()) > 0) {
          const wave = Array.from({ length: Math.min(WORKERS, KILLS - kills) }, worker);
          // Once the wave has sent something, each of its workers dies at a random moment.
          const before = received.length;
          const started = Date.now();
          const exited = () => wave.some(({ child }) => child.exitCode !== null);
          while (received.length === before && !exited() && Date.now() - started < (LEASE_SECONDS + 20) * 1000) {
            await sleep(5);
          }
          expect(exited(), wave.map((w) => w.output()).join("\n")).toBe(false);
          await Promise.all(
            wave.map(async ({ child }) => {
              await sleep(Math.floor(Math.random() * 400));
              await killed(child);
            }),
          );
          kills += wave.length;
        }
        receivedWhileKilling = received.length;
        // The last workers run until nothing waits: the killed ones' claims expire and they take them over.
        const last = Array.from({ length: WORKERS }, worker);
        const deadline = Date.now() + (LEASE_SECONDS + 90) * 1000;
        while ((await waiting()) > 0 && Date.now() < deadline) await sleep(250);
        const output = last.map((w) => w.output()).join("\n");
        expect(await waiting(), output).toBe(0);

        const byAddress = new Map<string, Set<string>>();
        const copies = new Map<string, number>();
        for (const { to, messageId } of received) {
          byAddress.set(to, (byAddress.get(to) ?? new Set()).add(messageId));
          copies.set(to, (copies.get(to) ?? 0) + 1);
        }
        // Every subscriber, and no one else, got the notice.
        expect(byAddress.size).toBe(SUBSCRIBERS);
        expect([...byAddress.keys()].every((a) => /^s\d+@bench\.test$/.test(a))).toBe(true);
        // Every copy an address got is one message: its Message-ID names the notice and the subscriber.
        const mixed = [...byAddress].filter(([, ids]) => ids.size !== 1);
        expect(mixed).toEqual([]);
        expect(
          [...byAddress.values()].every((ids) => /^<(incident|notice)-\d+\.sub_[0-9a-f]{24}@/.test([...ids][0] ?? "")),
        ).toBe(true);
        // Repeats come only from messages under way when their process was killed: at most its slots' worth per kill.
        const repeats = received.length - SUBSCRIBERS;
        expect(repeats).toBeLessThanOrEqual(kills * SLOTS);
        // The kills landed while the workers sent, and all of them happened.
        expect(kills).toBe(KILLS);
        expect(receivedWhileKilling).toBeGreaterThan(0);
        const { n: delivered } = await store.db
          .selectFrom("subscriber_deliveries")
          .select((eb) => eb.fn.countAll().as("n"))
          .where("state", "=", "delivered")
          .executeTakeFirstOrThrow();
        expect(Number(delivered)).toBe(SUBSCRIBERS);
        console.info(
          `[${kind.name}] ${kills} kills; ${received.length} messages for ${SUBSCRIBERS} subscribers (${repeats} repeats, ` +
            `${[...copies.values()].filter((n) => n > 1).length} addresses with a repeat); ${receivedWhileKilling} sent while killing`,
        );
      } finally {
        await Promise.all(spawned.map((child) => stopChild(child, "SIGTERM")));
      }
    }, 240_000);
  },
);
