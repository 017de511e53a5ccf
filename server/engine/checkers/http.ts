import { checkHttp } from "../http-check.ts";
import { detectWordPress } from "../wordpress.ts";
import { assertionFailure } from "./assertions.ts";
import type { Checker, CheckerResult } from "./checker.ts";
import { wholeMs } from "./checker.ts";

/**
 * An http:// or https:// site: one request through the engine's outbound client (http-check.ts, which follows
 * redirects by hand, checks every hop's address and keeps credential headers on the site's own origin), then the
 * site's assertions on the final answer. Assertions are read only when the status already passed, so a failed
 * check names the status, not a missing keyword on an error page; a failed assertion keeps the status code and
 * the response time (the site answered, with the wrong thing).
 */
export const checkHttpSite: Checker = async (check, { policy, region }) => {
  const result = await checkHttp(
    {
      url: check.url,
      method: check.method,
      headers: check.headers,
      timeoutMs: check.timeoutMs,
      successCodes: check.successCodes,
      errorCodes: check.errorCodes,
      region,
    },
    policy,
  );
  const answered = result.statusCode !== null;
  const responseMs = answered ? wholeMs(result.timings.totalMs) : null;
  const cert = result.certificate;
  const outcome: CheckerResult = {
    ok: result.ok,
    slow: result.ok && responseMs !== null && responseMs > check.slowMs,
    statusCode: result.statusCode,
    responseMs,
    error: result.error,
    timings: { ...result.timings, redirects: result.redirects },
    certificate: cert
      ? { expiresAt: cert.validTo, issuer: cert.issuer, authorized: cert.authorized, error: cert.error }
      : null,
    wordpress: answered ? detectWordPress(result.headers, result.body) : null,
  };
  if (!outcome.ok) return outcome;
  const failure = assertionFailure(check.assertions, result);
  return failure === null ? outcome : { ...outcome, ok: false, slow: false, error: failure };
};
