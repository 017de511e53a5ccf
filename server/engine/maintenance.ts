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

/** A stored window's spec (its row's columns). */
export const specOf = (row: {
  start: string;
  time_zone: string;
  duration_minutes: number;
  recurrence: string | null;
}): WindowSpec => ({
  start: row.start,
  timeZone: row.time_zone,
  durationMinutes: row.duration_minutes,
  recurrence: row.recurrence,
});

/** Formatters by canonical zone name: a few hundred zones exist, and each name is canonical (canonicalZone) first. */
const formatters = new Map<string, Intl.DateTimeFormat>();

/** The zone's canonical IANA name ("europe/berlin" is "Europe/Berlin"), which windows store. */
export function canonicalZone(timeZone: string): string {
  return new Intl.DateTimeFormat("en-US", { timeZone }).resolvedOptions().timeZone;
}

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
    // Bounded whatever names come in.
    if (formatters.size >= 1000) formatters.clear();
    formatters.set(timeZone, f);
  }
  return f;
}

/** The wall time an instant shows in a zone, as ms whose UTC fields are that wall time. */
function wallOf(instant: number, timeZone: string): number {
  const parts: Record<string, number> = {};
  for (const p of formatter(timeZone).formatToParts(new Date(instant))) parts[p.type] = Number(p.value);
  const { year = 0, month = 1, day = 1, hour = 0, minute = 0, second = 0 } = parts;
  return Date.UTC(year, month - 1, day, hour, minute, second);
}

/**
 * The instant a wall time (UTC fields, whole seconds) names in a zone. Where the clocks went back and the wall time
 * happens twice, the first (RFC 5545); where they went forward and it never happens, the instant the gap's length
 * later (02:30 in a gap from 02:00 to 03:00 is 03:30).
 */
export function instantOf(wall: number, timeZone: string): number {
  const before = wallOf(wall - DAY, timeZone) - (wall - DAY);
  const after = wallOf(wall + DAY, timeZone) - (wall + DAY);
  const candidates = [wall - before, wall - after].filter((t) => wallOf(t, timeZone) === wall);
  if (candidates.length > 0) return Math.min(...candidates);
  return wall - before;
}

/** "YYYY-MM-DDTHH:MM" as wall ms. */
const wallMs = (local: string) => Date.parse(`${local.slice(0, 16)}:00Z`);
const localText = (wall: number) => new Date(wall).toISOString().slice(0, 16);

/** A window's start as stored: the local date and time, or an instant with an offset read in the zone. */
export function localStart(start: string, timeZone: string): string {
  if (/(Z|[+-]\d{2}:\d{2})$/.test(start)) return localText(wallOf(Date.parse(start), timeZone));
  return start.slice(0, 16);
}

/** Stored recurrences are upper case (RFC 5545 names are case-insensitive), without the "RRULE:" prefix. */
export const normalRecurrence = (rule: string) =>
  rule
    .replace(/^RRULE:/i, "")
    .trim()
    .toUpperCase();

const rrulePath = createRequire(import.meta.url).resolve("rrule");

/**
 * The worker: rrule's parse and expansion of a rule in wall time, one job at a time, posting the starts or what is
 * wrong. Plain JavaScript, so that it runs the same under every loader (tsx, the tests, plain Node). Besides rrule's
 * own parse, it refuses what rrule would read without complaint: values out of range (BYHOUR=25 rolls over), more
 * than one BYMINUTE or any BYSECOND but 0 (more often than hourly).
 */
const WORKER = `
const { parentPort, workerData } = require("node:worker_threads");
const { RRule, Frequency } = require(workerData.rrulePath);
const RANGES = { byhour: [0, 23], byminute: [0, 59], bysecond: [0, 59], bymonth: [1, 12], bymonthday: [-31, 31],
  byyearday: [-366, 366], byweekno: [-53, 53], bysetpos: [-366, 366] };
const whole = (v) => Number.isInteger(v);
function problemOf(options) {
  if ("dtstart" in options || "tzid" in options) return "must not hold DTSTART or TZID: start and timeZone give them";
  if (options.freq === undefined) return "needs a FREQ";
  if (options.freq > Frequency.HOURLY) return "may repeat at most hourly";
  const interval = options.interval ?? 1;
  if (!whole(interval) || interval < 1) return "INTERVAL must be a positive whole number";
  if (options.count !== undefined && (!whole(options.count) || options.count < 1)) return "COUNT must be a positive whole number";
  if (options.until !== undefined && Number.isNaN(options.until?.getTime?.())) return "UNTIL is not a date";
  for (const [name, [low, high]] of Object.entries(RANGES)) {
    const values = options[name] === undefined ? [] : [].concat(options[name]);
    if (values.some((v) => !whole(v) || v < low || v > high || (v === 0 && low < 0))) {
      return name.toUpperCase() + " must be whole numbers from " + low + " to " + high + (low < 0 ? ", not 0" : "");
    }
  }
  if ([].concat(options.byminute ?? []).length > 1 || [].concat(options.bysecond ?? []).some((v) => v !== 0)) {
    return "may repeat at most hourly (one BYMINUTE, no BYSECOND)";
  }
  if ([].concat(options.byweekday ?? []).some((d) => d === undefined)) return "BYDAY holds a day rrule cannot read";
  return null;
}
parentPort.on("message", (job) => {
  try {
    const options = RRule.parseString(job.rule);
    const problem = problemOf(options);
    if (problem) return parentPort.postMessage({ error: problem });
    // A plain hourly, daily or weekly rule begun long ago starts afresh shortly before the span asked for, by whole
    // periods (the same occurrences, without walking every period since its start).
    let start = job.start;
    const period = { [Frequency.HOURLY]: 36e5, [Frequency.DAILY]: 864e5, [Frequency.WEEKLY]: 6048e5 }[options.freq];
    if (period && options.count === undefined) {
      const every = period * (options.interval ?? 1);
      const skip = Math.floor((job.from - job.start) / every) - 1;
      if (skip > 0) start += skip * every;
    }
    const rule = new RRule({ ...options, dtstart: new Date(start) });
    const starts = [];
    rule.between(new Date(job.from), new Date(job.to), true, (d) => {
      starts.push(d.getTime());
      return starts.length < job.max;
    });
    parentPort.postMessage({ starts });
  } catch (e) {
    parentPort.postMessage({ error: String(e && e.message ? e.message : e) });
  }
});
`;

type Answer = { starts?: number[]; error?: string };

/**
 * How many expansions may wait for the worker, and how many of one workspace: more are refused (429) rather than
 * queued without end, and one workspace cannot take every place. The engine's own refills have their key.
 */
const MAX_WAITING = 16;
const MAX_WAITING_EACH = 2;

/**
 * One worker thread for every expansion of the process, one job at a time, each at most timeLimitMs from when the
 * worker starts on it (a worker that hits the limit is ended, and the next job starts another). Jobs beyond
 * MAX_WAITING are refused, so a burst of requests costs a queue, not a thread each.
 */
class Expander {
  #worker: Worker | null = null;
  #online = false;
  #waiting = 0;
  #each = new Map<string, number>();
  #chain: Promise<unknown> = Promise.resolve();

  run(job: Record<string, unknown>, key: string): Promise<Answer | null | "busy"> {
    const mine = this.#each.get(key) ?? 0;
    if (this.#waiting >= MAX_WAITING || mine >= MAX_WAITING_EACH) return Promise.resolve("busy");
    this.#waiting++;
    this.#each.set(key, mine + 1);
    const result = this.#chain.then(() => this.#one(job));
    this.#chain = result.catch(() => undefined);
    return result.finally(() => {
      this.#waiting--;
      const left = (this.#each.get(key) ?? 1) - 1;
      if (left > 0) this.#each.set(key, left);
      else this.#each.delete(key);
    });
  }

  #start(): Worker {
    const worker = new Worker(WORKER, {
      eval: true,
      workerData: { rrulePath },
      resourceLimits: { maxOldGenerationSizeMb: 64 },
    });
    worker.unref();
    this.#online = false;
    worker.once("online", () => {
      if (this.#worker === worker) this.#online = true;
    });
    // Between jobs too: a worker that fails or ends is dropped, and the next job starts another.
    const drop = () => {
      if (this.#worker === worker) this.#worker = null;
    };
    worker.on("error", drop);
    worker.once("exit", drop);
    this.#worker = worker;
    return worker;
  }

  #one(job: Record<string, unknown>): Promise<Answer | null> {
    const worker = this.#worker ?? this.#start();
    return new Promise((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const done = (answer: Answer | null) => {
        clearTimeout(timer);
        worker.off("message", done);
        worker.off("error", failed);
        worker.off("exit", exited);
        worker.off("online", post);
        resolve(answer);
      };
      const drop = () => {
        if (this.#worker === worker) this.#worker = null;
      };
      const failed = (error: Error) => {
        drop();
        done({ error: error.message });
      };
      const exited = () => {
        drop();
        done({ error: "the expansion stopped" });
      };
      const post = () => {
        timer = setTimeout(() => {
          drop();
          done(null);
          void worker.terminate();
        }, EXPANSION.timeLimitMs);
        worker.postMessage(job);
      };
      worker.on("message", done);
      worker.once("error", failed);
      worker.once("exit", exited);
      if (this.#online) post();
      else worker.once("online", post);
    });
  }
}

const expander = new Expander();

export type Expansion =
  | { ok: true; occurrences: Interval[]; refillAt: number }
  | { ok: false; problem: string; busy?: boolean };

/**
 * A window's occurrences that overlap [from, from + horizonDays] (instants), at most maxOccurrences of them, and when
 * to expand it again (halfway through what a full expansion reached, else refillDays before the horizon); or what is
 * wrong with its recurrence, including one that takes too long to expand, or `busy` when too many wait already (in
 * all, or of this `key`: a workspace, or the engine).
 */
export async function expandWindow(spec: WindowSpec, from: number, key = "engine"): Promise<Expansion> {
  const duration = spec.durationMinutes * MINUTE;
  const to = from + EXPANSION.horizonDays * DAY;
  const refillAt = to - EXPANSION.refillDays * DAY;
  const first = wallMs(spec.start);
  if (spec.recurrence === null) {
    const start = instantOf(first, spec.timeZone);
    const occurrences = start + duration > from ? [{ start, end: start + duration }] : [];
    return { ok: true, occurrences, refillAt };
  }
  // Wall times differ from instants by at most a day; an occurrence that began up to its duration ago still counts.
  const answer = await expander.run(
    {
      rule: normalRecurrence(spec.recurrence),
      start: first,
      from: from - duration - DAY,
      to: to + DAY,
      max: EXPANSION.maxOccurrences,
    },
    key,
  );
  if (answer === "busy") return { ok: false, problem: "cannot be expanded now: too many wait; try again", busy: true };
  if (answer === null) {
    return {
      ok: false,
      problem: "takes too long to expand (over a second): it begins long ago, repeats very often, or occurs too rarely",
    };
  }
  if (answer.error !== undefined || !answer.starts) {
    return { ok: false, problem: `is not a valid RRULE: ${answer.error ?? "no answer"}` };
  }
  const occurrences = answer.starts
    .map((wall) => instantOf(wall, spec.timeZone))
    .map((start) => ({ start, end: start + duration }))
    .filter((o) => o.end > from && o.start < to);
  if (answer.starts.length < EXPANSION.maxOccurrences) return { ok: true, occurrences, refillAt };
  const reach = occurrences.at(-1)?.start;
  if (reach === undefined) return { ok: false, problem: "repeats too often to expand (1,000 occurrences in a day)" };
  return { ok: true, occurrences, refillAt: from + (reach - from) / 2 };
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
