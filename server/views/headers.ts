import { createHash } from "node:crypto";
import type { Visibility } from "../contract/status-page.ts";

/** CORS on public reads: any origin, no credentials (a password travels in a header, never a cookie). */
export const PUBLIC_CORS = {
  "access-control-allow-origin": "*",
  "access-control-expose-headers": "ETag, Retry-After, X-Request-Id",
} as const;

/** The headers of a status-page view answer, whichever path serves it. */
export function viewHeaders(visibility: Visibility, etag: string): Record<string, string> {
  const headers: Record<string, string> = {
    "content-type": "application/json; charset=utf-8",
    "x-content-type-options": "nosniff",
    etag,
    // Public answers may be stored anywhere but must be revalidated; protected ones never leave the browser.
    "cache-control": visibility === "public" ? "public, no-cache" : "private, no-store",
  };
  // A public answer is compressed as Accept-Encoding asks, and a cache keeps one per coding. A protected one varies
  // by it too, but it is never stored, and its Vary stays what its clients and the OpenAPI document know.
  headers.vary = visibility === "public" ? "Accept-Encoding" : "Authorization, Cookie, X-Status-Page-Password";
  return headers;
}

/** A strong ETag of these bytes: 27 characters of their SHA-256, base64url, quoted. */
export function strongEtag(bytes: string | Uint8Array): string {
  return `"${createHash("sha256").update(bytes).digest("base64url").slice(0, 27)}"`;
}

/** Strong ETags of bytes a read model keeps (a site's detail), so a poll hashes them once while they stay cached. */
const keptEtags = new WeakMap<Uint8Array, string>();

/** strongEtag of bytes that are kept and never changed in place, remembered as long as they are. */
export function keptEtag(bytes: Uint8Array): string {
  let etag = keptEtags.get(bytes);
  if (etag === undefined) {
    etag = strongEtag(bytes);
    keptEtags.set(bytes, etag);
  }
  return etag;
}

/** The headers of a member's polled answer (a token route declaring ETag), from the app and the fast path alike. */
export function pollHeaders(etag: string) {
  return { etag, "cache-control": "private, no-cache", vary: "Authorization, Cookie" };
}

/**
 * A weak ETag (RFC 9110 8.8.1): 27 characters of the SHA-256 of `content`, base64url, as W/"…". For answers whose
 * bytes may differ while they mean the same: the same view in another coding, or a status page whose check times
 * moved while nothing its visitors see did (see visibleItems in page-views.ts).
 */
export function weakEtag(content: string | Uint8Array): string {
  return `W/${strongEtag(content)}`;
}
