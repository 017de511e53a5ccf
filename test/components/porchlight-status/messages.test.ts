// @vitest-environment happy-dom
import { describe, expect, test } from "vitest";
import { TABLES } from "../../../components/porchlight-status/languages.ts";
import { LANGUAGES, MESSAGES, messagesFor } from "../../../components/porchlight-status/messages.ts";

// The tables as the pages' script has them (porchlight-page.ts adds them).
Object.assign(MESSAGES, TABLES);

describe("messages", () => {
  const english = MESSAGES.en as Record<string, string>;
  const languages = Object.keys(MESSAGES).filter((lang) => lang !== "en");

  test("there are translations, and the embed knows each one the server has", () => {
    expect(languages).toEqual(expect.arrayContaining(["de", "he"]));
    expect(Object.keys(TABLES).sort()).toEqual([...LANGUAGES].sort());
  });

  test.each(languages)(
    "%s has exactly the English keys, each with a non-empty value and the same placeholders",
    (lang) => {
      const table = MESSAGES[lang] as Record<string, string | undefined>;
      expect(Object.keys(table)).toEqual(Object.keys(english));
      for (const [key, value] of Object.entries(table)) {
        expect(typeof value, `${lang}.${key}`).toBe("string");
        expect(value?.trim(), `${lang}.${key}`).not.toBe("");
        expect(value?.includes("{0}"), `${lang}.${key} placeholder`).toBe(english[key]?.includes("{0}"));
      }
    },
  );

  test("messagesFor picks the language of a locale, English otherwise, and the direction", () => {
    expect(messagesFor("de-AT")).toMatchObject({ lang: "de", dir: "ltr" });
    expect(messagesFor("he-IL")).toMatchObject({ lang: "he", dir: "rtl" });
    expect(messagesFor("fr-CA")).toMatchObject({ lang: "en", dir: "ltr", messages: MESSAGES.en });
  });
});
