import type { ErrorKind, ErrorPage } from "../../server/contract/common.ts";
import type { PublicStatusPage } from "../../server/contract/status-page.ts";

/** What a status-page request can end in, other than a page or a network failure: the API's error kinds. */
export type Problem =
  | Extract<ErrorKind, "not_found" | "password_required" | "password_incorrect" | "sign_in_required" | "rate_limited">
  | "server";

export type PageResult =
  | { kind: "page"; page: PublicStatusPage; etag: string | null }
  | { kind: "not-modified" }
  | {
      kind: "problem";
      problem: Problem;
      status: number;
      message: string;
      retryAfterSeconds: number;
      /** A password page's name, logo and accent, for its prompt (only its 401 carries them). */
      prompt?: ErrorPage | undefined;
    };

export interface PageRequest {
  /** Origin (and optional path prefix) of the Porchlight server, without a trailing slash. */
  apiBase: string;
  slug: string;
  /** Sent only in the X-Status-Page-Password header. */
  password?: string | undefined;
  /** The ETag of the page already shown: an unchanged page answers 304 without a body. */
  etag?: string | null | undefined;
  signal?: AbortSignal | undefined;
}

const PROBLEMS = ["not_found", "password_required", "password_incorrect", "sign_in_required", "rate_limited"];

/**
 * A header value can only carry bytes, and browsers refuse characters above U+00FF in one. The password goes as its
 * UTF-8 bytes, one character per byte, which is how the server reads it back.
 */
export function passwordHeaderValue(password: string): string {
  return String.fromCharCode(...new TextEncoder().encode(password));
}

/**
 * Fetches a status page with its items and incidents (spec 4.2: one answer holds all three). Cookies go only to the
 * page's own server (fetch's default, same-origin): on the hosted page, a signed-in member's session reads a private
 * page; an embed on another origin sends none.
 * Resolves with the page, "not modified", or a problem the element shows; rejects only when the network fails or
 * the signal aborts.
 */
export async function fetchStatusPage({ apiBase, slug, password, etag, signal }: PageRequest): Promise<PageResult> {
  const headers: Record<string, string> = {};
  if (password) headers["X-Status-Page-Password"] = passwordHeaderValue(password);
  if (etag) headers["If-None-Match"] = etag;
  const response = await fetch(`${apiBase}/public/v1/status-page/${encodeURIComponent(slug)}`, { headers, signal });
  if (response.status === 304) return { kind: "not-modified" };
  const body = await response.json().catch((error) => {
    // An abort while the body arrives is an abort, not a malformed answer.
    if (signal?.aborted) throw error;
    return {};
  });
  if (response.ok && Array.isArray(body.items)) {
    return { kind: "page", page: body, etag: response.headers.get("ETag") };
  }
  return {
    kind: "problem",
    problem: PROBLEMS.includes(body.error) ? body.error : "server",
    status: response.status,
    message: String(body.message ?? response.statusText),
    retryAfterSeconds: Number(response.headers.get("Retry-After")) || 0,
    prompt: body.page,
  };
}
