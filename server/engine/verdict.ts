import type { SiteState } from "../contract/site.ts";
import { groupBy } from "../group-by.ts";
import type { ResultSummary } from "../store/monitored.ts";
import { THRESHOLDS } from "./thresholds.ts";

export type { ResultSummary } from "../store/monitored.ts";

export interface HealthInput {
  now: number;
  intervalMs: number;
  timeoutMs: number;
  slowMs: number;
  /** The regions the site is checked from. */
  regions: string[];
  /** Recent results, any order; at least the last confirmFailures of each region. */
  results: ResultSummary[];
}

export interface Health {
  state: SiteState;
  summary: string;
  /** Regions where the site is down (confirmed failures). */
  downIn: string[];
  /** How many regions had fresh results (0 when none or not checked). */
  judged?: number;
  /** The latest failed check's error, as the checker wrote it. */
  reason?: string | null;
  /**
   * Healthy or degraded: whether at least half of the regions judged answered their last confirmFailures checks, a
   * return confirmed as an outage is (judge tells a recovery on it, so that a flapping site is one outage).
   */
  back?: boolean;
}

/**
 * How long a region's latest result speaks for a site: THRESHOLDS.freshIntervals check intervals plus the timeout.
 * Older results no longer count (the verdict), and a site whose results all went stale is judged again (judge).
 */
export function freshForMs(intervalMs: number, timeoutMs: number): number {
  return THRESHOLDS.freshIntervals * intervalMs + timeoutMs;
}

const ms = (value: number) => `${Math.round(value).toLocaleString("en")} ms`;
const list = (regions: string[]) => regions.join(", ");

/**
 * The engine's verdict on a site from its recent results (pure). Per region, the latest fresh results decide:
 * down when the last confirmFailures all failed, suspect when only the latest failed, slow when the latest
 * succeeded above slowMs, lossy when the latest ping check lost some of its pings. Then: unhealthy when a majority of the regions with fresh results are down; degraded
 * when some are down, suspect, lossy or slow; healthy otherwise; unknown when no region has a fresh result.
 */
export function judgeHealth(input: HealthInput): Health {
  const freshFor = freshForMs(input.intervalMs, input.timeoutMs);
  const byRegion = groupBy(
    input.results.filter((r) => input.regions.includes(r.region) && input.now - r.at <= freshFor),
    (r) => r.region,
  );
  if (byRegion.size === 0) return { state: "unknown", summary: "No recent check result.", downIn: [] };
  const down: string[] = [];
  const suspect: string[] = [];
  const slow: string[] = [];
  const lossy: string[] = [];
  let mostLost = 0;
  let answering = 0;
  let latestError: string | null = null;
  let fastest = Number.POSITIVE_INFINITY;
  let slowest = 0;
  for (const [region, results] of [...byRegion].sort(([a], [b]) => a.localeCompare(b))) {
    results.sort((a, b) => b.at - a.at);
    const latest = results[0] as ResultSummary;
    const streak = results.slice(0, THRESHOLDS.confirmFailures);
    if (streak.length === THRESHOLDS.confirmFailures && streak.every((r) => r.ok)) answering++;
    if (!latest.ok) {
      latestError ??= latest.error;
      if ((streak.length === THRESHOLDS.confirmFailures && streak.every((r) => !r.ok)) || latest.confirmed) {
        down.push(region);
      } else suspect.push(region);
    } else {
      if (latest.lossPercent) {
        lossy.push(region);
        mostLost = Math.max(mostLost, latest.lossPercent);
      }
      if (latest.responseMs !== null) {
        fastest = Math.min(fastest, latest.responseMs);
        slowest = Math.max(slowest, latest.responseMs);
        if (latest.responseMs > input.slowMs) slow.push(region);
      }
    }
  }
  const judged = byRegion.size;
  const reason = latestError ? `: ${latestError}` : "";
  // As an outage needs a majority of the regions down, a return needs no more than half of them back.
  const back = answering > 0 && answering * 2 >= judged;
  if (down.length > judged / 2) {
    return {
      state: "unhealthy",
      summary: `Down in ${list(down)}${reason}.`,
      downIn: down,
      judged,
      reason: latestError,
    };
  }
  if (down.length > 0) {
    return {
      state: "degraded",
      summary: `Down in ${list(down)} (${down.length} of ${judged} regions)${reason}.`,
      downIn: down,
      back,
    };
  }
  if (suspect.length > 0) {
    return {
      state: "degraded",
      summary: `A check failed in ${list(suspect)}, not yet confirmed${reason}.`,
      downIn: [],
      back,
    };
  }
  if (lossy.length > 0) {
    return {
      state: "degraded",
      summary: `Packet loss in ${list(lossy)}: ${Math.round(mostLost)}% of pings unanswered.`,
      downIn: [],
      back,
    };
  }
  if (slow.length > 0) {
    return {
      state: "degraded",
      summary: `Slow in ${list(slow)}: ${ms(slowest)}, above the ${ms(input.slowMs)} threshold.`,
      downIn: [],
      back,
    };
  }
  return {
    state: "healthy",
    // A check without a time (a push call that sent none) says only where it is up.
    summary: Number.isFinite(fastest)
      ? `Up: ${ms(fastest)} in ${list([...byRegion.keys()].sort())}.`
      : `Up in ${list([...byRegion.keys()].sort())}.`,
    downIn: [],
    back,
  };
}
