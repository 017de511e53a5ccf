import { describe, expect, test } from "vitest";
import { type Condition, expiryLevel, judgeConditions } from "../../server/engine/conditions.ts";
import { THRESHOLDS } from "../../server/engine/thresholds.ts";

const NOW = Date.parse("2026-11-21T12:00:00Z");
const DAY = 86_400_000;
const none = { certificate: null, domain: null, window: { checks: 0, slowOrFailed: 0 }, previous: [] as Condition[] };

describe("expiryLevel", () => {
  test.each([
    [-3, "critical"],
    [0, "critical"],
    [7, "critical"],
    [8, "warning"],
    [21, "warning"],
    [22, "ok"],
    [400, "ok"],
  ] as const)("certificate with %i days left: %s", (left, level) => {
    expect(expiryLevel(left, THRESHOLDS.ssl)).toBe(level);
  });
  test.each([
    [7, "critical"],
    [30, "warning"],
    [31, "ok"],
  ] as const)("domain with %i days left: %s", (left, level) => {
    expect(expiryLevel(left, THRESHOLDS.domain)).toBe(level);
  });
});

describe("judgeConditions", () => {
  test("no data, no conditions: nothing is invented", () => {
    expect(judgeConditions({ now: NOW, ...none })).toEqual([]);
  });

  test("ssl_expiry and domain_expiry say when, with their levels", () => {
    const conditions = judgeConditions({
      now: NOW,
      ...none,
      certificate: { expiresAt: NOW + 5 * DAY + 1000, issuer: "Test CA" },
      domain: { name: "example.com", expiresAt: NOW + 200 * DAY },
    });
    expect(conditions).toEqual([
      {
        key: "ssl_expiry",
        scope: "certificate",
        level: "critical",
        summary: "The certificate expires in 5 days (2026-11-26). Issuer: Test CA.",
        since: new Date(NOW).toISOString(),
        evaluatedAt: new Date(NOW).toISOString(),
      },
      expect.objectContaining({
        key: "domain_expiry",
        level: "ok",
        summary: "The domain example.com expires in 200 days (2027-06-09).",
      }),
    ]);
  });

  test("an expired certificate is critical and says how long ago", () => {
    const [c] = judgeConditions({ now: NOW, ...none, certificate: { expiresAt: NOW - 2 * DAY - 1, issuer: "X" } });
    expect(c).toMatchObject({
      level: "critical",
      summary: "The certificate expired 3 days ago (2026-11-19). Issuer: X.",
    });
  });

  test.each([
    [9, 9, null],
    [100, 19, "ok"],
    [100, 20, "warning"],
    [100, 49, "warning"],
    [100, 50, "critical"],
  ])("chronic_performance with %i checks, %i slow or failed: %s", (checks, bad, level) => {
    const conditions = judgeConditions({ now: NOW, ...none, window: { checks, slowOrFailed: bad } });
    expect(conditions[0]?.level ?? null).toBe(level);
  });

  test("since moves only when the level changes; evaluatedAt always moves", () => {
    const first = judgeConditions({ now: NOW, ...none, window: { checks: 100, slowOrFailed: 25 } });
    const later = NOW + 3_600_000;
    const same = judgeConditions({ now: later, ...none, window: { checks: 100, slowOrFailed: 30 }, previous: first });
    expect(same[0]).toMatchObject({
      level: "warning",
      since: first[0]?.since,
      evaluatedAt: new Date(later).toISOString(),
    });
    const worse = judgeConditions({ now: later, ...none, window: { checks: 100, slowOrFailed: 60 }, previous: first });
    expect(worse[0]).toMatchObject({ level: "critical", since: new Date(later).toISOString() });
  });
});
