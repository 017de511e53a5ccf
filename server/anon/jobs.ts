import { randomBytes } from "node:crypto";
import { sql } from "kysely";
import { hashToken } from "../accounts/secrets.ts";
import type { Clock } from "../api/time.ts";
import type { Logger } from "../log.ts";
import type { Store } from "../store/store.ts";
import { REPORT_HOURS, type ReportCheck, reportEmail } from "./emails.ts";
import { within } from "./fetcher.ts";
import type { Mailer } from "./mail.ts";
import { type DomainFacts, fetchSite, type SnapshotDeps, takeSnapshot } from "./snapshot.ts";

/**
 * The anonymous utilities' jobs, kept in the store so that a restart loses none: domain snapshots (queued, running,
 * ready, failed) and 24-hour reports (pending confirmation, active, sending, sent; or cancelled, or expired).
 * Work is claimed with a lease: a process that dies mid-job gives it back when the lease runs out.
 */

/** How long a confirmation link works, and how long an address waits before it can be asked again. */
export const CONFIRM_HOURS = 24;
/** A snapshot that failed this many times (its process died each time) is given up as failed. */
export const SNAPSHOT_ATTEMPTS = 3;
/** Finished snapshots are kept this long, then deleted; their ids answer 404 after that. */
export const SNAPSHOT_KEEP_MS = 7 * 86_400_000;
const LEASE_MS = 120_000;
const SWEEP_EVERY_MS = 60_000;
/** Report checks and sends in flight at once. */
const REPORTS_AT_ONCE = 32;
const HOUR_MS = 3_600_000;

const iso = (ms: number) => new Date(ms).toISOString();
/** An unguessable public handle: 128 random bits. */
const newPublicId = () => randomBytes(16).toString("base64url");
export const newSecret = () => randomBytes(32).toString("base64url");

// ---- snapshots -------------------------------------------------------------------------------------------

/**
 * A snapshot of `domain`: a new job, or the same domain's job asked for within `reuseMs` (queued, running, or
 * ready since), so that a burst of requests for one domain costs one look at it.
 */
export async function requestSnapshot(store: Store, domain: string, now: number, reuseMs: number) {
  return store.transaction(async (trx) => {
    const recent = await trx
      .selectFrom("anon_snapshots")
      .select(["id", "status"])
      .where("domain", "=", domain)
      .where((eb) =>
        eb.or([
          eb("status", "in", ["queued", "running"]),
          eb.and([eb("status", "=", "ready"), eb("finished_at", ">=", iso(now - reuseMs))]),
        ]),
      )
      .orderBy("created_at", "desc")
      .limit(1)
      .executeTakeFirst();
    if (recent) return { id: recent.id, reused: true };
    const id = newPublicId();
    await trx
      .insertInto("anon_snapshots")
      .values({ id, domain, status: "queued", created_at: iso(now), attempts: 0 })
      .execute();
    return { id, reused: false };
  });
}

export async function getSnapshot(store: Store, id: string) {
  return store.db.selectFrom("anon_snapshots").selectAll().where("id", "=", id).executeTakeFirst();
}

async function claimSnapshots(store: Store, now: number, limit: number) {
  if (limit <= 0) return [];
  return store.transaction(async (trx) => {
    const rows = await trx
      .selectFrom("anon_snapshots")
      .select(["id", "domain", "attempts"])
      .where((eb) =>
        eb.or([eb("status", "=", "queued"), eb.and([eb("status", "=", "running"), eb("lease_until", "<", iso(now))])]),
      )
      .orderBy("created_at")
      .limit(limit)
      .$if(store.dialect === "postgres", (qb) => qb.forUpdate().skipLocked())
      .execute();
    const runnable = rows.filter((r) => r.attempts < SNAPSHOT_ATTEMPTS);
    const exhausted = rows.filter((r) => r.attempts >= SNAPSHOT_ATTEMPTS);
    if (exhausted.length) {
      await trx
        .updateTable("anon_snapshots")
        .set({ status: "failed", error: "the snapshot was interrupted too many times", finished_at: iso(now) })
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
        .set({ status: "running", lease_until: iso(now + LEASE_MS), attempts: sql`attempts + 1` })
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

async function finishSnapshot(store: Store, id: string, now: number, outcome: { facts?: DomainFacts; error?: string }) {
  await store.db
    .updateTable("anon_snapshots")
    .set({
      status: outcome.facts ? "ready" : "failed",
      result: outcome.facts ? JSON.stringify(outcome.facts) : null,
      error: outcome.error ?? null,
      lease_until: null,
      finished_at: iso(now),
    })
    .where("id", "=", id)
    .execute();
}

// ---- 24-hour reports -------------------------------------------------------------------------------------

export interface ReportRequest {
  domain: string;
  email: string;
  clientKey: string;
}

/**
 * A new report waiting for its address to confirm, with the two secrets that only the e-mails carry (the store
 * keeps their hashes). At most one unconfirmed request per address a day: otherwise `retryAfterMs` says when.
 */
export async function requestReport(
  store: Store,
  request: ReportRequest,
  now: number,
): Promise<{ id: string; confirmToken: string } | { retryAfterMs: number }> {
  const email = request.email.toLowerCase();
  return store.transaction(async (trx) => {
    // Two requests for one address at once: the second waits here for the first (SQLite serialises writers).
    if (store.dialect === "postgres") await sql`select pg_advisory_xact_lock(hashtext(${email}))`.execute(trx);
    const pending = await trx
      .selectFrom("anon_reports")
      .select("created_at")
      .where("email", "=", email)
      .where("state", "=", "pending")
      .where("created_at", ">", iso(now - CONFIRM_HOURS * HOUR_MS))
      .orderBy("created_at")
      .executeTakeFirst();
    if (pending) return { retryAfterMs: Date.parse(pending.created_at) + CONFIRM_HOURS * HOUR_MS - now };
    const id = newPublicId();
    const confirmToken = newSecret();
    await trx
      .insertInto("anon_reports")
      .values({
        id,
        domain: request.domain,
        email,
        state: "pending",
        confirm_hash: hashToken(confirmToken),
        // Replaced when the report is sent: only that e-mail carries the unsubscribe link.
        unsubscribe_hash: hashToken(newSecret()),
        client_key: request.clientKey,
        created_at: iso(now),
        confirm_by: iso(now + CONFIRM_HOURS * HOUR_MS),
      })
      .execute();
    return { id, confirmToken };
  });
}

/** Forgets a report whose confirmation e-mail could not be sent: nothing half-made stays behind. */
export async function dropReport(store: Store, id: string): Promise<void> {
  await store.db.deleteFrom("anon_reports").where("id", "=", id).where("state", "=", "pending").execute();
}

export async function reportByConfirmToken(store: Store, token: string) {
  return store.db
    .selectFrom("anon_reports")
    .select(["id", "domain", "state", "confirm_by"])
    .where("confirm_hash", "=", hashToken(token))
    .executeTakeFirst();
}

export async function reportByUnsubscribeToken(store: Store, token: string) {
  return store.db
    .selectFrom("anon_reports")
    .select(["id", "domain", "state"])
    .where("unsubscribe_hash", "=", hashToken(token))
    .executeTakeFirst();
}

/** Starts a pending report's 24 hours (first check now). Confirming twice changes nothing. */
export async function confirmReport(
  store: Store,
  token: string,
  now: number,
): Promise<"confirmed" | "already" | "expired" | "unknown" | "cancelled"> {
  const row = await reportByConfirmToken(store, token);
  if (!row) return "unknown";
  if (row.state === "cancelled") return "cancelled";
  if (row.state !== "pending") return "already";
  if (Date.parse(row.confirm_by) < now) return "expired";
  const updated = await store.db
    .updateTable("anon_reports")
    .set({
      state: "active",
      confirmed_at: iso(now),
      next_check_at: iso(now),
      ends_at: iso(now + REPORT_HOURS * HOUR_MS),
    })
    .where("id", "=", row.id)
    .where("state", "=", "pending")
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) > 0 ? "confirmed" : "already";
}

/** Stops a report at any point before it is sent (the unsubscribe link, one click). */
export async function cancelReport(store: Store, token: string): Promise<"cancelled" | "sent" | "unknown"> {
  const row = await reportByUnsubscribeToken(store, token);
  if (!row) return "unknown";
  if (row.state === "sent") return "sent";
  await store.db
    .updateTable("anon_reports")
    .set({ state: "cancelled", lease_until: null })
    .where("id", "=", row.id)
    .where("state", "in", ["pending", "active", "sending"])
    .execute();
  return "cancelled";
}

type DueReport = {
  id: string;
  domain: string;
  email: string;
  state: string;
  next_check_at: string | null;
  /** Set once by confirmReport, before the report can be claimed; fixed after. */
  confirmed_at: string | null;
  ends_at: string | null;
};

async function claimReports(store: Store, now: number, limit: number): Promise<DueReport[]> {
  if (limit <= 0) return [];
  return store.transaction(async (trx) => {
    const rows = await trx
      .selectFrom("anon_reports")
      .select(["id", "domain", "email", "state", "next_check_at", "confirmed_at", "ends_at"])
      .where((eb) =>
        eb.or([eb.and([eb("state", "=", "active"), eb("next_check_at", "<=", iso(now))]), eb("state", "=", "sending")]),
      )
      .where((eb) => eb.or([eb("lease_until", "is", null), eb("lease_until", "<", iso(now))]))
      .orderBy("next_check_at")
      .limit(limit)
      .$if(store.dialect === "postgres", (qb) => qb.forUpdate().skipLocked())
      .execute();
    if (rows.length) {
      await trx
        .updateTable("anon_reports")
        .set({ lease_until: iso(now + LEASE_MS) })
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

// ---- the runner ------------------------------------------------------------------------------------------

export interface RunnerOptions {
  store: Store;
  clock: Clock;
  logger: Logger;
  mailer: Mailer;
  snapshot: SnapshotDeps;
  /** The site's address, for the links in the e-mails. */
  publicUrl: string;
  /** Snapshots at once (each bounded by the fetch policy's timeouts). */
  concurrency: number;
  /** A snapshot job's whole time: past it, the job is failed with that reason. */
  timeoutMs: number;
  /** Between two checks of a report's domain. */
  reportIntervalMs: number;
  /** How often the runner looks for due work. */
  pollMs?: number;
}

/** Runs the anonymous utilities' jobs from the store: claims due work, does it, writes the outcome. */
export class AnonRunner {
  private readonly snapshots = new Set<Promise<void>>();
  private readonly reports = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | null = null;
  private halted = false;
  /** When the last sweep ran: sweeping is housekeeping, once a minute is enough (claims run every 500 ms). */
  private sweptAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly o: RunnerOptions) {}

  private now(): number {
    return this.o.clock.now().getTime();
  }

  start(): void {
    this.timer = setInterval(() => {
      if (!this.ticking) void this.guarded(this.claim());
    }, this.o.pollMs ?? 500);
  }

  /** No more claims; waits for the jobs under way (their leases would otherwise hold them for two minutes). */
  async stop(): Promise<void> {
    this.halted = true;
    clearInterval(this.timer);
    await this.ticking;
    await Promise.allSettled([...this.snapshots, ...this.reports]);
  }

  /** One pass: launches every due job it may, and resolves when those jobs are done (tests await it). */
  async tick(): Promise<void> {
    await this.guarded(this.claim());
    await Promise.allSettled([...this.snapshots, ...this.reports]);
  }

  private guarded(pass: Promise<void>): Promise<void> {
    this.ticking = pass
      .catch((err) => this.o.logger.error({ err }, "anonymous jobs: a pass failed"))
      .finally(() => {
        this.ticking = null;
      });
    return this.ticking;
  }

  /** Claims what is due, up to the free slots, and launches it without waiting for it. */
  private async claim(): Promise<void> {
    if (this.halted) return;
    const now = this.now();
    if (now - this.sweptAt >= SWEEP_EVERY_MS) {
      this.sweptAt = now;
      await this.sweep(now);
    }
    const snapshots = await claimSnapshots(this.o.store, now, this.o.concurrency - this.snapshots.size);
    for (const job of snapshots) this.launch(this.snapshots, this.snapshot(job.id, job.domain));
    const reports = await claimReports(this.o.store, now, REPORTS_AT_ONCE - this.reports.size);
    for (const report of reports) {
      this.launch(this.reports, report.state === "sending" ? this.send(report) : this.check(report));
    }
  }

  private launch(set: Set<Promise<void>>, job: Promise<void>): void {
    const tracked = job.catch((err) => this.o.logger.error({ err }, "anonymous job failed"));
    set.add(tracked);
    void tracked.finally(() => set.delete(tracked));
  }

  /** Unconfirmed reports past their link's life expire; finished snapshots past SNAPSHOT_KEEP_MS go. */
  private async sweep(now: number): Promise<void> {
    await this.o.store.db
      .updateTable("anon_reports")
      .set({ state: "expired" })
      .where("state", "=", "pending")
      .where("confirm_by", "<", iso(now))
      .execute();
    await this.o.store.db
      .deleteFrom("anon_snapshots")
      .where("status", "in", ["ready", "failed"])
      .where("finished_at", "<", iso(now - SNAPSHOT_KEEP_MS))
      .execute();
  }

  private async snapshot(id: string, domain: string): Promise<void> {
    const timedOut = `the snapshot took longer than ${this.o.timeoutMs} ms`;
    try {
      const facts = await within(takeSnapshot(domain, this.o.snapshot), this.o.timeoutMs, timedOut);
      await finishSnapshot(this.o.store, id, this.now(), { facts });
    } catch (err) {
      await finishSnapshot(this.o.store, id, this.now(), { error: (err as Error).message });
    }
  }

  /**
   * One check of a report's domain at its scheduled time, recorded with the next time in one transaction (a
   * check recorded twice after a restart is refused by the unique (report, time) key). The last one hands the
   * report on to be sent.
   */
  private async check(report: DueReport): Promise<void> {
    const at = report.next_check_at ?? iso(this.now());
    const { final } = await fetchSite(report.domain, this.o.snapshot);
    const ok = final.ok && (final.statusCode ?? 0) < 400;
    const error = ok ? null : (final.error ?? `HTTP ${final.statusCode}`);
    await this.o.store.transaction(async (trx) => {
      const row = await trx
        .selectFrom("anon_reports")
        .select(["state", "ends_at"])
        .where("id", "=", report.id)
        .executeTakeFirst();
      if (row?.state !== "active") return;
      await trx
        .insertInto("anon_report_checks")
        .values({
          report_id: report.id,
          at,
          ok: ok ? 1 : 0,
          status_code: final.statusCode,
          response_ms: final.ok ? final.responseTimeMs : null,
          error,
        })
        .onConflict((oc) => oc.columns(["report_id", "at"]).doNothing())
        .execute();
      const next = Date.parse(at) + this.o.reportIntervalMs;
      const last = next > Date.parse(row.ends_at ?? at);
      await trx
        .updateTable("anon_reports")
        .set(
          last
            ? { state: "sending", next_check_at: null, lease_until: null }
            : { next_check_at: iso(next), lease_until: null },
        )
        .where("id", "=", report.id)
        .execute();
    });
  }

  /**
   * Sends a finished report: its checks, and a last look at what serves the domain (certificate, registration,
   * CDN, CMS). Marked sent right after the mail server accepts it; a crash between the two is the only way to
   * send twice, and the Message-ID, made from the report's id, lets mail systems drop the copy.
   */
  private async send(report: DueReport): Promise<void> {
    const rows = await this.o.store.db
      .selectFrom("anon_report_checks")
      .selectAll()
      .where("report_id", "=", report.id)
      .orderBy("at")
      .execute();
    const facts = await takeSnapshot(report.domain, this.o.snapshot).catch(() => null);
    const checks: ReportCheck[] = rows.map((r) => ({
      at: r.at,
      ok: r.ok === 1,
      statusCode: r.status_code,
      responseTimeMs: r.response_ms,
      error: r.error,
    }));
    // The unsubscribe link needs the secret, which only the e-mails hold: a new one replaces the stored hash.
    const unsubscribeToken = newSecret();
    await this.o.store.db
      .updateTable("anon_reports")
      .set({ unsubscribe_hash: hashToken(unsubscribeToken) })
      .where("id", "=", report.id)
      .execute();
    const email = reportEmail(
      {
        domain: report.domain,
        startedAt: report.confirmed_at ?? rows[0]?.at ?? iso(this.now()),
        endedAt: report.ends_at ?? iso(this.now()),
        intervalMinutes: Math.round(this.o.reportIntervalMs / 60_000),
        checks,
        ssl: facts ? facts.ssl : null,
        domainMeta: facts ? facts.domainMeta : null,
        cdn: facts?.cdn ?? "None",
        cms: facts?.cms ?? "Unknown",
      },
      unsubscribeUrl(this.o.publicUrl, unsubscribeToken),
    );
    await this.o.mailer.send({
      to: report.email,
      subject: email.subject,
      text: email.text,
      html: email.html,
      headers: { ...email.headers, "Message-ID": `<report-${report.id}@porchlight>` },
    });
    await this.o.store.db
      .updateTable("anon_reports")
      .set({ state: "sent", sent_at: iso(this.now()), lease_until: null })
      .where("id", "=", report.id)
      .where("state", "=", "sending")
      .execute();
    this.o.logger.info({ report: report.id }, "24-hour report sent");
  }
}

export const confirmUrl = (publicUrl: string, token: string) =>
  `${publicUrl}/public/anon/domain-report-24h/confirm?token=${token}`;
export const unsubscribeUrl = (publicUrl: string, token: string) =>
  `${publicUrl}/public/anon/domain-report-24h/unsubscribe?token=${token}`;
