import { type Kysely, sql } from "kysely";
import {
  NoticeEvent,
  type Subscriber,
  SubscriberKind,
  SubscriberState,
  type SubscriptionSettings,
} from "../contract/subscribers.ts";
import { type Connection, Queries } from "./connection.ts";
import type { Database } from "./schema.ts";
import { subscriptionsOf } from "./status-pages.ts";

/** The page a subscription is for, as the sign-up and the fan-out check access against. */
export interface SubscribablePage {
  id: number;
  name: string;
  slug: string;
  workspaceId: string;
  visibility: string;
  passwordHash: string | null;
  settings: SubscriptionSettings;
}

/** A sign-up, as the API decided it: the new subscriber's id and link nonces (with their tokens' hashes). */
export interface SignUp {
  pageId: number;
  kind: SubscriberKind;
  address: string;
  items: number[];
  /** The page's password hash the visitor got past (null: none). */
  accessKey: string | null;
  /** A URL kind's sealed settings (kept from the first sign-up of the address). */
  secret: string | null;
  id: string;
  confirm: { nonce: string; hash: string; expiresAt: string };
  manage: { nonce: string; hash: string };
  now: string;
  /** The least time since the previous confirmation before another is sent, and how many one sign-up may cause. */
  resendAfter: string;
  maxConfirmations: number;
}

/** What a sign-up did: a confirmation queued, or nothing (already subscribed, or too many confirmations asked). */
export type SignUpOutcome = "queued" | "nothing";

/** What following a confirmation link did. */
export type ConfirmOutcome = "confirmed" | "already" | "expired" | "unknown";

/** A subscription as its own links read it. */
export interface ManagedRecord {
  id: string;
  page: { id: number; name: string; slug: string };
  kind: SubscriberKind;
  address: string;
  state: SubscriberState;
  items: number[];
  /** The nonce of its manage and unsubscribe links. */
  manageNonce: string;
  /** Whether the subscriber may read the page now (its password unchanged; on a private page, a member). */
  hasAccess: boolean;
}

/** A delivery claimed for sending, with what its message is made of. */
export interface DeliveryClaim {
  id: number;
  attempts: number;
  createdAt: string;
  subscriberId: string;
  kind: SubscriberKind;
  address: string;
  manageNonce: string;
  /** A confirmation's nonce; null for a notice. */
  confirmNonce: string | null;
  /** A URL kind's sealed settings. */
  secret: string | null;
  noticeId: number;
  pageId: number;
}

/** What came of one claimed delivery, as finish records it. */
export interface DeliveryOutcome {
  id: number;
  owner: string;
  subscriberId: string;
  state: "delivered" | "failed" | "pending";
  attempts: number;
  nextAttemptAt: string | null;
  at: string;
  error: string | null;
  suspendAfter: number;
  suspendNow: boolean;
  /** A URL kind's test delivery: accepted, it confirms the subscriber. */
  confirms?: boolean;
}

/** The page a notice is from, as its messages name and link it. */
export interface NoticePage {
  id: number;
  name: string;
  slug: string;
  customDomain: string | null;
  accentColor: string | null;
}

/** What an incident's notice tells, as the page shows it to visitors (no owner detail). */
export interface IncidentNoticeContent {
  kind: "incident";
  event: "published" | "updated" | "resolved";
  page: NoticePage;
  incident: { id: number; title: string; impact: string; status: string; startedAt: string };
  update: { status: string; message: string; at: string };
  affected: { label: string; status: string }[];
}

/** What a maintenance notice tells: the window's public text and the occurrence's times. */
export interface MaintenanceNoticeContent {
  kind: "maintenance";
  event: "maintenance_scheduled" | "maintenance_started" | "maintenance_ended";
  page: NoticePage;
  window: { id: string; title: string; description: string; recurring: boolean };
  startsAt: string;
  endsAt: string;
  /** When the notice was written: an occurrence ended early ends then. */
  at: string;
  affected: { label: string; status: string }[];
}

export type NoticeContent = IncidentNoticeContent | MaintenanceNoticeContent;

/** The maintenance events a sweep tells, and how far back it looks for an occurrence's start or end. */
export const MAINTENANCE_SWEEP_LOOKBACK_MS = 24 * 3_600_000;

const itemsOf = (stored: string): number[] => {
  try {
    const parsed = JSON.parse(stored) as unknown;
    return Array.isArray(parsed) ? parsed.filter((n): n is number => Number.isInteger(n)) : [];
  } catch {
    return [];
  }
};
const stateOf = (stored: string): SubscriberState => SubscriberState.catch("suspended").parse(stored);
const kindOf = (stored: string): SubscriberKind => SubscriberKind.catch("email").parse(stored);

/** A theme column's accent colour, if it holds one. */
function accentOf(theme: string): string | null {
  try {
    const parsed = JSON.parse(theme) as { accentColor?: unknown };
    return typeof parsed.accentColor === "string" ? parsed.accentColor : null;
  } catch {
    return null;
  }
}

/**
 * Whether a subscriber hears of a notice touching `touched`: a private page's notices go to its members' addresses
 * only (`members`), a password page's to those who entered its current password; then only a subscriber who chose
 * none of the page's services, or one the notice touches.
 */
const mayBeTold =
  (page: { visibility: string; password_hash: string | null }, members: Set<string> | null, touched: Set<number>) =>
  (s: { address: string; items: string; access_key: string | null }): boolean => {
    if (page.visibility === "private" && !members?.has(s.address)) return false;
    if (page.visibility !== "private" && page.visibility !== "public" && s.access_key !== page.password_hash) {
      return false;
    }
    const chosen = itemsOf(s.items);
    return chosen.length === 0 || chosen.some((id) => touched.has(id));
  };

/** How many subscribers one fan-out step reads. */
export const FAN_OUT_BATCH = 1000;

/** A page's subscribers, the notices they are told and the deliveries that tell them. */
export class SubscriberQueries extends Queries {
  constructor(connection: Connection) {
    super(connection);
  }

  /** A page by slug, with its subscription settings and what access to it takes. */
  async page(slug: string): Promise<SubscribablePage | undefined> {
    const row = await this.db
      .selectFrom("status_pages")
      .select(["id", "name", "slug", "workspace_id", "visibility", "password_hash", "subscriptions"])
      .where("slug", "=", slug)
      .executeTakeFirst();
    return (
      row && {
        id: row.id,
        name: row.name,
        slug: row.slug,
        workspaceId: row.workspace_id,
        visibility: row.visibility,
        passwordHash: row.password_hash,
        settings: subscriptionsOf(row.subscriptions),
      }
    );
  }

  /** A page's name, slug, custom domain and accent colour, as a confirmation shows them. */
  async pageById(
    pageId: number,
  ): Promise<{ name: string; slug: string; customDomain: string | null; accentColor: string | null } | undefined> {
    const row = await this.db
      .selectFrom("status_pages")
      .select(["name", "slug", "custom_domain", "theme"])
      .where("id", "=", pageId)
      .executeTakeFirst();
    return row && { name: row.name, slug: row.slug, customDomain: row.custom_domain, accentColor: accentOf(row.theme) };
  }

  /** The page's visible items' ids and labels, in its order. */
  async visibleItems(pageId: number): Promise<{ id: number; label: string }[]> {
    return this.db
      .selectFrom("status_page_items")
      .select(["id", "label"])
      .where("page_id", "=", pageId)
      .where("visible", "=", 1)
      .orderBy("position")
      .orderBy("id")
      .execute();
  }

  /**
   * Records a sign-up: a new address waits for its confirmation (queued here); one already waiting gets another
   * (a new link: the old one stops working) when the previous is older than `resendAfter` and fewer than
   * `maxConfirmations` were sent; a confirmed or suspended one is left as it is. The address's row is locked
   * while this is decided, so two sign-ups at once send one confirmation.
   */
  signUp(s: SignUp): Promise<SignUpOutcome> {
    return this.transaction(async (trx) => {
      await trx
        .insertInto("subscribers")
        .values({
          id: s.id,
          page_id: s.pageId,
          kind: s.kind,
          address: s.address,
          items: JSON.stringify(s.items),
          state: "pending",
          access_key: s.accessKey,
          secret: s.secret,
          manage_nonce: s.manage.nonce,
          manage_hash: s.manage.hash,
          created_at: s.now,
        })
        .onConflict((oc) => oc.columns(["page_id", "kind", "address"]).doNothing())
        .execute();
      const row = await trx
        .selectFrom("subscribers")
        .select(["id", "state", "confirm_sent", "confirm_sent_at", "confirm_expires_at", "access_key"])
        .where("page_id", "=", s.pageId)
        .where("kind", "=", s.kind)
        .where("address", "=", s.address)
        .$if(this.dialect === "postgres", (qb) => qb.forUpdate())
        .executeTakeFirstOrThrow();
      if (row.state === "confirmed") {
        // Back with the page's new password: they see the page again, so they hear of it again.
        if (row.access_key !== s.accessKey) {
          await trx.updateTable("subscribers").set({ access_key: s.accessKey }).where("id", "=", row.id).execute();
        }
        return "nothing";
      }
      // A suspended address asks again (its mailbox fixed): a new double opt-in. So does one whose last link
      // expired: the count of links starts over, so that three sign-ups by someone else lock no one out for good.
      const fresh = row.state === "suspended" || (row.confirm_expires_at !== null && row.confirm_expires_at <= s.now);
      const sent = fresh ? 0 : row.confirm_sent;
      if (sent >= s.maxConfirmations) return "nothing";
      if (!fresh && row.confirm_sent_at !== null && row.confirm_sent_at > s.resendAfter) return "nothing";
      if (row.state === "suspended") {
        await trx
          .updateTable("subscribers")
          .set({ state: "pending", suspended_reason: null, failures: 0, confirmed_at: null })
          .where("id", "=", row.id)
          .execute();
      }
      await trx
        .updateTable("subscribers")
        .set({
          items: JSON.stringify(s.items),
          access_key: s.accessKey,
          confirm_nonce: s.confirm.nonce,
          confirm_hash: s.confirm.hash,
          confirm_expires_at: s.confirm.expiresAt,
          confirm_sent: sent + 1,
          confirm_sent_at: s.now,
        })
        .where("id", "=", row.id)
        .execute();
      await trx
        .insertInto("subscriber_deliveries")
        .values({
          subscriber_id: row.id,
          notice_id: 0,
          key: `confirm:${s.confirm.nonce}`,
          confirm_nonce: s.confirm.nonce,
          state: "pending",
          next_attempt_at: s.now,
          created_at: s.now,
        })
        .execute();
      return "queued";
    });
  }

  /**
   * Adds what an owner imported, in one transaction: each address not yet on the page, confirmed at once with
   * `consent`, else waiting for the confirmation queued here. Addresses already there are left as they are.
   * Returns how many were added.
   */
  importSubscribers(o: {
    pageId: number;
    consent: boolean;
    items: number[];
    now: string;
    expiresAt: string;
    rows: {
      id: string;
      address: string;
      manage: { nonce: string; hash: string };
      confirm: { nonce: string; hash: string };
    }[];
  }): Promise<number> {
    return this.transaction(async (trx) => {
      const page = await trx
        .selectFrom("status_pages")
        .select(["visibility", "password_hash"])
        .where("id", "=", o.pageId)
        .executeTakeFirstOrThrow();
      // The owner vouches for them: on a password page, under its current password.
      const accessKey = page.visibility === "public" || page.visibility === "private" ? null : page.password_hash;
      let added = 0;
      for (let i = 0; i < o.rows.length; i += 500) {
        const chunk = o.rows.slice(i, i + 500);
        const inserted = await trx
          .insertInto("subscribers")
          .values(
            chunk.map((r) => ({
              id: r.id,
              page_id: o.pageId,
              kind: "email",
              address: r.address,
              items: JSON.stringify(o.items),
              state: o.consent ? "confirmed" : "pending",
              access_key: accessKey,
              manage_nonce: r.manage.nonce,
              manage_hash: r.manage.hash,
              created_at: o.now,
              confirmed_at: o.consent ? o.now : null,
              ...(o.consent
                ? {}
                : {
                    confirm_nonce: r.confirm.nonce,
                    confirm_hash: r.confirm.hash,
                    confirm_expires_at: o.expiresAt,
                    confirm_sent: 1,
                    confirm_sent_at: o.now,
                  }),
            })),
          )
          .onConflict((oc) => oc.columns(["page_id", "kind", "address"]).doNothing())
          .returning(["id", "confirm_nonce"])
          .execute();
        added += inserted.length;
        if (!o.consent && inserted.length > 0) {
          await trx
            .insertInto("subscriber_deliveries")
            .values(
              inserted.map((r) => ({
                subscriber_id: r.id,
                notice_id: 0,
                key: `confirm:${r.confirm_nonce}`,
                confirm_nonce: r.confirm_nonce,
                state: "pending",
                next_attempt_at: o.now,
                created_at: o.now,
              })),
            )
            .execute();
        }
      }
      return added;
    });
  }

  /** Every subscriber of a page, by address, with the labels of the services chosen (the CSV export). */
  async exportRows(pageId: number): Promise<(Subscriber & { services: string[] })[]> {
    const { subscribers } = await this.list(pageId, { offset: 0, limit: 1_000_000 });
    const labels = new Map(
      (
        await this.db.selectFrom("status_page_items").select(["id", "label"]).where("page_id", "=", pageId).execute()
      ).map((i) => [i.id, i.label]),
    );
    // An e-mail list: a URL subscriber's address is masked, and no other tool could take it.
    return subscribers
      .filter((s) => s.type === "email")
      .map((s) => ({ ...s, services: s.items.map((id) => labels.get(id) ?? String(id)) }));
  }

  /** Confirms the subscription a confirmation link names, unless its link has expired. */
  async confirm(confirmHash: string, now: string): Promise<ConfirmOutcome> {
    const row = await this.db
      .selectFrom("subscribers")
      .select(["id", "state", "confirm_expires_at"])
      .where("confirm_hash", "=", confirmHash)
      .executeTakeFirst();
    if (!row) return "unknown";
    if (row.state !== "pending") return "already";
    if (row.confirm_expires_at === null || row.confirm_expires_at <= now) return "expired";
    // The link works once: its hash goes, so a forwarded or leaked confirmation link opens nothing after.
    const result = await this.db
      .updateTable("subscribers")
      .set({ state: "confirmed", confirmed_at: now, confirm_hash: null, confirm_nonce: null })
      .where("id", "=", row.id)
      .where("state", "=", "pending")
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0 ? "confirmed" : "already";
  }

  /** The subscription a confirmation link names, if any, as its manage link reads it. */
  async byConfirmHash(confirmHash: string): Promise<ManagedRecord | undefined> {
    return this.managed("confirm_hash", confirmHash);
  }

  /** The subscription a manage (or unsubscribe) link names, if any. */
  async byManageHash(manageHash: string): Promise<ManagedRecord | undefined> {
    return this.managed("manage_hash", manageHash);
  }

  private async managed(column: "confirm_hash" | "manage_hash", hash: string): Promise<ManagedRecord | undefined> {
    const row = await this.db
      .selectFrom("subscribers as s")
      .innerJoin("status_pages as p", "p.id", "s.page_id")
      .select([
        "s.id",
        "s.kind",
        "s.address",
        "s.state",
        "s.items",
        "s.manage_nonce",
        "s.access_key",
        "p.id as page_id",
        "p.name",
        "p.slug",
        "p.visibility",
        "p.password_hash",
        "p.workspace_id",
      ])
      .where(`s.${column}`, "=", hash)
      .executeTakeFirst();
    if (!row) return undefined;
    const member =
      row.visibility === "private" &&
      (await this.db.selectFrom("users").select("email").where("workspace_id", "=", row.workspace_id).execute()).some(
        (u) => u.email.toLowerCase() === row.address,
      );
    const hasAccess =
      row.visibility === "public" || (row.visibility === "private" ? member : row.access_key === row.password_hash);
    return {
      id: row.id,
      page: { id: row.page_id, name: row.name, slug: row.slug },
      kind: kindOf(row.kind),
      address: row.address,
      state: stateOf(row.state),
      items: itemsOf(row.items),
      manageNonce: row.manage_nonce,
      hasAccess,
    };
  }

  /** Sets the services a subscriber chose ([] for all). */
  async setItems(id: string, items: number[]): Promise<void> {
    await this.db
      .updateTable("subscribers")
      .set({ items: JSON.stringify(items) })
      .where("id", "=", id)
      .execute();
  }

  /** Removes a subscriber and what was still to be sent to them. False when there was none. */
  async remove(id: string, pageId?: number): Promise<boolean> {
    const result = await this.db
      .deleteFrom("subscribers")
      .where("id", "=", id)
      .$if(pageId !== undefined, (qb) => qb.where("page_id", "=", pageId as number))
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** A page's subscribers by address, filtered, with the total matching and the count in each state. */
  async list(
    pageId: number,
    query: { search?: string | undefined; state?: SubscriberState | undefined; offset: number; limit: number },
  ): Promise<{ subscribers: Subscriber[]; total: number; counts: Record<SubscriberState, number> }> {
    const like = query.search ? `%${query.search.toLowerCase().replace(/[\\%_]/g, (m) => `\\${m}`)}%` : undefined;
    const base = this.db
      .selectFrom("subscribers")
      .where("page_id", "=", pageId)
      .$if(like !== undefined, (qb) => qb.where(sql<boolean>`address like ${like} escape '\\'`))
      .$if(query.state !== undefined, (qb) => qb.where("state", "=", query.state as string));
    const rows = await base
      .selectAll()
      .orderBy("address")
      .orderBy("id")
      .offset(query.offset)
      .limit(query.limit)
      .execute();
    const total = await base.select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow();
    const byState = await this.db
      .selectFrom("subscribers")
      .select(["state", (eb) => eb.fn.countAll<number>().as("n")])
      .where("page_id", "=", pageId)
      .groupBy("state")
      .execute();
    const counts = { pending: 0, confirmed: 0, suspended: 0 };
    for (const { state, n } of byState) counts[stateOf(state)] += Number(n);
    return {
      subscribers: rows.map((row) => ({
        id: row.id,
        type: kindOf(row.kind),
        address: row.address,
        state: stateOf(row.state),
        items: itemsOf(row.items),
        createdAt: row.created_at,
        confirmedAt: row.confirmed_at,
        suspendedReason: row.suspended_reason,
      })),
      total: Number(total.n),
      counts,
    };
  }

  /**
   * Writes a notice of an incident's event within the caller's transaction (the change that caused it), once per
   * `key`: writing it again (a retried request) writes nothing. The items it touches are those its owner named
   * and, for an automatic incident, its site's.
   */
  async writeNotice(
    trx: Kysely<Database>,
    notice: { pageId: number; incidentId: number; updateId: number; event: NoticeEvent; key: string; at: string },
  ): Promise<void> {
    const named = await trx
      .selectFrom("incident_items")
      .select("item_id")
      .where("incident_id", "=", notice.incidentId)
      .execute();
    const ofSite = await trx
      .selectFrom("status_page_items as it")
      .innerJoin("incidents as i", "i.site_id", "it.site_id")
      .select("it.id")
      .where("i.id", "=", notice.incidentId)
      .where("it.page_id", "=", notice.pageId)
      .execute();
    const items = [...new Set([...named.map((n) => n.item_id), ...ofSite.map((i) => i.id)])].sort((a, b) => a - b);
    await trx
      .insertInto("subscriber_notices")
      .values({
        page_id: notice.pageId,
        key: notice.key,
        event: notice.event,
        incident_id: notice.incidentId,
        update_id: notice.updateId,
        items: JSON.stringify(items),
        created_at: notice.at,
      })
      .onConflict((oc) => oc.columns(["page_id", "key"]).doNothing())
      .execute();
  }

  /**
   * Writes a maintenance occurrence's notice, within the caller's transaction, for every page that shows one of
   * the window's sites among its visible services and takes subscriptions now; once per page and key (key
   * `maintenance:<window>:<start>:<started|ended>`, or `…:scheduled:<end>`). An end is told only to the pages told of the
   * start. Returns how many notices it wrote.
   */
  async writeMaintenanceNotices(
    trx: Kysely<Database>,
    n: {
      windowId: string;
      sites: string[];
      event: "maintenance_scheduled" | "maintenance_started" | "maintenance_ended";
      startsAt: string;
      endsAt: string;
      at: string;
    },
  ): Promise<number> {
    if (n.sites.length === 0) return 0;
    const base = `maintenance:${n.windowId}:${n.startsAt}`;
    // An announcement names its end too: a new end is told; a start and an end are told once per occurrence.
    const key =
      n.event === "maintenance_scheduled"
        ? `${base}:scheduled:${n.endsAt}`
        : `${base}:${n.event.slice("maintenance_".length)}`;
    const shown = await trx
      .selectFrom("status_page_items as it")
      .innerJoin("status_pages as p", "p.id", "it.page_id")
      .select(["it.page_id", "it.id", "p.subscriptions"])
      .where("it.site_id", "in", [...new Set(n.sites)])
      .where("it.visible", "=", 1)
      .execute();
    const byPage = new Map<number, number[]>();
    for (const row of shown) {
      if (!subscriptionsOf(row.subscriptions).enabled) continue;
      byPage.set(row.page_id, [...(byPage.get(row.page_id) ?? []), row.id]);
    }
    if (byPage.size === 0) return 0;
    const written = await trx
      .selectFrom("subscriber_notices")
      .select(["page_id", "key"])
      .where("page_id", "in", [...byPage.keys()])
      .where("key", "in", [key, `${base}:started`])
      .execute();
    const has = (pageId: number, k: string) => written.some((w) => w.page_id === pageId && w.key === k);
    const pages = [...byPage.keys()].filter(
      (pageId) => !has(pageId, key) && (n.event !== "maintenance_ended" || has(pageId, `${base}:started`)),
    );
    if (pages.length === 0) return 0;
    await trx
      .insertInto("subscriber_notices")
      .values(
        pages.map((pageId) => ({
          page_id: pageId,
          key,
          event: n.event,
          window_id: n.windowId,
          starts_at: n.startsAt,
          ends_at: n.endsAt,
          items: JSON.stringify((byPage.get(pageId) ?? []).sort((a, b) => a - b)),
          created_at: n.at,
        })),
      )
      .onConflict((oc) => oc.columns(["page_id", "key"]).doNothing())
      .execute();
    return pages.length;
  }

  /**
   * Tells of one-off maintenance as it happens: an occurrence that began within MAINTENANCE_SWEEP_LOOKBACK_MS and
   * is under way is "started", one that ended within it "ended" (to the pages told of its start). Any process may
   * run it any number of times: the notices' keys make each one once. A repeating window's occurrences are not
   * told one by one (a nightly window would mail every subscriber twice a night); its schedule is, when it is
   * made or moved. Returns how many notices it wrote.
   */
  sweepMaintenance(now: string): Promise<number> {
    const since = new Date(Date.parse(now) - MAINTENANCE_SWEEP_LOOKBACK_MS).toISOString();
    return this.transaction(async (trx) => {
      const occurrences = await trx
        .selectFrom("maintenance_windows as w")
        .innerJoin("maintenance_occurrences as o", "o.window_id", "w.id")
        .select(["o.window_id", "o.starts_at", "o.ends_at"])
        .where("w.recurrence", "is", null)
        .where("o.ends_at", ">", since)
        .where((eb) =>
          eb.or([
            eb.and([eb("o.starts_at", "<=", now), eb("o.starts_at", ">", since), eb("o.ends_at", ">", now)]),
            eb.and([eb("o.ends_at", "<=", now), eb("o.ends_at", ">", since)]),
          ]),
        )
        .orderBy("o.starts_at")
        .execute();
      if (occurrences.length === 0) return 0;
      const links = await trx
        .selectFrom("maintenance_window_sites")
        .select(["window_id", "site_id"])
        .where("window_id", "in", [...new Set(occurrences.map((o) => o.window_id))])
        .execute();
      let written = 0;
      for (const o of occurrences) {
        written += await this.writeMaintenanceNotices(trx, {
          windowId: o.window_id,
          sites: links.filter((l) => l.window_id === o.window_id).map((l) => l.site_id),
          event: o.ends_at <= now ? "maintenance_ended" : "maintenance_started",
          startsAt: o.starts_at,
          endsAt: o.ends_at,
          at: now,
        });
      }
      return written;
    });
  }

  /**
   * Deletes what is done with before `before`: finished deliveries (delivered or given up), then the notices fanned
   * out whose deliveries are all gone. A subscriber's failures and suspension are on the subscriber, not here.
   */
  async prune(before: string): Promise<void> {
    await this.db
      .deleteFrom("subscriber_deliveries")
      .where("state", "in", ["delivered", "failed"])
      .where("finished_at", "<", before)
      .execute();
    // A maintenance notice's key is what keeps its occurrence from being told again (and its start what lets its end
    // be told): it stays until the occurrence is over too.
    await this.db
      .deleteFrom("subscriber_notices as n")
      .where("n.fanned_out_at", "<", before)
      .where((eb) => eb.or([eb("n.window_id", "is", null), eb("n.ends_at", "<", before)]))
      .where(({ not, exists, selectFrom }) =>
        not(exists(selectFrom("subscriber_deliveries as d").select("d.id").whereRef("d.notice_id", "=", "n.id"))),
      )
      .execute();
  }

  /** A workspace's members' addresses, as subscriptions compare them. */
  private async memberAddresses(trx: Kysely<Database>, workspaceId: string): Promise<Set<string>> {
    const users = await trx.selectFrom("users").select("email").where("workspace_id", "=", workspaceId).execute();
    return new Set(users.map((u) => u.email.toLowerCase()));
  }

  /**
   * How many confirmed subscribers a notice touching `items` would reach now, by the fan-out's rule (access to the
   * page, and a service they chose or none): the owner's preview. Zero when the page takes no subscriptions.
   */
  async recipients(pageId: number, items: number[]): Promise<number> {
    const page = await this.db
      .selectFrom("status_pages")
      .select(["visibility", "password_hash", "workspace_id", "subscriptions"])
      .where("id", "=", pageId)
      .executeTakeFirst();
    if (!page || !subscriptionsOf(page.subscriptions).enabled) return 0;
    const subscribers = await this.db
      .selectFrom("subscribers")
      .select(["address", "items", "access_key"])
      .where("page_id", "=", pageId)
      .where("state", "=", "confirmed")
      .where("kind", "in", subscriptionsOf(page.subscriptions).kinds)
      .execute();
    const members = page.visibility === "private" ? await this.memberAddresses(this.db, page.workspace_id) : null;
    return subscribers.filter(mayBeTold(page, members, new Set(items))).length;
  }

  /** Whether a notice waits to be fanned out. */
  async anyToFanOut(): Promise<boolean> {
    const row = await this.db
      .selectFrom("subscriber_notices")
      .select("id")
      .where("fanned_out_at", "is", null)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  /**
   * One step of fanning out the oldest notice still waiting: the next FAN_OUT_BATCH subscribers of its page after
   * its cursor each get a delivery when they may read it now and chose a service it touches (or none); the cursor
   * moves in the same transaction. A delivery's key is unique per subscriber, so two processes fanning out the
   * same notice, or a step repeated after a crash, write each copy once. Subscribers confirmed after the notice
   * was written are not told of it. Returns false when nothing waits.
   */
  fanOutStep(now: string): Promise<boolean> {
    return this.transaction(async (trx) => {
      const notice = await trx
        .selectFrom("subscriber_notices as n")
        .innerJoin("status_pages as p", "p.id", "n.page_id")
        .select([
          "n.id",
          "n.page_id",
          "n.items",
          "n.created_at",
          "n.fan_cursor",
          "p.visibility",
          "p.password_hash",
          "p.workspace_id",
          "p.subscriptions",
        ])
        .where("n.fanned_out_at", "is", null)
        .orderBy("n.id")
        .limit(1)
        .executeTakeFirst();
      if (!notice) return false;
      // A page that takes no subscriptions now tells no one; one that no longer takes a kind tells no one of it.
      const settings = subscriptionsOf(notice.subscriptions);
      const batch = !settings.enabled
        ? []
        : await trx
            .selectFrom("subscribers")
            .select(["id", "address", "items", "access_key"])
            .where("page_id", "=", notice.page_id)
            .where("kind", "in", settings.kinds)
            .where("state", "=", "confirmed")
            .where("confirmed_at", "<=", notice.created_at)
            .where("id", ">", notice.fan_cursor)
            .orderBy("id")
            .limit(FAN_OUT_BATCH)
            .execute();
      const told = batch.filter(
        mayBeTold(
          notice,
          notice.visibility === "private" ? await this.memberAddresses(trx, notice.workspace_id) : null,
          new Set(itemsOf(notice.items)),
        ),
      );
      if (told.length > 0) {
        await trx
          .insertInto("subscriber_deliveries")
          .values(
            told.map((s) => ({
              subscriber_id: s.id,
              notice_id: notice.id,
              key: `notice:${notice.id}`,
              state: "pending",
              next_attempt_at: now,
              created_at: now,
            })),
          )
          .onConflict((oc) => oc.columns(["subscriber_id", "key"]).doNothing())
          .execute();
      }
      const last = batch.at(-1);
      await trx
        .updateTable("subscriber_notices")
        .set(batch.length < FAN_OUT_BATCH || !last ? { fanned_out_at: now } : { fan_cursor: last.id })
        .where("id", "=", notice.id)
        .execute();
      return true;
    });
  }

  /** Whether a delivery is due. */
  async anyDue(now: string): Promise<boolean> {
    const row = await this.db
      .selectFrom("subscriber_deliveries")
      .select("id")
      .where("state", "=", "pending")
      .where("next_attempt_at", "<=", now)
      .where((eb) => eb.or([eb("lease_until", "is", null), eb("lease_until", "<=", now)]))
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Up to `limit` due deliveries, leased to `owner` until `leaseUntil`; confirmations first, then oldest first. */
  claimDue(opts: { owner: string; now: string; leaseUntil: string; limit: number }): Promise<DeliveryClaim[]> {
    return this.transaction(async (trx) => {
      const due = await trx
        .selectFrom("subscriber_deliveries")
        .select("id")
        .where("state", "=", "pending")
        .where("next_attempt_at", "<=", opts.now)
        .where((eb) => eb.or([eb("lease_until", "is", null), eb("lease_until", "<=", opts.now)]))
        .orderBy("notice_id")
        .orderBy("id")
        .limit(opts.limit)
        .$if(this.dialect === "postgres", (qb) => qb.forUpdate().skipLocked())
        .execute();
      if (due.length === 0) return [];
      const ids = due.map((d) => d.id);
      await trx
        .updateTable("subscriber_deliveries")
        .set({ lease_owner: opts.owner, lease_until: opts.leaseUntil })
        .where("id", "in", ids)
        .execute();
      const rows = await trx
        .selectFrom("subscriber_deliveries as d")
        .innerJoin("subscribers as s", "s.id", "d.subscriber_id")
        .innerJoin("status_pages as p", "p.id", "s.page_id")
        .select([
          "d.id",
          "d.attempts",
          "d.created_at",
          "d.notice_id",
          "d.confirm_nonce",
          "s.id as subscriber_id",
          "s.kind",
          "s.address",
          "s.secret",
          "s.manage_nonce",
          "s.page_id",
          "s.access_key",
          "p.visibility",
          "p.password_hash",
          "p.workspace_id",
          "p.subscriptions",
        ])
        .where("d.id", "in", ids)
        .orderBy("d.id")
        .execute();
      // Access is judged again when a notice is sent, not only when it was fanned out: a page made private, a
      // password changed or subscriptions turned off meanwhile stop what is still waiting.
      const privatePages = [...new Set(rows.filter((r) => r.visibility === "private").map((r) => r.workspace_id))];
      const members =
        privatePages.length === 0
          ? new Set<string>()
          : new Set(
              (
                await trx
                  .selectFrom("users")
                  .select(["workspace_id", "email"])
                  .where("workspace_id", "in", privatePages)
                  .execute()
              ).map((u) => `${u.workspace_id}|${u.email.toLowerCase()}`),
            );
      const allowed = (r: (typeof rows)[number]) =>
        r.notice_id === 0 ||
        (subscriptionsOf(r.subscriptions).enabled &&
          subscriptionsOf(r.subscriptions).kinds.includes(kindOf(r.kind)) &&
          (r.visibility === "public" ||
            (r.visibility === "private"
              ? members.has(`${r.workspace_id}|${r.address}`)
              : r.access_key === r.password_hash)));
      const refused = rows.filter((r) => !allowed(r)).map((r) => r.id);
      if (refused.length > 0) {
        await trx
          .updateTable("subscriber_deliveries")
          .set({
            state: "failed",
            finished_at: opts.now,
            last_error: "no longer sent: the subscriber cannot see the page now, or it takes no subscriptions",
            lease_owner: null,
            lease_until: null,
          })
          .where("id", "in", refused)
          .execute();
      }
      const kept = rows.filter(allowed);
      return kept.map((r) => ({
        id: r.id,
        attempts: r.attempts,
        createdAt: r.created_at,
        subscriberId: r.subscriber_id,
        kind: kindOf(r.kind),
        address: r.address,
        manageNonce: r.manage_nonce,
        confirmNonce: r.confirm_nonce,
        secret: r.secret,
        noticeId: r.notice_id,
        pageId: r.page_id,
      }));
    });
  }

  /**
   * Records a pass's outcomes in one transaction (as finish does each): the plain deliveries in two statements, the
   * rest one by one. The ids whose lease was lost are left out of the answer.
   */
  async finishAll(outcomes: DeliveryOutcome[]): Promise<Set<number>> {
    if (outcomes.length === 0) return new Set();
    return this.transaction(async (trx) => {
      const recorded = new Set<number>();
      // The plain deliveries of one sender's pass: two statements for all of them.
      const owner = outcomes[0]?.owner;
      const plain = outcomes.filter(
        (o) => o.state === "delivered" && o.error === null && !o.confirms && o.owner === owner,
      );
      if (owner !== undefined && plain.length > 0) {
        const at = plain.reduce((latest, o) => (o.at > latest ? o.at : latest), "");
        const done = await trx
          .updateTable("subscriber_deliveries")
          .set((eb) => ({
            state: "delivered",
            attempts: eb("attempts", "+", 1),
            next_attempt_at: at,
            finished_at: at,
            last_error: null,
            lease_owner: null,
            lease_until: null,
          }))
          .where(
            "id",
            "in",
            plain.map((o) => o.id),
          )
          .where("lease_owner", "=", owner)
          .returning(["id", "subscriber_id"])
          .execute();
        for (const row of done) recorded.add(row.id);
        const subscribers = [...new Set(done.map((row) => row.subscriber_id))];
        if (subscribers.length > 0) {
          await trx
            .updateTable("subscribers")
            .set({ failures: 0 })
            .where("id", "in", subscribers)
            .where("failures", "<>", 0)
            .execute();
        }
      }
      const batched = new Set(plain);
      for (const o of outcomes) {
        if (!batched.has(o) && (await this.finishIn(trx, o))) recorded.add(o.id);
      }
      return recorded;
    });
  }

  /** Records one outcome in a transaction of its own (finishAll's fallback). */
  finishOne(o: DeliveryOutcome): Promise<boolean> {
    return this.transaction((trx) => this.finishIn(trx, o));
  }

  /**
   * Records a delivery's outcome if `owner` still holds its lease: delivered, failed for good, or pending again at
   * `nextAttemptAt`. A delivered one clears the subscriber's failures; one given up counts one, and `suspendNow` (a
   * hard bounce) or `suspendAfter` deliveries given up in a row suspend the subscriber with its reason. False when
   * the lease was lost.
   */
  private async finishIn(trx: Kysely<Database>, o: DeliveryOutcome): Promise<boolean> {
    const result = await trx
      .updateTable("subscriber_deliveries")
      .set({
        state: o.state,
        attempts: o.attempts,
        next_attempt_at: o.nextAttemptAt ?? o.at,
        finished_at: o.state === "pending" ? null : o.at,
        last_error: o.error,
        lease_owner: null,
        lease_until: null,
      })
      .where("id", "=", o.id)
      .where("lease_owner", "=", o.owner)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) return false;
    if (o.state === "delivered") {
      await trx.updateTable("subscribers").set({ failures: 0 }).where("id", "=", o.subscriberId).execute();
      if (o.confirms) {
        await trx
          .updateTable("subscribers")
          .set({
            state: "confirmed",
            confirmed_at: o.at,
            confirm_hash: null,
            confirm_nonce: null,
            confirm_expires_at: null,
          })
          .where("id", "=", o.subscriberId)
          .where("state", "=", "pending")
          .execute();
      }
      return true;
    }
    // A retry to come is no failure yet; a delivery given up is one.
    if (o.state === "pending" && !o.suspendNow) return true;
    const subscriber = await trx
      .updateTable("subscribers")
      .set((eb) => ({ failures: eb("failures", "+", 1) }))
      .where("id", "=", o.subscriberId)
      .returning("failures")
      .executeTakeFirst();
    if (subscriber && (o.suspendNow || subscriber.failures >= o.suspendAfter)) {
      await trx
        .updateTable("subscribers")
        .set({ state: "suspended", suspended_reason: o.error })
        .where("id", "=", o.subscriberId)
        .execute();
      // Nothing more goes to a suspended subscriber.
      await trx
        .updateTable("subscriber_deliveries")
        .set({ state: "failed", finished_at: o.at, last_error: "the subscriber is suspended" })
        .where("subscriber_id", "=", o.subscriberId)
        .where("state", "=", "pending")
        .execute();
    }
    return true;
  }

  /** Hands a claim back for later (its outcome could not be recorded). */
  async release(id: number, owner: string, nextAttemptAt: string): Promise<void> {
    await this.db
      .updateTable("subscriber_deliveries")
      .set({ lease_owner: null, lease_until: null, next_attempt_at: nextAttemptAt })
      .where("id", "=", id)
      .where("lease_owner", "=", owner)
      .execute();
  }

  /** What a notice tells, as its page shows it to visitors now; undefined when what it tells of or its page is gone. */
  async noticeContent(noticeId: number): Promise<NoticeContent | undefined> {
    const notice = await this.db
      .selectFrom("subscriber_notices as n")
      .innerJoin("status_pages as p", "p.id", "n.page_id")
      .select([
        "n.event",
        "n.items",
        "n.incident_id",
        "n.update_id",
        "n.window_id",
        "n.starts_at",
        "n.ends_at",
        "n.created_at",
        "p.id as page_id",
        "p.name as page_name",
        "p.slug",
        "p.custom_domain",
        "p.theme",
      ])
      .where("n.id", "=", noticeId)
      .executeTakeFirst();
    if (!notice) return undefined;
    const page = {
      id: notice.page_id,
      name: notice.page_name,
      slug: notice.slug,
      customDomain: notice.custom_domain,
      accentColor: accentOf(notice.theme),
    };
    const touched = itemsOf(notice.items);
    const visible = (await this.visibleItems(notice.page_id)).filter((item) => touched.includes(item.id));
    const event = NoticeEvent.safeParse(notice.event);
    if (!event.success) return undefined;
    if (notice.window_id !== null && notice.starts_at !== null && notice.ends_at !== null) {
      const window = await this.db
        .selectFrom("maintenance_windows")
        .select(["id", "title", "description", "recurrence"])
        .where("id", "=", notice.window_id)
        .executeTakeFirst();
      if (!window) return undefined;
      return {
        kind: "maintenance",
        event: event.data as MaintenanceNoticeContent["event"],
        page,
        window: {
          id: window.id,
          title: window.title,
          description: window.description,
          recurring: window.recurrence !== null,
        },
        startsAt: notice.starts_at,
        endsAt: notice.ends_at,
        at: notice.created_at,
        affected: visible.map((item) => ({ label: item.label, status: "maintenance" })),
      };
    }
    if (notice.incident_id === null || notice.update_id === null) return undefined;
    const row = await this.db
      .selectFrom("incidents as i")
      .innerJoin("incident_updates as u", "u.incident_id", "i.id")
      .select([
        "i.title",
        "i.impact",
        "i.status as incident_status",
        "i.started_at",
        "u.status as update_status",
        "u.message",
        "u.created_at as update_at",
      ])
      .where("i.id", "=", notice.incident_id)
      .where("u.id", "=", notice.update_id)
      .executeTakeFirst();
    if (!row) return undefined;
    const named = new Map(
      (
        await this.db
          .selectFrom("incident_items")
          .select(["item_id", "status"])
          .where("incident_id", "=", notice.incident_id)
          .execute()
      ).map((n) => [n.item_id, n.status]),
    );
    return {
      kind: "incident",
      event: event.data as IncidentNoticeContent["event"],
      page,
      incident: {
        id: notice.incident_id,
        title: row.title,
        impact: row.impact,
        status: row.incident_status,
        startedAt: row.started_at,
      },
      update: { status: row.update_status, message: row.message, at: row.update_at },
      affected: visible.map((item) => ({ label: item.label, status: named.get(item.id) ?? "major_outage" })),
    };
  }
}
