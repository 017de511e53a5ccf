import { type ChildProcess, spawn } from "node:child_process";
import { type AddressInfo, connect, createServer, type Server, type Socket } from "node:net";
import { performance } from "node:perf_hooks";
import { createServer as createTlsServer } from "node:tls";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { CheckContext } from "../../../server/engine/checkers/checker.ts";
import { checkTcp } from "../../../server/engine/checkers/tcp.ts";
import { refusedByPolicy } from "../../../server/net/address-policy.ts";
import type { CheckPolicy } from "../../../server/net/http-check.ts";
import { makeCertificates, type Pair, type TestCertificates } from "../../support/certificates.ts";
import { dueCheck } from "../../support/due-check.ts";

const ACCESS_HINT = "checking private, loopback and link-local addresses needs PORCHLIGHT_ALLOW_PRIVATE_TARGETS=true";
const DAY = 86_400_000;

const context = (policy: Partial<CheckPolicy> = {}): CheckContext => ({
  policy: { allowPrivate: true, ...policy },
  region: "local",
  now: () => 0,
});

const servers: Server[] = [];
/** Every socket the test's listeners accepted and the fillers it opened, destroyed at the end. */
const held: Socket[] = [];
let stalled: ChildProcess | undefined;

/**
 * Listens on a free port of 127.0.0.1; counts the connections it accepts and how many are still open (the checker
 * must close every one).
 */
async function listen(server: Server): Promise<{ port: number; accepted: () => number; open: () => number }> {
  let count = 0;
  const live = new Set<Socket>();
  server.on("connection", (socket: Socket) => {
    count++;
    held.push(socket);
    live.add(socket);
    socket.on("close", () => live.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { port: (server.address() as AddressInfo).port, accepted: () => count, open: () => live.size };
}

afterAll(async () => {
  for (const socket of held) socket.destroy();
  stalled?.kill("SIGKILL");
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
});

/** A plain TCP listener that accepts and says nothing. */
async function tcpListener() {
  const server = createServer((socket) => socket.on("error", () => {}));
  servers.push(server);
  return listen(server);
}

/** A TLS listener presenting this certificate. */
async function tlsListener(pair: Pair) {
  const server = createTlsServer({ key: pair.key, cert: pair.cert });
  server.on("tlsClientError", () => {});
  servers.push(server);
  return listen(server);
}

/** A port nothing listens on: a listener's, once it is closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  const { port } = await listen(server);
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * A port where a connect never completes: a listener in another process with a backlog of 1 whose event loop is
 * blocked, so it never accepts; once its accept queue is full the kernel drops further SYNs, and a connect waits.
 */
async function unacceptingPort(): Promise<number> {
  const program = `const s = require("node:net").createServer();
s.listen({ port: 0, host: "127.0.0.1", backlog: 1 }, () => {
  process.stdout.write(s.address().port + "\\n");
  setTimeout(() => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0), 0);
});`;
  stalled = spawn(process.execPath, ["-e", program], { stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise<number>((resolve) =>
    stalled?.stdout?.once("data", (chunk) => resolve(Number(String(chunk).trim()))),
  );
  await new Promise((resolve) => setTimeout(resolve, 100));
  // Fill the queue: connect until one waits.
  for (let i = 0; i < 16; i++) {
    const socket = connect(port, "127.0.0.1");
    socket.on("error", () => {});
    const connected = await new Promise<boolean>((resolve) => {
      socket.once("connect", () => resolve(true));
      setTimeout(() => resolve(false), 300);
    });
    if (!connected) {
      socket.destroy();
      return port;
    }
    held.push(socket);
  }
  throw new Error("the listener kept accepting: no port to stall on");
}

describe("tcp://", () => {
  test("a listener: up, with the time to connect, and the connection closed", async () => {
    const { port, accepted, open } = await tcpListener();
    const result = await checkTcp(dueCheck(`tcp://127.0.0.1:${port}`), context());
    expect(result).toMatchObject({
      ok: true,
      slow: false,
      statusCode: null,
      error: null,
      certificate: null,
      wordpress: null,
    });
    expect(result.responseMs).toBeGreaterThanOrEqual(0);
    expect(result.timings.dnsMs).toBeNull();
    expect(result.timings.connectMs).toBeGreaterThanOrEqual(0);
    expect(result.timings.tlsMs).toBeNull();
    expect(result.timings.totalMs).toBeGreaterThanOrEqual(result.timings.connectMs as number);
    await expect.poll(accepted).toBe(1);
    await expect.poll(open).toBe(0);
  });

  test("a host name is resolved once, and its first address is the one connected to", async () => {
    const { port, accepted } = await tcpListener();
    const asked: string[] = [];
    const resolve = async (host: string) => {
      asked.push(host);
      return ["127.0.0.1", "192.0.2.99"];
    };
    const result = await checkTcp(dueCheck(`tcp://mail.example.test:${port}`), context({ resolve }));
    expect(result).toMatchObject({ ok: true, error: null });
    expect(asked).toEqual(["mail.example.test"]);
    expect(result.timings.dnsMs).toBeGreaterThanOrEqual(0);
    await expect.poll(accepted).toBe(1);
  });

  test("slow when the connect took longer than slowMs", async () => {
    const { port } = await tcpListener();
    const result = await checkTcp(dueCheck(`tcp://127.0.0.1:${port}`, { slowMs: -1 }), context());
    expect(result).toMatchObject({ ok: true, slow: true });
  });

  test("a closed port: connection refused", async () => {
    const port = await closedPort();
    const result = await checkTcp(dueCheck(`tcp://127.0.0.1:${port}`), context());
    expect(result).toMatchObject({ ok: false, slow: false, responseMs: null, error: "connection refused" });
  });

  test("a listener that never accepts: timed out within the timeout", async () => {
    const port = await unacceptingPort();
    const started = performance.now();
    const result = await checkTcp(dueCheck(`tcp://127.0.0.1:${port}`, { timeoutMs: 400 }), context());
    const took = performance.now() - started;
    expect(result).toMatchObject({ ok: false, responseMs: null, error: "timed out after 400 ms" });
    expect(took).toBeGreaterThanOrEqual(350);
    expect(took).toBeLessThan(1500);
  });

  test("a lookup that never ends: timed out within the timeout", async () => {
    const resolve = () => new Promise<string[]>(() => {});
    const started = performance.now();
    const result = await checkTcp(dueCheck("tcp://hang.example.test:25", { timeoutMs: 300 }), context({ resolve }));
    expect(result).toMatchObject({ ok: false, error: "timed out after 300 ms (DNS)" });
    // Ended by the check's own timeout, not by the test's (30 s): the bound tells the two apart with room for a busy machine.
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  test("a name that does not exist", async () => {
    const resolve = async () => {
      throw Object.assign(new Error("getaddrinfo ENOTFOUND"), { code: "ENOTFOUND" });
    };
    const result = await checkTcp(dueCheck("tcp://missing.example.test:25"), context({ resolve }));
    expect(result).toMatchObject({ ok: false, error: "DNS: host not found" });
    const none = await checkTcp(dueCheck("tcp://empty.example.test:25"), context({ resolve: async () => [] }));
    expect(none.error).toBe("DNS: empty.example.test has no address");
  });
});

describe("tls://", () => {
  let certs: TestCertificates;
  let expiresAt: number;

  beforeAll(() => {
    // The leaf `valid` ends 10.5 days after issuedAt: issued 5.5 days ago, it expires 5 days from now.
    const now = Date.now();
    expiresAt = Math.floor(now / 1000) * 1000 + 5 * DAY;
    certs = makeCertificates(new Date(now - 5.5 * DAY));
  }, 60_000);

  test("a certificate that expires in 5 days: up, with its expiry passed through", async () => {
    const { port, open } = await tlsListener(certs.valid);
    const resolve = async () => ["127.0.0.1"];
    const result = await checkTcp(
      dueCheck(`tls://mail.example.com:${port}`),
      context({ resolve, extraCa: [certs.ca] }),
    );
    expect(result).toMatchObject({ ok: true, slow: false, error: null, statusCode: null });
    expect(result.certificate).toMatchObject({ issuer: "Porchlight Test CA", authorized: true, error: null });
    const expiry = Date.parse(result.certificate?.expiresAt ?? "");
    expect(Math.abs(expiry - expiresAt)).toBeLessThanOrEqual(2000);
    expect(result.certificate?.expiresAt).toBe(new Date(expiry).toISOString());
    expect(result.timings.tlsMs).toBeGreaterThanOrEqual(0);
    expect(result.responseMs).toBeGreaterThanOrEqual(Math.floor(result.timings.connectMs as number));
    await expect.poll(open).toBe(0);
  });

  test("an IP literal is checked against the certificate's IP address", async () => {
    const { port } = await tlsListener(certs.valid);
    const result = await checkTcp(dueCheck(`tls://127.0.0.1:${port}`), context({ extraCa: [certs.ca] }));
    expect(result).toMatchObject({ ok: true, error: null });
  });

  test.each([
    ["expired", "CERT_HAS_EXPIRED"],
    ["selfSigned", "DEPTH_ZERO_SELF_SIGNED_CERT"],
    ["wrongHost", "ERR_TLS_CERT_ALTNAME_INVALID"],
  ] as const)("certificate %s: a failure naming the reason %s", async (which, code) => {
    const { port } = await tlsListener(certs[which]);
    const result = await checkTcp(
      dueCheck(`tls://localhost:${port}`),
      context({ resolve: async () => ["127.0.0.1"], extraCa: [certs.ca] }),
    );
    expect(result).toMatchObject({ ok: false, slow: false, error: `certificate: ${code}` });
    expect(result.certificate).toMatchObject({ authorized: false, error: code });
    // The handshake was made: the time is kept, and the expiry is still passed on for reminders.
    expect(result.responseMs).not.toBeNull();
    if (which === "expired") expect(result.certificate?.expiresAt).toBe("2020-02-01T00:00:00.000Z");
  });

  test("the system's roots alone do not trust the test CA", async () => {
    const { port } = await tlsListener(certs.valid);
    const result = await checkTcp(dueCheck(`tls://127.0.0.1:${port}`), context());
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(/^certificate: (UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT_LOCALLY)$/);
  });

  test("a server that does not speak TLS: the handshake fails", async () => {
    const server = createServer((socket) => {
      socket.on("error", () => {});
      socket.end("220 mail.example.test ESMTP\r\n");
    });
    servers.push(server);
    const { port } = await listen(server);
    const result = await checkTcp(dueCheck(`tls://127.0.0.1:${port}`), context());
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(/^TLS handshake failed \(.+\)$/);
    expect(result.certificate).toBeNull();
    expect(result.timings.connectMs).not.toBeNull();
  });

  test("a server that accepts and never answers the handshake: timed out", async () => {
    const { port } = await tcpListener();
    const started = performance.now();
    const result = await checkTcp(dueCheck(`tls://127.0.0.1:${port}`, { timeoutMs: 300 }), context());
    expect(result).toMatchObject({ ok: false, responseMs: null, error: "timed out after 300 ms (TLS handshake)" });
    // Ended by the check's own timeout, not by the test's (30 s): the bound tells the two apart with room for a busy machine.
    expect(performance.now() - started).toBeLessThan(10_000);
  });
});

describe("the address policy", () => {
  test("loopback is refused without PORCHLIGHT_ALLOW_PRIVATE_TARGETS, and never connected to", async () => {
    const { port, accepted } = await tcpListener();
    for (const url of [`tcp://127.0.0.1:${port}`, `tls://[::ffff:127.0.0.1]:${port}`]) {
      const result = await checkTcp(dueCheck(url), context({ allowPrivate: false }));
      expect(result.ok).toBe(false);
      expect(result.error).toMatch(/^refused: \S+ is \S+ \(loopback, not a public address\); /);
      expect(result.error?.endsWith(ACCESS_HINT)).toBe(true);
      expect(refusedByPolicy(result.error)).toBe(true);
    }
    const first = await checkTcp(dueCheck(`tcp://127.0.0.1:${port}`), context({ allowPrivate: false }));
    expect(first.error).toBe(`refused: 127.0.0.1 is 127.0.0.1 (loopback, not a public address); ${ACCESS_HINT}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(accepted()).toBe(0);
  });

  test("a name resolving to the metadata address is refused, naming both", async () => {
    const resolve = async () => ["169.254.169.254", "192.0.2.10"];
    const result = await checkTcp(
      dueCheck("tcp://metadata.example.test:80"),
      context({ allowPrivate: false, resolve }),
    );
    expect(result.error).toBe(
      `refused: metadata.example.test is 169.254.169.254 (link-local, not a public address); ${ACCESS_HINT}`,
    );
    expect(refusedByPolicy(result.error)).toBe(true);
  });

  test("the policy's own rule replaces allowPrivate", async () => {
    const { port, accepted } = await tcpListener();
    const result = await checkTcp(
      dueCheck(`tcp://127.0.0.1:${port}`),
      context({ allowPrivate: true, refuseAddress: () => "not on this surface" }),
    );
    expect(result.error).toBe("refused: 127.0.0.1 is 127.0.0.1 (not on this surface)");
    expect(accepted()).toBe(0);
  });
});
