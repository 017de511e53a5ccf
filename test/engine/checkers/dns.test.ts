import { performance } from "node:perf_hooks";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { DNS_DEFAULTS, type DnsSettings, resolverParts } from "../../../server/contract/monitor.ts";
import type { CheckContext } from "../../../server/engine/checkers/checker.ts";
import { answerMismatch, checkDns, comparable } from "../../../server/engine/checkers/dns.ts";
import type { DueCheck } from "../../../server/engine/outcome.ts";
import { refusedByPolicy } from "../../../server/net/address-policy.ts";
import type { CheckPolicy } from "../../../server/net/http-check.ts";
import { type DnsServer, startDnsServer } from "../../support/dns-server.ts";
import { dueCheck } from "../../support/due-check.ts";

const ACCESS_HINT = "checking private, loopback and link-local addresses needs PORCHLIGHT_ALLOW_PRIVATE_TARGETS=true";

const context = (policy: Partial<CheckPolicy> = {}): CheckContext => ({
  policy: { allowPrivate: true, ...policy },
  region: "local",
  now: () => 0,
});

let server: DnsServer;

beforeAll(async () => {
  server = await startDnsServer(
    {
      "example.com": {
        A: ["192.0.2.1", "192.0.2.2"],
        AAAA: ["2001:db8::1"],
        NS: ["ns1.example.com", "ns2.example.com"],
        MX: [
          { priority: 10, exchange: "mx.example.com" },
          { priority: 20, exchange: "backup.example.com" },
        ],
        TXT: [["v=spf1 -all"], ["google-site-verification=", "AbC123"]],
        SOA: [{ nsname: "ns1.example.com", hostmaster: "hostmaster.example.com", serial: 2024010101 }],
        CAA: [{ flags: 0, tag: "issue", value: "letsencrypt.org" }],
      },
      "www.example.com": { CNAME: ["example.com"] },
    },
    { silent: ["slow.example.com"] },
  );
});
afterAll(() => server.close());

/** A check of `name` against the test server, with these DNS settings. */
const query = (name: string, dns: Partial<DnsSettings>, overrides: Partial<DueCheck> = {}) =>
  dueCheck(`dns://${name}`, { dns: { ...DNS_DEFAULTS, resolver: server.resolver, ...dns }, ...overrides });

describe("each record type, as a person reads it", () => {
  const cases: [DnsSettings["recordType"], string, string[]][] = [
    ["A", "example.com", ["192.0.2.1", "192.0.2.2"]],
    ["AAAA", "example.com", ["2001:db8::1"]],
    ["CNAME", "www.example.com", ["example.com"]],
    ["MX", "example.com", ["10 mx.example.com", "20 backup.example.com"]],
    ["TXT", "example.com", ["v=spf1 -all", "google-site-verification=AbC123"]],
    ["NS", "example.com", ["ns1.example.com", "ns2.example.com"]],
    ["SOA", "example.com", ["ns1.example.com hostmaster.example.com 2024010101"]],
    ["CAA", "example.com", ['0 issue "letsencrypt.org"']],
  ];
  test.each(cases)("%s %s: up with the whole answer expected exactly", async (recordType, name, answer) => {
    const result = await checkDns(query(name, { recordType, expected: answer, match: "exact" }), context());
    expect(result).toMatchObject({ ok: true, slow: false, error: null, statusCode: null, wordpress: null });
    expect(result.certificate).toBeNull();
    expect(result.responseMs).toBeGreaterThanOrEqual(0);
    expect(result.timings.dnsMs).toBeGreaterThanOrEqual(0);
    expect(result.timings.totalMs).toBeGreaterThanOrEqual(result.timings.dnsMs as number);
    // The answer is shown beside the passing check, as the resolver gave it.
    expect(result.found?.split(", ").sort()).toEqual([...answer].sort());
  });

  test("any answer is up when nothing is expected", async () => {
    const result = await checkDns(query("example.com", { recordType: "MX" }), context());
    expect(result).toMatchObject({ ok: true, error: null });
  });
});

describe("what the answer must hold", () => {
  test("a wrong answer fails, naming the expected value, the question and the answer", async () => {
    const result = await checkDns(query("example.com", { expected: ["192.0.2.7"] }), context());
    expect(result.ok).toBe(false);
    expect(result.error).toBe("expected 192.0.2.7 in the A answer for example.com, got 192.0.2.1, 192.0.2.2");
    // A failure quotes the answer in its error, not beside it.
    expect(result.found).toBeNull();
    // The resolver answered: the time is kept.
    expect(result.responseMs).not.toBeNull();
    expect(result.slow).toBe(false);
  });

  test("contains: a part of the answer is enough", async () => {
    const result = await checkDns(
      query("example.com", { recordType: "MX", expected: ["10 mx.example.com"] }),
      context(),
    );
    expect(result).toMatchObject({ ok: true, error: null });
  });

  test("exact: the same part is not enough", async () => {
    const result = await checkDns(
      query("example.com", { recordType: "MX", expected: ["10 mx.example.com"], match: "exact" }),
      context(),
    );
    expect(result.ok).toBe(false);
    expect(result.error).toBe(
      "expected exactly 10 mx.example.com as the MX answer for example.com, got 10 mx.example.com, 20 backup.example.com",
    );
  });

  test("names compare in any case and with a trailing dot; addresses in any spelling", async () => {
    const mx = await checkDns(
      query("EXAMPLE.com", { recordType: "MX", expected: ["10 MX.Example.COM."], match: "contains" }),
      context(),
    );
    expect(mx).toMatchObject({ ok: true, error: null });
    const aaaa = await checkDns(query("example.com", { recordType: "AAAA", expected: ["2001:DB8:0::1"] }), context());
    expect(aaaa).toMatchObject({ ok: true, error: null });
    const caa = await checkDns(
      query("example.com", { recordType: "CAA", expected: ["0 issue letsencrypt.org"] }),
      context(),
    );
    expect(caa).toMatchObject({ ok: true, error: null });
  });

  test("TXT text compares exactly", async () => {
    const result = await checkDns(
      query("example.com", { recordType: "TXT", expected: ["google-site-verification=abc123"] }),
      context(),
    );
    expect(result.ok).toBe(false);
    expect(result.error).toContain(
      "in the TXT answer for example.com, got v=spf1 -all, google-site-verification=AbC123",
    );
  });

  test("slow when the answer took longer than slowMs", async () => {
    const result = await checkDns(query("example.com", {}, { slowMs: -1 }), context());
    expect(result).toMatchObject({ ok: true, slow: true });
  });
});

describe("no answer", () => {
  test("a type the name lacks", async () => {
    const result = await checkDns(query("www.example.com", { recordType: "MX" }), context());
    expect(result).toMatchObject({ ok: false, slow: false, error: "DNS: www.example.com has no MX record" });
  });

  test("a name that does not exist", async () => {
    const result = await checkDns(query("missing.example.com", {}), context());
    expect(result).toMatchObject({ ok: false, error: "DNS: missing.example.com does not exist (NXDOMAIN)" });
  });

  test("a resolver that never answers ends at the timeout", async () => {
    const started = performance.now();
    const result = await checkDns(query("slow.example.com", {}, { timeoutMs: 300 }), context());
    const took = performance.now() - started;
    expect(result).toMatchObject({ ok: false, responseMs: null, error: "DNS: no answer within 300 ms" });
    expect(result.timings.dnsMs).toBeNull();
    expect(took).toBeGreaterThanOrEqual(250);
    // Ended by its timeout, not the test's: room for a busy machine.
    expect(took).toBeLessThan(10_000);
    expect(server.questions).toContain("slow.example.com A");
  });
});

describe("the address policy", () => {
  test("a private named resolver is refused without PORCHLIGHT_ALLOW_PRIVATE_TARGETS, and never asked", async () => {
    const before = server.questions.length;
    const result = await checkDns(query("example.com", {}), context({ allowPrivate: false }));
    expect(result.ok).toBe(false);
    expect(result.error).toBe(
      `refused: resolver ${server.resolver} is 127.0.0.1 (loopback, not a public address); ${ACCESS_HINT}`,
    );
    expect(refusedByPolicy(result.error)).toBe(true);
    expect(server.questions.length).toBe(before);
  });

  test("the policy's own rule replaces allowPrivate", async () => {
    const result = await checkDns(
      query("example.com", { resolver: "[fd00::53]:53" }),
      context({ refuseAddress: (a) => (a === "fd00::53" ? "not for this surface" : null) }),
    );
    expect(result.error).toBe("refused: resolver [fd00::53]:53 is fd00::53 (not for this surface)");
  });
});

describe("pieces", () => {
  test.each([
    ["1.1.1.1", { address: "1.1.1.1", port: 53 }],
    ["1.1.1.1:5353", { address: "1.1.1.1", port: 5353 }],
    ["[2606:4700:4700::1111]:53", { address: "2606:4700:4700::1111", port: 53 }],
    ["[::1]", { address: "::1", port: 53 }],
  ])("resolver %s is %o", (resolver, parts) => {
    expect(resolverParts(resolver)).toEqual(parts);
  });

  test.each([
    "999.1.1.1",
    "1.1.1.256",
    "010.1.1.1",
    "1.1.1.1:0",
    "1.1.1.1:99999",
    "[1:2]",
    "[::1]:70000",
    "resolver.example",
    "1.1.1.1:",
  ])("%s is not a resolver", (resolver) => {
    expect(resolverParts(resolver)).toBeNull();
  });

  test.each([
    ["A", "192.0.2.1", "192.0.2.1"],
    ["AAAA", "2001:DB8:0:0::1", "2001:db8::1"],
    ["CNAME", "WWW.Example.com.", "www.example.com"],
    ["MX", " 10   MX.example.com. ", "10 mx.example.com"],
    ["SOA", "NS1.example.com. Hostmaster.example.com. 7", "ns1.example.com hostmaster.example.com 7"],
    ["CAA", '0 ISSUE "LetsEncrypt.org"', "0 issue letsencrypt.org"],
    ["TXT", "Token=AbC", "Token=AbC"],
  ] as const)("%s %s compares as %s", (type, value, expected) => {
    expect(comparable(type, value)).toBe(expected);
  });

  test("a long answer is quoted cut short", () => {
    const long = "x".repeat(1000);
    const error = answerMismatch({ ...DNS_DEFAULTS, recordType: "TXT", expected: ["y"] }, "example.com", [long]);
    expect(error?.length).toBeLessThan(400);
    expect(error?.endsWith("…")).toBe(true);
  });
});
