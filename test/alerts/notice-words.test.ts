// Issue 30: subscribers are told in the page's language (PORCHLIGHT_PAGE_LOCALE). Every language's table says every
// status the notices name; a locale picks its language by its first subtag; times are written from fixed tables in
// UTC, the same on every Node line and ICU build; the sender's chat messages and the owner's preview speak it too.
import { describe, expect, test } from "vitest";
import { mailTime } from "../../server/alerts/notice-emails.ts";
import { hookRequest } from "../../server/alerts/notice-hooks.ts";
import { ENGLISH, noticeWordsFor } from "../../server/alerts/notice-words.ts";
import type { NoticeContent } from "../../server/store/subscribers.ts";

const content: NoticeContent = {
  kind: "incident",
  event: "published",
  page: { id: 1, name: "Acme", slug: "acme", customDomain: null, accentColor: null },
  incident: {
    id: 3,
    title: "Checkout",
    impact: "critical",
    status: "investigating",
    startedAt: "2026-12-08T02:05:00Z",
  },
  update: { status: "investigating", message: "Looking.", at: "2026-12-08T02:05:00.000Z" },
  affected: [{ label: "Checkout", status: "major_outage" }],
};
const links = { pageUrl: "https://s.test/acme", manageUrl: "https://s.test/m", unsubscribeUrl: "https://s.test/u" };

describe("the words of what subscribers receive", () => {
  test("a locale picks its language by its first subtag; one without a table is English", () => {
    expect(noticeWordsFor("de-CH").lang).toBe("de");
    expect(noticeWordsFor("DE").lang).toBe("de");
    expect(noticeWordsFor("he-IL")).toMatchObject({ lang: "he", dir: "rtl" });
    expect(noticeWordsFor("iw").lang).toBe("he");
    expect(noticeWordsFor("fr")).toBe(ENGLISH);
    expect(noticeWordsFor()).toBe(ENGLISH);
  });

  test("every language names every status English names", () => {
    for (const lang of ["de", "he"]) {
      const words = noticeWordsFor(lang);
      expect(Object.keys(words.statuses).sort(), lang).toEqual(Object.keys(ENGLISH.statuses).sort());
      for (const [key, value] of Object.entries(words.statuses)) expect(value, `${lang} ${key}`).not.toBe("");
    }
  });

  test("times are UTC from fixed tables, ending with the clock and UTC", () => {
    expect(mailTime("2026-12-08T02:05:00Z")).toBe("Tue, 8 Dec 2026, 02:05 UTC");
    expect(mailTime("2026-12-08T02:05:00Z", noticeWordsFor("de"))).toBe("Di., 8. Dez. 2026, 02:05 UTC");
    expect(mailTime("2026-03-01T23:59:00+01:00", noticeWordsFor("de"))).toBe("So., 1. März 2026, 22:59 UTC");
    expect(mailTime("2026-12-08T02:05:00Z", noticeWordsFor("he"))).toBe("יום ג׳, 8 בדצמבר 2026, 02:05 UTC");
  });

  test("chat messages and the webhook's summary speak the page's language", () => {
    const de = noticeWordsFor("de");
    const settings = { url: "https://hooks.test/x", signingSecret: "s" };
    const message = { kind: "notice" as const, eventId: "notice-1", content };
    const slack = hookRequest("slack", message, settings, links, "d1", 0, de);
    expect(slack.kind === "http" && slack.body).toContain("Checkout: schwerer Ausfall — wird untersucht");
    expect(slack.kind === "http" && slack.body).toContain("|Abbestellen>");
    const teams = hookRequest("teams", message, settings, links, "d1", 0, de);
    expect(teams.kind === "http" && JSON.parse(teams.body).attachments[0].content.actions[0].title).toBe(
      "Statusseite ansehen",
    );
    const hook = hookRequest("webhook", message, settings, links, "d1", 0, de);
    expect(hook.kind === "http" && JSON.parse(hook.body).summary).toBe("Checkout: schwerer Ausfall — wird untersucht");
    // English unless told.
    const plain = hookRequest("webhook", message, settings, links, "d1", 0);
    expect(plain.kind === "http" && JSON.parse(plain.body).summary).toBe("Checkout: major outage — investigating");
  });
});
