import { isIP, type Socket, connect as tcpConnect } from "node:net";
import { performance } from "node:perf_hooks";
import { type TLSSocket, connect as tlsConnect } from "node:tls";
import { storableText } from "../../contract/common.ts";
import { hostOf, portOf } from "../../contract/monitor.ts";
import { targetRefusal } from "../../net/address-policy.ts";
import { resolveAll } from "../../net/dns-cache.ts";
import type { CheckPolicy } from "../../net/http-check.ts";
import { contextFor, isoOrEpoch } from "../../net/tls.ts";
import type { Checker, CheckerResult } from "./checker.ts";
import { failed, wholeMs } from "./checker.ts";

const round = (ms: number) => Math.round(ms * 10) / 10;

/** Why a check stopped, already in the words its outcome shows. */
class Stop extends Error {}

/** Waits for `promise` at most `ms`; past it, a Stop with `message`. The promise itself is left to settle. */
function within<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Stop(message)), Math.max(0, ms));
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** A lookup's failure in words, as checkHttp's are. */
function lookupFailure(error: unknown): string {
  if (error instanceof Stop) return error.message;
  const code = (error as { code?: string }).code;
  if (code === "ENOTFOUND") return "DNS: host not found";
  if (code === "EAI_AGAIN") return "DNS: lookup failed (temporary)";
  return `DNS: ${error instanceof Error ? error.message : String(error)}`;
}

/** A socket error before the connection was made, in words. */
function connectFailure(error: unknown): string {
  const e = error as { code?: string; message?: string };
  const known: Record<string, string> = {
    ECONNREFUSED: "connection refused",
    ECONNRESET: "connection reset by the server",
    EHOSTUNREACH: "host unreachable",
    ENETUNREACH: "network unreachable",
    EADDRNOTAVAIL: "address not available on this machine",
  };
  const code = e.code ?? "";
  return known[code] ?? (code ? `${code}: ${e.message ?? ""}`.trim() : (e.message ?? "connection failed"));
}

/** The peer's certificate as an outcome holds it; null when the server presented none. */
function certificateOf(socket: TLSSocket): CheckerResult["certificate"] {
  const peer = socket.getPeerCertificate();
  if (!peer?.valid_to) return null;
  // Node sets authorizationError for the chain, the dates and the host name (servername, else the address) alike.
  const error = socket.authorizationError ? String(socket.authorizationError) : null;
  return {
    expiresAt: isoOrEpoch(peer.valid_to),
    issuer: storableText(String(peer.issuer?.O ?? peer.issuer?.CN ?? "")),
    authorized: error === null,
    error,
  };
}

interface Connection {
  certificate: CheckerResult["certificate"];
}

/**
 * Opens a socket to `address` (never the name: a second lookup could answer something else), with a TLS handshake
 * for tls://, and closes it. Fills `timings` as the phases end; rejects with a Stop in words.
 */
function open(
  address: string,
  port: number,
  host: string,
  tls: boolean,
  policy: CheckPolicy,
  budgetMs: number,
  timeoutMs: number,
  timings: CheckerResult["timings"],
): Promise<Connection> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let connected = false;
    let settled = false;
    let socket: Socket | TLSSocket;
    const end = (error: Stop | null, connection?: Connection) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      // An error after the end (a reset while closing) must not be an unhandled 'error' event.
      socket.on("error", () => {});
      socket.destroy();
      if (error) reject(error);
      else resolve(connection as Connection);
    };
    const onConnect = () => {
      connected = true;
      timings.connectMs = round(performance.now() - started);
      if (!tls) end(null, { certificate: null });
    };
    if (tls) {
      const secureContext = contextFor(policy);
      const tlsSocket = tlsConnect({
        host: address,
        port,
        servername: isIP(host) ? undefined : host,
        // Verified below, not refused: an invalid certificate is a finding to report with its reason.
        rejectUnauthorized: false,
        ...(secureContext ? { secureContext } : {}),
      });
      tlsSocket.once("secureConnect", () => {
        timings.tlsMs = round(performance.now() - started - (timings.connectMs ?? 0));
        end(null, { certificate: certificateOf(tlsSocket) });
      });
      socket = tlsSocket;
    } else {
      socket = tcpConnect({ host: address, port });
    }
    socket.once("connect", onConnect);
    socket.once("error", (error: Error & { code?: string }) => {
      if (!connected) return end(new Stop(connectFailure(error)));
      const reason = error.code && error.code !== "ECONNRESET" ? error.code : "connection closed by the server";
      end(new Stop(`TLS handshake failed (${reason})`));
    });
    const timer = setTimeout(
      () => end(new Stop(`timed out after ${timeoutMs} ms${connected ? " (TLS handshake)" : ""}`)),
      Math.max(0, budgetMs),
    );
  });
}

/**
 * A tcp:// or tls:// site: the host resolved once, its first address judged by the address policy as an HTTP
 * check's is, then a connect to that address (and for tls:// a TLS handshake with the host as server name, whose
 * certificate is reported and must verify). Up when the connection (handshake) is made; its response time is the
 * whole check up to then, the lookup included, as an HTTP check's is. Ends within the site's timeout; the socket is
 * always closed.
 */
export const checkTcp: Checker = async (check, { policy }) => {
  const started = performance.now();
  const timings: CheckerResult["timings"] = { dnsMs: null, connectMs: null, tlsMs: null, totalMs: null };
  const done = (result: CheckerResult): CheckerResult => ({
    ...result,
    timings: { ...timings, totalMs: round(performance.now() - started) },
  });
  let host: string;
  let port: number;
  let tls: boolean;
  try {
    const url = new URL(check.url);
    tls = url.protocol === "tls:";
    host = hostOf(check.url);
    port = portOf(check.url);
    if ((url.protocol !== "tcp:" && !tls) || !(port >= 1 && port <= 65_535)) throw new Error("not tcp");
  } catch {
    return done(failed(`refused: ${check.url} is not a tcp:// or tls:// address with a port`));
  }
  const left = () => check.timeoutMs - (performance.now() - started);

  let addresses: string[];
  try {
    const lookup = isIP(host) ? Promise.resolve([host]) : (policy.resolve ?? resolveAll)(host);
    addresses = await within(lookup, left(), `timed out after ${check.timeoutMs} ms (DNS)`);
    if (!isIP(host)) timings.dnsMs = round(performance.now() - started);
  } catch (error) {
    timings.dnsMs = round(performance.now() - started);
    return done(failed(lookupFailure(error)));
  }
  const chosen = addresses[0];
  if (!chosen) return done(failed(`DNS: ${host} has no address`));
  const refused = targetRefusal(host, chosen, policy);
  if (refused !== null) return done(failed(refused));
  // A caller's own rule might let through what is not an address; the socket must only ever see one.
  if (isIP(chosen) === 0) return done(failed(`refused: ${host} is ${chosen} (not an IP address)`));

  let connection: Connection;
  try {
    connection = await open(chosen, port, host, tls, policy, left(), check.timeoutMs, timings);
  } catch (error) {
    return done(failed(error instanceof Stop ? error.message : connectFailure(error)));
  }
  const responseMs = wholeMs(performance.now() - started);
  const certificate = connection.certificate;
  let error: string | null = null;
  if (tls && certificate === null) error = "TLS: the server presented no certificate";
  else if (certificate && !certificate.authorized) error = `certificate: ${certificate.error}`;
  return done({
    ok: error === null,
    slow: error === null && responseMs > check.slowMs,
    statusCode: null,
    responseMs,
    error,
    timings,
    certificate,
    wordpress: null,
  });
};
