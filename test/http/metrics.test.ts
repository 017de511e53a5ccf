import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, test } from "vitest";
import { loadConfig } from "../../server/config.ts";
import type { Engine } from "../../server/engine/engine.ts";
import { routeLabel } from "../../server/http/metrics.ts";
import type { Store } from "../../server/store/store.ts";
import { appWithEngine, localTargets } from "../api/with-engine.ts";
import { client, describeStores, makeApp, seedOwner, TestClock, useStore } from "../helpers.ts";

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/**
 * Parses the Prometheus text format strictly: every line is a HELP, a TYPE, a sample or empty (between families),
 * and every sample belongs to a family whose HELP and TYPE came before it.
 */
function parse(text: string): { samples: Sample[]; types: Map<string, string> } {
  const help = new Set<string>();
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  expect(text.endsWith("\n")).toBe(true);
  for (const line of text.slice(0, -1).split("\n")) {
    if (line === "") continue;
    const comment = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.+)$/.exec(line);
    if (comment) {
      if (comment[1] === "HELP") help.add(comment[2] as string);
      else {
        expect(["counter", "gauge", "histogram", "summary", "untyped"], line).toContain(comment[3]);
        types.set(comment[2] as string, comment[3] as string);
      }
      continue;
    }
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    expect(match, `a sample line: ${line}`).not.toBeNull();
    const [, name, rawLabels = "", rawValue] = match as unknown as [string, string, string | undefined, string];
    const labels: Record<string, string> = {};
    for (const [, key, value] of rawLabels.matchAll(/([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)",?/g)) {
      labels[key as string] = value as string;
    }
    // Prometheus reads NaN and Inf in any case (prom-client writes an event-loop mean without samples as Nan).
    const value = /^[+-]?inf$/i.test(rawValue)
      ? Number(`${rawValue.startsWith("-") ? "-" : ""}Infinity`)
      : /^nan$/i.test(rawValue)
        ? Number.NaN
        : Number(rawValue);
    expect(Number.isNaN(value) && !/^nan$/i.test(rawValue), line).toBe(false);
    const family = types.has(name) ? name : name.replace(/_(bucket|sum|count)$/, "");
    expect(types.has(family), `TYPE of ${name}`).toBe(true);
    expect(help.has(family), `HELP of ${name}`).toBe(true);
    samples.push({ name, labels, value });
  }
  return { samples, types };
}

/** The value of the one sample with this name and these labels (0 when there is none). */
function value(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  const found = samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([key, v]) => s.labels[key] === v),
  );
  return found.reduce((sum, s) => sum + s.value, 0);
}

let targets: Awaited<ReturnType<typeof localTargets>>;
beforeAll(async () => {
  targets = await localTargets();
});
afterAll(() => targets.close());

test("a route's label is its pattern without the parameters' expressions", () => {
  expect(routeLabel("/public/v1/status-page/:slug")).toBe("/public/v1/status-page/:slug");
  expect(routeLabel("/:slug{[a-z0-9](?:[a-z0-9-]*[a-z0-9])?}/:file{(?:feed|atom)\\.xml|status\\.json}")).toBe(
    "/:slug/:file",
  );
});

test("PORCHLIGHT_METRICS_TOKEN: at least 16 characters, and never shown, not even when it is refused", () => {
  expect(() => loadConfig({ PORCHLIGHT_METRICS_TOKEN: "short-secret" })).toThrow(
    'PORCHLIGHT_METRICS_TOKEN="***": must be at least 16 characters',
  );
  expect(loadConfig({ PORCHLIGHT_METRICS_TOKEN: "sixteen-chars-ok" }).metricsToken).toBe("sixteen-chars-ok");
  expect(loadConfig({}).metricsToken).toBeUndefined();
});

describeStores("GET /metrics", (kind) => {
  let store: Store;
  let clock: TestClock;
  let made: ReturnType<typeof appWithEngine>;
  let engine: Engine;
  let api: ReturnType<typeof client>;
  let server: Server | undefined;

  useStore(kind, { each: true }, async (opened) => {
    ({ store } = opened);
    clock = new TestClock();
    made = appWithEngine(store, clock);
    engine = made.engine;
    api = client(made.app, (await seedOwner(store)).token);
    return async () => {
      server?.close();
      server = undefined;
      await engine.stop();
    };
  });

  const scrape = async (app = made.app, headers: Record<string, string> = {}) => {
    const res = await app.request("/metrics", { headers });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("cache-control")).toBe("no-store");
    const text = await res.text();
    return { text, ...parse(text) };
  };

  test("the text format: every sample has its HELP and TYPE; process, HTTP, check and engine families", async () => {
    const { types } = await scrape();
    expect(types.get("process_cpu_user_seconds_total")).toBe("counter");
    expect(types.get("nodejs_heap_size_used_bytes")).toBe("gauge");
    expect(types.get("porchlight_http_requests_total")).toBe("counter");
    expect(types.get("porchlight_http_request_duration_seconds")).toBe("histogram");
    expect(types.get("porchlight_checks_total")).toBe("counter");
    expect(types.get("porchlight_check_duration_seconds")).toBe("histogram");
    expect(types.get("porchlight_engine_claim_lag_seconds")).toBe("histogram");
    expect(types.get("porchlight_engine_seconds_since_claim")).toBe("gauge");
    expect(types.get("porchlight_engine_claiming")).toBe("gauge");
  });

  test("checks by result and region, their durations and the claim lag move after an engine round", async () => {
    for (const [name, url] of [
      ["up", targets.ok],
      ["down", targets.fail],
      ["error", targets.refused],
    ] as const) {
      const res = await api.post("/public/v1/sites", { url, name, checkInterval: 60, timeout: 5 });
      expect(res.status).toBe(201);
    }
    const before = (await scrape()).samples;
    expect(value(before, "porchlight_checks_total")).toBe(0);
    expect(value(before, "porchlight_engine_claiming", { region: "local" })).toBe(0);

    // New sites are due within 3 seconds.
    clock.advance(3000);
    await engine.runOnce();
    const { samples, text } = await scrape();
    for (const result of ["up", "down", "error"]) {
      expect(value(samples, "porchlight_checks_total", { result, region: "local" }), result).toBe(1);
      expect(value(samples, "porchlight_check_duration_seconds_count", { result, region: "local" }), result).toBe(1);
    }
    expect(value(samples, "porchlight_engine_claim_lag_seconds_count", { region: "local" })).toBe(3);
    expect(value(samples, "porchlight_engine_claiming", { region: "local" })).toBe(1);
    expect(value(samples, "porchlight_engine_seconds_since_claim", { region: "local" })).toBe(0);
    // No label names a site: not its address, not its id.
    expect(text).not.toContain("127.0.0.1");
    const sites = (await api.get("/public/v1/sites")).json.data.sites as { id: string }[];
    for (const site of sites) expect(text).not.toContain(site.id);

    clock.advance(60_000);
    await engine.runOnce();
    expect(value((await scrape()).samples, "porchlight_checks_total", { result: "up", region: "local" })).toBe(2);
  });

  test("HTTP answers count by route pattern and status, never by the path asked for; the fast path counts alike", async () => {
    const slug = `metrics-${kind.name}`;
    const page = (await api.post("/public/v1/status-pages", { name: "Metrics page", slug })).json.data;
    const site = (await api.post("/public/v1/sites", { url: targets.ok, name: "S" })).json.data;
    await api.post(`/public/v1/status-pages/${page.id}/items`, { siteId: site.id });
    await api.get(`/public/v1/site/${site.id}`);
    await made.app.request(`/badge/${slug}/status.svg`);
    await made.app.request("/badge/no-such-page/status.svg");
    await made.app.request("/no/such/route/route-x7q-secret");
    await made.app.request(`/badge/${slug}/status.svg`, { method: "OPTIONS" });

    // The status page once through the app, and once through node:http, where the fast path answers it from memory.
    expect((await made.app.request(`/public/v1/status-page/${slug}`)).status).toBe(200);
    server = createServer(made.listener);
    await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    expect((await fetch(`${base}/public/v1/status-page/${slug}`)).status).toBe(200);
    expect(made.fastPathCounts.take()).toEqual({ "status page 200": 1 });

    const { samples, text } = await scrape();
    const requests = (route: string, status: string, method = "GET") =>
      value(samples, "porchlight_http_requests_total", { route, status, method });
    expect(requests("/public/v1/status-page/:slug", "200")).toBe(2);
    expect(requests("/public/v1/status-pages", "201", "POST")).toBe(1);
    expect(requests("/public/v1/site/:siteId", "200")).toBe(1);
    expect(requests("/badge/:slug/status.svg", "200")).toBe(1);
    expect(requests("/badge/:slug/status.svg", "404")).toBe(1);
    expect(requests("(unmatched)", "404")).toBe(1);
    expect(requests("/badge/*", "204", "OPTIONS")).toBe(1);
    expect(value(samples, "porchlight_http_request_duration_seconds_count", { route: "/public/v1/site/:siteId" })).toBe(
      1,
    );
    for (const secret of [slug, site.id, "no-such-page", "route-x7q-secret", "Metrics page"]) {
      expect(text).not.toContain(secret);
    }
    // A scrape counts itself once it is answered.
    expect(value((await scrape()).samples, "porchlight_http_requests_total", { route: "/metrics" })).toBe(1);
  });

  test("with PORCHLIGHT_METRICS_TOKEN: 401 without it or with a wrong one, the metrics with it", async () => {
    const token = "a-metrics-token-of-some-length";
    const { app } = makeApp(store, { env: { PORCHLIGHT_METRICS_TOKEN: token } });
    for (const authorization of [
      undefined,
      "Bearer wrong-token-of-some-length",
      `Basic ${token}`,
      `Bearer ${token}x`,
    ]) {
      const res = await app.request("/metrics", { headers: authorization ? { authorization } : {} });
      expect(res.status, authorization).toBe(401);
      expect(res.headers.get("www-authenticate")).toContain("Bearer");
      expect(await res.json()).toMatchObject({ success: false, code: 401, error: "unauthorized" });
    }
    const { types } = await scrape(app, { authorization: `Bearer ${token}` });
    expect(types.get("porchlight_http_requests_total")).toBe("counter");
  });

  test("an app without an engine declares the check families but has no engine gauges", async () => {
    const { app } = makeApp(store);
    const { types, samples } = await scrape(app);
    expect(types.get("porchlight_checks_total")).toBe("counter");
    expect(types.has("porchlight_engine_claiming")).toBe(false);
    expect(value(samples, "porchlight_checks_total")).toBe(0);
  });
});
