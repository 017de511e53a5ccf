import { isIP } from "node:net";
import ipaddr from "ipaddr.js";

/**
 * The one rule for which addresses Porchlight's sockets may connect to: the engine's checks of owners' sites and
 * the anonymous fetcher both ask here. Addresses are parsed with ipaddr.js, never with string tests, so every
 * spelling of an address lands in the same range.
 */

/** ipaddr.js's range names as a reader knows them. */
const RANGE_NAMES: Record<string, string> = {
  unspecified: "unspecified",
  broadcast: "broadcast",
  multicast: "multicast",
  linkLocal: "link-local",
  loopback: "loopback",
  carrierGradeNat: "carrier-grade NAT",
  private: "private",
  reserved: "reserved",
  as112: "AS112",
  as112v6: "AS112",
  amt: "AMT",
  uniqueLocal: "unique local",
  deprecatedSiteLocal: "site-local",
  discard: "discard-only",
  rfc6145: "IPv4-translated",
  rfc6052: "NAT64",
  "6to4": "6to4",
  teredo: "Teredo",
  benchmarking: "benchmarking",
  deprecatedOrchid: "ORCHID",
  orchid2: "ORCHID",
  droneRemoteIdProtocolEntityTags: "drone remote ID",
  segmentRouting: "segment routing",
};

/** Deprecated (RFC 4291 2.5.5.1) and routed nowhere, but Linux connects `::7f00:1` to 127.0.0.1. */
const IPV4_COMPATIBLE = ipaddr.parseCIDR("::/96");
/** The only IPv6 range IANA hands out for global unicast. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR("2000::/3");

/**
 * The address as the socket will read it, or null when it is not an IP address in the form a socket or resolver
 * gives one. ipaddr.js reads `::a.b.c.d` as IPv4-mapped (`::ffff:a.b.c.d`), but inet_pton, the socket and the
 * WHATWG URL parser read it as IPv4-compatible (`::/96`), and glibc prints ::/96 addresses that way, so a
 * resolver's answer may be spelled so: IPv6 goes through the URL parser's spelling first. A zone
 * (`fe80::1%eth0`) names an interface, not a range, and is left out.
 */
function parse(address: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  try {
    const family = isIP(address);
    if (family === 4) return ipaddr.IPv4.parse(address);
    if (family !== 6) return null;
    const [bare = ""] = address.split("%");
    return ipaddr.process(new URL(`http://[${bare}]/`).hostname.slice(1, -1));
  } catch {
    return null;
  }
}

/**
 * Why an address is not public unicast, as a range a reader knows ("loopback", "IPv4-compatible IPv6"), or null
 * when it is. IPv4-mapped IPv6 (`::ffff:a.b.c.d`) is judged as the IPv4 address inside. Every special-purpose
 * range ipaddr.js knows is refused, NAT64 (64:ff9b::/96, 64:ff9b:1::/48), 6to4 (2002::/16) and Teredo
 * (2001::/32) whole, whatever IPv4 address they embed: a translator or relay on the path decides where they
 * lead, not this check. IPv6 outside 2000::/3 is refused too, which catches what ipaddr.js calls unicast but
 * nobody routes (IPv4-compatible `::/96`, 4000::/2…).
 */
export function nonPublicRange(address: string): string | null {
  const parsed = parse(address);
  if (!parsed) return "not an IP address";
  const range = parsed.range();
  if (range !== "unicast") return RANGE_NAMES[range] ?? range;
  if (parsed.kind() === "ipv6") {
    if (parsed.match(IPV4_COMPATIBLE)) return "IPv4-compatible IPv6";
    if (!parsed.match(GLOBAL_UNICAST_V6)) return "outside 2000::/3";
  }
  return null;
}

/** Who may be reached besides public unicast. */
export interface AddressExceptions {
  /**
   * Every address that parses, whatever its range (PORCHLIGHT_ALLOW_PRIVATE_TARGETS, for the sites owners
   * monitor on their own networks). The anonymous surface never sets it.
   */
  allowPrivate?: boolean;
  /**
   * These addresses in any spelling (`127.0.0.2` also allows `::ffff:127.0.0.2`): a test's or the benchmark's
   * own loopback target. Empty in production.
   */
  allowAddresses?: ReadonlySet<string>;
}

/**
 * Why a socket may not connect to this address (`loopback, not a public address`), or null when it may: public
 * unicast by `nonPublicRange`, or one of the exceptions. Something that is not an IP address in the form a socket
 * or resolver gives one (dotted quad, RFC 4291 IPv6) is always refused, so odd spellings such as `127.1` never
 * reach a lookup that would read them differently.
 */
export function addressRefusal(address: string, exceptions: AddressExceptions = {}): string | null {
  const parsed = parse(address);
  if (!parsed) return "not an IP address";
  if (exceptions.allowPrivate) return null;
  const allowed = exceptions.allowAddresses;
  if (allowed?.has(address) || allowed?.has(parsed.toString())) return null;
  const range = nonPublicRange(address);
  return range === null ? null : `${range}, not a public address`;
}

/** The setting that lets the server check private, loopback and link-local targets. */
export const PRIVATE_TARGETS_SETTING = "PORCHLIGHT_ALLOW_PRIVATE_TARGETS";

const ACCESS_HINT = `checking private, loopback and link-local addresses needs ${PRIVATE_TARGETS_SETTING}=true`;

/**
 * Why a check may not connect to `address`, which `name` resolved to (a host, or "resolver 1.1.1.1"), as the check's
 * error: `refused: NAME is ADDRESS (REASON)`, naming the setting that would allow it when the server's own rule
 * refused it; null when it may. A caller's `refuseAddress` replaces that rule (and its hint).
 */
export function targetRefusal(
  name: string,
  address: string,
  policy: { allowPrivate: boolean; refuseAddress?: (address: string) => string | null },
): string | null {
  if (policy.refuseAddress) {
    const reason = policy.refuseAddress(address);
    return reason === null ? null : `refused: ${name} is ${address} (${reason})`;
  }
  const reason = addressRefusal(address, { allowPrivate: policy.allowPrivate });
  return reason === null ? null : `refused: ${name} is ${address} (${reason}); ${ACCESS_HINT}`;
}

/**
 * Whether a check's error is the server refusing its target by its own address policy (http-check.ts names the
 * setting): such a check is "not checked", never a failure of the site.
 */
export function refusedByPolicy(error: string | null | undefined): boolean {
  return !!error && error.startsWith("refused:") && error.includes(PRIVATE_TARGETS_SETTING);
}
