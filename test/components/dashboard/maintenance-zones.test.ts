// Issue 28: a maintenance window's time zone is chosen from the IANA list, found from what a person types (a city in
// any case, spaces for underscores), and never guessed when several zones would fit.
import { describe, expect, test } from "vitest";
import { findZone, timeZones } from "../../../components/porchlight-dashboard/screens/maintenance/zones.ts";

const ZONES = ["America/Argentina/Buenos_Aires", "America/New_York", "Europe/Berlin", "Europe/Busingen", "UTC"];

describe("the maintenance form's time zones", () => {
  test("the list is the runtime's IANA zones with UTC, sorted, each once", () => {
    const zones = timeZones();
    expect(zones.length).toBeGreaterThan(300);
    expect(zones).toContain("UTC");
    expect(zones).toContain("Europe/Berlin");
    expect([...zones].sort()).toEqual(zones);
    expect(new Set(zones).size).toBe(zones.length);
  });

  test("an exact name in any case is the list's spelling", () => {
    expect(findZone("europe/berlin", ZONES)).toBe("Europe/Berlin");
    expect(findZone("  UTC ", ZONES)).toBe("UTC");
    expect(findZone("utc", ZONES)).toBe("UTC");
  });

  test("a city alone, with spaces for underscores, finds its zone", () => {
    expect(findZone("Berlin", ZONES)).toBe("Europe/Berlin");
    expect(findZone("new york", ZONES)).toBe("America/New_York");
    expect(findZone("buenos aires", ZONES)).toBe("America/Argentina/Buenos_Aires");
  });

  test("a part of one name finds it; a part of several, or of none, finds nothing", () => {
    expect(findZone("york", ZONES)).toBe("America/New_York");
    expect(findZone("Europe/B", ZONES)).toBeUndefined();
    expect(findZone("Atlantis", ZONES)).toBeUndefined();
    expect(findZone("", ZONES)).toBeUndefined();
  });
});
