import { describe, expect, test } from "vitest";
import { HttpAssertions, JSON_PATH, NO_ASSERTIONS } from "../../../server/contract/monitor.ts";
import { assertionFailure, clip, QUOTED_MAX, queryJson } from "../../../server/engine/checkers/assertions.ts";

const doc = {
  status: "ok",
  version: 3,
  healthy: true,
  nothing: null,
  checks: [{ state: "up" }, { state: "down", tags: ["a", "b"] }],
  "x-ray": { ok: true },
  "with space": 1,
  'q"uote': "quoted",
  "back\\slash": "backslashed",
  $weird_name: "dollar",
  "a-b": "dash",
  "0": "zero key",
  "": "empty key",
};

describe("queryJson", () => {
  test.each([
    ["$", doc],
    ["$.status", "ok"],
    ["$.version", 3],
    ["$.healthy", true],
    ["$.nothing", null],
    ["$.checks[0].state", "up"],
    ["$.checks[1].tags[1]", "b"],
    ["$.checks[001].state", "down"],
    ['$["x-ray"].ok', true],
    ['$["with space"]', 1],
    ['$["q\\"uote"]', "quoted"],
    ['$["back\\\\slash"]', "backslashed"],
    ['$["st\\atus"]', "ok"],
    ["$.$weird_name", "dollar"],
    ["$.a-b", "dash"],
    ['$["0"]', "zero key"],
    ['$["checks"][1]["state"]', "down"],
  ])("%s is found", (path, value) => {
    expect(JSON_PATH.test(path), "the contract accepts it").toBe(true);
    expect(queryJson(doc, path)).toEqual({ found: true, value });
  });

  test.each([
    "$.missing",
    "$.status.length",
    "$.checks.length",
    "$.checks[2]",
    "$.checks[0].state.x",
    "$[0]",
    '$.checks["0"]',
    "$.nothing.x",
    "$.__proto__",
    "$.constructor",
    "$.toString",
    "$.hasOwnProperty",
    "$.checks[0].constructor",
    '$["__proto__"]',
    '$["constructor"]["name"]',
  ])("%s is not found", (path) => {
    expect(queryJson(doc, path)).toEqual({ found: false });
  });

  test("a body's own __proto__ member is data, found as such; the prototype is never reached", () => {
    const parsed = JSON.parse('{"__proto__": {"polluted": 1}, "a": {}}');
    expect(queryJson(parsed, "$.__proto__.polluted")).toEqual({ found: true, value: 1 });
    expect(queryJson(parsed, "$.a.__proto__")).toEqual({ found: false });
    expect(queryJson(parsed, "$.a.polluted")).toEqual({ found: false });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  test.each([
    "",
    "status",
    "$.",
    "$..status",
    "$.1abc",
    "$[",
    "$[]",
    "$[-1]",
    "$[1.5]",
    "$[1234567]",
    '$[""]',
    '$["unclosed',
    '$["a"',
    '$["a\\',
    "$['single']",
    "$.status ",
    " $.status",
    "$.checks[*]",
    "$..*",
  ])("malformed path %j finds nothing", (path) => {
    expect(JSON_PATH.test(path), "the contract refuses it too").toBe(false);
    expect(queryJson(doc, path)).toEqual({ found: false });
  });

  test.each([
    ["a string", "text"],
    ["a number", 1],
    ["null", null],
    ["undefined", undefined],
    ["an array", [1, 2]],
    ["an object without a prototype", Object.create(null)],
  ])("never throws on %s", (_name, value) => {
    for (const path of ["$", "$.a", "$[0]", '$["a"]', "$.length", "$.__proto__"]) {
      expect(() => queryJson(value, path)).not.toThrow();
    }
    expect(queryJson(value, "$")).toEqual({ found: true, value });
  });

  test("never throws on a value whose getter throws, or a path that is not a string", () => {
    const hostile = {};
    Object.defineProperty(hostile, "a", {
      enumerable: true,
      get() {
        throw new Error("boom");
      },
    });
    expect(queryJson(hostile, "$.a")).toEqual({ found: false });
    expect(queryJson(doc, 42 as unknown as string)).toEqual({ found: false });
  });

  // Linear parsing takes milliseconds; quadratic or backtracking parsing of 100,000 characters fails on the test's
  // timeout (no wall-clock assertion: these machines are shared).
  test("a 100,000-character path is answered, not found", () => {
    expect(queryJson(doc, `$${".a".repeat(50_000)}`)).toEqual({ found: false });
    expect(queryJson(doc, `$["${"\\".repeat(100_000)}`)).toEqual({ found: false });
    expect(queryJson(doc, `$[${"9".repeat(100_000)}]`)).toEqual({ found: false });
  }, 10_000);
});

describe("assertionFailure", () => {
  const answer = (body: string, headers: Record<string, string> = {}) => ({ body, headers });
  const assertions = (partial: unknown) => HttpAssertions.parse(partial);

  test("no assertions: nothing fails", () => {
    expect(assertionFailure(NO_ASSERTIONS, answer(""))).toBeNull();
  });

  test.each([
    [{ text: "Add to cart" }, "<button>Add to cart</button>", null],
    [{ text: "Add to cart" }, "<button>ADD TO CART</button>", null],
    [{ text: "Add to cart" }, "<p>Sold out</p>", "'Add to cart' not found in the body"],
    [{ text: "Add to cart", caseSensitive: true }, "ADD TO CART", "'Add to cart' not found in the body"],
    [{ text: "Add to cart", caseSensitive: true }, "Add to cart", null],
    [{ text: "Error", absent: true }, "All good", null],
    [{ text: "Error", absent: true }, "Fatal error: out of memory", "'Error' found in the body"],
    [{ text: "Error", absent: true, caseSensitive: true }, "Fatal error", null],
    [{ text: "Error", absent: true, caseSensitive: true }, "Fatal Error", "'Error' found in the body"],
    [{ text: "x" }, "", "'x' not found in the body"],
  ])("keyword %j in %j: %j", (keyword, body, expected) => {
    expect(assertionFailure(assertions({ keyword }), answer(body))).toBe(expected);
  });

  test("a long keyword is quoted cut short", () => {
    const text = "k".repeat(256);
    const failure = assertionFailure(assertions({ keyword: { text } }), answer("nothing"));
    expect(failure).toBe(`'${"k".repeat(QUOTED_MAX)}…' not found in the body`);
  });

  test.each([
    ['{"status":"ok"}', { path: "$.status", equals: "ok" }, null],
    ['{"status":"ok"}', { path: "$.status" }, null],
    ['{"status":null}', { path: "$.status" }, null],
    ['{"status":null}', { path: "$.status", equals: null }, null],
    ['{"status":"degraded"}', { path: "$.status", equals: "ok" }, '$.status is "degraded", expected "ok"'],
    ['{"other":1}', { path: "$.status", equals: "ok" }, "$.status not found in the JSON body"],
    ['{"other":1}', { path: "$.status" }, "$.status not found in the JSON body"],
    ['{"n":1.0}', { path: "$.n", equals: 1 }, null],
    ['{"n":1e2}', { path: "$.n", equals: 100 }, null],
    ['{"n":-0}', { path: "$.n", equals: 0 }, null],
    ['{"n":"1"}', { path: "$.n", equals: 1 }, '$.n is "1", expected 1'],
    ['{"n":1}', { path: "$.n", equals: "1" }, '$.n is 1, expected "1"'],
    ['{"up":true}', { path: "$.up", equals: true }, null],
    ['{"up":"true"}', { path: "$.up", equals: true }, '$.up is "true", expected true'],
    ['{"up":0}', { path: "$.up", equals: false }, "$.up is 0, expected false"],
    ['{"v":null}', { path: "$.v", equals: "ok" }, '$.v is null, expected "ok"'],
    ['{"v":{"a":1}}', { path: "$.v", equals: "ok" }, '$.v is {"a":1}, expected "ok"'],
    ['{"v":[1]}', { path: "$.v", equals: 1 }, "$.v is [1], expected 1"],
    ['{"checks":[{"state":"up"}]}', { path: "$.checks[0].state", equals: "up" }, null],
    ['{"x-ray":{"ok":false}}', { path: '$["x-ray"].ok', equals: true }, '$["x-ray"].ok is false, expected true'],
    ['\uFEFF{"status":"ok"}', { path: "$.status", equals: "ok" }, null],
    ["{}", { path: "$.__proto__" }, "$.__proto__ not found in the JSON body"],
    ["{}", { path: "$.constructor" }, "$.constructor not found in the JSON body"],
    ["<html>Service Unavailable</html>", { path: "$.status" }, "the body is not JSON"],
    ["", { path: "$" }, "the body is not JSON"],
    ['{"status":"ok"', { path: "$.status" }, "the body is not JSON"],
    ["null", { path: "$" }, null],
    ["null", { path: "$.a" }, "$.a not found in the JSON body"],
  ])("JSON %j with %j: %j", (body, json, expected) => {
    expect(assertionFailure(assertions({ json }), answer(body))).toBe(expected);
  });

  test("a huge value is quoted cut short, and the sentence stays short", () => {
    const huge = "x".repeat(200_000);
    const failure = assertionFailure(
      assertions({ json: { path: "$.status", equals: "ok" } }),
      answer(JSON.stringify({ status: huge })),
    );
    expect(failure).toBe(`$.status is "${"x".repeat(QUOTED_MAX - 1)}…, expected "ok"`);
    expect(failure?.length).toBeLessThan(200);
    const nested = JSON.stringify({ status: Array.from({ length: 10_000 }, (_, i) => ({ i })) });
    const other = assertionFailure(assertions({ json: { path: "$.status", equals: "ok" } }), answer(nested));
    expect(other?.length).toBeLessThan(200);
  });

  test("a long expected value is cut short too", () => {
    const equals = "e".repeat(1024);
    const failure = assertionFailure(assertions({ json: { path: "$.a", equals } }), answer('{"a":1}'));
    expect(failure?.length).toBeLessThan(200);
  });

  test("a value is quoted as JSON: quotes, control characters and NUL escaped", () => {
    const failure = assertionFailure(
      assertions({ json: { path: "$.s", equals: "ok" } }),
      answer(JSON.stringify({ s: 'say "hi"\n\u0000' })),
    );
    expect(failure).toBe('$.s is "say \\"hi\\"\\n\\u0000", expected "ok"');
  });

  test("deeply nested JSON is answered, not a crash", () => {
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    expect(() => assertionFailure(assertions({ json: { path: "$[0][0]" } }), answer(deep))).not.toThrow();
  });

  test.each([
    [{ name: "X-Version", contains: "" }, { "x-version": "2.1" }, null],
    [{ name: "x-version", contains: "" }, { "X-Version": "2.1" }, null],
    [{ name: "x-version", contains: "2." }, { "x-version": "2.1" }, null],
    [{ name: "content-type", contains: "JSON" }, { "content-type": "application/json; charset=utf-8" }, null],
    [{ name: "x-version", contains: "" }, {}, "header x-version missing"],
    [
      { name: "x-version", contains: "3." },
      { "x-version": "2.1" },
      'header x-version is "2.1", expected it to contain "3."',
    ],
    [{ name: "x-version", contains: "" }, { "x-version": "" }, null],
  ])("header %j in %j: %j", (header, headers, expected) => {
    expect(assertionFailure(assertions({ header }), answer("", headers))).toBe(expected);
  });

  test("a header named like a prototype member is missing unless sent", () => {
    for (const name of ["constructor", "__proto__", "toString"]) {
      expect(assertionFailure(assertions({ header: { name, contains: "" } }), answer("", {}))).toBe(
        `header ${name} missing`,
      );
    }
  });

  test("a huge header value is quoted cut short", () => {
    const failure = assertionFailure(
      assertions({ header: { name: "x-big", contains: "needle" } }),
      answer("", { "x-big": "h".repeat(100_000) }),
    );
    expect(failure).toBe(`header x-big is "${"h".repeat(QUOTED_MAX - 1)}…, expected it to contain "needle"`);
  });

  test("the first failing assertion is the one named: keyword, then JSON, then header", () => {
    const all = assertions({
      keyword: { text: "ok" },
      json: { path: "$.status", equals: "ok" },
      header: { name: "x-version", contains: "3." },
    });
    expect(assertionFailure(all, answer('{"status":"down"}'))).toBe("'ok' not found in the body");
    expect(assertionFailure(all, answer('{"status":"ok!","ok":0}'))).toBe('$.status is "ok!", expected "ok"');
    expect(assertionFailure(all, answer('{"status":"ok"}'))).toBe("header x-version missing");
    expect(assertionFailure(all, answer('{"status":"ok"}', { "x-version": "3.0" }))).toBeNull();
  });
});

describe("clip", () => {
  test("never ends inside a surrogate pair, and makes NUL storable", () => {
    const text = `${"a".repeat(QUOTED_MAX - 1)}😀tail`;
    const cut = clip(text);
    expect(cut).toBe(`${"a".repeat(QUOTED_MAX - 1)}…`);
    expect(clip("a\0b")).toBe("a\uFFFDb");
    expect(clip("short")).toBe("short");
  });
});
