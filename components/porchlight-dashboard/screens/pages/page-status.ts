import type { Site } from "../../../../server/contract/site.ts";
import { itemStatus, type OverallStatus, overallStatus } from "../../../../server/contract/status.ts";
import type { PublicItem } from "../../../../server/contract/status-page.ts";
import type { Page } from "../../lib/types.ts";

/** The words and colour class of a page's overall status, as its visitors' banner says it (never colour alone). */
export const OVERALL_LOOK: Record<OverallStatus | "empty", [string, string]> = {
  operational: ["Operational", "up"],
  degraded: ["Degraded", "warn"],
  partial: ["Partial outage", "down"],
  major: ["Major outage", "down"],
  maintenance: ["Maintenance", "maintenance"],
  unknown: ["No data yet", "unknown"],
  empty: ["No services", "unknown"],
};

/**
 * A page's current status from the owner's own data: its visible items' sites, each as the page shows it, combined
 * as its visitors' banner combines them (contract/status.ts, overallStatus). One poll of the sites serves every row,
 * whatever the page's visibility (the public view of a password page is closed to the owner's session). What it
 * leaves out is the public view's alone: an incident's word for a service, and a maintenance window.
 */
export function statusFromSites(
  page: { items: readonly Pick<Page["items"][number], "siteId" | "visible">[] },
  sites: ReadonlyMap<string, Pick<Site, "state" | "pause">>,
): [string, string] {
  const items = page.items
    .filter((item) => item.visible)
    .map((item) => sites.get(item.siteId))
    .filter((site) => site !== undefined)
    .map((site) => ({ status: itemStatus(site.state, site.pause) }));
  return lookOf(items);
}

/** The look of a page whose visible items are `items`: "No services" for a page that shows none. */
export function lookOf(items: readonly Pick<PublicItem, "status">[]): [string, string] {
  return OVERALL_LOOK[items.length === 0 ? "empty" : overallStatus(items)];
}
