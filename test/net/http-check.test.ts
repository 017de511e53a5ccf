import { createServer as createHttpServer, type Server } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { type AddressInfo, createServer as createTcpServer, type Server as TcpServer } from "node:net";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { DEFAULT_SUCCESS_CODES } from "../../server/contract/site.ts";
import { type CheckTarget, checkHttp } from "../../server/net/http-check.ts";
import { makeCertificates, type Pair, type TestCertificates } from "../support/certificates.ts";

const servers: (Server | TcpServer)[] = [];
async function listen<S extends Server | TcpServer>(server: S): Promise<number> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}
afterAll(() => {
  for (const s of servers) {
    (s as Server).closeAllConnections?.();
    s.close();
  }
});

/** A target scripted per path: every behaviour the checker must survive. */
function scripted(): Server {
  return createHttpServer((req, res) => {
    const path = req.url ?? "/";
    if (path === "/ok") return res.end("hello");
    if (path.startsWith("/status/")) {
      res.statusCode = Number(path.slice(8));
      return res.end();
    }
    if (path.startsWith("/redirect/")) {
      const left = Number(path.slice(10));
      res.writeHead(302, { location: left > 1 ? `/redirect/${left - 1}` : "/ok" });
      return res.end();
    }
    if (path === "/loop-a") return res.writeHead(302, { location: "/loop-b" }).end();
    if (path === "/loop-b") return res.writeHead(301, { location: "/loop-a" }).end();
    if (path === "/see-other") return res.writeHead(303, { location: "/method" }).end();
    if (path === "/method") return res.end(req.method);
    if (path === "/headers") return res.end(JSON.stringify(req.headers));
    if (path === "/hang") return;
    if (path === "/trickle") {
      res.writeHead(200);
      const timer = setInterval(() => res.write("x"), 100);
      res.on("close", () => clearInterval(timer));
      return;
    }
    if (path === "/flood") {
      res.writeHead(200, { "content-type": "application/octet-stream" });
      const chunk = Buffer.alloc(64 * 1024, 97);
      let sent = 0;
      const pump = () => {
        while (sent < 1024 ** 3 && res.write(chunk)) sent += chunk.length;
        if (sent < 1024 ** 3) res.once("drain", pump);
        else res.end();
      };
      res.on("close", () => {
        (res as unknown as { sentBytes: number }).sentBytes = sent;
      });
      return pump();
    }
    if (path === "/reset") return req.socket.destroy();
    res.statusCode = 404;
    res.end();
  });
}

const base = (url: string, extra: Partial<CheckTarget> = {}): CheckTarget => ({
  url,
  method: "GET",
  headers: [],
  timeoutMs: 2000,
  successCodes: DEFAULT_SUCCESS_CODES,
  errorCodes: [],
  ...extra,
});
const local = { allowPrivate: true };

describe("HTTP checks against a scripted local target", () => {
  let origin: string;
  beforeAll(async () => {
    origin = `http://127.0.0.1:${await listen(scripted())}`;
  });

  test("an answering target is up, with timings per phase", async () => {
    const result = await checkHttp(base(`${origin}/ok`), local);
    expect(result).toMatchObject({
      ok: true,
      statusCode: 200,
      error: null,
      redirects: 0,
      body: "hello",
      address: "127.0.0.1",
    });
    expect(result.timings.connectMs).toBeGreaterThanOrEqual(0);
    expect(result.timings.firstByteMs).toBeGreaterThanOrEqual(result.timings.connectMs ?? 0);
    expect(result.timings.totalMs).toBeGreaterThanOrEqual(result.timings.firstByteMs ?? 0);
    expect(result.timings.tlsMs).toBeNull();
    expect(result.timings.dnsMs).toBeNull(); // an IP literal needs no lookup
  });

  test("a host name is resolved (through the given resolver) and the lookup is timed", async () => {
    const port = new URL(origin).port;
    const result = await checkHttp(base(`http://status.test:${port}/ok`), {
      ...local,
      resolve: async () => ["127.0.0.1"],
    });
    expect(result.ok).toBe(true);
    expect(result.timings.dnsMs).toBeGreaterThanOrEqual(0);
  });

  test.each([
    ["a 503", "/status/503", [], [], false, "HTTP 503"],
    ["a 404 listed as success", "/status/404", [404], [], true, null],
    ["a 200 listed as an error", "/status/200", [200], [200], false, "HTTP 200 is listed as an error code"],
    ["a 418 in neither list (4xx and 5xx fail)", "/status/418", [200], [], false, "HTTP 418"],
    ["a 304 in neither list (below 400 passes)", "/status/304", [200], [], true, null],
  ])("%s", async (_name, path, successCodes, errorCodes, ok, error) => {
    const result = await checkHttp(base(`${origin}${path}`, { successCodes, errorCodes }), local);
    expect(result.ok).toBe(ok);
    expect(result.error).toBe(error);
  });

  test("redirects are followed and counted; a 303 turns into GET", async () => {
    const three = await checkHttp(base(`${origin}/redirect/3`), local);
    expect(three).toMatchObject({ ok: true, redirects: 3, finalUrl: `${origin}/ok`, body: "hello" });
    const seeOther = await checkHttp(base(`${origin}/see-other`, { method: "POST" }), local);
    expect(seeOther).toMatchObject({ ok: true, body: "GET" });
  });

  test("too many redirects, and redirect loops, fail with a reason", async () => {
    expect((await checkHttp(base(`${origin}/redirect/6`), local)).error).toBe("too many redirects (more than 5)");
    expect((await checkHttp(base(`${origin}/loop-a`), local)).error).toBe(`redirect loop at ${origin}/loop-a`);
  });

  test("the site's method and headers are sent, with our user agent", async () => {
    const result = await checkHttp(
      base(`${origin}/headers`, { headers: [{ name: "X-Probe", value: "porchlight" }] }),
      local,
    );
    const sent = JSON.parse(result.body);
    expect(sent["x-probe"]).toBe("porchlight");
    expect(sent["user-agent"]).toMatch(/^Porchlight\//);
    expect((await checkHttp(base(`${origin}/method`, { method: "PUT" }), local)).body).toBe("PUT");
  });

  test.each([
    ["hangs", "/hang", /timed out after 500 ms/],
    ["trickles a byte at a time", "/trickle", /timed out after 500 ms/],
    ["resets the connection", "/reset", /connection (reset|closed)/],
  ])("a target that %s fails within its timeout", async (_name, path, error) => {
    const result = await checkHttp(base(`${origin}${path}`, { timeoutMs: 500 }), local);
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(error);
  });

  test("a gigabyte body is read only up to the cap, and the connection is dropped", async () => {
    const result = await checkHttp(base(`${origin}/flood`, { timeoutMs: 5000 }), { ...local, bodyCapBytes: 100_000 });
    expect(result.ok).toBe(true);
    expect(result.body.length).toBe(100_000);
  });

  test("a refused port fails with a reason", async () => {
    const closed = createTcpServer();
    const port = await listen(closed);
    closed.close();
    const result = await checkHttp(base(`http://127.0.0.1:${port}/`), local);
    expect(result).toMatchObject({ ok: false, error: "connection refused" });
  });

  test("garbage instead of HTTP fails as an invalid response", async () => {
    const port = await listen(
      createTcpServer((socket) => {
        socket.end("HELLO THERE\r\nthis is not http\r\n\r\n");
      }),
    );
    const result = await checkHttp(base(`http://127.0.0.1:${port}/`), local);
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(/^invalid HTTP response \(/);
  });

  test("private, loopback and link-local addresses are refused unless allowed, with how to allow them", async () => {
    const port = new URL(origin).port;
    for (const [url, resolve] of [
      [`${origin}/ok`, undefined],
      [`http://looks-public.test:${port}/ok`, async () => ["127.0.0.1"]],
      [`http://[::1]:${port}/ok`, undefined],
      [`http://169.254.169.254/latest/meta-data`, undefined],
      [`http://10.1.2.3/`, undefined],
    ] as const) {
      const result = await checkHttp(base(url), { allowPrivate: false, ...(resolve ? { resolve } : {}) });
      expect(result.ok, url).toBe(false);
      expect(result.error, url).toMatch(/^refused: .* needs PORCHLIGHT_ALLOW_PRIVATE_TARGETS=true$/);
    }
  });

  test("only http and https are checked", async () => {
    const result = await checkHttp(base("ftp://127.0.0.1/"), local);
    expect(result.error).toBe("refused: only http and https can be checked, not ftp:");
  });
});

describe("HTTPS checks report the certificate of the same connection", () => {
  let certs: TestCertificates;
  const serve = async (pair: Pair) => {
    const server = createHttpsServer({ key: pair.key, cert: pair.cert }, (_req, res) => res.end("secure"));
    return `https://localhost:${await listen(server)}/`;
  };
  const policy = () => ({ allowPrivate: true, extraCa: [certs.ca], resolve: async () => ["127.0.0.1"] });

  beforeAll(() => {
    certs = makeCertificates();
  });

  test("a valid certificate: up, with issuer, expiry and a TLS timing", async () => {
    const result = await checkHttp(base(await serve(certs.valid)), policy());
    expect(result).toMatchObject({ ok: true, statusCode: 200, body: "secure" });
    expect(result.certificate).toMatchObject({ issuer: "Porchlight Test CA", authorized: true, error: null });
    const daysLeft = (Date.parse(result.certificate?.validTo ?? "") - Date.now()) / 86_400_000;
    expect(daysLeft).toBeGreaterThan(9);
    expect(daysLeft).toBeLessThan(11);
    expect(result.timings.tlsMs).toBeGreaterThanOrEqual(0);
  });

  test.each([
    ["expired", "expired", "CERT_HAS_EXPIRED"],
    ["for another host", "wrongHost", "ERR_TLS_CERT_ALTNAME_INVALID"],
    ["self-signed", "selfSigned", "DEPTH_ZERO_SELF_SIGNED_CERT"],
  ] as const)("a certificate %s fails the check with its reason", async (_name, which, code) => {
    const result = await checkHttp(base(await serve(certs[which])), policy());
    expect(result.ok).toBe(false);
    expect(result.statusCode).toBe(200);
    expect(result.certificate).toMatchObject({ authorized: false, error: code });
    expect(result.error).toBe(`certificate: ${code}`);
  });

  test("a certificate from an authority the system does not trust is reported as untrusted", async () => {
    const result = await checkHttp(base(await serve(certs.valid)), {
      allowPrivate: true,
      resolve: async () => ["127.0.0.1"],
    });
    expect(result.ok).toBe(false);
    expect(result.certificate?.error).toBe("UNABLE_TO_VERIFY_LEAF_SIGNATURE");
  });
});
