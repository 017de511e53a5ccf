// Issue 30: what a subscriber's inbox shows. The confirmation, an incident's notice and a maintenance notice, as
// their HTML renders in Chromium at a mail client's width (600 px) and a phone's (375 px): the owner's words escaped,
// nothing loaded from anywhere, the links a subscriber needs. Screenshots: test-artifacts/email-*.png.
import { mkdirSync } from "node:fs";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, expect, test } from "vitest";
import { confirmationEmail, noticeEmail, type SubscriberLinks } from "../../server/alerts/notice-emails.ts";
import { noticeWordsFor } from "../../server/alerts/notice-words.ts";
import type { NoticeContent } from "../../server/store/subscribers.ts";
import { collectPageErrors, describeBrowser, launchChromium } from "../support/browser.ts";

const ARTIFACTS = "test-artifacts";
const page = { id: 1, name: "Acme Status", slug: "acme", customDomain: null, accentColor: "#7c3aed" };
const links: SubscriberLinks = {
  pageUrl: "https://status.acme.test/acme",
  manageUrl: "https://status.acme.test/subscriptions/manage?token=T",
  unsubscribeUrl: "https://status.acme.test/subscriptions/unsubscribe?token=T",
};
const ids = { messageId: "<m@x>", thread: "<m@x>", eventId: "notice-1", listId: "Acme <acme.status.x>" };

const incident: NoticeContent = {
  kind: "incident",
  event: "updated",
  page,
  incident: {
    id: 7,
    title: "Checkout is slow <script>alert(1)</script>",
    impact: "major",
    status: "identified",
    startedAt: "2026-11-21T10:00:00.000Z",
  },
  update: {
    status: "identified",
    message: "Card payments take up to a minute.\n\nWe found a slow database query and are rolling out a fix.",
    at: "2026-11-21T10:20:00.000Z",
  },
  affected: [
    { label: "Checkout", status: "partial_outage" },
    { label: "Search", status: "degraded" },
  ],
};
const maintenance: NoticeContent = {
  kind: "maintenance",
  event: "maintenance_scheduled",
  page,
  window: {
    id: "mw_1",
    title: "Database upgrade",
    description: "We move to a bigger database. Checkout may be slow for a few minutes.",
    recurring: false,
  },
  startsAt: "2026-11-22T02:00:00.000Z",
  endsAt: "2026-11-22T03:00:00.000Z",
  at: "2026-11-21T12:00:00.000Z",
  affected: [{ label: "Checkout", status: "maintenance" }],
};

describeBrowser("a subscriber's e-mails, as a mail client shows them", () => {
  let browser: Browser;
  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  const mails = {
    confirmation: confirmationEmail({
      pageName: page.name,
      accentColor: page.accentColor,
      pageUrl: links.pageUrl,
      confirmUrl: "https://status.acme.test/subscriptions/confirm?token=C",
    }),
    incident: noticeEmail(incident, links, ids),
    maintenance: noticeEmail(maintenance, links, ids),
    // The page's language (PORCHLIGHT_PAGE_LOCALE): German, and Hebrew written right to left.
    "incident-de": noticeEmail(incident, links, ids, noticeWordsFor("de-CH")),
    "incident-he": noticeEmail(incident, links, ids, noticeWordsFor("he")),
    "confirmation-he": confirmationEmail({
      pageName: page.name,
      accentColor: page.accentColor,
      pageUrl: links.pageUrl,
      confirmUrl: "https://status.acme.test/subscriptions/confirm?token=C",
      words: noticeWordsFor("he"),
    }),
  };

  test("each reads whole at 600 and 375 px, loads nothing, escapes the owner's words and links where it says", async () => {
    for (const [name, mail] of Object.entries(mails)) {
      for (const width of [600, 375]) {
        const context = await browser.newContext({ viewport: { width, height: 800 }, javaScriptEnabled: false });
        const tab = await context.newPage();
        const errors = collectPageErrors(tab);
        const requests: string[] = [];
        tab.on("request", (r) => {
          if (!r.url().startsWith("data:") && r.url() !== "about:blank") requests.push(r.url());
        });
        await tab.setContent(mail.html);
        // Nothing is fetched (no images, fonts or pixels), and no script runs however the owner wrote.
        expect(requests, name).toEqual([]);
        expect(await tab.locator("script, img, iframe").count(), name).toBe(0);
        // Nothing overflows the phone's width.
        const overflow = await tab.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        expect(overflow, `${name} at ${width}`).toBeLessThanOrEqual(0);
        await tab.screenshot({ path: `${ARTIFACTS}/email-${name}-${width}.png`, fullPage: true });
        expect(errors).toEqual([]);
        await context.close();
      }
    }
    const context = await browser.newContext({ viewport: { width: 600, height: 800 } });
    const tab = await context.newPage();
    await tab.setContent(mails.incident.html);
    expect(await tab.locator("h1").textContent()).toBe("Checkout is slow <script>alert(1)</script>");
    expect(await tab.locator("a", { hasText: "Unsubscribe" }).getAttribute("href")).toBe(links.unsubscribeUrl);
    expect(await tab.locator("a", { hasText: "Choose services" }).getAttribute("href")).toBe(links.manageUrl);
    expect(await tab.locator("a", { hasText: "View the status page" }).getAttribute("href")).toBe(links.pageUrl);
    expect(await tab.locator("li").allTextContents()).toEqual([
      "Checkout: partial outage",
      "Search: degraded performance",
    ]);
    // In German: the subject, the statuses, the links' words and the time; the owner's words as written.
    expect(mails["incident-de"].subject).toBe(
      "[Acme Status] Checkout is slow <script>alert(1)</script>: teilweiser Ausfall — Ursache erkannt",
    );
    await tab.setContent(mails["incident-de"].html);
    expect(await tab.locator("html").getAttribute("lang")).toBe("de");
    expect(await tab.locator("a", { hasText: "Abbestellen" }).getAttribute("href")).toBe(links.unsubscribeUrl);
    expect(await tab.locator("a", { hasText: "Statusseite ansehen" }).getAttribute("href")).toBe(links.pageUrl);
    expect(await tab.locator("li").allTextContents()).toEqual([
      "Checkout: teilweiser Ausfall",
      "Search: eingeschränkte Leistung",
    ]);
    expect(mails["incident-de"].text).toContain("Ursache erkannt — Sa., 21. Nov. 2026, 10:20 UTC");
    // In Hebrew: right to left, on the document and on the message itself (some readers drop the html element's).
    await tab.setContent(mails["incident-he"].html);
    expect(await tab.locator("html").getAttribute("dir")).toBe("rtl");
    expect(await tab.locator("body > div").getAttribute("dir")).toBe("rtl");
    // The owner's English title and paragraphs keep their own direction: their full stops stay at their ends.
    expect(await tab.locator('h1[dir="auto"], p[dir="auto"]').count()).toBe(3);
    expect(await tab.locator("a", { hasText: "ביטול ההרשמה" }).getAttribute("href")).toBe(links.unsubscribeUrl);
    expect(mails["confirmation-he"].subject).toBe("[Acme Status] אישור ההרשמה");
    await tab.setContent(mails.maintenance.html);
    expect(await tab.locator("p", { hasText: "Scheduled for" }).textContent()).toBe(
      "Scheduled for Sun, 22 Nov 2026, 02:00 – 03:00 UTC",
    );
    await context.close();
  });
});
