// @vitest-environment happy-dom
import { describe, expect, test } from "vitest";
import { $, answers, isoDay, item, json, mount, page, root, settle } from "./helpers.ts";

/**
 * An item's days are one slider whose value is a day: the arrow keys, Home and End pick one, and the tooltip shows its
 * date and uptime. happy-dom lays nothing out, so every day counts as shown (the narrow form's 30 days are covered in
 * Chromium, test/e2e/history.test.ts). The slider's value and text are rendered from the day picked, a render after
 * the key.
 */
describe("keyboard: one slider over the daily bars", () => {
  async function slider(locale = "en") {
    answers(() =>
      json(
        page({
          items: [
            item({
              history: [
                { date: isoDay(0), uptime: 100, downtime_minutes: 0 },
                { date: isoDay(3), uptime: 96, downtime_minutes: 58 },
                { date: isoDay(5), uptime: 100, downtime_minutes: 0 },
              ],
            }),
          ],
        }),
      ),
    );
    const el = await mount({ locale });
    const history = $(el, '[part="history"]') as HTMLElement;
    const tip = $(el, ".tip") as HTMLElement;
    press = async (target: HTMLElement, key: string) => {
      const event = new KeyboardEvent("keydown", { key, bubbles: true, composed: true, cancelable: true });
      target.dispatchEvent(event);
      await el.updateComplete;
      return event;
    };
    return {
      el,
      history,
      tip,
      now: () => history.getAttribute("aria-valuenow"),
      said: () => history.getAttribute("aria-valuetext"),
    };
  }
  let press: (target: HTMLElement, key: string) => Promise<KeyboardEvent>;
  const day = (daysAgo: number) =>
    new Intl.DateTimeFormat("en-US", { dateStyle: "medium", timeZone: "UTC" }).format(new Date(isoDay(daysAgo)));
  /** A day's text: its date, then its lines (uptime, time down). */
  const says = (daysAgo: number, ...lines: string[]) => [day(daysAgo), ...lines].join("\n");
  const perfect = ["100% uptime", "No downtime"];

  test("the bars are one tab stop, a slider over the days whose value starts at today", async () => {
    const { el, history, tip } = await slider();
    expect(history.getAttribute("role")).toBe("slider");
    expect(history.getAttribute("tabindex")).toBe("0");
    expect(history.getAttribute("aria-valuemax")).toBe("6");
    expect(history.getAttribute("aria-valuenow")).toBe("6");
    expect(history.getAttribute("aria-valuetext")).toBe(says(0, ...perfect));
    // Nothing else in the bars is focusable.
    expect(root(el).querySelectorAll('[part="history"] [tabindex]')).toHaveLength(0);
    expect(tip.hidden).toBe(true);
    history.focus();
    expect(tip.hidden).toBe(false);
    expect(tip.textContent).toBe(says(0, ...perfect));
  });

  test("ArrowLeft, ArrowRight, Home and End pick a day, shown in the value and the tooltip", async () => {
    const { history, tip, now, said } = await slider();
    history.focus();
    expect((await press(history, "ArrowLeft")).defaultPrevented).toBe(true);
    expect(now()).toBe("5");
    expect(said()).toBe(says(1, "no data"));
    await press(history, "ArrowLeft");
    await press(history, "ArrowLeft");
    expect(now()).toBe("3");
    // The engine's minutes down that day.
    expect(said()).toBe(says(3, "96.00% uptime", "58\u00a0minutes down"));
    expect(tip.textContent).toBe(said());
    await press(history, "ArrowRight");
    expect(now()).toBe("4");
    // Home: the first day with data (5 days ago), where the bars begin; none before it.
    await press(history, "Home");
    expect(now()).toBe("1");
    expect(history.getAttribute("aria-valuemin")).toBe("1");
    expect(tip.textContent).toBe(says(5, ...perfect));
    // Already the first: Home and ArrowLeft stay, and are still taken (no page scroll).
    expect((await press(history, "Home")).defaultPrevented).toBe(true);
    expect((await press(history, "ArrowLeft")).defaultPrevented).toBe(true);
    expect(now()).toBe("1");
    await press(history, "End");
    expect(now()).toBe("6");
    expect((await press(history, "ArrowRight")).defaultPrevented).toBe(true);
    expect(now()).toBe("6");
    // Up and Down as the slider pattern has them: a day later, a day earlier.
    await press(history, "ArrowDown");
    expect(now()).toBe("5");
    await press(history, "ArrowUp");
    expect(now()).toBe("6");
    // Other keys are the page's.
    expect((await press(history, "Enter")).defaultPrevented).toBe(false);
    expect((await press(history, "Tab")).defaultPrevented).toBe(false);
  });

  test("the day picked stays picked when the page refreshes, and the focus coming back shows it again", async () => {
    const { el, history, tip } = await slider();
    history.focus();
    await press(history, "Home");
    history.blur();
    expect(tip.hidden).toBe(true);
    el.requestUpdate();
    await el.updateComplete;
    expect(history.getAttribute("aria-valuenow")).toBe("1");
    expect(history.getAttribute("aria-valuetext")).toBe(says(5, ...perfect));
    history.focus();
    expect(tip.hidden).toBe(false);
    expect(tip.textContent).toBe(says(5, ...perfect));
  });

  test("a refresh with fewer days keeps the day picked within them, its value and text rendered anew", async () => {
    const display = { historyDays: 3, showUptime: true, showResponseTime: true, showIncidents: true };
    const history = [
      { date: isoDay(6), uptime: 100, downtime_minutes: 0 },
      { date: isoDay(1), uptime: 100, downtime_minutes: 0 },
      { date: isoDay(0), uptime: 100, downtime_minutes: 0 },
    ];
    answers(
      () => json(page({ items: [item({ history })] })),
      () => json(page({ display, items: [item({ history })] })),
    );
    const el = await mount({ locale: "en" });
    const bars = () => $(el, '[part="history"]') as HTMLElement;
    bars().focus();
    bars().dispatchEvent(
      new KeyboardEvent("keydown", { key: "Home", bubbles: true, composed: true, cancelable: true }),
    );
    await el.updateComplete;
    expect(bars().getAttribute("aria-valuenow")).toBe("0");
    el.reload();
    await settle(el);
    expect(bars().getAttribute("aria-valuemax")).toBe("2");
    // Six days ago is gone, and the bars now begin at the first day with data there is, yesterday.
    expect(bars().getAttribute("aria-valuenow")).toBe("1");
    expect(bars().getAttribute("aria-valuetext")).toBe(says(1, ...perfect));
  });

  test("Escape hides the tooltip wherever the focus is, and the next key shows it again", async () => {
    const { history, tip } = await slider();
    history.focus();
    expect(tip.hidden).toBe(false);
    await press(history, "Escape");
    expect(tip.hidden).toBe(true);
    await press(history, "ArrowLeft");
    expect(tip.hidden).toBe(false);
    // Escape from elsewhere in the document (a pointer user whose focus is on the host page).
    document.body.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
    expect(tip.hidden).toBe(true);
  });

  test("right to left: the arrows follow the reading direction (the section's dir, from a right-to-left locale)", async () => {
    const { el, history, now } = await slider("he");
    expect(root(el).querySelector("section")?.getAttribute("dir")).toBe("rtl");
    history.focus();
    await press(history, "ArrowRight"); // towards the past, which lies to the right
    expect(now()).toBe("5");
    await press(history, "ArrowLeft");
    expect(now()).toBe("6");
    await press(history, "ArrowRight");
    await press(history, "ArrowRight");
    expect(now()).toBe("4");
  });
});
