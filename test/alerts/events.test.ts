import { describe, expect, test } from "vitest";
import { DELIVERY_WINDOW_MS, retryDelayMs } from "../../server/alerts/backoff.ts";
import type { Provider } from "../../server/alerts/outbound.ts";
import { PROVIDERS } from "../../server/alerts/providers/index.ts";
import { AlertEvent, type ChannelType, duration } from "../../server/contract/alerts.ts";
import { type AlertIntent, alertWrites } from "../../server/engine/alert-writes.ts";
import type { AlertRoute } from "../../server/store/alerts.ts";

const NOW = "2026-11-21T12:00:00.000Z";
const route = (overrides: Partial<AlertRoute> = {}): AlertRoute => ({
  workspaceId: "w",
  site: { id: "s1", name: "Shop", url: "https://shop.test" },
  channels: ["ch_a", "ch_b"],
  events: { down: true, recovered: true, degraded: false, certificate: true, domain: true, performance: true },
  ...overrides,
});
let n = 0;
const ids = () => `id${++n}`;

describe("alertWrites: one delivery per event and enabled channel, by the site's rule", () => {
  test("down goes to every channel of the rule: one event id for all, a delivery id each, valid against the contract", () => {
    const intents: AlertIntent[] = [{ siteId: "s1", type: "site.down", reason: "HTTP 503", downSince: NOW }];
    const rows = alertWrites(intents, new Map([["s1", route()]]), NOW, ids);
    expect(rows.map((r) => r.channelId)).toEqual(["ch_a", "ch_b"]);
    expect(new Set(rows.map((r) => r.deliveryId)).size).toBe(2);
    const events = rows.map((row) => AlertEvent.parse(row.event));
    // A receiver on both channels de-duplicates by the event's id.
    expect(new Set(events.map((e) => e.id)).size).toBe(1);
    for (const row of rows) {
      const event = AlertEvent.parse(row.event);
      expect(event.id).toMatch(/^evt_/);
      expect(event).toMatchObject({
        deliveryId: row.deliveryId,
        type: "site.down",
        summary: "Shop is down.",
        reason: "HTTP 503",
      });
      expect(row).toMatchObject({ at: NOW });
    }
  });

  test("recovered says how long; an event the rule leaves out, or a site without a route, writes nothing", () => {
    const since = "2026-11-21T09:55:00.000Z";
    const [row] = alertWrites(
      [{ siteId: "s1", type: "site.recovered", reason: null, downSince: since }],
      new Map([["s1", route({ channels: ["ch_a"] })]]),
      NOW,
      ids,
    );
    expect(row?.event).toMatchObject({
      downtimeSeconds: 7500,
      summary: "Shop is back up after 2 h 5 min.",
      reason: null,
    });
    expect(
      alertWrites(
        [{ siteId: "s1", type: "site.degraded", reason: "slow", downSince: null }],
        new Map([["s1", route()]]),
        NOW,
        ids,
      ),
    ).toEqual([]);
    expect(
      alertWrites(
        [{ siteId: "s2", type: "site.down", reason: null, downSince: NOW }],
        new Map([["s1", route()]]),
        NOW,
        ids,
      ),
    ).toEqual([]);
    expect(
      alertWrites(
        [{ siteId: "s1", type: "site.down", reason: null, downSince: NOW }],
        new Map([["s1", route({ channels: [] })]]),
        NOW,
        ids,
      ),
    ).toEqual([]);
  });
});

describe("alertWrites: expiry reminders and renewals in words, by the rule's certificate and domain switches", () => {
  test("expiring and renewed say when; a rule that turns certificates off sends none", () => {
    const expiry = { expiresAt: "2026-11-28T13:00:00.000Z", daysLeft: 7 };
    const [expiring] = alertWrites(
      [{ siteId: "s1", type: "certificate.expiring", reason: "Test CA", downSince: null, expiry }],
      new Map([["s1", route({ channels: ["ch_a"] })]]),
      NOW,
      ids,
    );
    expect(AlertEvent.parse(expiring?.event)).toMatchObject({
      type: "certificate.expiring",
      summary: "The certificate of Shop expires in 7 days (2026-11-28).",
      expiry,
    });
    const [renewed] = alertWrites(
      [
        {
          siteId: "s1",
          type: "domain.renewed",
          reason: "shop.test",
          downSince: null,
          expiry: { ...expiry, daysLeft: 365 },
        },
      ],
      new Map([["s1", route({ channels: ["ch_a"] })]]),
      NOW,
      ids,
    );
    expect(renewed?.event.summary).toBe("The domain of Shop was renewed: it expires on 2026-11-28.");
    const off = route({
      events: { down: true, recovered: true, degraded: false, certificate: false, domain: true, performance: true },
    });
    expect(
      alertWrites(
        [{ siteId: "s1", type: "certificate.expiring", reason: null, downSince: null, expiry }],
        new Map([["s1", off]]),
        NOW,
        ids,
      ),
    ).toEqual([]);
  });
});

describe("retryDelayMs: 30 s doubling to an hour, ±20 % jitter", () => {
  test("the steps, the cap, and the jitter's bounds", () => {
    expect([1, 2, 3, 4, 7, 8, 50].map((a) => retryDelayMs(a, 0.5))).toEqual([
      30_000, 60_000, 120_000, 240_000, 1_920_000, 3_600_000, 3_600_000,
    ]);
    expect(retryDelayMs(1, 0)).toBe(24_000);
    expect(retryDelayMs(1, 0.999_999)).toBe(36_000);
    // About 30 attempts fit the window: bounded, not thousands.
    let at = 0;
    let attempts = 0;
    while (at < DELIVERY_WINDOW_MS) at += retryDelayMs(++attempts, 0.5);
    expect(attempts).toBeGreaterThan(20);
    expect(attempts).toBeLessThan(40);
  });
});

describe("flapping events (issue 27): heard where down is, told by every provider, PagerDuty's alert kept in step", () => {
  const since = "2026-11-21T11:30:00.000Z";
  const flapping = (state: "up" | "down"): AlertIntent => ({
    siteId: "s1",
    type: state === "down" ? "site.flapping" : "site.flapping_ended",
    reason: state === "down" ? "HTTP 500" : null,
    downSince: state === "down" ? NOW : null,
    flapping: { outages: state === "down" ? 3 : 15, since, state, spanSeconds: state === "down" ? 240 : 1740 },
  });
  /** The same intent, ending in another state. */
  const endingIn = (state: "up" | "down", intent = flapping("up")): AlertIntent => ({
    ...intent,
    flapping: { outages: 15, since, spanSeconds: 1740, state },
  });
  const eventOf = (intent: AlertIntent) =>
    AlertEvent.parse(alertWrites([intent], new Map([["s1", route()]]), NOW, ids)[0]?.event);
  const config = {
    email: { to: ["a@example.com"] },
    webhook: { url: "https://hooks.example.com/x", secret: "0123456789abcdef0123" },
    slack: { url: "https://hooks.slack.com/services/T0/B0/x" },
    discord: { url: "https://discord.com/api/webhooks/1/x" },
    teams: { url: "https://teams.example.com/x" },
    telegram: { botToken: "123456:ABCDEFGHIJKLMNOPQRSTUVWXYZ", chatId: "-100123" },
    ntfy: { url: "https://ntfy.sh/topic" },
    pagerduty: { routingKey: "0123456789abcdef0123456789abcdef" },
  } as const;
  const context = {
    apis: { telegram: "https://api.telegram.org", pagerduty: "https://events.pagerduty.com/v2/enqueue" },
  };

  test("the summaries say how many outages over what span, and whether it is up or down now", () => {
    const started = eventOf(flapping("down"));
    expect(started).toMatchObject({
      type: "site.flapping",
      summary: "Shop is flapping: 3 outages in 4 min. Down and recovery alerts pause until it holds one state.",
      flapping: { outages: 3, since, state: "down" },
    });
    expect(eventOf(flapping("up"))).toMatchObject({
      summary: "Shop stopped flapping and is up: 15 outages over 29 min.",
      flapping: { outages: 15, state: "up" },
      downtimeSeconds: null,
    });
    const endedDown = eventOf({
      ...flapping("up"),
      reason: "HTTP 500",
      downSince: since,
      flapping: endingIn("down").flapping,
    });
    expect(endedDown.summary).toBe("Shop stopped flapping and is DOWN: 15 outages over 29 min.");
    expect(endedDown.downtimeSeconds).toBe(1800);
    // A rule that turns down alerts off hears no flapping either.
    const quiet = route({ events: { ...route().events, down: false } });
    expect(alertWrites([flapping("down"), flapping("up")], new Map([["s1", quiet]]), NOW, ids)).toEqual([]);
  });

  test("every provider tells both; PagerDuty triggers on flapping, resolves when it ends up, stays triggered when it ends down", () => {
    for (const intent of [flapping("down"), flapping("up")]) {
      const event = eventOf(intent);
      for (const [type, provider] of Object.entries(PROVIDERS)) {
        const out = (provider as Provider<ChannelType>).format(event, config[type as ChannelType] as never, context, 0);
        const text = out.kind === "email" ? `${out.subject}\n${out.text}` : out.body;
        expect(text, type).toContain(type === "webhook" ? event.type : "flapping");
      }
    }
    const pd = (intent: AlertIntent) => {
      const out = PROVIDERS.pagerduty.format(eventOf(intent), config.pagerduty, context, 0);
      return JSON.parse(out.kind === "http" ? out.body : "{}");
    };
    expect(pd(flapping("down"))).toMatchObject({ event_action: "trigger", dedup_key: "porchlight-s1" });
    expect(pd(flapping("up"))).toMatchObject({ event_action: "resolve", dedup_key: "porchlight-s1" });
    const down = { ...flapping("up"), flapping: endingIn("down").flapping };
    expect(pd(down)).toMatchObject({ event_action: "trigger", payload: { severity: "critical" } });
  });
});

describe("durations in words, said once", () => {
  test.each([
    [45, "45 s"],
    [60, "1 min"],
    [90, "1 min 30 s"],
    [599, "9 min 59 s"],
    [630, "10 min"],
    [3900, "1 h 5 min"],
    [93_600, "1 d 2 h"],
  ])("%i s reads %s", (seconds, words) => {
    expect(duration(seconds)).toBe(words);
  });

  test("ntfy's recovery of a 90-second outage says its length once, with its seconds", () => {
    const [row] = alertWrites(
      [{ siteId: "s1", type: "site.recovered", reason: null, downSince: "2026-11-21T11:58:30.000Z" }],
      new Map([["s1", route({ channels: ["ch_a"] })]]),
      NOW,
      ids,
    );
    const event = AlertEvent.parse(row?.event);
    const provider = PROVIDERS.ntfy as Provider<"ntfy">;
    const context = { apis: { telegram: "https://api.telegram.test", pagerduty: "https://events.pagerduty.test" } };
    const out = provider.format(event, { url: "https://ntfy.example.com/ops" }, context, 0);
    const message = JSON.parse((out as { body: string }).body).message as string;
    expect(message).toContain("Shop is back up after 1 min 30 s.");
    expect(message.match(/1 min/g)).toHaveLength(1);
  });
});
