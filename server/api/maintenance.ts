/**
 * A workspace's maintenance windows: one-off or recurring (an RRULE in a time zone), on sites. While one is under
 * way, its sites' checks still run and are recorded, but alerts wait for its end, no automatic incident opens, the
 * time and its checks stay out of uptime and downtime, and status pages show the items as under maintenance.
 */
import { randomBytes } from "node:crypto";
import { z } from "zod";
import type { Clock } from "../clock.ts";
import { Envelope, envelope } from "../contract/common.ts";
import {
  MAX_MAINTENANCE_WINDOWS,
  MaintenanceCreate,
  MaintenancePatch,
  MaintenanceWindow,
  MaintenanceWindowList,
} from "../contract/maintenance.ts";
import { canonicalZone, expandWindow, localStart, normalRecurrence, specOf } from "../engine/maintenance.ts";
import { ApiError, conflict, invalidField, limitReached, notFound } from "../http/errors.ts";
import { route } from "../http/route.ts";
import type { StoredWindow } from "../store/maintenance.ts";
import type { Store } from "../store/store.ts";

export interface MaintenanceDeps {
  store: Store;
  clock: Clock;
  /** Called after every change: status pages show maintenance. */
  changed: () => void;
}

const WindowParams = z.object({
  windowId: z.string().max(64).meta({ description: "The window's id (mw_…)", example: "mw_0123456789abcdef01234567" }),
});
const iso = (ms: number) => new Date(ms).toISOString();

/** Whether an edit changes when the window happens (not only what it says or which sites it covers). */
const replans = (body: MaintenancePatch) =>
  body.start !== undefined ||
  body.timeZone !== undefined ||
  body.durationMinutes !== undefined ||
  body.recurrence !== undefined;

export function maintenanceRoutes({ store, clock, changed }: MaintenanceDeps) {
  const load = async (workspaceId: string, id: string) => {
    const row = await store.maintenance.get(workspaceId, id);
    if (!row) throw notFound("Maintenance window");
    return row;
  };
  /** The answer for windows: each with whether it is under way and its current or next occurrence. */
  const views = async (rows: StoredWindow[]): Promise<MaintenanceWindow[]> => {
    const now = clock.now().getTime();
    const next = await store.maintenance.nextOccurrences(
      rows.map((r) => r.id),
      iso(now),
    );
    return rows.map((row) => {
      const occurrence = next.get(row.id);
      return {
        id: row.id,
        title: row.title,
        description: row.description,
        sites: row.sites,
        start: row.start,
        timeZone: row.time_zone,
        durationMinutes: row.duration_minutes,
        recurrence: row.recurrence,
        active: occurrence !== undefined && occurrence.start <= now,
        next: occurrence ? { startsAt: iso(occurrence.start), endsAt: iso(occurrence.end) } : null,
        createdAt: row.created_at,
        updatedAt: row.updated_at,
      };
    });
  };
  /** A start as stored: the local date and time in the zone, from the year 2000 to 9999. */
  const startIn = (start: string, timeZone: string) => {
    const local = localStart(start, timeZone);
    if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(local) || local < "2000") {
      throw invalidField("start", "Enter a start from the year 2000 to 9999 in the time zone.");
    }
    return local;
  };
  /** The sites must be the workspace's: 400 naming the first that is not. */
  const checkSites = async (workspaceId: string, sites: string[]) => {
    const own = await store.maintenance.workspaceSites(workspaceId, sites);
    const missing = sites.findIndex((id) => !own.has(id));
    if (missing >= 0) throw invalidField(`sites.${missing}`, "Choose a site of this workspace.");
  };
  /** Expands the window's occurrences from now: 400 naming recurrence, or 429 when too many expansions wait. */
  const expand = async (window: StoredWindow) => {
    const expansion = await expandWindow(specOf(window), clock.now().getTime(), window.workspace_id);
    if (expansion.ok) return expansion;
    if (expansion.busy) {
      throw new ApiError(429, "rate_limited", `Rate Limited: recurrence ${expansion.problem}`, undefined, {
        "Retry-After": "1",
      });
    }
    throw invalidField("recurrence", `The recurrence ${expansion.problem}.`);
  };
  /** Writes a window (a change: of the version `expected`), answering what stopped it. */
  const saved = async (window: StoredWindow, expected: string | null) => {
    const expansion = await expand(window);
    const stored = await store.maintenance.save(
      { ...window, refill_at: iso(expansion.refillAt) },
      expansion.occurrences,
      expected,
    );
    if (stored === "gone") throw notFound("Maintenance window");
    if (stored === "changed")
      throw conflict("updatedAt", "The window changed meanwhile: load it again, then make your change.");
    if (stored === "sites") {
      await checkSites(window.workspace_id, window.sites);
      throw invalidField("sites", "One of the sites was deleted meanwhile: choose the sites again.");
    }
    changed();
    return (await views([stored]))[0] as MaintenanceWindow;
  };
  return [
    route({
      method: "get",
      path: "/public/v1/maintenance-windows",
      operationId: "listMaintenanceWindows",
      summary: "List the workspace's maintenance windows, newest first",
      tag: "Maintenance",
      access: "token",
      permission: "sites:read",
      response: {
        status: 200,
        description: "The windows, each with its current or next occurrence",
        schema: Envelope(MaintenanceWindowList),
      },
      errors: [401, 403],
      async handler({ principal: p }) {
        return envelope(200, "Maintenance windows", {
          windows: await views(await store.maintenance.list(p.workspaceId)),
        });
      },
    }),
    route({
      method: "post",
      path: "/public/v1/maintenance-windows",
      operationId: "createMaintenanceWindow",
      summary: "Schedule maintenance on sites, once or recurring",
      description: `A window covers 1 to 100 of the workspace's sites (400 naming sites.N otherwise). timeZone is stored by its canonical name. recurrence is an RFC 5545 RRULE read in timeZone, hourly at most often; one that is not valid, or takes more than a second to expand, is a 400 naming recurrence; 429 when too many expansions wait already. At most ${MAX_MAINTENANCE_WINDOWS} windows per workspace (403 limit_reached).`,
      tag: "Maintenance",
      access: "token",
      permission: "sites:write",
      body: MaintenanceCreate,
      response: { status: 201, description: "The window", schema: Envelope(MaintenanceWindow) },
      errors: [400, 401, 403, 413, 415, 429],
      async handler({ body, principal: p }) {
        const sites = [...new Set(body.sites)];
        await checkSites(p.workspaceId, sites);
        if ((await store.maintenance.count(p.workspaceId)) >= MAX_MAINTENANCE_WINDOWS) {
          throw limitReached(`a workspace has at most ${MAX_MAINTENANCE_WINDOWS} maintenance windows`);
        }
        const now = clock.now().toISOString();
        const timeZone = canonicalZone(body.timeZone);
        const window: StoredWindow = {
          id: `mw_${randomBytes(12).toString("hex")}`,
          workspace_id: p.workspaceId,
          title: body.title,
          description: body.description,
          start: startIn(body.start, timeZone),
          time_zone: timeZone,
          duration_minutes: body.durationMinutes,
          recurrence: body.recurrence === null ? null : normalRecurrence(body.recurrence),
          refill_at: now,
          created_at: now,
          updated_at: now,
          ended_at: null,
          sites,
        };
        if (window.recurrence === "")
          throw invalidField("recurrence", "Enter a recurrence rule, or none for a window that happens once.");
        return envelope(201, "Maintenance window created", await saved(window, null));
      },
    }),
    route({
      method: "get",
      path: "/public/v1/maintenance-windows/{windowId}",
      operationId: "getMaintenanceWindow",
      summary: "A maintenance window",
      tag: "Maintenance",
      access: "token",
      permission: "sites:read",
      params: WindowParams,
      response: { status: 200, description: "The window", schema: Envelope(MaintenanceWindow) },
      errors: [401, 403, 404],
      async handler({ params, principal: p }) {
        const [view] = await views([await load(p.workspaceId, params.windowId)]);
        return envelope(200, "Maintenance window", view as MaintenanceWindow);
      },
    }),
    route({
      method: "patch",
      path: "/public/v1/maintenance-windows/{windowId}",
      operationId: "updateMaintenanceWindow",
      summary: "Change a maintenance window",
      description:
        "Any field of the creating body; sites replaces the sites it covers. The occurrences are expanded again (400 naming recurrence as on creation). 409 when another change of the window came first.",
      tag: "Maintenance",
      access: "token",
      permission: "sites:write",
      params: WindowParams,
      body: MaintenancePatch,
      response: { status: 200, description: "The window", schema: Envelope(MaintenanceWindow) },
      errors: [400, 401, 403, 404, 409, 413, 415, 429],
      async handler({ params, body, principal: p }) {
        const before = await load(p.workspaceId, params.windowId);
        const sites = body.sites ? [...new Set(body.sites)] : before.sites;
        if (body.sites) await checkSites(p.workspaceId, sites);
        if (sites.length === 0) throw invalidField("sites", "Its sites were deleted: choose at least one site.");
        const timeZone = body.timeZone === undefined ? before.time_zone : canonicalZone(body.timeZone);
        const recurrence =
          body.recurrence === undefined
            ? before.recurrence
            : body.recurrence === null
              ? null
              : normalRecurrence(body.recurrence);
        if (recurrence === "")
          throw invalidField("recurrence", "Enter a recurrence rule, or none for a window that happens once.");
        const window: StoredWindow = {
          ...before,
          title: body.title ?? before.title,
          description: body.description ?? before.description,
          // A new zone alone keeps the local start: "02:00 in the new zone".
          start: body.start !== undefined ? startIn(body.start, timeZone) : before.start,
          time_zone: timeZone,
          duration_minutes: body.durationMinutes ?? before.duration_minutes,
          recurrence,
          // New times re-plan the window: an earlier "end now" cut the old plan's occurrence, not the new one's.
          ended_at: replans(body) ? null : before.ended_at,
          updated_at: clock.now().toISOString(),
          sites,
        };
        return envelope(200, "Maintenance window updated", await saved(window, before.updated_at));
      },
    }),
    route({
      method: "post",
      path: "/public/v1/maintenance-windows/{windowId}/end",
      operationId: "endMaintenanceWindow",
      summary: "End the occurrence under way now",
      description:
        "The occurrence under way ends now: its sites are judged again at once (alerts and incidents that waited for it follow), and status pages stop showing it. A one-off window is then over; a recurring window's later occurrences stay. 409 when no occurrence is under way.",
      tag: "Maintenance",
      access: "token",
      permission: "sites:write",
      params: WindowParams,
      response: { status: 200, description: "The window", schema: Envelope(MaintenanceWindow) },
      errors: [401, 403, 404, 409],
      async handler({ params, principal: p }) {
        const ended = await store.maintenance.endNow(p.workspaceId, params.windowId, clock.now().toISOString());
        if (ended === undefined) throw notFound("Maintenance window");
        if (ended === "none") {
          throw new ApiError(409, "conflict", "No occurrence of this maintenance window is under way.");
        }
        changed();
        const [view] = await views([ended]);
        return envelope(200, "Maintenance window ended", view as MaintenanceWindow);
      },
    }),
    route({
      method: "delete",
      path: "/public/v1/maintenance-windows/{windowId}",
      operationId: "deleteMaintenanceWindow",
      summary: "Delete a maintenance window (its sites are judged again at once)",
      tag: "Maintenance",
      access: "token",
      permission: "sites:write",
      params: WindowParams,
      response: {
        status: 200,
        description: "Deleted",
        schema: Envelope(z.object({ id: z.string(), deleted: z.literal(true) })),
      },
      errors: [401, 403, 404],
      async handler({ params, principal: p }) {
        const deleted = await store.maintenance.delete(p.workspaceId, params.windowId, clock.now().toISOString());
        if (!deleted) throw notFound("Maintenance window");
        changed();
        return envelope(200, "Maintenance window deleted", { id: params.windowId, deleted: true as const });
      },
    }),
  ];
}
