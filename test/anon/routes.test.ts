import { createServer as createHttpServer, type Server } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import PostalMime from "postal-mime";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, expect, test } from "vitest";
import { createMailer, type Mailer } from "../../server/anon/mail.ts";
import { createAnonRunner } from "../../server/anon/setup.ts";
import { ErrorEnvelope } from "../../server/contract/common.ts";
import { createLogger } from "../../server/log.ts";
import type { Store } from "../../server/store/store.ts";
import { client, describeStores, fromAddress, makeApp, seedOwner, TestClock, testConfig } from "../helpers.ts";
import { makeCertificates } from "../support/certificates.ts";

/*
 * The anonymous utilities end to end, on both stores: the routes, the runner with the production address policy
 * (plus one explicit exception, 127.0.0.2, where the test's "public" site, RDAP server live), mail through a real
 * SMTP server in this process.
 */

const SITE_ADDRESS = "127.0.0.2";
const servers: Server[] = [];
const received: { to: string; raw: string }[] = [];
let smtp: SMTPServer;
let smtpPort = 0;
let sitePort = 0;
let rdapPort = 0;
let ca = "";
let siteMode: "up" | "down" = "up";

const listen = (server: Server, host = SITE_ADDRESS) =>
  new Promise<number>((resolve) => {
    servers.push(server);
    server.listen(0, host, () => resolve((server.address() as AddressInfo).port));
  });

// Made for the real clock (TLS reads it); the snapshot's clock starts where they were issued, and the domain's
// expiry is a fixed distance from there, so no figure depends on today.
const certs = makeCertificates();
const DOMAIN_EXPIRES = new Date(certs.issuedAt.getTime() + 1500 * 86_400_000).toISOString();

beforeAll(async () => {
  ca = certs.ca;
  // The "public" site: Cloudflare's headers, WordPress's HTML, over https with a certificate for example.com.
  sitePort = await listen(
    createHttpsServer(certs.valid, (_req, res) => {
      if (siteMode === "down") {
        res.writeHead(503).end("down");
        return;
      }
      res.writeHead(200, { "content-type": "text/html", "cf-ray": "8a1b2c3d4e5f-AMS", server: "cloudflare" });
      res.end('<html><head><meta name="generator" content="WordPress 6.6"></head><body>shop</body></html>');
    }),
  );
  rdapPort = await listen(
    createHttpServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/rdap+json" });
      res.end(
        JSON.stringify({
          events: [{ eventAction: "expiration", eventDate: DOMAIN_EXPIRES }],
          entities: [{ roles: ["registrar"], vcardArray: ["vcard", [["fn", {}, "text", "Test Registrar Inc."]]] }],
        }),
      );
    }),
  );
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    onRcptTo(address, _session, callback) {
      if (address.address.startsWith("bounce")) callback(new Error("550 no such user"));
      else callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        received.push({
          to: session.envelope.rcptTo[0]?.address ?? "",
          raw: Buffer.concat(chunks).toString("utf8"),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", () => resolve()));
  smtpPort = (smtp.server.address() as AddressInfo).port;
});

afterAll(async () => {
  for (const server of servers) server.closeAllConnections();
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
});

/** Every name of the test resolves to the one allowed address; the site listens on a non-default port. */
function setup(store: Store, env: Record<string, string> = {}) {
  const clock = new TestClock(certs.issuedAt);
  const config = testConfig({ SMTP_URL: `smtp://127.0.0.1:${smtpPort}`, ...env });
  const logger = createLogger("silent");
  const mailer: Mailer = createMailer({
    smtpUrl: config.smtpUrl,
    from: config.mailFrom,
    dataDir: config.dataDir,
    logger,
  });
  const { app } = makeApp(store, { clock, env: { SMTP_URL: `smtp://127.0.0.1:${smtpPort}`, ...env }, mailer });
  const runner = () =>
    createAnonRunner({
      store,
      config,
      logger,
      mailer,
      clock,
      policy: {
        resolve: async () => [SITE_ADDRESS],
        allowAddresses: new Set([SITE_ADDRESS]),
        extraCa: [ca],
      },
      ports: { https: sitePort, http: sitePort },
      bootstrap: { services: [[["com"], [`http://${SITE_ADDRESS}:${rdapPort}/`]]] },
    });
  return { app, clock, runner, api: client(app) };
}

async function parsed(raw: string) {
  return PostalMime.parse(raw);
}

describeStores("anonymous utilities", (kind) => {
  let store: Store;
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    ({ store, cleanup } = await kind.open());
  });
  afterAll(() => cleanup());

  test("a snapshot is queued, taken by the runner and read back ready, with every fact", async () => {
    const { api, runner } = setup(store);
    const asked = await api.post("/public/anon/domain-snapshot", { domain: "https://Shop.Example.com/pricing" });
    expect(asked.status).toBe(202);
    expect(asked.json.success).toBe(true);
    const id = asked.json.data.snapshotId as string;
    expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(asked.json.data.pollAfterMs).toBeGreaterThan(0);
    expect(asked.headers.get("ratelimit-policy")).toBe('"snapshot";q=10;w=60');

    const queued = await api.get(`/public/anon/domain-snapshot/${id}`, { "x-api-key": "anything" });
    expect(queued.status).toBe(200);
    expect(queued.json.data.status).toBe("queued");

    await runner().tick();
    const ready = await api.get(`/public/anon/domain-snapshot/${id}`);
    expect(ready.json.message).toMatch(/ready/i);
    expect(ready.json.data.status).toBe("ready");
    const snap = ready.json.data.snapshot;
    expect(snap.domain).toBe("shop.example.com");
    expect(snap.snapshot).toMatchObject({
      reachable: true,
      httpStatus: 200,
      cloudflareChallenge: false,
      redirects: 0,
      cdn: "Cloudflare",
      cms: "WordPress",
      ssl: { valid: true },
      domainMeta: { registrar: "Test Registrar Inc.", expirationDate: DOMAIN_EXPIRES },
    });
    expect(snap.snapshot.ssl.daysLeft).toBe(10);
    expect(snap.snapshot.domainMeta.daysLeft).toBe(1500);

    // The same domain again within the reuse window: the same snapshot, no new job.
    const again = await api.post("/public/anon/domain-snapshot", { domain: "shop.example.com" });
    expect(again.json.data.snapshotId).toBe(id);
  });

  test("a snapshot queued or running when the process stops is finished by the next one", async () => {
    const { api, runner, clock } = setup(store);
    const asked = await api.post("/public/anon/domain-snapshot", { domain: "restart.example.com" });
    const id = asked.json.data.snapshotId as string;
    // A process claimed it and died: the row says running, under a lease that nobody will release.
    await store.db
      .updateTable("anon_snapshots")
      .set({ status: "running", attempts: 1, lease_until: new Date(clock.now().getTime() + 120_000).toISOString() })
      .where("id", "=", id)
      .execute();
    await runner().tick();
    expect((await api.get(`/public/anon/domain-snapshot/${id}`)).json.data.status).toBe("running");
    clock.advance(121_000);
    await runner().tick();
    const done = await api.get(`/public/anon/domain-snapshot/${id}`);
    expect(done.json.data.status).toBe("ready");
    expect(done.json.data.snapshot.snapshot.reachable).toBe(true);
  });

  test("bad input is a 400 (or 404, 415) in the envelope, never a 500, and writes nothing", async () => {
    const { api } = setup(store, { PORCHLIGHT_SNAPSHOTS_PER_MINUTE: "1000" });
    const before = await store.db.selectFrom("anon_snapshots").select("id").execute();
    const cases: [unknown, number, RegExp][] = [
      [{ domain: "127.0.0.1" }, 400, /IP address/i],
      [{ domain: "2130706433" }, 400, /IP address/i],
      [{ domain: "[::1]" }, 400, /IP address/i],
      [{ domain: "example.com:8080" }, 400, /port/i],
      [{ domain: "ftp://example.com" }, 400, /.+/],
      [{ domain: "user@example.com" }, 400, /.+/],
      [{ domain: "localhost" }, 400, /.+/],
      [{ domain: "intranet.local" }, 400, /.+/],
      [{ domain: "a".repeat(3000) }, 400, /.+/],
      [{ domain: 42 }, 400, /domain/],
      [{}, 400, /domain/],
      [{ domain: "example.com", extra: 1 }, 400, /extra/],
      ["not json", 400, /JSON/],
    ];
    for (const [body, status, message] of cases) {
      const res = await api.post("/public/anon/domain-snapshot", body);
      expect(res.status, JSON.stringify(body).slice(0, 60)).toBe(status);
      expect(ErrorEnvelope.parse(res.json).message).toMatch(message);
    }
    const plain = await api.post("/public/anon/domain-snapshot", "domain=example.com", {
      "content-type": "application/x-www-form-urlencoded",
    });
    expect(plain.status).toBe(415);
    expect((await api.get("/public/anon/domain-snapshot/nope")).status).toBe(404);
    // An id that cannot exist is a 404 like an unknown one, without a query.
    expect((await api.get(`/public/anon/domain-snapshot/${"x".repeat(100)}`)).status).toBe(404);
    const after = await store.db.selectFrom("anon_snapshots").select("id").execute();
    expect(after.length).toBe(before.length);
  });

  test("over the limit: 429, Rate Limited, Retry-After and the RateLimit headers, per client", async () => {
    const { app } = setup(store, { PORCHLIGHT_SNAPSHOTS_PER_MINUTE: "2" });
    const ask = (from: string) =>
      app.request(
        "/public/anon/domain-snapshot",
        { method: "POST", headers: { "content-type": "application/json" }, body: '{"domain":"limit.example.com"}' },
        fromAddress(from),
      );
    expect((await ask("2001:db8:1:2::1")).status).toBe(202);
    expect((await ask("2001:db8:1:2::99")).status).toBe(202);
    const refused = await ask("2001:db8:1:2:ffff::1");
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({ success: false, message: "Rate Limited", code: 429, error: "rate_limited" });
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get("ratelimit-policy")).toBe('"snapshot";q=2;w=60');
    expect(refused.headers.get("ratelimit")).toMatch(/^"snapshot";r=0;t=\d+$/);
    // Another /64 is another client.
    expect((await ask("2001:db8:1:3::1")).status).toBe(202);
  });

  test("the 24-hour report: double opt-in, checks across a restart, one report e-mail, one-click unsubscribe", async () => {
    const { api, runner, clock } = setup(store, { PORCHLIGHT_REPORT_INTERVAL_MINUTES: "60" });
    received.length = 0;
    siteMode = "up";
    const asked = await api.post("/public/anon/domain-report-24h", {
      domain: "report.example.com",
      email: "Ann@Example.org",
    });
    expect(asked.status).toBe(202);
    expect(asked.json.data).toMatchObject({ status: "confirmation_sent", domain: "report.example.com" });
    expect(received).toHaveLength(1);
    const confirmation = await parsed(received[0]?.raw ?? "");
    expect(confirmation.subject).toMatch(/report\.example\.com/);
    const link = /https?:\/\/[^\s"<>]+\/confirm\?token=[A-Za-z0-9_-]+/.exec(confirmation.text ?? "")?.[0] ?? "";
    expect(link).not.toBe("");
    const path = new URL(link).pathname + new URL(link).search;

    // Opening the link (as a mail scanner would) starts nothing; the page's button does.
    const page = await api.get(path);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toContain("form-action 'self'");
    expect(page.text).toContain('method="post"');
    const state = async () =>
      (
        await store.db
          .selectFrom("anon_reports")
          .select("state")
          .where("domain", "=", "report.example.com")
          .executeTakeFirstOrThrow()
      ).state;
    expect(await state()).toBe("pending");
    const token = new URL(link).searchParams.get("token") ?? "";
    const confirmed = await api.post("/public/anon/domain-report-24h/confirm", `token=${token}`, {
      "content-type": "application/x-www-form-urlencoded",
    });
    expect(confirmed.status).toBe(200);
    expect(confirmed.text).toContain("Confirmed");
    expect(await state()).toBe("active");

    // Twelve hours of checks (the site fails for two of them), a restart, then the other twelve.
    let current = runner();
    for (let hour = 0; hour <= 24; hour++) {
      siteMode = hour === 5 || hour === 6 ? "down" : "up";
      if (hour === 12) {
        await current.stop();
        current = runner();
      }
      await current.tick();
      clock.advance(3_600_000);
    }
    await current.tick();
    await current.tick();
    expect(await state()).toBe("sent");
    const reports = received.slice(1);
    expect(reports).toHaveLength(1);
    expect(reports[0]?.to).toBe("ann@example.org");
    const report = await parsed(reports[0]?.raw ?? "");
    expect(report.subject).toMatch(/report\.example\.com/);
    expect(report.html).toContain("WordPress");
    expect(report.text).toMatch(/503/);
    const unsubscribe = report.headers.find((h) => h.key === "list-unsubscribe")?.value ?? "";
    expect(report.headers.find((h) => h.key === "list-unsubscribe-post")?.value).toBe("List-Unsubscribe=One-Click");
    const checks = await store.db.selectFrom("anon_report_checks").select(["at", "ok"]).execute();
    expect(checks.filter((c) => c.ok === 0)).toHaveLength(2);
    expect(new Set(checks.map((c) => c.at)).size).toBe(checks.length);

    // RFC 8058: the mail client posts List-Unsubscribe=One-Click to the link itself.
    const oneClick = new URL(/<([^>]+)>/.exec(unsubscribe)?.[1] ?? "");
    const posted = await api.post(oneClick.pathname + oneClick.search, "List-Unsubscribe=One-Click", {
      "content-type": "application/x-www-form-urlencoded",
    });
    expect(posted.status).toBe(200);
    await current.tick();
    expect(received.slice(1)).toHaveLength(1);
  });

  test("one pending confirmation per address a day; a mail server's refusal leaves nothing behind", async () => {
    const { api } = setup(store, { PORCHLIGHT_REPORTS_PER_HOUR: "100" });
    received.length = 0;
    const first = await api.post("/public/anon/domain-report-24h", {
      domain: "once.example.com",
      email: "bob@example.org",
    });
    expect(first.status).toBe(202);
    const second = await api.post("/public/anon/domain-report-24h", {
      domain: "other.example.com",
      email: "BOB@example.org",
    });
    expect(second.status).toBe(429);
    expect(second.json.message).toBe("Rate Limited");
    expect(Number(second.headers.get("retry-after"))).toBeGreaterThan(3600);
    expect(received).toHaveLength(1);

    const bounced = await api.post("/public/anon/domain-report-24h", {
      domain: "bounce.example.com",
      email: "bounce@example.org",
    });
    expect(bounced.status).toBe(503);
    const left = await store.db
      .selectFrom("anon_reports")
      .select("id")
      .where("email", "=", "bounce@example.org")
      .execute();
    expect(left).toHaveLength(0);
    for (const body of [
      { domain: "example.com" },
      { domain: "example.com", email: "not-an-address" },
      { email: "a@b.org" },
    ]) {
      const res = await api.post("/public/anon/domain-report-24h", body);
      expect(res.status).toBe(400);
      ErrorEnvelope.parse(res.json);
    }
    expect((await api.get("/public/anon/domain-report-24h/confirm?token=nope")).status).toBe(404);
    expect((await api.post("/public/anon/domain-report-24h/unsubscribe?token=nope", "")).status).toBe(404);
  });

  test("the authenticated API has its own per-token limit with the same 429", async () => {
    const { app } = setup(store, { PORCHLIGHT_API_REQUESTS_PER_MINUTE: "2" });
    const owner = await seedOwner(store);
    const api = client(app, owner.token);
    expect((await api.get("/public/v1/sites")).status).toBe(200);
    const second = await api.get("/public/v1/sites");
    expect(second.headers.get("ratelimit-policy")).toBe('"api";q=2;w=60');
    expect((await api.get("/public/v1/sites")).status).toBe(429);
  });
});
