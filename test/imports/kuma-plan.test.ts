import { describe, expect, test } from "vitest";
import { planFromDump } from "../../server/imports/uptime-kuma.ts";
import type { KumaDump } from "../../server/store/uptime-kuma-file.ts";

/**
 * The Uptime Kuma planner on a dump made here (no file): which monitors a maintenance on a status page covers, and in
 * which order. Kuma numbers a section's monitors by weight within the section; the file lists them in that order
 * (monitor_group by weight, id), and a window's sites follow it, across the page's sections.
 */
const NOW = new Date("2026-06-01T00:00:00Z");

function dump(overrides: Partial<KumaDump>): KumaDump {
  const monitor = (id: number) => ({ id, name: `m${id}`, type: "http", url: `https://m${id}.example.com/`, active: 1 });
  return {
    version: "2.x",
    install: "test",
    monitors: [10, 20, 30, 40].map(monitor),
    sections: [],
    sectionMonitors: [],
    pages: [{ id: 1, slug: "one", title: "One" }],
    domains: [],
    incidents: [],
    maintenances: [
      {
        id: 1,
        title: "Upgrade",
        strategy: "single",
        active: 1,
        start_date: "2026-07-01 10:00:00",
        end_date: "2026-07-01 11:00:00",
      },
    ],
    maintenanceMonitors: [],
    maintenancePages: [{ maintenance_id: 1, status_page_id: 1 }],
    ...overrides,
  };
}

const windowSites = (plan: ReturnType<typeof planFromDump>) =>
  plan.windows[0]?.siteKeys.map((key) => key.split("/").at(-1)) ?? [];

describe("Uptime Kuma: a maintenance on a status page", () => {
  test("covers the page's monitors in the file's order of them, across sections, after its own monitors", () => {
    const plan = planFromDump(
      dump({
        sections: [
          { id: 1, status_page_id: 1, name: "A", active: 1 },
          { id: 2, status_page_id: 1, name: "B", active: 1 },
        ],
        // As the file lists them (weight, id): section 2's first monitor before section 1's.
        sectionMonitors: [
          { group_id: 2, monitor_id: 20, weight: 1 },
          { group_id: 1, monitor_id: 10, weight: 2 },
          { group_id: 2, monitor_id: 30, weight: 3 },
        ],
        maintenanceMonitors: [{ maintenance_id: 1, monitor_id: 40 }],
        // The same page twice: covered once.
        maintenancePages: [
          { maintenance_id: 1, status_page_id: 1 },
          { maintenance_id: 1, status_page_id: 1 },
        ],
      }),
      NOW,
    );
    expect(windowSites(plan)).toEqual(["40", "20", "10", "30"]);
  });

  test("a page row without a page id covers no section, not the sections without one", () => {
    const plan = planFromDump(
      dump({
        sections: [{ id: 5, status_page_id: null, name: "Orphan", active: 1 }],
        sectionMonitors: [{ group_id: 5, monitor_id: 10, weight: 1 }],
        maintenanceMonitors: [{ maintenance_id: 1, monitor_id: 20 }],
        maintenancePages: [{ maintenance_id: 1, status_page_id: null }],
      }),
      NOW,
    );
    expect(windowSites(plan)).toEqual(["20"]);
  });
});
