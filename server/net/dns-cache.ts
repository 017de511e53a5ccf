import { lookup } from "node:dns/promises";
import { PromiseCache } from "./promise-cache.ts";

/** How long a host's addresses are reused; a failed lookup is retried sooner. */
export const DNS_CACHE = { ttlMs: 60_000, failureTtlMs: 10_000, maxEntries: 50_000 } as const;

/** Every address the system's resolver answers for a host, in its own order (getaddrinfo, not reordered). */
export async function resolveAll(host: string): Promise<string[]> {
  return (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
}

/**
 * Host addresses for the checker, looked up once per TTL and shared by every check of the host (getaddrinfo runs
 * on libuv's small thread pool, so ten thousand uncached lookups a minute would queue behind each other).
 * Concurrent lookups of one host share one.
 */
export class DnsCache {
  private readonly cache: PromiseCache<string[]>;

  constructor(
    now: () => number = Date.now,
    private readonly resolveHost: (host: string) => Promise<string[]> = resolveAll,
  ) {
    this.cache = new PromiseCache(DNS_CACHE, now);
  }

  resolve = (host: string): Promise<string[]> => this.cache.get(host, () => this.resolveHost(host));
}
