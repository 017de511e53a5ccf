import { type Insertable, sql } from "kysely";
import { Queries } from "./connection.ts";
import type { Database } from "./schema.ts";

/** A report the runner has claimed: a check due, or the report to send. */
export interface DueReport {
  id: string;
  domain: string;
  email: string;
  state: string;
  next_check_at: string | null;
  /** Set once by confirmReport, before the report can be claimed; fixed after. */
  confirmed_at: string | null;
  ends_at: string | null;
}

/**
 * The anonymous utilities' jobs: domain snapshots (queued, running, ready, failed) and 24-hour reports (pending
 * confirmation, active, sending, sent; or cancelled, or expired) with their checks. Work is claimed with a lease
 * (FOR UPDATE SKIP LOCKED on PostgreSQL, so that processes share it). Times are ISO 8601 text; the callers own the
 * clock and the policy (how long a lease, how many attempts).
 */
export class AnonQueries extends Queries {
  // ---- snapshots -----------------------------------------------------------------------------------------

  /**
   * The domain's job asked for recently (queued, running, or ready since `readySince`), newest first; or, when there
   * is none, a new queued job with id `id`, in one transaction.
   */
  requestSnapshot(opts: {
    id: string;
    domain: string;
    now: string;
    readySince: string;
  }): Promise<{ id: string; reused: boolean }> {
    const { id, domain, now, readySince } = opts;
    return this.transaction(async (trx) => {
      const recent = await trx
        .selectFrom("anon_snapshots")
        .select(["id", "status"])
        .where("domain", "=", domain)
        .where((eb) =>
          eb.or([
            eb("status", "in", ["queued", "running"]),
            eb.and([eb("status", "=", "ready"), eb("finished_at", ">=", readySince)]),
          ]),
        )
        .orderBy("created_at", "desc")
        .limit(1)
        .executeTakeFirst();
      if (recent) return { id: recent.id, reused: true };
      await trx
        .insertInto("anon_snapshots")
        .values({ id, domain, status: "queued", created_at: now, attempts: 0 })
        .execute();
      return { id, reused: false };
    });
  }

  getSnapshot(id: string) {
    return this.db.selectFrom("anon_snapshots").selectAll().where("id", "=", id).executeTakeFirst();
  }

  /**
   * Claims up to `limit` snapshots, queued or running with an expired lease, oldest first: those already tried
   * `maxAttempts` times fail with `exhausted`, the others run under a lease until `leaseUntil` (one more attempt).
   * Returns the ones to run.
   */
  claimSnapshots(opts: { now: string; limit: number; leaseUntil: string; maxAttempts: number; exhausted: string }) {
    const { now, limit, leaseUntil, maxAttempts, exhausted: reason } = opts;
    return this.transaction(async (trx) => {
      const rows = await trx
        .selectFrom("anon_snapshots")
        .select(["id", "domain", "attempts"])
        .where((eb) =>
          eb.or([eb("status", "=", "queued"), eb.and([eb("status", "=", "running"), eb("lease_until", "<", now)])]),
        )
        .orderBy("created_at")
        .limit(limit)
        .$if(this.dialect === "postgres", (qb) => qb.forUpdate().skipLocked())
        .execute();
      const runnable = rows.filter((r) => r.attempts < maxAttempts);
      const exhausted = rows.filter((r) => r.attempts >= maxAttempts);
      if (exhausted.length) {
        await trx
          .updateTable("anon_snapshots")
          .set({ status: "failed", error: reason, finished_at: now })
          .where(
            "id",
            "in",
            exhausted.map((r) => r.id),
          )
          .execute();
      }
      if (runnable.length) {
        await trx
          .updateTable("anon_snapshots")
          .set({ status: "running", lease_until: leaseUntil, attempts: sql`attempts + 1` })
          .where(
            "id",
            "in",
            runnable.map((r) => r.id),
          )
          .execute();
      }
      return runnable;
    });
  }

  /** Ends a snapshot: ready with its facts (JSON text), or failed with an error. */
  async finishSnapshot(id: string, now: string, outcome: { result: string | null; error: string | null }) {
    await this.db
      .updateTable("anon_snapshots")
      .set({
        status: outcome.result !== null ? "ready" : "failed",
        result: outcome.result,
        error: outcome.error,
        lease_until: null,
        finished_at: now,
      })
      .where("id", "=", id)
      .execute();
  }

  /** Finished snapshots (ready or failed) before `finishedBefore` go. */
  async deleteSnapshots(finishedBefore: string): Promise<void> {
    await this.db
      .deleteFrom("anon_snapshots")
      .where("status", "in", ["ready", "failed"])
      .where("finished_at", "<", finishedBefore)
      .execute();
  }

  // ---- 24-hour reports -----------------------------------------------------------------------------------

  /**
   * Stores a new pending report, unless its address already has one created after `pendingSince`: then nothing is
   * stored and the answer is that one's creation time. Two requests for one address at once are serialised (an
   * advisory lock on PostgreSQL; SQLite serialises writers).
   */
  requestReport(
    row: Insertable<Database["anon_reports"]>,
    pendingSince: string,
  ): Promise<{ pendingSince: string } | null> {
    return this.transaction(async (trx) => {
      if (this.dialect === "postgres") await sql`select pg_advisory_xact_lock(hashtext(${row.email}))`.execute(trx);
      const pending = await trx
        .selectFrom("anon_reports")
        .select("created_at")
        .where("email", "=", row.email)
        .where("state", "=", "pending")
        .where("created_at", ">", pendingSince)
        .orderBy("created_at")
        .executeTakeFirst();
      if (pending) return { pendingSince: pending.created_at };
      await trx.insertInto("anon_reports").values(row).execute();
      return null;
    });
  }

  /** Forgets a pending report (its confirmation e-mail could not be sent). */
  async dropReport(id: string): Promise<void> {
    await this.db.deleteFrom("anon_reports").where("id", "=", id).where("state", "=", "pending").execute();
  }

  reportByConfirmHash(hash: string) {
    return this.db
      .selectFrom("anon_reports")
      .select(["id", "domain", "state", "confirm_by"])
      .where("confirm_hash", "=", hash)
      .executeTakeFirst();
  }

  reportByUnsubscribeHash(hash: string) {
    return this.db
      .selectFrom("anon_reports")
      .select(["id", "domain", "state"])
      .where("unsubscribe_hash", "=", hash)
      .executeTakeFirst();
  }

  /** Starts a pending report's checks; false when it was not pending any more. */
  async confirmReport(id: string, times: { confirmedAt: string; firstCheckAt: string; endsAt: string }) {
    const updated = await this.db
      .updateTable("anon_reports")
      .set({
        state: "active",
        confirmed_at: times.confirmedAt,
        next_check_at: times.firstCheckAt,
        ends_at: times.endsAt,
      })
      .where("id", "=", id)
      .where("state", "=", "pending")
      .executeTakeFirst();
    return Number(updated.numUpdatedRows) > 0;
  }

  /** Cancels a report not yet sent (pending, active or sending). */
  async cancelReport(id: string): Promise<void> {
    await this.db
      .updateTable("anon_reports")
      .set({ state: "cancelled", lease_until: null })
      .where("id", "=", id)
      .where("state", "in", ["pending", "active", "sending"])
      .execute();
  }

  /** Pending reports whose confirmation link died before `now` expire. */
  async expireReports(now: string): Promise<void> {
    await this.db
      .updateTable("anon_reports")
      .set({ state: "expired" })
      .where("state", "=", "pending")
      .where("confirm_by", "<", now)
      .execute();
  }

  /** Claims up to `limit` reports with a check due or waiting to be sent, under a lease until `leaseUntil`. */
  claimReports(opts: { now: string; limit: number; leaseUntil: string }): Promise<DueReport[]> {
    const { now, limit, leaseUntil } = opts;
    return this.transaction(async (trx) => {
      const rows = await trx
        .selectFrom("anon_reports")
        .select(["id", "domain", "email", "state", "next_check_at", "confirmed_at", "ends_at"])
        .where((eb) =>
          eb.or([eb.and([eb("state", "=", "active"), eb("next_check_at", "<=", now)]), eb("state", "=", "sending")]),
        )
        .where((eb) => eb.or([eb("lease_until", "is", null), eb("lease_until", "<", now)]))
        .orderBy("next_check_at")
        .limit(limit)
        .$if(this.dialect === "postgres", (qb) => qb.forUpdate().skipLocked())
        .execute();
      if (rows.length) {
        await trx
          .updateTable("anon_reports")
          .set({ lease_until: leaseUntil })
          .where(
            "id",
            "in",
            rows.map((r) => r.id),
          )
          .execute();
      }
      return rows;
    });
  }

  /**
   * Records one check of an active report (a check recorded twice, after a restart, is refused by the unique
   * (report, time) key) with its next one at `nextAt`, in one transaction; when `nextAt` falls after the report's
   * end, the report is handed on to be sent instead. A report no longer active records nothing.
   */
  async recordReportCheck(check: Insertable<Database["anon_report_checks"]>, nextAt: string): Promise<void> {
    await this.transaction(async (trx) => {
      const row = await trx
        .selectFrom("anon_reports")
        .select(["state", "ends_at"])
        .where("id", "=", check.report_id)
        .executeTakeFirst();
      if (row?.state !== "active") return;
      await trx
        .insertInto("anon_report_checks")
        .values(check)
        .onConflict((oc) => oc.columns(["report_id", "at"]).doNothing())
        .execute();
      const last = Date.parse(nextAt) > Date.parse(row.ends_at ?? check.at);
      await trx
        .updateTable("anon_reports")
        .set(
          last
            ? { state: "sending", next_check_at: null, lease_until: null }
            : { next_check_at: nextAt, lease_until: null },
        )
        .where("id", "=", check.report_id)
        .execute();
    });
  }

  /** A report's checks, oldest first. */
  reportChecks(reportId: string) {
    return this.db
      .selectFrom("anon_report_checks")
      .selectAll()
      .where("report_id", "=", reportId)
      .orderBy("at")
      .execute();
  }

  async setUnsubscribeHash(id: string, hash: string): Promise<void> {
    await this.db.updateTable("anon_reports").set({ unsubscribe_hash: hash }).where("id", "=", id).execute();
  }

  /** Marks a report being sent as sent. */
  async markSent(id: string, now: string): Promise<void> {
    await this.db
      .updateTable("anon_reports")
      .set({ state: "sent", sent_at: now, lease_until: null })
      .where("id", "=", id)
      .where("state", "=", "sending")
      .execute();
  }
}
