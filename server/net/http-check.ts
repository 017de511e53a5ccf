import { isIP, type Socket, connect as tcpConnect } from "node:net";
import { performance } from "node:perf_hooks";
import { type TLSSocket, connect as tlsConnect } from "node:tls";
import { Client } from "undici";
import { storableText } from "../contract/common.ts";
import { targetRefusal } from "./address-policy.ts";
import { resolveAll } from "./dns-cache.ts";
import { contextFor, isoOrEpoch } from "./tls.ts";

/** What one check asks of a target: the site's own settings. */
export interface CheckTarget {
  url: string;
  method: string;
  /**
   * Sent on every hop of the same origin as `url`. From the first hop to another origin on, credential headers
   * (`isCredentialHeader`) and `Host` are left out for the rest of the redirect chain.
   */
  headers: { name: string; value: string }[];
  timeoutMs: number;
  successCodes: number[];
  errorCodes: number[];
  /** The engine's region, named in the User-Agent so that a target's owner can tell the regions apart. */
  region?: string;
  /** A request body (an alert's, a site's), sent with every method but GET and HEAD. */
  body?: string;
  /** false: a redirect is the answer, judged by its status code (default true: followed up to maxRedirects). */
  followRedirects?: boolean;
}

/** How checks behave: the same policy for every site of an engine. */
export interface CheckPolicy {
  /** Allow every address, private, loopback and link-local ones included (PORCHLIGHT_ALLOW_PRIVATE_TARGETS). */
  allowPrivate: boolean;
  /** Addresses of a host name; the engine passes a cached resolver, tests a fixed one. */
  resolve?: (host: string) => Promise<string[]>;
  /** Redirects followed before the check fails. */
  maxRedirects?: number;
  /** Body bytes read (enough for detection); the rest is never read. */
  bodyCapBytes?: number;
  /** Extra trusted certificate authorities (PEM), besides the system's. */
  extraCa?: string[];
  /**
   * Judges every address before a socket connects to it, in place of `allowPrivate` and `addressRefusal`: null lets
   * the connection go ahead, a reason refuses it. The anonymous surface passes the same rule without `allowPrivate`
   * and with its own message.
   */
  refuseAddress?: (address: string) => string | null;
  /**
   * Refuse a server whose certificate does not verify before anything is sent (an alert's body and address are the
   * owner's): a check instead connects and reports the certificate as a finding.
   */
  verifyTls?: boolean;
}

export interface Certificate {
  subject: string;
  issuer: string;
  validFrom: string;
  validTo: string;
  /** Trusted chain, valid dates and the right host. */
  authorized: boolean;
  /** Why not, when not (OpenSSL's code, e.g. CERT_HAS_EXPIRED, ERR_TLS_CERT_ALTNAME_INVALID). */
  error: string | null;
}

/** One check's outcome as plain data: the checker measures, it never judges the site's health. */
export interface CheckResult {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  timings: {
    dnsMs: number | null;
    connectMs: number | null;
    tlsMs: number | null;
    firstByteMs: number | null;
    totalMs: number;
  };
  redirects: number;
  finalUrl: string;
  /** The address the last hop connected to. */
  address: string | null;
  certificate: Certificate | null;
  headers: Record<string, string>;
  /** The first bodyCapBytes of the final answer, as text. */
  body: string;
}

export const CHECK_DEFAULTS = { maxRedirects: 5, bodyCapBytes: 256 * 1024 } as const;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Whether a result is a redirect left unfollowed (past the caller's limit): an answer, but not the final one. */
export const unfollowedRedirect = (result: Pick<CheckResult, "statusCode" | "headers">) =>
  result.statusCode !== null && REDIRECTS.has(result.statusCode) && result.headers.location !== undefined;
const userAgent = (region = "local") => `Porchlight/0.1 (site monitoring; region ${region})`;

class CheckFailure extends Error {}

/**
 * Header names sent only to the site's own origin: the credentials a browser, fetch or curl drop on a hop to
 * another origin (`Authorization`, `Cookie`, `Proxy-Authorization`), and any name containing one of
 * `CREDENTIAL_NAME_PARTS` (`X-Api-Key`, `X-Auth-Token`, `Private-Token`, `X-Session-Id`…), since a site has no
 * field that marks a header secret and owners put their API keys in headers of any name.
 */
export const CREDENTIAL_HEADERS = ["authorization", "cookie", "proxy-authorization"] as const;
/** Parts of a header name (lowercase) that make it a credential wherever they stand in it. */
export const CREDENTIAL_NAME_PARTS = [
  "auth",
  "token",
  "secret",
  "key",
  "session",
  "cookie",
  "password",
  "passwd",
  "credential",
  "signature",
  "csrf",
  "xsrf",
] as const;

/** Whether a header (any case) is a credential: sent on hops of the site's own origin only. */
export function isCredentialHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return (
    (CREDENTIAL_HEADERS as readonly string[]).includes(lower) || CREDENTIAL_NAME_PARTS.some((p) => lower.includes(p))
  );
}

/** Headers that describe a request body; a redirect that turns the method into GET drops them with the body. */
const BODY_HEADERS = new Set([
  "content-type",
  "content-length",
  "content-encoding",
  "content-language",
  "content-location",
]);

/**
 * The method of the hop after a redirect, as browsers and fetch do it: a 303 turns everything but GET and HEAD into
 * GET, a 301 or 302 turns POST into GET; 307 and 308 keep the method.
 */
export function methodAfterRedirect(status: number, method: string): string {
  if (status === 303 && method !== "GET" && method !== "HEAD") return "GET";
  if ((status === 301 || status === 302) && method === "POST") return "GET";
  return method;
}

const round = (ms: number) => Math.round(ms * 10) / 10;

function describe(error: unknown, timeoutMs: number): string {
  const e = error as { name?: string; code?: string; message?: string; cause?: { code?: string } };
  if (e instanceof CheckFailure) return e.message;
  if (e.name === "TimeoutError" || e.name === "AbortError" || e.code === "UND_ERR_ABORTED") {
    return `timed out after ${timeoutMs} ms`;
  }
  if (e.name === "HTTPParserError") return `invalid HTTP response (${e.message})`;
  const code = e.code ?? e.cause?.code ?? "";
  const known: Record<string, string> = {
    ECONNREFUSED: "connection refused",
    ECONNRESET: "connection reset by the server",
    UND_ERR_SOCKET: "connection closed by the server",
    EHOSTUNREACH: "host unreachable",
    ENETUNREACH: "network unreachable",
    ENOTFOUND: "DNS: host not found",
    EAI_AGAIN: "DNS: lookup failed (temporary)",
    UND_ERR_HEADERS_TIMEOUT: `timed out after ${timeoutMs} ms waiting for the response`,
    UND_ERR_BODY_TIMEOUT: `timed out after ${timeoutMs} ms reading the response`,
    HPE_INVALID_CONSTANT: "invalid HTTP response",
    HPE_INVALID_STATUS: "invalid HTTP response",
    HPE_INVALID_HEADER_TOKEN: "invalid HTTP response",
    HPE_INVALID_VERSION: "invalid HTTP response",
    EPROTO: "TLS handshake failed",
  };
  if (known[code]) return known[code] as string;
  if (code.startsWith("HPE_")) return "invalid HTTP response";
  if (code.startsWith("ERR_SSL") || code.includes("TLS")) return `TLS handshake failed (${code})`;
  return code ? `${code}: ${e.message ?? ""}`.trim() : (e.message ?? "check failed");
}

/**
 * Checks one site over HTTP or HTTPS, following redirects by hand so that every hop's address is checked
 * against the policy where the socket really connects. Every bound holds: total time (the site's timeout),
 * redirects, and body bytes read; a target that hangs, trickles, floods or speaks garbage ends within the timeout
 * as a failed check with a reason.
 */
export async function checkHttp(target: CheckTarget, policy: CheckPolicy): Promise<CheckResult> {
  const started = performance.now();
  const deadline = AbortSignal.timeout(target.timeoutMs);
  const maxRedirects = policy.maxRedirects ?? CHECK_DEFAULTS.maxRedirects;
  const cap = policy.bodyCapBytes ?? CHECK_DEFAULTS.bodyCapBytes;
  const timings: CheckResult["timings"] = { dnsMs: null, connectMs: null, tlsMs: null, firstByteMs: null, totalMs: 0 };
  let url = target.url;
  let method = target.method;
  let headers = target.headers;
  /** The target as sent on this hop: its body goes to its own origin only. */
  let sent = target;
  let redirects = 0;
  let address: string | null = null;
  let certificate: Certificate | null = null;
  const seen = new Set<string>();
  const finish = (partial: Partial<CheckResult> & { ok: boolean; error: string | null }): CheckResult => ({
    statusCode: null,
    headers: {},
    body: "",
    ...partial,
    timings: { ...timings, totalMs: round(performance.now() - started) },
    redirects,
    finalUrl: url,
    address,
    certificate,
  });
  try {
    for (;;) {
      const hop = new URL(url);
      if (hop.protocol !== "http:" && hop.protocol !== "https:") {
        throw new CheckFailure(`refused: only http and https can be checked, not ${hop.protocol}`);
      }
      seen.add(hop.href);
      const host = hop.hostname.replace(/^\[|\]$/g, "");
      const dnsStarted = performance.now();
      const addresses = isIP(host) ? [host] : await (policy.resolve ?? resolveAll)(host);
      if (!isIP(host)) timings.dnsMs = round(performance.now() - dnsStarted);
      const chosen = addresses[0];
      if (!chosen) throw new CheckFailure(`DNS: ${host} has no address`);
      const refused = targetRefusal(host, chosen, policy);
      if (refused !== null) throw new CheckFailure(refused);
      address = chosen;
      const hopResult = await request(hop, host, chosen, method, headers, sent, policy, deadline, cap, timings);
      if (hopResult.certificate) certificate = hopResult.certificate;
      const location = hopResult.headers.location;
      if (REDIRECTS.has(hopResult.statusCode) && location && target.followRedirects !== false) {
        const next = new URL(location, hop);
        // The limit first: a caller that follows none (an alert's) never has an address named in an error. The
        // redirect's own status is the answer's (a receiver's 302 is logged as 302).
        if (redirects >= maxRedirects) {
          const error = `too many redirects (more than ${maxRedirects})`;
          return finish({ ok: false, error, statusCode: hopResult.statusCode, headers: hopResult.headers });
        }
        if (seen.has(next.href)) throw new CheckFailure(`redirect loop at ${next.href}`);
        redirects++;
        // Scheme, host or port changed. Once left out they stay out, also if a later hop comes back: the other
        // origin chose that URL, and the credentials are not its to aim (curl would send them again there).
        if (next.origin !== hop.origin) {
          headers = headers.filter((h) => !isCredentialHeader(h.name) && h.name.toLowerCase() !== "host");
          // Nor the body, which often holds a credential too (a login form, an API key): a 307 or 308 to another
          // origin is followed without it, as a GET would be.
          if (sent.body !== undefined) {
            const { body: _left, ...withoutBody } = sent;
            sent = withoutBody;
            headers = headers.filter((h) => !BODY_HEADERS.has(h.name.toLowerCase()));
          }
        }
        const nextMethod = methodAfterRedirect(hopResult.statusCode, method);
        if (nextMethod !== method) headers = headers.filter((h) => !BODY_HEADERS.has(h.name.toLowerCase()));
        method = nextMethod;
        url = next.href;
        continue;
      }
      const code = hopResult.statusCode;
      let error: string | null = null;
      if (certificate && !certificate.authorized) error = `certificate: ${certificate.error}`;
      else if (target.errorCodes.includes(code)) error = `HTTP ${code} is listed as an error code`;
      else if (!target.successCodes.includes(code) && code >= 400) error = `HTTP ${code}`;
      return finish({ ok: error === null, error, statusCode: code, headers: hopResult.headers, body: hopResult.body });
    }
  } catch (caught) {
    return finish({ ok: false, error: describe(caught, target.timeoutMs) });
  }
}

async function request(
  hop: URL,
  host: string,
  addressToUse: string,
  method: string,
  ownHeaders: CheckTarget["headers"],
  target: CheckTarget,
  policy: CheckPolicy,
  deadline: AbortSignal,
  cap: number,
  timings: CheckResult["timings"],
): Promise<{ statusCode: number; headers: Record<string, string>; body: string; certificate: Certificate | null }> {
  const https = hop.protocol === "https:";
  const port = Number(hop.port || (https ? 443 : 80));
  let certificate: Certificate | null = null;
  const connectStarted = performance.now();
  const client = new Client(hop.origin, {
    pipelining: 0,
    connect(_options, callback) {
      let socket: Socket | TLSSocket;
      const fail = (error: Error) => callback(error, null);
      if (https) {
        const secureContext = contextFor(policy);
        const tlsSocket = tlsConnect({
          host: addressToUse,
          port,
          servername: isIP(host) ? undefined : host,
          // Verified below, not refused: an invalid certificate is a finding to report with its reason (unless the
          // policy must not send to such a server at all).
          rejectUnauthorized: policy.verifyTls ?? false,
          ALPNProtocols: ["http/1.1"],
          ...(secureContext ? { secureContext } : {}),
        });
        tlsSocket.once("connect", () => {
          timings.connectMs = round(performance.now() - connectStarted);
        });
        tlsSocket.once("secureConnect", () => {
          timings.tlsMs = round(performance.now() - connectStarted - (timings.connectMs ?? 0));
          const peer = tlsSocket.getPeerCertificate();
          // Node sets authorizationError for the chain, the dates and the host name (servername) alike.
          const error = tlsSocket.authorizationError ? String(tlsSocket.authorizationError) : null;
          certificate = peer?.valid_to
            ? {
                subject: String(peer.subject?.CN ?? ""),
                issuer: storableText(String(peer.issuer?.O ?? peer.issuer?.CN ?? "")),
                validFrom: isoOrEpoch(peer.valid_from),
                validTo: isoOrEpoch(peer.valid_to),
                authorized: error === null,
                error,
              }
            : null;
          callback(null, tlsSocket);
        });
        socket = tlsSocket;
      } else {
        socket = tcpConnect({ host: addressToUse, port });
        socket.once("connect", () => {
          timings.connectMs = round(performance.now() - connectStarted);
          callback(null, socket);
        });
      }
      socket.once("error", fail);
      return socket;
    },
  });
  try {
    const headers: Record<string, string> = {
      "user-agent": userAgent(target.region),
      accept: "*/*",
      "accept-encoding": "identity",
    };
    for (const h of ownHeaders) headers[h.name.toLowerCase()] = h.value;
    const response = await client.request({
      path: `${hop.pathname}${hop.search}`,
      method,
      headers,
      ...(target.body !== undefined && method !== "GET" && method !== "HEAD" ? { body: target.body } : {}),
      signal: deadline,
      headersTimeout: target.timeoutMs,
      bodyTimeout: target.timeoutMs,
    });
    timings.firstByteMs ??= round(performance.now() - connectStarted);
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body) {
      const buffer = chunk as Buffer;
      chunks.push(size + buffer.length > cap ? buffer.subarray(0, cap - size) : buffer);
      size += buffer.length;
      if (size >= cap) break;
    }
    response.body.destroy();
    const flat: Record<string, string> = {};
    for (const [name, value] of Object.entries(response.headers)) {
      if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(", ") : value;
    }
    return {
      statusCode: response.statusCode,
      headers: flat,
      body: Buffer.concat(chunks).toString("utf8"),
      certificate,
    };
  } finally {
    void client.destroy().catch(() => {});
  }
}
