import type { Context } from "hono";
import { hashToken, looksLikeToken } from "../accounts/secrets.ts";
import type { Principal, Store } from "../store/store.ts";
import { header } from "./http.ts";
import type { Clock } from "./time.ts";

/**
 * The principal behind the request's bearer token: null when no Authorization header was sent, "invalid" when
 * one was sent and does not name a live token.
 */
export async function principalFrom(c: Context, store: Store, clock: Clock): Promise<Principal | null | "invalid"> {
  const authorization = header(c, "authorization");
  if (authorization === undefined) return null;
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization);
  const token = match?.[1];
  if (!token || !looksLikeToken(token)) return "invalid";
  return (await store.authenticate(hashToken(token), clock.now())) ?? "invalid";
}
