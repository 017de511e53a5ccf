import { randomBytes } from "node:crypto";
import type { Context } from "hono";
import { z } from "zod";
import { hashToken } from "../accounts/secrets.ts";
import type { Clock } from "../clock.ts";
import { Envelope, envelope } from "../contract/common.ts";
import { Slug } from "../contract/status-page.ts";
import {
  CONFIRM_HOURS,
  CONFIRMATIONS_PER_SIGN_UP,
  normalisedAddress,
  RESEND_AFTER_MINUTES,
  SubscribeAccepted,
  SubscribeRequest,
  SubscriberList,
  SubscriberQuery,
} from "../contract/subscribers.ts";
import { principalFrom } from "../http/auth.ts";
import { clientAddress, clientKey } from "../http/client-address.ts";
import { forbidden, invalidField, notFound } from "../http/errors.ts";
import { type PageAccessDeps, pageAccess } from "../http/page-access.ts";
import { enforceLimit, type LimitRule } from "../http/rate-limit.ts";
import { route } from "../http/route.ts";
import type { PageViews } from "../views/page-views.ts";
import { loadWorkspacePage, PageParams } from "./workspace-pages.ts";

export interface SubscriberDeps extends PageAccessDeps {
  views: PageViews;
  clock: Clock;
  /** Sign-ups a client may make an hour, and sign-ups one address may receive a day (across pages). */
  limits?: { perClientHour?: number; perAddressDay?: number };
}

const SlugParams = z.object({ slug: Slug.meta({ description: "The status page's slug", example: "acme" }) });
const SubscriberParams = PageParams.extend({
  subscriberId: z
    .string()
    .regex(/^sub_[0-9a-f]{24}$/)
    .meta({ description: "Subscriber id", example: "sub_0123456789abcdef01234567" }),
});

/** A fresh nonce for a link's token, and the token's hash as stored. */
function link(token: (nonce: string) => string) {
  const nonce = randomBytes(18).toString("base64url");
  return { nonce, hash: hashToken(token(nonce)) };
}

/** Visitors' sign-ups to a page, and the owner's view of its subscribers. */
export function subscriberRoutes(deps: SubscriberDeps & { token: (nonce: string) => string }) {
  const { store, clock, limiter, config, token } = deps;
  const check = pageAccess(deps);
  const perClient: LimitRule = { name: "subscribe", points: deps.limits?.perClientHour ?? 10, windowSeconds: 3600 };
  const perAddress: LimitRule = {
    name: "subscribe-address",
    points: deps.limits?.perAddressDay ?? 5,
    windowSeconds: 86_400,
  };
  /** The members' addresses of a private page's workspace. */
  const memberAddresses = async (c: Context, workspaceId: string) => {
    const principal = await principalFrom(c, store, clock, config.publicUrl);
    if (principal === null || principal === "invalid" || principal.workspaceId !== workspaceId) return new Set();
    return new Set((await store.sessions.members(workspaceId)).map((m) => normalisedAddress(m.email)));
  };

  return [
    route({
      method: "post",
      path: "/public/v1/status-page/{slug}/subscribers",
      operationId: "subscribeToStatusPage",
      summary: "Subscribe to a page's incidents by e-mail (double opt-in)",
      description: `Sends a confirmation e-mail; nothing else reaches the address until its link is followed (within ${CONFIRM_HOURS} hours). The answer is the same whether the address is new, waiting or already subscribed. Asking again for an address still waiting sends a new link after ${RESEND_AFTER_MINUTES} minutes, at most ${CONFIRMATIONS_PER_SIGN_UP} in all. items names the page's services of interest (absent: all). The page's owner must allow subscriptions (403 otherwise). A password page takes X-Status-Page-Password as its reads do; a private page a member's token or session, and an address of one of its members. Limited per client (an hour) and per address (a day): 429 with Retry-After.`,
      tag: "Subscribers",
      access: "none",
      rateLimit: "client",
      params: SlugParams,
      body: SubscribeRequest,
      response: {
        status: 202,
        description: "A confirmation e-mail is on its way",
        schema: Envelope(SubscribeAccepted),
      },
      errors: [400, 401, 403, 404, 413, 415, 429],
      async handler({ params, body, c }) {
        const view = await deps.views.get(params.slug);
        const page = view && (await store.subscribers.page(params.slug));
        if (!view || !page) throw notFound("Status page");
        await check(c, view);
        if (!page.settings.enabled || !page.settings.kinds.includes(body.type)) {
          throw forbidden("This status page does not take subscriptions.");
        }
        const address = normalisedAddress(body.email);
        if (page.visibility === "private" && !(await memberAddresses(c, page.workspaceId)).has(address)) {
          throw invalidField("email", "On a private page, subscribe with the address of one of its members.");
        }
        const visible = new Set((await store.subscribers.visibleItems(page.id)).map((i) => i.id));
        const stranger = body.items?.find((id) => !visible.has(id));
        if (stranger !== undefined) throw invalidField("items", `Item ${stranger} is not on this status page.`);
        await enforceLimit(c, limiter, perClient, clientKey(clientAddress(c, config.trustedProxies)));
        await enforceLimit(c, limiter, perAddress, hashToken(address));
        const now = clock.now();
        await store.subscribers.signUp({
          pageId: page.id,
          kind: body.type,
          address,
          items: [...new Set(body.items ?? [])].sort((a, b) => a - b),
          accessKey: page.visibility === "public" || page.visibility === "private" ? null : page.passwordHash,
          id: `sub_${randomBytes(12).toString("hex")}`,
          confirm: { ...link(token), expiresAt: new Date(now.getTime() + CONFIRM_HOURS * 3_600_000).toISOString() },
          manage: link(token),
          now: now.toISOString(),
          resendAfter: new Date(now.getTime() - RESEND_AFTER_MINUTES * 60_000).toISOString(),
          maxConfirmations: CONFIRMATIONS_PER_SIGN_UP,
        });
        return envelope(202, "Check your inbox to confirm the subscription", {
          status: "confirmation_sent" as const,
          confirmWithinHours: CONFIRM_HOURS,
        });
      },
    }),
    route({
      method: "get",
      path: "/public/v1/status-pages/{id}/subscribers",
      operationId: "listSubscribers",
      summary: "A page's subscribers, by address",
      description:
        "search matches part of the address, in any case; state filters. total counts those matching, counts every subscriber by state. Addresses are personal data: editors and above read them.",
      tag: "Subscribers",
      access: "token",
      permission: "status_pages:write",
      params: PageParams,
      query: SubscriberQuery,
      response: { status: 200, description: "Subscribers", schema: Envelope(SubscriberList) },
      errors: [400, 401, 403, 404],
      async handler({ params, query, principal }) {
        await loadWorkspacePage(store, principal, params.id);
        return envelope(200, "Subscribers", await store.subscribers.list(params.id, query));
      },
    }),
    route({
      method: "delete",
      path: "/public/v1/status-pages/{id}/subscribers/{subscriberId}",
      operationId: "removeSubscriber",
      summary: "Remove a subscriber (nothing more is sent to them)",
      tag: "Subscribers",
      access: "token",
      permission: "status_pages:write",
      params: SubscriberParams,
      response: { status: 200, description: "Removed", schema: Envelope(z.object({ id: z.string() })) },
      errors: [401, 403, 404],
      async handler({ params, principal }) {
        await loadWorkspacePage(store, principal, params.id);
        if (!(await store.subscribers.remove(params.subscriberId, params.id))) throw notFound("Subscriber");
        return envelope(200, "Subscriber removed", { id: params.subscriberId });
      },
    }),
  ];
}
