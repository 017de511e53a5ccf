import { createServer as createHttpServer, type Server } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { createServer as createTcpServer, type Server as TcpServer } from "node:net";
import { performance } from "node:perf_hooks";
import { afterAll, beforeAll, beforeEach, describe, expect, test, vi } from "vitest";
import {
  anonDomainLookupOptions,
  type FetchPolicy,
  guardedAddress,
  isPublicAddress,
  safeFetch,
} from "../../server/anon/fetcher.ts";
import { DomainLookup } from "../../server/engine/domain.ts";
import { PUBLIC, REFUSED } from "../support/addresses.ts";
import { makeCertificates, type TestCertificates } from "../support/certificates.ts";
import { closeServer, listenWithTrap, type TrapOptions } from "../support/listen.ts";

/*
 * Real sockets only. A trap listens on 127.0.0.1 and counts every TCP connection it is offered; the servers the
 * tests are allowed to reach listen on 127.0.0.2 (Linux routes all of 127/8 to lo), on the trap's own port, so a
 * redirect or a second DNS answer that swaps 127.0.0.2 for 127.0.0.1 would land in the trap.
 */

const ALLOWED = "127.0.0.2";
const servers: (Server | TcpServer)[] = [];
let trapped = 0;

/** The servers on 127.0.0.2, each with a trap on 127.0.0.1 on the same port that counts what reaches it. */
const trap: TrapOptions = {
  host: ALLOWED,
  servers,
  onTrapped: () => {
    trapped++;
  },
};

/** The 127.0.0.2 side: every trick a target can play. */
function scripted(trapPort: () => number): Server {
  return createHttpServer((req, res) => {
    const path = req.url ?? "/";
    if (path === "/ok") return res.end("hello");
    if (path === "/to-loopback") return res.writeHead(302, { location: `http://127.0.0.1:${trapPort()}/` }).end();
    if (path === "/to-loopback-name") {
      return res.writeHead(301, { location: `http://loopback.test:${trapPort()}/` }).end();
    }
    if (path === "/to-mapped")
      return res.writeHead(307, { location: `http://[::ffff:127.0.0.1]:${trapPort()}/` }).end();
    if (path === "/to-self") return res.writeHead(302, { location: "/ok" }).end();
    if (path === "/to-file") return res.writeHead(302, { location: "file:///etc/passwd" }).end();
    if (path === "/to-gopher") return res.writeHead(302, { location: `gopher://127.0.0.1:${trapPort()}/_x` }).end();
    if (path.startsWith("/chain/")) {
      const left = Number(path.slice(7));
      return res.writeHead(302, { location: left > 1 ? `/chain/${left - 1}` : "/ok" }).end();
    }
    if (path === "/big") {
      res.writeHead(200, { "content-type": "text/plain" });
      return res.end(Buffer.alloc(1024 * 1024, 97));
    }
    if (path === "/hang") return;
    if (path === "/trickle") {
      res.writeHead(200);
      const timer = setInterval(() => res.write("x"), 50);
      res.on("close", () => clearInterval(timer));
      return;
    }
    if (path === "/rdap/domain/example.ok") {
      res.writeHead(200, { "content-type": "application/rdap+json" });
      return res.end(
        JSON.stringify({
          entities: [{ roles: ["registrar"], vcardArray: ["vcard", [["fn", {}, "text", "Allowed Registrar"]]] }],
          events: [{ eventAction: "expiration", eventDate: "2030-01-02T03:04:05Z" }],
        }),
      );
    }
    if (path.startsWith("/hop/domain/")) {
      return res.writeHead(302, { location: `http://127.0.0.1:${trapPort()}/rdap/domain/x` }).end();
    }
    res.statusCode = 404;
    res.end();
  });
}

let port: number;
let httpsPort: number;
let certs: TestCertificates;
const NAMES: Record<string, string[]> = {
  "www.example-public.test": [ALLOWED],
  "loopback.test": ["127.0.0.1"],
  // The test certificate is for localhost; here localhost is the allowed address.
  localhost: [ALLOWED],
};
const resolve = async (host: string): Promise<string[]> => {
  const found = NAMES[host];
  if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
  return found;
};
const allow = new Set([ALLOWED]);
const policy = (extra: Partial<FetchPolicy> = {}): FetchPolicy => ({
  timeoutMs: 2000,
  resolve,
  allowAddresses: allow,
  extraCa: [certs.ca],
  ...extra,
});

beforeAll(async () => {
  certs = makeCertificates();
  port = await listenWithTrap(
    scripted(() => port),
    trap,
  );
  httpsPort = await listenWithTrap(
    createHttpsServer({ key: certs.valid.key, cert: certs.valid.cert }, (req, res) => {
      if (req.url === "/ok") return res.end("secure hello");
      res.writeHead(302, { location: `http://127.0.0.1:${httpsPort}/` }).end();
    }),
    trap,
  );
});
afterAll(async () => {
  await Promise.all(servers.map(closeServer));
});
beforeEach(() => {
  trapped = 0;
});

describe("the trap and the allowed server work (so a refusal below means something)", () => {
  test("an explicitly allowed loopback address is reached, and the trap counts what reaches it", async () => {
    const fetched = await safeFetch(`http://www.example-public.test:${port}/ok`, policy());
    expect(fetched).toMatchObject({ ok: true, error: null, statusCode: 200, body: "hello", redirects: 0 });
    const direct = await safeFetch(`http://127.0.0.1:${port}/`, policy({ allowAddresses: new Set(["127.0.0.1"]) }));
    expect(direct.ok).toBe(false); // the trap hangs up without answering
    expect(trapped).toBe(1);
  });

  test("HTTPS to the allowed address with the tests' CA: answered, certificate trusted", async () => {
    const fetched = await safeFetch(`https://localhost:${httpsPort}/ok`, policy());
    expect(fetched).toMatchObject({ ok: true, statusCode: 200, body: "secure hello" });
    expect(fetched.certificate).toMatchObject({ authorized: true, error: null });
    expect(Date.parse(fetched.certificate?.validTo ?? "")).toBeGreaterThan(Date.now());
  });
});

describe("loopback in every spelling is refused before any socket opens", () => {
  const spellings = [
    ["dotted", "127.0.0.1"],
    ["short", "127.1"],
    ["decimal", "2130706433"],
    ["octal", "0177.0.0.1"],
    ["hex", "0x7f.0.0.1"],
    ["hex, one number", "0x7f000001"],
    ["hex, short", "0x7f.1"],
    ["IPv4-mapped IPv6", "[::ffff:127.0.0.1]"],
    ["IPv4-mapped IPv6, hex", "[::ffff:7f00:1]"],
    ["IPv4-compatible IPv6", "[::7f00:1]"],
    ["IPv4-compatible IPv6, dotted", "[::127.0.0.1]"],
    ["IPv6 loopback", "[::1]"],
    ["unspecified", "0.0.0.0"],
    ["unspecified, short", "0"],
    ["IPv6 unspecified", "[::]"],
  ] as const;
  test.each(spellings)("%s: http://%s:PORT/", async (_, host) => {
    const fetched = await safeFetch(`http://${host}:${port}/`, policy());
    expect(fetched.ok).toBe(false);
    expect(fetched.statusCode).toBeNull();
    expect(fetched.error).toMatch(/^refused: .* not a public address\)$/);
    expect(trapped).toBe(0);
  });

  test("a name that resolves to 127.0.0.1", async () => {
    const fetched = await safeFetch(`http://loopback.test:${port}/`, policy());
    expect(fetched.error).toBe("refused: loopback.test is 127.0.0.1 (loopback, not a public address)");
    expect(trapped).toBe(0);
  });

  test("the system resolver's localhost (no injected resolver, no exceptions)", async () => {
    const fetched = await safeFetch(`http://localhost:${port}/`, { timeoutMs: 2000 });
    expect(fetched.ok).toBe(false);
    expect(fetched.error).toMatch(/^refused: localhost is (127\.0\.0\.1|::1) \(loopback, not a public address\)$/);
    expect(trapped).toBe(0);
  });
});

describe("every redirect hop is checked where its socket would connect", () => {
  test("a public-looking name redirecting to 127.0.0.1", async () => {
    const fetched = await safeFetch(`http://www.example-public.test:${port}/to-loopback`, policy());
    expect(fetched).toMatchObject({ ok: false, redirects: 1, finalUrl: `http://127.0.0.1:${port}/` });
    expect(fetched.error).toMatch(/^refused: 127\.0\.0\.1 is 127\.0\.0\.1 \(loopback/);
    expect(trapped).toBe(0);
  });

  test("redirects to a loopback name and to IPv4-mapped loopback", async () => {
    for (const path of ["/to-loopback-name", "/to-mapped"]) {
      const fetched = await safeFetch(`http://www.example-public.test:${port}${path}`, policy());
      expect(fetched.ok).toBe(false);
      expect(fetched.error).toMatch(/^refused: /);
    }
    expect(trapped).toBe(0);
  });

  test("HTTPS redirecting to plain HTTP on loopback", async () => {
    const fetched = await safeFetch(`https://localhost:${httpsPort}/`, policy());
    expect(fetched.ok).toBe(false);
    expect(fetched.redirects).toBe(1);
    expect(fetched.error).toMatch(/^refused: 127\.0\.0\.1 is 127\.0\.0\.1 \(loopback/);
    expect(trapped).toBe(0);
  });

  test("redirects to file: and gopher: are refused", async () => {
    for (const path of ["/to-file", "/to-gopher"]) {
      const fetched = await safeFetch(`http://www.example-public.test:${port}${path}`, policy());
      expect(fetched.ok).toBe(false);
      expect(fetched.error).toMatch(/^refused: only http and https/);
    }
    expect(trapped).toBe(0);
  });

  test("DNS rebinding: a name that answers the allowed address, then loopback, never reaches loopback", async () => {
    let asked = 0;
    const rebinding = async () => (asked++ === 0 ? [ALLOWED] : ["127.0.0.1"]);
    const fetched = await safeFetch(`http://rebind.test:${port}/to-self`, policy({ resolve: rebinding }));
    expect(asked).toBe(2);
    expect(fetched.ok).toBe(false);
    expect(fetched.error).toBe("refused: rebind.test is 127.0.0.1 (loopback, not a public address)");
    expect(trapped).toBe(0);
  });

  test("five redirects are followed; a sixth is refused", async () => {
    const five = await safeFetch(`http://www.example-public.test:${port}/chain/5`, policy());
    expect(five).toMatchObject({ ok: true, statusCode: 200, redirects: 5, body: "hello" });
    const six = await safeFetch(`http://www.example-public.test:${port}/chain/6`, policy());
    expect(six.ok).toBe(false);
    expect(six.error).toBe("too many redirects (more than 5)");
    const two = await safeFetch(`http://www.example-public.test:${port}/chain/3`, policy({ maxRedirects: 2 }));
    expect(two.error).toBe("too many redirects (more than 2)");
  });
});

describe("only http and https, refused before anything happens", () => {
  test.each([
    "file:///etc/passwd",
    "ftp://127.0.0.1:21/",
    "gopher://127.0.0.1:70/_GET",
    "data:text/plain,hello",
    "javascript:alert(1)",
    "ws://127.0.0.1/",
  ])("%s", async (url) => {
    let asked = 0;
    const fetched = await safeFetch(url, policy({ resolve: async () => [String(asked++)] }));
    expect(fetched.ok).toBe(false);
    expect(fetched.error).toMatch(/^refused: only http and https are fetched, not [a-z]+:$/);
    expect(asked).toBe(0);
  });

  test("something that is not a URL", async () => {
    expect((await safeFetch("not a url", policy())).error).toBe("refused: not a valid URL");
  });
});

describe("names resolving to non-public addresses are refused: the table the engine's checks are run against", () => {
  test.each(REFUSED)("%s (%s)", async (address, range) => {
    const fetched = await safeFetch(`http://target.test:${port}/`, policy({ resolve: async () => [address] }));
    expect(fetched.ok).toBe(false);
    expect(fetched.error).toBe(`refused: target.test is ${address} (${range}, not a public address)`);
    expect(isPublicAddress(address)).toBe(false);
    await expect(guardedAddress("target.test", policy({ resolve: async () => [address] }))).rejects.toThrow(
      `refused: target.test is ${address} (${range}, not a public address)`,
    );
    expect(trapped).toBe(0);
  });

  test.each(PUBLIC)("%s is public: allowed, and its address is the one to connect to", async (address) => {
    expect(isPublicAddress(address)).toBe(true);
    expect(await guardedAddress("target.test", policy({ resolve: async () => [address] }))).toBe(address);
  });

  test("PORCHLIGHT_ALLOW_PRIVATE_TARGETS does not reach the anonymous fetcher", async () => {
    vi.stubEnv("PORCHLIGHT_ALLOW_PRIVATE_TARGETS", "true");
    try {
      const fetched = await safeFetch(`http://127.0.0.1:${port}/`, policy());
      expect(fetched.error).toBe("refused: 127.0.0.1 is 127.0.0.1 (loopback, not a public address)");
      expect(isPublicAddress("10.0.0.1")).toBe(false);
    } finally {
      vi.unstubAllEnvs();
    }
    expect(trapped).toBe(0);
  });

  test("exceptions count only when listed, in any spelling of the address", () => {
    expect(isPublicAddress("not an address")).toBe(false);
    expect(isPublicAddress("127.0.0.2")).toBe(false);
    expect(isPublicAddress("127.0.0.2", { allowAddresses: allow })).toBe(true);
    expect(isPublicAddress("::ffff:127.0.0.2", { allowAddresses: allow })).toBe(true);
    expect(isPublicAddress("127.0.0.3", { allowAddresses: allow })).toBe(false);
  });

  test("the first address is the one checked and the one connected to", async () => {
    const mixed = policy({ resolve: async () => ["127.0.0.1", ALLOWED] });
    expect((await safeFetch(`http://mixed.test:${port}/ok`, mixed)).error).toMatch(/^refused: mixed\.test is 127/);
    const good = policy({ resolve: async () => [ALLOWED, "127.0.0.1"] });
    expect(await safeFetch(`http://mixed.test:${port}/ok`, good)).toMatchObject({ ok: true, body: "hello" });
    expect(trapped).toBe(0);
  });
});

describe("bounds", () => {
  test("a body larger than the cap is cut, not an error", async () => {
    const capped = await safeFetch(`http://www.example-public.test:${port}/big`, policy({ bodyCapBytes: 1000 }));
    expect(capped).toMatchObject({ ok: true, statusCode: 200, error: null });
    expect(capped.body).toBe("a".repeat(1000));
    const byDefault = await safeFetch(`http://www.example-public.test:${port}/big`, policy());
    expect(byDefault.body.length).toBe(256 * 1024);
  });

  test.each(["/hang", "/trickle"])("a server that %s ends within timeoutMs", async (path) => {
    const started = performance.now();
    const fetched = await safeFetch(`http://www.example-public.test:${port}${path}`, policy({ timeoutMs: 400 }));
    const took = performance.now() - started;
    expect(fetched.ok).toBe(false);
    // The fetch's own deadline ended it (a hang would meet the test's timeout instead); no upper bound in wall time,
    // which a busy machine would break.
    expect(fetched.error).toMatch(/timed out after 400 ms/);
    expect(took).toBeGreaterThanOrEqual(350);
  });

  test("a resolver that never answers ends within timeoutMs too, for fetches and for guarded addresses", async () => {
    const stuck = policy({ timeoutMs: 300, resolve: () => new Promise<string[]>(() => {}) });
    const fetched = await safeFetch(`http://stuck.test:${port}/`, stuck);
    expect(fetched.ok).toBe(false);
    expect(fetched.error).toMatch(/timed out/);
    await expect(guardedAddress("stuck.test", stuck)).rejects.toThrow("DNS: lookup of stuck.test timed out");
  });

  test("a name with no address fails with the DNS reason", async () => {
    const fetched = await safeFetch(`http://nowhere.test:${port}/`, policy());
    expect(fetched.ok).toBe(false);
    expect(fetched.error).toBe("DNS: host not found");
  });
});

describe("RDAP and WHOIS through the same policy", () => {
  let whoisPort: number;
  const whoisQueries: string[] = [];
  const names: Record<string, string[]> = {
    "rdap.ok.test": [ALLOWED],
    "rdap.evil.test": ["127.0.0.1"],
    "rdap.metadata.test": ["169.254.169.254"],
    "whois.iana.test": [ALLOWED],
    "whois.ok.test": [ALLOWED],
    "whois.evil.test": ["127.0.0.1"],
    "whois.private.test": ["10.0.0.1"],
  };
  const anonPolicy = (): FetchPolicy => ({
    timeoutMs: 2000,
    allowAddresses: allow,
    resolve: async (host) => names[host] ?? [],
  });
  const domains = (ianaWhois = "whois.iana.test") =>
    new DomainLookup({
      bootstrap: {
        services: [
          [["ok"], [`http://rdap.ok.test:${port}/rdap/`]],
          [["evil"], [`http://rdap.evil.test:${port}/rdap/`]],
          [["meta"], [`http://rdap.metadata.test:${port}/rdap/`]],
          [["hop"], [`http://rdap.ok.test:${port}/hop/`]],
          [["v4"], [`http://127.0.0.1:${port}/rdap/`]],
        ],
      },
      ianaWhois,
      whoisPort,
      ...anonDomainLookupOptions(anonPolicy()),
    });

  beforeAll(async () => {
    const whois = createTcpServer((socket) => {
      let text = "";
      socket.on("data", (chunk) => {
        text += chunk.toString("utf8");
        if (!text.includes("\r\n")) return;
        const query = text.trim();
        whoisQueries.push(query);
        const answers: Record<string, string> = {
          yy: "refer:        whois.ok.test\n",
          zz: "refer:        whois.evil.test\n",
          pp: "whois:        whois.private.test\n",
          ll: "refer:        127.0.0.1\n",
          "example.yy": "Registrar: Allowed Registrar\nRegistry Expiry Date: 2031-05-06T07:08:09Z\n",
        };
        socket.end(answers[query] ?? "% no match\n");
      });
    });
    whoisPort = await listenWithTrap(whois, trap);
  });

  test("RDAP happy path: the allowed registry answers and is parsed", async () => {
    expect(await domains().lookup("example.ok")).toEqual({
      domain: "example.ok",
      registrar: "Allowed Registrar",
      expiresAt: "2030-01-02T03:04:05.000Z",
      source: "rdap",
    });
  });

  test("an RDAP base that resolves to loopback or cloud metadata, or is a loopback literal, is refused", async () => {
    await expect(domains().lookup("example.evil")).rejects.toThrow(
      /^RDAP http:\/\/rdap\.evil\.test:\d+\/rdap\/domain\/example\.evil: refused: rdap\.evil\.test is 127\.0\.0\.1/,
    );
    await expect(domains().lookup("example.meta")).rejects.toThrow(
      /refused: rdap\.metadata\.test is 169\.254\.169\.254/,
    );
    await expect(domains().lookup("example.v4")).rejects.toThrow(/refused: 127\.0\.0\.1 is 127\.0\.0\.1/);
    expect(trapped).toBe(0);
  });

  test("an RDAP registry that redirects to loopback is refused at the hop", async () => {
    await expect(domains().lookup("example.hop")).rejects.toThrow(/refused: 127\.0\.0\.1 is 127\.0\.0\.1 \(loopback/);
    expect(trapped).toBe(0);
  });

  test("WHOIS happy path: IANA (allowed) refers to an allowed registry, which answers", async () => {
    expect(await domains().lookup("example.yy")).toEqual({
      domain: "example.yy",
      registrar: "Allowed Registrar",
      expiresAt: "2031-05-06T07:08:09.000Z",
      source: "whois",
    });
    expect(whoisQueries.slice(-2)).toEqual(["yy", "example.yy"]);
  });

  test("a WHOIS referral that resolves to loopback or a private address, or is a loopback literal, is refused", async () => {
    const before = whoisQueries.length;
    await expect(domains().lookup("example.zz")).rejects.toThrow(
      "refused: whois.evil.test is 127.0.0.1 (loopback, not a public address)",
    );
    await expect(domains().lookup("example.pp")).rejects.toThrow(
      "refused: whois.private.test is 10.0.0.1 (private, not a public address)",
    );
    await expect(domains().lookup("example.ll")).rejects.toThrow(
      "refused: 127.0.0.1 is 127.0.0.1 (loopback, not a public address)",
    );
    // IANA was asked each time; the registries it named never were.
    expect(whoisQueries.slice(before)).toEqual(["zz", "pp", "ll"]);
    expect(trapped).toBe(0);
  });

  test("the IANA WHOIS server itself is checked too", async () => {
    await expect(domains("127.0.0.1").lookup("example.yy")).rejects.toThrow(/^refused: 127\.0\.0\.1 is 127\.0\.0\.1/);
    expect(trapped).toBe(0);
  });
});
