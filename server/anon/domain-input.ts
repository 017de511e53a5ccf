import { isIP } from "node:net";
import { domainToASCII, domainToUnicode } from "node:url";
import { parse } from "tldts";

export type DomainInput = { ok: true; domain: string } | { ok: false; message: string };

/** Longest input looked at; anything longer is refused before any parsing. */
export const DOMAIN_INPUT_MAX_CHARS = 2048;

const EXAMPLE = "send a domain name such as example.com";
const refuse = (message: string): DomainInput => ({ ok: false, message: `domain: ${message}` });

/**
 * A leading scheme (RFC 3986 syntax): `ftp://`, `file:///`, `javascript:`, `data:`; but not a host followed by a
 * port ("example.com:8080", "example.com:8080/path"), which is refused as a port.
 */
const SCHEME = /^([a-z][a-z0-9+.-]*):(?:\/\/|(?!\d*(?:[/?#]|$)))/;
/** One LDH label: letters, digits and hyphens, 1 to 63 characters, no hyphen first or last. Bounded, linear. */
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
/** A last label WHATWG URL parsing would read as a number, making the whole host an IPv4 address (or invalid). */
const NUMERIC_LABEL = /^(?:\d+|0x[0-9a-f]*)$/;

/**
 * The domain a stranger asks a snapshot of, read from what they typed. Rules, in order:
 *
 * 1. It must be a string of at most 2,048 characters.
 * 2. Surrounding spaces are trimmed and letters lowercased; an empty string is refused.
 * 3. A leading `http://` or `https://` is stripped; everything from the first `/`, `?` or `#` after the host
 *    is removed, with or without that prefix ("https://Example.com/pricing" → "example.com"); `http:` or
 *    `https:` without the two slashes is refused.
 * 4. Any other scheme (`ftp:`, `file:`, `javascript:`, `data:` …) is refused.
 * 5. User info (an `@` before the host) is refused.
 * 6. A port is refused: a snapshot looks at https on 443 and http on 80.
 * 7. One trailing dot is removed ("example.com." → "example.com").
 * 8. International names are converted to ASCII (punycode, "bücher.de" → "xn--bcher-kva.de").
 * 9. IP addresses are refused in every spelling: dotted (`127.0.0.1`), decimal (`2130706433`), octal
 *    (`0177.0.0.1`), hex (`0x7f.1`), short (`127.1`), IPv6 with or without brackets (`[::1]`).
 * 10. Every label is 1 to 63 letters, digits or hyphens, not starting or ending with a hyphen; the whole name
 *     is at most 253 characters.
 * 11. The name must end in an ICANN public suffix and have a registrable domain under it (public suffix list,
 *     private suffixes ignored): "localhost", "foo.local", "intranet", "example.internal" and "com" are refused.
 * 12. Subdomains are kept: "www.example.com" stays "www.example.com".
 *
 * Every refusal says what is wrong in a sentence fit for a 400 answer, never repeating the input unchecked.
 */
export function parseDomainInput(raw: unknown): DomainInput {
  if (typeof raw !== "string") return refuse(`must be a string; ${EXAMPLE}`);
  if (raw.length > DOMAIN_INPUT_MAX_CHARS) return refuse(`at most 2,048 characters; ${EXAMPLE}`);
  const text = raw.trim().toLowerCase();
  if (text === "") return refuse(`empty; ${EXAMPLE}`);

  let rest = text;
  const web = /^https?:\/\//.exec(text);
  if (web) rest = text.slice(web[0].length);
  else if (/^https?:/.test(text)) return refuse(`write http:// or https:// in full, or ${EXAMPLE}`);
  else {
    const scheme = SCHEME.exec(text);
    // A bare IPv6 address ("fe80::1") also looks like a scheme; it is refused below as an address.
    if (scheme && !isIP(text.split(/[/?#]/, 1)[0] ?? "")) {
      return refuse(`only http:// and https:// addresses are accepted, not ${scheme[1]?.slice(0, 32)}:; ${EXAMPLE}`);
    }
  }
  let host = rest.split(/[/?#]/, 1)[0] ?? "";
  if (host.includes("@")) return refuse(`user names and passwords (an @ before the host) are not accepted; ${EXAMPLE}`);
  if (host.startsWith("[") || isIP(host)) return refuse(`IP addresses are not accepted; ${EXAMPLE}`);
  if (host.includes(":")) return refuse("ports are not accepted: a snapshot looks at https on 443 and http on 80");
  if (host.endsWith(".")) host = host.slice(0, -1);
  if (host === "") return refuse(`no host name found; ${EXAMPLE}`);

  const ascii = domainToASCII(host);
  if (ascii === "" || !ascii.split(".").every(validPunycode)) return refuse(`not a valid domain name; ${EXAMPLE}`);
  if (isIP(ascii) || NUMERIC_LABEL.test(ascii.slice(ascii.lastIndexOf(".") + 1)) || isIP(urlHostname(ascii))) {
    return refuse(`IP addresses are not accepted; ${EXAMPLE}`);
  }
  if (ascii.length > 253) return refuse("a domain name is at most 253 characters long");
  if (!ascii.split(".").every((label) => LABEL.test(label))) {
    return refuse(
      "each part of a domain name is 1 to 63 letters, digits or hyphens, not starting or ending with a hyphen",
    );
  }
  const parsed = parse(ascii, { allowPrivateDomains: false });
  if (!parsed.isIcann) {
    return refuse(`${ascii} does not end in a public suffix such as .com or .de; ${EXAMPLE}`);
  }
  if (!parsed.domain) {
    return refuse(`${ascii} is a public suffix, not a registered domain; ${EXAMPLE}`);
  }
  return { ok: true, domain: ascii };
}

/**
 * An "xn--" label must decode to Unicode that encodes back to it. Node 20 and 22 refuse an undecodable one
 * ("xn--zz") in domainToASCII; Node 24 and later pass it through unchanged, so the round trip is checked here.
 */
function validPunycode(label: string): boolean {
  if (!label.startsWith("xn--")) return true;
  const unicode = domainToUnicode(label);
  return unicode !== "" && unicode !== label && domainToASCII(unicode) === label;
}

/** The host as WHATWG URL parsing normalizes it (numeric IPv4 spellings become dotted), or "" when it cannot. */
function urlHostname(host: string): string {
  try {
    return new URL(`http://${host}`).hostname;
  } catch {
    return "";
  }
}
