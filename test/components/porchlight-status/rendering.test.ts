// @vitest-environment happy-dom
import { describe, expect, test } from "vitest";
import { formatsFor } from "../../../components/porchlight-status/format.ts";
import type { PorchlightStatus } from "../../../components/porchlight-status/porchlight-status.ts";
import { type OverallStatus, overallStatus } from "../../../server/contract/status.ts";
import type { Incident, ItemStatus, PublicItem } from "../../../server/contract/status-page.ts";
import {
  $,
  $$,
  API,
  answers,
  base,
  calls,
  DAY,
  isoDay,
  item,
  json,
  MINUTE,
  mount,
  page,
  pageWith,
  root,
  SLUG,
  settle,
  stubFetch,
  text,
} from "./helpers.ts";

describe("overallStatus and the banner", () => {
  // Name, statuses, overall status, its words, the banner's colour, the services it names as affected.
  const cases: [string, ItemStatus[], OverallStatus, string, string, string][] = [
    ["every item operational", ["operational", "operational"], "operational", "All systems operational", "ok", ""],
    ["operational with a paused item", ["operational", "paused"], "operational", "All systems operational", "ok", ""],
    ["one degraded", ["operational", "degraded"], "degraded", "Degraded performance", "warn", "Degraded: Service 1"],
    ["some outage", ["operational", "major_outage"], "partial", "Partial outage", "part", "Major outage: Service 1"],
    [
      "degraded and outage",
      ["degraded", "major_outage"],
      "partial",
      "Partial outage",
      "part",
      "Major outage: Service 1|Degraded: Service 0",
    ],
    [
      "a partial outage",
      ["partial_outage", "operational"],
      "partial",
      "Partial outage",
      "part",
      "Partial outage: Service 0",
    ],
    [
      "every watched item out",
      ["major_outage", "major_outage", "paused"],
      "major",
      "Major outage",
      "bad",
      "Major outage: Service 0 and Service 1",
    ],
    ["an item not checked yet", ["operational", "unknown"], "unknown", "Status unknown", "none", ""],
    ["only paused items", ["paused"], "unknown", "Status unknown", "none", ""],
    ["no items", [], "unknown", "Status unknown", "none", ""],
    [
      "three down of four",
      ["major_outage", "degraded", "operational", "major_outage"],
      "partial",
      "Partial outage",
      "part",
      "Major outage: Service 0 and Service 3|Degraded: Service 1",
    ],
  ];

  test.each(cases)("%s → %s", (_name, statuses, expected) => {
    expect(overallStatus(statuses.map((status) => ({ status })))).toBe(expected);
  });

  test.each(cases)(
    "%s: the banner says so in its colour, with an icon, naming what is affected, in a live region",
    async (_name, statuses, _status, words, look, affected) => {
      answers(() => json(pageWith(...statuses)));
      const el = await mount({ locale: "en-US" });
      const banner = $(el, '[part="banner"]') as HTMLElement;
      expect(banner.getAttribute("role")).toBe("status");
      expect(banner.className).toBe(look);
      expect(text(banner.querySelector("span") as HTMLElement)).toBe(words);
      // The services at fault by name under their own status's word, worst first (a paused or unknown one is not
      // at fault; a degraded one is not in an outage), as the locale lists them.
      const named = [...banner.querySelectorAll("p")].map((p) => text(p)).join("|");
      expect(named).toBe(affected);
      const mark = banner.querySelector("[data-mark]") as HTMLElement;
      expect(mark.getAttribute("aria-hidden")).toBe("true");
      expect(mark.getAttribute("data-mark")).not.toBe("");
    },
  );
});

describe("loading and the ready page", () => {
  test("while the request is pending a skeleton with a Loading… status shows", async () => {
    let release: (response: Response) => void = () => {};
    stubFetch(() => new Promise<Response>((resolve) => (release = resolve)));
    const el = await mount();
    expect(calls).toHaveLength(1);
    const skeleton = $(el, '[part="skeleton"]') as HTMLElement;
    expect(skeleton).not.toBeNull();
    expect(text(skeleton.querySelector('[role="status"]') as HTMLElement)).toBe("Loading…");
    expect($(el, '[part="items"]')).toBeNull();

    release(json(page()));
    await settle(el);
    expect($(el, '[part="skeleton"]')).toBeNull();
    expect(text($(el, "h2") as HTMLElement)).toBe("Acme Status");
  });

  test("name, description, items with words, icons, uptime and daily bars, and no per-check figures", async () => {
    const p = page({
      display: { historyDays: 7, showUptime: true, showResponseTime: true, showIncidents: true },
      items: [
        item({
          id: 1,
          label: "Website",
          status: "operational",
          uptime: 99.5,
          response_time: 120,
          last_check: new Date(Date.now() - 5 * MINUTE).toISOString(),
          history: [
            { date: isoDay(3), uptime: 97.5, downtime_minutes: 36 },
            { date: isoDay(0), uptime: 99.25, downtime_minutes: 11 },
          ],
        }),
        item({ id: 2, label: "Checkout", status: "major_outage", uptime: 80, response_time: 2500, history: [] }),
      ],
    });
    answers(() => json(p));
    const el = await mount({ locale: "en-US" });

    expect(text($(el, '[part="header"] h2') as HTMLElement)).toBe("Acme Status");
    expect(text($(el, '[part="header"] p') as HTMLElement)).toBe("Everything Acme runs.");
    expect(text($(el, '[part="banner"]') as HTMLElement)).toBe("Partial outageMajor outage: Checkout");

    const items = $$(el, '[part="item"]');
    expect(items).toHaveLength(2);
    // What is wrong leads (an embed with a service down): Checkout first, the operational Website folded after it.
    const [checkout, website] = items as [HTMLElement, HTMLElement];
    expect(text(website)).toContain("Website");
    expect(text(website)).toContain("Operational");
    expect(text(checkout)).toContain("Checkout");
    expect(text(checkout)).toContain("Major outage");
    for (const row of items) {
      // The status is a word plus an icon, not a colour alone.
      const mark = row.querySelector("[data-mark]") as HTMLElement;
      expect(mark.getAttribute("aria-hidden")).toBe("true");
      expect(mark.parentElement?.textContent).toMatch(/Operational|Major outage/);
    }
    expect((website.querySelector("[data-mark]") as HTMLElement).dataset.mark).not.toBe(
      (checkout.querySelector("[data-mark]") as HTMLElement).dataset.mark,
    );
    // One precision for every uptime: two decimals, 100 alone as "100%".
    expect(text(website)).toContain("99.50% uptime");
    expect(text(checkout)).toContain("80.00% uptime");
    // The latest check's time and response time change at every check and are the owner's to read, in the API.
    for (const row of items) expect(text(row)).not.toMatch(/\bms\b|checked|ago/);

    const day = new Intl.DateTimeFormat("en-US", { dateStyle: "medium", timeZone: "UTC" });
    const label = (daysAgo: number) => day.format(new Date(isoDay(daysAgo)));
    const history = website.querySelector('[part="history"]') as HTMLElement;
    expect(history.getAttribute("aria-label")).toBe("Website: daily uptime, 7 days");
    // One slider over the days, one tab stop, its value today's, its text today's date and uptime.
    expect(history.getAttribute("role")).toBe("slider");
    expect(history.getAttribute("tabindex")).toBe("0");
    expect(history.getAttribute("aria-valuemax")).toBe("6");
    expect(history.getAttribute("aria-valuenow")).toBe("6");
    // The first day with data is the first day of the bars (3 days ago).
    expect(history.getAttribute("aria-valuemin")).toBe("3");
    expect(history.getAttribute("aria-valuetext")).toMatch(
      // The engine's minutes down that day, not an estimate from the share of failed checks.
      new RegExp(`^${label(0)}\\n99\\.25% uptime\\n11\\sminutes down$`),
    );
    // One bar per run of days at one grade, oldest first, as wide as its days, from the first day with data: 97.5%
    // on day 3 (95% and up), no data, 99.25% today (99% and up).
    const runs = (row: HTMLElement) =>
      [...(row.querySelector('[part="history"]') as HTMLElement).children].map(
        (bar) => `${bar.className} ${(bar as HTMLElement).style.getPropertyValue("--d")}`,
      );
    expect(runs(website)).toEqual(["g2 1", "none 2", "g1 1"]);
    expect((website.getAttribute("style") ?? "").replace(/\s/g, "")).toBe("--days:7");
    // Under the bars, the first day with data and today.
    expect(text(website.querySelector(".axis .long") as HTMLElement)).toBe(label(3));
    // Checkout has no statistics yet: no bars at all, no axis.
    expect(checkout.querySelector('[part="history"]')).toBeNull();
    expect(checkout.querySelector(".axis")).toBeNull();
  });

  test("a service with today's data alone has one date under its bar, not the same date twice", async () => {
    const p = page({
      items: [item({ id: 1, label: "Website", history: [{ date: isoDay(0), uptime: 100 }] })],
    });
    answers(() => json(p));
    const el = await mount({ locale: "en-US" });
    const day = new Intl.DateTimeFormat("en-US", { dateStyle: "medium", timeZone: "UTC" });
    const axis = $(el, '[part="item"] .axis') as HTMLElement;
    expect(axis.children).toHaveLength(1);
    expect(text(axis)).toBe(day.format(new Date(isoDay(0))));
  });

  test("each item status has its own word and its own icon", async () => {
    const statuses: ItemStatus[] = ["operational", "degraded", "major_outage", "paused", "unknown"];
    answers(() => json(pageWith(...statuses)));
    const el = await mount({ locale: "en" });
    const rows = $$(el, '[part="item"] > div');
    // What is not operational leads, in the page's order; the operational one is folded after them.
    expect(rows.map(text)).toEqual([
      "Service 1Degraded",
      "Service 2Major outage",
      "Service 3Paused",
      "Service 4Unknown",
      "Service 0Operational",
    ]);
    const marks = rows.map((row) => row.querySelector("[data-mark]") as HTMLElement);
    expect(marks.every((mark) => mark.getAttribute("aria-hidden") === "true")).toBe(true);
    expect(new Set(marks.map((mark) => mark.dataset.mark)).size).toBe(5);
  });

  test("incidents: title, status word, start, duration and update messages; resolved ones with their end", async () => {
    const now = Date.now();
    const openStart = new Date(now - 2 * 60 * MINUTE).toISOString();
    const closedStart = new Date(now - 3 * DAY).toISOString();
    const closedEnd = new Date(now - 3 * DAY + 90 * MINUTE).toISOString();
    const incidents: Incident[] = [
      {
        id: 2,
        title: "Slow checkout",
        status: "identified",
        started_at: openStart,
        resolved_at: null,
        duration_minutes: null,
        impact: "none" as const,
        affected: [
          { id: 4, label: "Checkout", status: "major_outage" },
          { id: 7, label: "Payments $&", status: "degraded" },
        ],
        updates: [
          { timestamp: new Date(now - 60 * MINUTE).toISOString(), status: "identified", message: "A bad deploy." },
          { timestamp: openStart, status: "investigating", message: "Looking into slow payments." },
        ],
      },
      {
        id: 1,
        title: "Login outage",
        status: "resolved",
        started_at: closedStart,
        resolved_at: closedEnd,
        duration_minutes: 90,
        impact: "none" as const,
        affected: [],
        updates: [{ timestamp: closedEnd, status: "resolved", message: "Fixed by a restart." }],
      },
    ];
    answers(() => json(page({ incidents })));
    const el = await mount({ locale: "en-US" });
    // In this machine's zone, as the element shows it: format.test.ts holds the formats to fixed zones.
    const f = formatsFor("en-US");

    // The open incident is pinned above the services, the resolved one is past, under them.
    expect($$(el, "h3").map(text)).toEqual(["Active incidents", "Services", "Past incidents"]);
    const lists = $$(el, '[part="incidents"]');
    expect(lists.map((list) => list.previousElementSibling && text(list.previousElementSibling))).toEqual([
      "Active incidents",
      // Past incidents under the day they began, in the visitor's zone.
      f.day(closedStart),
    ]);
    // The phase as a neutral chip (no status colour); a past incident's updates behind one closed line.
    expect($$(el, '[part="incident"] > p > b').map((chip) => chip.className)).toEqual(["chip", "chip"]);
    expect($$(el, '[part="incident"] h4, [part="incident"] h5').map((h) => `${h.localName} ${text(h)}`)).toEqual([
      "h4 Slow checkout",
      "h5 Login outage",
    ]);
    // The services each affected, named in the locale's list; none named, no line.
    const affected = $$(el, '[part="incident"] > p')
      .map(text)
      .filter((line) => line.startsWith("Affected"));
    // Each with the status the incident gives it.
    expect(affected).toEqual(["Affected: Checkout Major outage, Payments $& Degraded"]);
    // The active incident shows its latest update, the earlier one folded behind one line.
    const [earlier, folded] = $$(el, '[part="incident"] details') as [HTMLDetailsElement, HTMLDetailsElement];
    expect(text(earlier.querySelector("summary") as HTMLElement)).toBe("+1 earlier update");
    expect(earlier.open).toBe(false);
    expect(text(earlier)).toContain("Looking into slow payments.");
    expect(folded.open).toBe(false);
    expect(text(folded.querySelector("summary") as HTMLElement)).toBe("Updates (1)");
    expect(folded.closest('[part="incident"]')?.textContent).toContain("Login outage");
    expect(lists[0]?.compareDocumentPosition($(el, '[part="items"]') as Node)).toBe(Node.DOCUMENT_POSITION_FOLLOWING);
    const rows = $$(el, '[part="incident"]');
    expect(rows).toHaveLength(2);
    const [open, closed] = rows.map(text) as [string, string];
    expect(open).toContain("Slow checkout");
    expect(open).toContain("Identified");
    expect(open).toContain(f.when(openStart));
    // Counted to now from the first render: a hair over two hours, which is two hours (seconds are no "about").
    expect(open).toMatch(/· 2\s+hours /);
    expect(open).not.toContain("about");
    expect(open).toContain("A bad deploy.");
    expect(open).toContain("Looking into slow payments.");
    expect(open).toContain("Investigating");
    expect(closed).toContain("Login outage");
    expect(closed).toContain("Resolved");
    expect(closed).toContain(`${f.when(closedStart)} – ${f.until(closedStart, closedEnd)}`);
    // From its start to its end, exactly: no "about".
    expect(closed).toContain("· 1 hour 30 minutes");
    expect(closed).toContain("Fixed by a restart.");
    expect(text(el)).not.toContain("No incidents.");
    const times = $$(el, '[part="incident"] time').map((time) => time.getAttribute("datetime"));
    expect(times).toContain(closedEnd);
  });

  test('"No incidents." when there are none', async () => {
    answers(() => json(page({ incidents: [] })));
    const el = await mount();
    expect($$(el, "h3").map(text)).toEqual(["Services", "Past incidents"]);
    expect(text(el)).toContain("No incidents.");
    expect($(el, '[part="incidents"]')).toBeNull();
  });

  test("showIncidents=false hides the incidents heading and list", async () => {
    const incident: Incident = {
      id: 1,
      title: "Hidden incident",
      status: "investigating",
      started_at: new Date().toISOString(),
      resolved_at: null,
      duration_minutes: null,
      impact: "none" as const,
      affected: [],
      updates: [],
    };
    const display = { historyDays: 7, showUptime: true, showResponseTime: true, showIncidents: false };
    answers(() => json(page({ display, incidents: [incident] })));
    const el = await mount();
    expect(text($(el, '[part="banner"]') as HTMLElement)).toBe("All systems operational");
    expect($$(el, "h3").map(text)).toEqual(["Services"]);
    expect(text(el)).not.toContain("Hidden incident");
    expect(text(el)).not.toContain("No incidents.");
  });

  test("showUptime=false hides the bars and the uptime", async () => {
    const display = { historyDays: 7, showUptime: false, showResponseTime: false, showIncidents: true };
    answers(() => json(page({ display, items: [item({ history: [{ date: isoDay(0), uptime: 99 }] })] })));
    const el = await mount({ locale: "en" });
    expect($$(el, '[part="item"]')).toHaveLength(1);
    expect($(el, '[part="history"]')).toBeNull();
    expect(text(el)).not.toContain("uptime");
    expect($(el, ".axis")).toBeNull();
  });
});

test("the daily bars come with the status, a few nodes per item (one per run of days at one level)", async () => {
  const p = pageWith("operational", "degraded");
  (p.items[0] as PublicItem).history = [{ date: new Date().toISOString().slice(0, 10), uptime: 100 }];
  answers(() => json(p));
  const el = document.createElement("porchlight-status") as PorchlightStatus;
  el.setAttribute("slug", SLUG);
  el.setAttribute("api-base", API);
  const atFirstPaint: number[] = [];
  el.addEventListener("porchlight-load", async () => {
    // The event comes just before the element asks for its render.
    await Promise.resolve();
    await el.updateComplete;
    atFirstPaint.push($$(el, '[part="history"]').length, $$(el, '[part="history"] > i').length);
    expect(text($(el, '[part="banner"] span') as HTMLElement)).toBe("Degraded performance");
  });
  document.body.append(el);
  await settle(el);
  // Two items of 7 days, one with today's statistics: its one bar (the bars begin at the first day with data);
  // the other, without any, has none.
  expect(atFirstPaint).toEqual([1, 1]);
  el.remove();
});

describe("text from the API stays text", () => {
  test("markup in the name, description, label, incident title and message creates no element", async () => {
    const evil = '<img src=x onerror=alert(1)><script>alert("x")</script>';
    answers(() =>
      json(
        page({
          name: `Name ${evil}`,
          description: `Description ${evil}`,
          items: [item({ label: `Label ${evil}` })],
          incidents: [
            {
              id: 1,
              title: `Title ${evil}`,
              status: "investigating",
              started_at: new Date().toISOString(),
              resolved_at: null,
              duration_minutes: null,
              impact: "none" as const,
              affected: [],
              updates: [{ timestamp: new Date().toISOString(), status: "investigating", message: `Message ${evil}` }],
            },
          ],
        }),
      ),
    );
    const el = await mount();
    const all = text(el);
    for (const where of ["Name", "Description", "Label", "Title", "Message"]) {
      expect(all).toContain(`${where} ${evil}`);
    }
    expect(root(el).querySelectorAll("img, script")).toHaveLength(0);
    expect(root(el).querySelectorAll("[onerror]")).toHaveLength(0);
  });

  test("an accent colour that is not #rrggbb cannot inject CSS", async () => {
    answers(() => json(page({ theme: { mode: "light", accentColor: "red;background:url(https://evil.test)" } })));
    const el = await mount();
    const style = base(el).getAttribute("style") ?? "";
    expect(style).not.toContain("evil");
    expect(style).toContain("--_accent:#2563eb");
  });
});

describe("what is wrong leads", () => {
  const openIncident: Incident = {
    id: 3,
    title: "Checkout is down",
    status: "investigating",
    started_at: new Date(Date.now() - 20 * MINUTE).toISOString(),
    resolved_at: null,
    duration_minutes: null,
    impact: "none" as const,
    affected: [],
    updates: [{ timestamp: new Date().toISOString(), status: "investigating", message: "Payments fail." }],
  };
  const pastIncident: Incident = {
    ...openIncident,
    id: 1,
    title: "Login outage",
    status: "resolved",
    resolved_at: new Date(Date.now() - 10 * MINUTE).toISOString(),
    duration_minutes: 10,
    impact: "none" as const,
    affected: [],
  };
  const labels = (el: PorchlightStatus, within = "") =>
    $$(el, `${within} [part="item"] > div > span:first-child`).map(text);

  test("an embed with a service down: it first, the operational ones folded behind one closed line", async () => {
    answers(() => json(pageWith("operational", "major_outage", "operational", "degraded")));
    const el = await mount({ locale: "en" });
    expect(labels(el)).toEqual(["Service 1", "Service 3", "Service 0", "Service 2"]);
    const others = $(el, '[part="others"]') as HTMLDetailsElement;
    expect(others.localName).toBe("details");
    expect(others.open).toBe(false);
    expect(text(others.querySelector("summary") as HTMLElement)).toBe("Operational (2)");
    expect(labels(el, '[part="others"]')).toEqual(["Service 0", "Service 2"]);
  });

  test("an embed with every service at fault folds nothing: no empty line to open", async () => {
    answers(() => json(pageWith("major_outage", "degraded", "paused")));
    const el = await mount({ locale: "en" });
    expect(labels(el)).toEqual(["Service 0", "Service 1", "Service 2"]);
    expect($(el, '[part="others"]')).toBeNull();
  });

  test("a service's name is shown as written in the affected list, dollar signs and all", async () => {
    answers(() => json(page({ items: [item({ label: "Pay$$ & $& Co", status: "major_outage" })] })));
    const el = await mount({ locale: "en" });
    expect(text($(el, '[part="banner"] p') as HTMLElement)).toBe("Major outage: Pay$$ & $& Co");
  });

  test("an embed where all is well lists every service in the page's order, nothing folded", async () => {
    answers(() => json(pageWith("operational", "paused", "operational")));
    const el = await mount({ locale: "en" });
    expect(labels(el)).toEqual(["Service 0", "Service 1", "Service 2"]);
    expect($(el, '[part="others"]')).toBeNull();
  });

  test("compact: a summary line, the active incident and the services at fault; the rest folded", async () => {
    answers(() =>
      json({ ...pageWith("operational", "major_outage", "operational"), incidents: [openIncident, pastIncident] }),
    );
    const el = await mount({ locale: "en", compact: true });
    // The summary line; the services at fault follow it at once, each with its status, then the active incident.
    expect(text($(el, '[part="banner"]') as HTMLElement)).toBe("Partial outage");
    // No description, no past incidents, no timelines; the services' heading is read, not shown (class vh).
    expect($(el, '[part="header"] p')).toBeNull();
    expect($$(el, "h3").map((h) => `${text(h)}${h.className ? `.${h.className}` : ""}`)).toEqual([
      "Services.vh",
      "Active incidents",
    ]);
    expect($$(el, '[part="incident"]').map((row) => text(row.querySelector("h4") as HTMLElement))).toEqual([
      "Checkout is down",
    ]);
    expect(text(el)).not.toContain("Payments fail.");
    expect(labels(el).slice(0, 1)).toEqual(["Service 1"]);
    expect(text($(el, '[part="others"] summary') as HTMLElement)).toBe("Operational (2)");

    // All well: the summary line, and every service behind one closed line.
    answers(() => json(pageWith("operational", "operational", "operational")));
    el.reload();
    await settle(el);
    expect(text($(el, '[part="banner"]') as HTMLElement)).toBe("All systems operational");
    expect(($(el, '[part="others"]') as HTMLDetailsElement).open).toBe(false);
    expect(text($(el, '[part="others"] summary') as HTMLElement)).toBe("Operational (3)");
  });
});

test("an opened past incident stays open where a refresh moves it; the one now in its place is folded", async () => {
  const resolved = (id: number, title: string): Incident => ({
    id,
    title,
    status: "resolved",
    started_at: new Date(Date.now() - (10 - id) * DAY).toISOString(),
    resolved_at: new Date(Date.now() - (10 - id) * DAY + 30 * MINUTE).toISOString(),
    duration_minutes: 30,
    impact: "none" as const,
    affected: [],
    updates: [{ timestamp: new Date(Date.now() - (10 - id) * DAY).toISOString(), status: "resolved", message: title }],
  });
  answers(() => json(page({ incidents: [resolved(1, "First")] })));
  const el = await mount({ locale: "en" });
  const fold = (title: string) =>
    $$(el, '[part="incident"]')
      .find((row) => row.querySelector("h5")?.textContent === title)
      ?.querySelector("details") as HTMLDetailsElement;
  fold("First").open = true;
  fold("First").dispatchEvent(new Event("toggle"));
  // A newer one resolved: it takes the first place.
  answers(() => json(page({ incidents: [resolved(2, "Second"), resolved(1, "First")] })));
  el.reload();
  await settle(el);
  expect(fold("Second").open).toBe(false);
  expect(fold("First").open).toBe(true);
});
