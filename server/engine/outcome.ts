import type { DnsSettings, HttpAssertions, StoredHttpRequest } from "../contract/monitor.ts";
import type { ResultSummary } from "./verdict.ts";

/** A push site's heartbeat as last stored (push calls are coalesced: see server/api/push.ts). */
export interface PushHeartbeat {
  graceSeconds: number;
  /** The last call (ms since the epoch); null before the first. */
  lastCallAt: number | null;
  lastStatus: "up" | "down" | null;
  /** The job's own words with its last call (?msg=), if any. */
  lastMessage: string | null;
  /** The job's own duration with its last call (?ms=), if any. */
  lastMs: number | null;
  /** Since when silence counts: the site's creation or its token's last rotation (ms since the epoch). */
  since: number;
}

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
  /** http(s) sites: what the answer must hold beyond its status code. */
  assertions: HttpAssertions;
  /** http(s) sites: the body, basic auth (its password sealed) and whether redirects are followed. */
  request: StoredHttpRequest;
  /** dns sites: the question and the expected answer. */
  dns: DnsSettings;
  /** push sites: the last heartbeat; null for other kinds. */
  push: PushHeartbeat | null;
  /** The region's latest results, newest first (at most 20: enough for a rule's largest confirmation threshold). */
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
