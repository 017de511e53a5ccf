// @vitest-environment happy-dom
import { describe, expect, test } from "vitest";
import { messagesFor } from "../../../components/porchlight-status/messages.ts";
import type { PorchlightStatus } from "../../../components/porchlight-status/porchlight-status.ts";
import type { Incident } from "../../../server/contract/status-page.ts";
import {
  $,
  API,
  answers,
  base,
  calls,
  colorScheme,
  isoDay,
  item,
  json,
  MINUTE,
  mount,
  PAGE_URL,
  page,
  problem,
  SLUG,
  settle,
  squash,
  stubFetch,
  text,
} from "./helpers.ts";

describe("attributes and properties", () => {
  test("defaults: refresh 60, booleans false, strings empty", () => {
    const el = document.createElement("porchlight-status") as PorchlightStatus;
    expect(el.refresh).toBe(60);
    expect(el.compact).toBe(false);
    expect(el.rememberPassword).toBe(false);
    expect(el.slug).toBe("");
    expect(el.apiBase).toBe("");
    expect(el.theme).toBe("");
    expect(el.locale).toBe("");
  });

  test("attributes set the properties: slug, api-base, refresh (a number), compact, remember-password", async () => {
    answers(() => json(page()));
    const el = await mount({ refresh: "30", compact: true, "remember-password": true, theme: "dark", locale: "de" });
    expect(el.slug).toBe(SLUG);
    expect(el.apiBase).toBe(API);
    expect(el.refresh).toBe(30);
    expect(el.compact).toBe(true);
    expect(el.rememberPassword).toBe(true);
    expect(el.theme).toBe("dark");
    expect(el.locale).toBe("de");
  });

  test("api-base loses its trailing slashes", async () => {
    answers(() => json(page()));
    await mount({ "api-base": "https://example.test/porchlight///" });
    expect(calls[0]?.url).toBe("https://example.test/porchlight/public/v1/status-page/acme");
  });

  test("a new slug fetches the new page and forgets the old one", async () => {
    stubFetch((call) => json(page({ name: call.url.endsWith("/acme") ? "Acme Status" : "Other Status" })));
    const el = await mount();
    el.slug = "other";
    await el.updateComplete;
    await settle(el);
    expect(calls.map((call) => call.url)).toEqual([PAGE_URL, `${API}/public/v1/status-page/other`]);
    expect(text($(el, '[part="header"] h2') as HTMLElement)).toBe("Other Status");
  });

  test.each([
    ["light", "light"],
    ["dark", "dark"],
    ["auto", "light dark"],
  ])("theme=%s → color-scheme %s, whatever the page's theme", async (theme, scheme) => {
    answers(() => json(page({ theme: { mode: "dark", accentColor: "#123456" } })));
    const el = await mount({ theme });
    expect(colorScheme(el)).toBe(scheme);
  });

  test.each([
    ["light", "light"],
    ["dark", "dark"],
    // An embed is light unless asked: in a light host page a visitor's dark setting would make it a black box.
    ["auto", "light"],
  ] as const)("without a theme attribute the page's theme %s → color-scheme %s", async (mode, scheme) => {
    answers(() => json(page({ theme: { mode, accentColor: "#123456" } })));
    const el = await mount();
    expect(colorScheme(el)).toBe(scheme);
    expect(base(el).getAttribute("style")).toContain("--_accent:#123456");
  });

  test("before its page comes, an embed without a theme is light too: the skeleton and a prompt", async () => {
    stubFetch(() => new Promise<Response>(() => {}));
    const loading = await mount();
    expect(colorScheme(loading)).toBe("light");
    answers(() => problem(401, "password_required"));
    const prompt = await mount();
    expect($(prompt, "form")).not.toBeNull();
    expect(colorScheme(prompt)).toBe("light");
    const asked = await mount({ theme: "auto" });
    expect(colorScheme(asked)).toBe("light dark");
  });

  test('locale="de" speaks German with lang="de"', async () => {
    answers(() => json(page()));
    const el = await mount({ locale: "de" });
    expect(text($(el, '[part="banner"]') as HTMLElement)).toBe("Alle Systeme betriebsbereit");
    expect(text(el)).toContain("Betriebsbereit");
    expect(base(el).getAttribute("lang")).toBe("de");
    expect(base(el).getAttribute("dir")).toBe("ltr");
  });

  test('locale="he" speaks Hebrew, right to left', async () => {
    answers(() => json(page()));
    const el = await mount({ locale: "he" });
    expect(text($(el, '[part="banner"]') as HTMLElement)).toBe("כל המערכות תקינות");
    expect(base(el).getAttribute("lang")).toBe("he");
    expect(base(el).getAttribute("dir")).toBe("rtl");
  });

  test('locale="fr" falls back to English words (lang="en") with French number formats', async () => {
    answers(() => json(page({ items: [item({ uptime: 99.5 })] })));
    const el = await mount({ locale: "fr" });
    expect(text($(el, '[part="banner"]') as HTMLElement)).toBe("All systems operational");
    expect(base(el).getAttribute("lang")).toBe("en");
    expect(base(el).getAttribute("dir")).toBe("ltr");
    const percent = new Intl.NumberFormat("fr", { style: "percent", minimumFractionDigits: 2 }).format(0.995);
    expect(text(el)).toContain(squash(`${percent} uptime`)); // "99,50 % uptime", with French spacing
  });

  test("a locale Intl rejects falls back to English words and formats", async () => {
    answers(() => json(page()));
    const el = await mount({ locale: "not a locale!" });
    expect(text($(el, '[part="banner"]') as HTMLElement)).toBe("All systems operational");
    expect(text(el)).toContain("99.50% uptime");
    expect(base(el).getAttribute("lang")).toBe("en");
  });

  test("without a locale the browser's language is used; the locale can change later", async () => {
    answers(() => json(page()));
    const el = await mount();
    expect(base(el).getAttribute("lang")).toBe(messagesFor(navigator.language).lang);
    el.locale = "de-CH";
    await el.updateComplete;
    expect(base(el).getAttribute("lang")).toBe("de");
    expect(text($(el, '[part="banner"]') as HTMLElement)).toBe("Alle Systeme betriebsbereit");
  });

  test("compact: no description, no bars or timelines, resolved incidents hidden, open ones shown", async () => {
    const incident = (id: number, title: string, resolved: boolean): Incident => ({
      id,
      title,
      status: resolved ? "resolved" : "monitoring",
      started_at: new Date(Date.now() - 3 * 60 * MINUTE).toISOString(),
      resolved_at: resolved ? new Date(Date.now() - 60 * MINUTE).toISOString() : null,
      duration_minutes: resolved ? 120 : null,
      impact: "none" as const,
      affected: [],
      updates: [{ timestamp: new Date().toISOString(), status: "monitoring", message: "Timeline message" }],
    });
    answers(() =>
      json(
        page({
          items: [item({ history: [{ date: isoDay(0), uptime: 100 }] })],
          incidents: [incident(2, "Open incident", false), incident(1, "Old incident", true)],
        }),
      ),
    );
    const el = await mount({ compact: true });
    expect($(el, '[part="header"] p')).toBeNull();
    expect(text(el)).not.toContain("Everything Acme runs.");
    expect($(el, '[part="history"]')).toBeNull();
    expect(text(el)).toContain("Operational");
    expect(text(el)).toContain("Open incident");
    expect(text(el)).toContain("Monitoring");
    expect(text(el)).not.toContain("Old incident");
    expect(text(el)).not.toContain("Timeline message");

    el.compact = false;
    await el.updateComplete;
    expect(text(el)).toContain("Old incident");
    expect(text(el)).toContain("Everything Acme runs.");
    expect($(el, '[part="history"]')).not.toBeNull();
  });
});
