/**
 * Every threshold the engine judges by, in one place, so that the API, the status pages and e-mails agree
 * (spec 2.5). The README's "How the engine judges a site" table states the same numbers.
 */
export const THRESHOLDS = {
  /** Consecutive failed checks in a region before the site counts as down there: one blip is not an outage. */
  confirmFailures: 2,
  /** A region's latest result speaks for the site for this many check intervals (plus the timeout). */
  freshIntervals: 2,
  /** Default for a site's slowThresholdMs: a successful check slower than it makes the site degraded. */
  defaultSlowMs: 2000,
  ssl: { warningDays: 21, criticalDays: 7 },
  domain: { warningDays: 30, criticalDays: 7 },
  /** Slow or failed checks as a share of the window's checks; judged once the window holds minChecks. */
  chronic: { windowHours: 24, minChecks: 10, warningShare: 0.2, criticalShare: 0.5 },
  /**
   * Days before a certificate's or a domain's expiry on which its owner is reminded (besides the days its condition's
   * level changes: ssl and domain above), until it is renewed; 0 is the day it expires.
   */
  reminderDays: [30, 14, 7, 3, 1, 0],
} as const;
