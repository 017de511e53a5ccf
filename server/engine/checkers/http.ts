import { checkHttp } from "../../net/http-check.ts";
import { detectWordPress } from "../wordpress.ts";
import { assertionFailure } from "./assertions.ts";
import type { Checker, CheckerResult } from "./checker.ts";
import { failed, wholeMs } from "./checker.ts";

/**
 * An http:// or https:// site: one request through the engine's outbound client (http-check.ts, which follows
 * redirects by hand, checks every hop's address and keeps credential headers on the site's own origin), then the
 * site's assertions on the final answer. Assertions are read only when the status already passed, so a failed
 * check names the status, not a missing keyword on an error page; a failed assertion keeps the status code and
 * the response time (the site answered, with the wrong thing).
 */
export const checkHttpSite: Checker = async (check, { policy, region, unseal }) => {
  const { body, followRedirects, basicAuth } = check.request;
  let headers = check.headers;
  if (basicAuth) {
    let password = "";
    if (basicAuth.sealedPassword !== null) {
      try {
        if (!unseal) throw new Error("no key to open it with");
        password = unseal(basicAuth.sealedPassword);
      } catch {
        // Not downtime: the site may be fine; the key it was sealed with is not this server's.
        return failed(
          "not checked: the basic-auth password cannot be opened with this server's key (was PORCHLIGHT_SECRET_KEY changed?); enter it again",
        );
      }
    }
    const credentials = Buffer.from(`${basicAuth.username}:${password}`).toString("base64");
    // Basic auth replaces an Authorization header of the site's own: one credential, the one the form names.
    headers = [
      ...headers.filter((h) => h.name.toLowerCase() !== "authorization"),
      { name: "Authorization", value: `Basic ${credentials}` },
    ];
  }
  const result = await checkHttp(
    {
      url: check.url,
      method: check.method,
      headers,
      timeoutMs: check.timeoutMs,
      successCodes: check.successCodes,
      errorCodes: check.errorCodes,
      region,
      followRedirects,
      ...(body !== null ? { body } : {}),
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
