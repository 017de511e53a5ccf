import type { DomainFacts } from "../contract/anon.ts";
import { DomainLookup } from "../engine/domain.ts";
import { cloudflareChallenge, detectCdn, detectCms } from "./detect.ts";
import { type Fetched, type FetchPolicy, safeFetch } from "./fetcher.ts";

const DAY_MS = 86_400_000;

export interface SnapshotDeps {
  policy: FetchPolicy;
  domains: DomainLookup;
  now?: () => number;
  /** Where the site is asked: 443 and 80 unless a test or the benchmark serves it elsewhere. */
  ports?: { https: number; http: number };
}

/** The https answer when there is one, else the http one: what a visitor typing the domain would get. */
export async function fetchSite(
  domain: string,
  { policy, ports }: Pick<SnapshotDeps, "policy" | "ports">,
): Promise<{ https: Fetched; final: Fetched }> {
  const https = await safeFetch(`https://${domain}${ports ? `:${ports.https}` : ""}/`, policy);
  if (https.ok) return { https, final: https };
  const http = await safeFetch(`http://${domain}${ports ? `:${ports.http}` : ""}/`, policy);
  return { https, final: http.ok ? http : https };
}

/** Days from now until an ISO date, rounded down (negative once past). */
const daysUntil = (iso: string, now: number) => Math.floor((Date.parse(iso) - now) / DAY_MS);

/**
 * A snapshot of a domain: its site over https (or http), what serves it, its certificate, and its registration
 * (the engine's RDAP and WHOIS lookup, through the same address policy). The two halves run side by side, each
 * bounded by its own timeouts; a registry that does not answer leaves domainMeta empty rather than failing.
 */
export async function takeSnapshot(domain: string, deps: SnapshotDeps): Promise<DomainFacts> {
  const now = deps.now ?? Date.now;
  const registrable = DomainLookup.registrable(domain) ?? domain;
  const [site, registration] = await Promise.all([
    fetchSite(domain, deps),
    deps.domains.lookup(registrable).catch(() => null),
  ]);
  const { https, final } = site;
  const at = now();
  const certificate = https.certificate;
  return {
    reachable: final.ok,
    httpStatus: final.statusCode ?? 0,
    cloudflareChallenge: final.ok && cloudflareChallenge(final.statusCode, final.headers, final.body),
    responseTimeMs: final.responseTimeMs,
    redirects: final.redirects,
    cdn: final.ok ? detectCdn(final.headers) : "None",
    cms: final.ok ? detectCms(final.headers, final.body) : "Unknown",
    ssl: {
      valid: Boolean(certificate?.authorized && Date.parse(certificate.validTo) > at),
      daysLeft: certificate ? daysUntil(certificate.validTo, at) : null,
    },
    domainMeta: {
      registrar: registration?.registrar ?? null,
      expirationDate: registration?.expiresAt ?? null,
      daysLeft: registration?.expiresAt ? daysUntil(registration.expiresAt, at) : null,
    },
  };
}
