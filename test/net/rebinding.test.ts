import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer as createHttpServer, type Server } from "node:http";
import { createServer as createTcpServer, type Server as TcpServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServer as createTlsServer } from "node:tls";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { DNS_DEFAULTS } from "../../server/contract/monitor.ts";
import type { CheckContext } from "../../server/engine/checkers/checker.ts";
import { createIcmpChecker } from "../../server/engine/checkers/icmp.ts";
import { CHECKERS, runCheck } from "../../server/engine/checkers/index.ts";
import type { DueCheck } from "../../server/engine/outcome.ts";
import { addressRefusal } from "../../server/net/address-policy.ts";
import { makeCertificates } from "../support/certificates.ts";
import { startDnsServer } from "../support/dns-server.ts";
import { dueCheck } from "../support/due-check.ts";
import { closeServer, listenWithTrap, type TrapOptions } from "../support/listen.ts";

/*
 * DNS rebinding, kind by kind, through the registry the engine calls. The name rebind.test first answers 127.0.0.2
 * (the one address these tests let through, standing for a public one) and from then on 127.0.0.1, where a trap
 * listens on the same port and counts every connection. A checker that looked the name up twice (once to judge,
 * once to connect) or followed a hop without judging it again would land in the trap.
 */

const ALLOWED = "127.0.0.2";
const servers: (Server | TcpServer)[] = [];
let trapped = 0;
let asked = 0;
const certs = makeCertificates();

/** The name answers the allowed address once, then loopback: what an attacker's DNS server with TTL 0 does. */
const rebinding = async () => (asked++ === 0 ? [ALLOWED] : ["127.0.0.1"]);

/** The server's own rule (no private targets) with one exception, as PORCHLIGHT_ALLOW_PRIVATE_TARGETS is off. */
const context: CheckContext = {
  policy: {
    allowPrivate: false,
    resolve: rebinding,
    extraCa: [certs.ca],
    refuseAddress: (address) => addressRefusal(address, { allowAddresses: new Set([ALLOWED]) }),
  },
  region: "local",
  now: () => 0,
};

/** A check of `url` with three seconds to answer, slow after two. */
const due = (url: string, overrides: Partial<DueCheck> = {}): DueCheck =>
  dueCheck(url, { timeoutMs: 3000, slowMs: 2000, ...overrides });

/** The servers on 127.0.0.2, each with a trap on 127.0.0.1 on the same port that counts what reaches it. */
const trap: TrapOptions = {
  host: ALLOWED,
  servers,
  onTrapped: () => {
    trapped++;
  },
};

let httpPort = 0;
let tcpPort = 0;
let tlsPort = 0;
let tcpAccepted = 0;
let tlsAccepted = 0;
const httpSeen: string[] = [];
const scripts = mkdtempSync(join(tmpdir(), "porchlight-rebinding-"));

beforeAll(async () => {
  const http = createHttpServer((req, res) => {
    httpSeen.push(req.url ?? "");
    // A redirect to the same name: the next hop is looked up (and judged) again.
    if (req.url === "/hop") res.writeHead(302, { location: `http://rebind.test:${httpPort}/` }).end();
    else res.writeHead(200, { "content-type": "text/plain" }).end("fine");
  });
  httpPort = await listenWithTrap(http, trap);
  const tcp = createTcpServer((socket) => {
    tcpAccepted++;
    socket.destroy();
  });
  tcpPort = await listenWithTrap(tcp, trap);
  const tls = createTlsServer({ key: certs.valid.key, cert: certs.valid.cert }, (socket) => socket.end());
  tls.on("connection", () => {
    tlsAccepted++;
  });
  tls.on("tlsClientError", () => {});
  tlsPort = await listenWithTrap(tls, trap);
});

afterAll(async () => {
  await Promise.all(servers.map(closeServer));
  rmSync(scripts, { recursive: true, force: true });
});

beforeEach(() => {
  asked = 0;
});

const REFUSED = "refused: rebind.test is 127.0.0.1 (loopback, not a public address)";

describe("a name that rebinds to loopback between lookups never reaches loopback", () => {
  test("http: one lookup per check; the next check is refused by the address the name now has", async () => {
    const first = await runCheck(due(`http://rebind.test:${httpPort}/`), context);
    expect(first).toMatchObject({ ok: true, statusCode: 200, error: null });
    expect(asked).toBe(1);
    const second = await runCheck(due(`http://rebind.test:${httpPort}/`), context);
    expect(second.ok).toBe(false);
    expect(second.error).toBe(REFUSED);
    expect(httpSeen).toEqual(["/"]);
    expect(trapped).toBe(0);
  });

  test("http: a redirect back to the same name is looked up and judged again, not reused blindly", async () => {
    httpSeen.length = 0;
    const outcome = await runCheck(due(`http://rebind.test:${httpPort}/hop`), context);
    expect(asked).toBe(2);
    expect(outcome.ok).toBe(false);
    expect(outcome.error).toBe(REFUSED);
    expect(httpSeen).toEqual(["/hop"]);
    expect(trapped).toBe(0);
  });

  test("tcp: the address judged is the address connected to", async () => {
    const first = await runCheck(due(`tcp://rebind.test:${tcpPort}`), context);
    expect(first).toMatchObject({ ok: true, error: null });
    expect(asked).toBe(1);
    expect(tcpAccepted).toBe(1);
    const second = await runCheck(due(`tcp://rebind.test:${tcpPort}`), context);
    expect(second.error).toBe(REFUSED);
    expect(tcpAccepted).toBe(1);
    expect(trapped).toBe(0);
  });

  test("tls: the handshake goes to the judged address, with the name only as the server name", async () => {
    const first = await runCheck(due(`tls://rebind.test:${tlsPort}`), context);
    expect(asked).toBe(1);
    expect(tlsAccepted).toBe(1);
    // The test certificate names localhost, not rebind.test: the connection was made and its certificate read.
    expect(first.certificate).not.toBeNull();
    const second = await runCheck(due(`tls://rebind.test:${tlsPort}`), context);
    expect(second.error).toBe(REFUSED);
    expect(tlsAccepted).toBe(1);
    expect(trapped).toBe(0);
  });

  test("icmp: ping is handed the judged address, never the name (so it cannot look it up again)", async () => {
    const command = join(scripts, "ping");
    const log = join(scripts, "ping.log");
    writeFileSync(log, "");
    writeFileSync(
      command,
      `#!/bin/sh\necho "$@" >> '${log}'\nprintf '%s\\n' '3 packets transmitted, 3 received, 0% packet loss, time 402ms' 'rtt min/avg/max/mdev = 0.030/0.040/0.050/0.010 ms'\n`,
    );
    chmodSync(command, 0o755);
    const registry = { ...CHECKERS, icmp: createIcmpChecker({ command }) };
    const first = await runCheck(due("icmp://rebind.test"), context, registry);
    expect(first).toMatchObject({ ok: true, error: null });
    const second = await runCheck(due("icmp://rebind.test"), context, registry);
    expect(second.error).toBe(REFUSED);
    expect(asked).toBe(2);
    const pinged = readFileSync(log, "utf8").trim().split("\n");
    expect(pinged).toHaveLength(1);
    expect(pinged[0]).toMatch(/ -- 127\.0\.0\.2$/);
  });

  test("dns: a resolver is named by its address only, so there is no name to rebind; the lookup hook is never used", async () => {
    // The contract refuses a named resolver; were one to reach the checker, it is refused before any query.
    const named = await runCheck(
      due("dns://example.com", { dns: { ...DNS_DEFAULTS, resolver: "rebind.test" } }),
      context,
    );
    expect(named.ok).toBe(false);
    expect(named.error).toMatch(/^refused: resolver rebind\.test is rebind\.test \(not an IP address/);
    const loopback = await runCheck(
      due("dns://example.com", { dns: { ...DNS_DEFAULTS, resolver: "127.0.0.1:53" } }),
      context,
    );
    expect(loopback.error).toBe("refused: resolver 127.0.0.1:53 is 127.0.0.1 (loopback, not a public address)");
    // A resolver the policy lets through is asked by its address; the lookup hook is still never used.
    const dns = await startDnsServer({ "rebind.test": { A: ["127.0.0.2"] } });
    try {
      const allowed = { ...context, policy: { ...context.policy, refuseAddress: () => null } };
      const answered = await runCheck(
        due("dns://rebind.test", { dns: { ...DNS_DEFAULTS, resolver: dns.resolver, expected: ["127.0.0.2"] } }),
        allowed,
      );
      expect(answered).toMatchObject({ ok: true, error: null });
      expect(dns.questions).toEqual(["rebind.test A"]);
    } finally {
      await dns.close();
    }
    expect(asked).toBe(0);
  });

  test("push: nothing is looked up or connected to; silence is judged from the clock alone", async () => {
    const push = {
      graceSeconds: 60,
      lastCallAt: -1000,
      lastStatus: "up",
      lastMessage: null,
      lastMs: null,
      since: -5000,
    } as const;
    const outcome = await runCheck(due("push://", { push }), context);
    expect(outcome).toMatchObject({ ok: true, error: null, statusCode: null });
    expect(asked).toBe(0);
    expect(trapped).toBe(0);
  });
});
