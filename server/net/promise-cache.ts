/**
 * Answers by key, each kept for `ttlMs` after it was asked for (a failed one for `failureTtlMs`), at most
 * `maxEntries` (the oldest go first). Concurrent asks for one key share one promise. Used for DNS answers and
 * domain registrations, which many sites share.
 */
export class PromiseCache<V> {
  private readonly entries = new Map<string, { value: Promise<V>; until: number }>();

  constructor(
    private readonly limits: { ttlMs: number; failureTtlMs: number; maxEntries: number },
    private readonly now: () => number,
  ) {}

  get(key: string, make: () => Promise<V>): Promise<V> {
    const now = this.now();
    const cached = this.entries.get(key);
    if (cached && cached.until > now) return cached.value;
    const entry = { value: make(), until: now + this.limits.ttlMs };
    if (this.entries.size >= this.limits.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, entry);
    entry.value.catch(() => {
      entry.until = this.now() + this.limits.failureTtlMs;
    });
    return entry.value;
  }
}
