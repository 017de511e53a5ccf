// @vitest-environment happy-dom
// Issue 17, part 3: the element's times and durations, at fixed instants in fixed zones (never this machine's zone
// or today's date), and a page as the server renders it: every time in UTC and named so, nothing relative to now.
import { describe, expect, test } from "vitest";
import { formatsFor } from "../../../components/porchlight-status/format.ts";
import type { PublicStatusPage } from "../../../server/contract/status-page.ts";
import { renderDocument } from "../../../server/pages/render.ts";
import { item, MINUTE, page, squash } from "./helpers.ts";

/** An update at 06:37 UTC: 10:37 PM the evening before in Los Angeles, 3:37 PM in Tokyo. */
const AT = "2026-11-24T06:37:00.000Z";
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

describe("absolute times name their zone", () => {
  test.each([
    ["en-US", "UTC", "Nov 24, 2026, 6:37 AM UTC"],
    ["en-US", "America/Los_Angeles", "Nov 23, 2026, 10:37 PM PST"],
    ["en-US", "Asia/Tokyo", "Nov 24, 2026, 3:37 PM GMT+9"],
    ["de", "Europe/Berlin", "24. Nov. 2026, 07:37 MEZ"],
    ["en-GB", "UTC", "24 Nov 2026, 06:37 UTC"],
  ])("%s in %s: %s", (locale, zone, expected) => {
    expect(squash(formatsFor(locale, zone).when(AT))).toBe(expected);
  });

  test("an epoch number is the same instant as its ISO string", () => {
    const f = formatsFor("en-US", "Asia/Tokyo");
    expect(f.when(Date.parse(AT))).toBe(f.when(AT));
  });

  test("a span's end gives only its time and zone on the same day in that zone, else its date too", () => {
    const end = "2026-11-24T08:07:00.000Z";
    expect(squash(formatsFor("en-US", "UTC").until(AT, end))).toBe("8:07 AM UTC");
    expect(squash(formatsFor("en-US", "Asia/Tokyo").until(AT, end))).toBe("5:07 PM GMT+9");
    // 10:37 PM to 12:07 AM crosses midnight in Los Angeles.
    expect(squash(formatsFor("en-US", "America/Los_Angeles").until(AT, end))).toBe("Nov 24, 2026, 12:07 AM PST");
  });

  test("formats are made once per locale and zone", () => {
    expect(formatsFor("en-US", "UTC")).toBe(formatsFor("en-US", "UTC"));
    expect(formatsFor("en-US", "UTC")).not.toBe(formatsFor("en-US", "Asia/Tokyo"));
    expect(formatsFor("en-US")).not.toBe(formatsFor("en-US", "UTC"));
  });
});

describe("relative times", () => {
  const now = Date.parse(AT);
  test.each([
    [0, "now"],
    [-20_000, "20 seconds ago"],
    [-3 * MINUTE, "3 minutes ago"],
    [-44 * MINUTE, "44 minutes ago"],
    [-5 * HOUR, "5 hours ago"],
    [-DAY, "yesterday"],
    [-3 * DAY, "3 days ago"],
  ])("%i ms from now: %s", (offset, expected) => {
    expect(formatsFor("en").ago(now + offset, now)).toBe(expected);
  });
});

describe("durations in words", () => {
  test.each([
    [15 * MINUTE, "15 minutes", false],
    [14 * MINUTE + 37_000, "15 minutes", false],
    [20_000, "1 minute", true],
    [0, "1 minute", true],
    [90 * MINUTE, "1 hour 30 minutes", false],
    [2 * HOUR, "2 hours", false],
    [2 * HOUR + 10 * MINUTE + 20_000, "2 hours 10 minutes", false],
    [DAY + 2 * HOUR + 29 * MINUTE, "1 day 2 hours", true],
    [DAY + 2 * HOUR, "1 day 2 hours", false],
    [3 * DAY, "3 days", false],
    [3 * DAY + 20 * MINUTE, "3 days", true],
  ])("%i ms: %s (rounded: %s)", (ms, words, rounded) => {
    const [text, wasRounded] = formatsFor("en").duration(ms);
    expect(squash(text)).toBe(words);
    // Number and unit never part at a line's end.
    expect(text).not.toMatch(/\d /);
    expect(wasRounded).toBe(rounded);
  });

  test("in the locale's words", () => {
    expect(squash(formatsFor("de").duration(2 * HOUR + 10 * MINUTE)[0])).toBe("2 Stunden 10 Minuten");
  });
});

describe("a page as the server renders it (hosted and static)", () => {
  const at = Date.parse(AT);
  const data: PublicStatusPage = page({
    items: [item({ last_check: new Date(at - 5 * MINUTE).toISOString() })],
    incidents: [
      {
        id: 2,
        title: "Slow checkout",
        status: "identified",
        started_at: new Date(at - 2 * HOUR).toISOString(),
        resolved_at: null,
        duration_minutes: null,
        impact: "none" as const,
        affected: [],
        updates: [{ timestamp: new Date(at - HOUR).toISOString(), status: "identified", message: "A bad deploy." }],
      },
      {
        id: 1,
        title: "Login outage",
        status: "resolved",
        started_at: new Date(at - 3 * DAY).toISOString(),
        resolved_at: new Date(at - 3 * DAY + 90 * MINUTE).toISOString(),
        duration_minutes: 90,
        impact: "none" as const,
        affected: [],
        updates: [],
      },
    ],
  });
  const html = renderDocument({
    slug: "acme",
    data,
    at,
    base: "/",
    canonical: null,
    script: "porchlight-page.js",
    apiBase: "",
    locale: "en-US",
  });
  const text = squash(html.replace(/<[^>]*>/g, " "));

  test("every time is absolute, in UTC, named so, in a <time> with its instant", () => {
    expect(text).toContain("Updated Nov 24, 2026, 6:37 AM UTC");
    expect(text).toContain("Identified Nov 24, 2026, 4:37 AM UTC");
    // The latest update without its phase, which the incident's chip says.
    expect(text).toContain("UTC Nov 24, 2026, 5:37 AM UTC A bad deploy.");
    expect(text).toContain("Resolved Nov 21, 2026, 6:37 AM UTC – 8:07 AM UTC · 1 hour 30 minutes");
    const times = [...html.matchAll(/<time datetime="([^"]+)"[^>]*>(?:<!--[^>]*-->)*([^<]*)/g)];
    expect(times.map(([, iso]) => iso)).toEqual([
      AT,
      new Date(at - 2 * HOUR).toISOString(),
      new Date(at - HOUR).toISOString(),
      new Date(at - 3 * DAY).toISOString(),
      new Date(at - 3 * DAY + 90 * MINUTE).toISOString(),
    ]);
    for (const [, , shown] of times) expect(shown).toMatch(/ UTC$/);
  });

  test("nothing relative to now, which would go stale: no 'ago', no open incident's duration", () => {
    expect(text).not.toMatch(/\bago\b|\bnow\b|yesterday|\babout\b/);
    // The open incident's line ends at its start; its first update follows.
    expect(text).toContain(
      "Slow checkout Identified Nov 24, 2026, 4:37 AM UTC Nov 24, 2026, 5:37 AM UTC A bad deploy.",
    );
  });
});

/** A hosted page's document for `data`, rendered in English at a fixed instant. */
const renderAt = (data: PublicStatusPage) =>
  renderDocument({
    slug: "acme",
    data,
    at: Date.parse("2026-11-24T06:37:00.000Z"),
    base: "/",
    canonical: null,
    script: "porchlight-page.js",
    apiBase: "",
    locale: "en",
  });

describe("a whole page (hosted, static) as the server renders it", () => {
  test("keeps every service in its order, the active incident above them, the affected named", () => {
    const open = {
      id: 3,
      title: "Checkout is down",
      status: "investigating" as const,
      started_at: "2026-11-24T06:00:00.000Z",
      resolved_at: null,
      duration_minutes: null,
      impact: "none" as const,
      affected: [],
      updates: [],
    };
    const past = {
      ...open,
      id: 1,
      title: "Login outage",
      status: "resolved" as const,
      resolved_at: "2026-11-24T06:10:00.000Z",
    };
    const statuses = ["operational", "major_outage", "operational"] as const;
    const data = page({
      items: statuses.map((status, i) => item({ id: i + 1, label: `Service ${i}`, status })),
      incidents: [open, past],
    });
    const html = renderAt(data);
    expect(html).not.toContain('part="others"');
    // In the element's markup (the page's title and the inlined data say some of these too).
    const element = html.slice(html.indexOf("<porchlight-status"), html.indexOf('<script type="application/json">'));
    const order = [
      "Active incidents",
      "Checkout is down",
      ">Service 0<",
      ">Service 1<",
      ">Service 2<",
      "Past incidents",
      "Login outage",
    ].map((words) => element.indexOf(words, element.indexOf("Updated")));
    expect(order.every((at) => at > 0)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(squash(html.replace(/<[^>]*>/g, " "))).toContain("Partial outage Major outage : Service 1");
  });
});

describe("a page's title", () => {
  test.each([
    ["Acme", "Acme status"],
    ["Acme Status", "Acme Status"],
    ["ACME STATUS", "ACME STATUS"],
    ["Statusboard", "Statusboard status"],
  ])("%s → %s", (name, title) => {
    const html = renderAt(page({ name }));
    expect(html).toContain(`<title>${title}</title>`);
    expect(html).toContain(`<meta property="og:title" content="${title}">`);
  });
});

describe("a page's theme, on the page and its element", () => {
  const html = (mode: "auto" | "light" | "dark", embed = false) =>
    renderDocument({
      slug: "acme",
      data: page({ theme: { mode, accentColor: "#2563eb" } }),
      at: Date.parse("2026-11-24T06:37:00.000Z"),
      base: "/",
      canonical: null,
      script: "porchlight-page.js",
      apiBase: "",
      locale: "en",
      embed,
    });
  test.each([
    ["auto", false, null],
    ["light", false, "light"],
    ["dark", false, "dark"],
    // In an iframe, light unless the page says dark: it sits in someone else's site.
    ["auto", true, "light"],
    ["dark", true, "dark"],
  ] as const)("%s (embed %s) → %s", (mode, embed, theme) => {
    const document = html(mode, embed);
    const root = /<html lang="en"(?: class="([^"]*)")?>/.exec(document)?.[1]?.split(" ") ?? [];
    const element = /<porchlight-status [^>]*?theme="(\w+)"/.exec(document)?.[1] ?? null;
    expect(element).toBe(theme);
    expect(
      root.includes("light") || root.includes("dark") ? root.find((c) => c === "light" || c === "dark") : null,
    ).toBe(theme);
  });
});
