import type { Clock } from "../clock.ts";

/**
 * Values built from the store once and then served from memory, by key. `invalidate()` is called on every write in
 * this process; `ttlMs` bounds how long a change made by another process (the engine, another API process, the
 * command line) can go unseen. Concurrent misses for one key share one build, and a build that a write overtook
 * is served once but not kept.
 */
export class ReadModel<V> {
  private readonly entries = new Map<string, { value: V; builtAt: number }>();
  private readonly building = new Map<string, Promise<V | null>>();
  private generation = 0;

  constructor(
    private readonly clock: Clock,
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  invalidate(): void {
    this.generation++;
    this.entries.clear();
    // A build already under way read the store before the write: later readers must not join it.
    this.building.clear();
  }

  /** Drops the entries whose key matches, and keeps builds under way from being kept. */
  drop(matches: (key: string) => boolean): void {
    this.generation++;
    for (const key of this.entries.keys()) if (matches(key)) this.entries.delete(key);
    this.building.clear();
  }

  /** The value for a key if it is built and fresh, without building it. */
  peek(key: string): V | undefined {
    const cached = this.entries.get(key);
    return cached && this.clock.now().getTime() - cached.builtAt < this.ttlMs ? cached.value : undefined;
  }

  async get(key: string, build: () => Promise<V | null>): Promise<V | null> {
    const cached = this.entries.get(key);
    if (cached && this.clock.now().getTime() - cached.builtAt < this.ttlMs) return cached.value;
    let pending = this.building.get(key);
    if (!pending) {
      const started: Promise<V | null> = this.build(key, build).finally(() => {
        if (this.building.get(key) === started) this.building.delete(key);
      });
      pending = started;
      this.building.set(key, pending);
    }
    return pending;
  }

  private async build(key: string, build: () => Promise<V | null>): Promise<V | null> {
    const generation = this.generation;
    const builtAt = this.clock.now().getTime();
    const value = await build();
    if (value !== null && generation === this.generation) {
      if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
      this.entries.set(key, { value, builtAt });
    }
    return value;
  }
}
