import { z } from "zod";

/** An ISO 8601 timestamp in UTC, as every timestamp in the API is written. */
export const Timestamp = z.iso
  .datetime()
  .meta({ description: "ISO 8601 timestamp (UTC)", example: "2026-11-21T08:00:00.000Z" });

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Why a string cannot be stored as text, or null when it can. PostgreSQL's text refuses NUL (U+0000), and a UTF-16
 * surrogate without its pair has no UTF-8 form (drivers would store U+FFFD in its place). Every string of a request
 * body or query passes this check at the edge (route.ts), so both stores see the same input or none.
 */
export function unstorableText(text: string): string | null {
  if (text.includes("\0")) return "Remove the NUL character (U+0000).";
  if (LONE_SURROGATE.test(text)) return "Remove the unpaired UTF-16 surrogate: it is not valid Unicode.";
  return null;
}

/**
 * Text from outside (an RDAP or WHOIS answer, a certificate's issuer) made storable: NUL and unpaired surrogates,
 * which PostgreSQL cannot hold in text, become U+FFFD, so a remote party cannot make a write fail.
 */
export function storableText(text: string): string {
  return text.replace(/\0/g, "\uFFFD").replace(new RegExp(LONE_SURROGATE.source, "g"), "\uFFFD");
}

/** The success envelope of spec 2.1 around a payload. */
export function Envelope<T extends z.ZodType>(data: T) {
  return z.object({
    success: z.literal(true),
    message: z.string(),
    code: z.int().meta({ description: "Mirrors the HTTP status" }),
    data,
  });
}

export const ErrorKind = z.enum([
  "bad_request",
  "validation_failed",
  "unauthorized",
  "forbidden",
  "not_found",
  "conflict",
  "limit_reached",
  "payload_too_large",
  "unsupported_media_type",
  "password_required",
  "password_incorrect",
  "sign_in_required",
  "invalid_credentials",
  "totp_required",
  "csrf_failed",
  "rate_limited",
  "internal",
]);
export type ErrorKind = z.infer<typeof ErrorKind>;

export const FieldError = z.object({
  field: z.string().meta({ description: "Dotted path of the offending field, or the parameter name" }),
  message: z.string(),
});

/**
 * What a password page's 401 (password_required, password_incorrect) shows its prompt: the page's name, logo and
 * accent, which its hosted prompt shows anyway. Nothing else of the page; a private page's refusals carry none.
 */
export const ErrorPage = z
  .object({
    name: z.string(),
    logo: z.string().nullable().meta({ description: "The page's logo address, or null" }),
    accentColor: z.string().meta({ description: "The page's theme accent colour", example: "#2563eb" }),
  })
  .meta({ id: "ErrorPage" });
export type ErrorPage = z.infer<typeof ErrorPage>;

/** Every error answer: the envelope with success false, a machine-readable kind and, for bad input, field details. */
export const ErrorEnvelope = z
  .object({
    success: z.literal(false),
    message: z.string(),
    code: z.int().meta({ description: "Mirrors the HTTP status" }),
    error: ErrorKind,
    details: z.array(FieldError).optional(),
    page: ErrorPage.optional().meta({
      description:
        "Only on a password-protected status page's 401 (password_required, password_incorrect): its name, logo and accent, for the password prompt",
    }),
  })
  .meta({ id: "Error" });
export type ErrorEnvelope = z.infer<typeof ErrorEnvelope>;

/** The page sizes a list accepts; the first is the default. */
export const PER_PAGE_VALUES = ["10", "25", "50"] as const;

/** Query of every paginated list: page from 1, perPage one of 10 (default), 25 or 50. */
export const PageQuery = z.strictObject({
  page: z
    .string()
    .regex(/^[1-9]\d{0,8}$/, "Enter a whole number from 1.")
    .transform(Number)
    .optional()
    .meta({ description: "Page number, from 1", example: "1" }),
  perPage: z
    .enum(PER_PAGE_VALUES, { error: `Choose ${PER_PAGE_VALUES.slice(0, -1).join(", ")} or ${PER_PAGE_VALUES.at(-1)}.` })
    .transform(Number)
    .optional()
    .meta({ description: "Items per page: 10 (default), 25 or 50" }),
});

export const Pagination = z.object({
  page: z.int(),
  perPage: z.int(),
  total: z.int(),
  totalPages: z.int(),
});

/** A success answer in the envelope (spec 2.1): the HTTP status, a message, and the data. */
export function envelope<T>(status: number, message: string, data: T) {
  return { status, body: { success: true as const, message, code: status, data } };
}
