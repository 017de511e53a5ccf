import { expect, test } from "vitest";
import { DNS_CACHE, DnsCache } from "../../server/net/dns-cache.ts";

test("a host is looked up once per TTL, concurrent lookups share one, and a failure is retried sooner", async () => {
  let now = 0;
  const asked: string[] = [];
  let fail = false;
  const cache = new DnsCache(
    () => now,
    async (host) => {
      asked.push(host);
      if (fail) throw Object.assign(new Error("getaddrinfo ENOTFOUND"), { code: "ENOTFOUND" });
      return ["192.0.2.1"];
    },
  );
  const [a, b] = await Promise.all([cache.resolve("example.com"), cache.resolve("example.com")]);
  expect(a).toEqual(["192.0.2.1"]);
  expect(b).toEqual(["192.0.2.1"]);
  expect(asked).toEqual(["example.com"]);
  now += DNS_CACHE.ttlMs - 1;
  await cache.resolve("example.com");
  expect(asked).toHaveLength(1);
  now += 1;
  fail = true;
  await expect(cache.resolve("example.com")).rejects.toThrow(/ENOTFOUND/);
  expect(asked).toHaveLength(2);
  await expect(cache.resolve("example.com")).rejects.toThrow(/ENOTFOUND/);
  expect(asked).toHaveLength(2);
  fail = false;
  now += DNS_CACHE.failureTtlMs;
  expect(await cache.resolve("example.com")).toEqual(["192.0.2.1"]);
  expect(asked).toHaveLength(3);
});
