import { describe, expect, test } from "vitest";
import { parseDomainInput } from "../../server/anon/domain-input.ts";

const EXAMPLE = "send a domain name such as example.com";
const IP = `domain: IP addresses are not accepted; ${EXAMPLE}`;
const PORT = "domain: ports are not accepted: a snapshot looks at https on 443 and http on 80";
const USERINFO = `domain: user names and passwords (an @ before the host) are not accepted; ${EXAMPLE}`;
const LABELS =
  "domain: each part of a domain name is 1 to 63 letters, digits or hyphens, not starting or ending with a hyphen";
const scheme = (name: string) => `domain: only http:// and https:// addresses are accepted, not ${name}:; ${EXAMPLE}`;
const noSuffix = (host: string) => `domain: ${host} does not end in a public suffix such as .com or .de; ${EXAMPLE}`;
const suffixOnly = (host: string) => `domain: ${host} is a public suffix, not a registered domain; ${EXAMPLE}`;

describe("accepted, and what they become", () => {
  test.each([
    ["example.com", "example.com"],
    ["  Example.COM\n", "example.com"],
    ["https://Example.com/pricing", "example.com"],
    ["http://example.com", "example.com"],
    ["HTTPS://WWW.Example.com/a/b?c=d#e", "www.example.com"],
    ["https://example.com?utm=1", "example.com"],
    ["https://example.com#top", "example.com"],
    ["example.com/pricing", "example.com"],
    ["http://example.com#@evil.test", "example.com"],
    ["http://example.com/@evil.test", "example.com"],
    ["example.com.", "example.com"],
    ["https://example.com./", "example.com"],
    ["www.example.com", "www.example.com"],
    ["a.b.c.example.co.uk", "a.b.c.example.co.uk"],
    ["bücher.de", "xn--bcher-kva.de"],
    ["https://BÜCHER.de/", "xn--bcher-kva.de"],
    ["xn--bcher-kva.de", "xn--bcher-kva.de"],
    ["ｅｘａｍｐｌｅ．ｃｏｍ", "example.com"],
    ["münchen.bayern", "xn--mnchen-3ya.bayern"],
    ["a-b--c.com", "a-b--c.com"],
    ["123.com", "123.com"],
    [`${"a".repeat(63)}.com`, `${"a".repeat(63)}.com`],
    // 253 characters, the longest name DNS allows
    [`${"abcdefghi.".repeat(25)}com`, `${"abcdefghi.".repeat(25)}com`],
    // A private suffix is ignored: the registrable domain is blogspot.com, which is fine.
    ["someone.blogspot.com", "someone.blogspot.com"],
    // Accepted as a name: that it resolves to loopback is the fetcher's business, at connect time.
    ["127.0.0.1.nip.io", "127.0.0.1.nip.io"],
  ])("%j → %s", (raw, domain) => {
    expect(parseDomainInput(raw)).toEqual({ ok: true, domain });
  });
});

describe("refused, each with what is wrong", () => {
  test.each([
    // not a string, too long, empty
    [undefined, `domain: must be a string; ${EXAMPLE}`],
    [null, `domain: must be a string; ${EXAMPLE}`],
    [42, `domain: must be a string; ${EXAMPLE}`],
    [["example.com"], `domain: must be a string; ${EXAMPLE}`],
    [{ domain: "example.com" }, `domain: must be a string; ${EXAMPLE}`],
    [`${"a".repeat(2045)}.com`, `domain: at most 2,048 characters; ${EXAMPLE}`],
    ["", `domain: empty; ${EXAMPLE}`],
    ["   \t ", `domain: empty; ${EXAMPLE}`],
    ["https://", `domain: no host name found; ${EXAMPLE}`],
    ["https:///path", `domain: no host name found; ${EXAMPLE}`],
    // other schemes
    ["ftp://example.com", scheme("ftp")],
    ["file:///etc/passwd", scheme("file")],
    ["javascript:alert(1)", scheme("javascript")],
    ["data:text/html,<script>alert(1)</script>", scheme("data")],
    ["gopher://example.com/", scheme("gopher")],
    ["mailto:someone@example.com", scheme("mailto")],
    ["ws://example.com", scheme("ws")],
    ["http:example.com", `domain: write http:// or https:// in full, or ${EXAMPLE}`],
    ["https:/example.com", `domain: write http:// or https:// in full, or ${EXAMPLE}`],
    // user info
    ["user@example.com", USERINFO],
    ["https://user:pass@example.com/", USERINFO],
    ["http://example.com@evil.test/", USERINFO],
    ["http://example.com\\@evil.test/", USERINFO],
    // ports
    ["example.com:8080", PORT],
    ["example.com:443", PORT],
    ["https://example.com:8443/path", PORT],
    ["example.com:", PORT],
    // IP literals in every spelling
    ["127.0.0.1", IP],
    ["http://127.0.0.1/", IP],
    ["2130706433", IP],
    ["http://2130706433/", IP],
    ["0177.0.0.1", IP],
    ["0x7f.1", IP],
    ["0x7f000001", IP],
    ["127.1", IP],
    ["10.1", IP],
    ["93.184.215.14", IP],
    ["１２７.０.０.１", IP],
    ["%31%32%37.0.0.1", IP],
    ["[::1]", IP],
    ["http://[::1]:80/", IP],
    ["https://[::ffff:127.0.0.1]/", IP],
    ["::1", IP],
    ["fe80::1", IP],
    ["2606:4700:4700::1111", IP],
    ["127.0.0.1.", IP],
    // labels and length
    ["exa_mple.com", LABELS],
    ["-example.com", LABELS],
    ["example-.com", LABELS],
    ["example..com", LABELS],
    ["example.com..", LABELS],
    [".example.com", LABELS],
    [`${"a".repeat(64)}.com`, LABELS],
    // 255 characters
    [`${"abcdefghi.".repeat(25)}co.uk`, "domain: a domain name is at most 253 characters long"],
    ["exa mple.com", `domain: not a valid domain name; ${EXAMPLE}`],
    ["<script>.com", `domain: not a valid domain name; ${EXAMPLE}`],
    ["xn--zz.com", `domain: not a valid domain name; ${EXAMPLE}`],
    // not under a public suffix, or a suffix itself
    ["localhost", noSuffix("localhost")],
    ["localhost.", noSuffix("localhost")],
    ["foo.local", noSuffix("foo.local")],
    ["intranet", noSuffix("intranet")],
    ["example.internal", noSuffix("example.internal")],
    ["router.lan", noSuffix("router.lan")],
    ["example.invalidtld", noSuffix("example.invalidtld")],
    ["com", suffixOnly("com")],
    ["co.uk", suffixOnly("co.uk")],
    ["https://com/", suffixOnly("com")],
  ])("%j", (raw, message) => {
    expect(parseDomainInput(raw)).toEqual({ ok: false, message });
  });

  test("no refusal repeats unchecked input back", () => {
    const payload = "<img src=x onerror=alert(1)>";
    for (const raw of [payload, `${payload}.com`, `https://${payload}/`, `a.${payload}`]) {
      const result = parseDomainInput(raw);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.message).not.toMatch(/[<>]/);
    }
  });

  // Linear work takes milliseconds; a backtracking pattern fails on the test's timeout (no wall-clock assertion).
  test("the longest accepted input and a 100,000-character one are answered", () => {
    expect(parseDomainInput(`https://example.com/${"a/".repeat(1000)}`)).toEqual({ ok: true, domain: "example.com" });
    expect(parseDomainInput("a:".repeat(1024)).ok).toBe(false);
    expect(parseDomainInput("a".repeat(100_000))).toEqual({
      ok: false,
      message: `domain: at most 2,048 characters; ${EXAMPLE}`,
    });
  }, 10_000);
});
