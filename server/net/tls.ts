import { createSecureContext, rootCertificates, type SecureContext } from "node:tls";

const contexts = new WeakMap<string[], SecureContext>();

/**
 * The TLS context for a list of extra certificate authorities besides the system's, made once per list for every
 * caller (HTTPS checks, tls:// checks, the anonymous fetcher): building a CA store from the system's roots costs
 * milliseconds and megabytes, which per connection dominated a check. Keyed by the list itself, so callers that build
 * a policy per request share it too. Undefined without extra authorities: Node's default context.
 */
export function contextFor(policy: { extraCa?: string[] }): SecureContext | undefined {
  const extra = policy.extraCa;
  if (!extra?.length) return undefined;
  let context = contexts.get(extra);
  if (!context) {
    context = createSecureContext({ ca: [...rootCertificates, ...extra] });
    contexts.set(extra, context);
  }
  return context;
}

/** A certificate date as ISO 8601; an unparsable one (a broken certificate) as the epoch, which reads as expired. */
export function isoOrEpoch(text: string): string {
  const t = Date.parse(text);
  return new Date(Number.isNaN(t) ? 0 : t).toISOString();
}
