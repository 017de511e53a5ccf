import { z } from "zod";

/**
 * Atlassian Statuspage's public v2 documents as its consumers read them, written from Statuspage's documentation and
 * real payloads (docs/research/statuspage-v2.md), not from Porchlight's own schema: strict, as check-statuspage's
 * decoder is (an unknown field fails), with Statuspage's enumerations. Tests check Porchlight's answers and the
 * fixtures of real payloads (test/fixtures/statuspage/) against the same schema.
 */
const Stamp = z.string().regex(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}(Z|[+-]\d\d:\d\d)$/);
const ComponentStatus = z.enum([
  "operational",
  "degraded_performance",
  "partial_outage",
  "major_outage",
  "under_maintenance",
]);
const Page = z.strictObject({
  id: z.string(),
  name: z.string(),
  url: z.string(),
  time_zone: z.string(),
  updated_at: Stamp,
});
const Component = z.strictObject({
  id: z.string(),
  name: z.string(),
  status: ComponentStatus,
  created_at: Stamp,
  updated_at: Stamp,
  position: z.number().int().positive(),
  description: z.string().nullable(),
  showcase: z.boolean(),
  start_date: z
    .string()
    .regex(/^\d{4}-\d\d-\d\d$/)
    .nullable(),
  group_id: z.string().nullable(),
  page_id: z.string(),
  group: z.boolean(),
  only_show_if_degraded: z.boolean(),
  components: z.array(z.string()).optional(),
});
const Update = z.strictObject({
  id: z.string(),
  status: z.string(),
  body: z.string(),
  incident_id: z.string(),
  created_at: Stamp,
  updated_at: Stamp,
  display_at: Stamp,
  affected_components: z
    .array(
      z.strictObject({ code: z.string(), name: z.string(), old_status: ComponentStatus, new_status: ComponentStatus }),
    )
    .nullable(),
  deliver_notifications: z.boolean(),
  custom_tweet: z.string().nullable(),
  tweet_id: z.string().nullable(),
});
const common = {
  id: z.string(),
  name: z.string(),
  created_at: Stamp,
  updated_at: Stamp,
  monitoring_at: Stamp.nullable(),
  resolved_at: Stamp.nullable(),
  shortlink: z.string(),
  started_at: Stamp,
  page_id: z.string(),
  incident_updates: z.array(Update),
  components: z.array(Component),
  reminder_intervals: z.null(),
};
const Incident = z.strictObject({
  ...common,
  status: z.enum(["investigating", "identified", "monitoring", "resolved", "postmortem"]),
  impact: z.enum(["none", "minor", "major", "critical"]),
});
const Maintenance = z.strictObject({
  ...common,
  status: z.enum(["scheduled", "in_progress", "verifying", "completed"]),
  impact: z.literal("maintenance"),
  scheduled_for: Stamp,
  scheduled_until: Stamp,
});
const Status = z.strictObject({
  indicator: z.enum(["none", "minor", "major", "critical", "maintenance"]),
  description: z.enum([
    "All Systems Operational",
    "Major System Outage",
    "Partial System Outage",
    "Minor Service Outage",
    "Degraded System Service",
    "Partially Degraded Service",
    "Service Under Maintenance",
  ]),
});
export const DOCUMENTS = {
  summary: z.strictObject({
    page: Page,
    components: z.array(Component),
    incidents: z.array(Incident),
    scheduled_maintenances: z.array(Maintenance),
    status: Status,
  }),
  status: z.strictObject({ page: Page, status: Status }),
  components: z.strictObject({ page: Page, components: z.array(Component) }),
  incidents: z.strictObject({ page: Page, incidents: z.array(Incident) }),
  "incidents/unresolved": z.strictObject({ page: Page, incidents: z.array(Incident) }),
  "scheduled-maintenances": z.strictObject({ page: Page, scheduled_maintenances: z.array(Maintenance) }),
  "scheduled-maintenances/upcoming": z.strictObject({ page: Page, scheduled_maintenances: z.array(Maintenance) }),
  "scheduled-maintenances/active": z.strictObject({ page: Page, scheduled_maintenances: z.array(Maintenance) }),
} as const;
export type Doc = keyof typeof DOCUMENTS;

type Component = z.infer<typeof Component>;

/**
 * Statuspage's rules for groups, each broken one in words: a member's group_id names a component with `group: true`
 * that lists it in its `components`; no group is a member; only groups carry `components`, and they list members that
 * exist; positions run 1, 2, … within each parent (the page's top level, or a group).
 */
export function componentRules(components: readonly Component[]): string[] {
  const broken: string[] = [];
  const byId = new Map(components.map((c) => [c.id, c]));
  for (const c of components) {
    if (c.group && c.group_id !== null) broken.push(`${c.name}: a group inside a group`);
    if (!c.group && c.components !== undefined) broken.push(`${c.name}: members on a component that is not a group`);
    if (c.group_id !== null) {
      const parent = byId.get(c.group_id);
      if (!parent?.group) broken.push(`${c.name}: group_id names no group`);
      else if (!parent.components?.includes(c.id)) broken.push(`${c.name}: its group does not list it`);
    }
    for (const member of c.components ?? []) {
      if (byId.get(member)?.group_id !== c.id) broken.push(`${c.name}: lists ${member}, not its member`);
    }
  }
  const parents = new Map<string, number[]>();
  for (const c of components) {
    const key = c.group_id ?? "";
    parents.set(key, [...(parents.get(key) ?? []), c.position]);
  }
  for (const [parent, positions] of parents) {
    const sorted = [...positions].sort((a, b) => a - b);
    if (sorted.some((p, i) => p !== i + 1))
      broken.push(`positions under ${parent || "the page"}: ${sorted.join(", ")}`);
  }
  return broken;
}
