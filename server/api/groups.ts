import { z } from "zod";
import { Envelope, envelope } from "../contract/common.ts";
import { GroupCreate, GroupId, GroupPatch, MAX_GROUPS, OwnerGroup, PageId } from "../contract/status-page.ts";
import { conflict, invalidField, limitReached, notFound } from "../http/errors.ts";
import { route } from "../http/route.ts";
import { isUniqueViolation } from "../store/connection.ts";
import { ownerGroup } from "../store/status-pages.ts";
import { loadWorkspacePage, PageParams, type PageResourceDeps } from "./workspace-pages.ts";

/** An item's groupId that names no group of its page. */
export const unknownGroup = () => invalidField("groupId", "Choose a group of this page.");

const GroupParams = z.object({ id: PageId, groupId: GroupId });

const nameTaken = (error: unknown): never => {
  if (isUniqueViolation(error)) throw conflict("name", "is already the name of a group on this page");
  throw error;
};

/**
 * A status page's component groups (two levels, as Statuspage's): a group sits among the page's ungrouped items and
 * shows its worst member's status (contract/status.ts groupStatus).
 */
export function groupRoutes({ store, clock, changed }: PageResourceDeps) {
  const now = () => clock.now().toISOString();
  const tag = "Status page items";

  return [
    route({
      method: "post",
      path: "/public/v1/status-pages/{id}/groups",
      operationId: "addStatusPageGroup",
      summary: "Add a component group to a status page",
      description: `Items join it by their groupId. Names are unique on a page (409); a page has at most ${MAX_GROUPS} groups (403 limit_reached).`,
      tag,
      access: "token",
      permission: "status_pages:write",
      params: PageParams,
      body: GroupCreate,
      response: { status: 201, description: "The new group", schema: Envelope(OwnerGroup) },
      errors: [400, 401, 403, 404, 409, 413, 415],
      async handler({ params, body, principal }) {
        await loadWorkspacePage(store, principal, params.id);
        const at = now();
        const row = await store.pages.insertGroup(params.id, body, at, MAX_GROUPS).catch(nameTaken);
        if (row === "limit") throw limitReached(`a status page has at most ${MAX_GROUPS} groups`);
        await store.pages.touch(params.id, at);
        changed();
        return envelope(201, "Group added", ownerGroup(row));
      },
    }),
    route({
      method: "patch",
      path: "/public/v1/status-pages/{id}/groups/{groupId}",
      operationId: "updateStatusPageGroup",
      summary: "Rename, describe, move or change a group's default for visitors",
      tag,
      access: "token",
      permission: "status_pages:write",
      params: GroupParams,
      body: GroupPatch,
      response: { status: 200, description: "The updated group", schema: Envelope(OwnerGroup) },
      errors: [400, 401, 403, 404, 409, 413, 415],
      async handler({ params, body, principal }) {
        await loadWorkspacePage(store, principal, params.id);
        const row = await store.pages.updateGroup(params.id, params.groupId, body).catch(nameTaken);
        if (!row) throw notFound("Group");
        await store.pages.touch(params.id, now());
        changed();
        return envelope(200, "Group updated", ownerGroup(row));
      },
    }),
    route({
      method: "delete",
      path: "/public/v1/status-pages/{id}/groups/{groupId}",
      operationId: "removeStatusPageGroup",
      summary: "Remove a group; its items stay on the page, ungrouped, in its place",
      tag,
      access: "token",
      permission: "status_pages:write",
      params: GroupParams,
      response: { status: 200, description: "Removed", schema: Envelope(z.object({ id: z.int() })) },
      errors: [401, 403, 404],
      async handler({ params, principal }) {
        await loadWorkspacePage(store, principal, params.id);
        if (!(await store.pages.deleteGroup(params.id, params.groupId))) throw notFound("Group");
        await store.pages.touch(params.id, now());
        changed();
        return envelope(200, "Group removed", { id: params.groupId });
      },
    }),
  ];
}
