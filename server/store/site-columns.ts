import type { Insertable } from "kysely";
import type { z } from "zod";
import {
  DNS_DEFAULTS,
  type DnsSettings,
  type HttpAssertions,
  type HttpRequest,
  type HttpRequestInput,
  NO_ASSERTIONS,
  PUSH_DEFAULTS,
  type PushSettings,
  protocolOf,
  REQUEST_DEFAULTS,
  type StoredHttpRequest,
} from "../contract/monitor.ts";
import {
  type Condition,
  NOT_CHECKED_SUMMARY,
  type Site,
  type SiteCreate,
  type SitePatch,
  type SiteState,
} from "../contract/site.ts";
import { siteStatus } from "../contract/status.ts";
import { newId } from "./connection.ts";
import type { Database, SiteRow } from "./schema.ts";

/*
 * A site between the API's domain (contract/site.ts) and its row: the columns written for what an owner gives, and
 * the site the API shows read back from them. Only the store knows how a site is kept (JSON columns, 0/1 flags).
 */

/** Column values for a site's writable fields. */
type WritableColumns = Pick<
  SiteRow,
  | "url"
  | "name"
  | "method"
  | "headers"
  | "check_interval"
  | "timeout"
  | "parent_group"
  | "pause"
  | "notes"
  | "success_codes"
  | "error_codes"
  | "enabled"
  | "regions"
  | "slow_threshold_ms"
  | "wordpress"
  | "tags"
>;

export function siteColumns(input: Partial<SiteCreate> & Pick<SitePatch, "wordpress">): Partial<WritableColumns> {
  const out: Partial<WritableColumns> = {};
  if (input.url !== undefined) out.url = input.url;
  if (input.name !== undefined) out.name = input.name;
  if (input.method !== undefined) out.method = input.method;
  if (input.headers !== undefined) out.headers = JSON.stringify(input.headers);
  if (input.checkInterval !== undefined) out.check_interval = input.checkInterval;
  if (input.timeout !== undefined) out.timeout = input.timeout;
  if (input.parentGroup !== undefined) out.parent_group = input.parentGroup;
  if (input.pause !== undefined) out.pause = input.pause ? 1 : 0;
  if (input.notes !== undefined) out.notes = input.notes;
  if (input.successCodes !== undefined) out.success_codes = JSON.stringify(input.successCodes);
  if (input.errorCodes !== undefined) out.error_codes = JSON.stringify(input.errorCodes);
  if (input.enabled !== undefined) out.enabled = input.enabled ? 1 : 0;
  if (input.regions !== undefined) out.regions = JSON.stringify([...new Set(input.regions)]);
  if (input.slowThresholdMs !== undefined) out.slow_threshold_ms = input.slowThresholdMs;
  if (input.wordpress !== undefined) out.wordpress = JSON.stringify(input.wordpress);
  if (input.tags !== undefined) out.tags = JSON.stringify(input.tags);
  return out;
}

export type KindSettings = Pick<SitePatch, "assertions" | "request" | "dns" | "push">;

/** Seals a credential at rest (accounts/sealed.ts); only a basic-auth password needs it here. */
export type Seal = (plain: string) => string;
const noSeal: Seal = () => {
  throw new Error("no secret box to seal a basic-auth password with");
};

/**
 * An http(s) site's request settings as stored: the given ones replace the stored ones whole, except a basic-auth
 * password left out, which keeps the stored one (the edit form never has it to send back). An empty password is
 * stored as none.
 */
function storedRequest(given: HttpRequestInput | undefined, prior: StoredHttpRequest | undefined, seal: Seal) {
  if (given === undefined) return prior ?? REQUEST_DEFAULTS;
  const auth = given.basicAuth;
  const kept = prior?.basicAuth?.sealedPassword ?? null;
  const sealedPassword = auth?.password === undefined ? kept : auth.password === "" ? null : seal(auth.password);
  return {
    body: given.body,
    followRedirects: given.followRedirects,
    basicAuth: auth ? { username: auth.username, sealedPassword } : null,
  } satisfies StoredHttpRequest;
}

/**
 * Whether a change would send a stored basic-auth password to another origin (scheme, host or port) than the one it
 * was given for: a new address of the same kind, with basic auth kept and no password given. Refused, so that a
 * member who may edit sites cannot aim a password the API never shows at a host of their own.
 */
export function keptPasswordMovesOrigin(from: string, stored: string, to: string, given: HttpRequestInput | undefined) {
  const kinds = [protocolOf(from), protocolOf(to)];
  if (!kinds.every((k) => k === "http" || k === "https")) return false;
  if (new URL(from).origin === new URL(to).origin) return false;
  const prior = (JSON.parse(stored) as { request?: StoredHttpRequest }).request;
  if (!prior?.basicAuth?.sealedPassword) return false;
  const auth = given === undefined ? prior.basicAuth : given.basicAuth;
  return auth !== null && !("password" in auth && auth.password !== undefined);
}

/**
 * The settings column of a site at `url`: for its kind only, what was given over what was stored, the defaults
 * under both. Settings of another kind are dropped (the contract refuses them when sent): an address changed from
 * https:// to dns:// keeps no assertions.
 */
export function settingsColumn(url: string, given: KindSettings, stored = "{}", hint?: string, seal = noSeal): string {
  const protocol = protocolOf(url);
  const prior = JSON.parse(stored) as Omit<KindSettings, "request"> & {
    push?: { hint?: string };
    request?: StoredHttpRequest;
  };
  const out: Record<string, unknown> = {};
  if (protocol === "http" || protocol === "https") {
    out.assertions = given.assertions ?? prior.assertions ?? NO_ASSERTIONS;
    out.request = storedRequest(given.request, prior.request, seal);
  }
  if (protocol === "dns") out.dns = given.dns ?? prior.dns ?? DNS_DEFAULTS;
  if (protocol === "push") {
    out.push = { ...(given.push ?? prior.push ?? PUSH_DEFAULTS), hint: hint ?? prior.push?.hint ?? "" };
  }
  return JSON.stringify(out);
}

/** A new site's row: its writable fields as given, everything the engine computes not known yet. */
export function newSiteRecord(
  workspaceId: string,
  input: SiteCreate,
  now: string,
  id = newId(),
  push?: { hash: string; hint: string },
  seal: Seal = noSeal,
) {
  return {
    id,
    workspace_id: workspaceId,
    version: 0,
    ...(siteColumns(input) as WritableColumns),
    settings: settingsColumn(input.url, input, "{}", push?.hint, seal),
    ...(push ? { push_token_hash: push.hash, push_since: now } : {}),
    has_certificate_error: 0,
    is_frozen: 0,
    legacy_status: input.pause ? "paused" : "active",
    state: "unknown",
    health_summary: NOT_CHECKED_SUMMARY,
    last_check_time: null,
    last_response_ms: null,
    ssl_info: null,
    domain_info: null,
    domain_expiration: null,
    wordpress: null,
    created_at: now,
    updated_at: now,
    judged_at: null,
    rejudge_at: null,
    conditions_at: null,
    domain_checked_at: null,
  } satisfies Insertable<Database["sites"]>;
}

const parseJson = <T>(text: string | null): T | null => (text === null ? null : (JSON.parse(text) as T));

/** A stored site as the API shows it. */
export function siteView(row: SiteRow): Site {
  const pause = row.pause === 1;
  const state = row.state as SiteState;
  const wordpress = parseJson<{ value: boolean; manualOverride: boolean }>(row.wordpress);
  // An address of a scheme no longer checked cannot be stored (SiteUrl); read as http(s) for safety.
  const protocol = protocolOf(row.url) ?? (row.url.startsWith("https:") ? "https" : "http");
  const settings = JSON.parse(row.settings) as {
    assertions?: HttpAssertions;
    request?: StoredHttpRequest;
    dns?: DnsSettings;
    push?: PushSettings;
  };
  const http = protocol === "http" || protocol === "https";
  return {
    _id: row.id,
    id: row.id,
    __v: row.version,
    url: row.url,
    protocol,
    headers: JSON.parse(row.headers),
    name: row.name,
    checkInterval: row.check_interval,
    checkIntervalMs: row.check_interval * 1000,
    parentGroup: row.parent_group,
    pause,
    notes: row.notes,
    timeout: row.timeout,
    method: row.method as Site["method"],
    successCodes: JSON.parse(row.success_codes),
    errorCodes: JSON.parse(row.error_codes),
    hasCertificateError: row.has_certificate_error === 1,
    isFrozen: row.is_frozen === 1,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    lastCheckTime: row.last_check_time,
    domainExpiration: row.domain_expiration,
    legacyStatus: row.legacy_status,
    enabled: row.enabled === 1,
    regions: JSON.parse(row.regions),
    healthSummary: row.health_summary,
    sslInfo: parseJson(row.ssl_info),
    domain: parseJson(row.domain_info),
    ...(wordpress ? { wordpress } : {}),
    slowThresholdMs: row.slow_threshold_ms,
    tags: JSON.parse(row.tags),
    assertions: http ? { ...NO_ASSERTIONS, ...settings.assertions } : null,
    request: http ? requestView(settings.request ?? REQUEST_DEFAULTS) : null,
    dns: protocol === "dns" ? { ...DNS_DEFAULTS, ...settings.dns } : null,
    push:
      protocol === "push"
        ? {
            graceSeconds: settings.push?.graceSeconds ?? PUSH_DEFAULTS.graceSeconds,
            lastCallAt: row.push_last_at,
            tokenHint:
              row.push_token_hash === null ? "" : ((settings.push as { hint?: string } | undefined)?.hint ?? ""),
          }
        : null,
    state,
    status: siteStatus(state, pause),
  };
}

/** Request settings as answers show them: whether a password is set, never the password (sealed or not). */
function requestView(stored: StoredHttpRequest): HttpRequest {
  const auth = stored.basicAuth;
  return {
    body: stored.body,
    followRedirects: stored.followRedirects,
    basicAuth: auth ? { username: auth.username, passwordSet: auth.sealedPassword !== null } : null,
  };
}

/** A stored site with what its detail adds: its workspace and its standing conditions. */
export function storedSite(row: SiteRow): { workspaceId: string; site: Site; conditions: z.infer<typeof Condition>[] } {
  return { workspaceId: row.workspace_id, site: siteView(row), conditions: JSON.parse(row.conditions) };
}
