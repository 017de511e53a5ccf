import type { z } from "zod";
import type { Condition as ConditionSchema } from "../contract/site.ts";
import { THRESHOLDS } from "./thresholds.ts";

export type Condition = z.infer<typeof ConditionSchema>;
export type Level = Condition["level"];

const DAY = 86_400_000;

export interface ConditionInput {
  now: number;
  /** The certificate last seen on an https site; null for http or before the first TLS handshake. */
  certificate: { expiresAt: number; issuer: string } | null;
  /** The registration's expiry when known. */
  domain: { name: string; expiresAt: number } | null;
  /**
   * Checks in the chronic window, and how many of them were slow or failed; `covered` false while the site has not
   * yet been checked for the whole window (then chronic performance is not judged: a few minutes are not 24 hours).
   */
  window: { checks: number; slowOrFailed: number; covered?: boolean };
  /** The site's conditions as last stored, so that `since` moves only when a level changes. */
  previous: Condition[];
}

/** The level for a number of days left before an expiry, by a pair of thresholds. */
export function expiryLevel(daysLeft: number, t: { warningDays: number; criticalDays: number }): Level {
  if (daysLeft <= t.criticalDays) return "critical";
  if (daysLeft <= t.warningDays) return "warning";
  return "ok";
}

const day = (at: number) => new Date(at).toISOString().slice(0, 10);
const days = (n: number) => `${n} day${n === 1 ? "" : "s"}`;

function expirySummary(what: string, daysLeft: number, at: number): string {
  if (daysLeft < 0) return `${what} expired ${days(-daysLeft)} ago (${day(at)}).`;
  if (daysLeft === 0) return `${what} expires today (${day(at)}).`;
  return `${what} expires in ${days(daysLeft)} (${day(at)}).`;
}

/**
 * The standing conditions of a site (pure): ssl_expiry for a seen certificate, domain_expiry for a known
 * registration, chronic_performance once the window holds enough checks. Each keeps the `since` of its previous
 * version while the level is unchanged.
 */
export function judgeConditions(input: ConditionInput): Condition[] {
  const evaluatedAt = new Date(input.now).toISOString();
  const out: Condition[] = [];
  const add = (key: string, scope: string, level: Level, summary: string) => {
    const before = input.previous.find((c) => c.key === key);
    const since = before && before.level === level ? before.since : evaluatedAt;
    out.push({ key, scope, level, summary, since, evaluatedAt });
  };
  if (input.certificate) {
    const left = Math.floor((input.certificate.expiresAt - input.now) / DAY);
    const summary = `${expirySummary("The certificate", left, input.certificate.expiresAt)} Issuer: ${input.certificate.issuer}.`;
    add("ssl_expiry", "certificate", expiryLevel(left, THRESHOLDS.ssl), summary);
  }
  if (input.domain) {
    const left = Math.floor((input.domain.expiresAt - input.now) / DAY);
    add(
      "domain_expiry",
      "domain",
      expiryLevel(left, THRESHOLDS.domain),
      expirySummary(`The domain ${input.domain.name}`, left, input.domain.expiresAt),
    );
  }
  const { checks, slowOrFailed } = input.window;
  if (checks >= THRESHOLDS.chronic.minChecks && input.window.covered !== false) {
    const share = slowOrFailed / checks;
    const level: Level =
      share >= THRESHOLDS.chronic.criticalShare
        ? "critical"
        : share >= THRESHOLDS.chronic.warningShare
          ? "warning"
          : "ok";
    const percent = Math.round(share * 100);
    add(
      "chronic_performance",
      "performance",
      level,
      `${percent}% of the last ${THRESHOLDS.chronic.windowHours} hours' ${checks} checks were slow or failed.`,
    );
  }
  return out;
}
