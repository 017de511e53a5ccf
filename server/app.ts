import type { IncomingMessage, ServerResponse } from "node:http";
import { getRequestListener } from "@hono/node-server";
import { Hono, type MiddlewareHandler } from "hono";
import { SecretBox } from "./accounts/sealed.ts";
import type { DeliveryDeps } from "./alerts/deliver.ts";
import { createMailer, type Mailer } from "./anon/mail.ts";
import { anonCors, anonPages, anonRoutes } from "./anon/routes.ts";
import { alertChannelRoutes } from "./api/alert-channels.ts";
import { alertRuleRoutes } from "./api/alert-rules.ts";
import { BadgePages, badgeRoutes } from "./api/badges.ts";
import { docsPages } from "./api/docs.ts";
import { embedPages } from "./api/embed.ts";
import { groupRoutes } from "./api/groups.ts";
import { healthRoutes } from "./api/health.ts";
import { assetPages, ImageCache } from "./api/images.ts";
import { importRoutes } from "./api/imports.ts";
import { incidentRoutes } from "./api/incidents.ts";
import { itemRoutes } from "./api/items.ts";
import { maintenanceRoutes } from "./api/maintenance.ts";
import { memberRoutes } from "./api/members.ts";
import { publicPageRoutes } from "./api/public-pages.ts";
import { PushInbox, pushRoutes } from "./api/push.ts";
import { sessionRoutes } from "./api/session.ts";
import { siteRoutes } from "./api/sites.ts";
import { statusPageRoutes } from "./api/status-pages.ts";
import { statuspageRoutes } from "./api/statuspage.ts";
import { subscriptions } from "./api/subscribers.ts";
import { type Clock, systemClock } from "./clock.ts";
import type { Config } from "./config.ts";
import { publicReadFastPath, siteDetailFastPath } from "./http/fast-path.ts";
import {
  bodyLimitOf,
  FastPathCounts,
  guardBody,
  header,
  logRequest,
  PUBLIC_CORS_PREFLIGHT,
  requestIdFrom,
} from "./http/headers.ts";
import { type EngineProbe, Metrics, metricsPages } from "./http/metrics.ts";
import { answerErrors, limitBodies, mountPages, mountRoutes } from "./http/mount.ts";
import { openApiDocument, openApiPages } from "./http/openapi.ts";
import type { PasswordCheckDeps } from "./http/page-access.ts";
import { createMemoryLimiter, type Limiter, type LimitRule } from "./http/rate-limit.ts";
import type { AppEnv, Route } from "./http/route.ts";
import type { Logger } from "./log.ts";
import { dashboardPages } from "./pages/dashboard.ts";
import { hostedPages } from "./pages/hosted-pages.ts";
import { LandingPage, landingPages } from "./pages/landing.ts";
import { subscriptionPages } from "./pages/subscriptions.ts";
import type { Store } from "./store/store.ts";
import { PUBLIC_CORS } from "./views/headers.ts";
import { PageViews } from "./views/page-views.ts";
import { ReadModel } from "./views/read-model.ts";
import type { SiteRecord } from "./views/site-detail.ts";

/** The largest JSON body any route accepts (an image upload has a limit of its own: bodyLimitOf). */
export { MAX_BODY_BYTES } from "./http/headers.ts";

export interface AppDeps {
  store: Store;
  config: Config;
  logger: Logger;
  clock?: Clock;
  /**
   * Parse every response against its route's schema before sending it. Tests turn this on so a handler that
   * drifts from the contract fails loudly; production leaves it off, because the tests already prove the
   * contract and the check costs a site read about a fifth of its time.
   */
  checkResponses?: boolean;
  /** Where the built element lives (default: dist/embed beside the code). */
  embedDir?: string;
  /** Where the built dashboard lives (default: dist/dashboard beside the code). */
  dashboardDir?: string;
  /** Mail out (default: SMTP_URL, else .eml files in the data directory). */
  mailer?: Mailer;
  /** How alerts reach receivers beyond the configuration: tests' certificate authority. */
  alertPolicy?: DeliveryDeps["policy"];
  /** The rate limiter (default: counters in this process's memory; main.ts passes PostgreSQL's when configured). */
  limiter?: Limiter;
  /** How status-page passwords are checked (default scrypt, on the real clock); tests count the hashes. */
  passwordChecks?: PasswordCheckDeps;
  /**
   * The engine running in this process, if any: /readyz fails when it stops claiming work, and /metrics counts its
   * checks. An API-only process (PORCHLIGHT_ENGINE=off) has none and skips both.
   */
  engine?: EngineProbe;
}

/**
 * CORS for the public reads, open to any origin without credentials. Headers are added after the handler, so its
 * response keeps node-server's fast path (hono/cors touches c.res first, which makes Hono re-wrap every body as a
 * stream).
 */
const publicCors: MiddlewareHandler = async (c, next) => {
  if (c.req.method === "OPTIONS") return c.body(null, 204, PUBLIC_CORS_PREFLIGHT);
  await next();
  for (const [name, value] of Object.entries(PUBLIC_CORS)) c.res.headers.set(name, value);
};

/**
 * Builds the whole HTTP application from explicit dependencies. Nothing here listens or reads the environment:
 * tests call `app.request()`; main.ts serves `listener`, which is the app behind the fast paths that answer hot
 * reads (public status pages, site details) from memory when everything they need is already there.
 */
export function createApp({
  store,
  config,
  logger,
  clock = systemClock,
  checkResponses = false,
  embedDir,
  dashboardDir,
  ...deps
}: AppDeps) {
  const mailer =
    deps.mailer ?? createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom, dataDir: config.dataDir, logger });
  const limiter = deps.limiter ?? createMemoryLimiter();
  /** The authenticated API's own limit, per token (spec 1.5: higher than the anonymous ones). */
  const apiRule: LimitRule = { name: "api", points: config.limits.apiPerMinute, windowSeconds: 60 };
  const views = new PageViews(store, clock, config.viewTtlSeconds * 1000);
  const records = new ReadModel<SiteRecord>(clock, config.viewTtlSeconds * 1000);
  const badgePages = new BadgePages(store, views, clock, config.viewTtlSeconds * 1000);
  const metrics = new Metrics(deps.engine);
  const landing = new LandingPage(store, clock, config.viewTtlSeconds * 1000, config.landingPages);
  const images = new ImageCache(clock, config.viewTtlSeconds * 1000);
  const changed = () => {
    images.invalidate();
    views.invalidate();
    records.invalidate();
    badgePages.invalidate();
    landing.invalidate();
  };
  const secrets = new SecretBox(config.secretKey, config.dataDir);
  const pushInbox = new PushInbox(store, clock, changed, logger);
  const subscribers = subscriptions({
    store,
    clock,
    views,
    config,
    limiter,
    passwordChecks: deps.passwordChecks,
    token: (nonce) => secrets.token(nonce),
    seal: (plain) => secrets.seal(plain),
    locale: config.pageLocale,
  });
  const routes: Route[] = [
    ...sessionRoutes({ store, clock, config, limiter, mailer, secrets, logger }),
    ...memberRoutes({ store, clock, publicUrl: config.publicUrl, mailer, logger }),
    ...healthRoutes({ store, engine: deps.engine }),
    ...siteRoutes({
      store,
      clock,
      records,
      changed,
      allowPrivate: config.allowPrivateTargets,
      publicUrl: config.publicUrl,
      pushInbox,
      secrets,
    }),
    ...pushRoutes({ inbox: pushInbox, clock, trustedProxies: config.trustedProxies }),
    ...statusPageRoutes({ store, clock, publicUrl: config.publicUrl, changed }),
    ...itemRoutes({ store, clock, changed }),
    ...importRoutes({ store, clock, secrets, publicUrl: config.publicUrl, changed }),
    ...groupRoutes({ store, clock, changed }),
    ...incidentRoutes({ store, clock, changed }),
    ...alertChannelRoutes({
      store,
      clock,
      secrets,
      delivery: {
        mailer,
        allowPrivate: config.allowPrivateTargets,
        ...(deps.alertPolicy ? { policy: deps.alertPolicy } : {}),
      },
      providers: { apis: config.alertApis },
    }),
    ...alertRuleRoutes({ store, clock }),
    ...maintenanceRoutes({ store, clock, changed }),
    ...publicPageRoutes({ store, clock, views, config, limiter, passwordChecks: deps.passwordChecks }),
    ...statuspageRoutes({ store, views, publicUrl: config.publicUrl }),
    ...badgeRoutes({ pages: badgePages, clock }),
    ...anonRoutes({ store, clock, config, logger, mailer, limiter }),
    ...subscribers.routes,
  ];
  const document = JSON.stringify(openApiDocument(routes, config.publicUrl));

  const app = new Hono<AppEnv>();
  app.use(async (c, next) => {
    const started = performance.now();
    const id = requestIdFrom(header(c, "x-request-id"));
    c.set("requestId", id);
    c.header("x-request-id", id);
    // Every answer, errors included: a browser must never take JSON or an error for a script or a page.
    c.header("x-content-type-options", "nosniff");
    await next();
    const ms = Math.round((performance.now() - started) * 10) / 10;
    logRequest(logger, { requestId: id, method: c.req.method, path: c.req.path, status: c.res.status, ms });
    metrics.request(metrics.routeOf(c), c.req.method, c.res.status, ms / 1000);
  });
  app.use("/public/v1/status-page/*", publicCors);
  app.use("/api/status-page/*", publicCors);
  app.use("/public/v1/openapi.json", publicCors);
  app.use("/badge/*", publicCors);
  for (const path of [
    "/public/anon/domain-snapshot",
    "/public/anon/domain-snapshot/*",
    "/public/anon/domain-report-24h",
  ]) {
    app.use(path, anonCors);
  }
  limitBodies(app);

  // Pages, files and redirects for people, before and after the API's routes: in this order, as patterns overlap
  // (a hosted page's /:slug must not take /docs, /metrics, /dashboard or /status).
  mountPages(app, [
    ...embedPages(embedDir),
    ...assetPages(store, images),
    ...docsPages({ publicUrl: config.publicUrl }),
    ...metricsPages({ metrics, token: config.metricsToken }),
    ...openApiPages(document),
  ]);
  mountRoutes(app, routes, { store, clock, publicUrl: config.publicUrl, limiter, apiRule, checkResponses });
  mountPages(app, [
    ...anonPages({ store, clock }),
    ...subscriptionPages({ store, clock, token: (nonce) => secrets.token(nonce) }),
    ...subscribers.pages(),
    ...dashboardPages({
      dir: dashboardDir,
      publicUrl: config.publicUrl,
      isCustomDomain: async (host) => (await store.views.slugForDomain(host)) !== undefined,
    }),
    // A reserved slug (status), so before the hosted pages' /:slug.
    ...landingPages(landing),
    // After the API's routes and the dashboard, so that none of them can be taken for a slug.
    ...hostedPages({
      store,
      views,
      clock,
      publicUrl: config.publicUrl,
      embedDir,
      locale: config.pageLocale,
    }),
    // The server's own address goes to the dashboard (which signs in first); a custom domain's root is its page, above.
    { method: "get", path: "/", handler: (c) => c.redirect("/dashboard/", 302) },
  ]);

  answerErrors(app, logger);
  const counts = new FastPathCounts();
  const fastPaths = [
    publicReadFastPath(views, logger, counts, metrics.request, config.publicUrl),
    siteDetailFastPath({ store, records, clock, logger, counts, limiter, apiRule, observe: metrics.request }),
  ];
  const fastPath = (req: IncomingMessage, res: ServerResponse) => fastPaths.some((serve) => serve(req, res));
  const appListener = getRequestListener(app.fetch);
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    if (!fastPath(req, res)) guardBody(req, res, bodyLimitOf, () => void appListener(req, res));
  };
  /**
   * What the engine calls after writing: the sites' records rebuild on their next read; status pages rebuild at
   * once when a state or an incident changed, and otherwise within PORCHLIGHT_VIEW_TTL_SECONDS (check times and
   * response times), so that a busy engine does not rebuild every page several times a second.
   */
  const recorded = (summary: { sites: string[]; pagesChanged: boolean }) => {
    const ids = new Set(summary.sites);
    records.drop((key) => ids.has(key.slice(0, key.indexOf("|"))));
    if (summary.pagesChanged) views.invalidate();
  };
  return { app, listener, fastPath, fastPathCounts: counts, recorded, mailer, routes, pushInbox };
}
