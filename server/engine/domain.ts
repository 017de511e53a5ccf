import { existsSync, readFileSync } from "node:fs";
import { rename, writeFile } from "node:fs/promises";
import { isIP, connect as tcpConnect } from "node:net";
import { join } from "node:path";
import { getDomain } from "tldts";
import { request } from "undici";
import { z } from "zod";
import { storableText } from "../contract/common.ts";
import { PromiseCache } from "../net/promise-cache.ts";

/** What the engine learns about a site's domain registration. */
export interface DomainInfo {
  domain: string;
  registrar: string | null;
  expiresAt: string | null;
  source: "rdap" | "whois";
}

/** Lookups are cached for a day; a failed one is retried after an hour. */
export const DOMAIN_CACHE = {
  ttlMs: 86_400_000,
  failureTtlMs: 3_600_000,
  timeoutMs: 10_000,
  maxBytes: 512 * 1024,
  maxEntries: 50_000,
};

/** IANA's RDAP bootstrap file for domains (RFC 9224). */
export const RdapBootstrap = z.object({
  publication: z.string().optional(),
  services: z.array(z.tuple([z.array(z.string()), z.array(z.string())])).min(1),
});
export type RdapBootstrap = z.infer<typeof RdapBootstrap>;

export const IANA_RDAP_DNS_URL = "https://data.iana.org/rdap/dns.json";
const SHIPPED = new URL("./data/rdap-dns.json", import.meta.url);
const REFRESHED = "rdap-dns.json";

/** The refreshed copy in the data directory when there is one, else the copy shipped with Porchlight. */
export function loadBootstrap(dataDir: string): RdapBootstrap {
  const refreshed = join(dataDir, REFRESHED);
  const text = existsSync(refreshed) ? readFileSync(refreshed, "utf8") : readFileSync(SHIPPED, "utf8");
  return RdapBootstrap.parse(JSON.parse(text));
}

/** Downloads the bootstrap file, checks its shape, and replaces the data directory's copy atomically. */
export async function refreshBootstrap(dataDir: string, from = IANA_RDAP_DNS_URL): Promise<RdapBootstrap> {
  const response = await request(from, { headersTimeout: 30_000, bodyTimeout: 30_000 });
  if (response.statusCode !== 200) {
    await response.body.dump();
    throw new Error(`${from} answered HTTP ${response.statusCode}`);
  }
  const text = await response.body.text();
  const parsed = RdapBootstrap.safeParse(JSON.parse(text));
  if (!parsed.success) throw new Error(`${from} is not an RDAP bootstrap file`);
  const target = join(dataDir, REFRESHED);
  await writeFile(`${target}.tmp`, text);
  await rename(`${target}.tmp`, target);
  return parsed.data;
}

export interface DomainLookupOptions {
  bootstrap: RdapBootstrap;
  /** The WHOIS server asked for a TLD's own WHOIS server (IANA's). */
  ianaWhois?: string;
  /** Port of every WHOIS server (43; tests use their own). */
  whoisPort?: number;
  now?: () => number;
  /**
   * Fetches an RDAP URL in place of undici's plain request, answering its status and body (or throwing): the
   * anonymous surface passes its policed fetcher so that a registry's address is checked like any other.
   */
  fetchText?: (url: string) => Promise<{ status: number; body: string }>;
  /**
   * Resolves a WHOIS server's name and vets the address before the socket connects to it (throwing to refuse);
   * the query then goes to that address. Without it the name is connected to as it is.
   */
  whoisAddress?: (host: string) => Promise<string>;
}

/**
 * Domain registrations through RDAP, with WHOIS (port 43) for registries that have no RDAP service: the
 * registrable domain of a host (public suffix list, via tldts), its registrar and expiry date. Results are cached
 * by domain for a day, so sites on one domain cost one lookup.
 */
export class DomainLookup {
  private readonly rdapByTld = new Map<string, string>();
  private readonly cache: PromiseCache<DomainInfo>;

  constructor(private readonly options: DomainLookupOptions) {
    for (const [tlds, urls] of options.bootstrap.services) {
      const url = urls.find((u) => u.startsWith("https:")) ?? urls[0];
      if (url) for (const tld of tlds) this.rdapByTld.set(tld.toLowerCase(), url.endsWith("/") ? url : `${url}/`);
    }
    this.cache = new PromiseCache(DOMAIN_CACHE, options.now ?? Date.now);
  }

  /** The registrable domain of a host name; null for IP addresses and hosts without one (localhost). */
  static registrable(host: string): string | null {
    if (isIP(host.replace(/^\[|\]$/g, ""))) return null;
    return getDomain(host, { allowPrivateDomains: false }) ?? null;
  }

  lookup(domain: string): Promise<DomainInfo> {
    return this.cache.get(domain, () => this.fetch(domain));
  }

  private async fetch(domain: string): Promise<DomainInfo> {
    const tld = domain.slice(domain.lastIndexOf(".") + 1).toLowerCase();
    const base = this.rdapByTld.get(tld);
    if (base) return this.rdap(domain, base);
    return this.whois(domain, tld);
  }

  private async rdap(domain: string, base: string): Promise<DomainInfo> {
    const url = `${base}domain/${encodeURIComponent(domain)}`;
    if (this.options.fetchText) {
      const answer = await this.options.fetchText(url);
      if (answer.status !== 200) throw new Error(`RDAP ${url} answered HTTP ${answer.status}`);
      return { domain, ...parseRdap(JSON.parse(answer.body)), source: "rdap" };
    }
    const response = await request(url, {
      headers: { accept: "application/rdap+json, application/json" },
      headersTimeout: DOMAIN_CACHE.timeoutMs,
      bodyTimeout: DOMAIN_CACHE.timeoutMs,
      // The whole answer, not only each chunk: a registry that trickles must not hold a lookup for long.
      signal: AbortSignal.timeout(DOMAIN_CACHE.timeoutMs),
    });
    if (response.statusCode !== 200) {
      await response.body.dump();
      throw new Error(`RDAP ${url} answered HTTP ${response.statusCode}`);
    }
    const text = await readCapped(response.body, DOMAIN_CACHE.maxBytes);
    return { domain, ...parseRdap(JSON.parse(text)), source: "rdap" };
  }

  private async whois(domain: string, tld: string): Promise<DomainInfo> {
    const port = this.options.whoisPort ?? 43;
    const referral = await this.ask(this.options.ianaWhois ?? "whois.iana.org", port, tld);
    const server = /^(?:whois|refer):\s*(\S+)/im.exec(referral)?.[1];
    if (!server) throw new Error(`no RDAP or WHOIS service is known for .${tld}`);
    return { domain, ...parseWhois(await this.ask(server, port, domain)), source: "whois" };
  }

  private async ask(server: string, port: number, query: string): Promise<string> {
    const address = this.options.whoisAddress ? await this.options.whoisAddress(server) : server;
    return whoisQuery(server, port, query, address);
  }
}

async function readCapped(body: AsyncIterable<Buffer>, cap: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > cap) throw new Error(`answer larger than ${cap} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

type Found = Pick<DomainInfo, "registrar" | "expiresAt">;

interface RdapEntity {
  roles?: string[];
  vcardArray?: [string, [string, unknown, string, unknown][]];
  entities?: RdapEntity[];
}

/** Registrar (the fn of the entity with the registrar role) and expiry (the expiration event) of an RDAP answer. */
export function parseRdap(answer: {
  events?: { eventAction?: string; eventDate?: string }[];
  entities?: RdapEntity[];
}): Found {
  const expiry = answer.events?.find((e) => e.eventAction === "expiration")?.eventDate;
  const registrar = answer.entities?.find((e) => e.roles?.includes("registrar"));
  const fn = registrar?.vcardArray?.[1]?.find((field) => field[0] === "fn")?.[3];
  const expiresAt = expiry ? parseDate(expiry) : null;
  return { registrar: typeof fn === "string" && fn.trim() ? storableText(fn.trim()) : null, expiresAt };
}

const EXPIRY_LABELS =
  /^[ \t]*(?:Registry Expiry Date|Registrar Registration Expiration Date|Expiration Date|Expiry Date|Expiry date|Expires On|Expires|expires|paid-till|Expiration Time|renewal date|Renewal Date)[ \t]*:[ \t]*(.*)$/im;
const REGISTRAR_LABELS = /^[ \t]*(?:Registrar|Sponsoring Registrar|Registrar Name|registrar)[ \t]*:[ \t]*(.*)$/im;

/**
 * Registrar and expiry from a WHOIS answer. The formats differ by registry: "Label: value" on one line
 * (Verisign, most gTLDs; "paid-till" for .ru), or the value on the next indented line (Nominet's .uk).
 */
export function parseWhois(text: string): Found {
  const labelled = (re: RegExp): string | null => {
    const match = re.exec(text);
    if (!match) return null;
    const sameLine = match[1]?.trim();
    if (sameLine) return sameLine;
    const after = text.slice((match.index ?? 0) + match[0].length).split(/\r?\n/);
    const next = after.find((line, i) => i > 0 && line.trim() !== "") ?? after[1];
    return next?.trim() || null;
  };
  const name = labelled(REGISTRAR_LABELS)?.replace(/\s*\[Tag = [^\]]*\]$/, "");
  const registrar = name ? storableText(name) : null;
  const expiry = labelled(EXPIRY_LABELS);
  return { registrar, expiresAt: expiry ? parseDate(expiry) : null };
}

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];

/** The dates registries write: ISO 8601, 2027.06.30, 2027/06/30 12:00:00, 30-Jun-2027. UTC when no zone is given. */
export function parseDate(text: string): string | null {
  const iso = /(\d{4})[-./](\d{2})[-./](\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?)?/.exec(text);
  if (iso) {
    if (/^\d{4}-\d{2}-\d{2}T[\d:.]+(Z|[+-]\d{2}:?\d{2})$/.test(text.trim())) {
      const t = Date.parse(text.trim());
      if (!Number.isNaN(t)) return new Date(t).toISOString();
    }
    const [, y, m, d, hh = "0", mm = "0", ss = "0"] = iso;
    const t = Date.UTC(Number(y), Number(m) - 1, Number(d), Number(hh), Number(mm), Number(ss));
    return Number.isNaN(t) ? null : new Date(t).toISOString();
  }
  const dmy = /(\d{1,2})[- ]([A-Za-z]{3})[a-z]*[- ](\d{4})/.exec(text);
  if (dmy) {
    const month = MONTHS.indexOf((dmy[2] ?? "").toLowerCase());
    if (month >= 0) return new Date(Date.UTC(Number(dmy[3]), month, Number(dmy[1]))).toISOString();
  }
  return null;
}

/**
 * One WHOIS question (RFC 3912): the query and CRLF, then the answer until the server closes, within bounds. The
 * socket connects to `address` when given (one already vetted), else to `host`.
 */
export function whoisQuery(host: string, port: number, query: string, address = host): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const socket = tcpConnect({ host: address, port });
    socket.setTimeout(DOMAIN_CACHE.timeoutMs, () => socket.destroy(new Error(`WHOIS ${host} timed out`)));
    const deadline = setTimeout(() => socket.destroy(new Error(`WHOIS ${host} timed out`)), DOMAIN_CACHE.timeoutMs);
    socket.once("close", () => clearTimeout(deadline));
    socket.once("connect", () => socket.end(`${query}\r\n`));
    socket.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > DOMAIN_CACHE.maxBytes) socket.destroy(new Error(`WHOIS ${host} answer too large`));
      else chunks.push(chunk);
    });
    socket.once("error", reject);
    socket.once("close", (hadError) => {
      if (!hadError) resolve(Buffer.concat(chunks).toString("utf8"));
    });
  });
}
