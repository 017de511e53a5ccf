import { z } from "zod";
import { Envelope, envelope } from "../contract/common.ts";
import {
  CLOCK_SKEW_SECONDS,
  Incident,
  IncidentCreate,
  IncidentId,
  IncidentPatch,
  IncidentUpdateCreate,
  PageId,
} from "../contract/status-page.ts";
import { invalidField, notFound } from "../http/errors.ts";
import { route } from "../http/route.ts";
import type { ItemRow } from "../store/schema.ts";
import { incidentView, incidentViews } from "../views/page-views.ts";
import { loadWorkspacePage, PageParams, type PageResourceDeps } from "./workspace-pages.ts";

/** How many incidents the owner's incident list returns, newest first. */
export const OWNER_INCIDENT_LIMIT = 100;

const IncidentParams = z.object({ id: PageId, incidentId: IncidentId });

/**
 * A time the owner gave (startedAt, resolvedAt, an update's at), refused with a 400 naming `field` when it lies
 * ahead of the server's clock by more than the allowed skew; a time within the skew is taken as now, so that it
 * never sits after the updates that follow it.
 */
function givenTime(field: string, value: string, now: Date): Date {
  const at = new Date(value);
  if (at.getTime() > now.getTime() + CLOCK_SKEW_SECONDS * 1000) {
    throw invalidField(field, `may not be in the future (the server's time is ${now.toISOString()})`);
  }
  return at.getTime() > now.getTime() ? now : at;
}

/** A status page's incidents and their updates, as its owner records them. */
export function incidentRoutes({ store, clock, changed }: PageResourceDeps) {
  /** Refused with a 404 unless the page has this incident. */
  const mustExist = async (pageId: number, incidentId: number) => {
    if (!(await store.incidents.get(pageId, incidentId))) throw notFound("Incident");
  };
  /** The incident as its owner reads it, its affected items among the page's (`items`, when already read). */
  const loadIncident = async (pageId: number, incidentId: number, items?: ItemRow[]) => {
    const found = await store.incidents.get(pageId, incidentId);
    if (!found) throw notFound("Incident");
    return incidentView(found.incident, found.updates, found.links, items ?? (await store.pages.listItems([pageId])));
  };
  /**
   * The page's items, refused with a 400 naming items unless every id named is one of them; none read when none is
   * named.
   */
  const checkItems = async (pageId: number, ids: number[] | undefined) => {
    if (!ids?.length) return undefined;
    const items = await store.pages.listItems([pageId]);
    const own = new Set(items.map((item) => item.id));
    const stranger = ids.find((id) => !own.has(id));
    if (stranger !== undefined) throw invalidField("items", `item ${stranger} is not on this status page`);
    return items;
  };
  const now = () => clock.now().toISOString();

  return [
    route({
      method: "get",
      path: "/public/v1/status-pages/{id}/incidents",
      operationId: "listIncidents",
      summary: `A page's incident history, newest first (the ${OWNER_INCIDENT_LIMIT} most recent)`,
      tag: "Incidents",
      access: "token",
      permission: "status_pages:read",
      params: PageParams,
      response: { status: 200, description: "Incidents", schema: Envelope(z.object({ incidents: z.array(Incident) })) },
      errors: [401, 403, 404],
      async handler({ params, principal }) {
        await loadWorkspacePage(store, principal, params.id);
        const { incidents, updates, links } = await store.incidents.list(params.id, OWNER_INCIDENT_LIMIT);
        const items = await store.pages.listItems([params.id]);
        return envelope(200, "Incidents", { incidents: incidentViews(incidents, updates, links, items) });
      },
    }),
    route({
      method: "post",
      path: "/public/v1/status-pages/{id}/incidents",
      operationId: "createIncident",
      summary: "Open (or record) an incident",
      description:
        "status defaults to investigating. items names the page's items it affects. startedAt defaults to now and may not be in the future. A retrospective incident is created with startedAt, or with status resolved and an optional resolvedAt; its first update is stamped with resolvedAt when resolved, else startedAt.",
      tag: "Incidents",
      access: "token",
      permission: "incidents:write",
      params: PageParams,
      body: IncidentCreate,
      response: { status: 201, description: "The incident", schema: Envelope(Incident) },
      errors: [400, 401, 403, 404, 413, 415],
      async handler({ params, body, principal }) {
        await loadWorkspacePage(store, principal, params.id);
        const items = await checkItems(params.id, body.items);
        const at = clock.now();
        const started = body.startedAt ? givenTime("startedAt", body.startedAt, at) : at;
        let resolved: Date | null = null;
        if (body.status === "resolved") {
          resolved = body.resolvedAt ? givenTime("resolvedAt", body.resolvedAt, at) : at;
          if (resolved.getTime() < started.getTime()) throw invalidField("resolvedAt", "may not be before startedAt");
        }
        const id = await store.incidents.create(
          {
            page_id: params.id,
            title: body.title,
            status: body.status,
            started_at: started.toISOString(),
            resolved_at: resolved?.toISOString() ?? null,
            created_at: at.toISOString(),
            updated_at: at.toISOString(),
          },
          body.message,
          body.items,
        );
        changed();
        return envelope(201, "Incident created", await loadIncident(params.id, id, items));
      },
    }),
    route({
      method: "post",
      path: "/public/v1/status-pages/{id}/incidents/{incidentId}/updates",
      operationId: "addIncidentUpdate",
      summary: "Post an update and move the incident to its status",
      description:
        "Any status may follow any other. resolved stamps resolved_at (kept if already resolved); another status after resolved reopens the incident and clears it. " +
        "at records an update after the fact: it stamps the update, and resolved_at when it resolves; it may not be in the future, before the incident started or before its latest update (400 naming at, nothing written).",
      tag: "Incidents",
      access: "token",
      permission: "incidents:write",
      params: IncidentParams,
      body: IncidentUpdateCreate,
      response: { status: 201, description: "The incident with its new update", schema: Envelope(Incident) },
      errors: [400, 401, 403, 404, 413, 415],
      async handler({ params, body, principal }) {
        await loadWorkspacePage(store, principal, params.id);
        await mustExist(params.id, params.incidentId);
        const posted = clock.now();
        const at = body.at === undefined ? undefined : givenTime("at", body.at, posted).toISOString();
        const update = { status: body.status, message: body.message, at };
        const result = await store.incidents.addUpdate(params.id, params.incidentId, update, posted.toISOString());
        if (!result.ok) {
          if (result.refused === "missing") throw notFound("Incident");
          const what = result.refused === "before-start" ? "the incident started" : "the incident's latest update";
          throw invalidField("at", `may not be before ${what} (${result.bound})`);
        }
        changed();
        return envelope(201, "Update posted", await loadIncident(params.id, params.incidentId));
      },
    }),
    route({
      method: "patch",
      path: "/public/v1/status-pages/{id}/incidents/{incidentId}",
      operationId: "updateIncident",
      summary: "Rename an incident, or name the items it affects",
      tag: "Incidents",
      access: "token",
      permission: "incidents:write",
      params: IncidentParams,
      body: IncidentPatch,
      response: { status: 200, description: "The incident", schema: Envelope(Incident) },
      errors: [400, 401, 403, 404, 413, 415],
      async handler({ params, body, principal }) {
        await loadWorkspacePage(store, principal, params.id);
        await mustExist(params.id, params.incidentId);
        const items = await checkItems(params.id, body.items);
        await store.incidents.update(params.id, params.incidentId, body, now());
        changed();
        return envelope(200, "Incident updated", await loadIncident(params.id, params.incidentId, items));
      },
    }),
    route({
      method: "delete",
      path: "/public/v1/status-pages/{id}/incidents/{incidentId}",
      operationId: "deleteIncident",
      summary: "Delete an incident recorded by mistake",
      tag: "Incidents",
      access: "token",
      permission: "incidents:write",
      params: IncidentParams,
      response: { status: 200, description: "Deleted", schema: Envelope(z.object({ id: z.int() })) },
      errors: [401, 403, 404],
      async handler({ params, principal }) {
        await loadWorkspacePage(store, principal, params.id);
        if (!(await store.incidents.delete(params.id, params.incidentId, now()))) throw notFound("Incident");
        changed();
        return envelope(200, "Incident deleted", { id: params.incidentId });
      },
    }),
  ];
}
