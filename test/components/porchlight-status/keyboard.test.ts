// @vitest-environment happy-dom
import { describe, expect, test } from "vitest";
import { $, answers, isoDay, item, json, mount, page, root } from "./helpers.ts";

/**
 * An item's days are one slider whose value is a day: the arrow keys, Home and End pick one, and the tooltip shows its
 * date and uptime. happy-dom lays nothing out, so every day counts as shown (the narrow form's 30 days are covered in
 * Chromium, test/e2e/history.test.ts), and it reflects no ARIA properties: the value is read as the property the
 * element sets (Chromium reflects it into aria-valuenow, which the end-to-end test reads).
 */
describe("keyboard: one slider over the daily bars", () => {
  async function slider(locale = "en") {
    answers(() =>
      json(
        page({
          items: [
            item({
              history: [
                { date: isoDay(0), uptime: 100 },
                { date: isoDay(3), uptime: 96 },
              ],
            }),
          ],
        }),
      ),
    );
    const el = await mount({ locale });
    const history = $(el, '[part="history"]') as HTMLElement & { ariaValueNow: string; ariaValueText: string };
    const tip = $(el, ".tip") as HTMLElement;
    return { el, history, tip };
  }
  const press = (target: HTMLElement, key: string) => {
    const event = new KeyboardEvent("keydown", { key, bubbles: true, composed: true, cancelable: true });
    target.dispatchEvent(event);
    return event;
  };
  const day = (daysAgo: number) =>
    new Intl.DateTimeFormat("en-US", { dateStyle: "medium", timeZone: "UTC" }).format(new Date(isoDay(daysAgo)));

  test("the bars are one tab stop, a slider over the days whose value starts at today", async () => {
    const { el, history, tip } = await slider();
    expect(history.getAttribute("role")).toBe("slider");
    expect(history.getAttribute("tabindex")).toBe("0");
    expect(history.getAttribute("aria-valuemax")).toBe("6");
    expect(history.getAttribute("aria-valuenow")).toBe("6");
    expect(history.getAttribute("aria-valuetext")).toBe(`${day(0)}: 100% uptime`);
    // Nothing else in the bars is focusable.
    expect(root(el).querySelectorAll('[part="history"] [tabindex]')).toHaveLength(0);
    expect(tip.hidden).toBe(true);
    history.focus();
    expect(tip.hidden).toBe(false);
    expect(tip.textContent).toBe(`${day(0)}: 100% uptime`);
  });

  test("ArrowLeft, ArrowRight, Home and End pick a day, shown in the value and the tooltip", async () => {
    const { history, tip } = await slider();
    history.focus();
    expect(press(history, "ArrowLeft").defaultPrevented).toBe(true);
    expect(history.ariaValueNow).toBe("5");
    expect(history.ariaValueText).toBe(`${day(1)}: no data`);
    press(history, "ArrowLeft");
    press(history, "ArrowLeft");
    expect(history.ariaValueNow).toBe("3");
    expect(history.ariaValueText).toBe(`${day(3)}: 96% uptime`);
    expect(tip.textContent).toBe(`${day(3)}: 96% uptime`);
    press(history, "ArrowRight");
    expect(history.ariaValueNow).toBe("4");
    press(history, "Home");
    expect(history.ariaValueNow).toBe("0");
    expect(tip.textContent).toBe(`${day(6)}: no data`);
    // Already the first: Home and ArrowLeft stay, and are still taken (no page scroll).
    expect(press(history, "Home").defaultPrevented).toBe(true);
    expect(press(history, "ArrowLeft").defaultPrevented).toBe(true);
    expect(history.ariaValueNow).toBe("0");
    press(history, "End");
    expect(history.ariaValueNow).toBe("6");
    expect(press(history, "ArrowRight").defaultPrevented).toBe(true);
    expect(history.ariaValueNow).toBe("6");
    // Other keys are the page's.
    expect(press(history, "Enter").defaultPrevented).toBe(false);
    expect(press(history, "Tab").defaultPrevented).toBe(false);
  });

  test("the day picked stays picked when the page refreshes, and the focus coming back shows it again", async () => {
    const { el, history, tip } = await slider();
    history.focus();
    press(history, "Home");
    history.blur();
    expect(tip.hidden).toBe(true);
    el.requestUpdate();
    await el.updateComplete;
    expect(history.getAttribute("aria-valuenow")).toBe("0");
    expect(history.getAttribute("aria-valuetext")).toBe(`${day(6)}: no data`);
    history.focus();
    expect(tip.hidden).toBe(false);
    expect(tip.textContent).toBe(`${day(6)}: no data`);
  });

  test("Escape hides the tooltip wherever the focus is, and the next key shows it again", async () => {
    const { history, tip } = await slider();
    history.focus();
    expect(tip.hidden).toBe(false);
    press(history, "Escape");
    expect(tip.hidden).toBe(true);
    press(history, "ArrowLeft");
    expect(tip.hidden).toBe(false);
    // Escape from elsewhere in the document (a pointer user whose focus is on the host page).
    document.body.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
    expect(tip.hidden).toBe(true);
  });

  test("right to left: the arrows follow the reading direction (the section's dir, from a right-to-left locale)", async () => {
    const { el, history } = await slider("he");
    expect(root(el).querySelector("section")?.getAttribute("dir")).toBe("rtl");
    history.focus();
    press(history, "ArrowRight"); // towards the past, which lies to the right
    expect(history.ariaValueNow).toBe("5");
    press(history, "ArrowLeft");
    expect(history.ariaValueNow).toBe("6");
    press(history, "ArrowRight");
    press(history, "ArrowRight");
    expect(history.ariaValueNow).toBe("4");
  });
});
