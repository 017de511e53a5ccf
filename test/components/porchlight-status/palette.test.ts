import { describe, expect, test } from "vitest";
import { styles } from "../../../components/porchlight-status/porchlight-status.styles.ts";

/**
 * The history bars' colours, read from the styles as a browser would pick them: the last rule for a bar of that
 * class (`i.ok`, a bar being the element's only `i`, else `.ok`), its `color` with var() fallbacks resolved, split into light and dark.
 */
const css = styles.cssText.replace(/\/\*[\s\S]*?\*\//g, "");
function declared(selector: RegExp, property: string): string | undefined {
  let value: string | undefined;
  for (const [, selectors, body] of css.matchAll(/([^{}]+)\{([^{}]*)\}/g)) {
    if (!(selectors as string).split(",").some((s) => selector.test(s.trim()))) continue;
    const found = new RegExp(`(?:^|;)\\s*${property}\\s*:\\s*([^;]+)`).exec(body as string);
    if (found) value = (found[1] as string).trim();
  }
  return value;
}
function resolve(value: string): string {
  const v = /^var\((--[\w-]+)\s*(?:,\s*(.+))?\)$/.exec(value);
  if (!v) return value;
  const own = declared(/^:host$/, v[1] as string);
  return resolve(own ?? (v[2] as string));
}
function barColours(level: string): [string, string] {
  const value = declared(new RegExp(`^i\\.${level}$`), "color") ?? declared(new RegExp(`^\\.${level}$`), "color");
  const pair = /^light-dark\((#[\da-f]{6}),\s*(#[\da-f]{6})\)$/i.exec(resolve(value as string));
  if (!pair) throw new Error(`no light-dark pair for .${level}: ${value}`);
  return [pair[1] as string, pair[2] as string];
}

/** WCAG 2 relative luminance and contrast ratio. */
function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = Number.parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}
function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/** The day grades, best first (README, "Daily bars"): 100%, 99% and up, 95% and up, 75% and up, below. */
const GRADES = ["ok", "g1", "g2", "g3", "bad"];

describe("the history bars' palette", () => {
  test("computes contrast as WCAG does", () => {
    expect(contrast("#000000", "#ffffff")).toBeCloseTo(21);
    expect(contrast("#777777", "#ffffff")).toBeCloseTo(4.48, 2);
  });

  /** The card's background in a theme (0 light, 1 dark). */
  const background = (at: number) => {
    const short = resolve("var(--_bg)").match(/#[\da-f]+\b/gi)?.[at] as string;
    return short.length === 4 ? short.replace(/[\da-f]/gi, "$&$&") : short;
  };

  test.each([
    ["light", 0],
    ["dark", 1],
  ] as const)("every grade stands 3:1 against the card, in %s (WCAG 1.4.11)", (_theme, at) => {
    for (const grade of GRADES) {
      expect(contrast(barColours(grade)[at], background(at)), grade).toBeGreaterThanOrEqual(3);
    }
  });

  test.each([
    ["light", 0],
    ["dark", 1],
  ] as const)("the grades are an order of lightness, up and down at least 3:1 apart, in %s", (_theme, at) => {
    const colours = GRADES.map((grade) => barColours(grade)[at]);
    expect(contrast(colours[0] as string, colours[4] as string)).toBeGreaterThanOrEqual(3);
    // Each grade lies between its neighbours: the five read as an order, not by hue alone.
    const l = colours.map((c) => luminance(c as string));
    const direction = Math.sign((l[0] as number) - (l[4] as number));
    for (let i = 1; i < l.length; i++) {
      expect(Math.sign((l[i - 1] as number) - (l[i] as number)), `${GRADES[i - 1]} → ${GRADES[i]}`).toBe(direction);
    }
  });

  test.each([
    ["light", 0],
    ["dark", 1],
  ] as const)("a day without data is fainter than any day with data, in %s", (_theme, at) => {
    const none = barColours("none")[at];
    for (const level of GRADES) {
      expect(contrast(none, background(at))).toBeLessThan(contrast(barColours(level)[at], background(at)));
    }
  });
});
