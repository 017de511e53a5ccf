import { DNS_DEFAULTS, NO_ASSERTIONS, REQUEST_DEFAULTS } from "../../server/contract/monitor.ts";
import type { DueCheck } from "../../server/engine/outcome.ts";

/**
 * A check of `url` as the engine hands it to a checker: claimed by the engine "test" for site-1 in region "local",
 * a GET with no headers, two seconds to answer and slow after one, no status codes or assertions of its own, the
 * contract's request and DNS defaults, no push state and no earlier results. `overrides` replaces any of it.
 */
export function dueCheck(url: string, overrides: Partial<DueCheck> = {}): DueCheck {
  return {
    siteId: "site-1",
    region: "local",
    dueAt: 0,
    url,
    method: "GET",
    headers: [],
    timeoutMs: 2000,
    intervalMs: 60_000,
    successCodes: [],
    errorCodes: [],
    slowMs: 1000,
    assertions: NO_ASSERTIONS,
    request: REQUEST_DEFAULTS,
    dns: DNS_DEFAULTS,
    push: null,
    recent: [],
    domainCheckedAt: null,
    owner: "test",
    ...overrides,
  };
}
