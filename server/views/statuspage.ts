import { createHash } from "node:crypto";
import type { PublicMaintenance } from "../contract/maintenance.ts";
import type { Incident, ItemStatus, PublicItem, PublicStatusPage } from "../contract/status-page.ts";

/**
 * Atlassian Statuspage's public v2 API, as whatever reads a Statuspage page expects it (exporters, aggregators, chat
 * bots): the eight documents of a page, made from its public view. Field names, order, types and enumerations are
 * Statuspage's; what Porchlight has no word for is mapped as the documentation's "Statuspage API" section says.
 */

export const STATUSPAGE_DOCUMENTS = [
  "summary",
  "status",
  "components",
  "incidents",
  "incidents/unresolved",
  "scheduled-maintenances",
  "scheduled-maintenances/upcoming",
  "scheduled-maintenances/active",
] as const;
export type StatuspageDocument = (typeof STATUSPAGE_DOCUMENTS)[number];

/** What a page's view does not carry and the documents need: ids, creation times, where the page is. */
export interface StatuspageSource {
  view: PublicStatusPage;
  pageId: number;
  /** Where visitors read the page, without a trailing slash (its custom domain, else the server's /slug). */
  url: string;
  /** When anything on the page last changed. */
  updatedAt: string;
  /** When each item was put on the page, by item id. */
  itemsCreatedAt: ReadonlyMap<number, string>;
  /** When each group was made, by group id. */
  groupsCreatedAt: ReadonlyMap<number, string>;
  /** When each maintenance window was made, by window id. */
  maintenanceCreatedAt: ReadonlyMap<string, string>;
  /** Emit the `maintenance` indicator during maintenance (real Statuspage does; some typed clients reject it). */
  maintenanceIndicator: boolean;
}

export type ComponentStatus =
  | "operational"
  | "degraded_performance"
  | "partial_outage"
  | "major_outage"
  | "under_maintenance";

/**
 * A Porchlight item's status in Statuspage's words. Paused and unknown have none: Statuspage's components say what
 * their owner declares, and absent a declared problem a component is operational, so both read `operational`.
 */
export const COMPONENT_STATUS: Record<ItemStatus, ComponentStatus> = {
  operational: "operational",
  degraded: "degraded_performance",
  partial_outage: "partial_outage",
  major_outage: "major_outage",
  maintenance: "under_maintenance",
  paused: "operational",
  unknown: "operational",
};

export type Indicator = "none" | "minor" | "major" | "critical" | "maintenance";

/** The seven descriptions Statuspage gives its top-level status, and the indicator each goes with. */
const STATUS_WORDS = {
  operational: ["none", "All Systems Operational"],
  maintenance: ["maintenance", "Service Under Maintenance"],
  partlyDegraded: ["minor", "Partially Degraded Service"],
  degraded: ["minor", "Degraded System Service"],
  minorOutage: ["minor", "Minor Service Outage"],
  partialOutage: ["major", "Partial System Outage"],
  majorOutage: ["critical", "Major System Outage"],
} as const satisfies Record<string, readonly [Indicator, string]>;
type Words = (typeof STATUS_WORDS)[keyof typeof STATUS_WORDS];
const RANK: Record<Indicator, number> = { none: 0, maintenance: 1, minor: 2, major: 3, critical: 4 };

/**
 * The page's top-level status, by Statuspage's published rules: one component's status names it (degraded:
 * Partially Degraded Service, partial outage: Partial System Outage, major outage: Major System Outage); of several,
 * every one in major outage is a Major System Outage, some a Partial System Outage, a partial outage a Minor Service
 * Outage, all degraded a Degraded System Service, some a Partially Degraded Service; maintenance alone is Service
 * Under Maintenance. An unresolved incident that names no component raises it to its impact (minor: Minor Service
 * Outage, major: Partial System Outage, critical: Major System Outage) when the components say less; one that names
 * components speaks through their statuses. Without `maintenanceIndicator`, maintenance keeps its words under the
 * `none` indicator.
 */
export function pageStatus(
  statuses: ComponentStatus[],
  unresolved: Pick<Incident, "impact" | "affected">[],
  maintenanceIndicator: boolean,
): { indicator: Indicator; description: string } {
  const count = (s: ComponentStatus) => statuses.filter((x) => x === s).length;
  const major = count("major_outage");
  const partial = count("partial_outage");
  const degraded = count("degraded_performance");
  let words: Words = STATUS_WORDS.operational;
  if (statuses.length === 1) {
    if (major) words = STATUS_WORDS.majorOutage;
    else if (partial) words = STATUS_WORDS.partialOutage;
    else if (degraded) words = STATUS_WORDS.partlyDegraded;
  } else if (major && major === statuses.length) words = STATUS_WORDS.majorOutage;
  else if (major) words = STATUS_WORDS.partialOutage;
  else if (partial) words = STATUS_WORDS.minorOutage;
  else if (degraded && degraded === statuses.length) words = STATUS_WORDS.degraded;
  else if (degraded) words = STATUS_WORDS.partlyDegraded;
  if (words === STATUS_WORDS.operational && count("under_maintenance")) words = STATUS_WORDS.maintenance;
  for (const { impact } of unresolved.filter((incident) => incident.affected.length === 0)) {
    const raised =
      impact === "critical"
        ? STATUS_WORDS.majorOutage
        : impact === "major"
          ? STATUS_WORDS.partialOutage
          : impact === "minor"
            ? STATUS_WORDS.minorOutage
            : undefined;
    if (raised && RANK[raised[0]] > RANK[words[0]]) words = raised;
  }
  const [indicator, description] = words;
  return { indicator: indicator === "maintenance" && !maintenanceIndicator ? "none" : indicator, description };
}

/** A time as Statuspage writes it: milliseconds, and the page's offset (UTC: Porchlight's pages keep UTC). */
export const stamp = (iso: string) => new Date(iso).toISOString();

/**
 * The page's id as Statuspage writes ids, twelve of [a-z0-9]: derived from Porchlight's, so it stays while the page
 * does, without telling how many pages the server has.
 */
export const statuspagePageId = (pageId: number) =>
  createHash("sha256").update(`porchlight-page:${pageId}`).digest("hex").slice(0, 12);

/**
 * When the page last changed as its readers see it: its own last write (settings, items, incidents), an incident's
 * latest update, a maintenance window made or begun.
 */
function lastChange(source: StatuspageSource): string {
  const { view } = source;
  const times = [source.updatedAt];
  for (const incident of view.incidents) times.push(incident.updates[0]?.timestamp ?? incident.started_at);
  for (const m of view.maintenance) {
    const made = source.maintenanceCreatedAt.get(m.id);
    if (made) times.push(made);
    if (m.active) times.push(m.startsAt);
  }
  return times.reduce((a, b) => (Date.parse(b) > Date.parse(a) ? b : a));
}

/** The eight documents' parts, made once per source. */
export function statuspageDocuments(source: StatuspageSource): Record<StatuspageDocument, unknown> {
  const { view } = source;
  const changed = lastChange(source);
  const page = {
    id: statuspagePageId(source.pageId),
    name: view.name,
    url: source.url,
    time_zone: "Etc/UTC",
    updated_at: stamp(changed),
  };
  const components = componentsOf(source, changed);
  const byId = new Map(components.filter((c) => !c.group).map((c) => [c.id, c]));
  const incidents = view.incidents.map((incident) => incidentOf(source, incident, byId));
  const unresolved = incidents.filter((i) => i.resolved_at === null);
  const maintenances = view.maintenance.map((m) => maintenanceOf(source, m, byId));
  const upcoming = maintenances.filter((m) => m.status === "scheduled");
  const active = maintenances.filter((m) => m.status === "in_progress");
  const status = pageStatus(
    [...byId.values()].map((c) => c.status),
    view.incidents.filter((i) => i.resolved_at === null),
    source.maintenanceIndicator,
  );
  return {
    summary: { page, components, incidents: unresolved, scheduled_maintenances: [...upcoming, ...active], status },
    status: { page, status },
    components: { page, components },
    incidents: { page, incidents },
    "incidents/unresolved": { page, incidents: unresolved },
    "scheduled-maintenances": { page, scheduled_maintenances: maintenances },
    "scheduled-maintenances/upcoming": { page, scheduled_maintenances: upcoming },
    "scheduled-maintenances/active": { page, scheduled_maintenances: active },
  };
}

type Component = ReturnType<typeof component>;

/** A group's component id: its own space, apart from the items' numeric ids. */
const groupComponentId = (id: number) => `group-${id}`;

/**
 * The page's items and groups as components, in the page's order: each group followed by its members. Positions run
 * from 1 within each parent: the page's top level (groups and ungrouped items), or a group.
 */
function componentsOf(source: StatuspageSource, changed: string): Component[] {
  const groups = new Map((source.view.groups ?? []).map((g) => [g.id, g]));
  const out: Component[] = [];
  let top = 0;
  let within = 0;
  let current: number | undefined;
  for (const item of source.view.items) {
    const group = item.group_id === undefined ? undefined : groups.get(item.group_id);
    if (group === undefined) {
      current = undefined;
      out.push(component(source, item, ++top, null, changed));
      continue;
    }
    if (group.id !== current) {
      current = group.id;
      within = 0;
      const created = source.groupsCreatedAt.get(group.id) ?? source.updatedAt;
      out.push({
        id: groupComponentId(group.id),
        name: group.name,
        status: COMPONENT_STATUS[group.status],
        created_at: stamp(created),
        updated_at: stamp(changed),
        position: ++top,
        description: group.description === "" ? null : group.description,
        showcase: false,
        start_date: null,
        group_id: null,
        page_id: statuspagePageId(source.pageId),
        group: true,
        only_show_if_degraded: false,
        components: group.items.map(String),
      });
    }
    out.push(component(source, item, ++within, groupComponentId(group.id), changed));
  }
  return out;
}

/**
 * An item as a component, at `position` in its parent (`groupId`, or the top level); its start date the day it was
 * put on the page, its last change the page's.
 */
function component(
  source: StatuspageSource,
  item: PublicItem,
  position: number,
  groupId: string | null,
  changed: string,
): {
  id: string;
  name: string;
  status: ComponentStatus;
  created_at: string;
  updated_at: string;
  position: number;
  description: string | null;
  showcase: boolean;
  start_date: string | null;
  group_id: string | null;
  page_id: string;
  group: boolean;
  only_show_if_degraded: boolean;
  components?: string[];
} {
  const created = source.itemsCreatedAt.get(item.id) ?? source.updatedAt;
  return {
    id: String(item.id),
    name: item.label,
    status: COMPONENT_STATUS[item.status],
    created_at: stamp(created),
    updated_at: stamp(changed),
    position,
    description: null,
    showcase: source.view.display.showUptime,
    start_date: stamp(created).slice(0, 10),
    group_id: groupId,
    page_id: statuspagePageId(source.pageId),
    group: false,
    only_show_if_degraded: false,
  };
}

/** A component an update moved, from one status to another. */
interface Change {
  code: string;
  name: string;
  old_status: ComponentStatus;
  new_status: ComponentStatus;
}

/** An incident's or a maintenance's update, the `n`th of its parent `parent`, made and shown `at`. */
function updateOf(parent: string, n: number, status: string, body: string, at: string, changes: Change[] | null) {
  return {
    id: `${parent}-${n}`,
    status,
    body,
    incident_id: parent,
    created_at: at,
    updated_at: at,
    display_at: at,
    affected_components: changes,
    deliver_notifications: true,
    custom_tweet: null,
    tweet_id: null,
  };
}

/**
 * An incident: its updates newest first, each with an id of the incident's and its place among them (updates are
 * only ever added after the latest). The resolving update returns the components it affected to operational, the
 * first one (when not that) takes them to what the incident says; the others change no component (null, as
 * Statuspage writes it).
 */
function incidentOf(source: StatuspageSource, incident: Incident, byId: Map<string, Component>) {
  const id = String(incident.id);
  const affected = incident.affected.map((a) => ({
    code: String(a.id),
    name: a.label,
    status: COMPONENT_STATUS[a.status],
  }));
  const oldest = [...incident.updates].reverse();
  const monitoring = oldest.find((u) => u.status === "monitoring");
  const updates = oldest
    .map((u, index) => {
      const at = stamp(u.timestamp);
      const changes =
        u.status === "resolved"
          ? affected.map(
              (a): Change => ({ code: a.code, name: a.name, old_status: a.status, new_status: "operational" }),
            )
          : index === 0
            ? affected.map(
                (a): Change => ({ code: a.code, name: a.name, old_status: "operational", new_status: a.status }),
              )
            : null;
      return updateOf(id, index + 1, u.status, u.message, at, changes);
    })
    .reverse();
  return {
    id,
    name: incident.title,
    status: incident.status,
    created_at: stamp(incident.started_at),
    updated_at: updates[0]?.created_at ?? stamp(incident.started_at),
    monitoring_at: monitoring ? stamp(monitoring.timestamp) : null,
    resolved_at: incident.resolved_at === null ? null : stamp(incident.resolved_at),
    impact: incident.impact,
    shortlink: `${source.url}#incident-${id}`,
    started_at: stamp(incident.started_at),
    page_id: statuspagePageId(source.pageId),
    incident_updates: updates,
    components: affected.flatMap((a) => byId.get(a.code) ?? []),
    reminder_intervals: null,
  };
}

/**
 * A maintenance window's occurrence the page announces (under way, or coming within 14 days): scheduled, with the
 * update that announced it, or in_progress, with the update that began it (its components under maintenance). A
 * completed one is no longer on the page, so none is listed.
 */
function maintenanceOf(source: StatuspageSource, m: PublicMaintenance, byId: Map<string, Component>) {
  // One maintenance per occurrence, as Statuspage has one per scheduling: a recurring window's next is another.
  const id = `${m.id}-${Date.parse(m.startsAt) / 1000}`;
  const created = stamp(source.maintenanceCreatedAt.get(m.id) ?? m.startsAt);
  const started = stamp(m.startsAt);
  const update = (n: number, status: string, at: string, changes: Change[] | null) =>
    updateOf(id, n, status, m.description || m.title, at, changes);
  const components = m.items.flatMap((item) => byId.get(String(item)) ?? []);
  const updates = [update(1, "scheduled", created, null)];
  if (m.active) {
    const begun = components.map(
      (c): Change => ({
        code: c.id,
        name: c.name,
        old_status: "operational",
        new_status: "under_maintenance",
      }),
    );
    // A window made while already under way began, as far as its readers know, when it was made.
    updates.unshift(update(2, "in_progress", Date.parse(started) > Date.parse(created) ? started : created, begun));
  }
  return {
    id,
    name: m.title,
    status: m.active ? "in_progress" : "scheduled",
    created_at: created,
    updated_at: updates[0]?.created_at ?? created,
    monitoring_at: null,
    resolved_at: null,
    impact: "maintenance",
    shortlink: source.url,
    // As Statuspage writes a maintenance's: when it was made (its times are scheduled_for and scheduled_until).
    started_at: created,
    page_id: statuspagePageId(source.pageId),
    incident_updates: updates,
    components,
    scheduled_for: started,
    scheduled_until: stamp(m.endsAt),
    reminder_intervals: null,
  };
}
