import { z } from "zod";
import { Envelope, Timestamp } from "./common.ts";

// The payloads of the anonymous utilities (spec 4.3 to 4.5): a domain snapshot, and a 24-hour report by e-mail.

/** Where a snapshot is: waiting, being taken, or finished either way. */
export const SnapshotStatus = z.enum(["queued", "running", "ready", "failed"]);
export type SnapshotStatus = z.infer<typeof SnapshotStatus>;

/** POST /public/anon/domain-snapshot. */
export const SnapshotRequest = z.strictObject({
  domain: z.string().meta({
    description:
      "A domain name (international names are converted to ASCII). A leading http:// or https:// is stripped with everything from the first /, ? or #; IP addresses, ports, user info and other schemes are refused.",
    example: "example.com",
  }),
});

/** Its answer: the id to poll, and when. */
export const SnapshotAccepted = Envelope(
  z.object({
    snapshotId: z.string(),
    pollAfterMs: z.int().meta({ description: "Wait this long before polling GET /public/anon/domain-snapshot/{id}" }),
  }),
);

/** The path of a snapshot's poll. */
export const SnapshotParams = z.object({
  snapshotId: z
    .string()
    .regex(/^[\w-]{1,64}$/)
    .meta({ description: "The id POST /public/anon/domain-snapshot answered" }),
});

/** POST /public/anon/domain-report-24h. */
export const ReportRequest = z.strictObject({
  domain: SnapshotRequest.shape.domain,
  email: z.email().max(254).meta({ description: "Where the confirmation and then the report go" }),
});

/** Its answer: the confirmation e-mail is on its way. */
export const ReportAccepted = Envelope(
  z.object({
    status: z.literal("confirmation_sent"),
    domain: z.string(),
    confirmWithinHours: z.int(),
  }),
);

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

/** GET /public/anon/domain-snapshot/{snapshotId}: where the snapshot is, and when ready, the facts. */
export const SnapshotAnswer = Envelope(
  z.object({
    snapshotId: z.string(),
    status: SnapshotStatus,
    pollAfterMs: z.int().optional().meta({ description: "While queued or running: when to poll again" }),
    error: z.string().optional().meta({ description: "When failed: why" }),
    snapshot: z
      .object({ domain: z.string(), updatedAt: Timestamp, snapshot: DomainFacts })
      .optional()
      .meta({ description: "When ready" }),
  }),
);
