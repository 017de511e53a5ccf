import { z } from "zod";
import { Envelope, envelope } from "../contract/common.ts";
import { ItemCreate, ItemId, ItemPatch, OwnerItem, PageId } from "../contract/status-page.ts";
import { conflict, invalidField, notFound } from "../http/errors.ts";
import { route } from "../http/route.ts";
import { isUniqueViolation } from "../store/connection.ts";
import { ownerItem } from "../store/status-pages.ts";
import { unknownGroup } from "./groups.ts";
import { loadWorkspacePage, PageParams, type PageResourceDeps } from "./workspace-pages.ts";

const ItemParams = z.object({ id: PageId, itemId: ItemId });

/** The sites a status page shows: adding, changing and removing its items. */
export function itemRoutes({ store, clock, changed }: PageResourceDeps) {
  const now = () => clock.now().toISOString();

  return [
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
      async handler({ params, body, principal: p }) {
        await loadWorkspacePage(store, p, params.id);
        const site = await store.sites.get(p.workspaceId, body.siteId);
        if (!site) throw invalidField("siteId", "Choose a site of this workspace.");
        const at = now();
        const row = await store.pages
          .addItem(
            {
              page_id: params.id,
              site_id: site.id,
              label: body.label ?? site.name,
              visible: body.visible ? 1 : 0,
              created_at: at,
            },
            body.groupId ?? null,
          )
          .catch((error) => {
            if (isUniqueViolation(error)) throw conflict("siteId", "This site is already on this status page.");
            throw error;
          });
        if (row === "unknown-group") throw unknownGroup();
        await store.pages.touch(params.id, at);
        changed();
        return envelope(201, "Item added", ownerItem(row));
      },
    }),
    route({
      method: "patch",
      path: "/public/v1/status-pages/{id}/items/{itemId}",
      operationId: "updateStatusPageItem",
      summary: "Change an item's label, visibility, group or position",
      tag: "Status page items",
      access: "token",
      permission: "status_pages:write",
      params: ItemParams,
      body: ItemPatch,
      response: { status: 200, description: "The updated item", schema: Envelope(OwnerItem) },
      errors: [400, 401, 403, 404, 413, 415],
      async handler({ params, body, principal }) {
        await loadWorkspacePage(store, principal, params.id);
        const row = await store.pages.updateItem(params.id, params.itemId, body);
        if (row === "unknown-group") throw unknownGroup();
        if (!row) throw notFound("Item");
        await store.pages.touch(params.id, now());
        changed();
        return envelope(200, "Item updated", ownerItem(row));
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
        await loadWorkspacePage(store, principal, params.id);
        if (!(await store.pages.deleteItem(params.id, params.itemId))) throw notFound("Item");
        await store.pages.touch(params.id, now());
        changed();
        return envelope(200, "Item removed", { id: params.itemId });
      },
    }),
  ];
}
