import { z } from "zod";
import { Timestamp } from "./common.ts";
import { SiteId } from "./site.ts";

/** The longest a window's occurrence may last: a week. */
export const MAX_MAINTENANCE_MINUTES = 7 * 24 * 60;
/** How many windows a workspace may have. */
export const MAX_MAINTENANCE_WINDOWS = 100;

/** Whether the runtime knows a time zone by this IANA name. */
function knownTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether a date and time's fields name a real moment: a year from 2000, no 31 November, no 24:00 or :60, an offset
 * within ±14:00.
 */
function realDateTime(s: string): boolean {
  const field = (from: number) => Number(s.slice(from, from + 2));
  const [y, m, d] = [Number(s.slice(0, 4)), field(5), field(8)];
  const day = new Date(Date.UTC(y, m - 1, d));
  if (y < 2000 || day.getUTCDate() !== d || day.getUTCMonth() !== m - 1) return false;
  if (field(11) > 23 || field(14) > 59 || (s[16] === ":" && field(17) > 59)) return false;
  const offset = /([+-])(\d{2}):(\d{2})$/.exec(s);
  if (offset && (Number(offset[2]) > 14 || Number(offset[3]) > 59)) return false;
  return !/(Z|[+-]\d{2}:\d{2})$/.test(s) || !Number.isNaN(Date.parse(s));
}

const TimeZone = z
  .string()
  .max(64)
  .refine(knownTimeZone, { error: "Choose a time zone from the list, such as Europe/Berlin or UTC." })
  .meta({ description: "The IANA time zone start and the recurrence are read in", example: "Europe/Berlin" });

/**
 * When the (first) occurrence begins: a local date and time in timeZone ("2026-12-06T02:00"), or an instant with an
 * offset ("2026-12-06T01:00:00Z"), which is read as the local time it is in timeZone.
 */
const Start = z
  .string()
  .max(40)
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})?$/, {
    error: "Enter a date and time such as 2026-12-06T02:00.",
  })
  .refine(realDateTime, { error: "Enter a date and time that exists, from the year 2000." })
  .meta({
    description:
      "When the first occurrence begins: a local date and time in timeZone, or an instant with an offset (read as the local time it is in timeZone)",
    example: "2026-12-06T02:00",
  });

const Recurrence = z.string().trim().max(500).nullable().meta({
  description:
    "An RFC 5545 RRULE (without DTSTART: start is the first occurrence), hourly or less often; null: once. Occurrences are read in timeZone, so a 02:00 window stays at 02:00 across daylight-saving changes.",
  example: "FREQ=WEEKLY;BYDAY=SU",
});

const Sites = z
  .array(SiteId)
  .min(1)
  .max(100)
  .meta({
    description: "The workspace's sites it covers (1 to 100; repeats count once)",
    example: ["65f1c0ffee0123456789abcd"],
  });

const Title = z.string().trim().min(1).max(200);
const Description = z.string().trim().max(2000);
const Duration = z
  .int()
  .min(1)
  .max(MAX_MAINTENANCE_MINUTES)
  .meta({ description: `How long each occurrence lasts, in minutes (1 to ${MAX_MAINTENANCE_MINUTES})` });

export const MaintenanceCreate = z
  .strictObject({
    title: Title,
    description: Description.default("").meta({ description: "Shown to visitors with the title" }),
    sites: Sites,
    start: Start,
    timeZone: TimeZone.default("UTC"),
    durationMinutes: Duration,
    recurrence: Recurrence.default(null),
  })
  .meta({ id: "MaintenanceWindowCreate" });
export type MaintenanceCreate = z.infer<typeof MaintenanceCreate>;

export const MaintenancePatch = z
  .strictObject({
    title: Title.optional(),
    description: Description.optional(),
    sites: Sites.optional().meta({ description: "Replaces the sites it covers" }),
    start: Start.optional(),
    timeZone: TimeZone.optional(),
    durationMinutes: Duration.optional(),
    recurrence: Recurrence.optional(),
  })
  .refine((p) => Object.values(p).some((v) => v !== undefined), {
    message: "Change at least one field.",
    path: ["title"],
  })
  .meta({ id: "MaintenanceWindowPatch" });
export type MaintenancePatch = z.infer<typeof MaintenancePatch>;

/** An occurrence: from start (included) to end (excluded), in ms since the epoch. */
export interface Interval {
  start: number;
  end: number;
}

/** One occurrence of a window, as instants. */
export const Occurrence = z.object({ startsAt: Timestamp, endsAt: Timestamp }).meta({ id: "MaintenanceOccurrence" });

export const MaintenanceWindow = z
  .object({
    id: z.string(),
    title: z.string(),
    description: z.string(),
    sites: z.array(z.string()),
    start: z.string().meta({ description: "The first occurrence's local start in timeZone (YYYY-MM-DDTHH:MM)" }),
    timeZone: z.string(),
    durationMinutes: z.int(),
    recurrence: z.string().nullable(),
    active: z.boolean().meta({ description: "Whether an occurrence is under way now" }),
    next: Occurrence.nullable().meta({
      description: "The occurrence under way, else the next one (within about a year); null when none is left",
    }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: "MaintenanceWindow" });
export type MaintenanceWindow = z.infer<typeof MaintenanceWindow>;

/** The workspace's windows (GET /maintenance-windows). */
export const MaintenanceWindowList = z.object({ windows: z.array(MaintenanceWindow) });
export type MaintenanceWindowList = z.infer<typeof MaintenanceWindowList>;

/** Maintenance as a status page's visitors see it: under way, or coming within PUBLIC_MAINTENANCE_DAYS. */
export const PublicMaintenance = z
  .object({
    id: z.string(),
    title: z.string(),
    description: z.string(),
    startsAt: Timestamp,
    endsAt: Timestamp,
    active: z.boolean().meta({ description: "Under way now: its items read maintenance" }),
    items: z.array(z.int()).meta({ description: "The page's visible items it covers" }),
  })
  .meta({ id: "StatusPageMaintenance" });
export type PublicMaintenance = z.infer<typeof PublicMaintenance>;

/** How far ahead a status page announces maintenance. */
export const PUBLIC_MAINTENANCE_DAYS = 14;
