import { z } from "zod";
import { hashPassword } from "../accounts/secrets.ts";
import { type Plan, STATUS_PAGE_LIMITS } from "../contract/account.ts";
import { Envelope, PageQuery, Pagination } from "../contract/common.ts";
import {
  DisplayOptions,
  Incident,
  IncidentCreate,
  IncidentId,
  IncidentPatch,
  IncidentUpdateCreate,
  ItemCreate,
  ItemId,
  ItemPatch,
  OwnerItem,
  PageId,
  StatusPage,
  StatusPageCreate,
  StatusPageDelete,
  StatusPagePatch,
  Theme,
} from "../contract/status-page.ts";
import { type ItemRow, isUniqueViolation, type PageRow, type Principal, type Store } from "../store/store.ts";
import { badRequest, conflict, invalidField, limitReached, notFound } from "./errors.ts";
import { incidentView, incidentViews } from "./page-views.ts";
import { envelope, route } from "./route.ts";
import type { Clock } from "./time.ts";

export interface StatusPageDeps {
  store: Store;
  clock: Clock;
  publicUrl: string;
  changed: () => void;
}

/** How many incidents the owner's incident list returns, newest first. */
export const OWNER_INCIDENT_LIMIT = 100;

function itemView(row: ItemRow): OwnerItem {
  return {
    id: row.id,
    siteId: row.site_id,
    label: row.label,
    visible: row.visible === 1,
    position: row.position,
    createdAt: row.created_at,
  };
}

/** The page field a UNIQUE violation is about. */
function uniqueField(error: unknown): "slug" | "customDomain" {
  const text = `${(error as Error).message} ${(error as { constraint?: string }).constraint ?? ""}`;
  return text.includes("custom_domain") ? "customDomain" : "slug";
}
const takenMessage = {
  slug: "is already taken by another status page",
  customDomain: "is already used by another status page",
};

const PageParams = z.object({ id: PageId });
const ItemParams = z.object({ id: PageId, itemId: ItemId });
const IncidentParams = z.object({ id: PageId, incidentId: IncidentId });

export function statusPageRoutes({ store, clock, publicUrl, changed }: StatusPageDeps) {
  const pageView = (row: PageRow, items: ItemRow[]): StatusPage => ({
    id: row.id,
    name: row.name,
    slug: row.slug,
    description: row.description,
    visibility: row.visibility as StatusPage["visibility"],
    hasPassword: row.password_hash !== null,
    theme: Theme.parse(JSON.parse(row.theme)),
    display: DisplayOptions.parse(JSON.parse(row.display)),
    customDomain: row.custom_domain,
    url: `${publicUrl}/${row.slug}`,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    items: items.filter((i) => i.page_id === row.id).map(itemView),
  });
  const loadPage = async (p: Principal, id: number) => {
    const row = await store.getPage(p.workspaceId, id);
    if (!row) throw notFound("Status page");
    return row;
  };
  const withItems = async (row: PageRow) => pageView(row, await store.listItems([row.id]));
  const onUnique = (error: unknown): never => {
    if (isUniqueViolation(error)) {
      const field = uniqueField(error);
      throw conflict(field, takenMessage[field]);
    }
    throw error;
  };
  const loadIncident = async (pageId: number, incidentId: number) => {
    const found = await store.getIncident(pageId, incidentId);
    if (!found) throw notFound("Incident");
    return incidentView(found.incident, found.updates);
  };
  const now = () => clock.now().toISOString();

  const pageRoutes = [
    route({
      method: "get",
      path: "/public/v1/status-pages",
      operationId: "listStatusPages",
      summary: "List the workspace's status pages, newest first",
      tag: "Status pages",
      access: "token",
      permission: "status_pages:read",
      query: PageQuery,
      response: {
        status: 200,
        description: "A page of status pages",
        schema: Envelope(z.object({ statusPages: z.array(StatusPage), pagination: Pagination })),
      },
      errors: [400, 401, 403],
      async handler({ query, principal }) {
        const p = principal as Principal;
        const page = query.page ?? 1;
        const perPage = query.perPage ?? 10;
        const [rows, total] = await Promise.all([
          store.listPages(p.workspaceId, (page - 1) * perPage, perPage),
          store.countPages(p.workspaceId),
        ]);
        const items = await store.listItems(rows.map((r) => r.id));
        return envelope(200, "Status pages", {
          statusPages: rows.map((r) => pageView(r, items)),
          pagination: { page, perPage, total, totalPages: Math.ceil(total / perPage) },
        });
      },
    }),
    route({
      method: "post",
      path: "/public/v1/status-pages",
      operationId: "createStatusPage",
      summary: "Create a status page",
      description:
        "Plans allow free 1, solo 2, team 5, stack unlimited status pages. One more answers 403 with error limit_reached and the message 'Limit reached: …', and nothing is created.",
      tag: "Status pages",
      access: "token",
      permission: "status_pages:write",
      body: StatusPageCreate,
      response: { status: 201, description: "The new page", schema: Envelope(StatusPage) },
      errors: [400, 401, 403, 409, 413, 415],
      async handler({ body, principal }) {
        const p = principal as Principal;
        const passwordHash = body.visibility === "password" && body.password ? await hashPassword(body.password) : null;
        const limit = STATUS_PAGE_LIMITS[p.plan as Plan];
        const at = now();
        const row = await store
          .transaction(async (trx) => {
            await store.lockWorkspace(trx, p.workspaceId);
            const count = await store.countPages(p.workspaceId, trx);
            if (count >= limit) {
              throw limitReached(`the ${p.plan} plan allows ${limit} status page${limit === 1 ? "" : "s"}`);
            }
            return store.insertPage(trx, {
              workspace_id: p.workspaceId,
              name: body.name,
              slug: body.slug,
              description: body.description,
              visibility: body.visibility,
              password_hash: passwordHash,
              theme: JSON.stringify(body.theme),
              display: JSON.stringify(body.display),
              custom_domain: body.customDomain,
              created_at: at,
              updated_at: at,
            });
          })
          .catch(onUnique);
        changed();
        return envelope(201, "Status page created", pageView(row, []));
      },
    }),
    route({
      method: "get",
      path: "/public/v1/status-pages/{id}",
      operationId: "getStatusPage",
      summary: "A status page's configuration and items",
      tag: "Status pages",
      access: "token",
      permission: "status_pages:read",
      params: PageParams,
      response: { status: 200, description: "The page", schema: Envelope(StatusPage) },
      errors: [401, 403, 404],
      async handler({ params, principal }) {
        return envelope(200, "Status page", await withItems(await loadPage(principal as Principal, params.id)));
      },
    }),
    route({
      method: "patch",
      path: "/public/v1/status-pages/{id}",
      operationId: "updateStatusPage",
      summary: "Change a status page",
      description:
        "theme and display are merged field by field. Setting visibility to password needs a password unless the page has one; leaving password visibility erases the stored hash.",
      tag: "Status pages",
      access: "token",
      permission: "status_pages:write",
      params: PageParams,
      body: StatusPagePatch,
      response: { status: 200, description: "The updated page", schema: Envelope(StatusPage) },
      errors: [400, 401, 403, 404, 409, 413, 415],
      async handler({ params, body, principal }) {
        const p = principal as Principal;
        const current = await loadPage(p, params.id);
        const visibility = body.visibility ?? current.visibility;
        const changes: Partial<PageRow> = { updated_at: now() };
        if (body.password !== undefined && visibility !== "password") {
          throw invalidField("password", "can only be set when visibility is password");
        }
        if (visibility === "password") {
          if (body.password !== undefined) changes.password_hash = await hashPassword(body.password);
          else if (current.password_hash === null) {
            throw invalidField("password", "is required when visibility is password");
          }
        } else {
          changes.password_hash = null;
        }
        if (body.name !== undefined) changes.name = body.name;
        if (body.slug !== undefined) changes.slug = body.slug;
        if (body.description !== undefined) changes.description = body.description;
        if (body.visibility !== undefined) changes.visibility = body.visibility;
        if (body.customDomain !== undefined) changes.custom_domain = body.customDomain;
        if (body.theme) changes.theme = JSON.stringify({ ...JSON.parse(current.theme), ...body.theme });
        if (body.display) changes.display = JSON.stringify({ ...JSON.parse(current.display), ...body.display });
        const row = await store.updatePage(p.workspaceId, params.id, changes).catch(onUnique);
        if (!row) throw notFound("Status page");
        changed();
        return envelope(200, "Status page updated", await withItems(row));
      },
    }),
    route({
      method: "delete",
      path: "/public/v1/status-pages/{id}",
      operationId: "deleteStatusPage",
      summary: "Delete a status page, irreversibly",
      description:
        "The body must repeat the page's exact name (case-sensitive). Removes the page's configuration, theme, display options, custom domain, items, incidents and visibility settings; keeps the sites, their data and history, and every other page.",
      tag: "Status pages",
      access: "token",
      permission: "status_pages:write",
      params: PageParams,
      body: StatusPageDelete,
      response: { status: 200, description: "Deleted", schema: Envelope(z.object({ id: z.int() })) },
      errors: [400, 401, 403, 404, 415],
      async handler({ params, body, principal }) {
        const p = principal as Principal;
        const page = await loadPage(p, params.id);
        const mismatch = () =>
          badRequest("confirmName does not match the page's name exactly; nothing was deleted", [
            { field: "confirmName", message: "must equal the page's name, character for character" },
          ]);
        if (body.confirmName !== page.name) throw mismatch();
        if (!(await store.deletePage(p.workspaceId, params.id, body.confirmName))) {
          // Renamed or deleted since it was read.
          if (await store.getPage(p.workspaceId, params.id)) throw mismatch();
          throw notFound("Status page");
        }
        changed();
        return envelope(200, "Status page deleted", { id: params.id });
      },
    }),
  ];

  const itemRoutes = [
    route({
      method: "post",
      path: "/public/v1/status-pages/{id}/items",
      operationId: "addStatusPageItem",
      summary: "Show a site on a status page",
      description:
        "A site can sit on several pages with its own label and visibility on each, once per page (409 otherwise).",
      tag: "Status page items",
      access: "token",
      permission: "status_pages:write",
      params: PageParams,
      body: ItemCreate,
      response: { status: 201, description: "The new item", schema: Envelope(OwnerItem) },
      errors: [400, 401, 403, 404, 409, 413, 415],
      async handler({ params, body, principal }) {
        const p = principal as Principal;
        await loadPage(p, params.id);
        const site = await store.getSite(p.workspaceId, body.siteId);
        if (!site) throw invalidField("siteId", "names no site of this workspace");
        const at = now();
        const row = await store
          .insertItem({
            page_id: params.id,
            site_id: site.id,
            label: body.label ?? site.name,
            visible: body.visible ? 1 : 0,
            position: await store.nextItemPosition(params.id),
            created_at: at,
          })
          .catch((error) => {
            if (isUniqueViolation(error)) throw conflict("siteId", "is already on this status page");
            throw error;
          });
        await store.touchPage(params.id, at);
        changed();
        return envelope(201, "Item added", itemView(row));
      },
    }),
    route({
      method: "patch",
      path: "/public/v1/status-pages/{id}/items/{itemId}",
      operationId: "updateStatusPageItem",
      summary: "Change an item's label, visibility or position",
      tag: "Status page items",
      access: "token",
      permission: "status_pages:write",
      params: ItemParams,
      body: ItemPatch,
      response: { status: 200, description: "The updated item", schema: Envelope(OwnerItem) },
      errors: [400, 401, 403, 404, 413, 415],
      async handler({ params, body, principal }) {
        await loadPage(principal as Principal, params.id);
        const changes: Partial<ItemRow> = {};
        if (body.label !== undefined) changes.label = body.label;
        if (body.visible !== undefined) changes.visible = body.visible ? 1 : 0;
        if (body.position !== undefined) changes.position = body.position;
        const row =
          Object.keys(changes).length > 0
            ? await store.updateItem(params.id, params.itemId, changes)
            : (await store.listItems([params.id])).find((i) => i.id === params.itemId);
        if (!row) throw notFound("Item");
        await store.touchPage(params.id, now());
        changed();
        return envelope(200, "Item updated", itemView(row));
      },
    }),
    route({
      method: "delete",
      path: "/public/v1/status-pages/{id}/items/{itemId}",
      operationId: "removeStatusPageItem",
      summary: "Take a site off a status page (the site itself stays)",
      tag: "Status page items",
      access: "token",
      permission: "status_pages:write",
      params: ItemParams,
      response: { status: 200, description: "Removed", schema: Envelope(z.object({ id: z.int() })) },
      errors: [401, 403, 404],
      async handler({ params, principal }) {
        await loadPage(principal as Principal, params.id);
        if (!(await store.deleteItem(params.id, params.itemId))) throw notFound("Item");
        await store.touchPage(params.id, now());
        changed();
        return envelope(200, "Item removed", { id: params.itemId });
      },
    }),
  ];

  const incidentRoutes = [
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
        await loadPage(principal as Principal, params.id);
        const { incidents, updates } = await store.listIncidents(params.id, OWNER_INCIDENT_LIMIT);
        return envelope(200, "Incidents", { incidents: incidentViews(incidents, updates) });
      },
    }),
    route({
      method: "post",
      path: "/public/v1/status-pages/{id}/incidents",
      operationId: "createIncident",
      summary: "Open (or record) an incident",
      description:
        "status defaults to investigating. startedAt defaults to now and may not be in the future. A retrospective incident is created with status resolved and an optional resolvedAt.",
      tag: "Incidents",
      access: "token",
      permission: "incidents:write",
      params: PageParams,
      body: IncidentCreate,
      response: { status: 201, description: "The incident", schema: Envelope(Incident) },
      errors: [400, 401, 403, 404, 413, 415],
      async handler({ params, body, principal }) {
        await loadPage(principal as Principal, params.id);
        const at = clock.now();
        const started = body.startedAt ? new Date(body.startedAt) : at;
        if (started.getTime() > at.getTime()) throw invalidField("startedAt", "may not be in the future");
        let resolved: Date | null = null;
        if (body.status === "resolved") {
          resolved = body.resolvedAt ? new Date(body.resolvedAt) : at;
          if (resolved.getTime() > at.getTime()) throw invalidField("resolvedAt", "may not be in the future");
          if (resolved.getTime() < started.getTime()) throw invalidField("resolvedAt", "may not be before startedAt");
        }
        const id = await store.createIncident(
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
        );
        changed();
        return envelope(201, "Incident created", await loadIncident(params.id, id));
      },
    }),
    route({
      method: "post",
      path: "/public/v1/status-pages/{id}/incidents/{incidentId}/updates",
      operationId: "addIncidentUpdate",
      summary: "Post an update and move the incident to its status",
      description:
        "Any status may follow any other. resolved stamps resolved_at (kept if already resolved); another status after resolved reopens the incident and clears it.",
      tag: "Incidents",
      access: "token",
      permission: "incidents:write",
      params: IncidentParams,
      body: IncidentUpdateCreate,
      response: { status: 201, description: "The incident with its new update", schema: Envelope(Incident) },
      errors: [400, 401, 403, 404, 413, 415],
      async handler({ params, body, principal }) {
        await loadPage(principal as Principal, params.id);
        await loadIncident(params.id, params.incidentId);
        await store.addIncidentUpdate(params.id, params.incidentId, body.status, body.message, now());
        changed();
        return envelope(201, "Update posted", await loadIncident(params.id, params.incidentId));
      },
    }),
    route({
      method: "patch",
      path: "/public/v1/status-pages/{id}/incidents/{incidentId}",
      operationId: "updateIncident",
      summary: "Rename an incident",
      tag: "Incidents",
      access: "token",
      permission: "incidents:write",
      params: IncidentParams,
      body: IncidentPatch,
      response: { status: 200, description: "The incident", schema: Envelope(Incident) },
      errors: [400, 401, 403, 404, 413, 415],
      async handler({ params, body, principal }) {
        await loadPage(principal as Principal, params.id);
        await loadIncident(params.id, params.incidentId);
        await store.updateIncident(params.id, params.incidentId, body.title, now());
        changed();
        return envelope(200, "Incident updated", await loadIncident(params.id, params.incidentId));
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
        await loadPage(principal as Principal, params.id);
        if (!(await store.deleteIncident(params.id, params.incidentId, now()))) throw notFound("Incident");
        changed();
        return envelope(200, "Incident deleted", { id: params.incidentId });
      },
    }),
  ];

  return [...pageRoutes, ...itemRoutes, ...incidentRoutes];
}
