import { isIP } from "node:net";
import { performance } from "node:perf_hooks";
import { DOMAIN_CACHE, type DomainLookupOptions } from "../engine/domain.ts";
import { addressRefusal } from "../net/address-policy.ts";
import { resolveAll } from "../net/dns-cache.ts";
import { CHECK_DEFAULTS, type CheckPolicy, checkHttp, unfollowedRedirect } from "../net/http-check.ts";

/**
 * How the anonymous surface reaches out: one policy object per use (a snapshot, a domain lookup). Production
 * passes only the time bound; the other fields have safe defaults.
 */
export interface FetchPolicy {
  /** The whole request, every hop and every DNS lookup included. */
  timeoutMs: number;
  /** Redirects followed, each hop checked like the first; one more fails the fetch. Default 5. */
  maxRedirects?: number;
  /** Body bytes read; the rest is never read and the answer is cut there (not an error). Default 256 KiB. */
  bodyCapBytes?: number;
  /** Addresses of a host name, first one used. Tests inject one; default the system's resolver. */
  resolve?: (host: string) => Promise<string[]>;
  /**
   * Addresses allowed whatever their range: explicit exceptions such as a test's or the benchmark's own loopback
   * target (`new Set(["127.0.0.2"])`). Empty in production.
   */
  allowAddresses?: ReadonlySet<string>;
  /** Extra trusted certificate authorities (PEM), besides the system's: tests' own CA. */
  extraCa?: string[];
}

/** One fetch's outcome as plain data. */
export interface Fetched {
  /** An HTTP answer arrived, whatever its status (and whatever its certificate: see `certificate`). */
  ok: boolean;
  /** Why no answer arrived ("refused: …", "timed out after …", "DNS: …"); null when one did. */
  error: string | null;
  statusCode: number | null;
  /** The final answer's headers, names lowercased, repeated ones joined with ", ". */
  headers: Record<string, string>;
  /** The first bodyCapBytes of the final answer, as text. */
  body: string;
  redirects: number;
  /** The last URL asked for (the refused one when a hop was refused). */
  finalUrl: string;
  responseTimeMs: number;
  /** The last HTTPS hop's certificate; an invalid one is a finding, not a failure. */
  certificate: { validTo: string; authorized: boolean; error: string | null } | null;
}

const WEB_SCHEMES = new Set(["http:", "https:"]);

/**
 * Why an address may not be connected to, or null when it may: the engine's public-unicast rule
 * (`nonPublicRange` in server/net/address-policy.ts) with the policy's explicit exceptions and never
 * `allowPrivate`, whatever PORCHLIGHT_ALLOW_PRIVATE_TARGETS says.
 */
const refusal = (address: string, policy: Pick<FetchPolicy, "allowAddresses">): string | null =>
  addressRefusal(address, policy.allowAddresses ? { allowAddresses: policy.allowAddresses } : {});

/** Whether a socket may connect to this address: public unicast, or one of the policy's explicit exceptions. */
export function isPublicAddress(address: string, policy: Pick<FetchPolicy, "allowAddresses"> = {}): boolean {
  return refusal(address, policy) === null;
}

/** What `within` rejects with when time runs out: a plain Error to its readers, told apart by safeFetch. */
class Expired extends Error {}

/** The promise, or a rejection with `message` once `ms` have passed; the timer is cleared when either settles. */
export function within<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Expired(message)), Math.max(0, ms));
  });
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}

/**
 * The address to connect to for a host (a name or an IP literal, IPv6 with or without brackets): the first one
 * the resolver answers, checked against the policy. Throws with the reason when it is refused or unresolvable.
 * Connect to what it returns, never to the name again: a second lookup could answer differently.
 */
export async function guardedAddress(host: string, policy: FetchPolicy): Promise<string> {
  const bare = host.replace(/^\[|\]$/g, "");
  const addresses = isIP(bare)
    ? [bare]
    : await within((policy.resolve ?? resolveAll)(bare), policy.timeoutMs, `DNS: lookup of ${bare} timed out`);
  const chosen = addresses[0];
  if (!chosen) throw new Error(`DNS: ${bare} has no address`);
  const reason = refusal(chosen, policy);
  if (reason !== null) throw new Error(`refused: ${bare} is ${chosen} (${reason})`);
  return chosen;
}

/**
 * GETs an http or https URL under the policy, never throwing: a refusal, a timeout or a broken answer comes back
 * as ok:false with the reason. Built on the engine's checker, which resolves each hop itself, connects the socket
 * to the address it checked (so DNS cannot answer differently between check and connect), follows redirects by
 * hand, and caps time and body. Any scheme but http and https is refused before anything happens.
 */
export async function safeFetch(
  url: string,
  policy: FetchPolicy,
  headers: Record<string, string> = {},
): Promise<Fetched> {
  const started = performance.now();
  const failed = (error: string, finalUrl = url): Fetched => ({
    ok: false,
    error,
    statusCode: null,
    headers: {},
    body: "",
    redirects: 0,
    finalUrl,
    responseTimeMs: Math.round(performance.now() - started),
    certificate: null,
  });
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return failed("refused: not a valid URL");
  }
  if (!WEB_SCHEMES.has(parsed.protocol)) {
    return failed(`refused: only http and https are fetched, not ${parsed.protocol}`);
  }
  const deadline = started + policy.timeoutMs;
  const resolve = policy.resolve ?? resolveAll;
  const checkPolicy: CheckPolicy = {
    allowPrivate: false,
    // The checker does not bound its lookups by the request's time; a resolver that stalls must not either.
    resolve: (host) => within(resolve(host), deadline - performance.now(), `DNS: lookup of ${host} timed out`),
    maxRedirects: policy.maxRedirects ?? CHECK_DEFAULTS.maxRedirects,
    bodyCapBytes: policy.bodyCapBytes ?? CHECK_DEFAULTS.bodyCapBytes,
    refuseAddress: (address) => refusal(address, policy),
    ...(policy.extraCa?.length ? { extraCa: policy.extraCa } : {}),
  };
  const target = {
    url: parsed.href,
    method: "GET",
    headers: Object.entries(headers).map(([name, value]) => ({ name, value })),
    timeoutMs: policy.timeoutMs,
    // Statuses are the caller's to judge: nothing is an error code here.
    successCodes: [],
    errorCodes: [],
  };
  const timedOut = `timed out after ${policy.timeoutMs} ms`;
  // The checker's own bound covers the requests; this one makes the promise above hold whatever stalls.
  const result = await within(checkHttp(target, checkPolicy), policy.timeoutMs, timedOut).catch((error: unknown) => {
    if (error instanceof Expired) return null;
    throw error;
  });
  if (!result) return failed(timedOut);
  const answered = result.statusCode !== null && !unfollowedRedirect(result);
  return {
    ok: answered,
    error: answered ? null : result.error,
    statusCode: result.statusCode,
    headers: result.headers,
    body: result.body,
    redirects: result.redirects,
    finalUrl: result.finalUrl,
    responseTimeMs: Math.round(result.timings.totalMs),
    certificate: result.certificate
      ? {
          validTo: result.certificate.validTo,
          authorized: result.certificate.authorized,
          error: result.certificate.error,
        }
      : null,
  };
}

/**
 * The options that put a `DomainLookup`'s traffic under the policy: RDAP through `safeFetch` (every hop
 * checked, answers over the engine's 512 KiB cap refused), WHOIS servers resolved and checked by `guardedAddress`
 * before the socket connects to the address it returned.
 */
export function anonDomainLookupOptions(
  policy: FetchPolicy,
): Required<Pick<DomainLookupOptions, "fetchText" | "whoisAddress">> {
  const rdapPolicy: FetchPolicy = { ...policy, bodyCapBytes: DOMAIN_CACHE.maxBytes + 1 };
  return {
    async fetchText(url) {
      const fetched = await safeFetch(url, rdapPolicy, { accept: "application/rdap+json, application/json" });
      if (!fetched.ok || fetched.statusCode === null) throw new Error(`RDAP ${url}: ${fetched.error}`);
      if (Buffer.byteLength(fetched.body) > DOMAIN_CACHE.maxBytes) {
        throw new Error(`RDAP ${url}: answer larger than ${DOMAIN_CACHE.maxBytes} bytes`);
      }
      return { status: fetched.statusCode, body: fetched.body };
    },
    whoisAddress: (host) => guardedAddress(host, policy),
  };
}
