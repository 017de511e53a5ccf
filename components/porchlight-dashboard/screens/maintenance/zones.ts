/** The IANA time zones a maintenance window may be entered in, and finding one from what a person types. */

/** Every zone this browser knows, with UTC (which `supportedValuesOf` leaves out), sorted. */
export function timeZones(): string[] {
  const known = typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("timeZone") : [];
  return [...new Set([...known, "UTC"])].sort();
}

/** The browser's own zone: the default of a new window. */
export function browserZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
}

/** "new york", "Europe/berlin", "kolkata" read the way the list spells them. */
const key = (text: string) =>
  text
    .trim()
    .toLowerCase()
    .replace(/[\s_]+/g, "_");

/**
 * The zone a person meant: the list's own spelling of an exact name in any case, else the one zone whose city (the
 * part after the last slash) is what they typed, else the one zone containing it. Undefined when none or several
 * match, so the field keeps what was typed and the API names the problem.
 */
export function findZone(query: string, zones: readonly string[]): string | undefined {
  const wanted = key(query);
  if (wanted === "") return undefined;
  const exact = zones.find((z) => key(z) === wanted);
  if (exact) return exact;
  const city = zones.filter((z) => key(z.slice(z.lastIndexOf("/") + 1)) === wanted);
  if (city.length === 1) return city[0];
  const containing = zones.filter((z) => key(z).includes(wanted));
  return containing.length === 1 ? containing[0] : undefined;
}
