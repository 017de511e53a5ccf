/**
 * The Content-Security-Policy of a status page: its own script only (no inline script, so no hash to list), the
 * styles the element renders inline, and requests to the API it refreshes from.
 */
export function pageCsp(apiOrigin: string | null, frameAncestors: string | null, images: string[] = []): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    // Declarative shadow DOM carries the element's styles inline, and Lit sets its colour variables in a style
    // attribute: styles cannot run code.
    "style-src 'self' 'unsafe-inline'",
    `connect-src 'self'${apiOrigin ? ` ${apiOrigin}` : ""}`,
    // The page's own (an upload, the status disc), and its logo's and favicon's hosts when its owner gave addresses.
    `img-src 'self' data:${images.map((origin) => ` ${origin}`).join("")}`,
    "base-uri 'none'",
    "form-action 'none'",
    ...(frameAncestors ? [`frame-ancestors ${frameAncestors}`] : []),
  ].join("; ");
}

/** The meta-tag form for static hosts (frame-ancestors is not allowed there: hosts send it as a header, if at all). */
export function staticCsp(apiBase: string, images: string[] = []): string {
  let origin: string | null = null;
  try {
    origin = new URL(apiBase).origin;
  } catch {
    origin = null;
  }
  return pageCsp(origin, null, images);
}

/** Headers every page the server renders sends. */
export function pageHeaders(frameAncestors: string, images: string[] = []): Record<string, string> {
  return {
    "content-security-policy": pageCsp(null, frameAncestors, images),
    "x-content-type-options": "nosniff",
    "referrer-policy": "strict-origin-when-cross-origin",
  };
}

/**
 * What a page's img-src adds for its logo and favicon: `https:` when either is an https address (not only its host:
 * such addresses often redirect to another, as https://github.com/<org>.png does, and an image runs no script), else
 * nothing (an upload is the page's own).
 */
export function imageOrigins(page: { logo?: string | null; favicon?: string | null } | null): string[] {
  return [page?.logo, page?.favicon].some((src) => src?.startsWith("https://")) ? ["https:"] : [];
}
