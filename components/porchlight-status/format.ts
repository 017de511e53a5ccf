export type Formats = ReturnType<typeof makeFormats>;

/** `make`, done once per distinct key: the 90 days of 10 items share their dates and percentages. */
export function memo<K, V>(make: (key: K) => V): (key: K) => V {
  const done = new Map<K, V>();
  return (key) => {
    if (!done.has(key)) done.set(key, make(key));
    return done.get(key) as V;
  };
}

/** Formats by locale, made once per locale in the page (prerendering makes thousands of elements). */
export const formatsFor: (locale: string) => Formats = memo(makeFormats);

/** Dates, numbers, relative times and durations in one locale, through Intl. */
function makeFormats(locale: string) {
  const relative = new Intl.RelativeTimeFormat(locale, { numeric: "auto" });
  const dateTime = new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "short" });
  // History days are UTC calendar dates.
  const day = new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeZone: "UTC" });
  const percent = new Intl.NumberFormat(locale, { style: "percent", maximumFractionDigits: 2 });
  const units = memo((name: string) => new Intl.NumberFormat(locale, { style: "unit", unit: name }));
  /** A quantity of a unit Intl knows, such as 120 "millisecond". */
  const unit = (name: string, value: number) => units(name).format(value);
  return {
    unit,
    /** "3 minutes ago", "in 2 hours", "yesterday". */
    ago(time: string | number, now: number): string {
      const seconds = (+new Date(time) - now) / 1000;
      const size = Math.abs(seconds);
      const [name, length] =
        size < 45 ? ["second", 1] : size < 2700 ? ["minute", 60] : size < 79200 ? ["hour", 3600] : ["day", 86400];
      return relative.format(Math.round(seconds / (length as number)), name as Intl.RelativeTimeFormatUnit);
    },
    when: (iso: string) => dateTime.format(new Date(iso)),
    /** A UTC calendar date such as 2026-11-21. */
    date: memo((isoDate: string) => day.format(new Date(isoDate))),
    /** A percentage given as 0 to 100. */
    percentage: memo((value: number) => percent.format(value / 100)),
    /** Whole minutes as "45 min", "3 hr 5 min" or "2 days 4 hr". */
    duration(minutes: number): string {
      const days = Math.floor(minutes / 1440);
      const hours = Math.floor(minutes / 60) % 24;
      const parts = [days && unit("day", days), hours && unit("hour", hours)];
      if (!days && (minutes % 60 || !hours)) parts.push(unit("minute", minutes % 60));
      return parts.filter(Boolean).join(" ");
    },
  };
}
