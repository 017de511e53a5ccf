// @vitest-environment happy-dom
// Issue 17, part 6: the protected and error states. Retry only where asking again can help, a private page that
// explains itself without a link back to itself, a rate limit's wait in words in every language the element speaks,
// and the focus on the page's heading once a password unlocks it.
import { describe, expect, test } from "vitest";
import { formatsFor } from "../../../components/porchlight-status/format.ts";
import { MESSAGES } from "../../../components/porchlight-status/messages.ts";
import {
  $,
  answers,
  json,
  mount,
  page,
  problem,
  root,
  settle,
  squash,
  stubFetch,
  submitPassword,
  text,
} from "./helpers.ts";

describe("retry only where asking again can help", () => {
  test.each([
    ["a 404 (no such page)", () => problem(404, "not_found"), "No such status page.", false],
    [
      "a private page",
      () => problem(401, "sign_in_required"),
      "This status page is private to its workspace's members.",
      false,
    ],
    ["a server error", () => problem(500, "internal"), "Could not load the status.", true],
    ["a 503 without a body", () => new Response(null, { status: 503 }), "Could not load the status.", true],
    ["a network failure", () => new TypeError("Failed to fetch"), "Could not load the status.", true],
  ] as const)("%s", async (_name, answer, heading, retry) => {
    answers(answer);
    const el = await mount({ locale: "en" });
    expect(text($(el, "h2#name") as HTMLElement)).toBe(heading);
    expect($(el, "a")).toBeNull();
    const button = $(el, 'button[part="button"]');
    expect(button !== null).toBe(retry);
    if (button) expect(text(button)).toBe("Try again");
  });

  test("the private page's explanation is in each language, with no link", async () => {
    for (const [locale, words] of Object.entries(MESSAGES)) {
      answers(() => problem(401, "sign_in_required"));
      const el = await mount({ locale });
      expect(text($(el, "h2#name") as HTMLElement)).toBe(words.private);
      expect($(el, "a, button")).toBeNull();
      el.remove();
    }
  });
});

describe("a rate limit's wait, in words", () => {
  test.each([
    [1, "1 second", false],
    [40, "40 seconds", false],
    [59, "59 seconds", false],
    [60, "1 minute", false],
    [61, "1 minute", true],
    [894, "15 minutes", true],
    [900, "15 minutes", false],
    [3569, "59 minutes", true],
    [3570, "1 hour", true],
    [7200, "2 hours", false],
    [86_400, "24 hours", false],
  ])("%i seconds: %s (rounded: %s)", (seconds, words, rounded) => {
    // A no-break space keeps the number with its unit.
    expect(formatsFor("en").wait(seconds)).toEqual([words.replace(" ", "\xa0"), rounded]);
  });

  const cases: [string, string, string][] = [
    ["en", "894", "Too many attempts. Try again in about 15 minutes."],
    ["en", "40", "Too many attempts. Try again in 40 seconds."],
    ["en", "7200", "Too many attempts. Try again in 2 hours."],
    ["de", "894", "Zu viele Versuche. Bitte in etwa 15 Minuten erneut versuchen."],
    ["de", "40", "Zu viele Versuche. Bitte in 40 Sekunden erneut versuchen."],
    ["he", "894", "יותר מדי ניסיונות. נסו שוב בעוד כ־15 דקות."],
    ["he", "40", "יותר מדי ניסיונות. נסו שוב בעוד 40 שניות."],
  ];
  test.each(cases)("%s, Retry-After %s: %s", async (locale, retryAfter, sentence) => {
    answers(() => problem(429, "rate_limited", { "Retry-After": retryAfter }));
    const el = await mount({ locale });
    expect(text($(el, '[role="alert"]') as HTMLElement)).toBe(sentence);
  });

  test("every language says it in words, never as a count of seconds, and without Retry-After says about", async () => {
    for (const [locale, words] of Object.entries(MESSAGES)) {
      answers(() => problem(429, "rate_limited", { "Retry-After": "894" }));
      const el = await mount({ locale });
      const alert = text($(el, '[role="alert"]') as HTMLElement);
      expect(alert).not.toMatch(/894|sec\b|Sek\.|שנ׳/);
      const about = (seconds: number) => words.about.replace("{0}", formatsFor(locale).wait(seconds)[0]);
      expect(alert).toBe(squash(words.limited.replace("{0}", about(894))));
      el.remove();

      answers(() => problem(429, "rate_limited"));
      const unnamed = await mount({ locale });
      expect(text($(unnamed, '[role="alert"]') as HTMLElement)).toBe(squash(words.limited.replace("{0}", about(60))));
      unnamed.remove();
    }
  });
});

describe("the focus after unlocking", () => {
  const unlockable = () =>
    stubFetch((call) => {
      const password = call.headers.get("x-status-page-password");
      if (!password) return problem(401, "password_required");
      return password === "right" ? json(page()) : problem(401, "password_incorrect");
    });

  test("the page's heading is focusable but no tab stop", async () => {
    answers(() => json(page()));
    const el = await mount();
    expect(($(el, '[part="header"] h2') as HTMLElement).getAttribute("tabindex")).toBe("-1");
  });

  test("moves to the page's heading, not to the body", async () => {
    unlockable();
    const el = await mount();
    ($(el, "input#password") as HTMLInputElement).focus();
    await submitPassword(el, "wrong");
    expect(root(el).activeElement?.id).toBe("password");
    await submitPassword(el, "right");
    const heading = $(el, '[part="header"] h2') as HTMLElement;
    expect(text(heading)).toBe("Acme Status");
    expect(root(el).activeElement).toBe(heading);
    // Later renders (the daily bars, refreshes) leave the focus where the visitor has it.
    heading.blur();
    el.reload();
    await settle(el);
    expect(root(el).activeElement).toBeNull();
  });

  test("stays where the visitor took it while the answer was on its way", async () => {
    unlockable();
    const elsewhere = document.createElement("button");
    const el = await mount();
    document.body.append(elsewhere);
    ($(el, "input#password") as HTMLInputElement).value = "right";
    ($(el, 'form[part="form"] button') as HTMLButtonElement).click();
    elsewhere.focus();
    await settle(el);
    expect($(el, '[part="header"] h2')).not.toBeNull();
    expect(document.activeElement).toBe(elsewhere);
    expect(root(el).activeElement).toBeNull();
  });
});
