import { describe, expect, test } from "vitest";
import { uptimePercent } from "../../server/contract/status.ts";
import type { Incident, PublicItem } from "../../server/contract/status-page.ts";
import { fillTemplate } from "../../server/engine/judge.ts";
import { movedByIncidents } from "../../server/views/page-views.ts";

/** Figures and words a visitor reads, each true to what happened (issue 27's review). */

describe("uptime is 100 only when every check was up", () => {
  test.each([
    [259_200, 259_200, 100],
    [259_199, 259_200, 99.999],
    [999_999, 1_000_000, 99.999],
    [9_999, 10_000, 99.99],
    [0, 10, 0],
  ])("%i of %i up: %f", (up, total, percent) => {
    expect(uptimePercent(up, total)).toBe(percent);
  });
});

describe("an automatic incident's words", () => {
  test("a label's $ patterns are text, not replacement patterns", () => {
    expect(fillTemplate("{service} is unavailable", "Shop $$ & $' API")).toBe("Shop $$ & $' API is unavailable");
    expect(fillTemplate("{service} is back after {duration}.", "$&", 4 * 60_000)).toBe("$& is back after 4 minutes.");
  });
});

describe("what open incidents do to a paused item or one in maintenance", () => {
  const item = (id: number, status: PublicItem["status"]): PublicItem => ({
    id,
    label: `Item ${id}`,
    type: "website",
    status,
    uptime: 100,
    response_time: 100,
    last_check: null,
    history: [],
  });
  const incident = (id: number, affected: Incident["affected"]): Incident => ({
    id,
    title: "Down",
    status: "investigating",
    started_at: "2026-11-21T10:00:00.000Z",
    resolved_at: null,
    duration_minutes: null,
    impact: "critical",
    affected,
    updates: [],
  });
  const items = [item(1, "paused"), item(2, "maintenance"), item(3, "operational")];
  const everyone = () => [1, 2, 3].map((n) => ({ id: n, label: `Item ${n}`, status: "major_outage" as const }));

  test("the engine's own incident moves neither (the engine stopped judging it); it still moves the others", () => {
    const shown = movedByIncidents(items, [incident(7, everyone())], new Set([7]));
    expect(shown.map((i) => i.status)).toEqual(["paused", "maintenance", "major_outage"]);
  });

  test("the owner's incident moves them all: what the owner says is what visitors read", () => {
    const shown = movedByIncidents(items, [incident(8, everyone())], new Set([7]));
    expect(shown.map((i) => i.status)).toEqual(["major_outage", "major_outage", "major_outage"]);
  });
});
