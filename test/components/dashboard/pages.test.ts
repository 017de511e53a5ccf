// Issue 28: the pages list's decisions (screens/pages/list.ts, page-status.ts), with tables of cases: a page's
// status in words from its sites, the search, one screenful of a client-side list, and the slug from a name.
import { describe, expect, test } from "vitest";
import { pageMatches, pageOf, SLUG_MAX, slugOf } from "../../../components/porchlight-dashboard/screens/pages/list.ts";
import { lookOf, statusFromSites } from "../../../components/porchlight-dashboard/screens/pages/page-status.ts";

type Sites = Parameters<typeof statusFromSites>[1];
const item = (siteId: string, visible = true) => ({ siteId, visible });
const sites = (entries: [string, string, boolean?][]): Sites =>
  new Map(entries.map(([id, state, pause]) => [id, { state, pause: pause ?? false }])) as Sites;

describe("a page's status in the list, in words, from its sites", () => {
  test.each([
    ["every site healthy", [["a", "healthy"]], ["a"], "Operational", "up"],
    [
      "one of two down",
      [
        ["a", "healthy"],
        ["b", "unhealthy"],
      ],
      ["a", "b"],
      "Partial outage",
      "down",
    ],
    [
      "every site down",
      [
        ["a", "unhealthy"],
        ["b", "unhealthy"],
      ],
      ["a", "b"],
      "Major outage",
      "down",
    ],
    [
      "one slow",
      [
        ["a", "healthy"],
        ["b", "degraded"],
      ],
      ["a", "b"],
      "Degraded",
      "warn",
    ],
    ["not checked yet", [["a", "unknown"]], ["a"], "No data yet", "unknown"],
    [
      "a paused site counts neither way",
      [
        ["a", "unhealthy", true],
        ["b", "healthy"],
      ],
      ["a", "b"],
      "Operational",
      "up",
    ],
    ["a page with no item", [["a", "healthy"]], [], "No services", "unknown"],
    ["an item whose site is unknown to the list", [["a", "healthy"]], ["gone"], "No services", "unknown"],
  ] as const)("%s", (_case, known, on, word, look) => {
    const page = { items: on.map((id) => item(id)) };
    expect(statusFromSites(page, sites(known as unknown as [string, string, boolean?][]))).toEqual([word, look]);
  });

  test("a hidden item is not what visitors see, so it does not count", () => {
    const page = { items: [item("a"), item("b", false)] };
    expect(
      statusFromSites(
        page,
        sites([
          ["a", "healthy"],
          ["b", "unhealthy"],
        ]),
      ),
    ).toEqual(["Operational", "up"]);
  });

  test("the public view's item statuses read the same words (maintenance, partial outage by incident)", () => {
    expect(lookOf([{ status: "operational" }, { status: "maintenance" }])).toEqual(["Maintenance", "maintenance"]);
    expect(lookOf([{ status: "maintenance" }])).toEqual(["Maintenance", "maintenance"]);
    expect(lookOf([{ status: "partial_outage" }, { status: "operational" }])).toEqual(["Partial outage", "down"]);
  });
});

describe("the search", () => {
  const acme = { name: "Acme Status", slug: "acme-status" };
  test.each([
    ["", true],
    ["  ", true],
    ["acme", true],
    ["ACME", true],
    ["status", true],
    ["acme-st", true],
    ["  acme ", true],
    ["payments", false],
  ])("%j matches Acme Status: %s", (query, matches) => {
    expect(pageMatches(acme, query)).toBe(matches);
  });
});

describe("one screenful of the list", () => {
  const all = Array.from({ length: 23 }, (_, i) => i + 1);
  test.each([
    [1, 10, [1, 10], 1, 3],
    [3, 10, [21, 23], 3, 3],
    // A page past the end (the search left fewer) shows the last one, never an empty screen.
    [9, 10, [21, 23], 3, 3],
    [0, 10, [1, 10], 1, 3],
    [1, 50, [1, 23], 1, 1],
  ])("page %i of %i at a time", (page, perPage, [first, last], at, pages) => {
    const shown = pageOf(all, page, perPage);
    expect([shown.shown[0], shown.shown.at(-1), shown.page, shown.pages]).toEqual([first, last, at, pages]);
  });

  test("an empty list is one empty page", () => {
    expect(pageOf([], 4, 10)).toEqual({ shown: [], page: 1, pages: 1 });
  });
});

describe("the slug from a name", () => {
  test.each([
    ["Acme Status", "acme-status"],
    ["  Café — Zürich!  ", "cafe-zurich"],
    ["---", ""],
  ])("%j is %j", (name, slug) => {
    expect(slugOf(name)).toBe(slug);
  });

  test("a long name gives a slug the API takes: at most 64 characters, no dash at the end", () => {
    const slug = slugOf(`${"a".repeat(63)} b ${"c".repeat(50)}`);
    expect(slug.length).toBeLessThanOrEqual(SLUG_MAX);
    expect(slug.endsWith("-")).toBe(false);
  });
});
