import type { Context } from "hono";
import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";
import { z } from "zod";
import { passwordFingerprint, sameFingerprint, verifyPassword } from "../accounts/secrets.ts";
import type { Config } from "../config.ts";
import { PublicIncidents, PublicItems, PublicStatusPage } from "../contract/status-page.ts";
import type { Store } from "../store/store.ts";
import { principalFrom } from "./auth.ts";
import { clientAddress, clientKey } from "./client-address.ts";
import { ApiError, notFound } from "./errors.ts";
import { header, matchesEtag } from "./http.ts";
import type { Body, PageView, PageViews } from "./page-views.ts";
import { route } from "./route.ts";
import type { Clock } from "./time.ts";

export const PASSWORD_HEADER = "x-status-page-password";
/** Longer candidates are wrong without spending scrypt on them (stored passwords are at most 128 characters). */
const MAX_CANDIDATE_BYTES = 1024;

export interface PublicPageDeps {
  store: Store;
  clock: Clock;
  views: PageViews;
  config: Pick<Config, "trustedProxies" | "passwordAttempts" | "passwordWindowSeconds">;
}

const passwordRequired = () =>
  new ApiError(
    401,
    "password_required",
    "This status page is password-protected: send its password in the X-Status-Page-Password header",
  );
const passwordIncorrect = () => new ApiError(401, "password_incorrect", "The password is incorrect");
const signInRequired = () =>
  new ApiError(
    401,
    "sign_in_required",
    "This status page is private: sign in with a workspace member's token",
    undefined,
    {
      "WWW-Authenticate": 'Bearer realm="porchlight"',
    },
  );
const tooManyAttempts = (ms: number) => {
  const seconds = Math.max(1, Math.ceil(ms / 1000));
  return new ApiError(
    429,
    "rate_limited",
    `Rate Limited: too many wrong passwords for this page; try again in ${seconds} s`,
    undefined,
    { "Retry-After": String(seconds) },
  );
};

/** Header values arrive as Latin-1; the password is compared as the UTF-8 text the client typed. */
function headerText(raw: string): string {
  return Buffer.from(raw, "latin1").toString("utf8");
}

/**
 * The one access check every public status-page read goes through. Public: anyone. Password: the exact password
 * in the header, with wrong attempts limited per page and client. Private: a token of the page's workspace.
 */
export function pageAccess({ store, clock, config }: Omit<PublicPageDeps, "views">) {
  const limiter = new RateLimiterMemory({
    points: config.passwordAttempts,
    duration: config.passwordWindowSeconds,
  });
  return async function check(c: Context, view: PageView): Promise<void> {
    if (view.visibility === "public") return;
    if (view.visibility === "private") {
      const principal = await principalFrom(c, store, clock);
      if (principal === null || principal === "invalid" || principal.workspaceId !== view.workspaceId) {
        throw signInRequired();
      }
      return;
    }
    const key = `${view.pageId}|${clientKey(clientAddress(c, config.trustedProxies))}`;
    const raw = header(c, PASSWORD_HEADER);
    if (raw === undefined || raw === "") {
      const seen = await limiter.get(key);
      if (seen && seen.consumedPoints >= config.passwordAttempts) throw tooManyAttempts(seen.msBeforeNext);
      throw passwordRequired();
    }
    // Every attempt is counted before it is checked, so attempts sent together cannot all slip past the limit;
    // a right one gives its point back.
    try {
      await limiter.consume(key);
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) throw tooManyAttempts(rejection.msBeforeNext);
      throw rejection;
    }
    if (await matches(view, headerText(raw))) {
      await limiter.reward(key);
      return;
    }
    throw passwordIncorrect();
  };
}

async function matches(view: PageView, candidate: string): Promise<boolean> {
  if (view.passwordHash === null || Buffer.byteLength(candidate) > MAX_CANDIDATE_BYTES) return false;
  const fingerprint = passwordFingerprint(candidate);
  if (view.verified.some((f) => sameFingerprint(f, fingerprint))) return true;
  if (!(await verifyPassword(candidate, view.passwordHash))) return false;
  if (view.verified.length < 8) view.verified.push(fingerprint);
  return true;
}

function send(c: Context, part: Body): Response {
  const headers = part.headers;
  // c.body keeps the headers middleware already set (CORS, request id) on node-server's fast response path.
  if (matchesEtag(header(c, "if-none-match"), part.etag)) return c.body(null, 304, headers);
  if (c.req.method === "HEAD") return c.body(null, 200, headers);
  return c.body(part.bytes, 200, headers);
}

const SlugParams = z.object({ slug: z.string().meta({ description: "The status page's slug", example: "acme" }) });

export function publicPageRoutes(deps: PublicPageDeps) {
  const check = pageAccess(deps);
  const parts = [
    { suffix: "", key: "page", schema: PublicStatusPage, what: "The status page (spec 2.6, plus theme and display)" },
    { suffix: "/items", key: "items", schema: PublicItems, what: "The page's visible items" },
    { suffix: "/incidents", key: "incidents", schema: PublicIncidents, what: "The page's incidents, newest first" },
  ] as const;
  return ["/public/v1", "/api"].flatMap((prefix) =>
    parts.map((part) =>
      route({
        method: "get",
        path: `${prefix}/status-page/{slug}${part.suffix}`,
        operationId: `getStatusPage${part.key[0]?.toUpperCase()}${part.key.slice(1)}${prefix === "/api" ? "Alias" : ""}`,
        summary: `${part.what}${prefix === "/api" ? " (alias of /public/v1)" : ""}`,
        description:
          "Public pages: no credentials, ETag and 304. Password pages: X-Status-Page-Password, exact and case-sensitive; answers are private, no-store; repeated wrong passwords from one client answer 429 with Retry-After. Private pages: a workspace member's bearer token. CORS is open to any origin.",
        tag: "Public status pages",
        access: "page",
        rateLimit: "attempts",
        params: SlugParams,
        response: {
          status: 200,
          description: part.what,
          schema: part.schema,
          headers: ["ETag", "StatusPageCacheControl", "StatusPageVary"],
        },
        errors: [401, 404, 429],
        async handler({ params, c }) {
          const view = params.slug.length <= 64 ? await deps.views.get(params.slug) : null;
          if (!view) throw notFound("Status page");
          await check(c, view);
          return send(c, view[part.key]);
        },
      }),
    ),
  );
}
