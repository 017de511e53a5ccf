import { Resolver } from "node:dns/promises";
import { isIP } from "node:net";
import { performance } from "node:perf_hooks";
import ipaddr from "ipaddr.js";
import { storableText } from "../../contract/common.ts";
import type { DnsSettings } from "../../contract/monitor.ts";
import { hostOf, resolverParts } from "../../contract/monitor.ts";
import { targetRefusal } from "../../net/address-policy.ts";
import type { CheckPolicy } from "../../net/http-check.ts";
import type { Checker, CheckerResult } from "./checker.ts";
import { failed, wholeMs } from "./checker.ts";

type RecordType = DnsSettings["recordType"];

const round = (ms: number) => Math.round(ms * 10) / 10;
/** How much of the answer a failure quotes: a TXT record may run to kilobytes. */
const QUOTED_ANSWER_CHARS = 300;

/** Why the policy refuses a named resolver, in the address policy's sentence; null when it may be asked. */
function resolverRefusal(resolver: string, policy: CheckPolicy): string | null {
  return targetRefusal(`resolver ${resolver}`, resolverParts(resolver)?.address ?? resolver, policy);
}

/** The answer's values as a person reads them (and writes them in `expected`). */
async function ask(resolver: Resolver, name: string, type: RecordType): Promise<string[]> {
  switch (type) {
    case "A":
      return resolver.resolve4(name);
    case "AAAA":
      return resolver.resolve6(name);
    case "CNAME":
      return resolver.resolveCname(name);
    case "NS":
      return resolver.resolveNs(name);
    case "MX":
      return (await resolver.resolveMx(name)).map((r) => `${r.priority} ${r.exchange}`);
    case "TXT":
      return (await resolver.resolveTxt(name)).map((chunks) => chunks.join(""));
    case "SOA": {
      const soa = await resolver.resolveSoa(name);
      return [`${soa.nsname} ${soa.hostmaster} ${soa.serial}`];
    }
    case "CAA":
      // The record's tag is its one key besides `critical`; Node 24 and later also add `type: "CAA"`.
      return (await resolver.resolveCaa(name)).map((r) => {
        const [tag = "", value = ""] = Object.entries(r).find(([key]) => key !== "critical" && key !== "type") ?? [];
        return `${r.critical} ${tag} "${value}"`;
      });
  }
}

/** A domain name as compared: any case, with or without the root's trailing dot. */
const sameName = (name: string) => name.toLowerCase().replace(/\.$/, "");

/**
 * A value as compared, by record type: addresses in one spelling (`2001:DB8::1` is `2001:db8::1`), names in any
 * case without a trailing dot, a TXT record's text exactly as it is (verification tokens are case-sensitive), a CAA
 * value with or without its quotes. Outside TXT, whitespace runs count as one space.
 */
export function comparable(type: RecordType, value: string): string {
  const text = value.trim().replace(/\s+/g, " ");
  switch (type) {
    case "A":
    case "AAAA":
      return isIP(text) ? ipaddr.process(text).toString() : text.toLowerCase();
    case "CNAME":
    case "NS":
    case "SOA":
      return text.split(" ").map(sameName).join(" ");
    case "MX": {
      const [priority = "", exchange = ""] = text.split(" ");
      return `${priority} ${sameName(exchange)}`;
    }
    case "TXT":
      return value;
    case "CAA": {
      const [flags = "", tag = "", ...rest] = text.split(" ");
      return `${flags} ${tag.toLowerCase()} ${rest
        .join(" ")
        .replace(/^"(.*)"$/, "$1")
        .toLowerCase()}`;
    }
  }
}

/** Values listed as a failure quotes them, cut short past QUOTED_ANSWER_CHARS. */
function quote(values: string[]): string {
  const text = values.join(", ");
  return storableText(text.length > QUOTED_ANSWER_CHARS ? `${text.slice(0, QUOTED_ANSWER_CHARS)}…` : text);
}

/** Why the answer does not hold what the settings expect, naming both; null when it does. */
export function answerMismatch(settings: DnsSettings, name: string, answer: string[]): string | null {
  const { recordType: type, expected, match } = settings;
  if (expected.length === 0) return null;
  const got = new Set(answer.map((v) => comparable(type, v)));
  const wanted = new Set(expected.map((v) => comparable(type, v)));
  const missing = expected.filter((v) => !got.has(comparable(type, v)));
  const extra = match === "exact" && [...got].some((v) => !wanted.has(v));
  if (missing.length === 0 && !extra) return null;
  if (match === "exact") {
    return `expected exactly ${quote(expected)} as the ${type} answer for ${name}, got ${quote(answer)}`;
  }
  return `expected ${quote(missing)} in the ${type} answer for ${name}, got ${quote(answer)}`;
}

/** c-ares codes that mean the resolver answered (with no records, or a failure of its own). */
const ANSWERED = new Set(["ENODATA", "ENOTFOUND", "ESERVFAIL", "EREFUSED", "ENOTIMP", "EFORMERR", "EBADRESP"]);

/** A failed query in words, naming the question. */
function queryFailure(code: string, name: string, type: RecordType, timeoutMs: number, resolver: string): string {
  const from = resolver === "" ? "the system resolver" : `resolver ${resolver}`;
  const known: Record<string, string> = {
    ENODATA: `DNS: ${name} has no ${type} record`,
    ENOTFOUND: `DNS: ${name} does not exist (NXDOMAIN)`,
    ESERVFAIL: `DNS: ${from} failed to answer for ${name} (SERVFAIL)`,
    EREFUSED: `DNS: ${from} refused the query for ${name} (REFUSED)`,
    ENOTIMP: `DNS: ${from} does not answer ${type} queries (NOTIMP)`,
    EFORMERR: `DNS: ${from} found the query malformed (FORMERR)`,
    EBADRESP: `DNS: ${from} sent a malformed answer`,
    ETIMEOUT: `DNS: no answer within ${timeoutMs} ms`,
    ECANCELLED: `DNS: no answer within ${timeoutMs} ms`,
    ECONNREFUSED: `DNS: ${from} refused the connection`,
    EBADNAME: `DNS: ${name} is not a name that can be looked up`,
  };
  return known[code] ?? `DNS: the query failed (${code || "unknown error"})`;
}

/**
 * A dns:// site: one query of the settings' record type for the name, to the named resolver (judged first by the
 * address policy, as a connection's target is) or the system's. Up when the answer is not empty and holds what is
 * expected (contains: every expected value; exact: those values and no others). The response time is the query's
 * whenever the resolver answered, even with the wrong thing or with none. Ends within the site's timeout.
 */
export const checkDns: Checker = async (check, { policy }) => {
  const started = performance.now();
  const timings: CheckerResult["timings"] = { dnsMs: null, totalMs: null };
  const done = (result: CheckerResult): CheckerResult => ({
    ...result,
    timings: { ...timings, totalMs: round(performance.now() - started) },
  });
  const settings = check.dns;
  let name: string;
  try {
    if (!check.url.toLowerCase().startsWith("dns:")) throw new Error("not dns");
    name = hostOf(check.url);
    if (name === "") throw new Error("no name");
  } catch {
    return done(failed(`refused: ${check.url} is not a dns:// address`));
  }
  const resolver = new Resolver({ timeout: check.timeoutMs, tries: 1 });
  if (settings.resolver !== null) {
    const refused = resolverRefusal(settings.resolver, policy);
    if (refused !== null) return done(failed(refused));
    try {
      resolver.setServers([settings.resolver]);
    } catch {
      return done(failed(`refused: resolver ${settings.resolver} is not an IP address with an optional port`));
    }
  }
  // c-ares may try each of the system's servers in turn, each for the whole timeout: the deadline is ours.
  const deadline = setTimeout(() => resolver.cancel(), check.timeoutMs);
  let answer: string[];
  try {
    answer = await ask(resolver, name, settings.recordType);
  } catch (error) {
    const code = String((error as { code?: unknown }).code ?? "");
    const reason = queryFailure(code, name, settings.recordType, check.timeoutMs, settings.resolver ?? "");
    if (!ANSWERED.has(code)) return done(failed(reason));
    timings.dnsMs = round(performance.now() - started);
    return done({ ...failed(reason), responseMs: wholeMs(timings.dnsMs) });
  } finally {
    clearTimeout(deadline);
  }
  timings.dnsMs = round(performance.now() - started);
  const responseMs = wholeMs(timings.dnsMs);
  const error =
    answer.length === 0 ? `DNS: ${name} has no ${settings.recordType} record` : answerMismatch(settings, name, answer);
  return done({
    ok: error === null,
    slow: error === null && responseMs > check.slowMs,
    statusCode: null,
    responseMs,
    error: error === null ? null : storableText(error),
    found: error === null ? quote(answer) : null,
    timings,
    certificate: null,
    wordpress: null,
  });
};
