import type { Context } from "hono";
import { passwordFingerprint, sameFingerprint, verifyPassword } from "../accounts/secrets.ts";
import type { Clock } from "../clock.ts";
import type { Config } from "../config.ts";
import type { ErrorPage } from "../contract/common.ts";
import type { PublicStatusPage } from "../contract/status-page.ts";
import type { Store } from "../store/store.ts";
import type { PageView } from "../views/page-views.ts";
import { principalFrom } from "./auth.ts";
import { clientAddress, clientKey } from "./client-address.ts";
import { ApiError } from "./errors.ts";
import { header } from "./headers.ts";
import { type Limiter, type LimitRule, WorkBudget } from "./rate-limit.ts";

export const PASSWORD_HEADER = "x-status-page-password";
/** Longer candidates are wrong without spending scrypt on them (stored passwords are at most 128 characters). */
const MAX_CANDIDATE_BYTES = 1024;
/** Stored password hashes whose verified passwords are remembered; the least recently used are forgotten. */
const REMEMBERED_PAGES = 1000;
/** Password checks one page may have waiting for a turn, and all pages together. */
const PAGE_QUEUE = 2;
const QUEUE = 64;
/** A check that cannot expect its turn within this time is answered 429 at once. */
const MAX_WAIT_MS = 2000;
/** A page that received a wrong password within this time shares the suspect half of the budget. */
const SUSPECT_MS = 60_000;
/** A client the budget refused that comes back within this time asks to go first; so many are remembered. */
const RETURN_MS = 120_000;
const REMEMBERED_REFUSALS = 10_000;

/**
 * What every answer of a password or private page carries, refusals included: never stored by any cache, and
 * dependent on the credential headers. CORS does not vary (any origin, no credentials), so Origin is not named.
 */
export const PROTECTED_HEADERS = {
  "Cache-Control": "private, no-store",
  Vary: "Authorization, Cookie, X-Status-Page-Password",
} as const;

/** Checks a candidate password against a stored hash. */
export type PasswordVerifier = (candidate: string, stored: string) => Promise<boolean>;

/** How passwords are checked; tests count the hashes and move the work budget's clock by hand. */
export interface PasswordCheckDeps {
  /** Default scrypt's verifyPassword. */
  verify?: PasswordVerifier;
  /** The work budget's clock in milliseconds (default performance.now). */
  now?: () => number;
}

/** What the access check needs: the store and clock for tokens, the limits, and the app's limiter. */
export interface PageAccessDeps {
  store: Store;
  clock: Clock;
  config: Pick<
    Config,
    "publicUrl" | "trustedProxies" | "passwordAttempts" | "passwordWindowSeconds" | "passwordHashes"
  >;
  /** The app's limiter: PostgreSQL's when processes share a database, so wrong passwords count across them. */
  limiter: Limiter;
  passwordChecks?: PasswordCheckDeps;
}

/**
 * What a password page's prompt shows (its name, logo and accent, as its hosted prompt does), read once per view
 * from the view's serialized page. Only a password page's 401 carries it: a private page's name is for members.
 */
const prompts = new WeakMap<PageView, ErrorPage>();
function promptPage(view: PageView): ErrorPage {
  let page = prompts.get(view);
  if (!page) {
    const { name, logo, theme } = JSON.parse(new TextDecoder().decode(view.page.bytes)) as PublicStatusPage;
    page = { name, logo, accentColor: theme.accentColor };
    prompts.set(view, page);
  }
  return page;
}

const passwordRequired = (view: PageView) =>
  new ApiError(
    401,
    "password_required",
    "This status page is password-protected: send its password in the X-Status-Page-Password header",
    undefined,
    PROTECTED_HEADERS,
    promptPage(view),
  );
const passwordIncorrect = (view: PageView) =>
  new ApiError(401, "password_incorrect", "The password is incorrect", undefined, PROTECTED_HEADERS, promptPage(view));
const signInRequired = () =>
  new ApiError(
    401,
    "sign_in_required",
    "This status page is private: sign in with a workspace member's token",
    undefined,
    {
      ...PROTECTED_HEADERS,
      "WWW-Authenticate": 'Bearer realm="porchlight"',
    },
  );
const refused = (seconds: number, why: string) =>
  new ApiError(429, "rate_limited", `Rate Limited: ${why}; try again in ${seconds} s`, undefined, {
    ...PROTECTED_HEADERS,
    "Retry-After": String(seconds),
  });
const tooManyAttempts = (resetSeconds: number) =>
  refused(Math.max(1, resetSeconds), "too many wrong passwords for this page");
const tooBusy = (seconds: number) => refused(seconds, "too many password checks are under way");

/** Header values arrive as Latin-1; the password is compared as the UTF-8 text the client typed. */
function headerText(raw: string): string {
  return Buffer.from(raw, "latin1").toString("utf8");
}

type Outcome = { kind: "right" } | { kind: "wrong" } | { kind: "busy"; retryAfterSeconds: number };
const RIGHT: Outcome = { kind: "right" };
const WRONG: Outcome = { kind: "wrong" };

/**
 * Password checks within a budget of scrypt work (see WorkBudget): a candidate equal to a password verified in
 * this process since its hash was stored needs no scrypt at all; the same candidate for the same page while its
 * check runs waits for that check instead of starting another; any other candidate waits for a turn of its page,
 * or is not checked at all (busy).
 */
class PasswordChecks {
  /** Fingerprints of verified passwords by stored hash: a new password (a new salt) starts afresh. */
  private readonly verified = new Map<string, Buffer[]>();
  private readonly running = new Map<string, Promise<Outcome>>();

  constructor(
    private readonly verify: PasswordVerifier,
    private readonly budget: WorkBudget,
  ) {}

  /** `first`: the client was refused for the load before and came back (see WorkBudget). */
  check(view: PageView, candidate: string, first: boolean): Promise<Outcome> {
    const stored = view.passwordHash;
    if (stored === null || Buffer.byteLength(candidate) > MAX_CANDIDATE_BYTES) return Promise.resolve(WRONG);
    const fingerprint = passwordFingerprint(candidate);
    if (this.known(stored, fingerprint)) return Promise.resolve(RIGHT);
    const id = `${stored} ${fingerprint.toString("base64")}`;
    let outcome = this.running.get(id);
    if (!outcome) {
      outcome = this.hash(String(view.pageId), stored, candidate, fingerprint, first).finally(() =>
        this.running.delete(id),
      );
      this.running.set(id, outcome);
    }
    return outcome;
  }

  private known(stored: string, fingerprint: Buffer): boolean {
    const known = this.verified.get(stored);
    if (!known?.some((f) => sameFingerprint(f, fingerprint))) return false;
    this.verified.delete(stored);
    this.verified.set(stored, known);
    return true;
  }

  private async hash(
    page: string,
    stored: string,
    candidate: string,
    fingerprint: Buffer,
    first: boolean,
  ): Promise<Outcome> {
    const turn = await this.budget.turn(page, first);
    if (!turn.granted) return { kind: "busy", retryAfterSeconds: turn.retryAfterSeconds };
    let right = false;
    try {
      right = await this.verify(candidate, stored);
    } finally {
      turn.done(!right);
    }
    if (!right) return WRONG;
    const known = this.verified.get(stored) ?? [];
    if (known.length < 8) known.push(fingerprint);
    this.verified.delete(stored);
    this.verified.set(stored, known);
    if (this.verified.size > REMEMBERED_PAGES) this.verified.delete(this.verified.keys().next().value as string);
    return RIGHT;
  }
}

/**
 * The one access check every public status-page read goes through. Public: anyone. Private: a token of the
 * page's workspace. Password: the exact password in the header. Wrong passwords are limited per page and client
 * (IPv6 by /64) on the app's limiter, shared by every process on one PostgreSQL database; scrypt's work is
 * limited per process (PORCHLIGHT_PASSWORD_HASHES_*), and an attempt beyond that work is answered 429 before
 * anything is hashed. Every refusal carries PROTECTED_HEADERS.
 */
export function pageAccess({ store, clock, config, limiter, passwordChecks = {} }: PageAccessDeps) {
  const rule: LimitRule = {
    name: "password",
    points: config.passwordAttempts,
    windowSeconds: config.passwordWindowSeconds,
  };
  const { inFlight, perSecond, pagePerSecond } = config.passwordHashes;
  const now = passwordChecks.now ?? (() => performance.now());
  const budget = new WorkBudget({
    inFlight,
    perSecond,
    // At most half the slots for one page, so that a flooded page leaves the others a turn.
    keyInFlight: Math.max(1, Math.floor(inFlight / 2)),
    keyPerSecond: pagePerSecond,
    keyQueue: PAGE_QUEUE,
    queue: QUEUE,
    maxWaitMs: MAX_WAIT_MS,
    suspectMs: SUSPECT_MS,
    now,
  });
  const checks = new PasswordChecks(passwordChecks.verify ?? verifyPassword, budget);
  /**
   * When the budget last refused each client (by page and client key). A visitor told to come back later does,
   * and then goes before the flood's new arrivals; a flood from ever new addresses never comes back. An attacker
   * that does come back is counted like anyone, so its returns are bounded by the attempts limit.
   */
  const refusedAt = new Map<string, number>();
  const comesBack = (key: string): boolean => {
    const at = refusedAt.get(key);
    if (at === undefined) return false;
    refusedAt.delete(key);
    return now() - at < RETURN_MS;
  };
  const refusedNow = (key: string): void => {
    refusedAt.delete(key);
    refusedAt.set(key, now());
    if (refusedAt.size > REMEMBERED_REFUSALS) refusedAt.delete(refusedAt.keys().next().value as string);
  };
  /** `password`: the candidate a form posted, in place of the header's. */
  return async function check(c: Context, view: PageView, password?: string): Promise<void> {
    if (view.visibility === "public") return;
    if (view.visibility === "private") {
      const principal = await principalFrom(c, store, clock, config.publicUrl);
      if (principal === null || principal === "invalid" || principal.workspaceId !== view.workspaceId) {
        throw signInRequired();
      }
      return;
    }
    const key = `${view.pageId}|${clientKey(clientAddress(c, config.trustedProxies))}`;
    const raw = password ?? header(c, PASSWORD_HEADER);
    if (raw === undefined || raw === "") {
      const seen = await limiter.peek(rule, key);
      if (!seen.allowed) throw tooManyAttempts(seen.resetSeconds);
      throw passwordRequired(view);
    }
    // Every attempt is counted before it is judged, so attempts sent together cannot all slip past the limit,
    // not even against the verified passwords remembered in memory (that would be a free oracle). One that turns
    // out right, or that the work budget refused before checking it, gives its point back.
    const counted = await limiter.consume(rule, key);
    if (!counted.allowed) throw tooManyAttempts(counted.resetSeconds);
    const outcome = await checks.check(view, headerText(raw), comesBack(key));
    if (outcome.kind === "wrong") throw passwordIncorrect(view);
    await limiter.refund(rule, key);
    if (outcome.kind === "busy") {
      refusedNow(key);
      throw tooBusy(outcome.retryAfterSeconds);
    }
  };
}
