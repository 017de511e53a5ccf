/**
 * When a failed delivery is tried again: 30 s, then doubling to at most an hour, each spread by ±20 % (jitter), so
 * that receivers that failed together are not all asked again in the same second. Past DELIVERY_WINDOW_MS after the
 * event the delivery is given up.
 */
export const FIRST_RETRY_MS = 30_000;
export const LONGEST_RETRY_MS = 3_600_000;
export const DELIVERY_WINDOW_MS = 24 * 3_600_000;

/** The wait after the `attempts`-th failed attempt (1 for the first); `random` in [0, 1). */
export function retryDelayMs(attempts: number, random: number): number {
  const base = Math.min(LONGEST_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.max(0, Math.min(attempts - 1, 20)));
  return Math.round(base * (0.8 + 0.4 * random));
}
