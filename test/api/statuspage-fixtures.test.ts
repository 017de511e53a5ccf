import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { componentRules, DOCUMENTS } from "../support/statuspage.ts";

/**
 * The schema and group rules the Statuspage API tests hold Porchlight to, held first to what Statuspage itself serves
 * (real payloads, test/fixtures/statuspage/README.md): a schema stricter or looser than Statuspage would prove
 * nothing about compatibility.
 */
const fixture = (name: string) =>
  JSON.parse(readFileSync(join(import.meta.dirname, "../fixtures/statuspage", name), "utf8")) as Record<
    string,
    unknown
  >;

describe("Statuspage's own payloads", () => {
  test("a page with a group: the schema accepts it, and it keeps every group rule", () => {
    const { components } = DOCUMENTS.components.parse(fixture("components.json"));
    expect(components.filter((c) => c.group).map((c) => c.name)).toEqual(["HashiCorp Cloud Platform (HCP)"]);
    expect(componentRules(components)).toEqual([]);
  });

  test("an incident with its updates, newest first, and its components: the schema accepts it", () => {
    const { incidents } = DOCUMENTS.incidents.parse(fixture("incidents.json"));
    const [incident] = incidents;
    expect(incident?.incident_updates.map((u) => u.status)).toEqual(["resolved", "investigating"]);
    expect(incident?.incident_updates[1]?.affected_components).toBeNull();
    expect(incident?.resolved_at).toBe(incident?.incident_updates[0]?.created_at);
  });

  test("the schema refuses what a strict consumer refuses: an unknown field, a status outside the five, a timestamp without milliseconds", () => {
    const base = fixture("components.json") as { page: object; components: Record<string, unknown>[] };
    const withComponent = (change: Record<string, unknown>) => ({
      ...base,
      components: [{ ...base.components[4], ...change }],
    });
    expect(DOCUMENTS.components.safeParse(withComponent({ uptime: 99.9 })).success).toBe(false);
    expect(DOCUMENTS.components.safeParse(withComponent({ status: "paused" })).success).toBe(false);
    expect(DOCUMENTS.components.safeParse(withComponent({ created_at: "2019-04-11T20:16:49Z" })).success).toBe(false);
    expect(DOCUMENTS.components.safeParse(withComponent({ start_date: "2019-04-11T00:00:00.000Z" })).success).toBe(
      false,
    );
    expect(DOCUMENTS.components.safeParse(withComponent({})).success).toBe(true);
  });

  test("the group rules name each break: a member its group does not list, a group in a group, positions with a gap", () => {
    const { components } = DOCUMENTS.components.parse(fixture("components.json"));
    /** The fixture's components with the one named changed. */
    const changed = (name: string, change: object) =>
      components.map((c) => (c.name === name ? { ...c, ...change } : c));
    const group = "HashiCorp Cloud Platform (HCP)";
    expect(componentRules(changed(group, { components: ["b4pr9x7288zy", "c32yfw32879v"] }))).toEqual([
      "HCP Portal: its group does not list it",
    ]);
    expect(componentRules(changed("Terraform Registry", { group: true, group_id: "ym75hzpmfq4q" }))).toContain(
      "Terraform Registry: a group inside a group",
    );
    expect(componentRules(changed("Terraform Registry", { position: 3 }))).toEqual(["positions under the page: 1, 3"]);
  });
});
