import { z } from "zod";
import { hashPassword } from "../accounts/secrets.ts";
import { type Plan, STATUS_PAGE_LIMITS } from "../contract/account.ts";
import { Envelope, envelope, PageQuery } from "../contract/common.ts";
import {
  IMAGE_PATH,
  IMAGE_TYPES,
  MAX_IMAGE_BYTES,
  MAX_IMAGE_PIXELS,
  StatusPage,
  StatusPageCreate,
  StatusPageDelete,
  StatusPageList,
  StatusPagePatch,
} from "../contract/status-page.ts";
import { badRequest, conflict, invalidField, limitReached, notFound } from "../http/errors.ts";
import { route } from "../http/route.ts";
import { isUniqueViolation } from "../store/connection.ts";
import {
  IMAGE_KINDS,
  newPageColumns,
  type PageChange,
  pageChangeColumns,
  statusPageView,
  visibilityOf,
} from "../store/status-pages.ts";
import { checkImage } from "./images.ts";
import { loadWorkspacePage, PageParams, type PageResourceDeps } from "./workspace-pages.ts";

export interface StatusPageDeps extends PageResourceDeps {
  /** Where the hosted pages live: a page's url is this and its slug. */
  publicUrl: string;
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

/** A workspace's status pages themselves; their items and incidents have routes of their own (items.ts, incidents.ts). */
export function statusPageRoutes({ store, clock, publicUrl, changed }: StatusPageDeps) {
  type StoredPage = Parameters<typeof statusPageView>[0];
  const pageView = (row: StoredPage, items: Parameters<typeof statusPageView>[1]) =>
    statusPageView(row, items, publicUrl);
  const withItems = async (row: StoredPage) => pageView(row, await store.pages.contents([row.id]));
  const onUnique = (error: unknown): never => {
    if (isUniqueViolation(error)) {
      const field = uniqueField(error);
      throw conflict(field, takenMessage[field]);
    }
    throw error;
  };
  const now = () => clock.now().toISOString();

  return [
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
        schema: Envelope(StatusPageList),
      },
      errors: [400, 401, 403],
      async handler({ query, principal: p }) {
        const page = query.page ?? 1;
        const perPage = query.perPage ?? 10;
        const [rows, total] = await Promise.all([
          store.pages.list(p.workspaceId, (page - 1) * perPage, perPage),
          store.pages.count(p.workspaceId),
        ]);
        const contents = await store.pages.contents(rows.map((r) => r.id));
        return envelope(200, "Status pages", {
          statusPages: rows.map((r) => pageView(r, contents)),
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
      async handler({ body, principal: p }) {
        const passwordHash =
          body.visibility === "password-protected" && body.password ? await hashPassword(body.password) : null;
        const limit = STATUS_PAGE_LIMITS[p.plan as Plan];
        const at = now();
        const row = await store
          .transaction(async (trx) => {
            await store.lockWorkspace(trx, p.workspaceId);
            const count = await store.pages.count(p.workspaceId, trx);
            if (count >= limit) {
              throw limitReached(`the ${p.plan} plan allows ${limit} status page${limit === 1 ? "" : "s"}`);
            }
            return store.pages.insert(trx, newPageColumns(p.workspaceId, body, passwordHash, at));
          })
          .catch(onUnique);
        changed();
        return envelope(201, "Status page created", pageView(row, { items: [], groups: [] }));
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
        return envelope(200, "Status page", await withItems(await loadWorkspacePage(store, principal, params.id)));
      },
    }),
    route({
      method: "patch",
      path: "/public/v1/status-pages/{id}",
      operationId: "updateStatusPage",
      summary: "Change a status page",
      description:
        "theme, display, incidentPolicy (its template too) and subscriptions are merged field by field. logo and favicon take an https:// address (replacing an uploaded image) or null. Setting visibility to password-protected (or its alias password) needs a password unless the page has one; leaving password-protected visibility erases the stored hash.",
      tag: "Status pages",
      access: "token",
      permission: "status_pages:write",
      params: PageParams,
      body: StatusPagePatch,
      response: { status: 200, description: "The updated page", schema: Envelope(StatusPage) },
      errors: [400, 401, 403, 404, 409, 413, 415],
      async handler({ params, body, principal: p }) {
        const current = await loadWorkspacePage(store, p, params.id);
        const visibility = body.visibility ?? visibilityOf(current.visibility);
        const changes: PageChange = { updatedAt: now() };
        if (body.password !== undefined && visibility !== "password-protected") {
          throw invalidField("password", "Set a password only on a password-protected page.");
        }
        if (visibility === "password-protected") {
          if (body.password !== undefined) changes.passwordHash = await hashPassword(body.password);
          else if (current.password_hash === null) {
            throw invalidField("password", "Enter a password for a password-protected page.");
          }
        } else {
          changes.passwordHash = null;
        }
        if (body.name !== undefined) changes.name = body.name;
        if (body.slug !== undefined) changes.slug = body.slug;
        if (body.description !== undefined) changes.description = body.description;
        if (body.visibility !== undefined) changes.visibility = body.visibility;
        if (body.customDomain !== undefined) changes.customDomain = body.customDomain;
        for (const kind of IMAGE_KINDS) {
          // An upload's path written as this server's address is the path.
          const given = body[kind];
          const own = given?.startsWith(`${publicUrl}/assets/`) ? given.slice(publicUrl.length) : given;
          const value = own !== undefined && own !== null && IMAGE_PATH.test(own) ? own : given;
          // The page's current value, sent back as it came, changes nothing (and keeps an upload).
          if (value === undefined || value === current[kind]) continue;
          if (value !== null && (IMAGE_PATH.test(value) || value.startsWith(`${publicUrl}/assets/`))) {
            throw invalidField(
              kind,
              `an uploaded image's path is only accepted as the page's current ${kind}; upload with PUT`,
            );
          }
          changes[kind] = value;
        }
        if (body.theme) changes.theme = body.theme;
        if (body.display) changes.display = body.display;
        if (body.incidentPolicy) changes.incidentPolicy = body.incidentPolicy;
        if (body.subscriptions) changes.subscriptions = body.subscriptions;
        const row = await store.pages
          .update(p.workspaceId, params.id, pageChangeColumns(current, changes))
          .catch(onUnique);
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
      async handler({ params, body, principal: p }) {
        const page = await loadWorkspacePage(store, p, params.id);
        const mismatch = () =>
          badRequest("confirmName does not match the page's name exactly; nothing was deleted", [
            { field: "confirmName", message: "must equal the page's name, character for character" },
          ]);
        if (body.confirmName !== page.name) throw mismatch();
        if (!(await store.pages.delete(p.workspaceId, params.id, body.confirmName))) {
          // Renamed or deleted since it was read.
          if (await store.pages.get(p.workspaceId, params.id)) throw mismatch();
          throw notFound("Status page");
        }
        changed();
        return envelope(200, "Status page deleted", { id: params.id });
      },
    }),
    ...IMAGE_KINDS.flatMap((kind) => [
      route({
        method: "put",
        path: `/public/v1/status-pages/{id}/${kind}`,
        operationId: kind === "logo" ? "uploadStatusPageLogo" : "uploadStatusPageFavicon",
        summary: `Upload the status page's ${kind}`,
        description:
          `The body is the image's bytes, its type in Content-Type: PNG, JPEG, GIF, WebP, ICO (at most ${MAX_IMAGE_PIXELS} x ${MAX_IMAGE_PIXELS} pixels) or SVG (UTF-8, no DOCTYPE), at most ${MAX_IMAGE_BYTES} bytes. ` +
          `The server stores it and serves it at /assets/<sha-256>.<ext>, cached for a year, an SVG with a Content-Security-Policy that forbids script; the page's ${kind} becomes that path, replacing an address or an earlier upload. ` +
          "A body that is not such an image answers 400, another Content-Type 415, a larger body 413; the page is then unchanged.",
        tag: "Status pages",
        access: "token",
        permission: "status_pages:write",
        params: PageParams,
        upload: { types: Object.values(IMAGE_TYPES), description: `The ${kind}'s bytes`, maxBytes: MAX_IMAGE_BYTES },
        response: { status: 200, description: `The page with its new ${kind}`, schema: Envelope(StatusPage) },
        errors: [400, 401, 403, 404, 413, 415],
        async handler({ params, principal: p, c }) {
          await loadWorkspacePage(store, p, params.id);
          const image = checkImage(c.req.header("content-type"), new Uint8Array(await c.req.arrayBuffer()));
          const row = await store.pages.setImage(p.workspaceId, params.id, kind, image, now());
          if (!row) throw notFound("Status page");
          changed();
          return envelope(200, `Status page ${kind} uploaded`, await withItems(row));
        },
      }),
      route({
        method: "delete",
        path: `/public/v1/status-pages/{id}/${kind}`,
        operationId: kind === "logo" ? "deleteStatusPageLogo" : "deleteStatusPageFavicon",
        summary: `Remove the status page's ${kind}`,
        description: `Uploaded or an address: the page has no ${kind} afterwards (PATCH with ${kind}: null does the same).`,
        tag: "Status pages",
        access: "token",
        permission: "status_pages:write",
        params: PageParams,
        response: { status: 200, description: `The page without a ${kind}`, schema: Envelope(StatusPage) },
        errors: [401, 403, 404],
        async handler({ params, principal: p }) {
          const row = await store.pages.setImage(p.workspaceId, params.id, kind, null, now());
          if (!row) throw notFound("Status page");
          changed();
          return envelope(200, `Status page ${kind} removed`, await withItems(row));
        },
      }),
    ]),
  ];
}
