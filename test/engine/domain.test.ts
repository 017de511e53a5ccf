import { mkdtempSync, rmSync } from "node:fs";
import { createServer as createHttpServer, type Server } from "node:http";
import { type AddressInfo, createServer as createTcpServer, type Server as TcpServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  DomainLookup,
  loadBootstrap,
  parseDate,
  parseRdap,
  parseWhois,
  refreshBootstrap,
} from "../../server/engine/domain.ts";
import { Engine } from "../../server/engine/engine.ts";
import { createLogger } from "../../server/log.ts";
import { client, makeApp, seedOwner, sqliteKind, TestClock } from "../helpers.ts";

/** Shaped like Verisign's RDAP answer for a .com domain (trimmed to the parts that matter, plus noise). */
const RDAP_COM = {
  objectClassName: "domain",
  handle: "2336799_DOMAIN_COM-VRSN",
  ldhName: "EXAMPLE.COM",
  links: [{ value: "https://rdap.verisign.com/com/v1/domain/EXAMPLE.COM", rel: "self" }],
  status: ["client delete prohibited", "client transfer prohibited"],
  entities: [
    {
      objectClassName: "entity",
      handle: "376",
      roles: ["registrar"],
      publicIds: [{ type: "IANA Registrar ID", identifier: "376" }],
      vcardArray: [
        "vcard",
        [
          ["version", {}, "text", "4.0"],
          ["fn", {}, "text", "RESERVED-Internet Assigned Numbers Authority"],
        ],
      ],
    },
  ],
  events: [
    { eventAction: "registration", eventDate: "1995-08-14T04:00:00Z" },
    { eventAction: "expiration", eventDate: "2027-08-13T04:00:00Z" },
    { eventAction: "last update of RDAP database", eventDate: "2026-11-20T10:11:12Z" },
  ],
  nameservers: [{ objectClassName: "nameserver", ldhName: "A.IANA-SERVERS.NET" }],
};

/** Shaped like IANA's answer for a TLD on whois.iana.org. */
const IANA_IO = `% IANA WHOIS server
% for more information on IANA, visit http://www.iana.org

domain:       IO

organisation: Internet Computer Bureau Limited
address:      c/o Sure (Diego Garcia) Limited

refer:        127.0.0.1
whois:        127.0.0.1

status:       ACTIVE
remarks:      Registration information: http://www.nic.io/
`;

/** Shaped like a gTLD-style registry WHOIS answer. */
const WHOIS_IO = `Domain Name: porchlight.io
Registry Domain ID: 5c3e1c0e1f2a4b8d9e0f1a2b3c4d5e6f-DONUTS
Registrar WHOIS Server: whois.gandi.net
Registrar URL: http://www.gandi.net
Updated Date: 2026-05-02T09:14:55Z
Creation Date: 2019-06-01T12:00:00Z
Registry Expiry Date: 2027-06-01T12:00:00Z
Registrar: Gandi SAS
Registrar IANA ID: 81
Domain Status: clientTransferProhibited https://icann.org/epp#clientTransferProhibited
>>> Last update of WHOIS database: 2026-11-21T03:00:00Z <<<
`;

/** Shaped like Nominet's answer for .uk: labels on one line, values on the next. */
const WHOIS_UK = `
    Domain name:
        porchlight.co.uk

    Registrar:
        Example Registrar Ltd [Tag = EXAMPLE]
        URL: https://registrar.example

    Relevant dates:
        Registered on: 01-Feb-2018
        Expiry date:  01-Feb-2027
        Last updated:  03-Jan-2026
`;

const servers: (Server | TcpServer)[] = [];
const whoisQueries: string[] = [];
let rdapBase = "";
let whoisPort = 0;
let rdapRequests = 0;

beforeAll(async () => {
  const rdap = createHttpServer((req, res) => {
    rdapRequests++;
    if (req.url === "/com/v1/domain/example.com") {
      res.setHeader("content-type", "application/rdap+json");
      return res.end(JSON.stringify(RDAP_COM));
    }
    if (req.url === "/dns.json") {
      res.setHeader("content-type", "application/json");
      return res.end(JSON.stringify({ publication: "2026-11-20T00:00:00Z", services: [[["test"], [rdapBase]]] }));
    }
    res.statusCode = 404;
    res.end(JSON.stringify({ errorCode: 404, title: "Not Found" }));
  });
  await new Promise<void>((resolve) => rdap.listen(0, "127.0.0.1", resolve));
  servers.push(rdap);
  rdapBase = `http://127.0.0.1:${(rdap.address() as AddressInfo).port}`;
  const whois = createTcpServer((socket) => {
    let query = "";
    socket.on("data", (chunk) => {
      query += chunk.toString();
      if (!query.endsWith("\r\n")) return;
      const q = query.trim().toLowerCase();
      whoisQueries.push(q);
      const answers: Record<string, string> = {
        io: IANA_IO,
        uk: IANA_IO.replaceAll("IO", "UK"),
        "porchlight.io": WHOIS_IO,
        "porchlight.co.uk": WHOIS_UK,
      };
      socket.end(answers[q] ?? `% no match for "${q}"\n`);
    });
  });
  await new Promise<void>((resolve) => whois.listen(0, "127.0.0.1", resolve));
  servers.push(whois);
  whoisPort = (whois.address() as AddressInfo).port;
});
afterAll(() => {
  for (const s of servers) s.close();
});

const lookup = (now = () => Date.now()) =>
  new DomainLookup({
    bootstrap: { services: [[["com"], [`${rdapBase}/com/v1/`]]] },
    ianaWhois: "127.0.0.1",
    whoisPort,
    now,
  });

describe("domain registrations", () => {
  test("the registrable domain comes from the public suffix list; addresses and localhost have none", () => {
    expect(DomainLookup.registrable("www.shop.example.com")).toBe("example.com");
    expect(DomainLookup.registrable("status.porchlight.co.uk")).toBe("porchlight.co.uk");
    expect(DomainLookup.registrable("127.0.0.1")).toBeNull();
    expect(DomainLookup.registrable("[::1]")).toBeNull();
    expect(DomainLookup.registrable("localhost")).toBeNull();
  });

  test("RDAP: registrar and expiry from the registry named by the bootstrap file, cached for a day", async () => {
    let now = Date.parse("2026-11-21T12:00:00Z");
    const domains = lookup(() => now);
    const before = rdapRequests;
    expect(await domains.lookup("example.com")).toEqual({
      domain: "example.com",
      registrar: "RESERVED-Internet Assigned Numbers Authority",
      expiresAt: "2027-08-13T04:00:00.000Z",
      source: "rdap",
    });
    await domains.lookup("example.com");
    expect(rdapRequests).toBe(before + 1);
    now += 86_400_000 + 1;
    await domains.lookup("example.com");
    expect(rdapRequests).toBe(before + 2);
  });

  test("a registrar's name from outside is made storable: NUL and lone surrogates (PostgreSQL refuses them) become U+FFFD", () => {
    const rdap = parseRdap({
      entities: [{ roles: ["registrar"], vcardArray: ["vcard", [["fn", {}, "text", "Evil\u0000Reg\uD800istrar"]]] }],
    });
    expect(rdap.registrar).toBe("Evil\uFFFDReg\uFFFDistrar");
    expect(parseWhois("Registrar: Bad\u0000Name\nRegistry Expiry Date: 2030-01-01T00:00:00Z\n").registrar).toBe(
      "Bad\uFFFDName",
    );
    // Paired surrogates (an emoji) are valid text and stay.
    expect(
      parseRdap({ entities: [{ roles: ["registrar"], vcardArray: ["vcard", [["fn", {}, "text", "Reg 🔥"]]] }] })
        .registrar,
    ).toBe("Reg 🔥");
  });

  test("WHOIS on port 43 for registries without RDAP: IANA names the server, the registry answers", async () => {
    const domains = lookup();
    expect(await domains.lookup("porchlight.io")).toEqual({
      domain: "porchlight.io",
      registrar: "Gandi SAS",
      expiresAt: "2027-06-01T12:00:00.000Z",
      source: "whois",
    });
    expect(whoisQueries.slice(-2)).toEqual(["io", "porchlight.io"]);
    expect(await domains.lookup("porchlight.co.uk")).toMatchObject({
      registrar: "Example Registrar Ltd",
      expiresAt: "2027-02-01T00:00:00.000Z",
    });
  });

  test("a registry that answers nothing useful is a failed lookup, not a made-up date", async () => {
    await expect(lookup().lookup("unknown.com")).rejects.toThrow(/HTTP 404/);
    expect(parseWhois('% no match for "x.io"\n')).toEqual({ registrar: null, expiresAt: null });
    expect(parseDate("paid-till: 2027.03.04")).toBe("2027-03-04T00:00:00.000Z");
    expect(parseDate("2027-03-04 10:20:30")).toBe("2027-03-04T10:20:30.000Z");
    expect(parseDate("2027-03-04T10:20:30+02:00")).toBe("2027-03-04T08:20:30.000Z");
    expect(parseDate("not a date")).toBeNull();
  });

  test("the shipped bootstrap file is IANA's; `refresh` replaces it with a downloaded copy in the data directory", async () => {
    const dir = mkdtempSync(join(tmpdir(), "porchlight-rdap-"));
    try {
      const shipped = loadBootstrap(dir);
      const com = shipped.services.find(([tlds]) => tlds.includes("com"));
      expect(com?.[1][0]).toMatch(/^https:\/\/rdap\.verisign\.com\/com\/v1\/?$/);
      expect(shipped.services.length).toBeGreaterThan(500);
      await refreshBootstrap(dir, `${rdapBase}/dns.json`);
      expect(loadBootstrap(dir).services).toEqual([[["test"], [rdapBase]]]);
      await expect(refreshBootstrap(dir, `${rdapBase}/missing`)).rejects.toThrow(/HTTP 404/);
      expect(loadBootstrap(dir).services).toEqual([[["test"], [rdapBase]]]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("the engine stores the registration on the site and judges domain_expiry from it", async () => {
    const { store, cleanup } = await sqliteKind.open();
    const target = createHttpServer((_req, res) => res.end("ok"));
    await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve));
    try {
      const clock = new TestClock(new Date("2027-07-20T00:00:00Z"));
      const { app, recorded } = makeApp(store, { clock });
      const owner = await seedOwner(store);
      const api = client(app, owner.token);
      const port = (target.address() as AddressInfo).port;
      const created = await api.post("/public/v1/sites", { url: `http://www.example.com:${port}/`, name: "Example" });
      const id = created.json.data.id;
      const engine = new Engine({
        store,
        region: "local",
        clock,
        logger: createLogger("silent"),
        concurrency: 10,
        retentionHours: 48,
        policy: { allowPrivate: true, resolve: async () => ["127.0.0.1"] },
        domains: lookup(() => clock.now().getTime()),
        onRecorded: recorded,
      });
      clock.advance(3000);
      await engine.runOnce();
      const site = (await api.get(`/public/v1/site/${id}`)).json.data;
      expect(site.state).toBe("healthy");
      expect(site.domain).toEqual({
        domain: "example.com",
        expiresAt: "2027-08-13T04:00:00.000Z",
        registrar: "RESERVED-Internet Assigned Numbers Authority",
      });
      expect(site.domainExpiration).toBe("2027-08-13T04:00:00.000Z");
      // 24 days before expiry: inside the 30-day warning threshold.
      expect(site.conditions.find((c: { key: string }) => c.key === "domain_expiry")).toMatchObject({
        level: "warning",
        scope: "domain",
        summary: "The domain example.com expires in 24 days (2027-08-13).",
      });
      await engine.stop();
    } finally {
      target.close();
      await cleanup();
    }
  });
});
