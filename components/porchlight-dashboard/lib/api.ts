/**
 * The dashboard's one way to the server: the documented REST API, same origin, with the session cookie (sent by the
 * browser, never readable here) and the session's CSRF token on every write.
 */

import type { Site, SiteList } from "../../../server/contract/site.ts";
import type { FieldError } from "./types.ts";

export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly kind: string,
    message: string,
    readonly details: FieldError[] = [],
    readonly retryAfter = 0,
  ) {
    super(message);
  }

  /** The message of one field, for showing beside its input. */
  field(name: string): string | undefined {
    return this.details.find((d) => d.field === name)?.message;
  }
}

export interface Reply<T> {
  data: T;
  etag: string | null;
  notModified: boolean;
}

let csrfToken = "";
/** Whose session the token is: a retry never carries one member's action into another's session. */
let memberId = "";
/** Called when a request finds the session gone (401): the app shows the sign-in. */
let onSignedOut: () => void = () => {};

export function setCsrf(token: string, member = memberId): void {
  csrfToken = token;
  memberId = member;
}

export function whenSignedOut(handler: () => void): void {
  onSignedOut = handler;
}

/** Calls the API; resolves with the envelope's data, rejects with an ApiProblem (or a TypeError offline). */
export async function api<T>(
  method: string,
  path: string,
  body?: unknown,
  options: { etag?: string | null; signal?: AbortSignal; retried?: boolean } = {},
): Promise<Reply<T>> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (body !== undefined) headers["content-type"] = "application/json";
  if (method !== "GET" && csrfToken) headers["x-csrf-token"] = csrfToken;
  if (options.etag) headers["if-none-match"] = options.etag;
  const res = await fetch(path, {
    method,
    headers,
    credentials: "same-origin",
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const etag = res.headers.get("etag");
  if (res.status === 304) return { data: undefined as T, etag, notModified: true };
  if (res.status === 204) return { data: undefined as T, etag, notModified: false };
  const json = await res.json().catch(() => null);
  if (res.status === 403 && json?.error === "csrf_failed" && !options.retried) {
    // The session changed under this tab (signed in again elsewhere, a password change): take its token, once.
    const session = await fetch("/public/v1/session", { credentials: "same-origin" }).then((r) => r.json());
    if (session?.data?.csrfToken && session.data.user?.id === memberId) {
      csrfToken = session.data.csrfToken;
      return api<T>(method, path, body, { ...options, retried: true });
    }
    // Signed out, or another member signed in in another tab: this tab's action is not theirs to take.
    onSignedOut();
  }
  if (!res.ok) {
    if (res.status === 401 && !path.startsWith("/public/v1/session") && !path.includes("account-links")) onSignedOut();
    throw new ApiProblem(
      res.status,
      json?.error ?? "server",
      json?.message ?? `The server answered ${res.status}`,
      json?.details ?? [],
      Number(res.headers.get("retry-after") ?? 0),
    );
  }
  return { data: json?.data as T, etag, notModified: false };
}

/** Every site of the workspace, a page of 50 at a time (the API's largest), for the screens that choose among them. */
export async function allSites(): Promise<Site[]> {
  const sites: Site[] = [];
  for (let page = 1; ; page++) {
    const { data } = await api<SiteList>("GET", `/public/v1/sites?perPage=50&page=${page}`);
    sites.push(...data.sites);
    if (page >= data.pagination.totalPages) return sites;
  }
}

/**
 * Sends a file's bytes as the body (a page's logo or favicon by PUT, an import's file by POST), with the session's
 * CSRF token; as `type`, or the type the browser gave the file.
 */
export async function upload<T>(
  path: string,
  file: Blob,
  options: { method?: "PUT" | "POST"; type?: string } = {},
): Promise<T> {
  const res = await fetch(path, {
    method: options.method ?? "PUT",
    headers: {
      "content-type": options.type ?? (file.type || "application/octet-stream"),
      "x-csrf-token": csrfToken,
    },
    credentials: "same-origin",
    body: file,
  });
  const json = await res.json().catch(() => null);
  if (!res.ok) {
    throw new ApiProblem(
      res.status,
      json?.error ?? "server",
      json?.message ?? `The server answered ${res.status}`,
      json?.details ?? [],
    );
  }
  return json?.data as T;
}

/** A refusal's field messages by field (each shown beside its input), or null when it names no field. */
export function fieldErrorsOf(error: unknown, name = (field: string) => field): Record<string, string> | null {
  if (!(error instanceof ApiProblem) || error.details.length === 0) return null;
  return Object.fromEntries(error.details.map((d) => [name(d.field), d.message]));
}

/** The message to show for a failed action. */
export function problemText(error: unknown): string {
  if (error instanceof ApiProblem) {
    if (error.kind === "rate_limited") return `Too many attempts. Try again in ${Math.max(1, error.retryAfter)} s.`;
    return error.message;
  }
  return "The server cannot be reached. Check the connection and try again.";
}
