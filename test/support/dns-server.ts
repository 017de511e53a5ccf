import { createSocket, type RemoteInfo } from "node:dgram";
import ipaddr from "ipaddr.js";

/**
 * A small authoritative DNS server over UDP on 127.0.0.1, for the DNS checker's tests: it answers from a fixed zone,
 * with NXDOMAIN for a name it does not hold and an empty answer (NODATA) for a type the name lacks, and never
 * answers names listed as silent. Answers are encoded by hand (RFC 1035, RFC 8659 for CAA): only what a test needs.
 */

export interface ZoneRecords {
  A?: string[];
  AAAA?: string[];
  CNAME?: string[];
  NS?: string[];
  MX?: { priority: number; exchange: string }[];
  /** Each record as its chunks (a record longer than 255 bytes is several). */
  TXT?: string[][];
  SOA?: { nsname: string; hostmaster: string; serial: number }[];
  CAA?: { flags: number; tag: string; value: string }[];
}

export interface ZoneOptions {
  /** Names (any case) whose questions are dropped: the resolver never hears back. */
  silent?: string[];
}

export interface DnsServer {
  /** `127.0.0.1:port`, as a site's dns.resolver names it. */
  resolver: string;
  port: number;
  /** Questions received so far, as `name TYPE`. */
  questions: string[];
  close: () => Promise<void>;
}

const TYPES: Record<number, keyof ZoneRecords> = {
  1: "A",
  2: "NS",
  5: "CNAME",
  6: "SOA",
  15: "MX",
  16: "TXT",
  28: "AAAA",
  257: "CAA",
};
const RCODE = { noError: 0, formErr: 1, nxDomain: 3, notImp: 4 } as const;

const u16 = (n: number) => Buffer.from([(n >> 8) & 0xff, n & 0xff]);
const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
};

/** A name as length-prefixed labels ending in the root's empty label (no compression). */
function encodeName(name: string): Buffer {
  const labels = name.replace(/\.$/, "").split(".").filter(Boolean);
  return Buffer.concat([
    ...labels.map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l)])),
    Buffer.from([0]),
  ]);
}

/** A length-prefixed character string. */
const text = (s: string) => Buffer.concat([Buffer.from([Buffer.byteLength(s)]), Buffer.from(s)]);

function rdata(type: keyof ZoneRecords, records: ZoneRecords): Buffer[] {
  switch (type) {
    case "A":
    case "AAAA":
      return (records[type] ?? []).map((a) => Buffer.from(ipaddr.parse(a).toByteArray()));
    case "CNAME":
    case "NS":
      return (records[type] ?? []).map(encodeName);
    case "MX":
      return (records.MX ?? []).map((r) => Buffer.concat([u16(r.priority), encodeName(r.exchange)]));
    case "TXT":
      return (records.TXT ?? []).map((chunks) => Buffer.concat(chunks.map(text)));
    case "SOA":
      return (records.SOA ?? []).map((r) =>
        Buffer.concat([
          encodeName(r.nsname),
          encodeName(r.hostmaster),
          u32(r.serial),
          u32(3600),
          u32(600),
          u32(86_400),
          u32(300),
        ]),
      );
    case "CAA":
      return (records.CAA ?? []).map((r) => Buffer.concat([Buffer.from([r.flags]), text(r.tag), Buffer.from(r.value)]));
  }
}

/** The question of a query: its name, type and where it ends; null when the packet is not one. */
function question(packet: Buffer): { name: string; type: number; end: number } | null {
  if (packet.length < 12 || packet.readUInt16BE(4) !== 1) return null;
  const labels: string[] = [];
  let at = 12;
  for (;;) {
    const length = packet[at];
    if (length === undefined || length > 63) return null;
    at++;
    if (length === 0) break;
    labels.push(packet.subarray(at, at + length).toString("latin1"));
    at += length;
  }
  if (at + 4 > packet.length) return null;
  return { name: labels.join("."), type: packet.readUInt16BE(at), end: at + 4 };
}

function reply(query: Buffer, zone: Record<string, ZoneRecords>): Buffer {
  const q = question(query);
  const id = query.subarray(0, 2);
  // QR, the query's opcode and RD, RA; then the response code.
  const flags = (rcode: number) => u16(0x8000 | (query.readUInt16BE(2) & 0x7900) | 0x0080 | rcode);
  if (!q) return Buffer.concat([id, flags(RCODE.formErr), u16(0), u16(0), u16(0), u16(0)]);
  const header = (rcode: number, answers: number) =>
    Buffer.concat([id, flags(rcode), u16(1), u16(answers), u16(0), u16(0)]);
  const asked = query.subarray(12, q.end);
  const type = TYPES[q.type];
  const records = Object.entries(zone).find(([name]) => name.toLowerCase() === q.name.toLowerCase())?.[1];
  if (!records) return Buffer.concat([header(RCODE.nxDomain, 0), asked]);
  if (!type) return Buffer.concat([header(RCODE.notImp, 0), asked]);
  const answers = rdata(type, records).map((data) =>
    // The owner name as a pointer to the question's (offset 12), class IN, a TTL of 60 s.
    Buffer.concat([u16(0xc00c), u16(q.type), u16(1), u32(60), u16(data.length), data]),
  );
  return Buffer.concat([header(RCODE.noError, answers.length), asked, ...answers]);
}

/** Starts the server on a free UDP port of 127.0.0.1. */
export async function startDnsServer(zone: Record<string, ZoneRecords>, options: ZoneOptions = {}): Promise<DnsServer> {
  const silent = new Set((options.silent ?? []).map((n) => n.toLowerCase()));
  const socket = createSocket("udp4");
  const questions: string[] = [];
  socket.on("message", (packet: Buffer, from: RemoteInfo) => {
    const q = question(packet);
    if (q) questions.push(`${q.name} ${TYPES[q.type] ?? q.type}`);
    if (q && silent.has(q.name.toLowerCase())) return;
    socket.send(reply(packet, zone), from.port, from.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
  const port = socket.address().port;
  return {
    resolver: `127.0.0.1:${port}`,
    port,
    questions,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
