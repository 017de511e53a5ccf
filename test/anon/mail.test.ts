import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { type AddressInfo, createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import PostalMime from "postal-mime";
import { SMTPServer, type SMTPServerOptions } from "smtp-server";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  confirmationEmail,
  type ReportCheck,
  type ReportData,
  reportEmail,
  summarize,
} from "../../server/anon/emails.ts";
import { createMailer, MailSendError } from "../../server/anon/mail.ts";
import { createLogger } from "../../server/log.ts";

const XSS = "<img src=x onerror=alert(1)>";
const FROM = "Porchlight <porchlight@test.example>";
const TO = "ada.lovelace@mail.example";
const USER = "mailer";
// Reserved URL characters in the password: the URL carries it percent-encoded, the server receives it decoded.
const PASSWORD = "s3cr#t/P@ss";
const PASSWORD_IN_URL = encodeURIComponent(PASSWORD);
const UNSUBSCRIBE = "https://porchlight.test/r/unsubscribe/tok123";
const START = Date.parse("2026-03-01T10:00:00.000Z");

function at(minutes: number): string {
  return new Date(START + minutes * 60_000).toISOString();
}

function check(minutes: number, ok: boolean, extra: Partial<ReportCheck> = {}): ReportCheck {
  return { at: at(minutes), ok, statusCode: ok ? 200 : null, responseTimeMs: ok ? 100 : null, error: null, ...extra };
}

/** 24 hours every 5 minutes (288 checks), response time rising with the hour, down 12:00–12:10 with HTTP 503. */
function dayOfChecks(): ReportCheck[] {
  const checks: ReportCheck[] = [];
  for (let m = 0; m < 24 * 60; m += 5) {
    const down = m >= 120 && m <= 130;
    checks.push(
      down
        ? check(m, false, { statusCode: 503, responseTimeMs: 12 })
        : check(m, true, { responseTimeMs: 100 + Math.floor(m / 60) * 10 }),
    );
  }
  return checks;
}

function reportData(overrides: Partial<ReportData> = {}): ReportData {
  return {
    domain: "example.com",
    startedAt: at(0),
    endedAt: at(24 * 60),
    intervalMinutes: 5,
    checks: dayOfChecks(),
    ssl: { valid: true, daysLeft: 45 },
    domainMeta: { registrar: "Example Registrar, Inc.", expirationDate: "2027-01-15T00:00:00Z", daysLeft: 320 },
    cdn: "Cloudflare",
    cms: "WordPress",
    ...overrides,
  };
}

/** A pino logger whose lines the test reads. */
function capturedLogger() {
  const lines: string[] = [];
  const logger = createLogger("debug", { write: (line: string) => void lines.push(line) });
  return { logger, lines, text: () => lines.join("") };
}

interface Received {
  raw: string;
  from: string | undefined;
  to: string[];
}

/** A real SMTP server on 127.0.0.1 that keeps every message it accepts. */
async function startSmtp(options: SMTPServerOptions = {}) {
  const received: Received[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    ...options,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        received.push({
          raw: Buffer.concat(chunks).toString("utf8"),
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : undefined,
          to: session.envelope.rcptTo.map((r) => r.address),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    server,
    port,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function header(parsed: Awaited<ReturnType<typeof PostalMime.parse>>, name: string): string | undefined {
  return parsed.headers.find((h) => h.key === name.toLowerCase())?.value;
}

describe("SMTP mode", () => {
  let plain: Awaited<ReturnType<typeof startSmtp>>;
  let authed: Awaited<ReturnType<typeof startSmtp>>;
  let rejecting: Awaited<ReturnType<typeof startSmtp>>;
  const logins: { username: string | null | undefined; password: string | null | undefined }[] = [];

  beforeAll(async () => {
    plain = await startSmtp();
    authed = await startSmtp({
      authOptional: false,
      allowInsecureAuth: true,
      onAuth(auth, _session, callback) {
        logins.push({ username: auth.username, password: auth.password });
        if (auth.username === USER && auth.password === PASSWORD) callback(null, { user: USER });
        else callback(Object.assign(new Error("Invalid username or password"), { responseCode: 535 }));
      },
    });
    rejecting = await startSmtp({
      authOptional: false,
      allowInsecureAuth: true,
      // A careless server that quotes the login's password back in its reply: the mailer must still not repeat it.
      onAuth(auth, _session, callback) {
        callback(null, { user: auth.password });
      },
      onRcptTo(address, session, callback) {
        callback(
          Object.assign(new Error(`Mailbox unavailable for <${address.address}> (login ${String(session.user)})`), {
            responseCode: 550,
          }),
        );
      },
    });
  });

  afterAll(async () => {
    await Promise.all([plain.close(), authed.close(), rejecting.close()]);
  });

  test("the report arrives with its headers, both parts, the figures and escaped values", async () => {
    const { logger, text: logText } = capturedLogger();
    const mailer = createMailer({
      smtpUrl: `smtp://127.0.0.1:${plain.port}`,
      from: FROM,
      dataDir: "/nonexistent",
      logger,
    });
    expect(mailer.mode).toBe("smtp");
    const checks = dayOfChecks();
    checks[200] = check(1000, false, { error: XSS });
    const email = reportEmail(
      reportData({ checks, cdn: XSS, cms: XSS, domainMeta: { registrar: XSS, expirationDate: null, daysLeft: null } }),
      UNSUBSCRIBE,
    );
    const sent = await mailer.send({ to: TO, ...email });
    mailer.close();

    expect(plain.received).toHaveLength(1);
    const got = plain.received[0] as Received;
    expect(got.from).toBe("porchlight@test.example");
    expect(got.to).toEqual([TO]);
    const parsed = await PostalMime.parse(got.raw);
    expect(parsed.messageId).toBe(sent.messageId);
    expect(parsed.from?.address).toBe("porchlight@test.example");
    expect(parsed.to?.map((a) => a.address)).toEqual([TO]);
    // 288 checks, 3 down at 12:00–12:10 and one more at 02:40 the next day: 284 of 288.
    expect(parsed.subject).toBe("24-hour report for example.com: 98.6% up");
    expect(header(parsed, "List-Unsubscribe")).toBe(`<${UNSUBSCRIBE}>`);
    expect(header(parsed, "List-Unsubscribe-Post")).toBe("List-Unsubscribe=One-Click");

    const text = parsed.text ?? "";
    const html = parsed.html ?? "";
    expect(text).toContain("98.6% up: 284 of 288 checks succeeded (one check every 5 minutes)");
    expect(html).toContain("98.6% up: 284 of 288 checks succeeded");
    // The outage period, grouped, in both parts.
    expect(text).toContain("- 2026-03-01 12:00 UTC to 2026-03-01 12:10 UTC: 3 failed checks: HTTP 503");
    expect(html).toContain("2026-03-01 12:00 UTC to 2026-03-01 12:10 UTC: 3 failed checks: HTTP 503");
    // The chart: one line of 24 hour characters in text, 24 bar cells in HTML.
    const chartLine = text.split("\n").find((line) => /^[▁▂▃▄▅▆▇█·×]{24}$/u.test(line));
    expect(chartLine).toBeDefined();
    expect(chartLine?.endsWith("█")).toBe(true);
    expect(html.match(/<td title="\d\d:\d\d /g)).toHaveLength(24);
    expect(html).toContain("<caption");
    expect(html).toMatch(
      /<table role="img" aria-label="Average response time of successful checks per hour \(UTC\): 10:00 100 ms;/,
    );
    // Every outside value is escaped: no raw tag, the escaped text is there.
    expect(html).not.toContain("<img");
    expect(html).toContain("&lt;img src=x onerror=alert(1)&gt;");
    expect(text).toContain(`CDN: ${XSS}`);
    expect(html).toContain('<meta charset="utf-8">');
    expect(html).toContain(`href="${UNSUBSCRIBE}"`);
    expect(text).toContain(`Unsubscribe: ${UNSUBSCRIBE}`);
    expect(text).toContain("nothing more will be sent");
    // The log names the recipient's domain, not the address.
    expect(logText()).toContain('"toDomain":"mail.example"');
    expect(logText()).not.toContain(TO);
  });

  test("a malicious domain is escaped in the HTML of the report and the confirmation", async () => {
    const mailer = createMailer({
      smtpUrl: `smtp://127.0.0.1:${plain.port}`,
      from: FROM,
      dataDir: "/nonexistent",
      logger: capturedLogger().logger,
    });
    const before = plain.received.length;
    await mailer.send({ to: TO, ...reportEmail(reportData({ domain: XSS }), UNSUBSCRIBE) });
    await mailer.send({
      to: TO,
      ...confirmationEmail({ domain: XSS, confirmUrl: "https://porchlight.test/r/confirm/abc", expiresHours: 24 }),
    });
    mailer.close();
    for (const got of plain.received.slice(before)) {
      const parsed = await PostalMime.parse(got.raw);
      expect(parsed.subject).toContain(XSS);
      expect(parsed.html).not.toContain("<img");
      expect(parsed.html).toContain("&lt;img src=x onerror=alert(1)&gt;");
    }
    expect(plain.received.length - before).toBe(2);
  });

  test("user:password from the URL logs in", async () => {
    const { logger, text: logText } = capturedLogger();
    const mailer = createMailer({
      smtpUrl: `smtp://${USER}:${PASSWORD_IN_URL}@127.0.0.1:${authed.port}`,
      from: FROM,
      dataDir: "/nonexistent",
      logger,
    });
    const confirmation = confirmationEmail({
      domain: "example.com",
      confirmUrl: "https://porchlight.test/r/confirm/abc",
      expiresHours: 24,
    });
    await mailer.send({ to: TO, ...confirmation });
    mailer.close();
    expect(logins).toContainEqual({ username: USER, password: PASSWORD });
    expect(authed.received).toHaveLength(1);
    const parsed = await PostalMime.parse((authed.received[0] as Received).raw);
    expect(parsed.subject).toBe("Confirm your 24-hour report for example.com");
    expect(header(parsed, "List-Unsubscribe")).toBeUndefined();
    expect(logText()).not.toContain(PASSWORD);
    expect(logText()).not.toContain(PASSWORD_IN_URL);
  });

  test("a wrong password fails with the server's reply and without the password", async () => {
    const { logger, text: logText } = capturedLogger();
    const wrong = "Wr0ng%23pass";
    const mailer = createMailer({
      smtpUrl: `smtp://${USER}:${wrong}@127.0.0.1:${authed.port}`,
      from: FROM,
      dataDir: "/nonexistent",
      logger,
    });
    const error = await mailer.send({ to: TO, subject: "s", text: "t", html: "<p>t</p>" }).catch((e: unknown) => e);
    mailer.close();
    expect(error).toBeInstanceOf(MailSendError);
    expect((error as MailSendError).code).toBe("EAUTH");
    expect((error as Error).message).toMatch(/535/);
    for (const secret of [wrong, "Wr0ng#pass"]) {
      expect((error as Error).message).not.toContain(secret);
      expect(logText()).not.toContain(secret);
    }
  });

  test("a rejected recipient rejects with the SMTP reason, no password, no full address", async () => {
    const { logger, text: logText } = capturedLogger();
    const mailer = createMailer({
      smtpUrl: `smtp://${USER}:${PASSWORD_IN_URL}@127.0.0.1:${rejecting.port}`,
      from: FROM,
      dataDir: "/nonexistent",
      logger,
    });
    const error = await mailer.send({ to: TO, ...reportEmail(reportData(), UNSUBSCRIBE) }).catch((e: unknown) => e);
    mailer.close();
    expect(error).toBeInstanceOf(MailSendError);
    const failure = error as MailSendError;
    expect(failure.message).toContain("550 Mailbox unavailable for <***@mail.example> (login ***)");
    expect(failure.message).toContain(`127.0.0.1:${rejecting.port}`);
    expect(failure.responseCode).toBe(550);
    expect(failure.permanent).toBe(true);
    expect(rejecting.received).toHaveLength(0);
    for (const secret of [PASSWORD, PASSWORD_IN_URL, TO]) {
      expect(failure.message).not.toContain(secret);
      expect(JSON.stringify(failure)).not.toContain(secret);
      expect(logText()).not.toContain(secret);
    }
    expect(logText()).toContain("550 Mailbox unavailable");
  });

  test.each([
    ["never greets", "greetingMs", /Greeting never received/, ""],
    ["greets, then goes silent", "socketMs", /Timeout/, "220 stalled.test ESMTP\r\n"],
  ] as const)(
    "a server that %s fails the send after the timeout instead of hanging",
    async (_name, which, reason, greeting) => {
      const sockets = new Set<Socket>();
      const stalled = createServer((socket) => {
        sockets.add(socket);
        if (greeting) socket.write(greeting);
      });
      await new Promise<void>((resolve) => stalled.listen(0, "127.0.0.1", resolve));
      const mailer = createMailer({
        smtpUrl: `smtp://127.0.0.1:${(stalled.address() as AddressInfo).port}`,
        from: FROM,
        dataDir: "/nonexistent",
        logger: capturedLogger().logger,
        timeouts: { connectionMs: 5_000, greetingMs: 5_000, socketMs: 5_000, [which]: 300 },
      });
      const started = Date.now();
      const error = await mailer.send({ to: TO, subject: "s", text: "t", html: "<p>t</p>" }).catch((e: unknown) => e);
      mailer.close();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => stalled.close(() => resolve()));
      expect(error).toBeInstanceOf(MailSendError);
      expect((error as MailSendError).code).toBe("ETIMEDOUT");
      expect((error as Error).message).toMatch(reason);
      expect(Date.now() - started).toBeLessThan(4_000);
    },
  );

  test("a server that is not there fails the send instead of hanging", async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, "127.0.0.1", () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    const mailer = createMailer({
      smtpUrl: `smtp://${USER}:${PASSWORD_IN_URL}@127.0.0.1:${port}`,
      from: FROM,
      dataDir: "/nonexistent",
      logger: capturedLogger().logger,
    });
    const error = await mailer.send({ to: TO, subject: "s", text: "t", html: "<p>t</p>" }).catch((e: unknown) => e);
    mailer.close();
    expect(error).toBeInstanceOf(MailSendError);
    expect((error as Error).message).toMatch(/ECONNREFUSED/);
    expect((error as Error).message).not.toContain(PASSWORD_IN_URL);
  });
});

describe("file mode", () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), "porchlight-mail-"));
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  test("each message becomes one .eml under dataDir/mail, logged by path and domain", async () => {
    const { logger, lines } = capturedLogger();
    const mailer = createMailer({ from: FROM, dataDir, logger });
    expect(mailer.mode).toBe("file");
    const report = reportEmail(reportData(), UNSUBSCRIBE);
    const confirmation = confirmationEmail({
      domain: "example.com",
      confirmUrl: "https://porchlight.test/r/confirm/abc",
      expiresHours: 24,
    });
    const first = await mailer.send({ to: TO, ...report });
    const second = await mailer.send({ to: "bob@other.example", ...confirmation });
    mailer.close();

    const files = readdirSync(join(dataDir, "mail")).sort();
    expect(files).toHaveLength(2);
    for (const name of files) expect(name).toMatch(/^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z-[0-9a-f]{12}\.eml$/);
    expect(first.file).toBeDefined();
    expect([first.file, second.file].sort()).toEqual(files.map((f) => join(dataDir, "mail", f)));
    expect(statSync(first.file as string).mode & 0o777).toBe(0o600);

    const parsed = await PostalMime.parse(readFileSync(first.file as string));
    expect(parsed.messageId).toBe(first.messageId);
    expect(parsed.subject).toBe(report.subject);
    expect(parsed.to?.map((a) => a.address)).toEqual([TO]);
    expect(header(parsed, "List-Unsubscribe")).toBe(`<${UNSUBSCRIBE}>`);
    expect(header(parsed, "List-Unsubscribe-Post")).toBe("List-Unsubscribe=One-Click");
    // 285 of 288 is 98.96%, shown with one decimal as 99.0 and so as 99.
    expect(parsed.html).toContain("99% up: 285 of 288");
    expect(parsed.text).toContain("99% up: 285 of 288");
    expect((await PostalMime.parse(readFileSync(second.file as string))).subject).toBe(confirmation.subject);

    const logged = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(logged).toContainEqual(
      expect.objectContaining({ level: 30, file: first.file, subject: report.subject, toDomain: "mail.example" }),
    );
    expect(logged).toContainEqual(expect.objectContaining({ file: second.file, toDomain: "other.example" }));
    expect(lines.join("")).not.toContain(TO);
    expect(lines.join("")).not.toContain("bob@");
  });

  test("a message's own sender name replaces the configured one, at the configured address, with no header added", async () => {
    const mailer = createMailer({ from: FROM, dataDir, logger: capturedLogger().logger });
    const named = await mailer.send({
      to: TO,
      subject: "Hello",
      text: "Hi",
      html: "<p>Hi</p>",
      fromName: 'Acme "Status"\r\nBcc: victim@example.com — Zürich',
    });
    const plain = await mailer.send({ to: TO, subject: "Hello", text: "Hi", html: "<p>Hi</p>" });
    mailer.close();
    const parsed = await PostalMime.parse(readFileSync(named.file as string));
    expect(parsed.from).toEqual({
      name: 'Acme "Status" Bcc: victim@example.com — Zürich',
      address: "porchlight@test.example",
    });
    expect(parsed.bcc).toBeUndefined();
    expect(readFileSync(named.file as string, "utf8")).not.toMatch(/^Bcc:/im);
    expect((await PostalMime.parse(readFileSync(plain.file as string))).from).toEqual({
      name: "Porchlight",
      address: "porchlight@test.example",
    });
  });

  test("a mail directory that cannot be made fails the send with a MailSendError", async () => {
    const blocker = join(dataDir, "not-a-dir");
    // A file where the data directory should be: mkdir under it fails.
    writeFileSync(blocker, "x");
    const mailer = createMailer({ from: FROM, dataDir: blocker, logger: capturedLogger().logger });
    await expect(mailer.send({ to: TO, subject: "s", text: "t", html: "<p>t</p>" })).rejects.toThrow(
      /Could not write mail to .*not-a-dir/,
    );
  });
});

describe("summarize", () => {
  test("uptime, response-time statistics and percentiles over successful checks", () => {
    const checks = [
      ...Array.from({ length: 19 }, (_, i) => check(i * 5, true, { responseTimeMs: (i + 1) * 10 })),
      check(95, true, { responseTimeMs: 1000 }),
      check(100, false, { statusCode: 500, responseTimeMs: 5 }),
    ];
    expect(summarize(checks)).toMatchObject({
      total: 21,
      up: 20,
      uptimePercent: (20 / 21) * 100,
      // (10 + 20 + … + 190 + 1000) / 20 = (1900 + 1000) / 20
      avgMs: 145,
      p95Ms: 190,
      minMs: 10,
      maxMs: 1000,
    });
  });

  test("p95 is the nearest rank: the slowest check when there are fewer than 20", () => {
    const checks = [check(0, true, { responseTimeMs: 50 }), check(5, true, { responseTimeMs: 900 })];
    expect(summarize(checks)).toMatchObject({ p95Ms: 900, avgMs: 475, minMs: 50, maxMs: 900 });
  });

  test("consecutive failures form one period, in time order whatever the input order", () => {
    const checks = [
      check(0, true),
      check(5, false, { statusCode: 503 }),
      check(10, false, { error: "connect ETIMEDOUT" }),
      check(15, false, { error: "connect ETIMEDOUT" }),
      check(20, true),
      check(25, false, { statusCode: 502 }),
      check(30, true),
      check(35, false, { error: "certificate has expired" }),
    ].reverse();
    expect(summarize(checks).outages).toEqual([
      { from: at(5), to: at(15), checks: 3, error: "connect ETIMEDOUT" },
      { from: at(25), to: at(25), checks: 1, error: "HTTP 502" },
      { from: at(35), to: at(35), checks: 1, error: "certificate has expired" },
    ]);
  });

  test("zero checks: nothing divided by zero", () => {
    expect(summarize([])).toEqual({
      total: 0,
      up: 0,
      uptimePercent: null,
      avgMs: null,
      p95Ms: null,
      minMs: null,
      maxMs: null,
      outages: [],
    });
  });

  test("all down with null response times: 0% and one period, no times", () => {
    const checks = [0, 5, 10].map((m) => check(m, false, { error: "getaddrinfo ENOTFOUND example.com" }));
    expect(summarize(checks)).toEqual({
      total: 3,
      up: 0,
      uptimePercent: 0,
      avgMs: null,
      p95Ms: null,
      minMs: null,
      maxMs: null,
      outages: [{ from: at(0), to: at(10), checks: 3, error: "getaddrinfo ENOTFOUND example.com" }],
    });
  });

  test("a successful check with a null response time counts as up but not in the times", () => {
    const result = summarize([check(0, true, { responseTimeMs: null }), check(5, true, { responseTimeMs: 80 })]);
    expect(result).toMatchObject({ up: 2, uptimePercent: 100, avgMs: 80, minMs: 80, maxMs: 80 });
  });
});

describe("report e-mail edge cases", () => {
  const noNumbersGoneWrong = (value: string) => expect(value).not.toMatch(/NaN|Infinity|undefined|null/);

  test("zero checks says that no checks ran", () => {
    const email = reportEmail(reportData({ checks: [] }), UNSUBSCRIBE);
    expect(email.subject).toBe("24-hour report for example.com: no checks ran");
    expect(email.text).toContain("No checks ran in this period");
    expect(email.html).toContain("No checks ran in this period");
    expect(email.html).not.toContain('role="img"');
    for (const part of [email.subject, email.text, email.html]) noNumbersGoneWrong(part);
  });

  test("all checks down: 0% up, one period, no response times, every chart hour marked failed", () => {
    const checks = Array.from({ length: 288 }, (_, i) => check(i * 5, false, { error: "connect ECONNREFUSED" }));
    const email = reportEmail(reportData({ checks, ssl: null, domainMeta: null, cdn: "", cms: "" }), UNSUBSCRIBE);
    expect(email.subject).toBe("24-hour report for example.com: 0% up");
    expect(email.text).toContain("No check succeeded, so there are no response times.");
    expect(email.text).toContain("×".repeat(24));
    expect(email.text).toContain(
      "- 2026-03-01 10:00 UTC to 2026-03-02 09:55 UTC: 288 failed checks: connect ECONNREFUSED",
    );
    expect(email.text).toContain("CDN: none detected");
    expect(email.text).toContain("Registrar: unknown");
    for (const part of [email.subject, email.text, email.html]) noNumbersGoneWrong(part);
  });

  test("one failure in 2880 is 99.9%, never a rounded-up 100%", () => {
    const checks = Array.from({ length: 2880 }, (_, i) => check(i / 2, i !== 7));
    expect(reportEmail(reportData({ checks }), UNSUBSCRIBE).subject).toBe("24-hour report for example.com: 99.9% up");
  });

  test("certificate and domain expiry are described, close ones flagged", () => {
    const email = reportEmail(
      reportData({
        ssl: { valid: true, daysLeft: 5 },
        domainMeta: { registrar: "Gandi", expirationDate: "2026-03-10T00:00:00Z", daysLeft: -2 },
      }),
      UNSUBSCRIBE,
    );
    expect(email.text).toContain("Valid, expires in 5 days, renew soon.");
    expect(email.text).toContain("Expires: 2026-03-10 (expired 2 days ago)");
    expect(reportEmail(reportData({ ssl: { valid: false, daysLeft: null } }), UNSUBSCRIBE).text).toContain("Not valid");
  });

  test("a line break in an error cannot break the layout or a header", () => {
    const checks = [check(0, false, { error: "bad\r\nBcc: victim@example.org" })];
    const email = reportEmail(reportData({ checks, domain: "example.com\r\nBcc: x@y" }), UNSUBSCRIBE);
    expect(email.subject).not.toMatch(/[\r\n]/);
    expect(email.text).toContain("1 failed check: bad Bcc: victim@example.org");
  });

  test("URLs are normalised for attributes and headers; other schemes are refused", () => {
    const email = reportEmail(reportData(), 'https://porchlight.test/u?t="><script>');
    expect(email.headers["List-Unsubscribe"]).toBe("<https://porchlight.test/u?t=%22%3E%3Cscript%3E>");
    expect(email.html).not.toContain("<script>");
    expect(() => reportEmail(reportData(), "javascript:alert(1)")).toThrow(TypeError);
    expect(() =>
      confirmationEmail({ domain: "example.com", confirmUrl: "data:text/html,hi", expiresHours: 24 }),
    ).toThrow(TypeError);
  });
});

describe("confirmation e-mail", () => {
  const email = confirmationEmail({
    domain: "example.com",
    confirmUrl: "https://porchlight.test/r/confirm/abc?x=1&y=2",
    expiresHours: 48,
  });

  test("says who asked, that nothing happens without the button, and when the link expires", () => {
    for (const part of [email.text, email.html]) {
      expect(part).toContain("Someone (hopefully you) asked Porchlight for a 24-hour report on");
      expect(part).toContain("Nothing happens unless you confirm.");
      expect(part).toContain("Opening the link does not start anything; the button on that page does.");
      expect(part).toContain("The link expires in 48 hours.");
    }
    expect(email.text).toContain("https://porchlight.test/r/confirm/abc?x=1&y=2");
    expect(email.html).toContain('href="https://porchlight.test/r/confirm/abc?x=1&amp;y=2"');
  });

  test("is transactional: no list headers, no images, no remote resources", () => {
    expect(email.headers).toEqual({ "Auto-Submitted": "auto-generated" });
    expect(email.html).not.toMatch(/<img|<svg|<link|<script|url\(|src=/i);
    expect(email.html).toContain('<meta charset="utf-8">');
    expect(email.html).toMatch(/max-width:600px/);
  });
});
