import { createHash, randomBytes } from "node:crypto";
import type { Context } from "hono";
import { z } from "zod";
import { hashToken } from "../accounts/secrets.ts";
import { noticeEmail } from "../alerts/notice-emails.ts";
import { pageUrl } from "../alerts/notice-sender.ts";
import { noticeWordsFor } from "../alerts/notice-words.ts";
import { maskUrl } from "../alerts/outbound.ts";
import type { Clock } from "../clock.ts";
import { Envelope, envelope } from "../contract/common.ts";
import { affectedItems, impactOfItems, NoticePreviewRequest, Slug } from "../contract/status-page.ts";
import {
  CONFIRM_HOURS,
  CONFIRMATIONS_PER_SIGN_UP,
  type HookKind,
  isHookKind,
  NoticePreview,
  normalisedAddress,
  RESEND_AFTER_MINUTES,
  SUBSCRIBER_IMPORT_ROWS,
  SubscribeAccepted,
  type SubscribeRequest as SubscribeBody,
  SubscribeRequest,
  SubscriberEmail,
  SubscriberImport,
  SubscriberImportResult,
  SubscriberKind,
  SubscriberList,
  SubscriberQuery,
} from "../contract/subscribers.ts";
import { escapeHtml as e, plainPage } from "../html.ts";
import { principalFrom } from "../http/auth.ts";
import { clientAddress, clientKey } from "../http/client-address.ts";
import { ApiError, forbidden, invalidField, notFound } from "../http/errors.ts";
import { LINK_PAGE_HEADERS } from "../http/headers.ts";
import { type PageAccessDeps, pageAccess } from "../http/page-access.ts";
import { enforceLimit, type LimitRule } from "../http/rate-limit.ts";
import { type PageRoute, PageRoutes, route } from "../http/route.ts";
import type { PageViews } from "../views/page-views.ts";
import { loadWorkspacePage, PageParams } from "./workspace-pages.ts";

export interface SubscriberDeps extends PageAccessDeps {
  views: PageViews;
  clock: Clock;
  /** Sign-ups a client may make an hour, and sign-ups one address may receive a day (across pages). */
  limits?: { perClientHour?: number; perAddressDay?: number };
  /** The pages' language (PORCHLIGHT_PAGE_LOCALE), which a notice's preview speaks as the notices do. */
  locale?: string;
}

const SlugParams = z.object({ slug: Slug.meta({ description: "The status page's slug", example: "acme" }) });
const SubscriberParams = PageParams.extend({
  subscriberId: z
    .string()
    .regex(/^sub_[0-9a-f]{24}$/)
    .meta({ description: "Subscriber id", example: "sub_0123456789abcdef01234567" }),
});

/** A CSV field (RFC 4180), with a formula's first character defused (OWASP's CSV injection advice). */
function csvField(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** A CSV line's first field, unquoted. */
function firstCsvField(line: string): string {
  if (!line.startsWith('"')) return line.split(",")[0] ?? "";
  const end = /"(?!")/.exec(line.slice(1).replace(/""/g, "\u0000\u0000"));
  return (end ? line.slice(1, end.index + 1) : line.slice(1)).replace(/""/g, '"');
}

/** An address as an import takes it (the sign-up's rule). */
const Email = SubscriberEmail;

/**
 * How a URL subscription is listed and told apart: the URL masked (its path often is the credential), with the start
 * of the whole URL's SHA-256, so that one URL is one subscription per page and two on one host are two.
 */
const hookAddress = (url: string) => {
  const href = new URL(url).href;
  return `${maskUrl(href)} #${createHash("sha256").update(href).digest("hex").slice(0, 16)}`;
};

/** A URL kind as the form names it. */
const HOOK_NAMES: Record<HookKind, string> = {
  webhook: "webhook",
  slack: "Slack",
  discord: "Discord",
  teams: "Microsoft Teams",
};

/** A fresh nonce for a link's token, and the token's hash as stored. */
function link(token: (nonce: string) => string) {
  const nonce = randomBytes(18).toString("base64url");
  return { nonce, hash: hashToken(token(nonce)) };
}

/**
 * Visitors' sign-ups to a page (the API's route, and the form the element's Subscribe link opens), and the owner's
 * view of its subscribers.
 */
export function subscriptions(
  deps: SubscriberDeps & { token: (nonce: string) => string; seal: (plain: string) => string },
) {
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

  /**
   * Signs `body` up to the page `slug` (see the route's description); `password`: a form's candidate in place of
   * the header's. Throws the ApiError a refusal answers.
   */
  const signUp = async (c: Context, slug: string, body: SubscribeBody, password?: string) => {
    const view = await deps.views.get(slug);
    const page = view && (await store.subscribers.page(slug));
    if (!view || !page) throw notFound("Status page");
    await check(c, view, password);
    if (!page.settings.enabled || !page.settings.kinds.includes(body.type)) {
      throw forbidden("This status page does not take subscriptions.");
    }
    const url = isHookKind(body.type) ? (body.url ?? "") : null;
    const address = url === null ? normalisedAddress(body.email ?? "") : hookAddress(url);
    // A channel's or a receiver's readers may not have the page's access: a protected page's notices go to the
    // mailboxes of those who do.
    if (url !== null && page.visibility !== "public") {
      throw forbidden(
        page.visibility === "private"
          ? "A private page's members subscribe by e-mail."
          : "A password-protected page's visitors subscribe by e-mail.",
      );
    }
    if (page.visibility === "private") {
      if (!(await memberAddresses(c, page.workspaceId)).has(address)) {
        throw invalidField("email", "On a private page, subscribe with the address of one of its members.");
      }
    }
    const visible = new Set((await store.subscribers.visibleItems(page.id)).map((i) => i.id));
    const stranger = body.items?.find((id) => !visible.has(id));
    if (stranger !== undefined) throw invalidField("items", `Item ${stranger} is not on this status page.`);
    await enforceLimit(c, limiter, perClient, clientKey(clientAddress(c, config.trustedProxies)));
    await enforceLimit(c, limiter, perAddress, hashToken(address));
    const now = clock.now();
    // A webhook's signing secret is made once, with the subscription, and told in its test delivery.
    const secret =
      url === null
        ? null
        : deps.seal(JSON.stringify({ url, signingSecret: `whsec_${randomBytes(24).toString("base64url")}` }));
    await store.subscribers.signUp({
      pageId: page.id,
      kind: body.type,
      address,
      items: [...new Set(body.items ?? [])].sort((a, b) => a - b),
      // The hash the password was checked against (the view's), not a newer one read since.
      accessKey: view.visibility === "password-protected" ? view.passwordHash : null,
      secret,
      id: `sub_${randomBytes(12).toString("hex")}`,
      confirm: { ...link(token), expiresAt: new Date(now.getTime() + CONFIRM_HOURS * 3_600_000).toISOString() },
      manage: link(token),
      now: now.toISOString(),
      resendAfter: new Date(now.getTime() - RESEND_AFTER_MINUTES * 60_000).toISOString(),
      maxConfirmations: CONFIRMATIONS_PER_SIGN_UP,
    });
  };

  const routes = [
    route({
      method: "post",
      path: "/public/v1/status-page/{slug}/subscribers",
      operationId: "subscribeToStatusPage",
      summary:
        "Subscribe to a page's incidents and maintenance: by e-mail (double opt-in), webhook, Slack, Discord or Teams",
      description: `type email (the default) sends a confirmation e-mail; nothing else reaches the address until its link is followed (within ${CONFIRM_HOURS} hours). type webhook, slack, discord or teams posts a test message to url (it carries the manage and unsubscribe links and, for a webhook, the signing secret of every later delivery); the subscription holds once the receiver accepts it with a 2xx, and a receiver that answers 404 or 410 ends it. The page's settings name the types it takes. The answer is the same whether the address is new, waiting or already subscribed. Asking again for an address still waiting sends a new link after ${RESEND_AFTER_MINUTES} minutes, at most ${CONFIRMATIONS_PER_SIGN_UP} in all. items names the page's services of interest (absent: all). The page's owner must allow subscriptions (403 otherwise). A password page takes X-Status-Page-Password as its reads do; a private page a member's token or session, and an address of one of its members. Limited per client (an hour) and per address (a day): 429 with Retry-After.`,
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
        await signUp(c, params.slug, body);
        if (isHookKind(body.type)) {
          return envelope(202, "A test message is on its way to the URL; the subscription holds once it is accepted", {
            status: "test_delivery_sent" as const,
            confirmWithinHours: CONFIRM_HOURS,
          });
        }
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
      method: "get",
      path: "/public/v1/status-pages/{id}/subscribers.csv",
      operationId: "exportSubscribers",
      summary: "A page's subscribers as CSV",
      description:
        "One line per e-mail subscriber (URL subscribers are listed by the JSON route only), by address: email, state, services (the labels chosen, separated by ';'; empty: all), created_at, confirmed_at, suspended_reason. A value that a spreadsheet would take for a formula (starting with =, +, -, @, a tab or a return) is prefixed with an apostrophe.",
      tag: "Subscribers",
      access: "token",
      permission: "status_pages:write",
      params: PageParams,
      response: {
        status: 200,
        description: "The subscribers (text/csv)",
        schema: z.string().meta({ description: "CSV (RFC 4180), with a header line" }),
        contentType: "text/csv",
      },
      errors: [401, 403, 404],
      async handler({ params, principal, c }) {
        const page = await loadWorkspacePage(store, principal, params.id);
        const rows = await store.subscribers.exportRows(params.id);
        const lines = [
          ["email", "state", "services", "created_at", "confirmed_at", "suspended_reason"],
          ...rows.map((r) => [
            r.address,
            r.state,
            r.services.join(";"),
            r.createdAt,
            r.confirmedAt ?? "",
            r.suspendedReason ?? "",
          ]),
        ];
        return c.body(`${lines.map((line) => line.map(csvField).join(",")).join("\r\n")}\r\n`, 200, {
          "content-type": "text/csv; charset=utf-8",
          "content-disposition": `attachment; filename="${page.slug}-subscribers.csv"`,
          "cache-control": "no-store",
        });
      },
    }),
    route({
      method: "post",
      path: "/public/v1/status-pages/{id}/subscribers/import",
      operationId: "importSubscribers",
      summary: "Import subscribers from CSV",
      description: `Adds each address of the first column (up to ${SUBSCRIBER_IMPORT_ROWS} lines, 1 MB) not yet on the page. With consent: true you state that they agreed to be told: they are subscribed at once, and no e-mail goes out; without it each gets a confirmation e-mail and hears nothing until it is followed. items, when given, is every imported subscriber's choice of services. Lines whose first column is not an address are listed, not imported; nothing is imported when there are more than ${SUBSCRIBER_IMPORT_ROWS} lines.`,
      tag: "Subscribers",
      access: "token",
      permission: "status_pages:write",
      params: PageParams,
      body: SubscriberImport,
      response: { status: 200, description: "What was imported", schema: Envelope(SubscriberImportResult) },
      errors: [400, 401, 403, 404, 413, 415],
      async handler({ params, body, principal }) {
        await loadWorkspacePage(store, principal, params.id);
        const visible = new Set((await store.subscribers.visibleItems(params.id)).map((i) => i.id));
        const stranger = body.items?.find((id) => !visible.has(id));
        if (stranger !== undefined) throw invalidField("items", `Item ${stranger} is not on this status page.`);
        const lines = body.csv.split(/\r\n|\n|\r/);
        if (lines.length > SUBSCRIBER_IMPORT_ROWS + 1) {
          throw invalidField("csv", `Import at most ${SUBSCRIBER_IMPORT_ROWS} lines at a time.`);
        }
        const invalid: { line: number; value: string }[] = [];
        const addresses = new Set<string>();
        for (const [index, line] of lines.entries()) {
          const first = firstCsvField(line).trim();
          if (first === "" || (index === 0 && /^e-?mail/i.test(first))) continue;
          const address = normalisedAddress(first);
          if (Email.safeParse(address).success) addresses.add(address);
          else if (invalid.length < 100) invalid.push({ line: index + 1, value: first.slice(0, 254) });
        }
        const now = clock.now();
        const added = await store.subscribers.importSubscribers({
          pageId: params.id,
          consent: body.consent,
          items: [...new Set(body.items ?? [])].sort((a, b) => a - b),
          now: now.toISOString(),
          expiresAt: new Date(now.getTime() + CONFIRM_HOURS * 3_600_000).toISOString(),
          rows: [...addresses].map((address) => ({
            id: `sub_${randomBytes(12).toString("hex")}`,
            address,
            manage: link(token),
            confirm: link(token),
          })),
        });
        return envelope(200, "Subscribers imported", { added, existing: addresses.size - added, invalid });
      },
    }),
    route({
      method: "post",
      path: "/public/v1/status-pages/{id}/subscribers/preview",
      operationId: "previewSubscriberNotice",
      summary: "Preview the notice an incident would send subscribers",
      description:
        "The e-mail subscribers would receive if this incident were published now (its words and services as POST …/incidents takes them), with placeholder links, and how many confirmed subscribers it would reach. Nothing is written or sent.",
      tag: "Subscribers",
      access: "token",
      permission: "status_pages:write",
      params: PageParams,
      body: NoticePreviewRequest,
      response: { status: 200, description: "The notice", schema: Envelope(NoticePreview) },
      errors: [400, 401, 403, 404, 413, 415],
      async handler({ params, body, principal }) {
        await loadWorkspacePage(store, principal, params.id);
        const page = await store.subscribers.pageById(params.id);
        if (!page) throw notFound("Status page");
        const visible = await store.subscribers.visibleItems(params.id);
        const named = body.items ?? [];
        const shown = new Set(visible.map((i) => i.id));
        const stranger = named.map((i) => (typeof i === "number" ? i : i.id)).find((id) => !shown.has(id));
        if (stranger !== undefined) throw invalidField("items", `Item ${stranger} is not on this status page.`);
        const impact = body.impact ?? impactOfItems(named);
        // An item named twice counts once, with the worse status (as an incident records it).
        const severity = ["operational", "maintenance", "degraded", "partial_outage", "major_outage"];
        const worst = new Map<number, string>();
        for (const { id, status } of affectedItems(named, impact)) {
          const before = worst.get(id);
          if (before === undefined || severity.indexOf(status) > severity.indexOf(before)) worst.set(id, status);
        }
        const at = clock.now().toISOString();
        const placeholder = `${config.publicUrl}/subscriptions`;
        const host = new URL(config.publicUrl).hostname;
        const mail = noticeEmail(
          {
            kind: "incident",
            event: body.status === "resolved" ? "resolved" : "published",
            page: { id: params.id, ...page },
            incident: { id: 0, title: body.title, impact, status: body.status, startedAt: at },
            update: { status: body.status, message: body.message, at },
            affected: visible
              .filter((i) => worst.has(i.id))
              .map((i) => ({ label: i.label, status: worst.get(i.id) as string })),
          },
          {
            pageUrl: pageUrl(config.publicUrl, page),
            manageUrl: `${placeholder}/manage?token=PREVIEW`,
            unsubscribeUrl: `${placeholder}/unsubscribe?token=PREVIEW`,
          },
          {
            messageId: `<preview@${host}>`,
            thread: `<preview@${host}>`,
            eventId: "preview",
            listId: `<preview.${host}>`,
          },
          noticeWordsFor(deps.locale),
        );
        return envelope(200, "Notice preview", {
          subject: mail.subject,
          text: mail.text,
          html: mail.html,
          recipients: await store.subscribers.recipients(params.id, [...worst.keys()]),
        });
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

  /**
   * The sign-up form, for public and password pages (a private page's members subscribe through the API): a GET
   * shows it (the page's services to choose from, unless the page needs a password), its POST signs up and says
   * to check the inbox, or shows the form again with what went wrong. No script, no cookie read.
   */
  const pages = (): PageRoute[] => {
    const formPages = new PageRoutes();
    const render = (c: Context, status: number, title: string, body: string, accent?: string) =>
      c.body(plainPage(title, body, accent), status as 200, LINK_PAGE_HEADERS);
    /** What a visitor typed, shown again with the problem: which form it was (email, or a URL kind). */
    type Given = { type: SubscriberKind; email: string; url: string; items: number[] };
    const form = async (c: Context, slug: string, error: string | null, given: Given) => {
      const view = await deps.views.get(slug);
      const page = view && (await store.subscribers.page(slug));
      if (!view || !page || page.visibility === "private" || !page.settings.enabled) {
        return render(c, 404, "Nothing to subscribe to", "<p>This status page does not take subscriptions.</p>");
      }
      const password = page.visibility !== "public";
      const items = password ? [] : await store.subscribers.visibleItems(page.id);
      // A protected page's notices go to mailboxes only (signUp).
      const hookKinds = page.visibility === "public" ? page.settings.kinds.filter(isHookKind) : [];
      const chosen = new Set(given.items);
      /** One form's fields after its address: the password or the services, then the button. */
      const rest = (id: string, label: string) => {
        const boxes = items
          .map(
            (item) =>
              `<label><input type="checkbox" name="items" value="${item.id}"${chosen.has(item.id) ? " checked" : ""}> ${e(item.label)}</label>`,
          )
          .join("");
        return `${password ? `<label for="${id}-password">Page password</label><input id="${id}-password" name="password" type="password" autocomplete="current-password" required>` : ""}
${boxes ? `<fieldset><legend>Services (none ticked: all of them)</legend>${boxes}</fieldset>` : ""}
<button>${label}</button>`;
      };
      const problem = (kind: "email" | "hook") =>
        error && (kind === "email") === (given.type === "email")
          ? {
              note: `<p class="error" role="alert" id="${kind}-problem">${e(error)}</p>`,
              attrs: ` aria-describedby="${kind}-problem" aria-invalid="true"`,
            }
          : { note: "", attrs: "" };
      const mail = page.settings.kinds.includes("email") ? problem("email") : null;
      const hook = hookKinds.length > 0 ? problem("hook") : null;
      const emailForm = mail
        ? `<h2>By e-mail</h2>${mail.note}<form method="post" action="/subscriptions/new">
<input type="hidden" name="page" value="${e(page.slug)}">
<label for="email">E-mail address</label>
<input id="email" name="email" type="email" autocomplete="email" required maxlength="254" value="${e(given.email)}"${mail.attrs}>
${rest("email", "Subscribe")}</form>`
        : "";
      const hookForm = hook
        ? `<h2>In a chat, or by webhook</h2><p>We post a test message first; the subscription starts once it arrives. It carries the links to choose services and to unsubscribe${hookKinds.includes("webhook") ? ", and a webhook's signing secret" : ""}.</p>${hook.note}<form method="post" action="/subscriptions/new">
<input type="hidden" name="page" value="${e(page.slug)}">
<label for="type">Post to</label>
<select id="type" name="type">${hookKinds.map((k) => `<option value="${k}"${given.type === k ? " selected" : ""}>${HOOK_NAMES[k]}</option>`).join("")}</select>
<label for="url">Incoming-webhook URL</label>
<input id="url" name="url" type="url" required maxlength="2048" placeholder="https://" value="${e(given.url)}"${hook.attrs}>
${rest("hook", "Subscribe this URL")}</form>`
        : "";
      const accent = (JSON.parse(new TextDecoder().decode(view.page.bytes)) as { theme?: { accentColor?: string } })
        .theme?.accentColor;
      // A public page's feeds need no sign-up at all: the page's, and each service's.
      const feeds =
        page.visibility === "public"
          ? `<h2>By feed</h2><ul><li>${e(page.name)}: <a href="/${e(page.slug)}/feed.xml">RSS</a>, <a href="/${e(page.slug)}/atom.xml">Atom</a></li>${items
              .map(
                (item) =>
                  `<li>${e(item.label)}: <a href="/${e(page.slug)}/items/${item.id}/feed.xml">RSS</a>, <a href="/${e(page.slug)}/items/${item.id}/atom.xml">Atom</a></li>`,
              )
              .join("")}</ul>`
          : "";
      return render(
        c,
        error ? 400 : 200,
        `Subscribe to ${page.name}`,
        `<p>Be told when ${e(page.name)} publishes, updates or resolves an incident, and of its maintenance. Every message has a one-click unsubscribe.</p>
${emailForm}
${hookForm}
${feeds}
<p><a href="/${e(page.slug)}">Back to the status page</a></p>`,
        accent,
      );
    };
    formPages.get("/subscriptions/new", async (c) => {
      const slug = c.req.query("page") ?? "";
      if (!Slug.safeParse(slug).success)
        return render(c, 404, "Nothing to subscribe to", "<p>No such status page.</p>");
      return form(c, slug, null, { type: "email", email: "", url: "", items: [] });
    });
    formPages.post("/subscriptions/new", async (c) => {
      let fields: Record<string, string | File | (string | File)[]> = {};
      try {
        fields = await c.req.parseBody({ all: true });
      } catch {
        fields = {};
      }
      const one = (name: string) => {
        const value = fields[name];
        return typeof value === "string" ? value : "";
      };
      const list = (name: string) => {
        const value = fields[name];
        return (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === "string");
      };
      const slug = one("page");
      if (!Slug.safeParse(slug).success)
        return render(c, 404, "Nothing to subscribe to", "<p>No such status page.</p>");
      // A box for a service gone since the form was shown is dropped, not refused.
      const target = await store.subscribers.page(slug);
      const visible = new Set(target ? (await store.subscribers.visibleItems(target.id)).map((i) => i.id) : []);
      const items = list("items")
        .map(Number)
        .filter((n) => visible.has(n))
        .slice(0, 200);
      const type = SubscriberKind.catch("email").parse(one("type") || "email");
      const given: Given = { type, email: one("email").slice(0, 254), url: one("url").slice(0, 2048), items };
      const parsed = SubscribeRequest.safeParse(
        isHookKind(type) ? { type, url: given.url.trim(), items } : { email: given.email.trim(), items },
      );
      if (!parsed.success) {
        const wanted = isHookKind(type)
          ? `Enter the ${HOOK_NAMES[type]} URL, starting with https://.`
          : "Enter an e-mail address such as name@example.com.";
        return form(c, slug, wanted, given);
      }
      try {
        await signUp(c, slug, parsed.data, one("password") || undefined);
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        if (error.status === 429) {
          for (const [name, value] of Object.entries(error.headers ?? {})) c.header(name, value);
          return render(c, 429, "Too many sign-ups", "<p>Too many sign-ups from here for now. Try again later.</p>");
        }
        if (error.status === 401) return form(c, slug, "The password is incorrect.", given);
        if (error.status === 400) return form(c, slug, error.details?.[0]?.message ?? error.message, given);
        return form(c, slug, error.message, given);
      }
      if (isHookKind(type)) {
        return render(
          c,
          200,
          "Watch for the test message",
          `<p>We are posting a test message to the ${e(HOOK_NAMES[type])} URL you gave. The subscription starts once it is accepted; the message carries the links to choose services and to unsubscribe.</p>`,
        );
      }
      return render(
        c,
        200,
        "Check your inbox",
        `<p>We sent a link to <b>${e(parsed.data.email ?? "")}</b>. Follow it within ${CONFIRM_HOURS} hours to confirm the subscription; until then nothing else is sent.</p>`,
      );
    });
    return formPages.routes;
  };

  return { routes, pages };
}
