import { createHmac, hash, randomBytes, scrypt, timingSafeEqual } from "node:crypto";

const TOKEN_PREFIX = "pl_";

/** A new API token: 32 random bytes, shown to its owner once and stored only as its hash. */
export function generateToken(): string {
  return TOKEN_PREFIX + randomBytes(32).toString("base64url");
}

/**
 * SHA-256 of a token. Tokens carry 256 bits of randomness, so a fast hash is enough to make a stolen table
 * useless; a slow hash would only cost every request.
 */
export function hashToken(token: string): string {
  return hash("sha256", token, "hex");
}

export function looksLikeToken(value: string): boolean {
  return value.length <= 200 && value.startsWith(TOKEN_PREFIX);
}

// scrypt cost N=2^15, r=8, p=1, OWASP's recommended floor: 32 MiB and about 90-150 ms of CPU per hash on the 2-core
// machines here (npm run bench:passwords measures it), on one of libuv's 4 threads. That cost is why status-page
// password checks run within a budget (pageAccess in http/page-access.ts, WorkBudget in http/rate-limit.ts).
const SCRYPT = { N: 32768, r: 8, p: 1, keylen: 32, maxmem: 64 * 1024 * 1024 } as const;

function scryptAsync(password: string, salt: Buffer, params: { N: number; r: number; p: number }): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize("NFC"), salt, SCRYPT.keylen, { ...params, maxmem: SCRYPT.maxmem }, (err, key) =>
      err ? reject(err) : resolve(key),
    );
  });
}

/** A status-page password as `scrypt$N$r$p$salt$hash` (base64url). */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, SCRYPT);
  return ["scrypt", SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString("base64url"), key.toString("base64url")].join("$");
}

/** Compares a candidate with a stored hash in constant time. Case, spaces and every character count. */
export async function verifyPassword(candidate: string, stored: string): Promise<boolean> {
  const [kind, n, r, p, salt, hash] = stored.split("$");
  if (kind !== "scrypt" || !salt || !hash) return false;
  const expected = Buffer.from(hash, "base64url");
  const key = await scryptAsync(candidate, Buffer.from(salt, "base64url"), {
    N: Number(n),
    r: Number(r),
    p: Number(p),
  });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

const processKey = randomBytes(32);

/**
 * A keyed fingerprint of a password that was verified, kept in memory only so that repeat requests with the same
 * right password skip scrypt. The key never leaves the process.
 */
export function passwordFingerprint(password: string): Buffer {
  return createHmac("sha256", processKey).update(password.normalize("NFC")).digest();
}

export function sameFingerprint(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}
