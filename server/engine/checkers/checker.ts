import type { CheckerKind } from "../../contract/monitor.ts";
import type { CheckPolicy } from "../../net/http-check.ts";
import type { DueCheck, Outcome } from "../outcome.ts";

/**
 * What every checker returns: one outcome type the judge already understands, whatever the protocol. A checker
 * measures and explains; it never judges the site's health (the verdict does, from many outcomes).
 *
 * - `ok`: the check passed (up). `slow`: it passed, but too slowly or only partly (degraded).
 * - `statusCode`: an HTTP answer's status; null for every other protocol and when no answer came.
 * - `responseMs`: whole milliseconds of a check that got an answer (a connect, a DNS answer, a ping's mean round
 *   trip, an HTTP answer); null when none came.
 * - `error`: why it failed, in plain words ("'Add to cart' not found in the body"); null when ok. A check refused by
 *   the address policy starts with "refused:" and names PORCHLIGHT_ALLOW_PRIVATE_TARGETS (address-policy.ts), and
 *   one that cannot run on this machine starts with "not checked:": neither counts as downtime.
 * - `timings`: named phases in ms (dnsMs, connectMs, tlsMs, firstByteMs, totalMs, ...), null where not measured.
 * - `certificate`: the TLS certificate seen (https, tls), which feeds the ssl_expiry condition and its reminders.
 * - `wordpress`: whether WordPress was seen in an HTTP answer; null for every other protocol.
 * - `confirmed`: set on a failure that is news, not a blip (a job reporting its own failure): down at once.
 */
export type CheckerResult = Omit<Outcome, "check" | "at">;

/** What a checker may use besides the site: the engine's address policy, its region and its clock. */
export interface CheckContext {
  policy: CheckPolicy;
  region: string;
  /** The engine's clock, in ms since the epoch (push checks measure silence with it). */
  now: () => number;
  /** Opens a sealed credential (a basic-auth password); a site that needs one is not checked without it. */
  unseal?: (sealed: string) => string;
}

/** One protocol's checker: the site as claimed, in; one outcome, out. It never throws. */
export type Checker = (check: DueCheck, context: CheckContext) => Promise<CheckerResult>;

/** Every checker by kind: a kind without one is a type error (contract/monitor.ts CHECKER_OF names the kinds). */
export type CheckerRegistry = { readonly [K in CheckerKind]: Checker };

/** Whole milliseconds, as stored everywhere. */
export const wholeMs = (ms: number) => Math.round(ms);

/** A failed check's result without an answer: no status, no time, the reason in words. */
export function failed(error: string, timings: CheckerResult["timings"] = {}): CheckerResult {
  return {
    ok: false,
    slow: false,
    statusCode: null,
    responseMs: null,
    error,
    timings,
    certificate: null,
    wordpress: null,
  };
}
