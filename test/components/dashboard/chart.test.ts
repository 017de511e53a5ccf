// Issue 28: the response-time chart reads on day one. Its range fits the history that exists, its time axis starts
// at the first point (not at the range's start), its value axis scales to the data, and longer ranges draw p50/p95.
import { describe, expect, test } from "vitest";
import {
  fitRange,
  niceStep,
  type Point,
  percentile,
  percentileSeries,
  rangeOf,
  regionSeries,
  timeDomain,
  timeTicks,
  valueAxis,
} from "../../../components/porchlight-dashboard/screens/site/chart-scale.ts";

const NOW = Date.parse("2026-11-28T14:05:00Z");
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

describe("the range that fits", () => {
  test("the smallest range that holds the data, one hour with none", () => {
    expect(fitRange(null, NOW)).toBe("1h");
    expect(fitRange(NOW - 10 * MIN, NOW)).toBe("1h");
    expect(fitRange(NOW - 61 * MIN, NOW)).toBe("24h");
    expect(fitRange(NOW - 3 * DAY, NOW)).toBe("7d");
    expect(fitRange(NOW - 20 * DAY, NOW)).toBe("30d");
    expect(fitRange(NOW - 60 * DAY, NOW)).toBe("90d");
    // Older than every range: the longest.
    expect(fitRange(NOW - 400 * DAY, NOW)).toBe("90d");
  });
});

describe("the time axis", () => {
  const tenMinutes: Point[] = Array.from({ length: 21 }, (_, i) => [NOW - (20 - i) * 30_000, 10 + i]);

  test("starts at the first point, so ten minutes of checks fill the plot rather than a sixth of it", () => {
    const [from, to] = timeDomain([{ label: "a", points: tenMinutes }], rangeOf("1h"), NOW);
    expect(from).toBe(NOW - 10 * MIN);
    expect(to).toBe(NOW);
  });

  test("points before the range are not in it; no point at all shows the whole range", () => {
    const old: Point[] = [[NOW - 2 * HOUR, 5], ...tenMinutes];
    expect(timeDomain([{ label: "a", points: old }], rangeOf("1h"), NOW)[0]).toBe(NOW - 10 * MIN);
    expect(timeDomain([{ label: "a", points: [] }], rangeOf("24h"), NOW)).toEqual([NOW - DAY, NOW]);
  });

  test("a lone point gets room either side instead of a zero-width axis", () => {
    const [from, to] = timeDomain([{ label: "a", points: [[NOW, 3]] }], rangeOf("1h"), NOW);
    expect(to - from).toBe(2 * MIN);
  });

  test("ticks fall on round times in the viewer's zone, at most as many as asked", () => {
    const ticks = timeTicks([NOW - 10 * MIN, NOW], 6);
    expect(ticks.length).toBeLessThanOrEqual(6);
    expect(ticks.every((t) => t % (2 * MIN) === 0)).toBe(true);
    // A zone 30 minutes off UTC (India is +5:30): hourly ticks on the local hour.
    const local = timeTicks([NOW - 6 * HOUR, NOW], 6, 330);
    expect(local.every((t) => (t + 330 * MIN) % HOUR === 0)).toBe(true);
  });
});

describe("the value axis", () => {
  test("scales to the data: 2 ms checks are not drawn on 0-100", () => {
    expect(valueAxis([{ label: "a", points: [[NOW, 2]] }]).max).toBe(2);
    expect(valueAxis([{ label: "a", points: [[NOW, 3]] }]).max).toBe(3);
  });

  test("ends on a round number above the largest value and within twice it", () => {
    for (const largest of [1, 7, 13, 48, 99, 101, 250, 1234, 1801, 99_999]) {
      const { max, ticks } = valueAxis([
        {
          label: "a",
          points: [
            [NOW - MIN, 0],
            [NOW, largest],
            [NOW + 1, null],
          ],
        },
      ]);
      expect(max).toBeGreaterThanOrEqual(largest);
      expect(max).toBeLessThanOrEqual(2 * largest);
      expect(ticks[0]).toBe(0);
      expect(ticks[ticks.length - 1]).toBe(max);
    }
  });

  test("no answer at all keeps a drawable axis", () => {
    expect(valueAxis([{ label: "a", points: [[NOW, null]] }]).max).toBe(1);
  });

  test("steps are 1, 2 or 5 times a power of ten", () => {
    expect([0.3, 1, 1.5, 3, 7, 40, 120].map(niceStep)).toEqual([0.5, 1, 2, 5, 10, 50, 200]);
  });
});

describe("the lines", () => {
  test("nearest-rank percentiles", () => {
    const values = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(values, 50)).toBe(50);
    expect(percentile(values, 95)).toBe(95);
    expect(percentile([7], 95)).toBe(7);
  });

  test("p50 and p95 per bucket, over every region, leaving out checks without an answer", () => {
    const points: Point[] = [];
    for (let i = 0; i < 20; i++) points.push([NOW - 2 * HOUR + i * MIN, i + 1]);
    for (let i = 0; i < 20; i++) points.push([NOW - HOUR + i * MIN, i < 19 ? 100 : 1000]);
    points.push([NOW - HOUR + 30 * MIN, null]);
    const [p50, p95] = percentileSeries(points, HOUR);
    expect(p50.points.map(([, v]) => v)).toEqual([10, 100]);
    expect(p95.points.map(([, v]) => v)).toEqual([19, 100]);
    expect(p95.dashed).toBe(true);
    // Each bucket is drawn at its middle.
    expect(p50.points.every(([at]) => at % HOUR === HOUR / 2)).toBe(true);
  });

  test("one line per region where there are several, oldest first; one unnamed line otherwise", () => {
    const check = (minutesAgo: number, region: string, responseMs: number) => ({
      at: new Date(NOW - minutesAgo * MIN).toISOString(),
      region,
      responseMs,
    });
    // The API answers newest first.
    const two = regionSeries([check(1, "us-east", 40), check(1, "eu-west", 12), check(2, "eu-west", 11)]);
    expect(two.map((s) => s.label)).toEqual(["eu-west", "us-east"]);
    expect(two[0]?.points.map(([, v]) => v)).toEqual([11, 12]);
    expect(regionSeries([check(1, "local", 3)], "Query time").map((s) => s.label)).toEqual(["Query time"]);
    const one = regionSeries([check(1, "local", 3), check(2, "local", 2)]);
    expect(one).toEqual([
      {
        label: "Response time",
        points: [
          [NOW - 2 * MIN, 2],
          [NOW - MIN, 3],
        ],
      },
    ]);
  });
});
