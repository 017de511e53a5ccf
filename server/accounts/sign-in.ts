import { createHmac, hash, randomBytes, timingSafeEqual } from "node:crypto";

export { SESSION_IDLE_MS, SESSION_MAX_MS } from "../contract/session.ts";

/** How long each one-time link works. */
export const LINK_LIFETIME_MS = {
  setup: 7 * 24 * 3600_000,
  invite: 7 * 24 * 3600_000,
  reset: 3600_000,
} as const;

/**
 * The session cookie: HttpOnly, SameSite=Lax, Path=/. Over HTTPS it is also Secure and named with the `__Host-`
 * prefix, which browsers accept only from this very host, Secure, with Path=/ and no Domain: a sibling subdomain
 * cannot plant or shadow it.
 */
export const SESSION_COOKIE = "porchlight_session";
export const SECURE_SESSION_COOKIE = "__Host-porchlight_session";

/** The cookie's name over HTTPS (`secure`) or plain HTTP. */
export function sessionCookieName(secure: boolean): string {
  return secure ? SECURE_SESSION_COOKIE : SESSION_COOKIE;
}

/** The dashboard's address for a one-time link; the secret goes after `#`, so no server log or Referer carries it. */
export function linkUrl(publicUrl: string, kind: "setup" | "reset" | "invite", token: string): string {
  const screen = kind === "invite" ? "join" : kind === "reset" ? "reset" : "setup";
  return `${publicUrl}/dashboard/${screen}#token=${token}`;
}

/** A new random secret for a cookie, a CSRF token or a link: 32 bytes, base64url. */
export function newSecret(): string {
  return randomBytes(32).toString("base64url");
}

/** What the store keeps of a cookie or a link: its SHA-256 (the secret carries 256 bits, a fast hash is enough). */
export function secretHash(secret: string): string {
  return hash("sha256", secret, "hex");
}

/** A secret of ours: 43 base64url characters. Anything else names nothing and costs no query. */
export function looksLikeSecret(value: string | undefined): value is string {
  return value !== undefined && /^[A-Za-z0-9_-]{43}$/.test(value);
}

export function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

// TOTP (RFC 6238): HMAC-SHA1, 30-second steps, 6 digits, what every authenticator app reads from an otpauth:// URI.
const STEP_SECONDS = 30;
const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/** A new TOTP secret: 20 random bytes, base32 as authenticator apps take it. */
export function newTotpSecret(): string {
  let bits = "";
  for (const byte of randomBytes(20)) bits += byte.toString(2).padStart(8, "0");
  let out = "";
  for (let i = 0; i < bits.length; i += 5) out += BASE32[Number.parseInt(bits.slice(i, i + 5), 2)];
  return out;
}

function base32Bytes(secret: string): Buffer {
  let bits = "";
  for (const char of secret.replace(/[\s=]/g, "").toUpperCase()) {
    const value = BASE32.indexOf(char);
    if (value < 0) throw new Error("not base32");
    bits += value.toString(2).padStart(5, "0");
  }
  const bytes: number[] = [];
  for (let i = 0; i + 8 <= bits.length; i += 8) bytes.push(Number.parseInt(bits.slice(i, i + 8), 2));
  return Buffer.from(bytes);
}

/** The code of a secret at a time step (RFC 4226's dynamic truncation). */
export function totpCode(secret: string, step: number): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(step));
  const mac = createHmac("sha1", base32Bytes(secret)).update(counter).digest();
  const offset = (mac[mac.length - 1] as number) & 0xf;
  const value = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(value % 1_000_000).padStart(6, "0");
}

/** True when `code` is the secret's code now, a step before or a step after (a phone's clock drifts). */
export function totpMatches(secret: string, code: string, now: Date): boolean {
  if (!/^\d{6}$/.test(code)) return false;
  const step = Math.floor(now.getTime() / 1000 / STEP_SECONDS);
  let found = false;
  for (const s of [step - 1, step, step + 1]) found = sameText(totpCode(secret, s), code) || found;
  return found;
}

/** The URI an authenticator app scans (as a QR code) or takes pasted. */
export function totpUri(secret: string, email: string, issuer: string): string {
  const label = encodeURIComponent(`${issuer}:${email}`);
  return `otpauth://totp/${label}?secret=${secret}&issuer=${encodeURIComponent(issuer)}&algorithm=SHA1&digits=6&period=${STEP_SECONDS}`;
}
