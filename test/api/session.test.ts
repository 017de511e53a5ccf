/**
 * Dashboard sign-in on both stores: one-time links, the session cookie and its limits, CSRF, brute force, password
 * reset and invitations by e-mail (a real SMTP server in the test process), TOTP, members and tokens.
 */
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { passwordLink } from "../../server/accounts/accounts.ts";
import { totpCode } from "../../server/accounts/sign-in.ts";
import { createMailer } from "../../server/anon/mail.ts";
import { createLogger } from "../../server/log.ts";
import type { Store } from "../../server/store/store.ts";
import {
  client,
  describeStores,
  fromAddress,
  makeApp,
  seedMember,
  seedOwner,
  TestClock,
  useStore,
} from "../helpers.ts";

const received: { to: string; raw: string }[] = [];
let smtp: SMTPServer;
let smtpUrl: string;

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        received.push({ to: session.envelope.rcptTo[0]?.address ?? "", raw: Buffer.concat(chunks).toString("utf8") });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", () => resolve()));
  smtpUrl = `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => smtp.close(() => resolve())));

const PASSWORD = "a long enough passphrase";
const SAME_ORIGIN = { origin: "http://status.test", "sec-fetch-site": "same-origin" };

/** The link token of the last e-mail to `to` (quoted-printable soft breaks undone). */
async function linkIn(to: string): Promise<string> {
  await expect.poll(() => received.some((m) => m.to === to)).toBe(true);
  const mail = [...received].reverse().find((m) => m.to === to) as { raw: string };
  const text = mail.raw
    .replace(/=\r?\n/g, "")
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
  return /#token=([A-Za-z0-9_-]{43})/.exec(text)?.[1] as string;
}

function setup(store: Store, env: Record<string, string> = {}) {
  const clock = new TestClock();
  const logger = createLogger("silent");
  const mailer = createMailer({ smtpUrl, from: "porchlight@status.test", dataDir: "/nonexistent", logger });
  // Sign-in's hashing budget well above what these tests send at once, but for the test of the budget itself.
  const roomy = {
    PORCHLIGHT_PASSWORD_HASHES_IN_FLIGHT: "32",
    PORCHLIGHT_PASSWORD_HASHES_PER_SECOND: "1000",
    PORCHLIGHT_PASSWORD_PAGE_HASHES_PER_SECOND: "1000",
  };
  const { app } = makeApp(store, { clock, mailer, env: { SMTP_URL: smtpUrl, ...roomy, ...env } });
  const anon = client(app);
  /** A browser: keeps the session cookie and the CSRF token, and sends same-origin headers. */
  const browser = () => {
    let cookie = "";
    let csrf = "";
    const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
      const res = await anon.call(method, path, body, {
        ...SAME_ORIGIN,
        ...(cookie ? { cookie } : {}),
        ...(csrf && method !== "GET" ? { "x-csrf-token": csrf } : {}),
        ...headers,
      });
      const set = res.headers.get("set-cookie");
      if (set) cookie = set.split(";")[0] as string;
      if (res.json?.data?.csrfToken) csrf = res.json.data.csrfToken;
      return res;
    };
    return {
      call,
      get: (path: string, headers?: Record<string, string>) => call("GET", path, undefined, headers),
      post: (path: string, body?: unknown, headers?: Record<string, string>) => call("POST", path, body, headers),
      cookie: () => cookie,
      csrf: () => csrf,
    };
  };
  return { app, clock, anon, browser };
}

describeStores("dashboard sessions", (kind) => {
  const opened = useStore(kind);
  const store = () => opened.store;

  async function ownerWithPassword(ctx: ReturnType<typeof setup>) {
    const owner = await seedOwner(store());
    const token = await passwordLink(store(), owner.email, ctx.clock.now());
    const b = ctx.browser();
    const used = await b.post("/public/v1/account-links/use", { token, password: PASSWORD });
    expect(used.status).toBe(200);
    return { owner, browser: b, setCookie: used.headers.get("set-cookie") as string, linkToken: token };
  }

  test("a setup link sets the password once and signs in with an HttpOnly, SameSite=Lax cookie", async () => {
    const ctx = setup(store());
    const { owner, browser, setCookie, linkToken } = await ownerWithPassword(ctx);
    expect(setCookie).toMatch(/^porchlight_session=[A-Za-z0-9_-]{43};/);
    expect(setCookie).toMatch(/; HttpOnly/i);
    expect(setCookie).toMatch(/; SameSite=Lax/i);
    expect(setCookie).toMatch(/; Path=\//);
    expect(setCookie).not.toMatch(/; Secure/i);
    const session = await browser.get("/public/v1/session");
    expect(session.status).toBe(200);
    expect(session.json.data.user).toMatchObject({ email: owner.email, role: "owner", totpEnabled: false });
    expect(session.json.data.user.permissions).toContain("members:manage");
    expect(session.headers.get("cache-control")).toBe("no-store");
    // The link worked once.
    const again = await ctx.browser().post("/public/v1/account-links/use", { token: linkToken, password: PASSWORD });
    expect(again.status).toBe(404);
    // The cookie reads the workspace's API.
    expect((await browser.get("/public/v1/sites")).status).toBe(200);
    // The database keeps only the cookie's hash.
    const secret = browser.cookie().split("=")[1] as string;
    const rows = await store().db.selectFrom("sessions").select("id").execute();
    expect(rows.map((r) => r.id)).not.toContain(secret);
  });

  test("over HTTPS the cookie is Secure", async () => {
    const ctx = setup(store(), { PORCHLIGHT_PUBLIC_URL: "https://status.test" });
    const owner = await seedOwner(store());
    const token = await passwordLink(store(), owner.email, ctx.clock.now());
    const used = await ctx.anon.post(
      "/public/v1/account-links/use",
      { token, password: PASSWORD },
      { origin: "https://status.test" },
    );
    expect(used.status).toBe(200);
    // Secure, and __Host-: only this host can set it, so a sibling subdomain cannot plant a session.
    expect(used.headers.get("set-cookie")).toMatch(/^__Host-porchlight_session=[A-Za-z0-9_-]{43};.*; Secure/i);
    const cookie = (used.headers.get("set-cookie") as string).split(";")[0] as string;
    expect((await ctx.anon.get("/public/v1/sites", { cookie })).status).toBe(200);
    // Over HTTPS the plain name counts for nothing, even with a live session's secret: it could have been planted.
    const plain = cookie.replace(/^__Host-/, "");
    expect((await ctx.anon.get("/public/v1/sites", { cookie: plain })).status).toBe(401);
  });

  test("sign-in stays on the server's own address: a page's custom domain refuses it and sends the dashboard home", async () => {
    const ctx = setup(store());
    const { owner } = await ownerWithPassword(ctx);
    const page = await client(ctx.app, owner.token).post("/public/v1/status-pages", {
      name: "Custom",
      slug: `custom-${Math.random().toString(36).slice(2, 8)}`,
      customDomain: `status-${Math.random().toString(36).slice(2, 8)}.customer.example`,
    });
    expect(page.status).toBe(201);
    const host = page.json.data.customDomain as string;
    const there = { host, origin: `http://${host}` };
    const signIn = await ctx.anon.post("/public/v1/session", { email: owner.email, password: PASSWORD }, there);
    expect(signIn.status).toBe(403);
    expect(signIn.headers.get("set-cookie")).toBeNull();
    // The same name with a trailing dot (which resolves alike) is the same custom domain.
    const dotted = await ctx.anon.post(
      "/public/v1/session",
      { email: owner.email, password: PASSWORD },
      { host: `${host}.`, origin: `http://${host}.` },
    );
    expect(dotted.status).toBe(403);
    const dash = await ctx.app.request("/dashboard/sign-in", { headers: { host } });
    expect(dash.status).toBe(302);
    expect(dash.headers.get("location")).toBe("http://status.test/dashboard/sign-in");
  });

  test("made-up link tokens cost no password hash and are limited per client", async () => {
    const ctx = setup(store());
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++) {
      const token = `${String(i).padStart(2, "0")}${"x".repeat(41)}`;
      statuses.push((await ctx.browser().post("/public/v1/account-links/use", { token, password: PASSWORD })).status);
    }
    expect(statuses.slice(0, 20).every((s) => s === 404)).toBe(true);
    expect(statuses[20]).toBe(429);
  });

  test("an API token cannot mint tokens or change the second factor; only a signed-in browser can", async () => {
    const ctx = setup(store());
    const { owner, browser } = await ownerWithPassword(ctx);
    const scripted = client(ctx.app, owner.token);
    for (const [path, body] of [
      ["/public/v1/tokens", { name: "more" }],
      ["/public/v1/me/totp/setup", undefined],
      ["/public/v1/me/totp/disable", { code: "123456" }],
    ] as const) {
      const res = await scripted.post(path, body);
      expect(res.status, path).toBe(403);
      expect(res.json.message, path).toMatch(/needs a dashboard session/);
    }
    expect((await browser.post("/public/v1/tokens", { name: "from the dashboard" })).status).toBe(201);
  });

  test("writes with the cookie need the CSRF token and the same origin; bearer tokens need neither", async () => {
    const ctx = setup(store());
    const { owner, browser } = await ownerWithPassword(ctx);
    const site = { url: "https://example.com", name: "Example" };
    // No token: refused, and nothing was written.
    const bare = await ctx.anon.post("/public/v1/sites", site, { ...SAME_ORIGIN, cookie: browser.cookie() });
    expect(bare.status).toBe(403);
    expect(bare.json).toMatchObject({ success: false, code: 403, error: "csrf_failed" });
    // A cross-site form post carries the cookie (Lax allows top-level POSTs only from the same site, but a
    // same-site sibling or an old browser may send it): refused by Sec-Fetch-Site, and by Origin.
    for (const headers of [
      { "sec-fetch-site": "cross-site", "x-csrf-token": browser.csrf() },
      { origin: "https://evil.example", "sec-fetch-site": "", "x-csrf-token": browser.csrf() },
      { "sec-fetch-site": "same-site", "x-csrf-token": browser.csrf() },
    ]) {
      const forged = await ctx.anon.post("/public/v1/sites", site, {
        cookie: browser.cookie(),
        "content-type": "application/x-www-form-urlencoded",
        ...Object.fromEntries(Object.entries(headers).filter(([, v]) => v !== "")),
      });
      expect(forged.status).toBe(403);
      expect(forged.json.error).toBe("csrf_failed");
    }
    const wrong = await ctx.anon.post("/public/v1/sites", site, {
      ...SAME_ORIGIN,
      cookie: browser.cookie(),
      "x-csrf-token": "x".repeat(43),
    });
    expect(wrong.status).toBe(403);
    expect((await client(ctx.app, owner.token).get("/public/v1/sites")).json.data.sites ?? []).toHaveLength(0);
    const made = await browser.post("/public/v1/sites", site);
    expect(made.status).toBe(201);
    // A bearer token is never sent by a browser on its own: no CSRF check.
    const scripted = await client(ctx.app, owner.token).post("/public/v1/sites", {
      url: "https://example.org",
      name: "Scripted",
    });
    expect(scripted.status).toBe(201);
  });

  test("sign-out ends the session at once, even for a kept cookie; sign-out everywhere ends them all", async () => {
    const ctx = setup(store());
    const { owner, browser } = await ownerWithPassword(ctx);
    const kept = browser.cookie();
    const out = await browser.call("DELETE", "/public/v1/session");
    expect(out.status).toBe(204);
    expect(out.headers.get("set-cookie")).toMatch(/porchlight_session=;.*Max-Age=0/);
    expect((await ctx.anon.get("/public/v1/sites", { cookie: kept })).status).toBe(401);

    const one = ctx.browser();
    const two = ctx.browser();
    for (const b of [one, two]) {
      expect((await b.post("/public/v1/session", { email: owner.email, password: PASSWORD })).status).toBe(200);
    }
    const ended = await one.post("/public/v1/me/sign-out-everywhere");
    expect(ended.json.data.ended).toBe(2);
    expect((await two.get("/public/v1/sites")).status).toBe(401);
    // API tokens stay.
    expect((await client(ctx.app, owner.token).get("/public/v1/sites")).status).toBe(200);
  });

  test("a session ends after 7 days unused, and 30 days after sign-in however used", async () => {
    const ctx = setup(store());
    const { browser } = await ownerWithPassword(ctx);
    ctx.clock.advance(7 * 24 * 3600_000 - 60_000);
    expect((await browser.get("/public/v1/session")).status).toBe(200);
    ctx.clock.advance(7 * 24 * 3600_000 + 1000);
    expect((await browser.get("/public/v1/session")).json.data).toBeNull();

    const other = await ownerWithPassword(ctx);
    for (let day = 1; day < 30; day++) {
      ctx.clock.advance(24 * 3600_000);
      expect((await other.browser.get("/public/v1/sites")).status).toBe(200);
    }
    ctx.clock.advance(24 * 3600_000);
    expect((await other.browser.get("/public/v1/sites")).status).toBe(401);
  });

  test("wrong credentials answer alike; sign-in is refused cross-site", async () => {
    const ctx = setup(store());
    const { owner } = await ownerWithPassword(ctx);
    const wrong = await ctx.anon.post(
      "/public/v1/session",
      { email: owner.email, password: "not the password" },
      SAME_ORIGIN,
    );
    const unknown = await ctx.anon.post(
      "/public/v1/session",
      { email: "nobody@example.com", password: PASSWORD },
      SAME_ORIGIN,
    );
    for (const res of [wrong, unknown]) {
      expect(res.status).toBe(401);
      expect(res.json).toMatchObject({
        error: "invalid_credentials",
        message: "The e-mail address or password is wrong.",
      });
      expect(res.headers.get("set-cookie")).toBeNull();
    }
    const cross = await ctx.anon.post(
      "/public/v1/session",
      { email: owner.email, password: PASSWORD },
      { origin: "https://evil.example" },
    );
    expect(cross.status).toBe(403);
    // E-mail addresses are not case-sensitive.
    const upper = await ctx.anon.post(
      "/public/v1/session",
      { email: owner.email.toUpperCase(), password: PASSWORD },
      SAME_ORIGIN,
    );
    expect(upper.status).toBe(200);
  });

  test("brute force: 10 failures per account, then 429 with Retry-After, even with the right password", async () => {
    const ctx = setup(store());
    const { owner } = await ownerWithPassword(ctx);
    const attempts = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        ctx.anon.post("/public/v1/session", { email: owner.email, password: `guess number ${i}` }, SAME_ORIGIN),
      ),
    );
    expect(attempts.filter((r) => r.status === 401)).toHaveLength(10);
    const refused = attempts.filter((r) => r.status === 429);
    expect(refused).toHaveLength(2);
    expect(Number(refused[0]?.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(refused[0]?.json).toMatchObject({ success: false, error: "rate_limited" });
    const right = await ctx.anon.post("/public/v1/session", { email: owner.email, password: PASSWORD }, SAME_ORIGIN);
    expect(right.status).toBe(429);
  });

  test("a flood of sign-ins from many addresses is answered 429 before it is hashed, beyond the process's budget", async () => {
    const ctx = setup(store(), {
      PORCHLIGHT_PASSWORD_HASHES_IN_FLIGHT: "1",
      PORCHLIGHT_PASSWORD_HASHES_PER_SECOND: "1",
      PORCHLIGHT_PASSWORD_PAGE_HASHES_PER_SECOND: "1",
    });
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        client(ctx.app, undefined, fromAddress(`198.51.100.${i + 1}`)).post(
          "/public/v1/session",
          { email: `flood${i}@example.com`, password: "whatever it is" },
          SAME_ORIGIN,
        ),
      ),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.every((s) => s === 401 || s === 429)).toBe(true);
    const busy = answers.filter((a) => a.status === 429);
    expect(busy.length).toBeGreaterThan(0);
    expect(busy[0]?.json.message).toMatch(/Too many sign-ins/);
    expect(Number(busy[0]?.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(statuses.filter((s) => s === 401).length).toBeGreaterThan(0);
  });

  test("brute force across accounts: 30 failures per client, then 429", async () => {
    const ctx = setup(store());
    const statuses: number[] = [];
    for (let i = 0; i < 32; i++) {
      const res = await ctx.anon.post(
        "/public/v1/session",
        { email: `user${i}@example.com`, password: "whatever it is" },
        SAME_ORIGIN,
      );
      statuses.push(res.status);
    }
    expect(statuses.slice(0, 30).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(30)).toEqual([429, 429]);
  });

  test("password reset by e-mail: one link, an hour, every session ends; unknown addresses answer alike", async () => {
    const ctx = setup(store());
    const { owner, browser } = await ownerWithPassword(ctx);
    const asked = await ctx.anon.post("/public/v1/password-reset", { email: owner.email }, SAME_ORIGIN);
    expect(asked.status).toBe(202);
    const nobody = await ctx.anon.post("/public/v1/password-reset", { email: "nobody@example.com" }, SAME_ORIGIN);
    expect(nobody.status).toBe(202);
    expect(nobody.json.message).toBe(asked.json.message);
    const token = await linkIn(owner.email);
    expect(received.some((m) => m.to === "nobody@example.com")).toBe(false);
    const info = await ctx.anon.post("/public/v1/account-links/inspect", { token });
    expect(info.json.data).toMatchObject({ kind: "reset", email: owner.email });
    const fresh = ctx.browser();
    const reset = await fresh.post("/public/v1/account-links/use", { token, password: "a brand new passphrase" });
    expect(reset.status).toBe(200);
    expect((await browser.get("/public/v1/sites")).status).toBe(401);
    expect((await fresh.get("/public/v1/sites")).status).toBe(200);
    const old = await ctx.anon.post("/public/v1/session", { email: owner.email, password: PASSWORD }, SAME_ORIGIN);
    expect(old.status).toBe(401);
    // A reset link expires within the hour.
    await ctx.anon.post("/public/v1/password-reset", { email: owner.email }, SAME_ORIGIN);
    const late = await linkIn(owner.email);
    ctx.clock.advance(3600_000 + 1000);
    expect((await ctx.browser().post("/public/v1/account-links/use", { token: late, password: PASSWORD })).status).toBe(
      404,
    );
  });

  test("a short password is a 400 naming the field, and the link still works", async () => {
    const ctx = setup(store());
    const owner = await seedOwner(store());
    const token = await passwordLink(store(), owner.email, ctx.clock.now());
    const short = await ctx.browser().post("/public/v1/account-links/use", { token, password: "short" });
    expect(short.status).toBe(400);
    expect(short.json.details).toEqual([{ field: "password", message: "Use at least 12 characters." }]);
    expect((await ctx.browser().post("/public/v1/account-links/use", { token, password: PASSWORD })).status).toBe(200);
  });

  test("invitations: by e-mail with a role; the viewer reads and cannot write; removal ends their access", async () => {
    const ctx = setup(store());
    const { browser } = await ownerWithPassword(ctx);
    const email = `viewer-${Math.random().toString(36).slice(2)}@example.com`;
    const invited = await browser.post("/public/v1/invitations", { email, role: "viewer" });
    expect(invited.status).toBe(201);
    const token = await linkIn(email);
    const info = await ctx.anon.post("/public/v1/account-links/inspect", { token });
    expect(info.json.data).toMatchObject({ kind: "invite", email, role: "viewer" });
    const viewer = ctx.browser();
    const joined = await viewer.post("/public/v1/account-links/use", { token, password: PASSWORD });
    expect(joined.status).toBe(200);
    expect(joined.json.data.user).toMatchObject({ email, role: "viewer" });
    expect(joined.json.data.user.permissions).not.toContain("sites:write");
    expect((await viewer.get("/public/v1/sites")).status).toBe(200);
    const write = await viewer.post("/public/v1/sites", { url: "https://example.com", name: "No" });
    expect(write.status).toBe(403);
    expect(write.json.error).toBe("forbidden");
    expect((await viewer.post("/public/v1/invitations", { email: "x@example.com", role: "admin" })).status).toBe(403);

    const list = await browser.get("/public/v1/members");
    const member = list.json.data.members.find((m: { email: string }) => m.email === email);
    expect(member).toMatchObject({ role: "viewer", hasPassword: true });
    const owner = list.json.data.members.find((m: { role: string }) => m.role === "owner");
    expect((await browser.call("DELETE", `/public/v1/members/${owner.id}`)).status).toBe(403);
    const promoted = await browser.call("PATCH", `/public/v1/members/${member.id}`, { role: "editor" });
    expect(promoted.json.data.role).toBe("editor");
    expect((await viewer.post("/public/v1/sites", { url: "https://example.com", name: "Now" })).status).toBe(201);
    expect((await browser.call("DELETE", `/public/v1/members/${member.id}`)).status).toBe(204);
    expect((await viewer.get("/public/v1/sites")).status).toBe(401);
    // Someone with an account already cannot be invited again.
    const taken = await browser.post("/public/v1/invitations", { email: owner.email, role: "admin" });
    expect(taken.status).toBe(409);
  });

  test("TOTP: on with a first code; sign-in then asks for one and takes the current one", async () => {
    const ctx = setup(store());
    const { owner, browser } = await ownerWithPassword(ctx);
    const started = await browser.post("/public/v1/me/totp/setup");
    const { secret, sealed, uri } = started.json.data;
    expect(uri).toMatch(/^otpauth:\/\/totp\/Porchlight%3A/);
    const step = Math.floor(ctx.clock.now().getTime() / 30_000);
    const bad = await browser.post("/public/v1/me/totp", {
      sealed,
      code: "000000" === totpCode(secret, step) ? "111111" : "000000",
    });
    expect(bad.status).toBe(400);
    const on = await browser.post("/public/v1/me/totp", { sealed, code: totpCode(secret, step) });
    expect(on.status).toBe(200);
    expect(on.json.data.totpEnabled).toBe(true);
    const asked = await ctx.anon.post("/public/v1/session", { email: owner.email, password: PASSWORD }, SAME_ORIGIN);
    expect(asked.status).toBe(401);
    expect(asked.json.error).toBe("totp_required");
    const signed = await ctx.anon.post(
      "/public/v1/session",
      { email: owner.email, password: PASSWORD, totp: totpCode(secret, step + 1) },
      SAME_ORIGIN,
    );
    expect(signed.status).toBe(200);
    const stale = await ctx.anon.post(
      "/public/v1/session",
      { email: owner.email, password: PASSWORD, totp: totpCode(secret, step - 5) },
      SAME_ORIGIN,
    );
    expect(stale.status).toBe(401);
    // A second factor on cannot be replaced without turning it off (with a code) first.
    const again = await browser.post("/public/v1/me/totp/setup");
    const replaced = await browser.post("/public/v1/me/totp", {
      sealed: again.json.data.sealed,
      code: totpCode(again.json.data.secret, step),
    });
    expect(replaced.status).toBe(409);
    // Another member cannot use this member's sealed setup, even signed in.
    const other = await seedMember(store(), owner.email, "admin");
    const otherLink = await passwordLink(store(), other.email, ctx.clock.now());
    const thief = ctx.browser();
    expect((await thief.post("/public/v1/account-links/use", { token: otherLink, password: PASSWORD })).status).toBe(
      200,
    );
    const stolen = await thief.post("/public/v1/me/totp", { sealed, code: totpCode(secret, step) });
    expect(stolen.status).toBe(400);

    // A reset by e-mail does not get past the second factor: the link asks for a current code too.
    await ctx.anon.post("/public/v1/password-reset", { email: owner.email }, SAME_ORIGIN);
    const reset = await linkIn(owner.email);
    const bare = await ctx
      .browser()
      .post("/public/v1/account-links/use", { token: reset, password: "a brand new passphrase" });
    expect(bare.status).toBe(401);
    expect(bare.json.error).toBe("totp_required");
    const wrongCode = totpCode(secret, step) === "000000" ? "111111" : "000000";
    const guessed = await ctx.browser().post("/public/v1/account-links/use", {
      token: reset,
      password: "a brand new passphrase",
      totp: wrongCode,
    });
    expect(guessed.status).toBe(401);
    const done = await ctx.browser().post("/public/v1/account-links/use", {
      token: reset,
      password: "a brand new passphrase",
      totp: totpCode(secret, step),
    });
    expect(done.status).toBe(200);

    // Codes that would turn it off are counted like sign-ins: a stolen session cannot guess its way through.
    const signedIn = {
      ...SAME_ORIGIN,
      cookie: (done.headers.get("set-cookie") as string).split(";")[0] as string,
      "x-csrf-token": done.json.data.csrfToken,
    };
    const wrongs: number[] = [];
    for (let i = 0; i < 11; i++) {
      wrongs.push((await ctx.anon.post("/public/v1/me/totp/disable", { code: wrongCode }, signedIn)).status);
    }
    expect(wrongs).toContain(400);
    expect(wrongs.at(-1)).toBe(429);
  });

  test("API tokens: created once, listed with last use, revoked at once; another member's are out of reach", async () => {
    const ctx = setup(store());
    const { owner, browser } = await ownerWithPassword(ctx);
    const made = await browser.post("/public/v1/tokens", { name: "deploy" });
    expect(made.status).toBe(201);
    const { token, id } = made.json.data;
    expect(token).toMatch(/^pl_/);
    expect((await client(ctx.app, token).get("/public/v1/sites")).status).toBe(200);
    const list = await browser.get("/public/v1/tokens");
    const listed = list.json.data.find((t: { id: string }) => t.id === id);
    expect(listed).toMatchObject({ name: "deploy", lastUsedAt: expect.any(String), revokedAt: null });
    expect(JSON.stringify(list.json)).not.toContain(token);
    const other = await seedMember(store(), owner.email, "admin");
    expect((await client(ctx.app, other.token).delete(`/public/v1/tokens/${id}`)).status).toBe(404);
    expect((await browser.call("DELETE", `/public/v1/tokens/${id}`)).status).toBe(204);
    expect((await client(ctx.app, token).get("/public/v1/sites")).status).toBe(401);
  });

  test("usage names the plan's page limit before it is reached", async () => {
    const ctx = setup(store());
    const owner = await seedOwner(store(), "free");
    const usage = await client(ctx.app, owner.token).get("/public/v1/workspace/usage");
    expect(usage.json.data).toMatchObject({ plan: "free", statusPages: { used: 0, limit: 1 }, members: { used: 1 } });
  });
});

describe("first start", () => {
  test("the setup link is in the message, after #, so no server log sees it", async () => {
    const { linkUrl } = await import("../../server/accounts/sign-in.ts");
    expect(linkUrl("http://status.test", "setup", "t".repeat(43))).toBe(
      `http://status.test/dashboard/setup#token=${"t".repeat(43)}`,
    );
  });
});
