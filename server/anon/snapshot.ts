import { z } from "zod";
import { DomainLookup } from "../engine/domain.ts";
import { cloudflareChallenge, detectCdn, detectCms } from "./detect.ts";
import { type Fetched, type FetchPolicy, safeFetch } from "./fetcher.ts";

const DAY_MS = 86_400_000;

/** The inner snapshot of spec 2.7. Unknown facts are null (a site without TLS has no certificate to count). */
export const DomainFacts = z
  .object({
    reachable: z.boolean().meta({ description: "An HTTP answer arrived (over https, else http), whatever its status" }),
    httpStatus: z.int().meta({ description: "Status of the final answer after redirects; 0 when none arrived" }),
    cloudflareChallenge: z.boolean().meta({ description: "The answer was an anti-bot challenge (Cloudflare's)" }),
    responseTimeMs: z.number().meta({ description: "From the first request to the final answer's body" }),
    redirects: z.int(),
    cdn: z.string().meta({ description: "CDN recognised from the answer's headers, or None" }),
    cms: z.string().meta({ description: "CMS recognised from headers and HTML, or Unknown" }),
    ssl: z.object({
      valid: z
        .boolean()
        .meta({ description: "https answered with a certificate that is trusted, current and names the host" }),
      daysLeft: z.int().nullable().meta({ description: "Days until the certificate expires; null without https" }),
    }),
    domainMeta: z.object({
      registrar: z.string().nullable(),
      expirationDate: z.string().nullable().meta({ description: "ISO 8601; null when the registry does not say" }),
      daysLeft: z.int().nullable(),
    }),
  })
  .meta({ id: "DomainFacts" });
export type DomainFacts = z.infer<typeof DomainFacts>;

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
