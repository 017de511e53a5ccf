// @vitest-environment happy-dom
import { beforeEach, describe, expect, test, vi } from "vitest";
import { $, answers, calls, json, mount, page, problem, settle, stubFetch, text } from "./helpers.ts";

const FAKE_TIMERS: Parameters<typeof vi.useFakeTimers>[0] = {
  toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"],
};

describe("refresh (fake timers)", () => {
  beforeEach(() => {
    vi.useFakeTimers(FAKE_TIMERS);
    vi.setSystemTime(new Date("2026-11-21T12:00:00.000Z"));
  });

  test("every `refresh` seconds (default 60) the page is fetched again", async () => {
    answers(() => json(page()));
    const el = await mount();
    expect(calls).toHaveLength(1);
    vi.advanceTimersByTime(60_000 - 1);
    expect(calls).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(calls).toHaveLength(2);
    await settle(el);
    vi.advanceTimersByTime(60_000);
    expect(calls).toHaveLength(3);
    await settle(el);
  });

  test("refresh=30 refreshes every 30 s; below 10 s it waits 10 s", async () => {
    answers(() => json(page()));
    const el = await mount({ refresh: "30" });
    vi.advanceTimersByTime(30_000);
    expect(calls).toHaveLength(2);
    await settle(el);
    el.refresh = 2;
    await el.updateComplete;
    vi.advanceTimersByTime(9_999);
    expect(calls).toHaveLength(2);
    vi.advanceTimersByTime(1);
    expect(calls).toHaveLength(3);
    await settle(el);
  });

  test("refresh=0 never fetches again", async () => {
    answers(() => json(page()));
    await mount({ refresh: "0" });
    vi.advanceTimersByTime(60 * 60_000);
    expect(calls).toHaveLength(1);
  });

  test("no refresh while the document is hidden; it resumes when visible", async () => {
    answers(() => json(page()));
    const el = await mount();
    let hidden = true;
    Object.defineProperty(document, "hidden", { configurable: true, get: () => hidden });
    document.dispatchEvent(new Event("visibilitychange"));
    vi.advanceTimersByTime(10 * 60_000);
    expect(calls).toHaveLength(1);

    hidden = false;
    document.dispatchEvent(new Event("visibilitychange"));
    vi.advanceTimersByTime(0); // overdue: at once
    expect(calls).toHaveLength(2);
    await settle(el);
    vi.advanceTimersByTime(60_000);
    expect(calls).toHaveLength(3);
    await settle(el);
  });

  test("after a failed refresh the next attempt waits twice as long, then four times; success resets it", async () => {
    answers(
      () => json(page()),
      () => json({ success: false, message: "boom", code: 500, error: "internal" }, 500),
      () => new TypeError("Failed to fetch"),
      () => json(page()),
    );
    const el = await mount();
    vi.advanceTimersByTime(60_000);
    expect(calls).toHaveLength(2);
    await settle(el);
    expect(text(el)).toContain("Could not load the status.");
    expect(text($(el, '[part="header"] h2') as HTMLElement)).toBe("Acme Status");

    vi.advanceTimersByTime(120_000 - 1);
    expect(calls).toHaveLength(2);
    vi.advanceTimersByTime(1);
    expect(calls).toHaveLength(3);
    await settle(el);

    vi.advanceTimersByTime(240_000 - 1);
    expect(calls).toHaveLength(3);
    vi.advanceTimersByTime(1);
    expect(calls).toHaveLength(4);
    await settle(el);
    expect(text(el)).not.toContain("Could not load the status.");

    vi.advanceTimersByTime(60_000);
    expect(calls).toHaveLength(5);
    await settle(el);
  });

  test("the backoff stops growing at 16 times the interval", async () => {
    answers(
      () => json(page()),
      () => new TypeError("Failed to fetch"),
    );
    const el = await mount();
    vi.advanceTimersByTime(60_000);
    await settle(el);
    for (const factor of [2, 4, 8, 16, 16, 16]) {
      const before = calls.length;
      vi.advanceTimersByTime(factor * 60_000 - 1);
      expect(calls, `wait ${factor}x`).toHaveLength(before);
      vi.advanceTimersByTime(1);
      expect(calls, `wait ${factor}x`).toHaveLength(before + 1);
      await settle(el);
    }
    expect(text($(el, '[part="header"] h2') as HTMLElement)).toBe("Acme Status");
  });

  test("a first load that fails is retried, backing off", async () => {
    answers(
      () => json({ success: false, message: "boom", code: 503, error: "unavailable" }, 503),
      () => json(page()),
    );
    const el = await mount();
    vi.advanceTimersByTime(120_000 - 1);
    expect(calls).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(calls).toHaveLength(2);
    await settle(el);
    expect(text($(el, '[part="header"] h2') as HTMLElement)).toBe("Acme Status");
  });

  test("a page that needs a password is not polled", async () => {
    answers(() => problem(401, "password_required"));
    await mount();
    vi.advanceTimersByTime(60 * 60_000);
    expect(calls).toHaveLength(1);
  });

  test("removing the element stops refreshing and aborts a pending request; adding it back resumes", async () => {
    let stall = false;
    stubFetch(() => (stall ? new Promise<Response>(() => {}) : json(page())));
    const el = await mount();
    stall = true;
    vi.advanceTimersByTime(60_000);
    expect(calls).toHaveLength(2);
    const signal = calls[1]?.init.signal as AbortSignal;
    expect(signal.aborted).toBe(false);
    el.remove();
    expect(signal.aborted).toBe(true);
    vi.advanceTimersByTime(60 * 60_000);
    expect(calls).toHaveLength(2);

    stall = false;
    document.body.append(el);
    await el.updateComplete;
    expect(calls).toHaveLength(3);
    await settle(el);
    vi.advanceTimersByTime(60_000);
    expect(calls).toHaveLength(4);
    await settle(el);
  });

  test('"Updated … ago" stays current without a refetch', async () => {
    answers(() => json(page()));
    const el = await mount({ refresh: "0", locale: "en" });
    expect(text(el)).toContain("Updated now");
    vi.advanceTimersByTime(3 * 60_000);
    await el.updateComplete;
    expect(text(el)).toContain("Updated 3 minutes ago");
    expect(calls).toHaveLength(1);
  });
});
