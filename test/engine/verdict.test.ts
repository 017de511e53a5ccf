import { describe, expect, test } from "vitest";
import { type HealthInput, judgeHealth, type ResultSummary } from "../../server/engine/verdict.ts";

const NOW = Date.parse("2026-11-21T12:00:00Z");
const MIN = 60_000;

/** Results of one region, newest first: "u" up, "d" down, or a number for an up check's response time. */
function region(name: string, pattern: (string | number)[], everyMs = MIN, startAgo = 0): ResultSummary[] {
  return pattern.map((p, i) => ({
    region: name,
    at: NOW - startAgo - i * everyMs,
    ok: p !== "d",
    responseMs: p === "d" ? null : typeof p === "number" ? p : 120,
    error: p === "d" ? "connection refused" : null,
  }));
}

const base = (results: ResultSummary[], regions = ["local"]): HealthInput => ({
  now: NOW,
  intervalMs: MIN,
  timeoutMs: 30_000,
  slowMs: 2000,
  regions,
  results,
});

describe("judgeHealth", () => {
  test.each([
    ["no results", [], "unknown", "No recent check result."],
    [
      "only stale results (older than 2 intervals + timeout)",
      region("local", ["u", "u"], MIN, 3 * MIN),
      "unknown",
      "No recent check result.",
    ],
    ["up", region("local", ["u", "u"]), "healthy", "Up: 120 ms in local."],
    [
      "one blip is not an outage",
      region("local", ["d", "u", "u"]),
      "degraded",
      "A check failed in local, not yet confirmed: connection refused.",
    ],
    [
      "a single failed first check is not confirmed",
      region("local", ["d"]),
      "degraded",
      "A check failed in local, not yet confirmed: connection refused.",
    ],
    [
      "two consecutive failures confirm",
      region("local", ["d", "d", "u"]),
      "unhealthy",
      "Down in local: connection refused.",
    ],
    ["recovered after an outage", region("local", ["u", "d", "d"]), "healthy", "Up: 120 ms in local."],
    [
      "slow beyond the threshold",
      region("local", [2500, "u"]),
      "degraded",
      "Slow in local: 2,500 ms, above the 2,000 ms threshold.",
    ],
    ["exactly the threshold is not slow", region("local", [2000]), "healthy", "Up: 2,000 ms in local."],
  ])("%s", (_name, results, state, summary) => {
    const health = judgeHealth(base(results as ResultSummary[]));
    expect(health.state).toBe(state);
    expect(health.summary).toBe(summary);
  });

  test.each([
    ["down in 1 of 3 regions: degraded", { eu: ["d", "d"], us: ["u"], ap: ["u"] }, "degraded", ["eu"]],
    [
      "down in 2 of 3 regions: quorum, unhealthy",
      { eu: ["d", "d"], us: ["d", "d"], ap: ["u"] },
      "unhealthy",
      ["eu", "us"],
    ],
    ["down in 1 of 2 regions: no majority", { eu: ["d", "d"], us: ["u"] }, "degraded", ["eu"]],
    ["down in both of 2 regions", { eu: ["d", "d"], us: ["d", "d"] }, "unhealthy", ["eu", "us"]],
    ["suspect in all regions is still only degraded", { eu: ["d", "u"], us: ["d", "u"] }, "degraded", []],
    ["a region without fresh results does not vote", { eu: ["d", "d"], us: [] }, "unhealthy", ["eu"]],
  ])("%s", (_name, pattern, state, downIn) => {
    const results = Object.entries(pattern).flatMap(([name, p]) => region(name, p as string[]));
    const health = judgeHealth(
      base(
        results,
        ["eu", "us", "ap"].filter((r) => r in pattern),
      ),
    );
    expect(health.state).toBe(state);
    expect(health.downIn).toEqual(downIn);
  });

  test("results from regions the site is not checked in are ignored", () => {
    const results = [...region("local", ["u"]), ...region("elsewhere", ["d", "d"])];
    expect(judgeHealth(base(results)).state).toBe("healthy");
  });

  test("a ping check that lost some of its pings is degraded, naming the loss; a later full answer is up", () => {
    const [latest, before] = region("local", [18, 20]) as [ResultSummary, ResultSummary];
    const lossy = judgeHealth(base([{ ...latest, lossPercent: 33.3333 }, before]));
    expect(lossy).toMatchObject({ state: "degraded", summary: "Packet loss in local: 33% of pings unanswered." });
    expect(judgeHealth(base([latest, { ...before, lossPercent: 66.6667 }])).state).toBe("healthy");
  });

  test("a failure the job reported itself is down at once; any other waits for a second", () => {
    const [latest, before] = region("local", ["d", "u"]) as [ResultSummary, ResultSummary];
    expect(judgeHealth(base([latest, before])).state).toBe("degraded");
    expect(judgeHealth(base([{ ...latest, confirmed: true }, before]))).toMatchObject({
      state: "unhealthy",
      downIn: ["local"],
    });
  });

  test("order of the results does not matter", () => {
    const results = region("local", ["d", "d", "u"]).reverse();
    expect(judgeHealth(base(results)).state).toBe("unhealthy");
  });
});
