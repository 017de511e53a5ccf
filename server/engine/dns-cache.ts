import { lookup } from "node:dns/promises";

/** How long a host's addresses are reused; a failed lookup is retried sooner. */
export const DNS_CACHE = { ttlMs: 60_000, failureTtlMs: 10_000, maxEntries: 50_000 } as const;

/**
 * Host addresses for the checker, looked up once per TTL and shared by every check of the host (getaddrinfo runs
 * on libuv's small thread pool, so ten thousand uncached lookups a minute would queue behind each other).
 * Concurrent lookups of one host share one.
 */
export class DnsCache {
  private readonly entries = new Map<string, { addresses: Promise<string[]>; until: number }>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly resolveHost: (host: string) => Promise<string[]> = async (host) =>
      (await lookup(host, { all: true, verbatim: true })).map((a) => a.address),
  ) {}

  resolve = (host: string): Promise<string[]> => {
    const now = this.now();
    const cached = this.entries.get(host);
    if (cached && cached.until > now) return cached.addresses;
    const addresses = this.resolveHost(host);
    const entry = { addresses, until: now + DNS_CACHE.ttlMs };
    if (this.entries.size >= DNS_CACHE.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(host, entry);
    addresses.catch(() => {
      entry.until = this.now() + DNS_CACHE.failureTtlMs;
    });
    return addresses;
  };
}
