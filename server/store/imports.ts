import type { Kysely } from "kysely";
import { Queries } from "./connection.ts";
import type { Database } from "./schema.ts";

/** What an import made of one object of its source: a site, a page or a maintenance window. */
export interface Origin {
  key: string;
  kind: string;
  objectId: string;
}

/**
 * The imports' memory: what each object of a source became, by the source's key for it, so that importing the same
 * file again creates nothing twice. The objects themselves are written by their own aggregates in the same
 * transaction (imports/apply.ts).
 */
export class ImportQueries extends Queries {
  /** The objects a workspace imported from `source`, by key (what the key became, alive or deleted since). */
  async origins(workspaceId: string, source: string, trx: Kysely<Database> = this.db): Promise<Map<string, Origin>> {
    const rows = await trx
      .selectFrom("import_origins")
      .select(["key", "kind", "object_id"])
      .where("workspace_id", "=", workspaceId)
      .where("source", "=", source)
      .execute();
    return new Map(rows.map((r) => [r.key, { key: r.key, kind: r.kind, objectId: r.object_id }]));
  }

  async record(trx: Kysely<Database>, workspaceId: string, source: string, origin: Origin, at: string) {
    await trx
      .insertInto("import_origins")
      .values({
        workspace_id: workspaceId,
        source,
        key: origin.key,
        kind: origin.kind,
        object_id: origin.objectId,
        created_at: at,
      })
      .execute();
  }

  /** Locks the workspace's imports (PostgreSQL): two imports of one file at once create its objects once. */
  async lock(trx: Kysely<Database>, workspaceId: string): Promise<void> {
    await this.connection.lockWorkspace(trx, workspaceId);
  }

  /** The slugs and custom domains among `slugs` and `domains` that a page of any workspace has already. */
  async taken(trx: Kysely<Database>, slugs: string[], domains: string[]) {
    const rows =
      slugs.length + domains.length === 0
        ? []
        : await trx
            .selectFrom("status_pages")
            .select(["slug", "custom_domain"])
            .where((eb) =>
              eb.or([
                ...(slugs.length ? [eb("slug", "in", slugs)] : []),
                ...(domains.length ? [eb("custom_domain", "in", domains)] : []),
              ]),
            )
            .execute();
    return {
      slugs: new Set(rows.map((r) => r.slug)),
      domains: new Set(rows.flatMap((r) => (r.custom_domain ? [r.custom_domain] : []))),
    };
  }

  /** Puts a group on a page within the caller's transaction. */
  async insertGroup(
    trx: Kysely<Database>,
    row: {
      page_id: number;
      name: string;
      description: string;
      position: number;
      collapsed: number;
      created_at: string;
    },
  ): Promise<number> {
    const { id } = await trx.insertInto("status_page_groups").values(row).returning("id").executeTakeFirstOrThrow();
    return id;
  }

  /** Puts a site on a page within the caller's transaction. */
  async insertItem(
    trx: Kysely<Database>,
    row: {
      page_id: number;
      site_id: string;
      label: string;
      visible: number;
      position: number;
      group_id: number | null;
      created_at: string;
    },
  ): Promise<number> {
    const { id } = await trx.insertInto("status_page_items").values(row).returning("id").executeTakeFirstOrThrow();
    return id;
  }

  /** Links an incident to the items it affects, with what it says of each. */
  async linkIncident(trx: Kysely<Database>, incidentId: number, items: { itemId: number; status: string }[]) {
    if (items.length === 0) return;
    await trx
      .insertInto("incident_items")
      .values(items.map((i) => ({ incident_id: incidentId, item_id: i.itemId, status: i.status })))
      .execute();
  }

  /**
   * Which of the objects imports made still exist in the workspace (an owner may have deleted some since), by id.
   */
  async existing(trx: Kysely<Database>, workspaceId: string, origins: Origin[]): Promise<Set<string>> {
    const ids = (kind: string) => origins.filter((o) => o.kind === kind).map((o) => o.objectId);
    const [sites, pages, windows] = [ids("site"), ids("page"), ids("maintenance")];
    const found = await Promise.all([
      sites.length
        ? trx
            .selectFrom("sites")
            .select("id")
            .where("workspace_id", "=", workspaceId)
            .where("id", "in", sites)
            .execute()
        : [],
      pages.length
        ? trx
            .selectFrom("status_pages")
            .select((eb) => eb.cast<string>("id", "text").as("id"))
            .where("workspace_id", "=", workspaceId)
            .where("id", "in", pages.map(Number).filter(Number.isSafeInteger))
            .execute()
        : [],
      windows.length
        ? trx
            .selectFrom("maintenance_windows")
            .select("id")
            .where("workspace_id", "=", workspaceId)
            .where("id", "in", windows)
            .execute()
        : [],
    ]);
    return new Set(found.flat().map((r) => String(r.id)));
  }

  /**
   * Writes an imported incident whole: its row, published when it started, and its updates in order (the last one's
   * status is the incident's). Nobody is told: it is history.
   */
  async insertIncident(
    trx: Kysely<Database>,
    pageId: number,
    incident: {
      title: string;
      impact: string;
      startedAt: string;
      resolvedAt: string | null;
      updates: { status: string; message: string; at: string }[];
    },
    at: string,
  ): Promise<number> {
    const status = incident.resolvedAt ? "resolved" : (incident.updates.at(-1)?.status ?? "investigating");
    const { id } = await trx
      .insertInto("incidents")
      .values({
        page_id: pageId,
        title: incident.title,
        status,
        impact: incident.impact,
        started_at: incident.startedAt,
        resolved_at: incident.resolvedAt,
        created_at: at,
        updated_at: incident.updates.at(-1)?.at ?? incident.startedAt,
        published_at: incident.startedAt,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    for (const u of incident.updates) await this.addHistory(trx, id, u.status, u.message, u.at);
    return id;
  }

  /** Adds a later update to an incident being imported (its history, in order; nobody is told). */
  async addHistory(trx: Kysely<Database>, incidentId: number, status: string, message: string, at: string) {
    await trx
      .insertInto("incident_updates")
      .values({ incident_id: incidentId, status, message, created_at: at })
      .execute();
  }
}
