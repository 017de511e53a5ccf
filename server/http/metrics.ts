import { createHash, timingSafeEqual } from "node:crypto";
import type { Context } from "hono";
import { matchedRoutes } from "hono/route";
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type { CheckObservation, EngineHealth } from "../engine/engine.ts";
import { unauthorized } from "./errors.ts";
import { header } from "./headers.ts";
import { type PageRoute, PageRoutes } from "./route.ts";

/** What the app reads from an engine running in the same process (Engine implements it). */
export interface EngineProbe {
  health(): EngineHealth;
  observeChecks(listener: (observation: CheckObservation) => void): () => void;
}

/** Counts one HTTP answer: `route` is the route's pattern (see routeLabel), never the path that was asked for. */
export type RequestObserver = (route: string, method: string, status: number, seconds: number) => void;

/** The label of a request that matched no route. */
export const UNMATCHED = "(unmatched)";

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);
const REQUEST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Up to the longest timeout a site may have (120 s). */
const CHECK_BUCKETS = [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120];
/** From the claim poll's own 200 ms to minutes behind. */
const LAG_BUCKETS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

let processRegistry: Registry | undefined;

/**
 * The process's own figures (CPU, memory, event loop, GC, handles), registered once per process: they describe the
 * process, whichever app reports them, and each registration leaves a GC observer and an event-loop monitor running
 * for good, so one per createApp would pile up wherever apps are made many times (the tests).
 */
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/**
 * The Prometheus metrics of one app, in a registry of its own (never prom-client's global one, so that any number
 * of apps can live in one process). No label carries a path, site, page, slug, id or secret: routes are patterns,
 * regions and results come from short fixed sets.
 */
export class Metrics {
  private readonly registry = new Registry();
  private readonly requests = new Counter({
    name: "porchlight_http_requests_total",
    help: "HTTP answers by route pattern, method and status, those answered from memory before the framework included",
    labelNames: ["route", "method", "status"] as const,
    registers: [this.registry],
  });
  private readonly requestSeconds = new Histogram({
    name: "porchlight_http_request_duration_seconds",
    help: "Time to answer an HTTP request, by route pattern and method",
    labelNames: ["route", "method"] as const,
    buckets: REQUEST_BUCKETS,
    registers: [this.registry],
  });
  private readonly checks = new Counter({
    name: "porchlight_checks_total",
    help: "Checks this process's engine finished, by result (up, down: an answer judged down, error: no answer) and region",
    labelNames: ["result", "region"] as const,
    registers: [this.registry],
  });
  private readonly checkSeconds = new Histogram({
    name: "porchlight_check_duration_seconds",
    help: "Time of a whole check (DNS, connect, TLS, redirects, body), by result and region",
    labelNames: ["result", "region"] as const,
    buckets: CHECK_BUCKETS,
    registers: [this.registry],
  });
  private readonly claimLag = new Histogram({
    name: "porchlight_engine_claim_lag_seconds",
    help: "How late the engine claimed due checks: claim time minus due time, by region",
    labelNames: ["region"] as const,
    buckets: LAG_BUCKETS,
    registers: [this.registry],
  });
  /** Children by label values: prom-client hashes the labels on every call otherwise, and the fast paths are hot. */
  private readonly children = new Map<string, { count: { inc(): void }; time: { observe(v: number): void } }>();
  private readonly labels = new Map<string, string>();

  constructor(engine?: EngineProbe) {
    if (!engine) return;
    engine.observeChecks((o) => {
      this.checks.labels(o.result, o.region).inc();
      this.checkSeconds.labels(o.result, o.region).observe(o.seconds);
      this.claimLag.labels(o.region).observe(o.lagSeconds);
    });
    new Gauge({
      name: "porchlight_engine_seconds_since_claim",
      help: "Seconds since the engine last finished a claim round (since it started, before the first); /readyz fails past its stall limit",
      labelNames: ["region"] as const,
      registers: [this.registry],
      collect() {
        const health = engine.health();
        if (health.secondsSinceClaim !== null) this.set({ region: health.region }, health.secondsSinceClaim);
      },
    });
    new Gauge({
      name: "porchlight_engine_claiming",
      help: "1 while the engine claims work as /readyz judges it, 0 when it has stopped or stalled",
      labelNames: ["region"] as const,
      registers: [this.registry],
      collect() {
        const health = engine.health();
        this.set({ region: health.region }, health.claiming ? 1 : 0);
      },
    });
    new Gauge({
      name: "porchlight_engine_checks_running",
      help: "Checks the engine is running now",
      labelNames: ["region"] as const,
      registers: [this.registry],
      collect() {
        const health = engine.health();
        this.set({ region: health.region }, health.checksRunning);
      },
    });
  }

  readonly request: RequestObserver = (route, method, status, seconds) => {
    const verb = METHODS.has(method) ? method : "OTHER";
    const key = `${route} ${verb} ${status}`;
    let child = this.children.get(key);
    if (!child) {
      child = {
        count: this.requests.labels(route, verb, String(status)),
        time: this.requestSeconds.labels(route, verb),
      };
      this.children.set(key, child);
    }
    child.count.inc();
    child.time.observe(seconds);
  };

  /**
   * The route pattern a request was answered by, as its label (see routeLabel). The route dispatched last answered,
   * unless it is middleware (app.use registers it for ALL methods) that answered before a route, as the body limit
   * does: then that route. Middleware that answers alone (a CORS preflight) is its own pattern; a 404 that no route
   * matched is UNMATCHED.
   */
  routeOf(c: Context): string {
    const matched = matchedRoutes(c);
    const index = c.req.routeIndex;
    let route = matched.slice(index).find((r) => r.method !== "ALL");
    if (!route && c.res.status !== 404) route = matched[index];
    if (!route) return UNMATCHED;
    let label = this.labels.get(route.path);
    if (label === undefined) {
      label = routeLabel(route.path);
      this.labels.set(route.path, label);
    }
    return label;
  }

  readonly contentType = Registry.PROMETHEUS_CONTENT_TYPE;

  /** The text exposition: the process's figures, then the app's. */
  async text(): Promise<string> {
    return (await processMetrics().metrics()) + (await this.registry.metrics());
  }
}

/**
 * A route's pattern without its parameters' regular expressions: `/:slug{[a-z0-9]+}/:file{feed\.xml}` becomes
 * `/:slug/:file`, as the route table's `/public/v1/status-page/{slug}` is registered `/public/v1/status-page/:slug`.
 */
export function routeLabel(path: string): string {
  let out = "";
  let depth = 0;
  for (const ch of path) {
    if (ch === "{") depth++;
    else if (ch === "}") depth = Math.max(0, depth - 1);
    else if (depth === 0) out += ch;
  }
  return out;
}

const digest = (value: string) => createHash("sha256").update(value).digest();

/**
 * GET /metrics in Prometheus's text format. Open when `token` is undefined, as Prometheus exporters usually are;
 * otherwise only with `Authorization: Bearer <token>` (compared in constant time), 401 without it.
 */
export function metricsPages({ metrics, token }: { metrics: Metrics; token: string | undefined }): PageRoute[] {
  const pages = new PageRoutes();
  const expected = token === undefined ? undefined : digest(token);
  pages.get("/metrics", async (c) => {
    if (expected) {
      const sent = /^Bearer[ ]+(\S+)\s*$/i.exec(header(c, "authorization") ?? "")?.[1];
      if (sent === undefined || !timingSafeEqual(digest(sent), expected)) {
        throw unauthorized("This server's metrics need its PORCHLIGHT_METRICS_TOKEN as a bearer token");
      }
    }
    return c.body(await metrics.text(), 200, { "content-type": metrics.contentType, "cache-control": "no-store" });
  });
  return pages.routes;
}
