/**
 * The element's own words. Everything else it shows (dates, numbers, relative times, durations, waits) goes through
 * Intl in the element's locale. `{0}` stands for a value formatted by the caller: in `limited` and `limitedAbout`, a
 * wait such as "40 seconds" or "15 minutes" (format.ts, wait), the second for one that was rounded; in `about`, a
 * rounded duration (format.ts, duration).
 */
const en = {
  loading: "Loading…",
  operational: "All systems operational",
  degraded: "Degraded performance",
  partial: "Partial outage",
  major: "Major outage",
  unknown: "Status unknown",
  "item.operational": "Operational",
  "item.degraded": "Degraded",
  "item.outage": "Outage",
  "item.paused": "Paused",
  "item.unknown": "Unknown",
  services: "Services",
  uptime: "{0} uptime",
  checked: "checked {0}",
  history: "daily uptime, {0} days",
  noData: "no data",
  incidents: "Incidents",
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
  limitedAbout: "Too many attempts. Try again in about {0}.",
  about: "about {0}",
};

export type Messages = typeof en;

const KEYS = Object.keys(en) as (keyof Messages)[];

/** Another language: its words one per line, in the order of the English table (a test holds them to it). */
function words(lines: string): Messages {
  const list = lines.trim().split("\n");
  return Object.fromEntries(KEYS.map((key, i) => [key, list[i]])) as Messages;
}

// German
const de = words(`
Lädt…
Alle Systeme betriebsbereit
Eingeschränkte Leistung
Teilweiser Ausfall
Schwerer Ausfall
Status unbekannt
Betriebsbereit
Eingeschränkt
Ausfall
Pausiert
Unbekannt
Dienste
{0} Verfügbarkeit
geprüft {0}
tägliche Verfügbarkeit, {0} Tage
keine Daten
Vorfälle
Keine Vorfälle.
Wird untersucht
Ursache erkannt
Wird beobachtet
Behoben
Aktualisiert {0}
Keine solche Statusseite.
Laden fehlgeschlagen.
Erneut versuchen
Diese Seite ist passwortgeschützt.
Passwort
Status anzeigen
Das Passwort ist falsch.
Diese Statusseite ist nur für die Mitglieder ihres Arbeitsbereichs sichtbar.
Zu viele Versuche. Bitte in {0} erneut versuchen.
Zu viele Versuche. Bitte in etwa {0} erneut versuchen.
etwa {0}
`);

// Hebrew (right to left)
const he = words(`
טוען…
כל המערכות תקינות
ביצועים ירודים
תקלה חלקית
תקלה חמורה
סטטוס לא ידוע
תקין
ירוד
תקלה
מושהה
לא ידוע
שירותים
זמינות {0}
נבדק {0}
זמינות יומית, {0} ימים
אין נתונים
תקריות
אין תקריות.
בבדיקה
זוהה
במעקב
נפתר
עודכן {0}
אין כאן דף סטטוס.
הטעינה נכשלה.
נסו שוב
הדף מוגן בסיסמה.
סיסמה
הצגת הסטטוס
הסיסמה שגויה.
דף הסטטוס הזה פרטי וגלוי רק לחברי סביבת העבודה שלו.
יותר מדי ניסיונות. נסו שוב בעוד {0}.
יותר מדי ניסיונות. נסו שוב בעוד כ־{0}.
כ־{0}
`);

/**
 * The languages the element speaks; any other locale gets English words with its own Intl formats. Hebrew is the
 * one right-to-left table: a new one (Arabic, Persian, Urdu) joins it in messagesFor.
 */
export const MESSAGES: Record<string, Messages> = { en, de, he };

/**
 * The words for a BCP 47 locale such as `de-CH`, their language (for the lang attribute) and writing direction;
 * a language without a table gets English, left to right, while dates and numbers still follow the locale.
 */
export function messagesFor(locale: string): { messages: Messages; lang: string; dir: "ltr" | "rtl" } {
  const wanted = locale.split("-")[0]?.toLowerCase() ?? "en";
  const lang = MESSAGES[wanted] ? wanted : "en";
  return { messages: MESSAGES[lang] as Messages, lang, dir: lang === "he" ? "rtl" : "ltr" };
}
