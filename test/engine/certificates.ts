import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface Pair {
  key: string;
  cert: string;
}

export interface TestCertificates {
  ca: string;
  /** For localhost, 127.0.0.1 and (example.com and its subdomains), signed by the test CA, valid for 10 days from now. */
  valid: Pair;
  /** Signed by the test CA, valid in January 2020 only. */
  expired: Pair;
  /** Signed by the test CA for other.test only. */
  wrongHost: Pair;
  /** For localhost, signed by itself. */
  selfSigned: Pair;
}

const openssl = (cwd: string, ...args: string[]) => execFileSync("openssl", args, { cwd, stdio: "pipe" });

/** Makes a test CA and leaf certificates with the openssl command line, in a fresh temporary directory. */
export function makeCertificates(): TestCertificates {
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
  const valid = leaf("valid", "DNS:localhost,IP:127.0.0.1,DNS:example.com,DNS:*.example.com");
  const expired = leaf("expired", "DNS:localhost,IP:127.0.0.1", ["20200101000000Z", "20200201000000Z"]);
  const wrongHost = leaf("wronghost", "DNS:other.test");
  selfSigned("self", "/CN=localhost", 10, "-addext", "subjectAltName=DNS:localhost");
  return {
    ca: read("ca.crt"),
    valid,
    expired,
    wrongHost,
    selfSigned: { key: read("self.key"), cert: read("self.crt") },
  };
}
