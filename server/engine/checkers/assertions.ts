import { storableText } from "../../contract/common.ts";
import type { HttpAssertions } from "../../contract/monitor.ts";

/** What a JSON path found: `value` is set when `found` (and may itself be null, a JSON null). */
export interface JsonQuery {
  found: boolean;
  value?: unknown;
}

const NOT_FOUND: JsonQuery = { found: false };

/** One step of a path: a member name (`.name`, `["name"]`) or an array index (`[0]`). */
type Step = { name: string } | { index: number };

const isNameStart = (c: string) => (c >= "A" && c <= "Z") || (c >= "a" && c <= "z") || c === "_" || c === "$";
const isDigit = (c: string) => c >= "0" && c <= "9";
const isNamePart = (c: string) => isNameStart(c) || isDigit(c) || c === "-";

/**
 * The steps of a path in JSON_PATH's syntax (contract/monitor.ts), or null when it is not one. A scanner that moves
 * forward one character at a time, so any input ends in time linear in its length. In `["..."]` a backslash takes
 * the next character as it is: `\"` is a quote, `\\` a backslash.
 */
function parsePath(path: string): Step[] | null {
  if (path[0] !== "$") return null;
  const steps: Step[] = [];
  let i = 1;
  while (i < path.length) {
    if (path[i] === ".") {
      const start = ++i;
      if (!isNameStart(path[i] ?? "")) return null;
      while (i < path.length && isNamePart(path[i] as string)) i++;
      steps.push({ name: path.slice(start, i) });
    } else if (path[i] === "[" && path[i + 1] === '"') {
      let name = "";
      i += 2;
      for (;;) {
        const c = path[i];
        if (c === undefined) return null;
        if (c === '"') break;
        if (c === "\\") {
          const escaped = path[i + 1];
          if (escaped === undefined) return null;
          name += escaped;
          i += 2;
        } else {
          name += c;
          i++;
        }
      }
      if (name === "" || path[i + 1] !== "]") return null;
      i += 2;
      steps.push({ name });
    } else if (path[i] === "[") {
      const start = ++i;
      while (i < path.length && isDigit(path[i] as string)) i++;
      // Six digits at most, as JSON_PATH allows: an index is never a number too large to read exactly.
      if (i === start || i - start > 6 || path[i] !== "]") return null;
      steps.push({ index: Number(path.slice(start, i)) });
      i++;
    } else {
      return null;
    }
  }
  return steps;
}

/**
 * The value at `path` in a parsed JSON value. Names are looked up among an object's own members only, so
 * `$.constructor` or `$.__proto__` never reach what JavaScript puts behind every object (a body's own `"__proto__"`
 * member is found, as the data it is). A name is read on objects only and an index on arrays only. A path that does
 * not follow the syntax finds nothing. Never throws.
 */
export function queryJson(value: unknown, path: string): JsonQuery {
  if (typeof path !== "string") return NOT_FOUND;
  const steps = parsePath(path);
  if (steps === null) return NOT_FOUND;
  let current: unknown = value;
  try {
    for (const step of steps) {
      if ("index" in step) {
        if (!Array.isArray(current) || step.index >= current.length) return NOT_FOUND;
        current = current[step.index];
      } else {
        if (typeof current !== "object" || current === null || Array.isArray(current)) return NOT_FOUND;
        if (!Object.hasOwn(current, step.name)) return NOT_FOUND;
        current = (current as Record<string, unknown>)[step.name];
      }
    }
  } catch {
    // Only a value that is not parsed JSON gets here (a getter or a proxy that throws): it has nothing to find.
    return NOT_FOUND;
  }
  return { found: true, value: current };
}

/** How much of a remote or configured value a failure sentence quotes. */
export const QUOTED_MAX = 80;

/**
 * Text cut to `max` characters with "…", never inside a surrogate pair, and storable (no NUL): a remote value may
 * be 256 KiB long or hold anything.
 */
export function clip(text: string, max = QUOTED_MAX): string {
  if (text.length <= max) return storableText(text);
  let end = max;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return storableText(`${text.slice(0, end)}…`);
}

/** A value as JSON, quoted in a sentence (undefined, which JSON has not, as the word). */
function quoted(value: unknown): string {
  return clip(JSON.stringify(value) ?? "undefined");
}

/** The answer's value of a header, whatever the case of either name; undefined when it is not there. */
function headerValue(headers: Record<string, string>, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === wanted) return value;
  }
  return undefined;
}

function keywordFailure(keyword: NonNullable<HttpAssertions["keyword"]>, body: string): string | null {
  const found = keyword.caseSensitive
    ? body.includes(keyword.text)
    : body.toLowerCase().includes(keyword.text.toLowerCase());
  const text = `'${clip(keyword.text)}'`;
  if (keyword.absent) return found ? `${text} found in the body` : null;
  return found ? null : `${text} not found in the body`;
}

function jsonFailure(json: NonNullable<HttpAssertions["json"]>, body: string): string | null {
  let parsed: unknown;
  try {
    // A byte order mark is not JSON, but servers send one; it says nothing about the content.
    parsed = JSON.parse(body.charCodeAt(0) === 0xfeff ? body.slice(1) : body);
  } catch {
    return "the body is not JSON";
  }
  const path = clip(json.path);
  const result = queryJson(parsed, json.path);
  if (!result.found) return `${path} not found in the JSON body`;
  if (json.equals === undefined || result.value === json.equals) return null;
  return `${path} is ${quoted(result.value)}, expected ${quoted(json.equals)}`;
}

function headerFailure(header: NonNullable<HttpAssertions["header"]>, headers: Record<string, string>): string | null {
  const value = headerValue(headers, header.name);
  const name = clip(header.name);
  if (value === undefined) return `header ${name} missing`;
  if (header.contains === "" || value.toLowerCase().includes(header.contains.toLowerCase())) return null;
  return `header ${name} is ${quoted(value)}, expected it to contain ${quoted(header.contains)}`;
}

/**
 * The first assertion the answer fails (keyword, then JSON, then header), as a short sentence such as
 * `'Add to cart' not found in the body` or `$.status is "degraded", expected "ok"`; null when all hold. `body` is
 * the body as read (its first 256 KiB). Quoted values are cut at QUOTED_MAX characters. Pure; never throws.
 */
export function assertionFailure(
  assertions: HttpAssertions,
  answer: { headers: Record<string, string>; body: string },
): string | null {
  if (assertions.keyword) {
    const failure = keywordFailure(assertions.keyword, answer.body);
    if (failure !== null) return failure;
  }
  if (assertions.json) {
    const failure = jsonFailure(assertions.json, answer.body);
    if (failure !== null) return failure;
  }
  if (assertions.header) return headerFailure(assertions.header, answer.headers);
  return null;
}
