/**
 * The Content-Security-Policy of a status page: its own script only (no inline script, so no hash to list), the
 * styles the element renders inline, and requests to the API it refreshes from.
 */
export function pageCsp(apiOrigin: string | null, frameAncestors: string | null): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    // Declarative shadow DOM carries the element's styles inline, and Lit sets its colour variables in a style
    // attribute: styles cannot run code.
    "style-src 'self' 'unsafe-inline'",
    `connect-src 'self'${apiOrigin ? ` ${apiOrigin}` : ""}`,
    // A page's logo and favicon may be its owner's address on any https host.
    "img-src 'self' data: https:",
    "base-uri 'none'",
    "form-action 'none'",
    ...(frameAncestors ? [`frame-ancestors ${frameAncestors}`] : []),
  ].join("; ");
}

/** The meta-tag form for static hosts (frame-ancestors is not allowed there: hosts send it as a header, if at all). */
export function staticCsp(apiBase: string): string {
  let origin: string | null = null;
  try {
    origin = new URL(apiBase).origin;
  } catch {
    origin = null;
  }
  return pageCsp(origin, null);
}

/** Headers every page the server renders sends. */
export function pageHeaders(frameAncestors: string): Record<string, string> {
  return {
    "content-security-policy": pageCsp(null, frameAncestors),
    "x-content-type-options": "nosniff",
    "referrer-policy": "strict-origin-when-cross-origin",
  };
}
