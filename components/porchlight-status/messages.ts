/**
 * The element's own words. Everything else it shows (dates, numbers, relative times, durations, waits) goes through
 * Intl in the element's locale. `{0}` stands for a value formatted by the caller: in `limited`, a wait such as
 * "40 seconds" (format.ts, wait), or a rounded one in `about` ("about 15 minutes"); in `about`, a rounded duration
 * or wait (format.ts, duration and wait).
 */
export const ENGLISH = {
  loading: "Loading…",
  operational: "All systems operational",
  degraded: "Degraded performance",
  partial: "Partial outage",
  major: "Major outage",
  unknown: "Status unknown",
  "item.operational": "Operational",
  "item.degraded": "Degraded",
  "item.partial_outage": "Partial outage",
  "item.major_outage": "Major outage",
  "item.paused": "Paused",
  "item.unknown": "Unknown",
  services: "Services",
  uptime: "{0} uptime",
  history: "daily uptime, {0} days",
  noData: "no data",
  incidents: "Past incidents",
  noIncidents: "No incidents.",
  investigating: "Investigating",
  identified: "Identified",
  monitoring: "Monitoring",
  resolved: "Resolved",
  updated: "Updated {0}",
  notFound: "No such status page.",
  failed: "Could not load the status.",
  retry: "Try again",
  protected: "This page is password-protected.",
  password: "Password",
  show: "Show status",
  wrong: "The password is incorrect.",
  private: "This status page is private to its workspace's members.",
  limited: "Too many attempts. Try again in {0}.",
  about: "about {0}",
  affected: "Affected: {0}",
  active: "Active incidents",
  updates: "Updates",
  maintenance: "Under maintenance",
  "item.maintenance": "Maintenance",
  inProgress: "In progress",
  scheduled: "Scheduled",
  earlier: "+{0} earlier updates",
  earlier1: "+{0} earlier update",
  down: "{0} down",
  noDown: "No downtime",
  "impact.minor": "Minor impact",
  "impact.major": "Major impact",
  "impact.critical": "Critical impact",
  reveal: "Show password",
  subscribe: "Subscribe to updates",
};

export type Messages = typeof ENGLISH;

/** The keys in order (the word files' order). Marked pure: the embed, which never reads it, drops it. */
export const KEYS = /* @__PURE__ */ Object.keys(ENGLISH) as (keyof Messages)[];

/**
 * The words by language: English always; another once loaded (the embed fetches its locale's from the server, a
 * hosted page's come inlined with it, the server has all of languages.ts). An owner may add a language of their own before the element renders.
 */
export const MESSAGES: Record<string, Messages> = { en: ENGLISH };

/** The languages the server has words for (dist/embed/words-LANG.json), besides English. */
export const LANGUAGES = ["de", "he"];

/**
 * The words for a BCP 47 locale such as `de-CH` (undefined while they are still to be fetched), their language
 * (for the lang attribute) and writing direction; a language without words gets English, left to right, while
 * dates and numbers still follow the locale. Hebrew is the one right-to-left language: a new one (Arabic, Persian,
 * Urdu) joins it here.
 */
export function messagesFor(locale: string): { messages: Messages | undefined; lang: string; dir: "ltr" | "rtl" } {
  const wanted = locale.split("-")[0]?.toLowerCase() ?? "en";
  const lang = MESSAGES[wanted] || LANGUAGES.includes(wanted) ? wanted : "en";
  return { messages: MESSAGES[lang], lang, dir: lang === "he" ? "rtl" : "ltr" };
}
