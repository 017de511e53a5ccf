/**
 * Credentials the server must use again (an alert channel's webhook address, a bot token), sealed at rest: AES-256-GCM
 * under a key that is not in the database, so a copy of the database (a backup, a dump) holds none of them in the
 * clear. The key is PORCHLIGHT_SECRET_KEY when set (every process of a deployment on several machines needs the same),
 * else a key file in the data directory, made on first use (mode 0600).
 */
import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const VERSION = "v1";

export class SecretBox {
  #key: Buffer | undefined;
  #linkKey: Buffer | undefined;

  /** `secret`: PORCHLIGHT_SECRET_KEY, or undefined for the data directory's key file. */
  constructor(
    private readonly secret: string | undefined,
    private readonly dataDir: string,
  ) {}

  /** The file's key, made if there is none yet (by whichever process comes first: `wx` makes one only). */
  #fileKey(): string {
    const file = join(this.dataDir, "secret.key");
    if (!existsSync(file)) {
      mkdirSync(this.dataDir, { recursive: true });
      try {
        writeFileSync(file, `${randomBytes(32).toString("base64")}\n`, { flag: "wx", mode: 0o600 });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      chmodSync(file, 0o600);
    }
    return readFileSync(file, "utf8").trim();
  }

  #keyBytes(): Buffer {
    this.#key ??= createHash("sha256")
      .update(this.secret ?? this.#fileKey())
      .digest();
    return this.#key;
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.#keyBytes(), iv);
    const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
    return [VERSION, iv.toString("base64"), cipher.getAuthTag().toString("base64"), body.toString("base64")].join(":");
  }

  /**
   * A link's token for `nonce` (a subscriber's confirm or manage link), which only this key reproduces: HMAC-SHA256
   * under a key of its own derived from this one, base64url (43 characters). The store keeps the nonce and the
   * token's hash, so that a copy of the database cannot make a working link.
   */
  token(nonce: string): string {
    this.#linkKey ??= createHash("sha256").update("porchlight link tokens\0").update(this.#keyBytes()).digest();
    return createHmac("sha256", this.#linkKey).update(nonce).digest("base64url");
  }

  /** The sealed text; throws when it was sealed under another key or altered. */
  open(sealed: string): string {
    const [version, iv, tag, body] = sealed.split(":");
    if (version !== VERSION || !iv || !tag || body === undefined) throw new Error("not a sealed secret");
    const decipher = createDecipheriv("aes-256-gcm", this.#keyBytes(), Buffer.from(iv, "base64"));
    decipher.setAuthTag(Buffer.from(tag, "base64"));
    return Buffer.concat([decipher.update(Buffer.from(body, "base64")), decipher.final()]).toString("utf8");
  }
}
