/**
 * The pages a subscriber's e-mails link to, with no account: confirm a sign-up, choose services, unsubscribe. A GET
 * only shows a form, because mail scanners open links; its POST acts. The unsubscribe link also takes RFC 8058's
 * one-click POST (`List-Unsubscribe=One-Click` posted to the link itself). The token is in the query (never in a
 * logged path) and these pages send no Referer.
 */
import type { Context } from "hono";
import { hashToken } from "../accounts/secrets.ts";
import type { Clock } from "../clock.ts";
import { escapeHtml as e, plainPage } from "../html.ts";
import { LINK_PAGE_HEADERS } from "../http/headers.ts";
import { type PageRoute, PageRoutes } from "../http/route.ts";
import type { Store } from "../store/store.ts";
import type { ManagedRecord } from "../store/subscribers.ts";

const BASE = "/subscriptions";

function page(c: Context, status: number, title: string, body: string): Response {
  return c.body(plainPage(title, body), status as 200, LINK_PAGE_HEADERS);
}

const validToken = (token: string) => /^[A-Za-z0-9_-]{43}$/.test(token);

/** The request's form fields (a POST), or none. */
async function formOf(c: Context): Promise<URLSearchParams> {
  const type = c.req.header("content-type") ?? "";
  if (c.req.method === "POST" && /^(application\/x-www-form-urlencoded|multipart\/form-data)/i.test(type)) {
    try {
      const body = await c.req.parseBody({ all: true });
      const form = new URLSearchParams();
      for (const [key, value] of Object.entries(body)) {
        for (const v of Array.isArray(value) ? value : [value]) if (typeof v === "string") form.append(key, v);
      }
      return form;
    } catch {
      return new URLSearchParams();
    }
  }
  return new URLSearchParams();
}

/** The token of a request: the query's, else a form field's. */
function tokenOf(c: Context, form: URLSearchParams): string {
  return c.req.query("token") ?? form.get("token") ?? "";
}

const unknown = (c: Context) =>
  page(
    c,
    404,
    "Link not recognised",
    "<p>This link is not (or no longer) valid. Subscribe again on the status page.</p>",
  );

export function subscriptionPages({
  store,
  clock,
  token: tokenFor,
}: {
  store: Store;
  clock: Clock;
  token: (nonce: string) => string;
}): PageRoute[] {
  const pages = new PageRoutes();
  const hidden = (token: string) => `<input type="hidden" name="token" value="${e(token)}">`;

  pages.get(`${BASE}/confirm`, async (c) => {
    const token = c.req.query("token") ?? "";
    const found = validToken(token) ? await store.subscribers.byConfirmHash(hashToken(token)) : undefined;
    if (!found) return unknown(c);
    if (found.state !== "pending") {
      return page(c, 200, "Already confirmed", `<p>You are subscribed to ${e(found.page.name)}.</p>`);
    }
    return page(
      c,
      200,
      `Subscribe to ${found.page.name}?`,
      `<p>${e(found.address)} will be told by e-mail when ${e(found.page.name)} reports an incident.</p>
<form method="post" action="${BASE}/confirm">${hidden(token)}<button>Confirm the subscription</button></form>`,
    );
  });

  pages.post(`${BASE}/confirm`, async (c) => {
    const token = tokenOf(c, await formOf(c));
    if (!validToken(token)) return unknown(c);
    const found = await store.subscribers.byConfirmHash(hashToken(token));
    const outcome = await store.subscribers.confirm(hashToken(token), clock.now().toISOString());
    if (outcome === "unknown" || !found) return unknown(c);
    const manage = `<p><a href="${BASE}/manage?token=${e(tokenFor(found.manageNonce))}">Choose the services you hear about</a>; every message links here too.</p>`;
    const messages = {
      confirmed: [
        "Subscribed",
        `<p>${e(found.address)} will be told when ${e(found.page.name)} publishes, updates or resolves an incident.</p>${manage}`,
      ],
      already: ["Already confirmed", `<p>This subscription was already confirmed.</p>${manage}`],
      expired: ["Link expired", "<p>Confirmation links work for 24 hours. Subscribe again on the status page.</p>"],
    } as const;
    const [title, body] = messages[outcome];
    return page(c, outcome === "expired" ? 410 : 200, title, body);
  });

  const manageForm = async (c: Context, token: string, found: ManagedRecord, saved: boolean) => {
    // One who cannot see the page now (a changed password, a page made private) may only leave.
    if (!found.hasAccess) {
      return page(
        c,
        200,
        "Your subscription",
        `<p>${e(found.address)} receives nothing from this page now.</p>
<form method="post" action="${BASE}/unsubscribe">${hidden(token)}<p><button>Unsubscribe</button></p></form>`,
      );
    }
    const items = await store.subscribers.visibleItems(found.page.id);
    const chosen = new Set(found.items);
    const boxes = items
      .map(
        (item) =>
          `<label><input type="checkbox" name="items" value="${item.id}"${chosen.has(item.id) ? " checked" : ""}> ${e(item.label)}</label>`,
      )
      .join("");
    return page(
      c,
      200,
      `Your subscription to ${found.page.name}`,
      `${saved ? '<p role="status"><b>Saved.</b></p>' : ""}<p>${e(found.address)} is ${found.state === "confirmed" ? "subscribed" : e(found.state)}.</p>
<form method="post" action="${BASE}/manage">${hidden(token)}<fieldset><legend>Services to hear about (none ticked: all of them)</legend>${boxes || "<p>This page lists no services.</p>"}</fieldset><button>Save</button></form>
<form method="post" action="${BASE}/unsubscribe">${hidden(token)}<p><button>Unsubscribe</button></p></form>`,
    );
  };

  pages.get(`${BASE}/manage`, async (c) => {
    const token = c.req.query("token") ?? "";
    const found = validToken(token) ? await store.subscribers.byManageHash(hashToken(token)) : undefined;
    return found ? manageForm(c, token, found, false) : unknown(c);
  });

  pages.post(`${BASE}/manage`, async (c) => {
    const form = await formOf(c);
    const token = tokenOf(c, form);
    const found = validToken(token) ? await store.subscribers.byManageHash(hashToken(token)) : undefined;
    if (!found) return unknown(c);
    const visible = new Set((await store.subscribers.visibleItems(found.page.id)).map((i) => i.id));
    const items = [...new Set(form.getAll("items").map(Number))].filter((id) => visible.has(id)).sort((a, b) => a - b);
    await store.subscribers.setItems(found.id, items);
    return manageForm(c, token, { ...found, items }, true);
  });

  pages.get(`${BASE}/unsubscribe`, async (c) => {
    const token = c.req.query("token") ?? "";
    const found = validToken(token) ? await store.subscribers.byManageHash(hashToken(token)) : undefined;
    if (!found) return unknown(c);
    return page(
      c,
      200,
      `Unsubscribe from ${found.page.name}?`,
      `<p>${e(found.address)} will receive nothing more from ${e(found.page.name)}.</p>
<form method="post" action="${BASE}/unsubscribe">${hidden(token)}<button>Unsubscribe</button></form>`,
    );
  });

  pages.post(`${BASE}/unsubscribe`, async (c) => {
    const token = tokenOf(c, await formOf(c));
    const found = validToken(token) ? await store.subscribers.byManageHash(hashToken(token)) : undefined;
    if (!found) return page(c, 200, "Unsubscribed", "<p>Nothing more will be sent to this address.</p>");
    await store.subscribers.remove(found.id);
    return page(c, 200, "Unsubscribed", `<p>Nothing more will be sent from ${e(found.page.name)}.</p>`);
  });
  return pages.routes;
}
