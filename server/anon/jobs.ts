import { randomBytes } from "node:crypto";
import { hashToken } from "../accounts/secrets.ts";
import type { Clock } from "../clock.ts";
import type { DomainFacts } from "../contract/anon.ts";
import type { Logger } from "../log.ts";
import type { DueReport } from "../store/anon-jobs.ts";
import type { Store } from "../store/store.ts";
import { REPORT_HOURS, type ReportCheck, reportEmail } from "./emails.ts";
import { within } from "./fetcher.ts";
import type { Mailer } from "./mail.ts";
import { fetchSite, type SnapshotDeps, takeSnapshot } from "./snapshot.ts";

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
  return store.anon.requestSnapshot({ id: newPublicId(), domain, now: iso(now), readySince: iso(now - reuseMs) });
}

export async function getSnapshot(store: Store, id: string) {
  return store.anon.getSnapshot(id);
}

async function claimSnapshots(store: Store, now: number, limit: number) {
  if (limit <= 0) return [];
  return store.anon.claimSnapshots({
    now: iso(now),
    limit,
    leaseUntil: iso(now + LEASE_MS),
    maxAttempts: SNAPSHOT_ATTEMPTS,
    exhausted: "the snapshot was interrupted too many times",
  });
}

async function finishSnapshot(store: Store, id: string, now: number, outcome: { facts?: DomainFacts; error?: string }) {
  await store.anon.finishSnapshot(id, iso(now), {
    result: outcome.facts ? JSON.stringify(outcome.facts) : null,
    error: outcome.error ?? null,
  });
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
  const id = newPublicId();
  const confirmToken = newSecret();
  const blocked = await store.anon.requestReport(
    {
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
    },
    iso(now - CONFIRM_HOURS * HOUR_MS),
  );
  if (blocked) return { retryAfterMs: Date.parse(blocked.pendingSince) + CONFIRM_HOURS * HOUR_MS - now };
  return { id, confirmToken };
}

/** Forgets a report whose confirmation e-mail could not be sent: nothing half-made stays behind. */
export async function dropReport(store: Store, id: string): Promise<void> {
  await store.anon.dropReport(id);
}

export async function reportByConfirmToken(store: Store, token: string) {
  return store.anon.reportByConfirmHash(hashToken(token));
}

export async function reportByUnsubscribeToken(store: Store, token: string) {
  return store.anon.reportByUnsubscribeHash(hashToken(token));
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
  const confirmed = await store.anon.confirmReport(row.id, {
    confirmedAt: iso(now),
    firstCheckAt: iso(now),
    endsAt: iso(now + REPORT_HOURS * HOUR_MS),
  });
  return confirmed ? "confirmed" : "already";
}

/** Stops a report at any point before it is sent (the unsubscribe link, one click). */
export async function cancelReport(store: Store, token: string): Promise<"cancelled" | "sent" | "unknown"> {
  const row = await reportByUnsubscribeToken(store, token);
  if (!row) return "unknown";
  if (row.state === "sent") return "sent";
  await store.anon.cancelReport(row.id);
  return "cancelled";
}

async function claimReports(store: Store, now: number, limit: number): Promise<DueReport[]> {
  if (limit <= 0) return [];
  return store.anon.claimReports({ now: iso(now), limit, leaseUntil: iso(now + LEASE_MS) });
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
    await this.o.store.anon.expireReports(iso(now));
    await this.o.store.anon.deleteSnapshots(iso(now - SNAPSHOT_KEEP_MS));
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
    await this.o.store.anon.recordReportCheck(
      {
        report_id: report.id,
        at,
        ok: ok ? 1 : 0,
        status_code: final.statusCode,
        response_ms: final.ok ? final.responseTimeMs : null,
        error,
      },
      iso(Date.parse(at) + this.o.reportIntervalMs),
    );
  }

  /**
   * Sends a finished report: its checks, and a last look at what serves the domain (certificate, registration,
   * CDN, CMS). Marked sent right after the mail server accepts it; a crash between the two is the only way to
   * send twice, and the Message-ID, made from the report's id, lets mail systems drop the copy.
   */
  private async send(report: DueReport): Promise<void> {
    const rows = await this.o.store.anon.reportChecks(report.id);
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
    await this.o.store.anon.setUnsubscribeHash(report.id, hashToken(unsubscribeToken));
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
    await this.o.store.anon.markSent(report.id, iso(this.now()));
    this.o.logger.info({ report: report.id }, "24-hour report sent");
  }
}

export const confirmUrl = (publicUrl: string, token: string) =>
  `${publicUrl}/public/anon/domain-report-24h/confirm?token=${token}`;
export const unsubscribeUrl = (publicUrl: string, token: string) =>
  `${publicUrl}/public/anon/domain-report-24h/unsubscribe?token=${token}`;
