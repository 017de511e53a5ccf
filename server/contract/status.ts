/**
 * Porchlight's status math, in one place: what a site's state means to its owner (site status), to a status
 * page's visitors (item status, overall status), and how uptime is shown. Pure and type-only in its imports, so the
 * browser element shares it with the server without bringing zod into the embed bundle.
 */
import type { SiteState, SiteStatus } from "./site.ts";
import type { ItemStatus, PublicItem } from "./status-page.ts";

/** The banner of a whole page: worst of its watched items. */
export type OverallStatus = "operational" | "degraded" | "partial" | "major" | "maintenance" | "unknown";

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
  if (state === "unhealthy") return "major_outage";
  return "unknown";
}

/**
 * Every watched item in major outage is major, any outage is partial; degraded next; then maintenance when an item is in it; operational when every
 * other watched item is; else unknown. Paused items and items in maintenance count for neither up nor down.
 */
export function overallStatus(items: readonly Pick<PublicItem, "status">[]): OverallStatus {
  const watched = items.filter((item) => item.status !== "paused" && item.status !== "maintenance");
  const count = (status: ItemStatus) => watched.filter((item) => item.status === status).length;
  const majors = count("major_outage");
  if (majors && majors === watched.length) return "major";
  if (majors || count("partial_outage")) return "partial";
  if (count("degraded")) return "degraded";
  if (items.some((item) => item.status === "maintenance")) return "maintenance";
  return watched.length && count("operational") === watched.length ? "operational" : "unknown";
}

/** A group's order of severity: a group shows its worst member (paused ones aside), as Statuspage's groups do. */
const GROUP_SEVERITY: readonly ItemStatus[] = [
  "major_outage",
  "partial_outage",
  "degraded",
  "maintenance",
  "unknown",
  "operational",
];

/**
 * The status a component group shows: its worst member's, most severe first: major outage, partial outage, degraded,
 * maintenance, unknown (a member without a recent check keeps the group from claiming operational), operational.
 * Paused members count only when every member is paused (paused), as they are on the page's banner.
 */
export function groupStatus(members: readonly ItemStatus[]): ItemStatus {
  for (const status of GROUP_SEVERITY) if (members.includes(status)) return status;
  return "paused";
}

/** Whether a group's member is at fault: a collapsed group is shown open while one is. */
export const atFault = (status: ItemStatus) =>
  status === "major_outage" || status === "partial_outage" || status === "degraded" || status === "maintenance";

/** A percentage to three decimals, as every uptime figure is shown. */
export const roundPercent = (x: number) => Math.round(x * 1000) / 1000;

/**
 * Uptime as a percentage to three decimals, of `total` > 0 checks of which `up` were up: exactly 100 only when every
 * check was up (one failure in 259,200 rounds to 100.000 otherwise, and would read "100%").
 */
export const uptimePercent = (up: number, total: number) =>
  up >= total ? 100 : Math.min(roundPercent((up / total) * 100), 99.999);
