/**
 * The OpenAPI document's vocabulary: its operation groups (tags) and the response headers it names. Routes name
 * them (route.ts) and the generator describes them (openapi.ts), so they sit below both.
 */

export type Json = Record<string, unknown>;

/** The document's operation groups, in the order the reference shows them, each with what it covers. */
export const TAGS = {
  Sites:
    "The sites a workspace monitors: their settings, and the full monitoring picture of each (state, daily statistics, uptime).",
  "Status pages":
    "A workspace's status pages: name, slug, visibility (public, private or password-protected), theme, display options and custom domain. The plan limits how many there are.",
  "Status page items":
    "The sites a status page shows, with their labels, visibility and order, and the component groups they sit in (two levels, as Statuspage's: a group shows its worst member's status). The sites themselves stay.",
  Incidents: "A status page's incidents and their updates, from investigating to resolved.",
  "Alert channels":
    "Where a workspace's alerts go: e-mail, a signed webhook, Slack, Discord, Microsoft Teams, Telegram, ntfy or PagerDuty. Addresses, tokens and keys are write-only: answers show them masked.",
  Maintenance:
    "Maintenance windows on sites, once or recurring (an RFC 5545 RRULE in a time zone). While one is under way, checks still run and are recorded, alerts wait for its end, no automatic incident opens, its time and checks stay out of uptime and downtime, and status pages show the items as under maintenance.",
  "Public status pages":
    "What a status page's visitors read, by slug, with no workspace token: the page, its items and its incidents. Public pages are cacheable and revalidate with ETag; password pages take X-Status-Page-Password; private pages take a member's token or dashboard session cookie. CORS is open to any origin, without credentials.",
  "Statuspage API":
    "Atlassian Statuspage's public v2 API for every public page, for whatever reads a Statuspage page (exporters, aggregators, chat bots): at /SLUG/api/v2/… on the server, and at /api/v2/… on the page's custom domain. Statuspage's field names, types and enumerations; made from the page's public view, with ETag and 304, compressed, CORS open to any origin. A password page answers 401 and a private one 404, without CORS.",
  Subscribers:
    "Visitors told by e-mail when a page's incident is published, updated or resolved: a double opt-in sign-up on the page, one-click unsubscribe (RFC 8058) and a page to choose services from every message, with no account; the owner's list of subscribers. A page takes subscriptions once its owner allows them (subscriptions.enabled).",
  "Anonymous utilities":
    "A domain snapshot and a 24-hour report by e-mail, for anyone: no credentials, limited per client (an IPv4 address or an IPv6 /64). CORS is open to any origin.",
  Imports:
    "Moving in from Uptime Kuma (its kuma.db), Atlassian Statuspage (its v2 JSON) or Gatus (its YAML): monitors become sites, pages keep their groups, order, incidents and custom domains, maintenance becomes windows. dryRun=true previews; importing the same file again creates nothing twice; the report lists what was created and what was skipped, and why.",
  Account:
    "Signing in to the dashboard (a session cookie with a CSRF token), one-time links for a first password, a reset or an invitation, password changes and the optional TOTP second factor. Every write made with the session cookie must send X-CSRF-Token and come from the same origin.",
  Members: "A workspace's members, invitations and roles, the caller's API tokens, and the plan with its usage.",
  Operations: "Liveness, readiness and this document, for load balancers, orchestrators and tools.",
} as const;
export type Tag = keyof typeof TAGS;

export interface HeaderDef {
  /** The field's name on the wire: several components may describe one field as different routes send it. */
  header: string;
  description: string;
  schema: Json;
}

/** Every response header the document names, as components.headers. */
export const HEADERS = {
  "X-Request-Id": {
    header: "X-Request-Id",
    description:
      "Names this request in the server's log; every answer carries it, errors included. An X-Request-Id sent with the request is kept when it is at most 255 letters, digits, `_`, `-` or `=`; otherwise the server makes a UUID.",
    schema: { type: "string", maxLength: 255, example: "3f1c2a9e-6d0b-4c59-9a51-0c6f2d7e8b14" },
  },
  "X-Content-Type-Options": {
    header: "X-Content-Type-Options",
    description:
      "On every answer, errors included: browsers must take the answer as the Content-Type it names, never sniff it as a script or a page.",
    schema: { type: "string", const: "nosniff" },
  },
  "RateLimit-Policy": {
    header: "RateLimit-Policy",
    description:
      'The limit the request counted against (IETF draft-ietf-httpapi-ratelimit-headers-11): its name, `q` the requests allowed in a window and `w` the window in seconds. Sent on every answer that was counted, errors included; a refused request counts too. Example: `"api";q=600;w=60`.',
    schema: { type: "string", example: '"api";q=600;w=60' },
  },
  RateLimit: {
    header: "RateLimit",
    description:
      'The limit\'s standing after this request (same draft): its name, `r` the requests left in the window and `t` the seconds until the window ends. Sent with RateLimit-Policy. Example: `"api";r=599;t=60`.',
    schema: { type: "string", example: '"api";r=599;t=60' },
  },
  "Retry-After": {
    header: "Retry-After",
    description: "Seconds to wait before asking again (at least 1).",
    schema: { type: "integer", minimum: 1, example: 42 },
  },
  "WWW-Authenticate": {
    header: "WWW-Authenticate",
    description:
      "The credentials to send: a bearer token. On a missing, invalid or revoked token, and on a private status page read without a member's token.",
    schema: { type: "string", const: 'Bearer realm="porchlight"' },
  },
  ETag: {
    header: "ETag",
    description:
      'A validator of the answer\'s body. Strong ("…") where the bytes themselves are compared; weak (W/"…") on the status-page reads, where it changes only when something a visitor sees changes, not when a check moves only check times. Send it back in If-None-Match: while it matches, the answer is 304 without a body.',
    schema: { type: "string", example: '"Vq3nJ0t2y8GxkQ1c5mZ7aP4sW9e"' },
  },
  PollCacheControl: {
    header: "Cache-Control",
    description:
      "`private, no-cache`: a member's answer, kept only by that member's browser, revalidated (If-None-Match) before each use.",
    schema: { type: "string", const: "private, no-cache" },
  },
  PollVary: {
    header: "Vary",
    description: "Authorization, Cookie: the answer depends on who asks.",
    schema: { type: "string", const: "Authorization, Cookie" },
  },
  StatusPageCacheControl: {
    header: "Cache-Control",
    description:
      "`public, no-cache` on a public page: any cache may keep the answer but must revalidate it (If-None-Match) before each use. `private, no-store` on every answer of a password or private page, refusals (401, 429) included: never stored.",
    schema: { type: "string", enum: ["public, no-cache", "private, no-store"] },
  },
  StatusPageVary: {
    header: "Vary",
    description:
      "Accept-Encoding on a public page's answers (sent br or gzip as asked). Authorization, Cookie, X-Status-Page-Password on every answer of a password or private page, refusals (401, 429) included: they depend on the credentials sent, and are never stored.",
    schema: { type: "string", enum: ["Accept-Encoding", "Authorization, Cookie, X-Status-Page-Password"] },
  },
  BadgeCacheControl: {
    header: "Cache-Control",
    description: "Any cache may keep a badge for a minute.",
    schema: { type: "string", const: "public, max-age=60" },
  },
  BadgeContentSecurityPolicy: {
    header: "Content-Security-Policy",
    description: "On an SVG badge: opened on its own, it runs and loads nothing.",
    schema: { type: "string", const: "default-src 'none'; style-src 'unsafe-inline'" },
  },
  DocumentCacheControl: {
    header: "Cache-Control",
    description: "Any cache may keep the document for five minutes.",
    schema: { type: "string", const: "public, max-age=300" },
  },
} satisfies Record<string, HeaderDef>;
export type ResponseHeader = keyof typeof HEADERS;
