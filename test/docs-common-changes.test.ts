import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";

/**
 * The "Add a dashboard screen" recipe of the documentation's Common changes names the maintenance screen as the
 * reference implementation and counts its controllers in one sentence. The screen is code that changes; this holds
 * the sentence to what screens/maintenance/ really constructs, so that the recipe cannot drift from its example.
 */

const ROOT = join(import.meta.dirname, "..");
const PAGE = join(ROOT, "docs/src/content/docs/common-changes.md");
const SCREEN = join(ROOT, "components/porchlight-dashboard/screens/maintenance");

/** Each controller the pattern knows, and what constructing it looks like in a screen's source. */
const CONSTRUCTIONS: Record<string, RegExp> = {
  Task: /\bnew Task\s*[<(]/g,
  FormController: /\bnew FormController\s*\(/g,
  consumeMe: /\bconsumeMe\s*\(/g,
  PollController: /\bnew PollController\s*[<(]/g,
  ContextConsumer: /\bnew ContextConsumer\s*[<(]/g,
};

/** The screen's own files: the element and the parts in its folder that the element renders. */
const sources = readdirSync(SCREEN)
  .filter((name) => name.endsWith(".ts"))
  .map((name) => ({
    name,
    text: readFileSync(join(SCREEN, name), "utf8").replace(/^\s*(\/\/.*|\*.*|\/\*\*.*)$/gm, ""),
  }));

/** How many times each controller is constructed across the screen's files. */
function constructed(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const [controller, pattern] of Object.entries(CONSTRUCTIONS)) {
    // consumeMe's own definition lives in lib/, never in a screen: every call here is a construction.
    const n = sources.reduce((sum, { text }) => sum + [...text.matchAll(pattern)].length, 0);
    if (n > 0) counts.set(controller, n);
  }
  return counts;
}

/** The sentence "The maintenance screen uses N controllers: …" (up to its first full stop that ends a clause). */
function sentence(): { count: number; text: string } {
  const page = readFileSync(PAGE, "utf8").replace(/\s+/g, " ");
  const match = page.match(/The maintenance screen uses (\d) controllers?: (.*?\.)(?: [A-Z]|$)/);
  if (!match) throw new Error('common-changes.md has no sentence "The maintenance screen uses N controllers: …"');
  return { count: Number(match[1]), text: match[2] as string };
}

describe("the Common changes recipe's reference implementation", () => {
  test("the screen folder exists and constructs controllers", () => {
    expect(sources.map((s) => s.name)).toContain("maintenance.ts");
    expect([...constructed().values()].reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
  });

  test("the sentence's count is the number of controllers constructed in screens/maintenance/", () => {
    const total = [...constructed().values()].reduce((a, b) => a + b, 0);
    expect(sentence().count).toBe(total);
  });

  test("every controller the sentence names is constructed there, and every one constructed is named", () => {
    const { text } = sentence();
    const named = Object.keys(CONSTRUCTIONS).filter((controller) => new RegExp(`\\b${controller}\\b`).test(text));
    expect(named.length).toBeGreaterThan(0);
    const counts = constructed();
    for (const controller of named)
      expect(counts.get(controller) ?? 0, `${controller} is constructed`).toBeGreaterThan(0);
    expect([...counts.keys()].sort()).toEqual([...named].sort());
  });
});
