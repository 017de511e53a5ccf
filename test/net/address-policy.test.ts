import { describe, expect, test } from "vitest";
import { DEFAULT_SUCCESS_CODES } from "../../server/contract/site.ts";
import { addressRefusal, nonPublicRange } from "../../server/net/address-policy.ts";
import { checkHttp } from "../../server/net/http-check.ts";
import { ADDRESS_TABLE, PUBLIC, REFUSED } from "../support/addresses.ts";

/*
 * The shared table (./addresses.ts) against the engine's side. The anonymous fetcher's side is in
 * test/anon/ssrf.test.ts. Refused addresses go through a real check, refused before any socket opens; public ones
 * are judged by the same function the check calls, since connecting to them would reach the internet.
 */

const target = (url: string) => ({
  url,
  method: "GET",
  headers: [],
  timeoutMs: 2000,
  successCodes: DEFAULT_SUCCESS_CODES,
  errorCodes: [],
});
const resolvingTo = (address: string) => ({ allowPrivate: false, resolve: async () => [address] });

describe("the address rule", () => {
  test.each(ADDRESS_TABLE)("%s is %s", (address, refusedAs) => {
    expect(nonPublicRange(address)).toBe(refusedAs);
    expect(addressRefusal(address)).toBe(refusedAs === null ? null : `${refusedAs}, not a public address`);
  });

  test("allowPrivate lets every address through; explicit exceptions only themselves, in any spelling", () => {
    for (const [address] of ADDRESS_TABLE) expect(addressRefusal(address, { allowPrivate: true })).toBeNull();
    const allowAddresses = new Set(["127.0.0.2"]);
    expect(addressRefusal("127.0.0.2", { allowAddresses })).toBeNull();
    expect(addressRefusal("::ffff:127.0.0.2", { allowAddresses })).toBeNull();
    expect(addressRefusal("127.0.0.3", { allowAddresses })).toBe("loopback, not a public address");
  });

  test("what is not an IP address in a socket's own spelling is refused, allowPrivate or not", () => {
    for (const allowPrivate of [false, true]) {
      for (const odd of ["not an address", "", "127.1", "0x7f.0.0.1", "2130706433", "[::1]", "::ffff:127.0.0.1/96"]) {
        expect(addressRefusal(odd, { allowPrivate }), odd).toBe("not an IP address");
      }
    }
  });

  test("::a.b.c.d is IPv4-compatible, as the socket reads it (ipaddr.js alone would read it as IPv4-mapped)", () => {
    expect(nonPublicRange("::8.8.8.8")).toBe("IPv4-compatible IPv6");
    expect(nonPublicRange("::169.254.169.254")).toBe("IPv4-compatible IPv6");
    expect(nonPublicRange("::ffff:8.8.8.8")).toBeNull();
  });

  test("a zone names an interface, not a range", () => {
    expect(nonPublicRange("fe80::1%eth0")).toBe("link-local");
    expect(nonPublicRange("::ffff:127.0.0.1%lo")).toBe("loopback");
  });
});

describe("the engine's check follows the rule", () => {
  test.each(REFUSED)("a site resolving to %s is refused (%s)", async (address, refusedAs) => {
    const result = await checkHttp(target("http://site.test:9/"), resolvingTo(address));
    expect(result).toMatchObject({ ok: false, statusCode: null, address: null });
    expect(result.error).toBe(
      `refused: site.test is ${address} (${refusedAs}, not a public address); checking private, loopback and link-local addresses needs PORCHLIGHT_ALLOW_PRIVATE_TARGETS=true`,
    );
  });

  test.each(REFUSED.filter(([address]) => address.includes(":")))(
    "the IPv6 literal [%s] in a site's URL is refused (%s)",
    async (address, refusedAs) => {
      const url = `http://[${address}]:9/`;
      const result = await checkHttp(target(url), { allowPrivate: false });
      expect(result.ok).toBe(false);
      expect(result.error).toMatch(new RegExp(`^refused: .* \\(${refusedAs}, not a public address\\); `));
    },
  );

  test.each(PUBLIC)("%s is allowed without PORCHLIGHT_ALLOW_PRIVATE_TARGETS", (address) => {
    expect(addressRefusal(address, { allowPrivate: false })).toBeNull();
  });
});
