import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, test } from "vitest";
import { SecretBox } from "../../server/accounts/sealed.ts";

const dir = mkdtempSync(join(tmpdir(), "porchlight-sealed-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("sealed text opens with the same key only, and holds nothing of the plain text", () => {
  const box = new SecretBox("a key of at least thirty-two characters", dir);
  const plain = "https://hooks.slack.com/services/T0/B0/SECRET";
  const sealed = box.seal(plain);
  expect(sealed).toMatch(/^v1:/);
  expect(sealed).not.toContain("SECRET");
  // A fresh IV each time: the same text never seals the same.
  expect(box.seal(plain)).not.toBe(sealed);
  expect(box.open(sealed)).toBe(plain);
  expect(() => new SecretBox("another key of at least thirty-two chars", dir).open(sealed)).toThrow();
  const tampered = sealed.replace(/.$/, (c) => (c === "A" ? "B" : "A"));
  expect(() => box.open(tampered)).toThrow();
});

test("without PORCHLIGHT_SECRET_KEY, a key file is made once in the data directory, readable by its owner only", () => {
  const first = new SecretBox(undefined, join(dir, "data"));
  const sealed = first.seal("token");
  const file = join(dir, "data", "secret.key");
  expect(statSync(file).mode & 0o777).toBe(0o600);
  expect(readFileSync(file, "utf8").trim()).toMatch(/^[A-Za-z0-9+/]{43}=$/);
  // Another process (another box) reads the same key.
  expect(new SecretBox(undefined, join(dir, "data")).open(sealed)).toBe("token");
});
