import type { Insertable, Updateable } from "kysely";
import { createToken, createUser } from "../../server/accounts/accounts.ts";
import type { createApp } from "../../server/app.ts";
import type { Database } from "../../server/store/schema.ts";
import type { Store } from "../../server/store/store.ts";

/**
 * Seed data shared by the tests and the benchmarks. Free of side effects on import (unlike helpers.ts, which probes
 * PostgreSQL), so a benchmark can use it. What the store has no method for (rows the engine would write, bulk
 * copies, a benchmark's read of what it measured) is written and read here directly, so that bench/ itself holds
 * no queries.
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
  await insertStats(store, rows);
}

/** Writes daily statistics rows as given (seedStats' shape, or another). */
export async function insertStats(store: Store, rows: Insertable<Database["daily_stats"]>[]): Promise<void> {
  await store.db.insertInto("daily_stats").values(rows).execute();
}

/** Sets a site's columns as the engine leaves them after a check (its state, when, and how fast it answered). */
export async function markChecked(
  store: Store,
  siteId: string,
  check: Required<Pick<Updateable<Database["sites"]>, "state" | "last_check_time" | "last_response_ms">>,
): Promise<void> {
  await store.db.updateTable("sites").set(check).where("id", "=", siteId).execute();
}

/**
 * One check that answered, as the engine writes it without a change of state: the site's check time and response
 * time, and one more check, up, in its statistics row of that day (which must exist).
 */
export async function recordUpCheck(store: Store, siteId: string, at: Date, ms: number): Promise<void> {
  await store.db
    .updateTable("sites")
    .set({ last_check_time: at.toISOString(), last_response_ms: ms })
    .where("id", "=", siteId)
    .execute();
  await store.db
    .updateTable("daily_stats")
    .set((eb) => ({ checks_total: eb("checks_total", "+", 1), checks_up: eb("checks_up", "+", 1) }))
    .where("id", "=", `${siteId}:${at.toISOString().slice(0, 10)}`)
    .execute();
}

/**
 * Sites with the check schedule given (one row per site and region), not the first-check spread that
 * `store.sites.insert` gives: a benchmark starts the engine in its steady state. One transaction, 50 rows an insert.
 */
export async function insertScheduledSites(
  store: Store,
  sites: Insertable<Database["sites"]>[],
  schedule: Insertable<Database["site_checks"]>[],
): Promise<void> {
  await store.transaction(async (trx) => {
    for (let k = 0; k < sites.length; k += 50) {
      await trx
        .insertInto("sites")
        .values(sites.slice(k, k + 50))
        .execute();
      await trx
        .insertInto("site_checks")
        .values(schedule.slice(k, k + 50))
        .execute();
    }
  });
}

/**
 * Copies a status page with its items, incidents and their updates, once per name and slug given (no custom
 * domain), in one transaction: many pages as the API writes them, without making each through the API. The copies'
 * incidents keep no site, so they are manual ones.
 */
export async function copyStatusPage(
  store: Store,
  pageId: number,
  copies: { slug: string; name: string }[],
): Promise<void> {
  const page = await store.db.selectFrom("status_pages").selectAll().where("id", "=", pageId).executeTakeFirstOrThrow();
  const items = await store.db.selectFrom("status_page_items").selectAll().where("page_id", "=", page.id).execute();
  const incidents = await store.db.selectFrom("incidents").selectAll().where("page_id", "=", page.id).execute();
  const updates = await store.db
    .selectFrom("incident_updates")
    .selectAll()
    .where(
      "incident_id",
      "in",
      incidents.map((i) => i.id),
    )
    .execute();
  await store.db.transaction().execute(async (trx) => {
    for (const { slug, name } of copies) {
      const { id: _id, ...row } = page;
      const copy = await trx
        .insertInto("status_pages")
        .values({ ...row, slug, name, custom_domain: null })
        .returning("id")
        .executeTakeFirstOrThrow();
      await trx
        .insertInto("status_page_items")
        .values(items.map(({ id: _i, ...item }) => ({ ...item, page_id: copy.id })))
        .execute();
      for (const incident of incidents) {
        const { id: incidentId, site_id: _s, source: _src, ...rest } = incident;
        const made = await trx
          .insertInto("incidents")
          .values({ ...rest, page_id: copy.id })
          .returning("id")
          .executeTakeFirstOrThrow();
        const own = updates.filter((u) => u.incident_id === incidentId).map(({ id: _u, ...u }) => u);
        await trx
          .insertInto("incident_updates")
          .values(own.map((u) => ({ ...u, incident_id: made.id })))
          .execute();
      }
    }
  });
}

/** When the domain snapshots whose domain starts with `prefix` were asked for and finished, as the store holds them. */
export async function snapshotTimes(store: Store, prefix: string) {
  return store.db
    .selectFrom("anon_snapshots")
    .select(["created_at", "finished_at"])
    .where("domain", "like", `${prefix}%`)
    .execute();
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
  logo: null,
  favicon: null,
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
  maintenance: [],
  ...overrides,
});

/**
 * `count` confirmed e-mail subscribers of a page (s0@bench.test, …), written as confirmed sign-ups leave them, in
 * batches: what bench:subscribers fans out to.
 */
export async function insertConfirmedSubscribers(store: Store, pageId: number, count: number): Promise<void> {
  const now = new Date(Date.now() - 60_000).toISOString();
  for (let i = 0; i < count; i += 500) {
    await store.db
      .insertInto("subscribers")
      .values(
        Array.from({ length: Math.min(500, count - i) }, (_, k) => ({
          id: `sub_${(i + k).toString(16).padStart(24, "0")}`,
          page_id: pageId,
          kind: "email",
          address: `s${i + k}@bench.test`,
          state: "confirmed",
          manage_nonce: `bench-nonce-${i + k}`,
          manage_hash: `bench-${i + k}`,
          created_at: now,
          confirmed_at: now,
        })),
      )
      .execute();
  }
}
