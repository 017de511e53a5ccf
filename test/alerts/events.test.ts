import { describe, expect, test } from "vitest";
import { DELIVERY_WINDOW_MS, retryDelayMs } from "../../server/alerts/backoff.ts";
import { type AlertIntent, alertWrites } from "../../server/alerts/events.ts";
import { AlertEvent } from "../../server/contract/alerts.ts";
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
  test("down goes to every channel of the rule, each with its own event id, the event valid against the contract", () => {
    const intents: AlertIntent[] = [{ siteId: "s1", type: "site.down", reason: "HTTP 503", downSince: NOW }];
    const rows = alertWrites(intents, new Map([["s1", route()]]), NOW, ids);
    expect(rows.map((r) => r.channel_id)).toEqual(["ch_a", "ch_b"]);
    expect(new Set(rows.map((r) => r.event_id)).size).toBe(2);
    for (const row of rows) {
      const event = AlertEvent.parse(JSON.parse(row.event));
      expect(event).toMatchObject({
        id: row.event_id,
        type: "site.down",
        summary: "Shop is down.",
        reason: "HTTP 503",
      });
      expect(row).toMatchObject({ state: "pending", attempts: 0, next_attempt_at: NOW });
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
    expect(JSON.parse(row?.event as string)).toMatchObject({
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
    expect(AlertEvent.parse(JSON.parse(expiring?.event as string))).toMatchObject({
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
    expect(JSON.parse(renewed?.event as string).summary).toBe(
      "The domain of Shop was renewed: it expires on 2026-11-28.",
    );
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
