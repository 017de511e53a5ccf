import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface Pair {
  key: string;
  cert: string;
}

export interface TestCertificates {
  /**
   * The instant the certificates were made for: noon UTC of the real clock's day, so within 12 hours of the real
   * clock. A test clock set here sees `valid` expire in exactly 10 days (and a half), whatever today is, while
   * TLS, which reads the real clock, accepts it.
   */
  issuedAt: Date;
  ca: string;
  /** For localhost, 127.0.0.1 and (example.com and its subdomains), signed by the test CA, valid from two days
   * before `issuedAt` to 10.5 days after it. */
  valid: Pair;
  /** Signed by the test CA, valid in January 2020 only. */
  expired: Pair;
  /** Signed by the test CA for other.test only. */
  wrongHost: Pair;
  /** For localhost, signed by itself. */
  selfSigned: Pair;
}

const openssl = (cwd: string, ...args: string[]) => execFileSync("openssl", args, { cwd, stdio: "pipe" });

const DAY = 86_400_000;

/** openssl's GeneralizedTime: YYYYMMDDHHMMSSZ. */
const asn1Time = (at: number) =>
  new Date(at)
    .toISOString()
    .replace(/[-:T]/g, "")
    .replace(/\.\d+Z$/, "Z");

/** Noon UTC of `now`'s UTC day: a time of day fixed for tests, within 12 hours of `now`. */
export const noonOf = (now: Date) => new Date(Math.floor(now.getTime() / DAY) * DAY + DAY / 2);

/**
 * Makes a test CA and leaf certificates with the openssl command line, in a fresh temporary directory. Every date
 * is explicit and relative to `issuedAt` (by default noon of the real clock's day), never openssl's own clock.
 */
export function makeCertificates(issuedAt = noonOf(new Date())): TestCertificates {
  const from = asn1Time(issuedAt.getTime() - 2 * DAY);
  const dir = mkdtempSync(join(tmpdir(), "porchlight-certs-"));
  const read = (name: string) => readFileSync(join(dir, name), "utf8");
  /** A self-signed certificate `name`.crt with its key `name`.key. */
  const selfSigned = (name: string, subject: string, days: number, ...extra: string[]) =>
    openssl(
      dir,
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-keyout",
      `${name}.key`,
      "-out",
      `${name}.crt`,
      "-subj",
      subject,
      ...extra,
      "-days",
      String(days),
    );
  selfSigned("ca", "/O=Porchlight Test CA/CN=Porchlight Test CA", 30);
  writeFileSync(join(dir, "index.txt"), "");
  writeFileSync(join(dir, "serial"), "1000\n");
  writeFileSync(
    join(dir, "ca.cnf"),
    `[ca]\ndefault_ca = test\n[test]\ndir = ${dir}\ndatabase = $dir/index.txt\nnew_certs_dir = $dir\nserial = $dir/serial\ndefault_md = sha256\npolicy = any\nunique_subject = no\ndefault_days = 10\n[any]\ncommonName = supplied\n`,
  );
  const leaf = (name: string, san: string, dates?: [string, string]): Pair => {
    writeFileSync(join(dir, `${name}.ext`), `subjectAltName=${san}\n`);
    openssl(
      dir,
      "req",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-keyout",
      `${name}.key`,
      "-out",
      `${name}.csr`,
      "-subj",
      `/CN=${name}`,
    );
    openssl(
      dir,
      "ca",
      "-batch",
      "-notext",
      "-config",
      "ca.cnf",
      "-cert",
      "ca.crt",
      "-keyfile",
      "ca.key",
      "-in",
      `${name}.csr`,
      "-out",
      `${name}.crt`,
      "-extfile",
      `${name}.ext`,
      ...(dates ? ["-startdate", dates[0], "-enddate", dates[1]] : []),
    );
    return { key: read(`${name}.key`), cert: read(`${name}.crt`) };
  };
  const valid = leaf("valid", "DNS:localhost,IP:127.0.0.1,DNS:example.com,DNS:*.example.com", [
    from,
    asn1Time(issuedAt.getTime() + 10.5 * DAY),
  ]);
  const expired = leaf("expired", "DNS:localhost,IP:127.0.0.1", ["20200101000000Z", "20200201000000Z"]);
  const wrongHost = leaf("wronghost", "DNS:other.test", [from, asn1Time(issuedAt.getTime() + 10 * DAY)]);
  selfSigned("self", "/CN=localhost", 10, "-addext", "subjectAltName=DNS:localhost");
  return {
    issuedAt,
    ca: read("ca.crt"),
    valid,
    expired,
    wrongHost,
    selfSigned: { key: read("self.key"), cert: read("self.crt") },
  };
}
