/**
 * The words of what subscribers receive (e-mails, chat messages, a webhook's summary), in each language the status
 * page speaks (PORCHLIGHT_PAGE_LOCALE: the element's English, German and Hebrew). Times are written in UTC from fixed
 * tables, never through Intl, so a message reads the same on every Node line and ICU build. Another language is one
 * more table here, with the element's (components/porchlight-status/languages.ts).
 */

export interface NoticeWords {
  lang: string;
  dir: "ltr" | "rtl";
  /** Incident and service statuses, as a sentence uses them ("partial outage — investigating"). */
  statuses: Record<string, string>;
  affectedServices: string;
  servicesUnderMaintenance: string;
  viewPage: string;
  statusPage: string;
  chooseServices: string;
  unsubscribe: string;
  youReceive(page: string): string;
  confirmSubject(page: string): string;
  confirmHeading(page: string): string;
  confirmAsked(page: string): string;
  confirmWithin(hours: number): string;
  linkWorks(hours: number): string;
  confirmIgnore: string;
  confirmButton: string;
  maintenanceScheduledFor(time: string): string;
  maintenanceInProgress: string;
  maintenanceCompleted: string;
  scheduledSpan(span: string): string;
  inProgressUntil(time: string): string;
  completedAt(time: string): string;
  repeats: string;
  testWorks(page: string): string;
  subscribed: string;
  /** A UTC time from its parts; it ends with ", HH:MM UTC" (a span on one day keeps the end's clock only). */
  time(t: { day: number; date: number; month: number; year: number; hm: string }): string;
}

const en: NoticeWords = {
  lang: "en",
  dir: "ltr",
  statuses: {
    investigating: "investigating",
    identified: "identified",
    monitoring: "monitoring",
    resolved: "resolved",
    major_outage: "major outage",
    partial_outage: "partial outage",
    degraded: "degraded performance",
    maintenance: "under maintenance",
    operational: "operational",
  },
  affectedServices: "Affected services",
  servicesUnderMaintenance: "Services under maintenance",
  viewPage: "View the status page",
  statusPage: "Status page",
  chooseServices: "Choose services",
  unsubscribe: "Unsubscribe",
  youReceive: (page) => `You receive this because you subscribed to ${page}.`,
  confirmSubject: (page) => `[${page}] Confirm your subscription`,
  confirmHeading: (page) => `Confirm your subscription to ${page}`,
  confirmAsked: (page) => `Someone, probably you, asked to be told by e-mail when ${page} reports an incident.`,
  confirmWithin: (hours) => `Confirm within ${hours} hours:`,
  linkWorks: (hours) => `The link works for ${hours} hours.`,
  confirmIgnore: "If it was not you, ignore this message: nothing more will be sent.",
  confirmButton: "Confirm the subscription",
  maintenanceScheduledFor: (time) => `maintenance scheduled for ${time}`,
  maintenanceInProgress: "maintenance in progress",
  maintenanceCompleted: "maintenance completed",
  scheduledSpan: (span) => `Scheduled for ${span}`,
  inProgressUntil: (time) => `In progress until ${time}`,
  completedAt: (time) => `Completed at ${time}`,
  repeats: "This maintenance repeats; this is its next time. The status page shows the times after it.",
  testWorks: (page) => `This subscription to ${page} works: incidents and maintenance will be posted here.`,
  subscribed: "subscribed",
  time: ({ day, date, month, year, hm }) =>
    `${["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"][day]}, ${date} ${
      ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"][month]
    } ${year}, ${hm} UTC`,
};

const de: NoticeWords = {
  lang: "de",
  dir: "ltr",
  statuses: {
    investigating: "wird untersucht",
    identified: "Ursache erkannt",
    monitoring: "wird beobachtet",
    resolved: "behoben",
    major_outage: "schwerer Ausfall",
    partial_outage: "teilweiser Ausfall",
    degraded: "eingeschränkte Leistung",
    maintenance: "in Wartung",
    operational: "betriebsbereit",
  },
  affectedServices: "Betroffene Dienste",
  servicesUnderMaintenance: "Dienste in Wartung",
  viewPage: "Statusseite ansehen",
  statusPage: "Statusseite",
  chooseServices: "Dienste wählen",
  unsubscribe: "Abbestellen",
  youReceive: (page) => `Sie erhalten diese Nachricht, weil Sie ${page} abonniert haben.`,
  confirmSubject: (page) => `[${page}] Bitte bestätigen Sie Ihr Abonnement`,
  confirmHeading: (page) => `Abonnement für ${page} bestätigen`,
  confirmAsked: (page) =>
    `Jemand, vermutlich Sie, möchte per E-Mail benachrichtigt werden, wenn ${page} eine Störung meldet.`,
  confirmWithin: (hours) => `Bestätigen Sie innerhalb von ${hours} Stunden:`,
  linkWorks: (hours) => `Der Link gilt ${hours} Stunden.`,
  confirmIgnore: "Falls Sie das nicht waren, ignorieren Sie diese Nachricht: Es wird nichts weiter gesendet.",
  confirmButton: "Abonnement bestätigen",
  maintenanceScheduledFor: (time) => `Wartung geplant für ${time}`,
  maintenanceInProgress: "Wartung läuft",
  maintenanceCompleted: "Wartung abgeschlossen",
  scheduledSpan: (span) => `Geplant: ${span}`,
  inProgressUntil: (time) => `Läuft bis ${time}`,
  completedAt: (time) => `Abgeschlossen am ${time}`,
  repeats: "Diese Wartung wiederholt sich; dies ist ihr nächster Termin. Die Statusseite zeigt die Termine danach.",
  testWorks: (page) => `Dieses Abonnement für ${page} funktioniert: Störungen und Wartungen werden hier gemeldet.`,
  subscribed: "abonniert",
  time: ({ day, date, month, year, hm }) =>
    `${["So.", "Mo.", "Di.", "Mi.", "Do.", "Fr.", "Sa."][day]}, ${date}. ${
      ["Jan.", "Feb.", "März", "Apr.", "Mai", "Juni", "Juli", "Aug.", "Sept.", "Okt.", "Nov.", "Dez."][month]
    } ${year}, ${hm} UTC`,
};

const he: NoticeWords = {
  lang: "he",
  dir: "rtl",
  statuses: {
    investigating: "בבדיקה",
    identified: "הגורם זוהה",
    monitoring: "במעקב",
    resolved: "נפתר",
    major_outage: "השבתה מלאה",
    partial_outage: "השבתה חלקית",
    degraded: "ביצועים ירודים",
    maintenance: "בתחזוקה",
    operational: "תקין",
  },
  affectedServices: "שירותים מושפעים",
  servicesUnderMaintenance: "שירותים בתחזוקה",
  viewPage: "לדף הסטטוס",
  statusPage: "דף הסטטוס",
  chooseServices: "בחירת שירותים",
  unsubscribe: "ביטול ההרשמה",
  youReceive: (page) => `הודעה זו נשלחה אליכם כי נרשמתם לעדכונים של ${page}.`,
  confirmSubject: (page) => `[${page}] אישור ההרשמה`,
  confirmHeading: (page) => `אישור ההרשמה לעדכונים של ${page}`,
  confirmAsked: (page) => `מישהו, כנראה אתם, ביקש לקבל הודעה בדוא״ל כאשר ${page} מדווח על תקלה.`,
  confirmWithin: (hours) => `יש לאשר תוך ${hours} שעות:`,
  linkWorks: (hours) => `הקישור תקף ${hours} שעות.`,
  confirmIgnore: "אם לא אתם ביקשתם, התעלמו מהודעה זו: לא יישלח דבר נוסף.",
  confirmButton: "אישור ההרשמה",
  maintenanceScheduledFor: (time) => `תחזוקה מתוכננת ל${time}`,
  maintenanceInProgress: "תחזוקה מתבצעת",
  maintenanceCompleted: "התחזוקה הסתיימה",
  scheduledSpan: (span) => `מתוכננת: ${span}`,
  inProgressUntil: (time) => `מתבצעת עד ${time}`,
  completedAt: (time) => `הסתיימה ב${time}`,
  repeats: "תחזוקה זו חוזרת; זה המועד הבא שלה. דף הסטטוס מציג את המועדים שאחריו.",
  testWorks: (page) => `ההרשמה לעדכונים של ${page} פועלת: תקלות ותחזוקה יפורסמו כאן.`,
  subscribed: "ההרשמה פעילה",
  time: ({ day, date, month, year, hm }) =>
    `יום ${["א׳", "ב׳", "ג׳", "ד׳", "ה׳", "ו׳", "ש׳"][day]}, ${date} ב${
      ["ינואר", "פברואר", "מרץ", "אפריל", "מאי", "יוני", "יולי", "אוגוסט", "ספטמבר", "אוקטובר", "נובמבר", "דצמבר"][
        month
      ]
    } ${year}, ${hm} UTC`,
};

const LANGUAGES: Record<string, NoticeWords> = { en, de, he, iw: he };

/** The words for a BCP 47 locale (de-CH speaks de), English for a language without a table. */
export function noticeWordsFor(locale = "en"): NoticeWords {
  return LANGUAGES[locale.toLowerCase().split("-")[0] ?? "en"] ?? en;
}

export const ENGLISH = en;
