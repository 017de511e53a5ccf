// Issue 31, item 1: component groups in the dashboard's page editor, in real Chromium against `porchlight serve`. An
// owner adds a group, moves items into it and out of it by keyboard (the handle and the arrow keys, stepping into
// and out of the groups an item meets), by the item's Group list (a way without dragging, WCAG 2.5.7) and by
// dragging; moves a group with its members; renames it and chooses whether visitors first see it closed; removes
// it, its items staying. Each move is saved (read back from the API), announced, and keeps the focus on the moved
// row's handle. Axe clean; screenshots light, dark and 375 px (test-artifacts/dashboard-groups-*.png).
import type { Server } from "node:http";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, expect, test } from "vitest";
import { axeViolations, describeBrowser } from "../support/browser.ts";
import {
  ARTIFACTS,
  callAs,
  closeListener,
  dashboard,
  SHOTS,
  type Tab,
  useDashboardServer,
} from "../support/dashboard.ts";
import { listen } from "../support/listen.ts";

describeBrowser("component groups in the page editor", () => {
  const served = useDashboardServer("dashboard-groups", { PORCHLIGHT_VIEW_TTL_SECONDS: "1" });
  let origin: string;
  let target: { server: Server; origin: string };
  let owner: Tab;
  let pageId: number;

  beforeAll(async () => {
    ({ origin } = served);
    target = await listen((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end("ok");
    });
    owner = await served.signInOwner();
    const made = await call("POST", "/public/v1/status-pages", { name: "Grouped", slug: "grouped" });
    pageId = made.json.data.id;
    for (const name of ["Website", "Checkout", "Billing"]) {
      const site = await call("POST", "/public/v1/sites", { url: `${target.origin}/${name}`, name });
      expect(site.status).toBe(201);
      expect(
        (await call("POST", `/public/v1/status-pages/${pageId}/items`, { siteId: site.json.data.id })).status,
      ).toBe(201);
    }
  }, 60_000);

  afterAll(() => closeListener(target));

  const call = (method: string, path: string, body?: unknown) => callAs(owner, method, path, body);

  /** The page as saved: the top level in order, a group as [name, its members]. */
  async function saved(): Promise<(string | [string, string[]])[]> {
    const { data } = (await call("GET", `/public/v1/status-pages/${pageId}`)).json;
    type Row = { id: number; position: number; label?: string; name?: string; groupId?: number | null };
    const by = (a: Row, b: Row) => a.position - b.position || a.id - b.id;
    const groups = (data.groups as Row[]).map((g) => ({ ...g, kind: 0 }));
    const items = (data.items as Row[]).filter((i) => i.groupId === null).map((i) => ({ ...i, kind: 1 }));
    return [...groups, ...items]
      .sort((a, b) => a.position - b.position || a.kind - b.kind || a.id - b.id)
      .map((row) =>
        row.kind === 1
          ? (row.label as string)
          : [
              row.name as string,
              (data.items as Row[])
                .filter((i) => i.groupId === row.id)
                .sort(by)
                .map((i) => i.label as string),
            ],
      );
  }

  const handle = (page: Page, name: RegExp) => dashboard(page).getByRole("button", { name });
  const focused = (page: Page) =>
    page.evaluate(() => {
      let active = document.activeElement;
      while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
      return active?.getAttribute("aria-label") ?? "";
    });

  test("add a group, move items into and out of it by keyboard, by the Group list and by dragging", async () => {
    const { page } = owner;
    const d = dashboard(page);
    await page.goto(`${origin}/dashboard/pages/${pageId}`);
    await expect.poll(() => d.getByLabel("Label of Billing").count()).toBe(1);
    await d.getByLabel("Name of the new group").fill("Payments");
    await d.getByRole("button", { name: "Add group" }).click();
    await expect.poll(saved).toEqual(["Website", "Checkout", "Billing", ["Payments", []]]);
    await expect.poll(() => d.getByText("No item yet: drag one here").count()).toBe(1);

    // Billing steps down into the group it meets, as its first member; the move is said and the focus stays.
    await handle(page, /^Move Billing/).focus();
    await page.keyboard.press("ArrowDown");
    await expect.poll(saved).toEqual(["Website", "Checkout", ["Payments", ["Billing"]]]);
    await expect.poll(() => d.getByText("Billing moved to position 1 of 1 in Payments").count()).toBe(1);
    expect(await focused(page)).toBe("Move Billing, position 1 of 1 in Payments");
    // Up again: out of the group, just before it.
    await page.keyboard.press("ArrowUp");
    await expect.poll(saved).toEqual(["Website", "Checkout", "Billing", ["Payments", []]]);
    await page.keyboard.press("ArrowDown");
    await expect.poll(saved).toEqual(["Website", "Checkout", ["Payments", ["Billing"]]]);

    // The Group list: Website goes last into Payments, without dragging.
    await d.getByLabel("Group of Website").selectOption({ label: "Payments" });
    await expect.poll(saved).toEqual(["Checkout", ["Payments", ["Billing", "Website"]]]);

    // The group moves with its members, by its own handle.
    await handle(page, /^Move group Payments/).focus();
    await page.keyboard.press("ArrowUp");
    await expect.poll(saved).toEqual([["Payments", ["Billing", "Website"]], "Checkout"]);
    await expect.poll(() => d.getByText("Group Payments moved to position 1 of 2").count()).toBe(1);

    // Dragging: Checkout onto the group's row joins it, last.
    await d
      .locator("li[data-key^=i]", { hasText: "Checkout" })
      .first()
      .locator("> .handle")
      .dragTo(d.locator("li.group > .handle"));
    await expect.poll(saved).toEqual([["Payments", ["Billing", "Website", "Checkout"]]]);
    // And a member dragged onto another takes its place.
    await d
      .locator("li[data-key^=i]", { hasText: "Checkout" })
      .locator("> .handle")
      .dragTo(d.locator("li[data-key^=i]", { hasText: "Billing" }).locator("> .handle"));
    await expect.poll(saved).toEqual([["Payments", ["Checkout", "Billing", "Website"]]]);
  }, 90_000);

  test("rename a group, choose how visitors first see it, read it on the page; remove it and its items stay", async () => {
    const { page } = owner;
    const d = dashboard(page);
    await page.goto(`${origin}/dashboard/pages/${pageId}`);
    await expect.poll(() => d.getByLabel("Name of group Payments").count()).toBe(1);
    await d.getByLabel("Name of group Payments").fill("Money");
    await d.getByLabel("Name of group Payments").press("Tab");
    await expect.poll(async () => (await saved())[0]).toEqual(["Money", ["Checkout", "Billing", "Website"]]);
    const closed = d.locator("li.group").getByRole("checkbox", { name: /^Closed/ });
    expect(await closed.isChecked()).toBe(true);
    await closed.uncheck();
    await expect
      .poll(async () => (await call("GET", `/public/v1/status-pages/${pageId}`)).json.data.groups[0].collapsed)
      .toBe(false);
    // Visitors read the group open, with its members, on the hosted page.
    const visitor = await served.open();
    await visitor.page.goto(`${origin}/grouped`);
    const group = visitor.page.locator("porchlight-status").locator("[part~=group]");
    await expect.poll(() => group.locator("button").getAttribute("aria-expanded")).toBe("true");
    expect(await group.locator("button").innerText()).toContain("Money");
    await visitor.context.close();

    for (const shot of SHOTS) {
      const tab = await served.open({ ...shot, storageState: await owner.context.storageState() });
      await tab.page.goto(`${origin}/dashboard/pages/${pageId}`);
      await expect.poll(() => dashboard(tab.page).getByLabel("Name of group Money").count()).toBe(1);
      const section = dashboard(tab.page).locator("section[aria-labelledby=items-title]");
      await section.screenshot({ path: `${ARTIFACTS}/dashboard-groups-${shot.name}.png` });
      await dashboard(tab.page)
        .locator("section[aria-labelledby=preview-title]")
        .screenshot({ path: `${ARTIFACTS}/dashboard-groups-preview-${shot.name}.png` });
      expect(
        await tab.page.evaluate(() => document.documentElement.scrollWidth),
        `${shot.name}: nothing wider than the screen`,
      ).toBeLessThanOrEqual(shot.width);
      expect(await axeViolations(tab.page), shot.name).toEqual([]);
      await tab.context.close();
    }

    await d.getByRole("button", { name: "Remove group Money" }).click();
    await expect.poll(saved).toEqual(["Checkout", "Billing", "Website"]);
    await expect
      .poll(() => d.getByText("Group Money removed; its items stay on the page, in its place").count())
      .toBe(1);
  }, 90_000);
});
