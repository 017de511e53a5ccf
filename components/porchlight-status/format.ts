export type Formats = ReturnType<typeof formatsFor>;

/** Dates, numbers, relative times and durations in one locale, through Intl; made once per locale. */
export function formatsFor(locale: string) {
  const relative = new Intl.RelativeTimeFormat(locale, { numeric: "auto" });
  const dateTime = new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "short" });
  // History days are UTC calendar dates.
  const day = new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeZone: "UTC" });
  const percent = new Intl.NumberFormat(locale, { style: "percent", maximumFractionDigits: 2 });
  /** A quantity of a unit Intl knows, such as 120 "millisecond". */
  const unit = (name: string, value: number) =>
    new Intl.NumberFormat(locale, { style: "unit", unit: name }).format(value);
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
    date: (isoDate: string) => day.format(new Date(isoDate)),
    /** A percentage given as 0 to 100. */
    percentage: (value: number) => percent.format(value / 100),
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
