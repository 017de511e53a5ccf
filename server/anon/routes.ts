import type { Context, MiddlewareHandler } from "hono";
import type { Clock } from "../clock.ts";
import type { Config } from "../config.ts";
import {
  type DomainFacts,
  ReportAccepted,
  ReportRequest,
  SnapshotAccepted,
  SnapshotAnswer,
  SnapshotParams,
  SnapshotRequest,
  type SnapshotStatus,
} from "../contract/anon.ts";
import { envelope } from "../contract/common.ts";
import { escapeHtml } from "../html.ts";
import { clientAddress, clientKey } from "../http/client-address.ts";
import { ApiError, badRequest, notFound } from "../http/errors.ts";
import { LINK_PAGE_HEADERS } from "../http/headers.ts";
import { enforceLimit, type Limiter, type LimitRule } from "../http/rate-limit.ts";
import { type PageRoute, PageRoutes, type Route, route } from "../http/route.ts";
import type { Logger } from "../log.ts";
import type { Store } from "../store/store.ts";
import { parseDomainInput } from "./domain-input.ts";
import { confirmationEmail, REPORT_HOURS } from "./emails.ts";
import {
  CONFIRM_HOURS,
  cancelReport,
  confirmReport,
  confirmUrl,
  dropReport,
  getSnapshot,
  reportByConfirmToken,
  reportByUnsubscribeToken,
  requestReport,
  requestSnapshot,
} from "./jobs.ts";
import type { Mailer } from "./mail.ts";

export const ANON_PREFIX = "/public/anon";
/** How long a client should wait before polling a snapshot again. */
export const POLL_AFTER_MS = 1000;

export interface AnonDeps {
  store: Store;
  clock: Clock;
  config: Config;
  logger: Logger;
  mailer: Mailer;
  limiter: Limiter;
}

function domainOrThrow(raw: string): string {
  const parsed = parseDomainInput(raw);
  if (!parsed.ok) throw badRequest(parsed.message, [{ field: "domain", message: parsed.message }]);
  return parsed.domain;
}

/**
 * The anonymous API (spec 4.3 to 4.5): no credentials (an x-api-key header is accepted and never checked), every
 * answer limited per client: an IPv4 address or an IPv6 /64, from forwarded headers only behind a trusted proxy.
 */
export function anonRoutes({ store, clock, config, logger, mailer, limiter }: AnonDeps): Route[] {
  const rules = {
    snapshot: { name: "snapshot", points: config.limits.snapshotsPerMinute, windowSeconds: 60 },
    poll: { name: "poll", points: config.limits.pollsPerMinute, windowSeconds: 60 },
    report: { name: "report", points: config.limits.reportsPerHour, windowSeconds: 3600 },
  } satisfies Record<string, LimitRule>;
  const limit = async (c: Context, rule: LimitRule) => {
    const key = clientKey(clientAddress(c, config.trustedProxies));
    await enforceLimit(c, limiter, rule, key);
    return key;
  };

  return [
    route({
      method: "post",
      path: `${ANON_PREFIX}/domain-snapshot`,
      operationId: "requestDomainSnapshot",
      summary: "Ask for a snapshot of a domain",
      description: `Queues a snapshot and answers its id at once. The same domain asked for again within ${config.snapshot.reuseMs / 1000} s gets the same snapshot. Limited to ${config.limits.snapshotsPerMinute} requests a minute per client.`,
      tag: "Anonymous utilities",
      access: "none",
      rateLimit: "client",
      body: SnapshotRequest,
      response: { status: 202, description: "Queued (or reused)", schema: SnapshotAccepted },
      errors: [400, 413, 415, 429],
      handler: async ({ body, c }) => {
        await limit(c, rules.snapshot);
        const domain = domainOrThrow(body.domain);
        const { id, reused } = await requestSnapshot(store, domain, clock.now().getTime(), config.snapshot.reuseMs);
        return envelope(202, reused ? "Snapshot already requested" : "Snapshot queued", {
          snapshotId: id,
          pollAfterMs: POLL_AFTER_MS,
        });
      },
    }),
    route({
      method: "get",
      path: `${ANON_PREFIX}/domain-snapshot/{snapshotId}`,
      operationId: "getDomainSnapshot",
      summary: "Poll a domain snapshot",
      description: `Repeat until data.status is ready or failed. Finished snapshots are kept for 7 days. Limited to ${config.limits.pollsPerMinute} polls a minute per client.`,
      tag: "Anonymous utilities",
      access: "none",
      rateLimit: "client",
      params: SnapshotParams,
      response: {
        status: 200,
        description: "The snapshot's state, and the snapshot once ready",
        schema: SnapshotAnswer,
      },
      errors: [404, 429],
      handler: async ({ params, c }) => {
        await limit(c, rules.poll);
        const row = await getSnapshot(store, params.snapshotId);
        // Word for word what an id that could never exist gets (route.ts's pathParser).
        if (!row) throw notFound("Domain snapshot");
        const status = row.status as SnapshotStatus;
        if (status === "ready" && row.result) {
          return envelope(200, "Snapshot is ready", {
            snapshotId: row.id,
            status,
            snapshot: {
              domain: row.domain,
              updatedAt: row.finished_at ?? row.created_at,
              snapshot: JSON.parse(row.result) as DomainFacts,
            },
          });
        }
        if (status === "failed") {
          const error = row.error ?? "unknown";
          return envelope(200, `Snapshot failed: ${error}`, { snapshotId: row.id, status, error });
        }
        return envelope(200, `Snapshot is ${status}; poll again`, {
          snapshotId: row.id,
          status,
          pollAfterMs: POLL_AFTER_MS,
        });
      },
    }),
    route({
      method: "post",
      path: `${ANON_PREFIX}/domain-report-24h`,
      operationId: "requestDomainReport",
      summary: "Ask for a 24-hour report on a domain by e-mail",
      description: `Sends a confirmation e-mail (double opt-in): nothing is checked until its page's button is pressed. Then the domain is checked every ${config.reportIntervalMs / 60_000} minutes for ${REPORT_HOURS} hours and one report is sent. At most one unconfirmed request per address a day, and ${config.limits.reportsPerHour} requests an hour per client.`,
      tag: "Anonymous utilities",
      access: "none",
      rateLimit: "client",
      body: ReportRequest,
      response: { status: 202, description: "Confirmation e-mail sent", schema: ReportAccepted },
      errors: [400, 413, 415, 429, 503],
      handler: async ({ body, c }) => {
        const client = await limit(c, rules.report);
        const domain = domainOrThrow(body.domain);
        const made = await requestReport(
          store,
          { domain, email: body.email, clientKey: client },
          clock.now().getTime(),
        );
        if ("retryAfterMs" in made) {
          const seconds = Math.max(1, Math.ceil(made.retryAfterMs / 1000));
          throw new ApiError(
            429,
            "rate_limited",
            "Rate Limited",
            [{ field: "email", message: "a confirmation for this address is already waiting (one a day)" }],
            { "Retry-After": String(seconds) },
          );
        }
        const mail = confirmationEmail({
          domain,
          confirmUrl: confirmUrl(config.publicUrl, made.confirmToken),
          expiresHours: CONFIRM_HOURS,
        });
        try {
          await mailer.send({ to: body.email, ...mail });
        } catch (err) {
          await dropReport(store, made.id);
          logger.warn({ err: (err as Error).message }, "confirmation e-mail not sent");
          throw new ApiError(503, "internal", "The confirmation e-mail could not be sent; try again later");
        }
        return envelope(202, "Confirmation e-mail sent: the report starts when you confirm", {
          status: "confirmation_sent" as const,
          domain,
          confirmWithinHours: CONFIRM_HOURS,
        });
      },
    }),
  ];
}

// ---- the pages the e-mails link to ----------------------------------------------------------------------

const e = escapeHtml;

function page(c: Context, status: number, title: string, body: string): Response {
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>${e(title)}</title>
<style>body{margin:0;font:16px/1.5 system-ui,sans-serif;color-scheme:light dark;background:Canvas;color:CanvasText}main{max-width:36rem;margin:0 auto;padding:2rem 1rem}button{font:inherit;padding:.5em 1em}</style>
</head><body><main><h1>${e(title)}</h1>${body}</main></body></html>\n`;
  return c.body(html, status as 200, LINK_PAGE_HEADERS);
}

/** The token of a confirm or unsubscribe request: the query's, else a form field's. */
async function tokenOf(c: Context): Promise<string> {
  const fromQuery = c.req.query("token");
  if (fromQuery) return fromQuery;
  const type = c.req.header("content-type") ?? "";
  if (/^application\/x-www-form-urlencoded/i.test(type)) {
    const form = new URLSearchParams(await c.req.text());
    return form.get("token") ?? "";
  }
  return "";
}

const validToken = (token: string) => /^[A-Za-z0-9_-]{43}$/.test(token);

/**
 * The confirmation and unsubscribe pages. A GET only shows a button: mail scanners open links, so only the
 * button's POST confirms or cancels. The unsubscribe POST also takes RFC 8058's one-click form
 * (`List-Unsubscribe=One-Click` posted to the link itself).
 */
export function anonPages({ store, clock }: Pick<AnonDeps, "store" | "clock">): PageRoute[] {
  const pages = new PageRoutes();
  const base = `${ANON_PREFIX}/domain-report-24h`;
  const unknown = (c: Context) =>
    page(c, 404, "Link not recognised", "<p>This link is not (or no longer) valid. Ask for a new report.</p>");

  pages.get(`${base}/confirm`, async (c) => {
    const token = c.req.query("token") ?? "";
    const row = validToken(token) ? await reportByConfirmToken(store, token) : undefined;
    if (!row) return unknown(c);
    if (row.state !== "pending") {
      return page(c, 200, "Already confirmed", `<p>The 24-hour report on ${e(row.domain)} is ${e(row.state)}.</p>`);
    }
    return page(
      c,
      200,
      `Start the 24-hour report on ${row.domain}?`,
      `<p>Porchlight will check <b>${e(row.domain)}</b> for ${REPORT_HOURS} hours and then send one report to the address this link came to.</p>
<form method="post" action="${e(base)}/confirm"><input type="hidden" name="token" value="${e(token)}"><button>Start the report</button></form>`,
    );
  });

  pages.post(`${base}/confirm`, async (c) => {
    const token = await tokenOf(c);
    if (!validToken(token)) return unknown(c);
    const outcome = await confirmReport(store, token, clock.now().getTime());
    if (outcome === "unknown") return unknown(c);
    const messages = {
      confirmed: ["Confirmed", `<p>The checks have started. The report arrives in about ${REPORT_HOURS} hours.</p>`],
      already: ["Already confirmed", "<p>This report has already started.</p>"],
      expired: ["Link expired", `<p>Confirmation links work for ${CONFIRM_HOURS} hours. Ask for a new report.</p>`],
      cancelled: ["Cancelled", "<p>This report was cancelled.</p>"],
    } as const;
    const [title, body] = messages[outcome];
    return page(c, outcome === "expired" ? 410 : 200, title, body);
  });

  pages.get(`${base}/unsubscribe`, async (c) => {
    const token = c.req.query("token") ?? "";
    const row = validToken(token) ? await reportByUnsubscribeToken(store, token) : undefined;
    if (!row) return unknown(c);
    return page(
      c,
      200,
      `Stop the report on ${row.domain}?`,
      `<form method="post" action="${e(base)}/unsubscribe"><input type="hidden" name="token" value="${e(token)}"><button>Stop it</button></form>`,
    );
  });

  pages.post(`${base}/unsubscribe`, async (c) => {
    const token = await tokenOf(c);
    if (!validToken(token)) return unknown(c);
    const outcome = await cancelReport(store, token);
    if (outcome === "unknown") return unknown(c);
    return page(
      c,
      200,
      outcome === "sent" ? "Nothing more to stop" : "Stopped",
      "<p>This was a one-time report: nothing more will be sent.</p>",
    );
  });
  return pages.routes;
}

/** CORS for the anonymous API: any origin, no credentials; the preflight allows POST with JSON. */
export const anonCors: MiddlewareHandler = async (c, next) => {
  if (c.req.method === "OPTIONS") {
    return c.body(null, 204, {
      "access-control-allow-origin": "*",
      "access-control-allow-methods": "GET, POST, OPTIONS",
      "access-control-allow-headers": "Content-Type, X-Api-Key",
      "access-control-max-age": "86400",
    });
  }
  await next();
  c.res.headers.set("access-control-allow-origin", "*");
  c.res.headers.set("access-control-expose-headers", "Retry-After, RateLimit, RateLimit-Policy, X-Request-Id");
};
