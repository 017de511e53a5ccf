import { z } from "zod";
import { Envelope, envelope } from "../contract/common.ts";
import {
  type AffectedItem,
  affectedItems,
  CLOCK_SKEW_SECONDS,
  IncidentCreate,
  IncidentId,
  IncidentPatch,
  IncidentUpdateCreate,
  IncidentUpdatePatch,
  impactOfItems,
  OwnerIncident,
  OwnerIncidentList,
  PageId,
} from "../contract/status-page.ts";
import { invalidField, notFound } from "../http/errors.ts";
import { route } from "../http/route.ts";
import type { Store } from "../store/store.ts";
import { ownerIncidentView } from "../views/page-views.ts";
import { loadWorkspacePage, PageParams, type PageResourceDeps } from "./workspace-pages.ts";

/** A page's items as the store lists them. */
type PageItems = Awaited<ReturnType<Store["pages"]["listItems"]>>;
/** How many incidents the owner's incident list returns, newest first. */
export const OWNER_INCIDENT_LIMIT = 100;

const IncidentParams = z.object({ id: PageId, incidentId: IncidentId });
const PublishQuery = z.object({
  notify: z.enum(["true", "false"]).optional().meta({ description: "false: publish without telling subscribers" }),
});
const UpdateParams = IncidentParams.extend({ updateId: PageId.meta({ description: "Update id", example: "1" }) });

/**
 * A time the owner gave (startedAt, resolvedAt, an update's at), refused with a 400 naming `field` when it lies
 * ahead of the server's clock by more than the allowed skew; a time within the skew is taken as now, so that it
 * never sits after the updates that follow it.
 */
function givenTime(field: string, value: string, now: Date): Date {
  const at = new Date(value);
  if (at.getTime() > now.getTime() + CLOCK_SKEW_SECONDS * 1000) {
    throw invalidField(field, `Enter a time that is not in the future: the server's time is ${now.toISOString()}.`);
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
  const loadIncident = async (pageId: number, incidentId: number, items?: PageItems) => {
    const found = await store.incidents.get(pageId, incidentId);
    if (!found) throw notFound("Incident");
    const pageItems = items ?? (await store.pages.listItems([pageId]));
    return ownerIncidentView(found, pageItems);
  };
  /**
   * The page's items, refused with a 400 naming items unless every id named is one of them; none read when none is
   * named.
   */
  const checkItems = async (pageId: number, named: (number | AffectedItem)[] | undefined) => {
    if (!named?.length) return undefined;
    const ids = named.map((item) => (typeof item === "number" ? item : item.id));
    const items = await store.pages.listItems([pageId]);
    const own = new Set(items.map((item) => item.id));
    const stranger = ids.find((id) => !own.has(id));
    if (stranger !== undefined) throw invalidField("items", `Item ${stranger} is not on this status page.`);
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
      response: {
        status: 200,
        description: "Incidents, drafts and unpublished ones included",
        schema: Envelope(OwnerIncidentList),
      },
      errors: [401, 403, 404],
      async handler({ params, principal }) {
        await loadWorkspacePage(store, principal, params.id);
        const incidents = await store.incidents.list(params.id, OWNER_INCIDENT_LIMIT);
        const items = await store.pages.listItems([params.id]);
        return envelope(200, "Incidents", {
          incidents: incidents.map((incident) => ownerIncidentView(incident, items)),
        });
      },
    }),
    route({
      method: "post",
      path: "/public/v1/status-pages/{id}/incidents",
      operationId: "createIncident",
      summary: "Open (or record) an incident",
      description:
        "status defaults to investigating. items names the page's items it affects, each an id or {id, status}; impact defaults to the worst status named, and an id alone takes the status the impact speaks of. While open (and published) the incident moves its items' shown status and the page's banner. publish: false records a draft. startedAt defaults to now and may not be in the future. A retrospective incident is created with startedAt, or with status resolved and an optional resolvedAt; its first update is stamped with resolvedAt when resolved, else startedAt.",
      tag: "Incidents",
      access: "token",
      permission: "incidents:write",
      params: PageParams,
      body: IncidentCreate,
      response: { status: 201, description: "The incident", schema: Envelope(OwnerIncident) },
      errors: [400, 401, 403, 404, 413, 415],
      async handler({ params, body, principal }) {
        await loadWorkspacePage(store, principal, params.id);
        const items = await checkItems(params.id, body.items);
        const impact = body.impact ?? impactOfItems(body.items);
        const at = clock.now();
        const started = body.startedAt ? givenTime("startedAt", body.startedAt, at) : at;
        let resolved: Date | null = null;
        if (body.status === "resolved") {
          resolved = body.resolvedAt ? givenTime("resolvedAt", body.resolvedAt, at) : at;
          if (resolved.getTime() < started.getTime())
            throw invalidField("resolvedAt", "The resolution time must not be before the start.");
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
            impact,
            published_at: body.publish ? at.toISOString() : null,
          },
          body.message,
          affectedItems(body.items ?? [], impact),
          body.notify ?? body.status !== "resolved",
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
      response: { status: 201, description: "The incident with its new update", schema: Envelope(OwnerIncident) },
      errors: [400, 401, 403, 404, 413, 415],
      async handler({ params, body, principal }) {
        await loadWorkspacePage(store, principal, params.id);
        await mustExist(params.id, params.incidentId);
        const posted = clock.now();
        const at = body.at === undefined ? undefined : givenTime("at", body.at, posted).toISOString();
        const update = { status: body.status, message: body.message, at, notify: body.notify };
        const result = await store.incidents.addUpdate(params.id, params.incidentId, update, posted.toISOString());
        if (!result.ok) {
          if (result.refused === "missing") throw notFound("Incident");
          const what = result.refused === "before-start" ? "the incident started" : "the incident's latest update";
          throw invalidField("at", `The time must not be before ${what} (${result.bound}).`);
        }
        changed();
        return envelope(201, "Update posted", await loadIncident(params.id, params.incidentId));
      },
    }),
    route({
      method: "patch",
      path: "/public/v1/status-pages/{id}/incidents/{incidentId}",
      operationId: "updateIncident",
      summary: "Rename an incident, set its impact, or name the items it affects",
      description:
        "items replaces the items named before, each an id or {id, status}; an id alone takes the status of the impact (this request's, else the incident's). impact alone leaves the items' statuses as they are.",
      tag: "Incidents",
      access: "token",
      permission: "incidents:write",
      params: IncidentParams,
      body: IncidentPatch,
      response: { status: 200, description: "The incident", schema: Envelope(OwnerIncident) },
      errors: [400, 401, 403, 404, 413, 415],
      async handler({ params, body, principal }) {
        await loadWorkspacePage(store, principal, params.id);
        const found = await store.incidents.get(params.id, params.incidentId);
        if (!found) throw notFound("Incident");
        const items = await checkItems(params.id, body.items);
        const impact = body.impact ?? found.impact;
        const change = {
          title: body.title,
          impact: body.impact,
          items: body.items && affectedItems(body.items, impact),
        };
        await store.incidents.update(params.id, params.incidentId, change, now());
        changed();
        return envelope(200, "Incident updated", await loadIncident(params.id, params.incidentId, items));
      },
    }),
    route({
      method: "delete",
      path: "/public/v1/status-pages/{id}/incidents/{incidentId}",
      operationId: "deleteIncident",
      summary: "Delete an incident recorded by mistake",
      description: "Manual and automatic incidents alike, with their updates.",
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
    route({
      method: "post",
      path: "/public/v1/status-pages/{id}/incidents/{incidentId}/publish",
      operationId: "publishIncident",
      summary: "Publish a draft, or an automatic incident waiting for the page's delay",
      description:
        "Visitors read the incident from now on (publishedAt), and the page's subscribers are told (unless notify=false). Publishing a published incident changes nothing and answers the same.",
      tag: "Incidents",
      access: "token",
      permission: "incidents:write",
      params: IncidentParams,
      query: PublishQuery,
      response: { status: 200, description: "The incident", schema: Envelope(OwnerIncident) },
      errors: [400, 401, 403, 404],
      async handler({ params, query, principal }) {
        await loadWorkspacePage(store, principal, params.id);
        const published = await store.incidents.publish(params.id, params.incidentId, now(), query.notify !== "false");
        if (!published) throw notFound("Incident");
        changed();
        return envelope(200, "Incident published", await loadIncident(params.id, params.incidentId));
      },
    }),
    route({
      method: "patch",
      path: "/public/v1/status-pages/{id}/incidents/{incidentId}/updates/{updateId}",
      operationId: "updateIncidentUpdate",
      summary: "Correct an update's text or time",
      description:
        "at may not be in the future, before the incident started, before the update before it or after the update after it (400 naming at, nothing written). " +
        "Moving the opening update moves the incident's started_at; moving the update that resolved it moves resolved_at.",
      tag: "Incidents",
      access: "token",
      permission: "incidents:write",
      params: UpdateParams,
      body: IncidentUpdatePatch,
      response: { status: 200, description: "The incident with the corrected update", schema: Envelope(OwnerIncident) },
      errors: [400, 401, 403, 404, 413, 415],
      async handler({ params, body, principal }) {
        await loadWorkspacePage(store, principal, params.id);
        const posted = clock.now();
        const at = body.at === undefined ? undefined : givenTime("at", body.at, posted).toISOString();
        const change = { message: body.message, at };
        const result = await store.incidents.editUpdate(
          params.id,
          params.incidentId,
          params.updateId,
          change,
          posted.toISOString(),
        );
        if (!result.ok) {
          if (result.refused === "missing") throw notFound("Incident");
          if (result.refused === "missing-update") throw notFound("Update");
          const what = {
            "before-start": "be before the incident started",
            "before-previous": "be before the update before it",
            "after-next": "be after the update after it",
          }[result.refused];
          throw invalidField("at", `The time must not ${what} (${result.bound}).`);
        }
        changed();
        return envelope(200, "Update corrected", await loadIncident(params.id, params.incidentId));
      },
    }),
  ];
}
