import type { Insertable, Kysely } from "kysely";
import {
  type AlertEvent,
  type AlertRule,
  type Channel,
  type ChannelType,
  DEFAULT_ALERT_RULE,
  type DeliveryResult,
} from "../contract/alerts.ts";
import { Queries } from "./connection.ts";
import type { ChannelRow, Database } from "./schema.ts";

/** Which events a site's rule sends, and to which of the workspace's enabled channels. */
export interface AlertRoute {
  workspaceId: string;
  site: { id: string; name: string; url: string };
  channels: string[];
  events: AlertRule["events"];
}

/** One delivery to make: an event for one channel, pending from `at` (the outbox's row is the store's business). */
export interface AlertDelivery {
  /** Unique in the outbox: the event's own id is shared by every channel told of it. */
  deliveryId: string;
  workspaceId: string;
  channelId: string;
  siteId: string;
  event: AlertEvent;
  /** When it was decided, and first due. */
  at: string;
}

/** A claimed delivery with what sending it needs: its channel's type, sealed settings and whether it is on. */
export interface OutboxClaim {
  id: number;
  event_id: string;
  channel_id: string;
  event: string;
  attempts: number;
  created_at: string;
  channel_type: string;
  channel_config: string;
  channel_enabled: boolean;
}

type RuleRow = {
  channels: string;
  events: string;
  repeat_minutes: number | null;
  confirmations: number;
  cooldown_minutes: number;
  flapping: string;
};

const ruleOf = (row: RuleRow): AlertRule => ({
  channels: row.channels === "all" ? "all" : (JSON.parse(row.channels) as string[]),
  events: { ...DEFAULT_ALERT_RULE.events, ...(JSON.parse(row.events) as Partial<AlertRule["events"]>) },
  repeatMinutes: row.repeat_minutes,
  confirmations: row.confirmations,
  cooldownMinutes: row.cooldown_minutes,
  flapping: JSON.parse(row.flapping) as AlertRule["flapping"],
});
const ruleRow = (rule: AlertRule, now: string) => ({
  channels: rule.channels === "all" ? "all" : JSON.stringify(rule.channels),
  events: JSON.stringify(rule.events),
  repeat_minutes: rule.repeatMinutes,
  confirmations: rule.confirmations,
  cooldown_minutes: rule.cooldownMinutes,
  flapping: JSON.stringify(rule.flapping),
  updated_at: now,
});
const RULE_COLUMNS = ["channels", "events", "repeat_minutes", "confirmations", "cooldown_minutes", "flapping"] as const;

/** What the engine judges a site's outages by, from its rule (see AlertRule). */
export interface RuleSettings {
  repeatMinutes: number | null;
  confirmations: number;
  cooldownMinutes: number;
  flapping: AlertRule["flapping"];
}

/** What a change of an alert channel writes; what is absent stays. */
export interface ChannelChange {
  updatedAt: string;
  name?: string;
  enabled?: boolean;
  /** Its settings, sealed (accounts/sealed.ts) by the caller. */
  sealedConfig?: string;
  /** What its list shows of where it sends (a host, an address's domain). */
  target?: string;
}

/** A channel as its owner sees it: never its settings. */
export function channelView(row: ChannelRow): Channel {
  return {
    id: row.id,
    name: row.name,
    type: row.type as ChannelType,
    enabled: row.enabled === 1,
    target: row.target,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** A workspace's alert channels, rules, outbox and delivery log. */
export class AlertQueries extends Queries {
  async listChannels(workspaceId: string): Promise<ChannelRow[]> {
    return (
      this.db
        .selectFrom("alert_channels")
        .selectAll()
        .where("workspace_id", "=", workspaceId)
        // Newest first, as every other list.
        .orderBy("created_at", "desc")
        .orderBy("id", "desc")
        .execute()
    );
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

  /**
   * Writes what `change` names; with `unchangedSince` (the updated_at the caller read), only if nobody wrote since, so
   * two read-modify-writes of the sealed config (an edit and a secret rotation) cannot undo each other. Undefined
   * when the channel is gone or changed meanwhile.
   */
  async updateChannel(
    workspaceId: string,
    id: string,
    change: ChannelChange,
    unchangedSince?: string,
  ): Promise<ChannelRow | undefined> {
    const changes: Partial<ChannelRow> = { updated_at: change.updatedAt };
    if (change.name !== undefined) changes.name = change.name;
    if (change.enabled !== undefined) changes.enabled = change.enabled ? 1 : 0;
    if (change.sealedConfig !== undefined) changes.config = change.sealedConfig;
    if (change.target !== undefined) changes.target = change.target;
    let query = this.db
      .updateTable("alert_channels")
      .set(changes)
      .where("id", "=", id)
      .where("workspace_id", "=", workspaceId);
    if (unchangedSince !== undefined) query = query.where("updated_at", "=", unchangedSince);
    return query.returningAll().executeTakeFirst();
  }

  async deleteChannel(workspaceId: string, id: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom("alert_channels")
      .where("id", "=", id)
      .where("workspace_id", "=", workspaceId)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** The workspace's default rule; the built-in one when it has set none. */
  async defaultRule(workspaceId: string): Promise<AlertRule> {
    const row = await this.db
      .selectFrom("alert_defaults")
      .select(RULE_COLUMNS)
      .where("workspace_id", "=", workspaceId)
      .executeTakeFirst();
    return row ? ruleOf(row) : DEFAULT_ALERT_RULE;
  }

  async putDefaultRule(workspaceId: string, rule: AlertRule, now: string): Promise<void> {
    const row = ruleRow(rule, now);
    await this.db
      .insertInto("alert_defaults")
      .values({ workspace_id: workspaceId, ...row })
      .onConflict((oc) => oc.column("workspace_id").doUpdateSet(row))
      .execute();
  }

  /** A site's own rule, if it has one. */
  async siteRule(siteId: string): Promise<AlertRule | undefined> {
    const row = await this.db
      .selectFrom("site_alert_rules")
      .select(RULE_COLUMNS)
      .where("site_id", "=", siteId)
      .executeTakeFirst();
    return row ? ruleOf(row) : undefined;
  }

  async putSiteRule(siteId: string, rule: AlertRule, now: string): Promise<void> {
    const row = ruleRow(rule, now);
    await this.db
      .insertInto("site_alert_rules")
      .values({ site_id: siteId, ...row })
      .onConflict((oc) => oc.column("site_id").doUpdateSet(row))
      .execute();
  }

  async deleteSiteRule(siteId: string): Promise<void> {
    await this.db.deleteFrom("site_alert_rules").where("site_id", "=", siteId).execute();
  }

  /**
   * Where each site's alerts go, in the caller's transaction: its rule (its own, else its workspace's, else the
   * built-in one), with only the channels that exist and are on.
   */
  async routes(trx: Kysely<Database>, siteIds: string[]): Promise<Map<string, AlertRoute>> {
    const routes = new Map<string, AlertRoute>();
    if (siteIds.length === 0) return routes;
    const sites = await trx
      .selectFrom("sites")
      .select(["id", "workspace_id", "name", "url"])
      .where("id", "in", siteIds)
      .execute();
    const workspaces = [...new Set(sites.map((s) => s.workspace_id))];
    const [own, defaults, channels] = await Promise.all([
      trx
        .selectFrom("site_alert_rules")
        .select(["site_id", ...RULE_COLUMNS])
        .where("site_id", "in", siteIds)
        .execute(),
      trx
        .selectFrom("alert_defaults")
        .select(["workspace_id", ...RULE_COLUMNS])
        .where("workspace_id", "in", workspaces)
        .execute(),
      // Shared locks on PostgreSQL: a channel deleted meanwhile waits for this transaction, whose outbox rows name it.
      trx
        .selectFrom("alert_channels")
        .select(["id", "workspace_id"])
        .where("workspace_id", "in", workspaces)
        .where("enabled", "=", 1)
        .orderBy("created_at")
        .orderBy("id")
        .$if(this.dialect === "postgres", (qb) => qb.forShare())
        .execute(),
    ]);
    for (const site of sites) {
      const stored =
        own.find((r) => r.site_id === site.id) ?? defaults.find((r) => r.workspace_id === site.workspace_id);
      const rule = stored ? ruleOf(stored) : DEFAULT_ALERT_RULE;
      const enabled = channels.filter((c) => c.workspace_id === site.workspace_id).map((c) => c.id);
      routes.set(site.id, {
        workspaceId: site.workspace_id,
        site: { id: site.id, name: site.name, url: site.url },
        channels: rule.channels === "all" ? enabled : enabled.filter((id) => (rule.channels as string[]).includes(id)),
        events: rule.events,
      });
    }
    return routes;
  }

  /**
   * What each site's rule (its own, else its workspace's, else the built-in one) says of its outages, in the
   * caller's transaction: repeats, confirmations, cool-down and flapping. Every site asked for is in the map.
   */
  async settings(trx: Kysely<Database>, siteIds: string[]): Promise<Map<string, RuleSettings>> {
    const settings = new Map<string, RuleSettings>();
    if (siteIds.length === 0) return settings;
    const rows = await trx
      .selectFrom("sites")
      .leftJoin("site_alert_rules as own", "own.site_id", "sites.id")
      .leftJoin("alert_defaults as d", "d.workspace_id", "sites.workspace_id")
      .select([
        "sites.id",
        "own.site_id as own",
        "own.repeat_minutes as ownRepeat",
        "own.confirmations as ownConfirmations",
        "own.cooldown_minutes as ownCooldown",
        "own.flapping as ownFlapping",
        "d.workspace_id as hasDefault",
        "d.repeat_minutes as defaultRepeat",
        "d.confirmations as defaultConfirmations",
        "d.cooldown_minutes as defaultCooldown",
        "d.flapping as defaultFlapping",
      ])
      .where("sites.id", "in", siteIds)
      .execute();
    for (const row of rows) {
      const base = DEFAULT_ALERT_RULE;
      const pick =
        row.own !== null
          ? [row.ownRepeat, row.ownConfirmations, row.ownCooldown, row.ownFlapping]
          : row.hasDefault !== null
            ? [row.defaultRepeat, row.defaultConfirmations, row.defaultCooldown, row.defaultFlapping]
            : null;
      settings.set(
        row.id,
        pick
          ? {
              repeatMinutes: (pick[0] as number | null) ?? null,
              confirmations: Number(pick[1] ?? base.confirmations),
              cooldownMinutes: Number(pick[2] ?? base.cooldownMinutes),
              flapping: JSON.parse((pick[3] as string | null) ?? "null") as AlertRule["flapping"],
            }
          : {
              repeatMinutes: base.repeatMinutes,
              confirmations: base.confirmations,
              cooldownMinutes: base.cooldownMinutes,
              flapping: base.flapping,
            },
      );
    }
    return settings;
  }

  /** Writes deliveries to make, in the caller's transaction (the one that writes the state change). */
  async insertOutbox(trx: Kysely<Database>, deliveries: AlertDelivery[]): Promise<void> {
    const rows = deliveries.map(
      (d) =>
        ({
          event_id: d.deliveryId,
          workspace_id: d.workspaceId,
          channel_id: d.channelId,
          site_id: d.siteId,
          type: d.event.type,
          event: JSON.stringify(d.event),
          state: "pending",
          attempts: 0,
          next_attempt_at: d.at,
          lease_owner: null,
          lease_until: null,
          created_at: d.at,
        }) satisfies Insertable<Database["alert_outbox"]>,
    );
    for (let i = 0; i < rows.length; i += 100) {
      await trx
        .insertInto("alert_outbox")
        .values(rows.slice(i, i + 100))
        .execute();
    }
  }

  /** Whether any delivery is due: a read, before a claim takes the write lock. */
  async anyDue(now: string): Promise<boolean> {
    const row = await this.db
      .selectFrom("alert_outbox")
      .select("id")
      .where("state", "=", "pending")
      .where("next_attempt_at", "<=", now)
      .where((eb) => eb.or([eb("lease_until", "is", null), eb("lease_until", "<=", now)]))
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Hands a claim back, to be tried again at `nextAttemptAt`, if it is still `owner`'s. */
  async release(id: number, owner: string, nextAttemptAt: string): Promise<void> {
    await this.db
      .updateTable("alert_outbox")
      .set({ lease_owner: null, lease_until: null, next_attempt_at: nextAttemptAt })
      .where("id", "=", id)
      .where("lease_owner", "=", owner)
      .execute();
  }

  /** Deletes finished deliveries (delivered or failed) older than `before`, with their attempts. */
  async prune(before: string): Promise<void> {
    await this.db
      .deleteFrom("alert_outbox")
      .where("state", "in", ["delivered", "failed"])
      .where("finished_at", "<", before)
      .execute();
  }

  /**
   * Claims up to `limit` due deliveries for `owner` until `leaseUntil`, in one transaction: pending ones whose time
   * has come and whose lease (a process's that died) has expired. PostgreSQL skips rows another sender holds locked.
   */
  claimDue(opts: {
    owner: string;
    now: string;
    leaseUntil: string;
    limit: number;
    /** How many deliveries of one channel this sender may have under way at once. */
    perChannel: number;
    /** What this sender has under way, by channel. */
    underWay: ReadonlyMap<string, number>;
  }): Promise<OutboxClaim[]> {
    return this.transaction(async (trx) => {
      // A hanging receiver holds at most perChannel of a sender's slots; the other channels' deliveries go on beside.
      const taken = new Map(opts.underWay);
      const full = [...taken].filter(([, n]) => n >= opts.perChannel).map(([id]) => id);
      const candidates = await trx
        .selectFrom("alert_outbox as o")
        .innerJoin("alert_channels as c", "c.id", "o.channel_id")
        .select([
          "o.id",
          "o.event_id",
          "o.channel_id",
          "o.event",
          "o.attempts",
          "o.created_at",
          "c.type as channel_type",
          "c.config as channel_config",
          "c.enabled as channel_enabled",
        ])
        .where("o.state", "=", "pending")
        .where("o.next_attempt_at", "<=", opts.now)
        .where((eb) => eb.or([eb("o.lease_until", "is", null), eb("o.lease_until", "<=", opts.now)]))
        .$if(full.length > 0, (qb) => qb.where("o.channel_id", "not in", full))
        .orderBy("o.next_attempt_at")
        .orderBy("o.id")
        // More than wanted, so that a channel's share can be left for the others.
        .limit(opts.limit * 4)
        .$if(this.dialect === "postgres", (qb) => qb.forUpdate("o").skipLocked())
        .execute();
      const rows = candidates.filter((row) => {
        const n = taken.get(row.channel_id) ?? 0;
        if (n >= opts.perChannel) return false;
        taken.set(row.channel_id, n + 1);
        return true;
      });
      rows.splice(opts.limit);
      if (rows.length === 0) return [];
      await trx
        .updateTable("alert_outbox")
        .set({ lease_owner: opts.owner, lease_until: opts.leaseUntil })
        .where(
          "id",
          "in",
          rows.map((r) => r.id),
        )
        .execute();
      return rows.map((r) => ({ ...r, channel_enabled: Number(r.channel_enabled) === 1 }));
    });
  }

  /**
   * Records a delivery's attempt and what follows (delivered, failed, or pending again at nextAttemptAt), if the
   * claim is still `owner`'s: false when it expired and another sender may hold it (nothing is written then).
   */
  finishDelivery(opts: {
    id: number;
    owner: string;
    state: "pending" | "delivered" | "failed";
    attempts: number;
    nextAttemptAt: string | null;
    at: string;
    startedAt: string;
    result: DeliveryResult;
  }): Promise<boolean> {
    return this.transaction(async (trx) => {
      const { result } = opts;
      const updated = await trx
        .updateTable("alert_outbox")
        .set({
          state: opts.state,
          attempts: opts.attempts,
          next_attempt_at: opts.nextAttemptAt ?? opts.at,
          lease_owner: null,
          lease_until: null,
          finished_at: opts.state === "pending" ? null : opts.at,
          last_status: result.statusCode,
          last_error: result.error,
        })
        .where("id", "=", opts.id)
        .where("lease_owner", "=", opts.owner)
        .where("state", "=", "pending")
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) === 0) return false;
      await trx
        .insertInto("alert_attempts")
        .values({
          outbox_id: opts.id,
          at: opts.startedAt,
          ok: result.ok ? 1 : 0,
          status_code: result.statusCode,
          error: result.error,
          response_ms: Math.round(result.responseTimeMs),
          response: result.response,
        })
        .execute();
      return true;
    });
  }

  /** The newest deliveries of a workspace's channel or site, newest first. */
  async deliveries(opts: { workspaceId: string; channelId?: string; siteId?: string; limit: number }) {
    return this.db
      .selectFrom("alert_outbox")
      .selectAll()
      .where("workspace_id", "=", opts.workspaceId)
      .$if(opts.channelId !== undefined, (qb) => qb.where("channel_id", "=", opts.channelId as string))
      .$if(opts.siteId !== undefined, (qb) => qb.where("site_id", "=", opts.siteId as string))
      .orderBy("id", "desc")
      .limit(opts.limit)
      .execute();
  }

  /** The attempts of some deliveries, oldest first. */
  async attempts(outboxIds: number[]) {
    if (outboxIds.length === 0) return [];
    return this.db.selectFrom("alert_attempts").selectAll().where("outbox_id", "in", outboxIds).orderBy("id").execute();
  }
}
