import type { Store } from "../server/store/store.ts";

/**
 * Seed data shared by the tests and the benchmarks. Free of side effects on import (unlike helpers.ts, which probes
 * PostgreSQL), so a benchmark can use it.
 */

/** Writes `days` daily rows ending today: 100 checks each, (i % 10) of them down on day i back. */
export async function seedStats(store: Store, siteId: string, now: Date, days: number): Promise<void> {
  const rows = [];
  for (let i = 0; i < days; i++) {
    const day = new Date(now.getTime() - i * 86_400_000).toISOString().slice(0, 10);
    const down = i % 10;
    rows.push({
      id: `${siteId}:${day}`,
      site_id: siteId,
      day,
      checks_total: 100,
      checks_up: 100 - down,
      downtime_minutes: down * 5,
      downtime_ms: down * 5 * 60_000,
      version: 1,
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
    });
  }
  await store.db.insertInto("daily_stats").values(rows).execute();
}
