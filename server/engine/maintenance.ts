/**
 * Maintenance windows' time: a window is a local start in an IANA time zone, a duration and an optional RFC 5545
 * recurrence (rrule). Occurrences are expanded ahead of time (a year and a bit, at most MAX_OCCURRENCES) into the
 * store, so that judging and page views only compare instants; the expansion runs in a worker thread with a time
 * limit, because a rule that can never occur again ("FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30") makes rrule search until
 * the year 9999, which takes seconds.
 *
 * Recurrences are expanded in local wall time (fields read as UTC, so the process's own time zone never enters)
 * and each occurrence's start is then placed in its zone: a weekly 02:00 window stays at 02:00 local across
 * daylight-saving changes; a start in a spring-forward gap moves on by the gap.
 */
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import type { Interval } from "../contract/maintenance.ts";

export type { Interval } from "../contract/maintenance.ts";

const MINUTE = 60_000;
const DAY = 86_400_000;

/** How far ahead occurrences are expanded, and how soon before that runs out they are expanded again. */
export const EXPANSION = { horizonDays: 400, refillDays: 30, maxOccurrences: 1000, timeLimitMs: 1000 } as const;

export interface WindowSpec {
  /** The first occurrence's local start, "YYYY-MM-DDTHH:MM". */
  start: string;
  timeZone: string;
  durationMinutes: number;
  recurrence: string | null;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** The wall time an instant shows in a zone, as ms whose UTC fields are that wall time. */
function wallOf(instant: number, timeZone: string): number {
  const parts: Record<string, number> = {};
  for (const p of formatter(timeZone).formatToParts(new Date(instant))) parts[p.type] = Number(p.value);
  const { year = 0, month = 1, day = 1, hour = 0, minute = 0, second = 0 } = parts;
  return Date.UTC(year, month - 1, day, hour, minute, second) + (instant % 1000);
}

/** The instant a wall time (UTC fields) names in a zone; in a spring-forward gap, the instant after the gap. */
export function instantOf(wall: number, timeZone: string): number {
  const first = wall - (wallOf(wall, timeZone) - wall);
  const second = wall - (wallOf(first, timeZone) - first);
  if (wallOf(second, timeZone) === wall) return second;
  // In a gap no instant shows this wall time: the later offset moves it on by the gap.
  return Math.max(first, second);
}

/** "YYYY-MM-DDTHH:MM" as wall ms. */
const wallMs = (local: string) => Date.parse(`${local.slice(0, 16)}:00Z`);
const localText = (wall: number) => new Date(wall).toISOString().slice(0, 16);

/** A window's start as stored: the local date and time, or an instant with an offset read in the zone. */
export function localStart(start: string, timeZone: string): string {
  if (/(Z|[+-]\d{2}:\d{2})$/.test(start)) return localText(wallOf(Date.parse(start), timeZone));
  return start.slice(0, 16);
}

/** Stored recurrences carry no "RRULE:" prefix and no DTSTART (the start is the window's). */
export const normalRecurrence = (rule: string) => rule.replace(/^RRULE:/i, "").trim();

const rrulePath = createRequire(import.meta.url).resolve("rrule");

/**
 * The worker: rrule's parse and expansion of a rule in wall time, posting the starts or a parse error. Plain
 * JavaScript, so that it runs the same under every loader (tsx, the tests, plain Node).
 */
const WORKER = `
const { parentPort, workerData: w } = require("node:worker_threads");
try {
  const { RRule, Frequency } = require(w.rrulePath);
  const options = RRule.parseString(w.rule);
  const problem =
    "dtstart" in options || "tzid" in options ? "must not hold DTSTART or TZID: start and timeZone give them"
    : options.freq === undefined ? "needs a FREQ"
    : options.freq > Frequency.HOURLY ? "may repeat at most hourly"
    : (options.interval ?? 1) < 1 || !Number.isInteger(options.interval ?? 1) ? "INTERVAL must be a positive whole number"
    : options.count !== undefined && !(options.count >= 1) ? "COUNT must be a positive whole number"
    : Object.values(options).some((v) => Array.isArray(v) && v.some((x) => x === undefined || Number.isNaN(x))) ? "holds a value rrule cannot read"
    : null;
  if (problem) {
    parentPort.postMessage({ error: problem });
  } else {
    const rule = new RRule({ ...options, dtstart: new Date(w.start) });
    const starts = [];
    rule.between(new Date(w.from), new Date(w.to), true, (d) => {
      starts.push(d.getTime());
      return starts.length < w.max;
    });
    parentPort.postMessage({ starts });
  }
} catch (e) {
  parentPort.postMessage({ error: String(e && e.message ? e.message : e) });
}
`;

export type Expansion = { ok: true; occurrences: Interval[]; until: number } | { ok: false; problem: string };

/** Runs the worker on one rule, at most timeLimitMs; what it posts, or null on time out. */
function runWorker(data: Record<string, unknown>): Promise<{ starts?: number[]; error?: string } | null> {
  return new Promise((resolve) => {
    const worker = new Worker(WORKER, { eval: true, workerData: { ...data, rrulePath } });
    const timer = setTimeout(() => {
      void worker.terminate();
      resolve(null);
    }, EXPANSION.timeLimitMs);
    worker.once("message", (message) => {
      clearTimeout(timer);
      void worker.terminate();
      resolve(message as { starts?: number[]; error?: string });
    });
    worker.once("error", (error) => {
      clearTimeout(timer);
      resolve({ error: error.message });
    });
  });
}

/**
 * A window's occurrences that overlap [from, from + horizonDays] (instants), at most maxOccurrences of them, and
 * how far they reach (expand again before then); or what is wrong with its recurrence, including one that takes
 * too long to expand.
 */
export async function expandWindow(spec: WindowSpec, from: number): Promise<Expansion> {
  const duration = spec.durationMinutes * MINUTE;
  const to = from + EXPANSION.horizonDays * DAY;
  const first = wallMs(spec.start);
  if (spec.recurrence === null) {
    const start = instantOf(first, spec.timeZone);
    const occurrences = start + duration > from ? [{ start, end: start + duration }] : [];
    return { ok: true, occurrences, until: to };
  }
  // Wall times differ from instants by at most a day; an occurrence that began up to its duration ago still counts.
  const answer = await runWorker({
    rule: normalRecurrence(spec.recurrence),
    start: first,
    from: from - duration - DAY,
    to: to + DAY,
    max: EXPANSION.maxOccurrences,
  });
  if (answer === null) {
    return { ok: false, problem: "takes too long to expand: it occurs too rarely, or never again" };
  }
  if (answer.error !== undefined || !answer.starts) {
    return { ok: false, problem: `is not a valid RRULE: ${answer.error ?? "no answer"}` };
  }
  const occurrences = answer.starts
    .map((wall) => instantOf(wall, spec.timeZone))
    .map((start) => ({ start, end: start + duration }))
    .filter((o) => o.end > from && o.start < to);
  const full = answer.starts.length >= EXPANSION.maxOccurrences;
  return { ok: true, occurrences, until: full ? (occurrences.at(-1)?.start ?? to) : to };
}

/** Whether an instant falls in one of the occurrences. */
export const heldAt = (occurrences: readonly Interval[], at: number) =>
  occurrences.some((o) => o.start <= at && at < o.end);

/** The next time after now that an occurrence begins or ends, if any. */
export function nextBoundary(occurrences: readonly Interval[], now: number): number | null {
  let next: number | null = null;
  for (const o of occurrences) {
    for (const t of [o.start, o.end]) if (t > now && (next === null || t < next)) next = t;
  }
  return next;
}

/** The part of [from, to) outside every occurrence, as spans. */
export function outside(occurrences: readonly Interval[], from: number, to: number): Interval[] {
  let spans: Interval[] = from < to ? [{ start: from, end: to }] : [];
  for (const o of occurrences) {
    spans = spans.flatMap((s) => {
      if (o.end <= s.start || o.start >= s.end) return [s];
      const rest: Interval[] = [];
      if (o.start > s.start) rest.push({ start: s.start, end: o.start });
      if (o.end < s.end) rest.push({ start: o.end, end: s.end });
      return rest;
    });
  }
  return spans;
}
