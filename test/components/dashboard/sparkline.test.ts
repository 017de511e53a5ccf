// @vitest-environment happy-dom
// Issue 28: "the sparkline is one dot until day two". While fewer than two days have a mean response time, the
// sites list's sparkline draws the overview's last 24 hours by the hour instead; from day two on, the 30 days.
import { render } from "lit";
import { describe, expect, test } from "vitest";
import { sparkline } from "../../../components/porchlight-dashboard/lib/format.ts";
import type { SiteOverview } from "../../../server/contract/site.ts";

type Day = SiteOverview["days"][number];
type Hour = SiteOverview["recent"][number];

/** 30 days, the last ones with the given mean response times (null: no response that day). */
const days = (...latest: (number | null)[]): Day[] =>
  Array.from({ length: 30 }, (_, i) => {
    const responseMs = latest[i - (30 - latest.length)] ?? null;
    return { day: `2026-11-${String(i + 1).padStart(2, "0")}`, uptime: responseMs === null ? null : 100, responseMs };
  });

const hour = (hh: number, responseMs: number): Hour => ({
  at: `2026-11-30T${String(hh).padStart(2, "0")}:00:00.000Z`,
  responseMs,
});

/** The sparkline as the page holds it: its label, its line's points, its dot and its figure. */
function drawn(...args: Parameters<typeof sparkline>) {
  const host = document.createElement("div");
  render(sparkline(...args), host);
  const spark = host.querySelector(".spark");
  const d = host.querySelector("path")?.getAttribute("d") ?? null;
  return {
    text: host.textContent?.trim(),
    label: spark?.getAttribute("aria-label") ?? null,
    title: spark?.getAttribute("title") ?? null,
    role: spark?.getAttribute("role") ?? null,
    // Each segment's x coordinates: a gap starts a new segment.
    segments:
      d === null
        ? null
        : d
            .split("M")
            .filter(Boolean)
            .map((seg) => seg.split("L").map((p) => Number(p.split(" ")[0]))),
    dot: host.querySelector("circle") !== null,
    dotX: Number(host.querySelector("circle")?.getAttribute("cx") ?? Number.NaN),
  };
}

const HOURLY = "Mean response time by hour over the last 24 hours";

describe("the sparkline on a site's first day", () => {
  test("one day with a response: the last 24 hours by the hour, a line with the latest hour's figure", () => {
    const out = drawn(days(120), [hour(9, 100), hour(10, 140), hour(11, 80)]);
    expect(out.role).toBe("img");
    expect(out.label).toBe(`${HOURLY}: 80 to 140 ms; latest hour 80 ms`);
    expect(out.title).toBe(out.label);
    expect(out.segments).toEqual([[0, 60, 120]]);
    expect(out.dot).toBe(false);
    expect(out.text).toBe("80 ms");
  });

  test("no day yet (the first check's day not rolled up): the hours too", () => {
    expect(drawn(days(), [hour(9, 100), hour(10, 140)]).label).toBe(`${HOURLY}: 100 to 140 ms; latest hour 140 ms`);
  });

  test("an hour without a successful check leaves a gap where it was, not a line across it", () => {
    const out = drawn(days(120), [hour(8, 100), hour(9, 110), hour(12, 90), hour(13, 95)]);
    // Five hours from 08:00 to 13:00: 24 px apart; 10:00 and 11:00 are missing.
    expect(out.segments).toEqual([
      [0, 24],
      [96, 120],
    ]);
  });

  test("a single hour is a dot, not an empty path", () => {
    const out = drawn(days(120), [hour(11, 75)]);
    expect(out.dot).toBe(true);
    // At the right end, where the latest value stands, beside its figure.
    expect(out.dotX).toBeGreaterThan(100);
    expect(out.label).toBe(`${HOURLY}: 75 to 75 ms; latest hour 75 ms`);
  });

  test("no hour with a response: the day's dot, and with no day either a dash", () => {
    expect(drawn(days(120), [])).toMatchObject({
      dot: true,
      label: "Mean response time over 30 days: 120 to 120 ms; latest day 120 ms",
    });
    expect(drawn(days()).text).toBe("—");
  });
});

describe("the sparkline from day two on", () => {
  test("two days with a response: the 30 days, whatever the hours hold", () => {
    const out = drawn(days(100, 200), [hour(9, 5), hour(10, 6)]);
    expect(out.label).toBe("Mean response time over 30 days: 100 to 200 ms; latest day 200 ms");
    // The last two of 30 days: x of days 29 and 30 on the 120 px axis.
    expect(out.segments).toEqual([[115.9, 120]]);
    expect(out.text).toBe("200 ms");
  });
});
