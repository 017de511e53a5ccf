import type { Context } from "hono";
import ipaddr from "ipaddr.js";
import { header } from "./headers.ts";

export type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

function parse(value: string | undefined): ipaddr.IPv4 | ipaddr.IPv6 | null {
  if (!value) return null;
  // Some proxies add the client's port: "1.2.3.4:5678" or "[2001:db8::1]:5678".
  const text = value
    .trim()
    .replace(/^\[([^\]]+)\](?::\d+)?$/, "$1")
    .replace(/^(\d+\.\d+\.\d+\.\d+):\d+$/, "$1");
  try {
    // process() unwraps IPv4-mapped IPv6 (::ffff:1.2.3.4), so one client has one spelling.
    return ipaddr.process(text);
  } catch {
    return null;
  }
}

function trusted(addr: ipaddr.IPv4 | ipaddr.IPv6, ranges: Range[]): boolean {
  return ranges.some(([net, bits]) => addr.kind() === net.kind() && addr.match(net, bits));
}

/**
 * The address of the client behind a request. The socket's peer, unless that peer is a configured proxy: then
 * the right-most X-Forwarded-For entry that is not itself a trusted proxy. A header from anyone else is ignored,
 * so it cannot be forged to dodge a limit.
 */
export function clientAddress(c: Context, proxies: Range[]): ipaddr.IPv4 | ipaddr.IPv6 | null {
  const env = c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined;
  const peer = parse(env?.incoming?.socket?.remoteAddress);
  if (!peer || proxies.length === 0 || !trusted(peer, proxies)) return peer;
  const forwarded = (header(c, "x-forwarded-for") ?? "").split(",").reverse();
  for (const entry of forwarded) {
    const addr = parse(entry);
    if (!addr) return peer;
    if (!trusted(addr, proxies)) return addr;
  }
  return peer;
}

/** The key a client is limited under: its IPv4 address, or its IPv6 /64 (one subscriber's usual allocation). */
export function clientKey(addr: ipaddr.IPv4 | ipaddr.IPv6 | null): string {
  if (!addr) return "unknown";
  if (addr.kind() === "ipv4") return addr.toString();
  const parts = (addr as ipaddr.IPv6).parts.slice(0, 4);
  return `${parts.map((p) => p.toString(16)).join(":")}::/64`;
}
