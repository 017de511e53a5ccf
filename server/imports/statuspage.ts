import { z } from "zod";
import type { AffectedStatus } from "../contract/status-page.ts";
import { groupBy } from "../group-by.ts";
import {
  type ImportPlan,
  ImportRefused,
  type PlannedEntry,
  type PlannedIncident,
  type PlannedSite,
  type PlannedWindow,
  type Skip,
  siteFrom,
  slugify,
} from "./plan.ts";

/*
 * Atlassian Statuspage from its public v2 JSON: summary.json (the page, its groups and components), incidents.json
 * (the history) and scheduled-maintenances.json. Statuspage's JSON names no address to check, so a component
 * becomes a site bound to the address the owner gives for it (`bind`), or a paused push site the owner binds later.
 */

const Stamp = z.string().nullable().optional();
const Component = z.looseObject({
  id: z.string().min(1),
  name: z.string(),
  description: z.string().nullable().optional(),
  position: z.number().optional(),
  group: z.boolean().optional(),
  group_id: z.string().nullable().optional(),
  components: z.array(z.string()).optional(),
  only_show_if_degraded: z.boolean().optional(),
});
const Update = z.looseObject({
  status: z.string(),
  body: z.string().nullable().optional(),
  created_at: Stamp,
  display_at: Stamp,
  affected_components: z
    .array(z.looseObject({ code: z.string().optional(), new_status: z.string().optional() }))
    .nullable()
    .optional(),
});
const Incident = z.looseObject({
  id: z.string().min(1),
  name: z.string(),
  status: z.string(),
  impact: z.string().optional(),
  created_at: Stamp,
  started_at: Stamp,
  resolved_at: Stamp,
  scheduled_for: Stamp,
  scheduled_until: Stamp,
  incident_updates: z.array(Update).optional(),
  components: z.array(z.looseObject({ id: z.string() })).optional(),
});
const Page = z.looseObject({ id: z.string().min(1), name: z.string(), time_zone: z.string().nullable().optional() });
const Summary = z.looseObject({
  page: Page,
  components: z.array(Component),
  incidents: z.array(Incident).optional(),
  scheduled_maintenances: z.array(Incident).optional(),
});
const Incidents = z.looseObject({ page: Page.optional(), incidents: z.array(Incident) });
const Maintenances = z.looseObject({ page: Page.optional(), scheduled_maintenances: z.array(Incident) });

export interface StatuspageFiles {
  summary: unknown;
  incidents?: unknown;
  maintenances?: unknown;
}

export interface StatuspageOptions {
  /** The page's slug here (default: from its name). */
  slug?: string | undefined;
  /** Addresses to check, by component id or name. */
  bind?: Record<string, string>;
}

function parsed<T>(schema: z.ZodType<T>, value: unknown, file: string): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw new ImportRefused(
    `This is not Statuspage's ${file}: ${issue?.path.join(".") || "the document"} ${issue?.message ?? "is invalid"}.`,
  );
}

const STATUS_OF: Record<string, PlannedIncident["updates"][number]["status"]> = {
  investigating: "investigating",
  identified: "identified",
  monitoring: "monitoring",
  resolved: "resolved",
  postmortem: "resolved",
  completed: "resolved",
  in_progress: "identified",
  verifying: "monitoring",
  scheduled: "investigating",
};
const AFFECTED_OF: Record<string, AffectedStatus> = {
  operational: "operational",
  degraded_performance: "degraded",
  partial_outage: "partial_outage",
  major_outage: "major_outage",
  under_maintenance: "maintenance",
};
const IMPACTS = new Set(["none", "minor", "major", "critical"]);

const iso = (v: string | null | undefined) => {
  const ms = Date.parse(v ?? "");
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
};

export function planStatuspage(files: StatuspageFiles, options: StatuspageOptions, now: Date): ImportPlan {
  const summary = parsed(Summary, files.summary, "summary.json");
  const history = files.incidents === undefined ? [] : parsed(Incidents, files.incidents, "incidents.json").incidents;
  const planned =
    files.maintenances === undefined
      ? (summary.scheduled_maintenances ?? [])
      : parsed(Maintenances, files.maintenances, "scheduled-maintenances.json").scheduled_maintenances;
  const pageId = summary.page.id;
  const key = (kind: string, id: string) => `${pageId}/${kind}/${id}`;
  const skipped: Skip[] = [];
  const bind = options.bind ?? {};
  const sites: PlannedSite[] = [];
  const siteKeyOf = new Map<string, string>();
  const byPosition = (a: { position?: number | undefined }, b: { position?: number | undefined }) =>
    (a.position ?? 0) - (b.position ?? 0);
  const components = [...summary.components].sort(byPosition);
  for (const c of components.filter((c) => !c.group)) {
    const url = bind[c.id] ?? bind[c.name];
    const notes: string[] = [];
    if (!url) notes.push("no address to check yet: give it one (the site is paused until then)");
    const made = siteFrom({
      name: c.name.trim().slice(0, 100) || "Component",
      url: url ?? "push://",
      pause: !url,
      notes: (c.description ?? "").slice(0, 2000),
    });
    if ("problem" in made) {
      skipped.push({ kind: "site", name: c.name, reason: made.problem });
      continue;
    }
    const siteKey = key("component", c.id);
    sites.push({ key: siteKey, site: made.site, notes });
    siteKeyOf.set(c.id, siteKey);
  }
  const byId = new Map([...components].reverse().map((c) => [c.id, c] as const));
  const groupIds = new Set(components.filter((g) => g.group).map((g) => g.id));
  const membersOf = groupBy(
    components.filter((m) => !m.group),
    (m) => m.group_id,
  );
  const item = (id: string) => {
    const siteKey = siteKeyOf.get(id);
    const c = byId.get(id);
    return siteKey && c ? [{ siteKey, label: c.name.trim().slice(0, 100) }] : [];
  };
  const entries: PlannedEntry[] = components
    .filter((c) => !c.group_id || !groupIds.has(c.group_id))
    .flatMap((c): PlannedEntry[] =>
      c.group
        ? [
            {
              group: {
                name: c.name.trim().slice(0, 100) || "Group",
                description: (c.description ?? "").slice(0, 500),
                collapsed: true,
                items: (membersOf.get(c.id) ?? []).flatMap((m) => item(m.id)),
              },
            },
          ]
        : item(c.id).map((one) => ({ item: one })),
    );
  const incidentsById = new Map<string, z.infer<typeof Incident>>();
  for (const i of [...history, ...(summary.incidents ?? [])]) if (!incidentsById.has(i.id)) incidentsById.set(i.id, i);
  const incidents: PlannedIncident[] = [];
  for (const i of incidentsById.values()) {
    const updates = [...(i.incident_updates ?? [])]
      .map((u) => ({ u, at: iso(u.display_at) ?? iso(u.created_at) }))
      .filter((x): x is { u: z.infer<typeof Update>; at: string } => x.at !== null)
      .sort((a, b) => a.at.localeCompare(b.at));
    const startedAt = iso(i.started_at) ?? iso(i.created_at) ?? updates[0]?.at ?? null;
    if (!startedAt) {
      skipped.push({ kind: "incident", name: i.name, reason: "it has no valid date" });
      continue;
    }
    const status = STATUS_OF[i.status] ?? "investigating";
    const resolvedAt = status === "resolved" ? (iso(i.resolved_at) ?? updates.at(-1)?.at ?? startedAt) : null;
    const history = updates.map(({ u, at }) => ({
      status: STATUS_OF[u.status] ?? "investigating",
      message: (u.body ?? "").trim().slice(0, 5000) || u.status,
      at: at < startedAt ? startedAt : at,
    }));
    if (history.length === 0) history.push({ status, message: i.name, at: resolvedAt ?? startedAt });
    const last = history.at(-1);
    if (last && last.status !== status) history.push({ status, message: i.name, at: resolvedAt ?? last.at });
    const latestAffected = new Map<string, AffectedStatus>();
    for (const { u } of updates) {
      for (const a of u.affected_components ?? []) {
        const mapped = a.code && a.new_status ? AFFECTED_OF[a.new_status] : undefined;
        if (a.code && mapped) latestAffected.set(a.code, mapped);
      }
    }
    incidents.push({
      key: key("incident", i.id),
      title: i.name.trim().slice(0, 200) || "Incident",
      impact: IMPACTS.has(i.impact ?? "") ? (i.impact as PlannedIncident["impact"]) : "none",
      startedAt,
      resolvedAt,
      updates: history,
      affected: (i.components ?? []).flatMap((c) => {
        const siteKey = siteKeyOf.get(c.id);
        return siteKey ? [{ siteKey, status: latestAffected.get(c.id) ?? "partial_outage" }] : [];
      }),
    });
  }
  incidents.sort((a, b) => a.startedAt.localeCompare(b.startedAt));
  const windows: PlannedWindow[] = [];
  for (const m of planned) {
    const from = iso(m.scheduled_for);
    const until = iso(m.scheduled_until);
    const siteKeys = (m.components ?? []).flatMap((c) => siteKeyOf.get(c.id) ?? []).slice(0, 100);
    const reason =
      !from || !until || until <= from
        ? "it has no valid schedule"
        : m.status === "completed" || Date.parse(until) < now.getTime()
          ? "it is over"
          : siteKeys.length === 0
            ? "it names no imported component"
            : null;
    if (reason || !from || !until) {
      skipped.push({ kind: "maintenance", name: m.name, reason: reason ?? "" });
      continue;
    }
    windows.push({
      key: key("maintenance", m.id),
      title: m.name.trim().slice(0, 200) || "Maintenance",
      description: (m.incident_updates?.[0]?.body ?? "").slice(0, 2000),
      start: from.slice(0, 16),
      timeZone: "UTC",
      durationMinutes: Math.max(1, Math.round((Date.parse(until) - Date.parse(from)) / 60_000)),
      recurrence: null,
      siteKeys,
    });
  }
  return {
    source: "statuspage",
    detected: "Statuspage v2 JSON",
    sites,
    pages: [
      {
        key: key("page", pageId),
        name: summary.page.name.trim().slice(0, 100) || "Status",
        slug: options.slug ?? slugify(summary.page.name),
        description: "",
        customDomain: null,
        visibility: "public",
        entries,
        incidents,
      },
    ],
    windows,
    skipped,
  };
}
