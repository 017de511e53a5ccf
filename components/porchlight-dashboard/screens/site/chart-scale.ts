/**
 * The response-time chart's arithmetic, free of the DOM so that it is tested alone (test/components/dashboard/
 * chart.test.ts): which range fits the data, the axes' domains and ticks, and the percentile lines of longer ranges.
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** The ranges an owner can pick; `source` says where their points come from. */
export const RANGES = [
  { key: "1h", label: "1 h", ms: HOUR, source: "checks", bucketMs: 0 },
  { key: "24h", label: "24 h", ms: DAY, source: "checks", bucketMs: 0 },
  { key: "7d", label: "7 d", ms: 7 * DAY, source: "checks", bucketMs: HOUR },
  { key: "30d", label: "30 d", ms: 30 * DAY, source: "days", bucketMs: DAY },
  { key: "90d", label: "90 d", ms: 90 * DAY, source: "days", bucketMs: DAY },
] as const;
export type RangeKey = (typeof RANGES)[number]["key"];
export type Range = (typeof RANGES)[number];

export const rangeOf = (key: RangeKey): Range => RANGES.find((r) => r.key === key) ?? (RANGES[0] as Range);

/**
 * The smallest range that holds all the data since `oldest` (ms since the epoch), so that a site checked for ten
 * minutes opens on one hour and a site of two months on 90 days; no data at all opens on one hour.
 */
export function fitRange(oldest: number | null, now: number): RangeKey {
  if (oldest === null) return "1h";
  const age = now - oldest;
  return (RANGES.find((r) => r.ms >= age) ?? (RANGES[RANGES.length - 1] as Range)).key;
}

/** A point of a series: when (ms since the epoch) and how long the answer took (ms), null for no answer. */
export type Point = readonly [at: number, ms: number | null];

export interface Series {
  /** What a person reads in the legend: "Response time", "eu-west", "p95". */
  label: string;
  points: Point[];
  /** A percentile's upper line is dashed, so that two lines of one colour still differ without colour. */
  dashed?: boolean;
}

/**
 * The time axis: from the first point in the range (not the range's start, so that a young site's checks fill the
 * plot rather than sit at its right edge) to now. A lone point gets a minute either side.
 */
export function timeDomain(series: Series[], range: Range, now: number): [number, number] {
  const start = now - range.ms;
  let first = Number.POSITIVE_INFINITY;
  let last = now;
  for (const s of series) {
    for (const [at] of s.points) {
      if (at >= start && at < first) first = at;
      if (at > last) last = at;
    }
  }
  if (!Number.isFinite(first)) return [start, now];
  if (last - first < MINUTE) return [first - MINUTE, last + MINUTE];
  return [first, last];
}

/** 1, 2 or 5 times a power of ten: the step of a value axis a person reads at a glance. */
export function niceStep(rough: number): number {
  if (!(rough > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(rough));
  const fraction = rough / power;
  return (fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10) * power;
}

/**
 * The value axis: from 0 to the first round number at or above the largest value, in about four steps of whole
 * milliseconds. Never a fixed scale: 2 ms checks get a 0-2 ms axis, 1,800 ms ones a 0-2,000 ms axis.
 */
export function valueAxis(series: Series[]): { max: number; ticks: number[] } {
  let largest = 0;
  for (const s of series) for (const [, ms] of s.points) if (ms !== null && ms > largest) largest = ms;
  if (largest <= 0) return { max: 1, ticks: [0, 1] };
  const step = Math.max(1, niceStep(largest / 4));
  const max = Math.ceil(largest / step) * step;
  const ticks: number[] = [];
  for (let v = 0; v <= max + step / 2; v += step) ticks.push(v);
  return { max, ticks };
}

const TIME_STEPS = [
  MINUTE,
  2 * MINUTE,
  5 * MINUTE,
  10 * MINUTE,
  15 * MINUTE,
  30 * MINUTE,
  HOUR,
  2 * HOUR,
  3 * HOUR,
  6 * HOUR,
  12 * HOUR,
  DAY,
  2 * DAY,
  7 * DAY,
  14 * DAY,
];

/**
 * Tick times for a domain: a round step (whole minutes, hours or days) that gives at most `most` ticks, each on a
 * multiple of the step counted in the viewer's zone (`offsetMinutes` east of UTC), so 14:00 reads 14:00 locally.
 */
export function timeTicks([from, to]: [number, number], most = 6, offsetMinutes = 0): number[] {
  const span = to - from;
  const step = TIME_STEPS.find((s) => span / s <= most) ?? 30 * DAY;
  const shift = offsetMinutes * MINUTE;
  const ticks: number[] = [];
  for (let t = Math.ceil((from + shift) / step) * step - shift; t <= to; t += step) ticks.push(t);
  return ticks;
}

/** The nearest-rank percentile (0 < p <= 100) of values sorted ascending. */
export function percentile(sorted: number[], p: number): number {
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] as number;
}

/**
 * p50 and p95 of the answers in each bucket of `bucketMs` (aligned to the epoch), over every region: a longer
 * range's two lines. Buckets without an answer are left out, so the line breaks rather than dropping to 0.
 */
export function percentileSeries(points: Point[], bucketMs: number): [Series, Series] {
  const buckets = new Map<number, number[]>();
  for (const [at, ms] of points) {
    if (ms === null) continue;
    const key = Math.floor(at / bucketMs) * bucketMs;
    const list = buckets.get(key);
    if (list) list.push(ms);
    else buckets.set(key, [ms]);
  }
  const keys = [...buckets.keys()].sort((a, b) => a - b);
  const p50: Point[] = [];
  const p95: Point[] = [];
  for (const key of keys) {
    const values = (buckets.get(key) as number[]).sort((a, b) => a - b);
    const mid = key + bucketMs / 2;
    p50.push([mid, percentile(values, 50)]);
    p95.push([mid, percentile(values, 95)]);
  }
  return [
    { label: "p50", points: p50 },
    { label: "p95", points: p95, dashed: true },
  ];
}

/** One series per region, oldest first: a site checked from several places shows each place's line. */
export function regionSeries(
  checks: { at: string; region: string; responseMs: number | null }[],
  measure = "Response time",
): Series[] {
  const byRegion = new Map<string, Point[]>();
  for (let i = checks.length - 1; i >= 0; i--) {
    const c = checks[i] as (typeof checks)[number];
    const list = byRegion.get(c.region) ?? [];
    list.push([Date.parse(c.at), c.responseMs]);
    byRegion.set(c.region, list);
  }
  const regions = [...byRegion.keys()].sort();
  if (regions.length <= 1) return [{ label: measure, points: byRegion.get(regions[0] ?? "") ?? [] }];
  return regions.map((region) => ({
    label: region,
    points: (byRegion.get(region) as Point[]).sort((a, b) => a[0] - b[0]),
  }));
}

/** The points of a series nearest to `at`, for the legend under the pointer. */
export function nearest(series: Series, at: number): Point | undefined {
  let best: Point | undefined;
  for (const point of series.points) if (!best || Math.abs(point[0] - at) < Math.abs(best[0] - at)) best = point;
  return best;
}
