import type { SiteState, SiteStatus } from "../contract/site.ts";
import type { ItemStatus } from "../contract/status-page.ts";

/**
 * The visitor-facing label of a site (spec 3, rule 1): paused wins, healthy and degraded are up, unhealthy is
 * down, unknown stays unknown. Never stored; always derived.
 */
export function siteStatus(state: SiteState, pause: boolean): SiteStatus {
  if (pause) return "paused";
  if (state === "healthy" || state === "degraded") return "up";
  if (state === "unhealthy") return "down";
  return "unknown";
}

/** The status a status-page item shows for its site. */
export function itemStatus(state: SiteState, pause: boolean): ItemStatus {
  if (pause) return "paused";
  if (state === "healthy") return "operational";
  if (state === "degraded") return "degraded";
  if (state === "unhealthy") return "outage";
  return "unknown";
}

/** What a site's healthSummary says before the engine has judged it. */
export const NOT_CHECKED_SUMMARY = "Not checked yet.";
