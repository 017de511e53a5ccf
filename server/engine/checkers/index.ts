import { CHECKER_OF, protocolOf } from "../../contract/monitor.ts";
import type { DueCheck } from "../outcome.ts";
import type { CheckContext, CheckerRegistry, CheckerResult } from "./checker.ts";
import { failed } from "./checker.ts";
import { checkDns } from "./dns.ts";
import { checkHttpSite } from "./http.ts";
import { checkIcmp } from "./icmp.ts";
import { checkPush } from "./push.ts";
import { checkTcp } from "./tcp.ts";

export type { CheckContext, Checker, CheckerRegistry, CheckerResult } from "./checker.ts";

/** One checker per kind of check (contract/monitor.ts CHECKER_OF): adding a kind without one is a type error. */
export const CHECKERS: CheckerRegistry = {
  http: checkHttpSite,
  tcp: checkTcp,
  dns: checkDns,
  icmp: checkIcmp,
  push: checkPush,
};

/** Runs the checker of the site's kind, read from its address's scheme. Never throws. */
export async function runCheck(check: DueCheck, context: CheckContext, registry = CHECKERS): Promise<CheckerResult> {
  const protocol = protocolOf(check.url);
  if (protocol === null) return failed(`refused: ${check.url.split(":")[0]}: is not a kind of check Porchlight runs`);
  try {
    return await registry[CHECKER_OF[protocol]](check, context);
  } catch (error) {
    // A checker's own bug: the site reads "check failed", never a stopped engine.
    return failed(`check failed (${error instanceof Error ? error.message : String(error)})`);
  }
}
