/**
 * Tells a page's subscribers: fans each notice (written with the incident or maintenance change that caused it, or
 * by the sweep that sees one-off maintenance begin and end) out to one delivery per subscriber who may read it and
 * chose a service it touches, then delivers those and the sign-ups' confirmations as the alert sender does: claimed with a lease, retried with backoff until the delivery window
 * closes. It runs beside the alert sender with slots of its own, so a fan-out to many subscribers never waits in
 * front of an owner's alert. A hard bounce (a 5xx reply) suspends the subscriber at once, FAILURES_TO_SUSPEND
 * failures in a row too; the owner sees why.
 */
import { randomBytes } from "node:crypto";
import type { Clock } from "../clock.ts";
import { storableText } from "../contract/common.ts";
import { FAILURES_TO_SUSPEND, isHookKind } from "../contract/subscribers.ts";
import type { Logger } from "../log.ts";
import type { Store } from "../store/store.ts";
import type { DeliveryClaim, DeliveryOutcome, NoticeContent } from "../store/subscribers.ts";
import { DELIVERY_WINDOW_MS, retryDelayMs } from "./backoff.ts";
import type { AlertMailer, DeliveryDeps } from "./deliver.ts";
import { deliver, MAIL_TIMEOUT_MS } from "./deliver.ts";
import { confirmationEmail, type NoticeEmail, noticeEmail } from "./notice-emails.ts";
import { type HookSettings, hookRequest } from "./notice-hooks.ts";
import type { NoticeWords } from "./notice-words.ts";
import { KEEP_LOG_MS, PRUNE_EVERY_MS } from "./sender.ts";

export interface NoticeSenderDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
  mailer: AlertMailer;
  /** A link's token for a nonce (accounts/sealed.ts's SecretBox.token). */
  token: (nonce: string) => string;
  /** PORCHLIGHT_PUBLIC_URL: the links' origin. */
  publicUrl: string;
  /** The messages' language: the pages' (PORCHLIGHT_PAGE_LOCALE); English unless told. */
  words?: NoticeWords;
  /** Opens a URL subscriber's sealed settings (accounts/sealed.ts's SecretBox.open). */
  unseal: (sealed: string) => string;
  /** How URL subscribers are posted to (deliver.ts): private receivers only where the operator allows them. */
  delivery: Omit<DeliveryDeps, "mailer">;
  /** Messages under way at once (default 8). */
  concurrency?: number;
  leaseMs?: number;
  random?: () => number;
}

const iso = (ms: number) => new Date(ms).toISOString();
const STOP_WAIT_MS = 3000;
/**
 * How often a sender looks for maintenance that began or ended (SubscriberQueries.sweepMaintenance) and for the
 * engine's resolutions whose hold has passed (IncidentQueries.tellHeldResolutions).
 */
export const SWEEP_EVERY_MS = 15_000;

/** What came of sending one message: sent at all (false: what it told of is gone), and the refusal if any. */
interface Outcome {
  sent: boolean;
  error: string | null;
  bounced: boolean;
}

/** The links of a subscriber's messages. */
export function subscriberUrls(publicUrl: string, token: string) {
  return {
    confirmUrl: `${publicUrl}/subscriptions/confirm?token=${token}`,
    manageUrl: `${publicUrl}/subscriptions/manage?token=${token}`,
    unsubscribeUrl: `${publicUrl}/subscriptions/unsubscribe?token=${token}`,
  };
}

/**
 * Whether a send failed for good because of the address: the mail server refused the recipient with a 5xx reply
 * (nodemailer's EENVELOPE). A refused login, sender or message, a timeout or a server away are the operator's to
 * fix, not the subscriber's: those are retried, and never suspend anyone at once.
 */
const hardBounce = (error: unknown) => {
  const e = error as { permanent?: unknown; code?: unknown } | null;
  return e?.permanent === true && e.code === "EENVELOPE";
};

/** A send's error as the owner reads it: the mail server's reply, without the server's address. */
const reasonOf = (error: unknown) =>
  storableText(String((error as Error).message ?? error)).replace(
    /^SMTP send via \S+ failed(?: \[\w+\])?(?: \([^)]*\))?: /,
    "",
  );

export class NoticeSender {
  readonly owner = `notices_${randomBytes(6).toString("hex")}`;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #stopped = true;
  #running: Promise<void> | undefined;
  readonly #notices = new Map<number, NoticeContent | undefined>();
  #sweptAt = Number.NEGATIVE_INFINITY;
  #prunedAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly deps: NoticeSenderDeps) {}

  /** Fans out and delivers every `everyMs` until stop(); a pass that finds work goes on at once. */
  start(everyMs = 1000): void {
    this.#stopped = false;
    const loop = () => {
      if (this.#stopped) return;
      this.#running = this.tick()
        .then((worked) => worked > 0)
        .catch((error: unknown) => {
          this.deps.logger.error({ err: error }, "telling subscribers failed");
          return false;
        })
        .then((more) => {
          this.#running = undefined;
          if (!this.#stopped) this.#timer = setTimeout(loop, more ? 0 : everyMs);
        });
    };
    loop();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([this.#running, new Promise((resolve) => (timer = setTimeout(resolve, STOP_WAIT_MS)))]);
    clearTimeout(timer);
  }

  /**
   * One pass, as tests drive it: fans out one step of the waiting notices, then claims and delivers as many due
   * messages as may run at once. Returns how many steps and messages it handled.
   */
  async tick(): Promise<number> {
    const { store, clock } = this.deps;
    let worked = 0;
    const now = clock.now().getTime();
    if (now - this.#prunedAt >= PRUNE_EVERY_MS || now < this.#prunedAt) {
      this.#prunedAt = now;
      await store.subscribers.prune(iso(now - KEEP_LOG_MS));
    }
    if (now - this.#sweptAt >= SWEEP_EVERY_MS || now < this.#sweptAt) {
      this.#sweptAt = now;
      worked += await store.subscribers.sweepMaintenance(iso(now));
      worked += await store.incidents.tellHeldResolutions(iso(now));
    }
    if (await store.subscribers.anyToFanOut()) {
      if (await store.subscribers.fanOutStep(iso(now))) worked++;
    }
    if (!(await store.subscribers.anyDue(iso(now)))) return worked;
    // A notice's content is read once per pass: an update corrected meanwhile is sent as it reads now.
    this.#notices.clear();
    const claimed = await store.subscribers.claimDue({
      owner: this.owner,
      now: iso(now),
      leaseUntil: iso(now + (this.deps.leaseMs ?? 60_000)),
      limit: this.deps.concurrency ?? 8,
    });
    const outcomes = await Promise.all(claimed.map((claim) => this.#deliverOrHandBack(claim)));
    // The pass's outcomes in one transaction: a large fan-out costs a few statements per pass, not per message.
    const done = outcomes.filter((o) => o !== undefined);
    try {
      const recorded = await store.subscribers.finishAll(done);
      for (const o of done) {
        if (!recorded.has(o.id)) {
          this.deps.logger.warn({ deliveryId: o.id }, "a subscriber message's claim expired before it was recorded");
        }
      }
    } catch (error) {
      // One by one, so that what was sent is recorded as sent (handing it back would send it again).
      this.deps.logger.error({ err: error }, "subscriber messages could not be recorded together");
      for (const o of done) {
        await store.subscribers.finishOne(o).catch((cause: unknown) => {
          this.deps.logger.error({ err: cause, deliveryId: o.id }, "a subscriber message could not be recorded");
        });
      }
    }
    return worked + claimed.length;
  }

  /** A claim's outcome, sent; undefined when it could not be made (the claim handed back for later). */
  async #deliverOrHandBack(claim: DeliveryClaim): Promise<DeliveryOutcome | undefined> {
    try {
      return await this.#deliver(claim);
    } catch (error) {
      this.deps.logger.error({ err: error, deliveryId: claim.id }, "a subscriber's message could not be sent");
      await this.#handBack(claim);
      return undefined;
    }
  }

  async #handBack(claim: DeliveryClaim): Promise<void> {
    const later = iso(this.deps.clock.now().getTime() + retryDelayMs(claim.attempts + 1, this.#random()));
    await this.deps.store.subscribers.release(claim.id, this.owner, later).catch(() => {});
  }

  #random(): number {
    return (this.deps.random ?? Math.random)();
  }

  async #content(noticeId: number): Promise<NoticeContent | undefined> {
    if (!this.#notices.has(noticeId)) {
      this.#notices.set(noticeId, await this.deps.store.subscribers.noticeContent(noticeId));
    }
    return this.#notices.get(noticeId);
  }

  /** The message of a claim: its confirmation, or its notice; undefined when what it told of is gone. */
  async #message(claim: DeliveryClaim): Promise<NoticeEmail | undefined> {
    const { publicUrl, token, store } = this.deps;
    const links = subscriberUrls(publicUrl, token(claim.manageNonce));
    if (claim.confirmNonce !== null) {
      const page = await store.subscribers.pageById(claim.pageId);
      if (!page) return undefined;
      return confirmationEmail({
        pageName: page.name,
        accentColor: page.accentColor,
        pageUrl: pageUrl(publicUrl, page),
        confirmUrl: subscriberUrls(publicUrl, token(claim.confirmNonce)).confirmUrl,
        ...(this.deps.words ? { words: this.deps.words } : {}),
      });
    }
    const content = await this.#content(claim.noticeId);
    if (!content) return undefined;
    const host = new URL(publicUrl).hostname;
    // One incident's notices thread under its first; one maintenance occurrence's under its announcement.
    const thread =
      content.kind === "incident"
        ? `<incident-${content.incident.id}.${claim.subscriberId}@${host}>`
        : `<maintenance-${content.window.id}-${Date.parse(content.startsAt)}.${claim.subscriberId}@${host}>`;
    const first = content.event === "published" || content.event === "maintenance_scheduled";
    return noticeEmail(
      content,
      { pageUrl: pageUrl(publicUrl, content.page), manageUrl: links.manageUrl, unsubscribeUrl: links.unsubscribeUrl },
      {
        messageId: first ? thread : `<notice-${claim.noticeId}.${claim.subscriberId}@${host}>`,
        thread,
        eventId: `notice-${claim.noticeId}`,
        listId: `${content.page.name.replace(/[<>"\\\r\n]/g, "")} <${content.page.slug}.status.${host}>`,
      },
      this.deps.words,
    );
  }

  /** Mails a claim's message; what came of it. */
  async #mail(claim: DeliveryClaim): Promise<Outcome> {
    const message = await this.#message(claim);
    if (!message) return { sent: false, error: null, bounced: false };
    let timer: ReturnType<typeof setTimeout> | undefined;
    // Well within the claim, as alerts' deliveries are: an outcome recorded after the lease is lost.
    const bound = Math.min(MAIL_TIMEOUT_MS, (this.deps.leaseMs ?? 60_000) / 2);
    try {
      await Promise.race([
        this.deps.mailer.send({ to: claim.address, ...message }),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`the mail server did not accept it within ${bound / 1000} s`)),
            bound,
          );
        }),
      ]);
      return { sent: true, error: null, bounced: false };
    } catch (cause) {
      return { sent: true, error: reasonOf(cause), bounced: hardBounce(cause) };
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Posts a claim's message to a URL subscriber: the test that confirms it, or a notice. A receiver that answers
   * 404 or 410 is gone (a deleted Slack, Discord or Teams webhook; a chat's 401 or 403 too, a revoked token): that
   * ends the subscription at once, as a hard bounce does; any other refusal is retried.
   */
  async #post(claim: DeliveryClaim): Promise<Outcome> {
    const { publicUrl, token, store, unseal, delivery, clock, mailer } = this.deps;
    if (!isHookKind(claim.kind) || claim.secret === null) return { sent: false, error: null, bounced: false };
    let settings: HookSettings;
    try {
      settings = JSON.parse(unseal(claim.secret)) as HookSettings;
    } catch {
      // Sealed under another key (PORCHLIGHT_SECRET_KEY changed) or damaged: no retry can send it.
      return {
        sent: true,
        error: "the subscription's settings cannot be opened with this server's key",
        bounced: true,
      };
    }
    const links = subscriberUrls(publicUrl, token(claim.manageNonce));
    let request: ReturnType<typeof hookRequest>;
    if (claim.confirmNonce !== null) {
      const page = await store.subscribers.pageById(claim.pageId);
      if (!page) return { sent: false, error: null, bounced: false };
      request = hookRequest(
        claim.kind,
        { kind: "test", eventId: `test-${claim.id}`, page: { id: claim.pageId, ...page } },
        settings,
        { pageUrl: pageUrl(publicUrl, page), manageUrl: links.manageUrl, unsubscribeUrl: links.unsubscribeUrl },
        `subscriber-delivery-${claim.id}`,
        clock.now().getTime(),
        this.deps.words,
      );
    } else {
      const content = await this.#content(claim.noticeId);
      if (!content) return { sent: false, error: null, bounced: false };
      request = hookRequest(
        claim.kind,
        { kind: "notice", eventId: `notice-${claim.noticeId}`, content },
        settings,
        { pageUrl: pageUrl(publicUrl, content.page), manageUrl: links.manageUrl, unsubscribeUrl: links.unsubscribeUrl },
        `subscriber-delivery-${claim.id}`,
        clock.now().getTime(),
        this.deps.words,
      );
    }
    const result = await deliver(request, { ...delivery, mailer });
    if (result.ok) return { sent: true, error: null, bounced: false };
    // A chat's webhook answers 401 or 403 once its token is revoked; any receiver 404 or 410 once it is deleted.
    const gone = claim.kind === "webhook" ? [404, 410] : [401, 403, 404, 410];
    return {
      sent: true,
      error: result.error ?? "the receiver did not accept it",
      bounced: result.statusCode !== null && gone.includes(result.statusCode),
    };
  }

  async #deliver(claim: DeliveryClaim): Promise<DeliveryOutcome> {
    const { clock } = this.deps;
    const hook = isHookKind(claim.kind);
    const { sent, error, bounced } = hook ? await this.#post(claim) : await this.#mail(claim);
    const at = clock.now().getTime();
    const attempts = claim.attempts + 1;
    const expired = at - Date.parse(claim.createdAt) >= DELIVERY_WINDOW_MS;
    // What it told of is gone (the incident deleted): nothing to send, not a failure of the subscriber's.
    const state = error === null ? "delivered" : bounced || expired ? "failed" : "pending";
    return {
      id: claim.id,
      owner: this.owner,
      subscriberId: claim.subscriberId,
      state,
      attempts,
      nextAttemptAt: state === "pending" ? iso(at + retryDelayMs(attempts, this.#random())) : null,
      at: iso(at),
      error: sent ? error : "what it told of was deleted",
      suspendAfter: FAILURES_TO_SUSPEND,
      suspendNow: bounced,
      // A URL subscription holds once its test message is accepted.
      confirms: hook && sent && claim.confirmNonce !== null,
    };
  }
}

/** Where a page is read: its custom domain's root, else its path on the server. */
export function pageUrl(publicUrl: string, page: { slug: string; customDomain: string | null }): string {
  return page.customDomain ? `https://${page.customDomain}/` : `${publicUrl}/${page.slug}`;
}
