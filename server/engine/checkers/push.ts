import type { Checker, CheckerResult } from "./checker.ts";
import { failed } from "./checker.ts";

/** A duration in words, to the minute ("26 h 5 min", "45 s"). */
export function spoken(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return rest === 0 ? `${hours} h` : `${hours} h ${rest} min`;
}

/**
 * A push (heartbeat) site: the owner's job calls its secret address (api/push.ts), and this checker, run every
 * check interval like any other, reads the last call. Up while a call came within the interval plus the grace;
 * down when the job said so (`?status=down`) or when it has been silent longer; "not checked" until the first call is
 * due, so a site just added is not an outage. Nothing is sent anywhere: no address policy applies.
 */
export const checkPush: Checker = async (check, { now }) => {
  const push = check.push;
  if (push === null) return failed("not checked: this site has no push settings");
  const at = now();
  const allowed = check.intervalMs + push.graceSeconds * 1000;
  const expect = `expected every ${spoken(check.intervalMs)}${push.graceSeconds > 0 ? ` with ${spoken(push.graceSeconds * 1000)} of grace` : ""}`;
  const last = push.lastCallAt !== null && push.lastCallAt >= push.since ? push.lastCallAt : null;
  const timings: CheckerResult["timings"] = { silenceMs: last === null ? null : Math.max(0, at - last) };
  if (last !== null && at - last <= allowed) {
    if (push.lastStatus === "down") {
      const words = push.lastMessage ? `: ${push.lastMessage}` : "";
      return { ...failed(`the job reported down${words}`, timings), confirmed: true };
    }
    return {
      ok: true,
      slow: push.lastMs !== null && push.lastMs > check.slowMs,
      statusCode: null,
      responseMs: push.lastMs,
      error: null,
      timings,
      certificate: null,
      wordpress: null,
    };
  }
  if (last === null && at - push.since <= allowed)
    return failed("not checked: waiting for the job's first call", timings);
  const silent =
    last === null
      ? `no call in ${spoken(at - push.since)} since the address was made`
      : `no call for ${spoken(at - last)}`;
  return failed(`${silent} (${expect})`, timings);
};
