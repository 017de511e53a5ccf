import { createToken, createUser } from "../server/accounts/accounts.ts";
import type { createApp } from "../server/api/app.ts";
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

/**
 * A stack-plan owner made in the store, and a caller of the app's API with the owner's token that returns the
 * answer's `data` and throws on any error answer: how the benchmarks seed through the product's own routes.
 */
export async function ownerCaller(store: Store, app: ReturnType<typeof createApp>["app"], email: string) {
  const now = new Date();
  await createUser(store, { email, plan: "stack" }, now);
  const { token } = await createToken(store, email, "bench", now);
  return async (method: string, path: string, body: unknown) => {
    const res = await app.request(path, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { data: { id: string | number } }).data;
  };
}

/** A public status page as the API answers it (GET /public/v1/status-page/{slug}), with one item. */
export const publicPageView = (overrides: Record<string, unknown> = {}) => ({
  name: "Acme",
  slug: "acme",
  description: "",
  visibility: "public",
  custom_domain: null,
  theme: { mode: "auto", accentColor: "#2563eb" },
  display: { historyDays: 90, showUptime: true, showResponseTime: true, showIncidents: true },
  items: [
    {
      id: 1,
      label: "Website",
      type: "website",
      status: "operational",
      uptime: 99.5,
      response_time: 120,
      last_check: "2026-11-21T10:00:00.000Z",
      history: [{ date: "2026-11-20", uptime: 100 }],
    },
  ],
  incidents: [],
  ...overrides,
});
