import { createServer, type IncomingHttpHeaders, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { type HttpAssertions, NO_ASSERTIONS, REQUEST_DEFAULTS } from "../../../server/contract/monitor.ts";
import { DEFAULT_SUCCESS_CODES } from "../../../server/contract/site.ts";
import type { CheckContext } from "../../../server/engine/checkers/checker.ts";
import { checkHttpSite } from "../../../server/engine/checkers/http.ts";
import type { DueCheck } from "../../../server/engine/outcome.ts";
import { dueCheck as baseDueCheck } from "../../support/due-check.ts";

/*
 * Real servers on loopback: "the site" and "another origin" on two ports of 127.0.0.1 (a port is part of the
 * origin). Each records the headers every request carried, by path.
 */

interface Seen {
  path: string;
  method: string;
  headers: IncomingHttpHeaders;
  /** The request body as received (filled in as it arrives). */
  body: string;
}

const SLOW_MS = 150;

/** The site's answers by path; `/redirect?to=URL` answers 302 to URL. */
const site: RequestListener = (req, res) => {
  const url = new URL(req.url ?? "/", "http://x");
  const json = (status: number, value: unknown) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(value));
  };
  switch (url.pathname) {
    case "/shop":
      res.end("<html><button>Add to cart</button></html>");
      return;
    case "/sold-out":
      res.end("<html><p>Sold out</p></html>");
      return;
    case "/fatal":
      res.end("<html>Fatal ERROR: database unavailable</html>");
      return;
    case "/health":
      return json(200, { status: "ok", checks: [{ name: "db", state: "up" }] });
    case "/health-degraded":
      return json(200, { status: "degraded", checks: [{ name: "db", state: "down" }] });
    case "/not-json":
      res.end("<html>Service Unavailable</html>");
      return;
    case "/versioned":
      res.writeHead(200, { "X-Version": "2.1" });
      res.end("ok");
      return;
    case "/slow":
      setTimeout(() => res.end("Add to cart"), SLOW_MS);
      return;
    case "/error-page":
      res.writeHead(500);
      res.end("Add to cart");
      return;
    case "/unavailable":
      res.writeHead(503);
      res.end("<html>Down for maintenance</html>");
      return;
    case "/wordpress":
      res.end('<link rel="stylesheet" href="/wp-content/themes/shop/style.css">Add to cart');
      return;
    case "/redirect":
      res.writeHead(302, { location: url.searchParams.get("to") ?? "/" });
      res.end();
      return;
    case "/redirect-307":
      res.writeHead(307, { location: url.searchParams.get("to") ?? "/" });
      res.end();
      return;
    case "/echo": {
      // Answers with the method, content type and body it was sent, as JSON.
      let body = "";
      req.setEncoding("utf8");
      req.on("data", (chunk: string) => {
        body += chunk;
      });
      req.on("end", () => json(200, { method: req.method, type: req.headers["content-type"] ?? null, body }));
      return;
    }
    case "/private":
      if (req.headers.authorization === `Basic ${Buffer.from("ops:s3cret pass").toString("base64")}`) {
        res.end("welcome");
      } else {
        res.writeHead(401, { "www-authenticate": 'Basic realm="private"' });
        res.end("who are you?");
      }
      return;
    default:
      res.writeHead(404);
      res.end("not found");
  }
};

const seenBySite: Seen[] = [];
const seenByOther: Seen[] = [];
const recording =
  (seen: Seen[], handler: RequestListener): RequestListener =>
  (req, res) => {
    const entry: Seen = {
      path: new URL(req.url ?? "/", "http://x").pathname,
      method: req.method ?? "",
      headers: req.headers,
      body: "",
    };
    seen.push(entry);
    req.on("data", (chunk: Buffer) => {
      entry.body += chunk.toString();
    });
    handler(req, res);
  };

const servers: Server[] = [];
function listen(handler: RequestListener): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
  });
}

let siteOrigin = "";
let otherOrigin = "";

beforeAll(async () => {
  siteOrigin = await listen(recording(seenBySite, site));
  otherOrigin = await listen(
    recording(seenByOther, (_req, res) => {
      res.end("<html>Add to cart, elsewhere</html>");
    }),
  );
});

afterAll(async () => {
  await Promise.all(
    servers.map(
      (server) =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    ),
  );
});

beforeEach(() => {
  seenBySite.length = 0;
  seenByOther.length = 0;
});

const REGION = "test-region";
const context: CheckContext = { policy: { allowPrivate: true }, region: REGION, now: () => 0 };

/** A check of `path` on the site from this region, with its default success codes, five seconds, slow after ten. */
function dueCheck(path: string, overrides: Partial<DueCheck> = {}): DueCheck {
  return baseDueCheck(`${siteOrigin}${path}`, {
    region: REGION,
    timeoutMs: 5000,
    successCodes: DEFAULT_SUCCESS_CODES,
    slowMs: 10_000,
    ...overrides,
  });
}

const asserting = (assertions: Partial<HttpAssertions>) => ({ assertions: { ...NO_ASSERTIONS, ...assertions } });

describe("checkHttpSite without assertions", () => {
  test("an answer is up, with the engine's outcome fields", async () => {
    const result = await checkHttpSite(dueCheck("/shop"), context);
    expect(result).toMatchObject({ ok: true, slow: false, statusCode: 200, error: null, certificate: null });
    expect(result.wordpress).toBe(false);
    expect(Number.isInteger(result.responseMs)).toBe(true);
    expect(result.timings).toMatchObject({ redirects: 0, dnsMs: null });
    expect(typeof result.timings.totalMs).toBe("number");
    expect(seenBySite[0]?.headers["user-agent"]).toContain(REGION);
  });

  test("WordPress is seen in the answer", async () => {
    expect((await checkHttpSite(dueCheck("/wordpress"), context)).wordpress).toBe(true);
  });

  test("a slow answer is slow and still up", async () => {
    const slow = await checkHttpSite(dueCheck("/slow", { slowMs: 50 }), context);
    expect(slow).toMatchObject({ ok: true, slow: true, statusCode: 200, error: null });
    expect(slow.responseMs).toBeGreaterThanOrEqual(SLOW_MS - 5);
    const inTime = await checkHttpSite(dueCheck("/slow", { slowMs: 5000 }), context);
    expect(inTime).toMatchObject({ ok: true, slow: false });
  });

  test("a 500 on the error codes list fails naming it; the time is kept", async () => {
    const result = await checkHttpSite(dueCheck("/error-page", { errorCodes: [500, 502] }), context);
    expect(result).toMatchObject({
      ok: false,
      slow: false,
      statusCode: 500,
      error: "HTTP 500 is listed as an error code",
    });
    expect(result.responseMs).not.toBeNull();
  });

  test("no answer: no status, no time, the reason in words", async () => {
    const closed = await listen(() => {});
    const port = new URL(closed).port;
    await new Promise<void>((resolve) => servers.pop()?.close(() => resolve()));
    const result = await checkHttpSite({ ...dueCheck("/"), url: `http://127.0.0.1:${port}/` }, context);
    expect(result).toMatchObject({ ok: false, statusCode: null, responseMs: null, wordpress: null });
    expect(result.error).toBe("connection refused");
  });

  test("a loopback site is refused without the private-targets setting, as the engine always has", async () => {
    const result = await checkHttpSite(dueCheck("/shop"), { ...context, policy: { allowPrivate: false } });
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(/^refused: 127\.0\.0\.1 is 127\.0\.0\.1 \(/);
    expect(result.error).toContain("needs PORCHLIGHT_ALLOW_PRIVATE_TARGETS=true");
    expect(seenBySite).toHaveLength(0);
  });
});

describe("checkHttpSite with assertions", () => {
  test("a body without the keyword fails with the sentence; status and time are kept", async () => {
    const result = await checkHttpSite(
      dueCheck("/sold-out", asserting({ keyword: { text: "Add to cart", absent: false, caseSensitive: false } })),
      context,
    );
    expect(result).toMatchObject({
      ok: false,
      slow: false,
      statusCode: 200,
      error: "'Add to cart' not found in the body",
    });
    expect(result.responseMs).not.toBeNull();
  });

  test("a body with the keyword passes", async () => {
    const result = await checkHttpSite(
      dueCheck("/shop", asserting({ keyword: { text: "add to cart", absent: false, caseSensitive: false } })),
      context,
    );
    expect(result).toMatchObject({ ok: true, error: null, statusCode: 200 });
  });

  test("case-sensitive: the keyword must match its case", async () => {
    const keyword = { text: "add to cart", absent: false, caseSensitive: true };
    const result = await checkHttpSite(dueCheck("/shop", asserting({ keyword })), context);
    expect(result).toMatchObject({ ok: false, error: "'add to cart' not found in the body" });
  });

  test("an absent keyword fails when present, in any case unless case-sensitive", async () => {
    const keyword = { text: "Error", absent: true, caseSensitive: false };
    expect(await checkHttpSite(dueCheck("/fatal", asserting({ keyword })), context)).toMatchObject({
      ok: false,
      statusCode: 200,
      error: "'Error' found in the body",
    });
    const sensitive = { ...keyword, caseSensitive: true };
    expect(await checkHttpSite(dueCheck("/fatal", asserting({ keyword: sensitive })), context)).toMatchObject({
      ok: true,
      error: null,
    });
    expect(await checkHttpSite(dueCheck("/shop", asserting({ keyword })), context)).toMatchObject({ ok: true });
  });

  test("JSON: a value that differs fails naming both; the right one passes", async () => {
    const json = { path: "$.status", equals: "ok" };
    expect(await checkHttpSite(dueCheck("/health-degraded", asserting({ json })), context)).toMatchObject({
      ok: false,
      statusCode: 200,
      error: '$.status is "degraded", expected "ok"',
    });
    expect(await checkHttpSite(dueCheck("/health", asserting({ json })), context)).toMatchObject({
      ok: true,
      error: null,
    });
    const nested = { path: "$.checks[0].state", equals: "up" };
    expect(await checkHttpSite(dueCheck("/health", asserting({ json: nested })), context)).toMatchObject({ ok: true });
  });

  test("JSON: a missing path and a body that is not JSON fail", async () => {
    expect(
      await checkHttpSite(dueCheck("/health", asserting({ json: { path: "$.checks[3].state" } })), context),
    ).toMatchObject({ ok: false, error: "$.checks[3].state not found in the JSON body" });
    expect(
      await checkHttpSite(dueCheck("/not-json", asserting({ json: { path: "$.status" } })), context),
    ).toMatchObject({ ok: false, error: "the body is not JSON" });
  });

  test("a header: missing, without the text, and with it", async () => {
    const missing = { name: "X-Build", contains: "" };
    expect(await checkHttpSite(dueCheck("/versioned", asserting({ header: missing })), context)).toMatchObject({
      ok: false,
      error: "header X-Build missing",
    });
    const wrong = { name: "x-version", contains: "3." };
    expect(await checkHttpSite(dueCheck("/versioned", asserting({ header: wrong })), context)).toMatchObject({
      ok: false,
      statusCode: 200,
      error: 'header x-version is "2.1", expected it to contain "3."',
    });
    const right = { name: "X-VERSION", contains: "2." };
    expect(await checkHttpSite(dueCheck("/versioned", asserting({ header: right })), context)).toMatchObject({
      ok: true,
      error: null,
    });
  });

  test("a failed assertion is never slow (slow belongs to a passed check)", async () => {
    const keyword = { text: "Sold out", absent: false, caseSensitive: false };
    const result = await checkHttpSite(dueCheck("/slow", { slowMs: 50, ...asserting({ keyword }) }), context);
    expect(result).toMatchObject({ ok: false, slow: false, error: "'Sold out' not found in the body" });
  });

  test("assertions are not read when the status already failed: the error names the status", async () => {
    const keyword = { text: "Welcome", absent: false, caseSensitive: false };
    expect(await checkHttpSite(dueCheck("/unavailable", asserting({ keyword })), context)).toMatchObject({
      ok: false,
      statusCode: 503,
      error: "HTTP 503",
    });
    // The keyword is there, but a listed error code is still an error.
    const present = { text: "Add to cart", absent: false, caseSensitive: false };
    expect(
      await checkHttpSite(dueCheck("/error-page", { errorCodes: [500], ...asserting({ keyword: present }) }), context),
    ).toMatchObject({ ok: false, statusCode: 500, error: "HTTP 500 is listed as an error code" });
  });

  test("a redirect left unfollowed is reported as checkHttp reports it, assertions unread", async () => {
    const keyword = { text: "Add to cart", absent: false, caseSensitive: false };
    const result = await checkHttpSite(
      dueCheck(`/redirect?to=${encodeURIComponent("/shop")}`, asserting({ keyword })),
      { ...context, policy: { allowPrivate: true, maxRedirects: 0 } },
    );
    expect(result).toMatchObject({ ok: false, statusCode: 302, error: "too many redirects (more than 0)" });
  });
});

describe("credentials never cross origins", () => {
  test("Authorization and X-Api-Key reach the site but not the origin it redirects to", async () => {
    const headers = [
      { name: "Authorization", value: "Bearer site-secret" },
      { name: "X-Api-Key", value: "key-123" },
      { name: "X-Trace", value: "trace-1" },
    ];
    const keyword = { text: "elsewhere", absent: false, caseSensitive: false };
    const result = await checkHttpSite(
      dueCheck(`/redirect?to=${encodeURIComponent(`${otherOrigin}/landing`)}`, { headers, ...asserting({ keyword }) }),
      context,
    );
    // The assertion is read on the final answer, the other origin's.
    expect(result).toMatchObject({ ok: true, statusCode: 200, error: null });
    expect(result.timings.redirects).toBe(1);

    expect(seenBySite).toHaveLength(1);
    expect(seenBySite[0]?.headers.authorization).toBe("Bearer site-secret");
    expect(seenBySite[0]?.headers["x-api-key"]).toBe("key-123");

    expect(seenByOther).toHaveLength(1);
    expect(seenByOther[0]?.path).toBe("/landing");
    expect(seenByOther[0]?.headers.authorization).toBeUndefined();
    expect(seenByOther[0]?.headers["x-api-key"]).toBeUndefined();
    // Headers that are not credentials still go along: the hop was made with the site's settings.
    expect(seenByOther[0]?.headers["x-trace"]).toBe("trace-1");
  });

  test("a redirect within the same origin keeps them", async () => {
    const headers = [{ name: "Authorization", value: "Bearer site-secret" }];
    const result = await checkHttpSite(dueCheck(`/redirect?to=${encodeURIComponent("/shop")}`, { headers }), context);
    expect(result).toMatchObject({ ok: true, statusCode: 200 });
    expect(seenBySite.map((s) => [s.path, s.headers.authorization])).toEqual([
      ["/redirect", "Bearer site-secret"],
      ["/shop", "Bearer site-secret"],
    ]);
  });
});

describe("request settings: body, basic auth, redirects", () => {
  /** A seal that a test can open: the engine's is AES-GCM (accounts/sealed.ts), tested there. */
  const seal = (plain: string) => `sealed:${Buffer.from(plain).toString("base64")}`;
  const unseal = (sealed: string) => {
    if (!sealed.startsWith("sealed:")) throw new Error("not sealed with this key");
    return Buffer.from(sealed.slice(7), "base64").toString();
  };
  const withKey: CheckContext = { ...context, unseal };
  const request = (overrides: Partial<DueCheck["request"]>) => ({ request: { ...REQUEST_DEFAULTS, ...overrides } });
  const auth = (password: string | null, username = "ops") => ({
    basicAuth: { username, sealedPassword: password === null ? null : seal(password) },
  });

  test("the body goes with a POST, with the site's Content-Type, and the assertions read the answer", async () => {
    const json = { path: "$.body", equals: '{"user":"probe"}' };
    const result = await checkHttpSite(
      dueCheck("/echo", {
        method: "POST",
        headers: [{ name: "Content-Type", value: "application/json" }],
        ...request({ body: '{"user":"probe"}' }),
        ...asserting({ json }),
      }),
      context,
    );
    expect(result).toMatchObject({ ok: true, statusCode: 200, error: null });
  });

  test("a GET sends no body, whatever is set", async () => {
    const json = { path: "$.body", equals: "" };
    const result = await checkHttpSite(
      dueCheck("/echo", { ...request({ body: "ignored" }), ...asserting({ json }) }),
      context,
    );
    expect(result).toMatchObject({ ok: true, error: null });
  });

  test("basic auth opens the door the sealed password is for; a wrong one is the 401 it gets", async () => {
    expect(await checkHttpSite(dueCheck("/private"), withKey)).toMatchObject({ ok: false, statusCode: 401 });
    const right = await checkHttpSite(dueCheck("/private", request(auth("s3cret pass"))), withKey);
    expect(right).toMatchObject({ ok: true, statusCode: 200, error: null });
    const wrong = await checkHttpSite(dueCheck("/private", request(auth("guess"))), withKey);
    expect(wrong).toMatchObject({ ok: false, statusCode: 401, error: "HTTP 401" });
  });

  test("basic auth replaces an Authorization header of the site's own", async () => {
    const headers = [{ name: "authorization", value: "Bearer stale" }];
    const result = await checkHttpSite(dueCheck("/private", { headers, ...request(auth("s3cret pass")) }), withKey);
    expect(result).toMatchObject({ ok: true, statusCode: 200 });
    expect(seenBySite.at(-1)?.headers.authorization).toMatch(/^Basic /);
  });

  test("an empty password is sent as user and colon", async () => {
    await checkHttpSite(dueCheck("/shop", request(auth(null, "reader"))), withKey);
    expect(seenBySite.at(-1)?.headers.authorization).toBe(`Basic ${Buffer.from("reader:").toString("base64")}`);
  });

  test("a password this server cannot open is not checked, and nothing is sent", async () => {
    const locked = { basicAuth: { username: "ops", sealedPassword: "v1:other:key:material" } };
    for (const ctx of [withKey, context]) {
      const result = await checkHttpSite(dueCheck("/private", request(locked)), ctx);
      expect(result).toMatchObject({ ok: false, statusCode: null, responseMs: null });
      expect(result.error).toMatch(/^not checked: the basic-auth password cannot be opened/);
    }
    expect(seenBySite).toHaveLength(0);
  });

  test("the basic-auth credential never follows a redirect to another origin", async () => {
    const to = encodeURIComponent(`${otherOrigin}/landing`);
    const result = await checkHttpSite(dueCheck(`/redirect?to=${to}`, request(auth("s3cret pass"))), withKey);
    expect(result).toMatchObject({ ok: true, statusCode: 200 });
    expect(seenBySite[0]?.headers.authorization).toMatch(/^Basic /);
    expect(seenByOther).toHaveLength(1);
    expect(seenByOther[0]?.headers.authorization).toBeUndefined();
  });

  test("a 307 keeps the method and body on the site's origin; to another origin it goes without the body", async () => {
    const post = {
      method: "POST",
      headers: [{ name: "Content-Type", value: "application/json" }],
      ...request({ body: '{"apiKey":"k-123"}' }),
    };
    const same = await checkHttpSite(dueCheck(`/redirect-307?to=${encodeURIComponent("/echo")}`, post), context);
    expect(same).toMatchObject({ ok: true, statusCode: 200 });
    expect(seenBySite.map((s) => [s.path, s.method, s.body])).toEqual([
      ["/redirect-307", "POST", '{"apiKey":"k-123"}'],
      ["/echo", "POST", '{"apiKey":"k-123"}'],
    ]);
    const to = encodeURIComponent(`${otherOrigin}/landing`);
    const away = await checkHttpSite(dueCheck(`/redirect-307?to=${to}`, post), context);
    expect(away).toMatchObject({ ok: true, statusCode: 200 });
    expect(seenByOther).toHaveLength(1);
    expect(seenByOther[0]).toMatchObject({ path: "/landing", method: "POST", body: "" });
    expect(seenByOther[0]?.headers["content-type"]).toBeUndefined();
  });

  test("followRedirects false: the redirect is the answer, judged by its code; the target is never asked", async () => {
    const to = encodeURIComponent(`${otherOrigin}/landing`);
    const kept = await checkHttpSite(dueCheck(`/redirect?to=${to}`, request({ followRedirects: false })), context);
    expect(kept).toMatchObject({ ok: true, statusCode: 302, error: null });
    expect(kept.timings.redirects).toBe(0);
    expect(seenByOther).toHaveLength(0);
    const listed = await checkHttpSite(
      dueCheck(`/redirect?to=${to}`, { errorCodes: [302], ...request({ followRedirects: false }) }),
      context,
    );
    expect(listed).toMatchObject({ ok: false, statusCode: 302, error: "HTTP 302 is listed as an error code" });
  });
});
