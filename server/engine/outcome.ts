import type { ClaimedCheck } from "../store/monitored.ts";

/** A check the engine has claimed: the site's settings, its region's recent results and the engine holding it. */
export interface DueCheck extends ClaimedCheck {
  /** The engine holding the lease. */
  owner: string;
}

/** What one check found, ready to store. */
export interface Outcome {
  check: DueCheck;
  at: number;
  ok: boolean;
  slow: boolean;
  statusCode: number | null;
  /** Total time of a check that got an answer, in whole ms; null when none came. */
  responseMs: number | null;
  error: string | null;
  /** What a passing check saw, in words, when that is worth showing (a DNS check's answer); else absent or null. */
  found?: string | null;
  timings: Record<string, number | null>;
  certificate: { expiresAt: string; issuer: string; authorized: boolean; error: string | null } | null;
  /** WordPress seen in the answer; null when there was no answer to look at. */
  wordpress: boolean | null;
  /**
   * A failure no second check need confirm: the job itself said it failed (a push call with status=down). Down at
   * once, where any other failure waits for the next check.
   */
  confirmed?: boolean;
}
