import type { ResultSummary } from "./verdict.ts";

/** A check the engine has claimed: the site's settings and its region's recent results. */
export interface DueCheck {
  siteId: string;
  region: string;
  dueAt: number;
  url: string;
  method: string;
  headers: { name: string; value: string }[];
  timeoutMs: number;
  intervalMs: number;
  successCodes: number[];
  errorCodes: number[];
  slowMs: number;
  /** The region's latest results, newest first (at most confirmFailures). */
  recent: ResultSummary[];
  /** When the domain was last looked up (ISO), null if never. */
  domainCheckedAt: string | null;
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
  timings: Record<string, number | null>;
  certificate: { expiresAt: string; issuer: string; authorized: boolean; error: string | null } | null;
  /** WordPress seen in the answer; null when there was no answer to look at. */
  wordpress: boolean | null;
}
