import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { sql } from "kysely";
import { describe, expect, test } from "vitest";
import { SecretBox } from "../../server/accounts/sealed.ts";
import { monitorUrlProblem, protocolOf } from "../../server/contract/monitor.ts";
import { SiteCreate } from "../../server/contract/site.ts";
import { CHECKERS, type Checker } from "../../server/engine/checkers/index.ts";
import { Engine } from "../../server/engine/engine.ts";
import { createLogger } from "../../server/log.ts";
import { FIRST_CHECK_SPREAD_MS } from "../../server/store/checks.ts";
import type { Store } from "../../server/store/store.ts";
import { type App, client, describeStores, makeApp, seedOwner, TestClock, testConfig, useStore } from "../helpers.ts";
import { startDnsServer } from "../support/dns-server.ts";

describe("the address says the kind of check", () => {
  test.each([
    ["https://shop.example.com/health", "https"],
    ["http://shop.example.com", "http"],
    ["tcp://mail.example.com:587", "tcp"],
    ["tls://mail.example.com:465", "tls"],
    ["dns://example.com", "dns"],
    ["icmp://203.0.113.10", "icmp"],
    ["icmp://[2001:db8::1]", "icmp"],
    ["push://", "push"],
  ])("%s is checked as %s", (url, protocol) => {
    expect(monitorUrlProblem(url)).toBeNull();
    expect(protocolOf(url)).toBe(protocol);
  });

  test.each([
    ["ftp://files.example.com", "Start the address with"],
    ["tcp://mail.example.com", "Add the port to check"],
    ["tcp://mail.example.com:0", "Add the port to check"],
    ["tcp://mail.example.com:587/path", "host and a port only"],
    ["dns://example.com:53", "name a resolver in dns.resolver instead"],
    ["icmp://host.example/x", "host only"],
    ["push://somewhere", "push:// alone"],
    ["https://user:pass@shop.example.com", "Remove the user name and password"],
    ["tcp://", "Enter the host to check"],
    ["not a url", "Enter an address such as"],
  ])("%s is refused in words", (url, words) => {
    expect(monitorUrlProblem(url)).toContain(words);
  });

  test("settings of another kind are refused with the field named", () => {
    const result = SiteCreate.safeParse({ name: "x", url: "dns://example.com", assertions: {} });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(["assertions"]);
    expect(SiteCreate.safeParse({ name: "x", url: "https://a.example", dns: {} }).success).toBe(false);
    expect(SiteCreate.safeParse({ name: "x", url: "tcp://a.example:22", push: {} }).success).toBe(false);
  });
});

describeStores("sites of every kind through the API", (kind) => {
  let store: Store;
  let app: App;
  let api: ReturnType<typeof client>;

  useStore(kind, async (opened) => {
    ({ store } = opened);
    ({ app } = makeApp(store));
    api = client(app, (await seedOwner(store)).token);
  });

  /** An engine in region "local" on the test's clock, private targets allowed, telling `made` what it wrote. */
  const localEngine = (
    clock: TestClock,
    made: ReturnType<typeof makeApp>,
    options: Partial<ConstructorParameters<typeof Engine>[0]> = {},
  ) =>
    new Engine({
      store,
      region: "local",
      clock,
      logger: createLogger("silent"),
      concurrency: 5,
      retentionHours: 48,
      policy: { allowPrivate: true },
      domains: null,
      onRecorded: made.recorded,
      ...options,
    });

  test("each kind is added with its settings, defaults filled in, and answers them back", async () => {
    const http = await api.post("/public/v1/sites", {
      name: "Shop",
      url: "https://shop.example.com",
      assertions: { keyword: { text: "Add to cart" }, json: { path: "$.status", equals: "ok" } },
    });
    expect(http.status).toBe(201);
    expect(http.json.data).toMatchObject({
      protocol: "https",
      assertions: {
        keyword: { text: "Add to cart", absent: false, caseSensitive: false },
        json: { path: "$.status", equals: "ok" },
        header: null,
      },
      dns: null,
      push: null,
    });
    const tcp = await api.post("/public/v1/sites", { name: "Mail", url: "tls://mail.example.com:465" });
    expect(tcp.json.data).toMatchObject({ protocol: "tls", assertions: null, dns: null, push: null });
    const dns = await api.post("/public/v1/sites", {
      name: "MX",
      url: "dns://example.com",
      dns: { recordType: "MX", expected: ["10 mx.example.com"] },
    });
    expect(dns.json.data.dns).toEqual({
      recordType: "MX",
      resolver: null,
      expected: ["10 mx.example.com"],
      match: "contains",
    });
    const plainDns = await api.post("/public/v1/sites", { name: "A", url: "dns://example.com" });
    expect(plainDns.json.data.dns).toEqual({ recordType: "A", resolver: null, expected: [], match: "contains" });
    const icmp = await api.post("/public/v1/sites", { name: "Router", url: "icmp://203.0.113.10" });
    expect(icmp.json.data.protocol).toBe("icmp");
  });

  test("bad settings are a 400 naming each field", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ url: "https://a.example", assertions: { json: { path: "status" } } }, "assertions.json.path"],
      [{ url: "https://a.example", assertions: { keyword: { text: "" } } }, "assertions.keyword.text"],
      [
        { url: "https://a.example", assertions: { header: { name: "bad name", contains: "" } } },
        "assertions.header.name",
      ],
      [{ url: "dns://example.com", dns: { recordType: "SRV" } }, "dns.recordType"],
      [{ url: "dns://example.com", dns: { resolver: "resolver.example" } }, "dns.resolver"],
      [{ url: "dns://example.com", dns: { resolver: "999.1.1.1" } }, "dns.resolver"],
      [{ url: "dns://example.com", dns: { resolver: "1.1.1.1:99999" } }, "dns.resolver"],
      [{ url: "push://", push: { graceSeconds: -1 } }, "push.graceSeconds"],
      [{ url: "tcp://mail.example.com" }, "url"],
      [{ url: "https://a.example", dns: { recordType: "A" } }, "dns"],
    ];
    for (const [body, field] of cases) {
      const answer = await api.post("/public/v1/sites", { name: "x", ...body });
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(
        answer.json.details.map((d: { field: string }) => d.field),
        JSON.stringify(body),
      ).toContain(field);
    }
  });

  test("a PATCH replaces one kind's settings; a new address of another kind drops the old kind's", async () => {
    const created = await api.post("/public/v1/sites", {
      name: "Shop",
      url: "https://shop.example.com",
      assertions: { keyword: { text: "Add to cart" } },
    });
    const id = created.json.data.id;
    const header = await api.patch(`/public/v1/site/${id}`, {
      assertions: { header: { name: "x-version", contains: "3." } },
    });
    expect(header.json.data.assertions).toEqual({
      keyword: null,
      json: null,
      header: { name: "x-version", contains: "3." },
    });
    const wrong = await api.patch(`/public/v1/site/${id}`, { dns: { recordType: "A" } });
    expect(wrong.status).toBe(400);
    expect(wrong.json.details[0].field).toBe("dns");
    const moved = await api.patch(`/public/v1/site/${id}`, {
      url: "dns://shop.example.com",
      dns: { recordType: "CNAME" },
    });
    expect(moved.status).toBe(200);
    expect(moved.json.data).toMatchObject({ protocol: "dns", assertions: null, dns: { recordType: "CNAME" } });
    const back = await api.patch(`/public/v1/site/${id}`, { url: "https://shop.example.com" });
    expect(back.json.data.assertions).toEqual({ keyword: null, json: null, header: null });
  });

  test("request settings: a body, basic auth with its password sealed and never shown, redirects off", async () => {
    const password = "correct horse 7f3a";
    const created = await api.post("/public/v1/sites", {
      name: "Admin",
      url: "https://admin.example.com/login",
      method: "POST",
      request: { body: "user=probe", followRedirects: false, basicAuth: { username: "ops", password } },
    });
    expect(created.status).toBe(201);
    const id = created.json.data.id;
    const shown = { body: "user=probe", followRedirects: false, basicAuth: { username: "ops", passwordSet: true } };
    expect(created.json.data.request).toEqual(shown);
    const stored = await sql<{ settings: string }>`SELECT settings FROM sites WHERE id = ${id}`.execute(store.db);
    const column = stored.rows[0]?.settings ?? "";
    expect(column).toContain('"username":"ops"');
    expect(column).not.toContain(password);
    expect(column).not.toContain(Buffer.from(password).toString("base64"));

    // Every answer that shows the site leaves the password out.
    for (const path of [`/public/v1/site/${id}`, "/public/v1/sites"]) {
      expect(JSON.stringify((await api.get(path)).json)).not.toContain(password);
    }

    // A change without the password keeps it (the edit form never has it to send back)...
    const renamed = await api.patch(`/public/v1/site/${id}`, {
      request: { body: null, basicAuth: { username: "operator" } },
    });
    expect(renamed.json.data.request).toEqual({
      body: null,
      followRedirects: true,
      basicAuth: { username: "operator", passwordSet: true },
    });
    const kept = await sql<{ settings: string }>`SELECT settings FROM sites WHERE id = ${id}`.execute(store.db);
    expect(JSON.parse(kept.rows[0]?.settings ?? "{}").request.basicAuth.sealedPassword).toBe(
      JSON.parse(column).request.basicAuth.sealedPassword,
    );
    // ...other changes leave the request alone, an empty password clears it, and null removes basic auth.
    expect((await api.patch(`/public/v1/site/${id}`, { name: "Admin 2" })).json.data.request.basicAuth).toEqual({
      username: "operator",
      passwordSet: true,
    });
    const emptied = await api.patch(`/public/v1/site/${id}`, {
      request: { basicAuth: { username: "operator", password: "" } },
    });
    expect(emptied.json.data.request.basicAuth).toEqual({ username: "operator", passwordSet: false });
    // A new address on another origin needs the password again: a stored one goes only where it was given for.
    const reset = await api.patch(`/public/v1/site/${id}`, {
      request: { basicAuth: { username: "operator", password } },
    });
    expect(reset.json.data.request.basicAuth.passwordSet).toBe(true);
    for (const moved of [
      "https://collector.example.net/",
      "http://admin.example.com/login",
      "https://admin.example.com:8443/",
    ]) {
      const refused = await api.patch(`/public/v1/site/${id}`, { url: moved });
      expect(refused.status, moved).toBe(400);
      expect(refused.json.details[0]).toMatchObject({ field: "request.basicAuth.password" });
    }
    expect((await api.get(`/public/v1/site/${id}`)).json.data.url).toBe("https://admin.example.com/login");
    const samePlace = await api.patch(`/public/v1/site/${id}`, { url: "https://admin.example.com/health" });
    expect(samePlace.json.data.request.basicAuth).toEqual({ username: "operator", passwordSet: true });
    const movedWithPassword = await api.patch(`/public/v1/site/${id}`, {
      url: "https://admin.example.net/",
      request: { basicAuth: { username: "operator", password: "another one" } },
    });
    expect(movedWithPassword.status).toBe(200);
    const removed = await api.patch(`/public/v1/site/${id}`, { request: { basicAuth: null } });
    expect(removed.json.data.request).toEqual({ body: null, followRedirects: true, basicAuth: null });
  });

  test("the engine opens the sealed password with the server's key and is let in; it is never logged", async () => {
    const password = "s3cret-basic-9";
    const expected = `Basic ${Buffer.from(`ops:${password}`).toString("base64")}`;
    const server = createServer((req, res) => {
      res.writeHead(req.headers.authorization === expected ? 200 : 401);
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const clock = new TestClock();
      const made = makeApp(store, { clock });
      const owner = client(made.app, (await seedOwner(store, "stack", "basic@example.com")).token);
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/admin`;
      const add = (name: string, basicAuth: unknown) =>
        owner.post("/public/v1/sites", { name, url, request: { basicAuth } });
      const inside = (await add("Admin", { username: "ops", password })).json.data.id;
      const outside = (await add("Admin, wrong password", { username: "ops", password: "guess" })).json.data.id;
      const logs: string[] = [];
      const secrets = new SecretBox(testConfig().secretKey, "unused");
      const engine = localEngine(clock, made, {
        logger: createLogger("debug", { write: (line: string) => void logs.push(line) }),
        unseal: (sealed) => secrets.open(sealed),
      });
      clock.advance(FIRST_CHECK_SPREAD_MS);
      await engine.runOnce();
      const read = async (id: string) => (await owner.get(`/public/v1/site/${id}`)).json.data;
      expect(await read(inside)).toMatchObject({ lastCheckTime: expect.any(String), state: "healthy" });
      expect((await read(outside)).lastCheckTime).not.toBeNull();
      const checks = await owner.get(`/public/v1/site/${outside}/checks`);
      expect(JSON.stringify(checks.json)).toContain("HTTP 401");
      expect(logs.join("\n")).not.toContain(password);
      expect(logs.join("\n")).not.toContain(expected.slice(6));
    } finally {
      server.close();
    }
  });

  test("a DNS check's answer is stored with the result and shown in the recent checks; a failure's is in its error", async () => {
    const dns = await startDnsServer({ "example.com": { MX: [{ priority: 10, exchange: "mx.example.com" }] } });
    try {
      const clock = new TestClock();
      const made = makeApp(store, { clock });
      const owner = client(made.app, (await seedOwner(store, "stack", "dns@example.com")).token);
      const add = async (name: string, expected: string[]) =>
        (
          await owner.post("/public/v1/sites", {
            name,
            url: "dns://example.com",
            dns: { recordType: "MX", resolver: dns.resolver, expected },
          })
        ).json.data.id;
      const passing = await add("Mail exchangers", ["10 mx.example.com"]);
      const failing = await add("Moved mail", ["10 mx.elsewhere.example"]);
      const engine = localEngine(clock, made);
      clock.advance(FIRST_CHECK_SPREAD_MS);
      await engine.runOnce();
      const checks = async (id: string) => (await owner.get(`/public/v1/site/${id}/checks`)).json.data;
      expect(await checks(passing)).toEqual([
        expect.objectContaining({ ok: true, error: null, found: "10 mx.example.com" }),
      ]);
      const [failed] = await checks(failing);
      expect(failed).toMatchObject({ ok: false, found: null });
      expect(failed.error).toContain("got 10 mx.example.com");
    } finally {
      await dns.close();
    }
  });

  test("request settings are refused in words: other kinds, a colon in the user name, a body too long", async () => {
    const cases: [unknown, string][] = [
      [{ url: "tcp://mail.example.com:587", request: {} }, "request"],
      [
        { url: "https://a.example", request: { basicAuth: { username: "a:b", password: "x" } } },
        "request.basicAuth.username",
      ],
      [
        { url: "https://a.example", request: { basicAuth: { username: "", password: "x" } } },
        "request.basicAuth.username",
      ],
      [{ url: "https://a.example", request: { body: "x".repeat(16_385) } }, "request.body"],
      [{ url: "https://a.example", request: { followRedirects: "no" } }, "request.followRedirects"],
      [
        { url: "https://a.example", request: { basicAuth: { username: "a", password: "x\ny" } } },
        "request.basicAuth.password",
      ],
    ];
    for (const [body, field] of cases) {
      const answer = await api.post("/public/v1/sites", { name: "Bad", ...(body as object) });
      expect(answer.status, field).toBe(400);
      expect(answer.json.details.map((d: { field: string }) => d.field)).toContain(field);
    }
    const sites = (await api.get("/public/v1/sites")).json.data.sites;
    expect(sites.filter((s: { name: string }) => s.name === "Bad")).toEqual([]);
  });

  test("a site stored before request settings existed answers the defaults: no body, redirects followed", async () => {
    const created = await api.post("/public/v1/sites", { name: "Plain", url: "https://plain.example.com" });
    expect(created.json.data.request).toEqual({ body: null, followRedirects: true, basicAuth: null });
    const tcp = await api.post("/public/v1/sites", { name: "Mail", url: "tcp://mail.example.com:587" });
    expect(tcp.json.data.request).toBeNull();
  });

  test("a site stored before kinds existed ('{}' settings) is an http(s) check without assertions", async () => {
    const created = await api.post("/public/v1/sites", { name: "Old", url: "https://old.example.com" });
    const id = created.json.data.id;
    await sql`UPDATE sites SET settings = '{}' WHERE id = ${id}`.execute(store.db);
    const read = await api.get(`/public/v1/site/${id}`);
    expect(read.json.data).toMatchObject({
      protocol: "https",
      method: "GET",
      assertions: { keyword: null, json: null, header: null },
    });
  });

  test("a ping check that lost some pings makes the site degraded, naming the loss", async () => {
    // iputils' ping said "3 packets transmitted, 2 received, 33.3333% packet loss" (checkers/icmp.test.ts); every
    // kind answers so here, so that the other tests' sites reach no network.
    const lossyPing: Checker = async () => ({
      ok: true,
      slow: true,
      statusCode: null,
      responseMs: 2,
      error: null,
      timings: { dnsMs: null, rttMs: 2.4, lossPercent: 33.3333, totalMs: 2010 },
      certificate: null,
      wordpress: null,
    });
    const clock = new TestClock();
    const made = makeApp(store, { clock });
    const engine = localEngine(clock, made, {
      checkers: Object.fromEntries(Object.keys(CHECKERS).map((k) => [k, lossyPing])) as typeof CHECKERS,
    });
    const owner = client(made.app, (await seedOwner(store, "stack", "ping@example.com")).token);
    const id = (await owner.post("/public/v1/sites", { name: "Router", url: "icmp://203.0.113.10" })).json.data.id;
    clock.advance(FIRST_CHECK_SPREAD_MS);
    await engine.runOnce();
    const read = (await owner.get(`/public/v1/site/${id}`)).json.data;
    expect(read).toMatchObject({ state: "degraded", healthSummary: "Packet loss in local: 33% of pings unanswered." });
  });

  test("the form's target question answers for every kind with a host, and allows push://", async () => {
    const push = await api.post("/public/v1/sites/target-check", { url: "push://" });
    expect(push.json.data.allowed).toBe(true);
    const tcp = await api.post("/public/v1/sites/target-check", { url: "tcp://127.0.0.1:25" });
    expect(tcp.json.data).toMatchObject({ allowed: false, setting: "PORCHLIGHT_ALLOW_PRIVATE_TARGETS" });
  });
});
