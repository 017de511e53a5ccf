import type { Context } from "hono";
import { hashToken, looksLikeToken } from "../accounts/secrets.ts";
import type { Clock } from "../clock.ts";
import type { Principal } from "../store/accounts.ts";
import type { Store } from "../store/store.ts";
import { header } from "./headers.ts";

/** The token of an Authorization header: null when absent, "invalid" when not a bearer token of ours. */
export function bearerToken(authorization: string | undefined): string | null | "invalid" {
  if (authorization === undefined) return null;
  const token = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization)?.[1];
  return token && looksLikeToken(token) ? token : "invalid";
}

/**
 * The principal behind the request's bearer token: null when no Authorization header was sent, "invalid" when
 * one was sent and does not name a live token.
 */
export async function principalFrom(c: Context, store: Store, clock: Clock): Promise<Principal | null | "invalid"> {
  const token = bearerToken(header(c, "authorization"));
  if (token === null || token === "invalid") return token;
  return (await store.accounts.authenticate(hashToken(token), clock.now())) ?? "invalid";
}
