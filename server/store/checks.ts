import type { Kysely } from "kysely";
import type { Database } from "./schema.ts";

/** A new, resumed or reconfigured site is checked at a random moment within this many ms: soon, but spread. */
export const FIRST_CHECK_SPREAD_MS = 3000;

/** Site columns whose change means the site should be checked (and judged) again soon. */
export const RESCHEDULING_COLUMNS = new Set([
  "url",
  "method",
  "headers",
  "check_interval",
  "timeout",
  "success_codes",
  "error_codes",
  "pause",
  "enabled",
  "regions",
  "slow_threshold_ms",
]);

/**
 * Makes the site's schedule match its regions (one row per region) and due within FIRST_CHECK_SPREAD_MS of now.
 * Leases are left alone: a check already running finishes and is recorded.
 */
export async function scheduleSoon(trx: Kysely<Database>, siteId: string, regions: string[], now: string) {
  const at = new Date(Date.parse(now) + Math.floor(Math.random() * FIRST_CHECK_SPREAD_MS)).toISOString();
  await trx.deleteFrom("site_checks").where("site_id", "=", siteId).where("region", "not in", regions).execute();
  await trx
    .insertInto("site_checks")
    .values(regions.map((region) => ({ site_id: siteId, region, next_check_at: at, recent: "[]" })))
    .onConflict((oc) => oc.columns(["site_id", "region"]).doUpdateSet({ next_check_at: at }))
    .execute();
}
