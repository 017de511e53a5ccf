// @vitest-environment happy-dom
// The embed script carries English only: another language's words come from the server (dist/embed/words-LANG.json,
// built from languages.ts) when the locale asks for them, once per document, with the skeleton shown meanwhile.
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { TABLES } from "../../../components/porchlight-status/languages.ts";
import { LANGUAGES, MESSAGES } from "../../../components/porchlight-status/messages.ts";
import { $, API, base, calls, json, mount, PAGE_URL, page, pageWith, settle, stubFetch, text } from "./helpers.ts";

const WORDS_URL = (lang: string) => `${API}/embed/words-${lang}.json`;

describe("words fetched for the locale", () => {
  // The suites' helpers load every language; here German and Hebrew have not come yet.
  const saved = { ...MESSAGES };
  const languages = [...LANGUAGES];
  beforeEach(() => {
    delete MESSAGES.de;
    delete MESSAGES.he;
  });
  afterEach(() => {
    Object.assign(MESSAGES, saved);
    LANGUAGES.splice(0, LANGUAGES.length, ...languages);
  });

  test("German: the skeleton until the words come, then the page in German; one request for every element", async () => {
    let release: (response: Response) => void = () => {};
    const words = new Promise<Response>((resolve) => (release = resolve));
    stubFetch((call) => (call.url === WORDS_URL("de") ? words : json(pageWith("operational", "major_outage"))));
    const el = await mount({ locale: "de-AT" });
    // The page came, its words not yet: nothing in English shows in their place.
    expect(calls.map((call) => call.url).sort()).toEqual([PAGE_URL, WORDS_URL("de")].sort());
    expect($(el, '[part="skeleton"]')).not.toBeNull();
    expect($(el, '[part="banner"]')).toBeNull();

    release(json(TABLES.de));
    await settle(el);
    await settle(el);
    expect(text($(el, '[part="banner"] span') as HTMLElement)).toBe("Teilweiser Ausfall");
    expect(text($(el, '[part="banner"] p') as HTMLElement)).toBe("Schwerer Ausfall: Service 1");
    expect(base(el).getAttribute("lang")).toBe("de");

    // A second element in German asks for its page only.
    calls.splice(0);
    const second = await mount({ locale: "de" });
    expect(calls.filter((call) => call.url === WORDS_URL("de"))).toHaveLength(0);
    expect(text($(second, '[part="banner"] span') as HTMLElement)).toBe("Teilweiser Ausfall");
  });

  test("words the server does not have: English, and lang=en, without asking again", async () => {
    stubFetch((call) => (call.url.includes("/embed/") ? json({ error: "not_found" }, 404) : json(page())));
    // A 404's body is JSON here: still no words.
    const el = await mount({ locale: "he" });
    await settle(el);
    await settle(el);
    expect(calls.map((call) => call.url)).toContain(WORDS_URL("he"));
    expect(text($(el, '[part="banner"] span') as HTMLElement)).toBe("All systems operational");
    expect(base(el).getAttribute("lang")).toBe("en");
    expect(base(el).getAttribute("dir")).toBe("ltr");
    calls.splice(0);
    const again = await mount({ locale: "he" });
    expect(calls.map((call) => call.url)).not.toContain(WORDS_URL("he"));
    expect(text($(again, '[part="banner"] span') as HTMLElement)).toBe("All systems operational");
  });

  test("English and a language without words ask the server for none", async () => {
    stubFetch(() => json(page()));
    await mount({ locale: "en-GB" });
    await mount({ locale: "fr" });
    expect(calls.every((call) => call.url === PAGE_URL)).toBe(true);
  });
});
