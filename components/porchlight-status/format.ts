export type Formats = ReturnType<typeof makeFormats>;

/** `make`, done once per distinct key: the 90 days of 10 items share their dates and percentages. */
export function memo<K, V>(make: (key: K) => V): (key: K) => V {
  const done = new Map<K, V>();
  return (key) => {
    if (!done.has(key)) done.set(key, make(key));
    return done.get(key) as V;
  };
}

const byKey = memo((key: string) => makeFormats(...(key.split(" ") as [string, string?])));

/**
 * Formats by locale and time zone, made once per pair in the page (prerendering makes thousands of elements).
 * Without a zone, instants show in the environment's: in a browser, the visitor's.
 */
export const formatsFor = (locale: string, timeZone?: string): Formats =>
  byKey(timeZone ? `${locale} ${timeZone}` : locale);

/** Dates, numbers, relative times and durations in one locale, instants in one time zone, through Intl. */
function makeFormats(locale: string, timeZone?: string) {
  const relative = new Intl.RelativeTimeFormat(locale, { numeric: "auto" });
  // Numeric parts, not dateStyle and timeStyle: those cannot name the zone.
  const clock = { hour: "numeric", minute: "2-digit", timeZoneName: "short", timeZone } as const;
  const dateTime = new Intl.DateTimeFormat(locale, { year: "numeric", month: "short", day: "numeric", ...clock });
  const time = new Intl.DateTimeFormat(locale, clock);
  const localDay = new Intl.DateTimeFormat(locale, { dateStyle: "short", timeZone });
  const longDay = new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeZone });
  // History days are UTC calendar dates.
  const day = new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeZone: "UTC" });
  // One precision for every uptime: two decimals, cut rather than rounded (99.996% is not "100.00%"), and a day or
  // window without a failed check exactly "100%".
  const percent = new Intl.NumberFormat(locale, {
    style: "percent",
    minimumFractionDigits: 2,
    maximumFractionDigits: 2,
  });
  const whole = new Intl.NumberFormat(locale, { style: "percent" });
  const names = new Intl.ListFormat(locale);
  const words = memo(
    (name: string) => new Intl.NumberFormat(locale, { style: "unit", unit: name, unitDisplay: "long" }),
  );
  return {
    /** Names as the locale joins them: "Checkout, Search and API". */
    list: (items: string[]) => names.format(items),
    /**
     * A wait given in seconds (a Retry-After, at most a day), in the locale's words: "40 seconds", else rounded to
     * whole minutes or hours ("15 minutes" for 894), with a no-break space between number and unit. The second
     * value says whether it was rounded, so that the sentence can say "about".
     */
    wait(seconds: number): [string, boolean] {
      const size = seconds < 60 ? 1 : seconds < 3570 ? 60 : 3600;
      const count = Math.round(seconds / size) || 1;
      const name = size < 60 ? "second" : size < 3600 ? "minute" : "hour";
      return [words(name).format(count).replace(/ /g, "\xa0"), count * size !== seconds];
    },
    /** "3 minutes ago", "in 2 hours", "yesterday". */
    ago(time: string | number, now: number): string {
      const seconds = (+new Date(time) - now) / 1000;
      const size = Math.abs(seconds);
      const [name, length] =
        size < 45 ? ["second", 1] : size < 2700 ? ["minute", 60] : size < 79200 ? ["hour", 3600] : ["day", 86400];
      return relative.format(Math.round(seconds / (length as number)), name as Intl.RelativeTimeFormatUnit);
    },
    /** An instant with its date, time and zone: "Nov 24, 2026, 5:37 AM UTC", "Nov 23, 2026, 9:37 PM PST". */
    when: (iso: string | number) => dateTime.format(new Date(iso)),
    /**
     * The end of a span that began at `start`: only its time and zone ("6:04 AM PST") on the same day in this zone,
     * else as `when`.
     */
    until(start: string, end: string): string {
      const [a, b] = [start, end].map((iso) => localDay.format(new Date(iso)));
      return (a === b ? time : dateTime).format(new Date(end));
    },
    /** The day of an instant in this zone: "Nov 21, 2026". */
    day: (iso: string) => longDay.format(new Date(iso)),
    /** A UTC calendar date such as 2026-11-21. */
    date: memo((isoDate: string) => day.format(new Date(isoDate))),
    /** A percentage given as 0 to 100: "99.95%", "0.00%", and 100 as "100%". */
    percentage: memo((value: number) =>
      // Cut in hundredths first (a double such as 99.95 / 100 lies just under its decimal).
      value >= 100 ? whole.format(1) : percent.format(Math.floor(value * 100 + 1e-6) / 1e4),
    ),
    /**
     * A span given in milliseconds, in the locale's words: under an hour in minutes ("15 minutes", at least 1),
     * under a day in hours and minutes ("2 hours 10 minutes"), from a day in days and hours ("3 days", "1 day
     * 4 hours"), with a no-break space between number and unit. The second value says whether it is off by a minute
     * or more (or is under a minute), so that the sentence can say "about": dropped seconds are not worth one.
     */
    duration(ms: number): [string, boolean] {
      const size = ms < 86_400_000 ? 60_000 : 3_600_000;
      const count = Math.max(1, Math.round(ms / size));
      const parts = [];
      for (const [name, length] of [
        ["day", 86_400_000],
        ["hour", 3_600_000],
        ["minute", 60_000],
      ] as const) {
        const n = Math.floor((count * size) / length) % (name === "day" ? Infinity : name === "hour" ? 24 : 60);
        if (n) parts.push(words(name).format(n).replace(/ /g, "\xa0"));
      }
      return [parts.join(" "), ms < 60_000 || Math.abs(count * size - ms) >= 60_000];
    },
  };
}
