// @vitest-environment happy-dom
import { describe, expect, test } from "vitest";
import { $$, answers, isoDay, item, json, mount, page, root } from "./helpers.ts";

describe("keyboard: a roving tabindex over the daily bars", () => {
  async function bars() {
    answers(() => json(page({ items: [item({ history: [{ date: isoDay(0), uptime: 100 }] })] })));
    const el = await mount();
    const list = $$(el, '[part="history"] > li');
    expect(list).toHaveLength(7);
    return { el, list };
  }
  const press = (target: HTMLElement, key: string) => {
    const event = new KeyboardEvent("keydown", { key, bubbles: true, composed: true, cancelable: true });
    target.dispatchEvent(event);
    return event;
  };
  const focusable = (list: HTMLElement[]) => list.filter((bar) => bar.tabIndex === 0).map((bar) => list.indexOf(bar));

  test("ArrowLeft, ArrowRight, Home and End move the one tab stop and the focus", async () => {
    const { el, list } = await bars();
    const active = () => list.indexOf(root(el).activeElement as HTMLElement);
    (list[6] as HTMLElement).focus();
    expect(active()).toBe(6);

    expect(press(list[6] as HTMLElement, "ArrowLeft").defaultPrevented).toBe(true);
    expect(focusable(list)).toEqual([5]);
    expect(active()).toBe(5);

    press(list[5] as HTMLElement, "ArrowLeft");
    expect(focusable(list)).toEqual([4]);
    expect(active()).toBe(4);

    press(list[4] as HTMLElement, "ArrowRight");
    expect(focusable(list)).toEqual([5]);
    expect(active()).toBe(5);

    press(list[5] as HTMLElement, "Home");
    expect(focusable(list)).toEqual([0]);
    expect(active()).toBe(0);

    press(list[0] as HTMLElement, "ArrowLeft"); // already first: stays
    expect(focusable(list)).toEqual([0]);
    expect(active()).toBe(0);

    press(list[0] as HTMLElement, "End");
    expect(focusable(list)).toEqual([6]);
    expect(active()).toBe(6);

    press(list[6] as HTMLElement, "ArrowRight"); // already last: stays
    expect(focusable(list)).toEqual([6]);
    expect(active()).toBe(6);

    const other = press(list[6] as HTMLElement, "Enter");
    expect(other.defaultPrevented).toBe(false);
    expect(focusable(list)).toEqual([6]);
  });

  test("Home on the first day is handled like every other move (no page scroll)", async () => {
    const { el, list } = await bars();
    press(list[6] as HTMLElement, "Home");
    expect(root(el).activeElement).toBe(list[0]);
    // End on the last day moves nowhere, yet is taken (default prevented) so the page does not scroll; Home on the
    // first day must be too. BUG: `Home: -at` is -0 there, which the handler reads as "not my key".
    expect(press(list[6] as HTMLElement, "End").defaultPrevented).toBe(true);
    press(list[6] as HTMLElement, "Home");
    expect(press(list[0] as HTMLElement, "Home").defaultPrevented).toBe(true);
    expect(focusable(list)).toEqual([0]);
  });

  test("a day focused by a click, then left with an arrow key, leaves exactly one tab stop", async () => {
    const { el, list } = await bars();
    // A click focuses an element with tabindex=-1; this is what it does, without moving the tab stop.
    (list[2] as HTMLElement).focus();
    expect(root(el).activeElement).toBe(list[2]);
    press(list[2] as HTMLElement, "ArrowRight");
    expect(root(el).activeElement).toBe(list[3]);
    // BUG: only the key's target loses tabindex=0, so today's bar keeps it too: two tab stops in one list.
    expect(focusable(list)).toEqual([3]);
  });

  test("right to left: the arrows follow the reading direction (the section's dir, from a right-to-left locale)", async () => {
    const { el, list } = await bars();
    el.locale = "he";
    await el.updateComplete;
    expect(root(el).querySelector("section")?.getAttribute("dir")).toBe("rtl");
    (list[6] as HTMLElement).focus();
    press(list[6] as HTMLElement, "ArrowRight"); // towards the past, which lies to the right
    expect(root(el).activeElement).toBe(list[5]);
    press(list[5] as HTMLElement, "ArrowLeft");
    expect(root(el).activeElement).toBe(list[6]);
    press(list[6] as HTMLElement, "ArrowRight");
    press(list[5] as HTMLElement, "ArrowRight");
    expect(root(el).activeElement).toBe(list[4]);
    expect(focusable(list)).toEqual([4]);
  });
});
