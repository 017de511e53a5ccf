import { z } from "zod";

/**
 * Atlassian Statuspage's public v2 documents as Porchlight serves them (views/statuspage.ts): for the OpenAPI
 * document and the tests' check of every answer. Times carry milliseconds and the page's offset (Z: pages keep UTC).
 */
const Stamp = z.string().regex(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}(Z|[+-]\d\d:\d\d)$/);

const Page = z.strictObject({
  id: z.string(),
  name: z.string(),
  url: z.string(),
  time_zone: z.string(),
  updated_at: Stamp,
});

export const ComponentStatus = z.enum([
  "operational",
  "degraded_performance",
  "partial_outage",
  "major_outage",
  "under_maintenance",
]);

const Component = z
  .strictObject({
    id: z.string(),
    name: z.string(),
    status: ComponentStatus,
    created_at: Stamp,
    updated_at: Stamp,
    position: z.int().positive(),
    description: z.string().nullable(),
    showcase: z.boolean(),
    start_date: z.iso.date().nullable(),
    group_id: z.string().nullable(),
    page_id: z.string(),
    group: z.boolean(),
    only_show_if_degraded: z.boolean(),
    components: z.array(z.string()).optional().meta({ description: "A group's members' ids; only on a group" }),
  })
  .meta({ id: "StatuspageComponent" });

const Status = z.strictObject({
  indicator: z.enum(["none", "minor", "major", "critical", "maintenance"]),
  description: z.enum([
    "All Systems Operational",
    "Partially Degraded Service",
    "Degraded System Service",
    "Minor Service Outage",
    "Partial System Outage",
    "Major System Outage",
    "Service Under Maintenance",
  ]),
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

const incidentFields = {
  id: z.string(),
  name: z.string(),
  created_at: Stamp,
  updated_at: Stamp,
  monitoring_at: Stamp.nullable(),
  resolved_at: Stamp.nullable(),
  shortlink: z.string(),
  started_at: Stamp,
  page_id: z.string(),
  incident_updates: z.array(Update).meta({ description: "Newest first" }),
  components: z.array(Component),
  reminder_intervals: z.null(),
};

const Incident = z
  .strictObject({
    ...incidentFields,
    status: z.enum(["investigating", "identified", "monitoring", "resolved", "postmortem"]),
    impact: z.enum(["none", "minor", "major", "critical"]),
  })
  .meta({ id: "StatuspageIncident" });

const Maintenance = z
  .strictObject({
    ...incidentFields,
    status: z.enum(["scheduled", "in_progress", "verifying", "completed"]),
    impact: z.literal("maintenance"),
    scheduled_for: Stamp,
    scheduled_until: Stamp,
  })
  .meta({ id: "StatuspageMaintenance" });

export const StatuspageSummary = z.strictObject({
  page: Page,
  components: z.array(Component),
  incidents: z.array(Incident),
  scheduled_maintenances: z.array(Maintenance),
  status: Status,
});
export const StatuspageStatus = z.strictObject({ page: Page, status: Status });
export const StatuspageComponents = z.strictObject({ page: Page, components: z.array(Component) });
export const StatuspageIncidents = z.strictObject({ page: Page, incidents: z.array(Incident) });
export const StatuspageMaintenances = z.strictObject({ page: Page, scheduled_maintenances: z.array(Maintenance) });
