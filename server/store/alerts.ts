import { Queries } from "./connection.ts";
import type { ChannelRow } from "./schema.ts";

/** A workspace's alert channels. */
export class AlertQueries extends Queries {
  async listChannels(workspaceId: string): Promise<ChannelRow[]> {
    return this.db
      .selectFrom("alert_channels")
      .selectAll()
      .where("workspace_id", "=", workspaceId)
      .orderBy("created_at")
      .orderBy("id")
      .execute();
  }

  async channel(workspaceId: string, id: string): Promise<ChannelRow | undefined> {
    return this.db
      .selectFrom("alert_channels")
      .selectAll()
      .where("id", "=", id)
      .where("workspace_id", "=", workspaceId)
      .executeTakeFirst();
  }

  async insertChannel(row: ChannelRow): Promise<ChannelRow> {
    return this.db.insertInto("alert_channels").values(row).returningAll().executeTakeFirstOrThrow();
  }

  async updateChannel(workspaceId: string, id: string, changes: Partial<ChannelRow>): Promise<ChannelRow | undefined> {
    return this.db
      .updateTable("alert_channels")
      .set(changes)
      .where("id", "=", id)
      .where("workspace_id", "=", workspaceId)
      .returningAll()
      .executeTakeFirst();
  }

  async deleteChannel(workspaceId: string, id: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom("alert_channels")
      .where("id", "=", id)
      .where("workspace_id", "=", workspaceId)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}
