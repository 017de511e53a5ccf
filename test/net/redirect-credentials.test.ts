import {
  createServer as createHttpServer,
  type IncomingHttpHeaders,
  type RequestListener,
  type Server,
} from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { type AddressInfo, createServer as createTcpServer, type Server as TcpServer } from "node:net";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { DEFAULT_SUCCESS_CODES } from "../../server/contract/site.ts";
import { Engine } from "../../server/engine/engine.ts";
import { createLogger } from "../../server/log.ts";
import { type CheckTarget, checkHttp, isCredentialHeader } from "../../server/net/http-check.ts";
import type { Store } from "../../server/store/store.ts";
import { client, describeStores, makeApp, seedOwner, TestClock } from "../helpers.ts";
import { makeCertificates, type TestCertificates } from "../support/certificates.ts";

/*
 * Real servers on loopback: the site on 127.0.0.1, "another host" on 127.0.0.2 on the same port (Linux routes all
 * of 127/8 to lo), so only the host differs; one more port on 127.0.0.1, and one port that speaks both http and
 * https, so only the scheme differs. Every server records what each request carried.
 */

interface Seen {
  origin: string;
  path: string;
  method: string;
  headers: IncomingHttpHeaders;
}
const seen: Seen[] = [];
const servers: (Server | TcpServer)[] = [];

/** `/redirect?status=S&to=URL` answers S with `Location: URL`; anything else answers 200. */
const recording =
  (origin: () => string): RequestListener =>
  (req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    seen.push({ origin: origin(), path: url.pathname, method: req.method ?? "", headers: req.headers });
    if (url.pathname === "/redirect") {
      res.writeHead(Number(url.searchParams.get("status")), { location: url.searchParams.get("to") ?? "/" });
      return res.end();
    }
    res.end("ok");
  };

function listen(server: Server | TcpServer, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      servers.push(server);
      resolve((server.address() as AddressInfo).port);
    });
  });
}
const closeServer = (server: Server | TcpServer) =>
  new Promise<void>((resolve) => {
    (server as Server).closeAllConnections?.();
    server.close(() => resolve());
  });

let site = ""; // http://127.0.0.1:P
let otherHost = ""; // http://127.0.0.2:P
let otherPort = ""; // http://127.0.0.1:Q
let bothSchemes = 0; // localhost:R answers http and https
let certs: TestCertificates;

beforeAll(async () => {
  certs = makeCertificates();
  for (let attempt = 0; ; attempt++) {
    const first = createHttpServer(recording(() => site));
    const port = await listen(first, "127.0.0.1", 0);
    site = `http://127.0.0.1:${port}`;
    otherHost = `http://127.0.0.2:${port}`;
    try {
      await listen(createHttpServer(recording(() => otherHost)), "127.0.0.2", port);
      break;
    } catch (error) {
      servers.splice(servers.indexOf(first), 1);
      await closeServer(first);
      if (attempt >= 20) throw error;
    }
  }
  const third = createHttpServer(recording(() => otherPort));
  otherPort = `http://127.0.0.1:${await listen(third, "127.0.0.1", 0)}`;
  // One port, both schemes: a TLS ClientHello starts with 0x16, plain HTTP with a method's letter.
  const plain = createHttpServer(recording(() => `http://localhost:${bothSchemes}`));
  const secure = createHttpsServer(
    certs.valid,
    recording(() => `https://localhost:${bothSchemes}`),
  );
  servers.push(plain, secure);
  const split = createTcpServer((socket) => {
    socket.once("data", (chunk) => {
      socket.pause();
      socket.unshift(chunk);
      (chunk[0] === 0x16 ? secure : plain).emit("connection", socket);
      process.nextTick(() => socket.resume());
    });
  });
  bothSchemes = await listen(split, "127.0.0.1", 0);
});
afterAll(async () => {
  await Promise.all(servers.map(closeServer));
});
beforeEach(() => {
  seen.length = 0;
});

/** The owner's headers: the README tells owners to put credentials here. */
const OWNER_HEADERS = [
  { name: "Authorization", value: "Bearer owner-secret" },
  { name: "Cookie", value: "session=owner" },
  { name: "Proxy-Authorization", value: "Basic b3duZXI6cHc=" },
  { name: "X-Api-Key", value: "key-123" },
  { name: "X-Auth-Token", value: "token-123" },
  { name: "Private-Token", value: "gitlab-123" },
  { name: "X-Probe", value: "not a secret" },
];
const CREDENTIALS = ["authorization", "cookie", "proxy-authorization", "x-api-key", "x-auth-token", "private-token"];
const REDIRECT_CODES = [301, 302, 303, 307, 308] as const;

const redirect = (from: string, status: number, to: string) =>
  `${from}/redirect?status=${status}&to=${encodeURIComponent(to)}`;
const target = (url: string, extra: Partial<CheckTarget> = {}): CheckTarget => ({
  url,
  method: "GET",
  headers: OWNER_HEADERS,
  timeoutMs: 3000,
  successCodes: DEFAULT_SUCCESS_CODES,
  errorCodes: [],
  ...extra,
});
const policy = () => ({ allowPrivate: true, extraCa: [certs.ca], resolve: async () => ["127.0.0.1"] });
/** The request the final hop received. */
const landed = (origin: string, path = "/echo") => {
  const found = seen.filter((s) => s.origin === origin && s.path === path);
  expect(found, `${origin}${path} was asked once`).toHaveLength(1);
  return found[0] as Seen;
};
const credentialsIn = (headers: IncomingHttpHeaders) => CREDENTIALS.filter((name) => headers[name] !== undefined);

describe("a site's credential headers on redirects", () => {
  test.each(REDIRECT_CODES)("a %i to another host gets none of them; the site itself got all", async (status) => {
    const result = await checkHttp(target(redirect(site, status, `${otherHost}/echo`)), policy());
    expect(result).toMatchObject({ ok: true, statusCode: 200, redirects: 1, finalUrl: `${otherHost}/echo` });
    expect(credentialsIn(landed(site, "/redirect").headers)).toEqual(CREDENTIALS);
    const other = landed(otherHost).headers;
    expect(credentialsIn(other)).toEqual([]);
    expect(other["x-probe"]).toBe("not a secret");
    expect(other["user-agent"]).toMatch(/^Porchlight\//);
  });

  test.each(REDIRECT_CODES)("a %i within the site's origin keeps them", async (status) => {
    const result = await checkHttp(target(redirect(site, status, "/echo")), policy());
    expect(result).toMatchObject({ ok: true, redirects: 1 });
    const echo = landed(site).headers;
    expect(credentialsIn(echo)).toEqual(CREDENTIALS);
    expect(echo.authorization).toBe("Bearer owner-secret");
  });

  test("a different port on the same host is another origin", async () => {
    const result = await checkHttp(target(redirect(site, 302, `${otherPort}/echo`)), policy());
    expect(result.ok).toBe(true);
    expect(credentialsIn(landed(otherPort).headers)).toEqual([]);
  });

  test("http to https on the same host and port is another origin", async () => {
    const plain = `http://localhost:${bothSchemes}`;
    const secure = `https://localhost:${bothSchemes}`;
    const result = await checkHttp(target(redirect(plain, 301, `${secure}/echo`)), policy());
    expect(result).toMatchObject({ ok: true, statusCode: 200, finalUrl: `${secure}/echo` });
    expect(result.certificate?.authorized).toBe(true);
    expect(credentialsIn(landed(plain, "/redirect").headers)).toEqual(CREDENTIALS);
    expect(credentialsIn(landed(secure).headers)).toEqual([]);
  });

  test("once left out they stay out, also when a later hop comes back to the site", async () => {
    const back = redirect(otherHost, 302, `${site}/echo`);
    const result = await checkHttp(target(redirect(site, 307, back)), policy());
    expect(result).toMatchObject({ ok: true, redirects: 2, finalUrl: `${site}/echo` });
    expect(credentialsIn(landed(site).headers)).toEqual([]);
  });

  test("an owner's Host header is for the site only; another origin gets its own", async () => {
    const headers = [...OWNER_HEADERS, { name: "Host", value: "internal.site.test" }];
    await checkHttp(target(redirect(site, 302, "/echo"), { headers }), policy());
    expect(landed(site).headers.host).toBe("internal.site.test");
    seen.length = 0;
    await checkHttp(target(redirect(site, 302, `${otherHost}/echo`), { headers }), policy());
    expect(landed(otherHost).headers.host).toBe(new URL(otherHost).host);
  });

  test("which header names count as credentials", () => {
    for (const name of [...CREDENTIALS, "X-Session-Id", "X-Client-Secret", "X-Password", "X-CSRF-Token", "Api-Key"]) {
      expect(isCredentialHeader(name), name).toBe(true);
    }
    for (const name of ["X-Probe", "Accept", "Accept-Language", "X-Requested-With", "Cache-Control"]) {
      expect(isCredentialHeader(name), name).toBe(false);
    }
  });
});

describe("the method after a redirect, as browsers do it", () => {
  test.each([
    ["POST", 301, "GET"],
    ["POST", 302, "GET"],
    ["POST", 303, "GET"],
    ["POST", 307, "POST"],
    ["POST", 308, "POST"],
    ["PUT", 301, "PUT"],
    ["PUT", 302, "PUT"],
    ["PUT", 303, "GET"],
    ["DELETE", 303, "GET"],
    ["PATCH", 307, "PATCH"],
    ["HEAD", 303, "HEAD"],
    ["HEAD", 301, "HEAD"],
    ["GET", 303, "GET"],
  ] as const)("%s answered %i goes on as %s", async (method, status, after) => {
    const headers = [...OWNER_HEADERS, { name: "Content-Type", value: "application/json" }];
    const result = await checkHttp(target(redirect(site, status, "/echo"), { method, headers }), policy());
    expect(result).toMatchObject({ ok: true, redirects: 1 });
    const echo = landed(site);
    expect(echo.method).toBe(after);
    // The body's headers go with the body; the credentials stay (same origin).
    expect(echo.headers["content-type"]).toBe(after === method ? "application/json" : undefined);
    expect(credentialsIn(echo.headers)).toEqual(CREDENTIALS);
  });
});

describeStores("the engine's checks of a site with credential headers", (kind) => {
  let store: Store;
  let cleanup: () => Promise<void>;
  let engine: Engine | undefined;

  beforeEach(async () => {
    ({ store, cleanup } = await kind.open());
  });
  afterEach(async () => {
    await engine?.stop();
    await cleanup();
  });

  test("a site that redirects to another host: the other host gets none of the owner's credentials", async () => {
    const clock = new TestClock();
    const { app, recorded } = makeApp(store, { clock });
    const api = client(app, (await seedOwner(store)).token);
    const created = await api.post("/public/v1/sites", {
      url: redirect(site, 308, `${otherHost}/echo`),
      name: "Redirecting",
      checkInterval: 60,
      timeout: 5,
      headers: OWNER_HEADERS,
    });
    expect(created.status).toBe(201);
    engine = new Engine({
      store,
      region: "local",
      clock,
      logger: createLogger("silent"),
      concurrency: 5,
      retentionHours: 48,
      policy: { allowPrivate: true },
      domains: null,
      onRecorded: recorded,
    });
    clock.advance(3000);
    await engine.runOnce();
    const checked = (await api.get(`/public/v1/site/${created.json.data.id}`)).json.data;
    expect(checked).toMatchObject({ state: "healthy", status: "up" });
    expect(credentialsIn(landed(site, "/redirect").headers)).toEqual(CREDENTIALS);
    expect(credentialsIn(landed(otherHost).headers)).toEqual([]);
  });
});
