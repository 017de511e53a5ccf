/** The source of "now" for everything that stamps or windows time; tests pass a fixed one. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** The UTC day (YYYY-MM-DD) `days` days before `now`'s day. */
export function utcDayBefore(now: Date, days: number): string {
  const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - days));
  return d.toISOString().slice(0, 10);
}
