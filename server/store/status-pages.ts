import type { Kysely } from "kysely";
import {
  DEFAULT_INCIDENT_POLICY,
  DisplayOptions,
  type GroupPatch,
  IncidentPolicy,
  type ItemPatch,
  MAX_POSITION,
  type OwnerGroup,
  type OwnerItem,
  type StatusPage,
  type StatusPageCreate,
  type StatusPagePatch,
  Theme,
  type Visibility,
} from "../contract/status-page.ts";
import { DEFAULT_SUBSCRIPTIONS, SubscriptionSettings } from "../contract/subscribers.ts";
import { Queries } from "./connection.ts";
import type { Database, GroupRow, ItemRow, PageRow } from "./schema.ts";

/** A page as its owner sees it, with its items and groups (those of other pages are left out). */
export function statusPageView(
  row: PageRow,
  { items, groups }: { items: ItemRow[]; groups: GroupRow[] },
  publicUrl: string,
): StatusPage {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    description: row.description,
    visibility: visibilityOf(row.visibility),
    hasPassword: row.password_hash !== null,
    theme: Theme.parse(JSON.parse(row.theme)),
    display: DisplayOptions.parse(JSON.parse(row.display)),
    customDomain: row.custom_domain,
    logo: row.logo,
    favicon: row.favicon,
    url: `${publicUrl}/${row.slug}`,
    incidentPolicy: incidentPolicyOf(row.incident_policy),
    subscriptions: subscriptionsOf(row.subscriptions),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    items: items.filter((i) => i.page_id === row.id).map(ownerItem),
    groups: groups.filter((g) => g.page_id === row.id).map(ownerGroup),
  };
}

/** A page as its public view is made from: its columns decoded. */
export interface ShownPage {
  id: number;
  workspaceId: string;
  name: string;
  slug: string;
  description: string;
  visibility: Visibility;
  passwordHash: string | null;
  theme: Theme;
  display: DisplayOptions;
  customDomain: string | null;
  logo: string | null;
  favicon: string | null;
  /** Visitors may subscribe by e-mail on its form: allowed by its owner, and the page is not private. */
  subscribe: boolean;
  /** When anything on the page last changed (its settings, items, incidents: pages.touch). */
  updatedAt: string;
}

/** A page's row, decoded as its public view reads it. */
export function shownPage(row: PageRow): ShownPage {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    name: row.name,
    slug: row.slug,
    description: row.description,
    visibility: visibilityOf(row.visibility),
    passwordHash: row.password_hash,
    theme: Theme.parse(JSON.parse(row.theme)),
    display: DisplayOptions.parse(JSON.parse(row.display)),
    customDomain: row.custom_domain,
    logo: row.logo,
    favicon: row.favicon,
    subscribe: subscribable(row),
    updatedAt: row.updated_at,
  };
}

/** Whether a page takes sign-ups on its form: its owner allows e-mail subscriptions and it is not private. */
function subscribable(row: Pick<PageRow, "subscriptions" | "visibility">): boolean {
  const settings = subscriptionsOf(row.subscriptions);
  return settings.enabled && settings.kinds.includes("email") && row.visibility !== "private";
}

/** A new page's columns: what the owner gave, its password already hashed. */
export function newPageColumns(
  workspaceId: string,
  page: StatusPageCreate,
  passwordHash: string | null,
  at: string,
): Omit<PageRow, "id"> {
  return {
    workspace_id: workspaceId,
    name: page.name,
    slug: page.slug,
    description: page.description,
    visibility: storedVisibility(page.visibility),
    password_hash: passwordHash,
    theme: JSON.stringify(page.theme),
    display: JSON.stringify(page.display),
    custom_domain: page.customDomain,
    logo: page.logo,
    favicon: page.favicon,
    incident_policy: JSON.stringify(page.incidentPolicy),
    subscriptions: JSON.stringify(page.subscriptions),
    created_at: at,
    updated_at: at,
  };
}

/** What a change of a page writes, as the API decided it; what is absent stays. */
export interface PageChange {
  updatedAt: string;
  name?: string;
  slug?: string;
  description?: string;
  visibility?: Visibility;
  /** A new hash, or null to erase it (leaving password-protected visibility). */
  passwordHash?: string | null;
  customDomain?: string | null;
  logo?: string | null;
  favicon?: string | null;
  /** Merged field by field over the stored ones. */
  theme?: StatusPagePatch["theme"];
  display?: StatusPagePatch["display"];
  /** Merged into what the owner set (its template too): fields never set keep following the defaults. */
  incidentPolicy?: StatusPagePatch["incidentPolicy"];
  /** Merged over the stored settings. */
  subscriptions?: StatusPagePatch["subscriptions"];
}

/** The columns a change of `current` writes. */
export function pageChangeColumns(
  current: Pick<PageRow, "theme" | "display" | "incident_policy" | "subscriptions">,
  change: PageChange,
): Partial<PageRow> {
  const columns: Partial<PageRow> = { updated_at: change.updatedAt };
  if (change.name !== undefined) columns.name = change.name;
  if (change.slug !== undefined) columns.slug = change.slug;
  if (change.description !== undefined) columns.description = change.description;
  if (change.visibility !== undefined) columns.visibility = storedVisibility(change.visibility);
  if (change.passwordHash !== undefined) columns.password_hash = change.passwordHash;
  if (change.customDomain !== undefined) columns.custom_domain = change.customDomain;
  if (change.logo !== undefined) columns.logo = change.logo;
  if (change.favicon !== undefined) columns.favicon = change.favicon;
  if (change.theme) columns.theme = JSON.stringify({ ...JSON.parse(current.theme), ...change.theme });
  if (change.display) columns.display = JSON.stringify({ ...JSON.parse(current.display), ...change.display });
  if (change.incidentPolicy) {
    const { template, ...rest } = change.incidentPolicy;
    const stored = JSON.parse(current.incident_policy) as { template?: object };
    columns.incident_policy = JSON.stringify({ ...stored, ...rest, template: { ...stored.template, ...template } });
  }
  if (change.subscriptions) {
    columns.subscriptions = JSON.stringify({ ...subscriptionsOf(current.subscriptions), ...change.subscriptions });
  }
  return columns;
}

/** An item as its page's owner sees it. */
export function ownerItem(row: ItemRow): OwnerItem {
  return {
    id: row.id,
    siteId: row.site_id,
    label: row.label,
    visible: row.visible === 1,
    position: row.position,
    groupId: row.group_id,
    createdAt: row.created_at,
  };
}

/** A component group as its page's owner sees it. */
export function ownerGroup(row: GroupRow): OwnerGroup {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    collapsed: row.collapsed === 1,
    position: row.position,
    createdAt: row.created_at,
  };
}

/**
 * A page's visibility as the status_pages.visibility column holds it. A password-protected page is stored as
 * `password`, the name releases before spec 2.6's `password-protected` wrote: rows need no migration, and a process
 * of an earlier release still running against the same database (a rolling deploy, a rollback) reads and writes
 * what it knows. The store's own queries only ever compare with `public`.
 */
export type StoredVisibility = "public" | "private" | "password";

/** The stored value of a visibility: what a row is written with. */
export function storedVisibility(visibility: Visibility): StoredVisibility {
  return visibility === "password-protected" ? "password" : visibility;
}

/** A row's visibility as answers name it; a value no release writes fails loudly rather than granting access. */
export function visibilityOf(stored: string): Visibility {
  if (stored === "password" || stored === "password-protected") return "password-protected";
  if (stored === "public" || stored === "private") return stored;
  throw new Error(`status page visibility ${JSON.stringify(stored)} is not one Porchlight writes`);
}

/** A page's subscription settings from its column: off, should it hold what this release cannot read. */
export function subscriptionsOf(stored: string): SubscriptionSettings {
  try {
    return SubscriptionSettings.catch(DEFAULT_SUBSCRIPTIONS).parse(JSON.parse(stored));
  } catch {
    return DEFAULT_SUBSCRIPTIONS;
  }
}

/**
 * A page's incident policy from its incident_policy column (JSON; '{}' is the defaults): what the owner set, the
 * defaults for the rest. A value this release cannot read (written by another) is the defaults, not an error.
 */
export function incidentPolicyOf(stored: string): IncidentPolicy {
  try {
    return IncidentPolicy.catch(DEFAULT_INCIDENT_POLICY).parse(JSON.parse(stored));
  } catch {
    return DEFAULT_INCIDENT_POLICY;
  }
}

/** A page's two images. */
export const IMAGE_KINDS = ["logo", "favicon"] as const;
export type ImageKind = (typeof IMAGE_KINDS)[number];

/** A status page item that shows a site: where an automatic incident opens. */
export interface ShowingItem {
  page_id: number;
  site_id: string;
  label: string;
}

/** Status pages and their items. */
export class PageQueries extends Queries {
  async count(workspaceId: string, trx: Kysely<Database> = this.db): Promise<number> {
    const row = await trx
      .selectFrom("status_pages")
      .select((eb) => eb.fn.countAll().as("n"))
      .where("workspace_id", "=", workspaceId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async list(workspaceId: string, offset: number, limit: number): Promise<PageRow[]> {
    return this.db
      .selectFrom("status_pages")
      .selectAll()
      .where("workspace_id", "=", workspaceId)
      .orderBy("created_at", "desc")
      .orderBy("id", "desc")
      .offset(offset)
      .limit(limit)
      .execute();
  }

  async get(workspaceId: string, id: number): Promise<PageRow | undefined> {
    return this.db
      .selectFrom("status_pages")
      .selectAll()
      .where("id", "=", id)
      .where("workspace_id", "=", workspaceId)
      .executeTakeFirst();
  }

  async getBySlug(slug: string): Promise<ShownPage | undefined> {
    const row = await this.db.selectFrom("status_pages").selectAll().where("slug", "=", slug).executeTakeFirst();
    return row && shownPage(row);
  }

  async insert(
    trx: Kysely<Database>,
    row: Omit<PageRow, "id" | "incident_policy" | "subscriptions"> & {
      incident_policy?: string;
      subscriptions?: string;
    },
  ): Promise<PageRow> {
    return trx.insertInto("status_pages").values(row).returningAll().executeTakeFirstOrThrow();
  }

  /**
   * Changes a page. A new logo or favicon (an address, or null) replaces an uploaded one: its bytes go in the same
   * transaction.
   */
  async update(workspaceId: string, id: number, changes: Partial<PageRow>): Promise<PageRow | undefined> {
    const write = (trx: Kysely<Database>) =>
      trx
        .updateTable("status_pages")
        .set(changes)
        .where("id", "=", id)
        .where("workspace_id", "=", workspaceId)
        .returningAll()
        .executeTakeFirst();
    const replaced = IMAGE_KINDS.filter((kind) => changes[kind] !== undefined);
    if (replaced.length === 0) return write(this.db);
    return this.transaction(async (trx) => {
      const row = await write(trx);
      if (row) await trx.deleteFrom("page_images").where("page_id", "=", id).where("kind", "in", replaced).execute();
      return row;
    });
  }

  /**
   * Sets a page's logo or favicon to an uploaded image (its bytes stored under its hash, its path on the page), or
   * with null removes it, whatever it was: one transaction. Undefined when the workspace has no such page.
   */
  async setImage(
    workspaceId: string,
    id: number,
    kind: ImageKind,
    image: { path: string; hash: string; contentType: string; bytes: Uint8Array } | null,
    now: string,
  ): Promise<PageRow | undefined> {
    return this.transaction(async (trx) => {
      const row = await trx
        .updateTable("status_pages")
        .set({ [kind]: image?.path ?? null, updated_at: now })
        .where("id", "=", id)
        .where("workspace_id", "=", workspaceId)
        .returningAll()
        .executeTakeFirst();
      if (!row) return undefined;
      await trx.deleteFrom("page_images").where("page_id", "=", id).where("kind", "=", kind).execute();
      if (image) {
        await trx
          .insertInto("page_images")
          .values({
            page_id: id,
            kind,
            hash: image.hash,
            content_type: image.contentType,
            // better-sqlite3 binds a Buffer as a blob, not any Uint8Array.
            bytes: Buffer.from(image.bytes.buffer, image.bytes.byteOffset, image.bytes.byteLength),
            created_at: now,
          })
          .execute();
      }
      return row;
    });
  }

  /** Uploaded images by their hashes, in one query (the static build's), each hash once. */
  async images(hashes: string[]): Promise<{ hash: string; content_type: string; bytes: Uint8Array }[]> {
    if (hashes.length === 0) return [];
    const rows = await this.db
      .selectFrom("page_images")
      .select(["hash", "content_type", "bytes"])
      .where("hash", "in", [...new Set(hashes)])
      .execute();
    return [...new Map(rows.map((row) => [row.hash, row])).values()];
  }

  /** An uploaded image by its hash, whichever page holds it. */
  async image(hash: string): Promise<{ content_type: string; bytes: Uint8Array } | undefined> {
    return this.db
      .selectFrom("page_images")
      .select(["content_type", "bytes"])
      .where("hash", "=", hash)
      .limit(1)
      .executeTakeFirst();
  }

  /**
   * Deletes a page with its items and incidents (foreign keys cascade); sites and their data stay. The name is part
   * of the delete itself, so a rename that lands after the caller read the page cannot be deleted by the old name.
   */
  async delete(workspaceId: string, id: number, name: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom("status_pages")
      .where("id", "=", id)
      .where("workspace_id", "=", workspaceId)
      .where("name", "=", name)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async listItems(pageIds: number[]): Promise<ItemRow[]> {
    if (pageIds.length === 0) return [];
    return this.db
      .selectFrom("status_page_items")
      .selectAll()
      .where("page_id", "in", pageIds)
      .orderBy("position")
      .orderBy("id")
      .execute();
  }

  async insertItem(row: Omit<ItemRow, "id" | "group_id"> & { group_id?: number | null }): Promise<ItemRow> {
    return this.db.insertInto("status_page_items").values(row).returningAll().executeTakeFirstOrThrow();
  }

  /**
   * Puts a site on a page, last (in `groupId`'s members, or at the top level), with the page locked: concurrent
   * additions and moves take their places one after another. "unknown-group" when the page has no such group.
   */
  async addItem(
    row: Omit<ItemRow, "id" | "group_id" | "position">,
    groupId: number | null,
  ): Promise<ItemRow | "unknown-group"> {
    return this.transaction(async (trx) => {
      await this.lockPage(trx, row.page_id);
      if (groupId !== null && !(await this.groupIn(trx, row.page_id, groupId))) return "unknown-group";
      const position = await this.nextItemPosition(row.page_id, groupId, trx);
      return trx
        .insertInto("status_page_items")
        .values({ ...row, group_id: groupId, position })
        .returningAll()
        .executeTakeFirstOrThrow();
    });
  }

  /**
   * Locks a page's row for the rest of the transaction (PostgreSQL; SQLite serialises writers already): its items'
   * and groups' places change one writer at a time, and a group checked here is still there when an item joins it.
   */
  private async lockPage(trx: Kysely<Database>, pageId: number): Promise<void> {
    if (this.dialect !== "postgres") return;
    await trx.selectFrom("status_pages").select("id").where("id", "=", pageId).forUpdate().execute();
  }

  private async groupIn(trx: Kysely<Database>, pageId: number, groupId: number): Promise<boolean> {
    const row = await trx
      .selectFrom("status_page_groups")
      .select("id")
      .where("page_id", "=", pageId)
      .where("id", "=", groupId)
      .executeTakeFirst();
    return row !== undefined;
  }

  /**
   * Where a new entry goes last: among a group's members, or (no group) among the page's groups and ungrouped items,
   * whose positions share one order.
   */
  async nextItemPosition(pageId: number, groupId: number | null = null, trx: Kysely<Database> = this.db) {
    const items = trx
      .selectFrom("status_page_items")
      .select("position")
      .where("page_id", "=", pageId)
      .where("group_id", groupId === null ? "is" : "=", groupId);
    const all =
      groupId === null
        ? items.unionAll(trx.selectFrom("status_page_groups").select("position").where("page_id", "=", pageId))
        : items;
    const row = await trx
      .selectFrom(all.as("p"))
      .select((eb) => eb.fn.max("p.position").as("p"))
      .executeTakeFirst();
    // At the top of the range an owner may give, it ties with what is there (the lower id first).
    return row?.p === null || row?.p === undefined ? 0 : Math.min(Number(row.p) + 1, MAX_POSITION);
  }

  /**
   * Changes an item's label, visibility, group or position (what the patch names), with the page locked; the item,
   * undefined if none, or "unknown-group" when the patch names a group the page does not have. Moved to another
   * group without a position, it goes last there.
   */
  async updateItem(pageId: number, id: number, patch: ItemPatch): Promise<ItemRow | undefined | "unknown-group"> {
    return this.transaction(async (trx) => {
      await this.lockPage(trx, pageId);
      if (typeof patch.groupId === "number" && !(await this.groupIn(trx, pageId, patch.groupId))) {
        return "unknown-group";
      }
      const current = await trx
        .selectFrom("status_page_items")
        .selectAll()
        .where("id", "=", id)
        .where("page_id", "=", pageId)
        .executeTakeFirst();
      if (!current) return undefined;
      const changes: Partial<ItemRow> = {};
      if (patch.label !== undefined) changes.label = patch.label;
      if (patch.visible !== undefined) changes.visible = patch.visible ? 1 : 0;
      if (patch.groupId !== undefined && patch.groupId !== current.group_id) {
        changes.group_id = patch.groupId;
        changes.position = await this.nextItemPosition(pageId, patch.groupId, trx);
      }
      if (patch.position !== undefined) changes.position = patch.position;
      if (Object.keys(changes).length === 0) return current;
      return trx
        .updateTable("status_page_items")
        .set(changes)
        .where("id", "=", id)
        .where("page_id", "=", pageId)
        .returningAll()
        .executeTakeFirst();
    });
  }

  /** The pages' items and groups, each in position order. */
  async contents(pageIds: number[]): Promise<{ items: ItemRow[]; groups: GroupRow[] }> {
    const [items, groups] = await Promise.all([this.listItems(pageIds), this.listGroups(pageIds)]);
    return { items, groups };
  }

  async listGroups(pageIds: number[]): Promise<GroupRow[]> {
    if (pageIds.length === 0) return [];
    return this.db
      .selectFrom("status_page_groups")
      .selectAll()
      .where("page_id", "in", pageIds)
      .orderBy("position")
      .orderBy("id")
      .execute();
  }

  async group(pageId: number, id: number): Promise<GroupRow | undefined> {
    return this.db
      .selectFrom("status_page_groups")
      .selectAll()
      .where("page_id", "=", pageId)
      .where("id", "=", id)
      .executeTakeFirst();
  }

  /**
   * A new group, last among the page's groups and ungrouped items unless `position` says, with the page locked; "limit"
   * when the page has `max` groups already.
   */
  async insertGroup(
    pageId: number,
    group: { name: string; description: string; collapsed: boolean; position?: number },
    now: string,
    max: number,
  ): Promise<GroupRow | "limit"> {
    return this.transaction(async (trx) => {
      await this.lockPage(trx, pageId);
      const count = await trx
        .selectFrom("status_page_groups")
        .select((eb) => eb.fn.countAll().as("n"))
        .where("page_id", "=", pageId)
        .executeTakeFirst();
      if (Number(count?.n ?? 0) >= max) return "limit";
      return trx
        .insertInto("status_page_groups")
        .values({
          page_id: pageId,
          name: group.name,
          description: group.description,
          collapsed: group.collapsed ? 1 : 0,
          position: group.position ?? (await this.nextItemPosition(pageId, null, trx)),
          created_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
    });
  }

  /** Changes what the patch names; the group, or undefined if the page has none by this id. */
  async updateGroup(pageId: number, id: number, patch: GroupPatch): Promise<GroupRow | undefined> {
    const changes: Partial<GroupRow> = {};
    if (patch.name !== undefined) changes.name = patch.name;
    if (patch.description !== undefined) changes.description = patch.description;
    if (patch.collapsed !== undefined) changes.collapsed = patch.collapsed ? 1 : 0;
    if (patch.position !== undefined) changes.position = patch.position;
    if (Object.keys(changes).length === 0) return this.group(pageId, id);
    return this.db
      .updateTable("status_page_groups")
      .set(changes)
      .where("id", "=", id)
      .where("page_id", "=", pageId)
      .returningAll()
      .executeTakeFirst();
  }

  /**
   * Deletes a group; its items stay on the page, ungrouped, in the group's place and their order: the page's top
   * level is renumbered 0, 1, 2… in one transaction. False if the page has no group by this id.
   */
  async deleteGroup(pageId: number, id: number): Promise<boolean> {
    return this.transaction(async (trx) => {
      await this.lockPage(trx, pageId);
      const groups = await trx
        .selectFrom("status_page_groups")
        .select(["id", "position"])
        .where("page_id", "=", pageId)
        .execute();
      if (!groups.some((g) => g.id === id)) return false;
      const items = await trx
        .selectFrom("status_page_items")
        .select(["id", "position", "group_id"])
        .where("page_id", "=", pageId)
        .where((eb) => eb.or([eb("group_id", "is", null), eb("group_id", "=", id)]))
        .execute();
      const members = items.filter((i) => i.group_id === id);
      const order = topLevelOrder(
        groups,
        items.filter((i) => i.group_id === null),
      ).flatMap((entry) =>
        entry.kind === "group" && entry.id === id
          ? sortedByPosition(members).map((m) => ({ id: m.id, kind: "item" as const }))
          : [{ id: entry.id, kind: entry.kind }],
      );
      await trx.updateTable("status_page_items").set({ group_id: null }).where("group_id", "=", id).execute();
      await trx.deleteFrom("status_page_groups").where("id", "=", id).execute();
      for (const [position, entry] of order.entries()) {
        const table = entry.kind === "group" ? "status_page_groups" : "status_page_items";
        await trx.updateTable(table).set({ position }).where("id", "=", entry.id).execute();
      }
      return true;
    });
  }

  async deleteItem(pageId: number, id: number): Promise<boolean> {
    const result = await this.db
      .deleteFrom("status_page_items")
      .where("id", "=", id)
      .where("page_id", "=", pageId)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** Marks a page changed, so caches of its public view know to rebuild. */
  async touch(pageId: number, now: string, trx: Kysely<Database> = this.db): Promise<void> {
    await trx.updateTable("status_pages").set({ updated_at: now }).where("id", "=", pageId).execute();
  }

  /** The visible items showing these sites, in the caller's transaction (an outage opens an incident on each page). */
  async visibleItemsOf(trx: Kysely<Database>, siteIds: string[]): Promise<ShowingItem[]> {
    return trx
      .selectFrom("status_page_items")
      .select(["page_id", "site_id", "label"])
      .where("site_id", "in", siteIds)
      .where("visible", "=", 1)
      .execute();
  }
}

interface Positioned {
  id: number;
  position: number;
}

/** Rows in their place among siblings: by position, then the lower id. */
export const sortedByPosition = <T extends Positioned>(rows: readonly T[]) =>
  [...rows].sort((a, b) => a.position - b.position || a.id - b.id);

/**
 * A page's top level in order: its groups and ungrouped items by position; at equal positions groups first, then by
 * id. The one rule the public view (views/page-views.ts) and the store's renumbering share.
 */
export function topLevelOrder<G extends Positioned, I extends Positioned>(
  groups: readonly G[],
  ungrouped: readonly I[],
): ((G & { kind: "group" }) | (I & { kind: "item" }))[] {
  return [
    ...groups.map((g) => ({ ...g, kind: "group" as const })),
    ...ungrouped.map((i) => ({ ...i, kind: "item" as const })),
  ].sort((a, b) => a.position - b.position || (a.kind === b.kind ? a.id - b.id : a.kind === "group" ? -1 : 1));
}
