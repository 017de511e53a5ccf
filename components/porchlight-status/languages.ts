/**
 * The element's words in its other languages, one per line in the order of the English table (messages.ts; a test
 * holds them to it). The embed script does not carry them: the build writes each as dist/embed/words-LANG.json, which
 * the element fetches when its locale asks for one (messages.ts, LANGUAGES). The server renders pages in any of them
 * (server/pages/render.ts adds them to MESSAGES) and inlines the page's own beside its data, which the pages' script
 * reads (porchlight-page.ts): it carries English only too.
 */
import { KEYS, type Messages } from "./messages.ts";

/** A table from its lines. */
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
Teilweiser Ausfall
Schwerer Ausfall
Pausiert
Unbekannt
Dienste
{0} Verfügbarkeit
tägliche Verfügbarkeit, {0} Tage
keine Daten
Vergangene Vorfälle
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
etwa {0}
Betroffen: {0}
Aktuelle Vorfälle
Aktualisierungen
Wartungsarbeiten
Wartung
Läuft
Geplant
+{0} frühere Aktualisierungen
+{0} frühere Aktualisierung
{0} ausgefallen
Kein Ausfall
Geringe Auswirkung
Erhebliche Auswirkung
Kritische Auswirkung
Passwort anzeigen
Updates abonnieren
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
תקלה חלקית
תקלה חמורה
מושהה
לא ידוע
שירותים
זמינות {0}
זמינות יומית, {0} ימים
אין נתונים
תקריות קודמות
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
כ־{0}
מושפעים: {0}
תקריות פעילות
עדכונים
בתחזוקה
תחזוקה
בביצוע
מתוכננת
+{0} עדכונים קודמים
+{0} עדכון קודם
{0} השבתה
ללא השבתה
השפעה קלה
השפעה משמעותית
השפעה קריטית
הצגת הסיסמה
הרשמה לעדכונים
`);

/** The tables by language, as the build writes them. */
export const TABLES: Record<string, Messages> = { de, he };
