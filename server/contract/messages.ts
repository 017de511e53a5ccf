/**
 * The words of every field error the API answers, for the people who read them in a form: complete sentences that
 * begin with a capital letter, end with a full stop and name limits in words ("Use at most 100 characters."). The
 * validator's own words ("Too small: expected string to have >=1 characters") never reach an answer: every request
 * is parsed through withOwnerMessages (app.ts), which words the validator's issues by ownerMessage and brings a
 * schema's own message into the same form. Free of Node: the dashboard may import it.
 */
import { z } from "zod";

/** What a field is called in "Enter a name.", by the last part of its path; others are "a value". */
const NOUNS: Record<string, string> = {
  name: "a name",
  title: "a title",
  url: "a URL",
  message: "a message",
  email: "an e-mail address",
  password: "a password",
  slug: "a slug",
  label: "a label",
  start: "a start date and time",
  timeZone: "a time zone",
  tags: "a tag",
  durationMinutes: "a duration in minutes",
};

/** What the items of a list are called in "Use at most 10 tags.", by the list's name; others are "items". */
const ITEMS: Record<string, [one: string, many: string]> = {
  tags: ["tag", "tags"],
  headers: ["header", "headers"],
  sites: ["site", "sites"],
  regions: ["region", "regions"],
  to: ["address", "addresses"],
  channels: ["channel", "channels"],
  items: ["item", "items"],
  successCodes: ["code", "codes"],
  errorCodes: ["code", "codes"],
};

const count = (n: number | bigint) => Number(n).toLocaleString("en-US");
const plural = (n: number | bigint, [one, many]: [string, string]) => `${count(n)} ${Number(n) === 1 ? one : many}`;

/** A message as a sentence: a capital first letter and a full stop, whatever a schema wrote. */
export function sentence(text: string): string {
  const trimmed = text.trim();
  if (trimmed === "") return "Enter a valid value.";
  const capital = `${trimmed[0]?.toUpperCase()}${trimmed.slice(1)}`;
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}

/** A list of values as words: "a, b or c". */
const oneOf = (values: readonly unknown[]) => {
  const words = values.map((v) => (typeof v === "string" ? v : JSON.stringify(v)));
  return words.length <= 1 ? (words[0] ?? "") : `${words.slice(0, -1).join(", ")} or ${words.at(-1)}`;
};

type Issue = z.core.$ZodRawIssue;

const TYPE_WORDS: Record<string, string> = {
  string: "Enter text.",
  number: "Enter a number.",
  int: "Enter a whole number.",
  boolean: "Choose true or false.",
  array: "Give a list.",
  object: "Give an object with named fields.",
};

const FORMAT_WORDS: Record<string, string> = {
  email: "Enter an e-mail address such as name@example.com.",
  url: "Enter a URL starting with http:// or https://.",
  datetime: "Enter a date and time such as 2026-12-06T02:00:00Z.",
  date: "Enter a date such as 2026-12-06.",
};

function tooSmall(issue: Extract<Issue, { code: "too_small" }>, field: string): string {
  const min = issue.minimum;
  if (issue.origin === "string") {
    return Number(min) <= 1 ? `Enter ${NOUNS[field] ?? "a value"}.` : `Use at least ${count(min)} characters.`;
  }
  if (issue.origin === "array" || issue.origin === "set") {
    const items = ITEMS[field] ?? ["item", "items"];
    return Number(min) <= 1 ? `Give at least one ${items[0]}.` : `Give at least ${plural(min, items)}.`;
  }
  return issue.inclusive === false ? `Enter a number above ${count(min)}.` : `Enter ${count(min)} or more.`;
}

function tooBig(issue: Extract<Issue, { code: "too_big" }>, field: string): string {
  const max = issue.maximum;
  if (issue.origin === "string") return `Use at most ${count(max)} characters.`;
  if (issue.origin === "array" || issue.origin === "set") {
    return `Use at most ${plural(max, ITEMS[field] ?? ["item", "items"])}.`;
  }
  return issue.inclusive === false ? `Enter a number below ${count(max)}.` : `Enter ${count(max)} or less.`;
}

/**
 * The zod error map of the API's requests: each kind of issue worded for an owner. A schema's own message comes
 * first (zod asks it before this map); withOwnerMessages makes that one a sentence too.
 */
export const ownerMessage: z.core.$ZodErrorMap = (issue) => {
  const last = [...(issue.path ?? [])].reverse().find((key) => typeof key === "string");
  const field = typeof last === "string" ? last : "";
  switch (issue.code) {
    case "invalid_type":
      if (issue.input === undefined) return field in NOUNS ? `Enter ${NOUNS[field]}.` : "This field is required.";
      return TYPE_WORDS[issue.expected] ?? "Enter a valid value.";
    case "too_small":
      return tooSmall(issue, field);
    case "too_big":
      return tooBig(issue, field);
    case "invalid_format":
      if (issue.format === "regex") return "Use the format this field asks for.";
      return FORMAT_WORDS[issue.format] ?? `Enter a valid ${issue.format}.`;
    case "invalid_value":
      return `Choose ${oneOf(issue.values)}.`;
    case "not_multiple_of":
      return `Enter a multiple of ${count(Number(issue.divisor))}.`;
    case "unrecognized_keys":
      return "This field cannot be set here.";
    default:
      return "Enter a valid value.";
  }
};

/** What an unknown field is told: it does not exist, or is computed (an id, a state) and cannot be written. */
export const UNKNOWN_FIELD = "This field does not exist here or cannot be changed.";

/**
 * A schema whose issues are worded for owners: parsed with ownerMessage, every message made a sentence, and an
 * unknown field named one issue each (its path ends with it). Its output is the schema's.
 */
export function withOwnerMessages<S extends z.ZodType>(schema: S) {
  return z.unknown().transform((value, ctx): z.output<S> => {
    const result = schema.safeParse(value, { error: ownerMessage });
    if (result.success) return result.data;
    for (const issue of result.error.issues) {
      if (issue.code === "unrecognized_keys") {
        for (const key of issue.keys) {
          ctx.addIssue({ code: "custom", message: UNKNOWN_FIELD, path: [...issue.path, key], input: value });
        }
      } else {
        ctx.addIssue({ code: "custom", message: sentence(issue.message), path: issue.path, input: value });
      }
    }
    return z.NEVER;
  });
}
