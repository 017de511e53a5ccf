// Issue 28: the dashboard's settings screens (alerts, maintenance, account) in real Chromium, against `porchlight
// serve` on a fresh data directory. A webhook channel's signing secret is shown once and verifies a real delivery to a
// local receiver; rotated, the next delivery verifies with the new secret and not the old. Adding a channel says which
// sites are down now. Maintenance entered at 02:00 in Europe/Berlin reads 02:00 with Berlin's zone in a browser whose
// zone is New York; a window is edited, one under way is ended early, and the zone is found by its city. Every screen
// is axe clean and fits 375 px; screenshots in light, dark and 375 px, and of the bad states, in test-artifacts/.
import { createHmac } from "node:crypto";
import type { IncomingHttpHeaders, Server } from "node:http";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, expect, test } from "vitest";
import { axeViolations, describeBrowser } from "../support/browser.ts";
import {
  ARTIFACTS,
  callAs,
  closeListener,
  dashboard,
  type OpenOptions,
  PASSWORD,
  SHOTS,
  type Tab,
  useDashboardServer,
} from "../support/dashboard.ts";
import { listen } from "../support/listen.ts";

/** The browser's zone: not Berlin's, so a time shown in the browser's zone would read 20:00 the day before. */
const BROWSER_ZONE = "America/New_York";
const LONG = "A channel whose name is as long as a name may be, to show that it wraps instead of widening the page";

/** What the receiver was sent. */
interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** Whether a delivery carries the signature `secret` makes (server/alerts/providers/webhook.ts's scheme). */
function verifies(delivery: Received, secret: string): boolean {
  const timestamp = String(delivery.headers["x-porchlight-timestamp"]);
  const expected = `v1=${createHmac("sha256", secret).update(`${timestamp}.${delivery.body}`).digest("hex")}`;
  return delivery.headers["x-porchlight-signature"] === expected;
}

describeBrowser("the dashboard's settings: alerts, maintenance and account, in Chromium", () => {
  const served = useDashboardServer("settings");
  let origin: string;
  let target: { server: Server; origin: string };
  let receiver: { server: Server; origin: string };
  const received: Received[] = [];
  let owner: Tab;

  beforeAll(async () => {
    ({ origin } = served);
    target = await listen((req, res) => {
      res.writeHead(req.url?.startsWith("/down") ? 503 : 200, { "content-type": "text/plain" });
      res.end("ok");
    });
    receiver = await listen((req, res) => {
      let body = "";
      req.on("data", (chunk) => {
        body += chunk;
      });
      req.on("end", () => {
        received.push({ headers: req.headers, body });
        res.writeHead(200, { "content-type": "text/plain" });
        res.end("thanks");
      });
    });
  });

  afterAll(async () => {
    for (const s of [target, receiver]) await closeListener(s);
  });

  /** A tab in the browser's zone, not Berlin's. */
  const open = (options: OpenOptions = {}) => served.open({ timezoneId: BROWSER_ZONE, ...options });

  const call = (method: string, path: string, body?: unknown) => callAs(owner, method, path, body);

  /** The browser reported the refusals a step asked for; anything else is a fault. */
  function expectOnly400s(errors: string[]): void {
    expect(errors.filter((e) => !e.includes("status of 400") && !e.includes("status of 409"))).toEqual([]);
    errors.length = 0;
  }

  async function noSidewaysScroll(page: Page): Promise<boolean> {
    return page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth);
  }

  test("setup, then two sites down and one up", async () => {
    owner = await served.signInOwner({ timezoneId: BROWSER_ZONE });
    const d = dashboard(owner.page);
    await expect.poll(() => d.getByRole("heading", { name: "Sites", level: 1 }).count()).toBe(1);
    for (const [name, path] of [
      ["Checkout API", "/down/checkout"],
      ["Billing API", "/down/billing"],
      ["Home page", "/"],
    ]) {
      const made = await call("POST", "/public/v1/sites", { name, url: `${target.origin}${path}`, checkInterval: 30 });
      expect(made.status, JSON.stringify(made.json)).toBe(201);
    }
    await expect
      .poll(
        async () =>
          (await call("GET", "/public/v1/sites")).json.data.sites
            .filter((s: { status: string }) => s.status === "down")
            .map((s: { name: string }) => s.name)
            .sort(),
        { timeout: 45_000 },
      )
      .toEqual(["Billing API", "Checkout API"]);
  }, 90_000);

  test("a webhook's secret, shown once, verifies a real delivery; rotated, only the new one does", async () => {
    const { page } = owner;
    const d = dashboard(page);
    await page.goto(`${origin}/dashboard/alerts`);
    await d.getByRole("button", { name: "Add a channel" }).click();
    // Cancel resets: a name typed and cancelled is not in the next add.
    await d.getByLabel("Name").fill("Stale");
    await d.getByRole("button", { name: "Cancel" }).click();
    await d.getByRole("button", { name: "Add a channel" }).click();
    expect(await d.getByLabel("Name").inputValue()).toBe("");
    // Bad input: the API's sentences beside the fields, no browser bubble.
    await d.getByLabel("Type").selectOption("webhook");
    await d.getByRole("button", { name: "Add channel" }).click();
    await expect.poll(() => d.locator("#c-url-error").count()).toBe(1);
    expect(await d.getByLabel(/^Address/).getAttribute("aria-invalid")).toBe("true");
    expect(await d.locator("#c-name-error").textContent()).toMatch(/^[A-Z].*\.$/);
    await page.screenshot({ path: `${ARTIFACTS}/dashboard-alerts-refused-light.png`, fullPage: true });
    expectOnly400s(owner.errors);

    await d.getByLabel("Name").fill("On-call hook");
    await d.getByLabel(/^Address/).fill(`${receiver.origin}/hook`);
    await d.getByRole("button", { name: "Add channel" }).click();
    const added = d.getByRole("region", { name: "On-call hook is added" });
    await expect.poll(() => added.count()).toBe(1);
    const secret = (await added.locator(".secret-value").textContent())?.trim() ?? "";
    expect(secret.length).toBeGreaterThanOrEqual(16);
    expect(await added.textContent()).toContain("Copy it now: it is not shown again.");
    // The sites down now, named, and what the new channel hears of them (server/engine/alert-writes.ts: nothing until their
    // next change).
    const down = await added.locator("#down-now").textContent();
    expect(down).toMatch(/2 sites are down now: (Billing API and Checkout API|Checkout API and Billing API)\./);
    expect(down).toContain("This channel was not told they went down");
    expect(down).toContain("when they come back up");
    await page.screenshot({ path: `${ARTIFACTS}/dashboard-alerts-secret-light.png`, fullPage: true });
    expect(await axeViolations(page)).toEqual([]);

    await owner.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin });
    await added.getByRole("button", { name: "Copy the secret" }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);

    // A real delivery: the test event, to the local receiver, signed with the secret shown.
    await added.getByRole("button", { name: "Send a test now" }).click();
    await expect
      .poll(() => added.getByRole("status").last().textContent())
      .toMatch(/^Delivered in \d+ ms \(HTTP 200\)$/);
    expect(received).toHaveLength(1);
    const first = received[0] as Received;
    expect(JSON.parse(first.body).type).toBe("test");
    expect(verifies(first, secret)).toBe(true);
    expect(verifies(first, `${secret}x`)).toBe(false);

    // Stored: it is gone, and no later answer or screen shows it.
    await added.getByRole("button", { name: "I have stored it" }).click();
    await page.reload();
    const channel = d.locator("article", { hasText: "On-call hook" });
    await expect.poll(() => channel.count()).toBe(1);
    expect(await d.textContent()).not.toContain(secret);

    // Rotate: confirmed, the new secret shown once, and the next delivery verifies with it and not the old.
    await channel.getByRole("button", { name: "Rotate secret of On-call hook" }).click();
    const dialog = d.getByRole("dialog");
    expect(await dialog.textContent()).toContain("the old secret signs nothing more");
    await dialog.getByRole("button", { name: "Rotate secret" }).click();
    await expect.poll(() => channel.locator(".secret-value").count()).toBe(1);
    const rotated = (await channel.locator(".secret-value").textContent())?.trim() ?? "";
    expect(rotated).not.toBe(secret);
    expect(rotated.length).toBeGreaterThanOrEqual(16);
    await channel.getByRole("button", { name: "Send a test", exact: true }).click();
    await expect.poll(() => received.length).toBe(2);
    const second = received[1] as Received;
    expect(verifies(second, rotated)).toBe(true);
    expect(verifies(second, secret)).toBe(false);
    await channel.getByRole("button", { name: "I have stored it" }).click();
    expect(await channel.locator(".secret-value").count()).toBe(0);
    expect(owner.errors).toEqual([]);
  }, 60_000);

  test("maintenance at 02:00 in Europe/Berlin reads 02:00, Berlin's, in a New York browser; edited; the zone searched", async () => {
    const { page } = owner;
    const d = dashboard(page);
    expect(await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone)).toBe(BROWSER_ZONE);
    await page.goto(`${origin}/dashboard/maintenance`);
    await d.getByRole("button", { name: "Plan maintenance" }).click();
    // The zone defaults to the browser's.
    expect(await d.getByLabel("Time zone").inputValue()).toBe(BROWSER_ZONE);
    // Bad input first: the API's messages beside each field.
    await d.getByLabel("Time zone").fill("Atlantis");
    await d.getByLabel("Time zone").dispatchEvent("change");
    await d.getByRole("button", { name: "Plan", exact: true }).click();
    await expect.poll(() => d.locator("#m-timeZone-error").count()).toBe(1);
    expect(await d.locator("#m-timeZone-error").textContent()).toBe(
      "Choose a time zone from the list, such as Europe/Berlin or UTC.",
    );
    expect(await d.locator("#m-title-error").count()).toBe(1);
    expect(await d.getByLabel("Time zone").getAttribute("aria-invalid")).toBe("true");
    expect(await noSidewaysScroll(page)).toBe(true);
    await page.screenshot({ path: `${ARTIFACTS}/dashboard-maintenance-refused-light.png`, fullPage: true });
    expect(await axeViolations(page)).toEqual([]);
    expectOnly400s(owner.errors);

    // The zone by its city, in any case: the list's name is filled in.
    await d.getByLabel("Time zone").fill("berlin");
    await d.getByLabel("Time zone").dispatchEvent("change");
    expect(await d.getByLabel("Time zone").inputValue()).toBe("Europe/Berlin");
    await d.getByLabel("Time zone").fill("new york");
    await d.getByLabel("Time zone").dispatchEvent("change");
    expect(await d.getByLabel("Time zone").inputValue()).toBe("America/New_York");
    // The list offers every IANA zone.
    const zones = await d
      .locator("datalist option")
      .evaluateAll((options) => options.map((o) => o.getAttribute("value")));
    expect(zones.length).toBeGreaterThan(300);
    expect(zones).toEqual(expect.arrayContaining(["Europe/Berlin", "Asia/Tokyo", "UTC"]));

    await d.getByLabel("Time zone").fill("Europe/Berlin");
    await d.getByLabel("Time zone").dispatchEvent("change");
    await d.getByLabel("Title").fill("Database upgrade");
    await d.getByRole("checkbox", { name: "Home page" }).check();
    await d.getByLabel("Starts").fill("2030-01-15T02:00");
    await d.getByRole("button", { name: "Plan", exact: true }).click();
    const planned = d.locator("article", { hasText: "Database upgrade" });
    await expect.poll(() => planned.count()).toBe(1);
    const when = planned.locator(".when");
    // 02:00 as entered, named as Berlin's (GMT+1 in January), not 20:00 of the day before labelled Berlin.
    expect(await when.textContent()).toMatch(/Starts\s+Jan 15, 2030, 2:00\sAM GMT\+1\s+\(Europe\/Berlin\)/);
    expect(await when.textContent()).toMatch(/Your time: Jan 14, 2030, 8:00\sPM EST/);
    const stored = (await call("GET", "/public/v1/maintenance-windows")).json.data.windows[0];
    expect(stored).toMatchObject({ start: "2030-01-15T02:00", timeZone: "Europe/Berlin" });

    // Edit: the form holds the window as entered; a new time and title are saved.
    await planned.getByRole("button", { name: "Edit Database upgrade" }).click();
    const form = d.getByRole("form", { name: "Edit Database upgrade" });
    expect(await form.getByLabel("Starts").inputValue()).toBe("2030-01-15T02:00");
    expect(await form.getByLabel("Time zone").inputValue()).toBe("Europe/Berlin");
    await form.getByLabel("Title").fill("Database upgrade, part two");
    await form.getByLabel("Starts").fill("2030-01-15T03:30");
    await form.getByRole("button", { name: "Save" }).click();
    const edited = d.locator("article", { hasText: "Database upgrade, part two" });
    await expect.poll(() => edited.count()).toBe(1);
    expect(await edited.locator(".when").textContent()).toMatch(/Jan 15, 2030, 3:30\sAM GMT\+1/);
    expect((await call("GET", "/public/v1/maintenance-windows")).json.data.windows[0]).toMatchObject({
      title: "Database upgrade, part two",
      start: "2030-01-15T03:30",
    });

    // Cancel resets the plan form.
    await d.getByRole("button", { name: "Plan maintenance" }).click();
    await d.getByLabel("Title").first().fill("Never planned");
    await d.getByRole("button", { name: "Cancel" }).click();
    await d.getByRole("button", { name: "Plan maintenance" }).click();
    expect(await d.getByLabel("Title").first().inputValue()).toBe("");
    await d.getByRole("button", { name: "Cancel" }).click();
    expect(owner.errors).toEqual([]);
  }, 60_000);

  test("a window under way ends early; then it is over, and ending it again is refused", async () => {
    const { page } = owner;
    const d = dashboard(page);
    const sites = (await call("GET", "/public/v1/sites")).json.data.sites as { id: string; name: string }[];
    const home = sites.find((s) => s.name === "Home page")?.id;
    // Under way now: began a minute ago (an instant, read in UTC) for two hours.
    const made = await call("POST", "/public/v1/maintenance-windows", {
      title: "Emergency patch",
      sites: [home],
      start: new Date(Date.now() - 60_000).toISOString().slice(0, 19),
      timeZone: "UTC",
      durationMinutes: 120,
    });
    expect(made.status, JSON.stringify(made.json)).toBe(201);
    expect(made.json.data.active).toBe(true);
    await page.goto(`${origin}/dashboard/maintenance`);
    const article = d.locator("article", { hasText: "Emergency patch" });
    await expect.poll(() => article.locator(".chip").textContent()).toBe("Under way");
    expect(await article.locator(".when").textContent()).toMatch(/Until .* UTC\s+\(UTC\)/);
    await article.getByRole("button", { name: "End now: Emergency patch" }).click();
    const dialog = d.getByRole("dialog");
    expect(await dialog.textContent()).toContain("judged again at once");
    expect(await axeViolations(page)).toEqual([]);
    await dialog.getByRole("button", { name: "End now" }).click();
    await expect.poll(() => article.locator(".chip").textContent()).toBe("Over");
    expect(await d.getByRole("status").textContent()).toBe("Ended Emergency patch: its sites are judged again now.");
    const id = made.json.data.id;
    expect((await call("POST", `/public/v1/maintenance-windows/${id}/end`)).status).toBe(409);
    owner.errors.length = 0;

    // Deleted, after a confirmation.
    await article.getByRole("button", { name: "Delete Emergency patch" }).click();
    await d.getByRole("dialog").getByRole("button", { name: "Delete" }).click();
    await expect.poll(() => article.count()).toBe(0);
    expect((await call("GET", `/public/v1/maintenance-windows/${id}`)).status).toBe(404);
    owner.errors.length = 0;
  }, 60_000);

  test("account: a token's name refused inline, then created and shown once", async () => {
    const { page } = owner;
    const d = dashboard(page);
    await page.goto(`${origin}/dashboard/account`);
    await d.getByRole("button", { name: "Create token" }).click();
    await expect.poll(() => d.locator("#token-name-error").count()).toBe(1);
    expect(await d.getByLabel("Token name").getAttribute("aria-invalid")).toBe("true");
    await page.screenshot({ path: `${ARTIFACTS}/dashboard-account-refused-light.png`, fullPage: true });
    expectOnly400s(owner.errors);
    await d.getByLabel("Token name").fill("deploy script");
    await d.getByRole("button", { name: "Create token" }).click();
    await expect.poll(() => d.locator("#new-token").count()).toBe(1);
    expect(await d.locator("#new-token").textContent()).toMatch(/^\S{20,}$/);
    expect(await d.locator("#token-name-error").count()).toBe(0);
    // The list reloads after the token is shown: it names the new token once, when its answer has come.
    await expect.poll(() => d.getByRole("cell", { name: "deploy script", exact: true }).count()).toBe(1);
    // The password form speaks the API: a short new password is refused beside the field.
    await d.getByLabel("Current password").fill(PASSWORD);
    await d.getByLabel("New password").fill("short");
    await d.getByRole("button", { name: "Change password" }).click();
    await expect.poll(() => d.locator("#pw-password-error").textContent()).toBe("Use at least 12 characters.");
    expectOnly400s(owner.errors);
  }, 60_000);

  test("screens: light, dark and 375 px, long names wrapping, axe clean, no sideways scroll", async () => {
    // Long text: a 100-character channel name and a 200-character window title.
    expect(
      (
        await call("POST", "/public/v1/alert-channels", {
          name: LONG,
          type: "email",
          config: { to: ["oncall@example.com"] },
        })
      ).status,
    ).toBe(201);
    const sites = (await call("GET", "/public/v1/sites")).json.data.sites as { id: string }[];
    const long = await call("POST", "/public/v1/maintenance-windows", {
      title: `${LONG} ${LONG}`.slice(0, 200),
      sites: sites.map((s) => s.id),
      // Weekly since 2025: an occurrence is always ahead, whatever the day the test runs.
      start: "2025-01-06T22:00",
      timeZone: "Asia/Tokyo",
      durationMinutes: 90,
      recurrence: "FREQ=WEEKLY",
    });
    expect(long.status).toBe(201);
    const state = JSON.stringify(await owner.context.storageState());
    for (const shot of SHOTS) {
      const viewer = await open({ width: shot.width, colorScheme: shot.colorScheme, storageState: state });
      for (const [name, heading] of [
        ["alerts", "Alerts"],
        ["maintenance", "Maintenance"],
        ["account", "Account"],
      ] as const) {
        await viewer.page.goto(`${origin}/dashboard/${name}`);
        const d = dashboard(viewer.page);
        await expect.poll(() => d.getByRole("heading", { name: heading, level: 1 }).count()).toBe(1);
        await expect.poll(() => d.getByText("Loading…").count()).toBe(0);
        if (name === "alerts") await d.getByRole("button", { name: "Add a channel" }).click();
        if (name === "maintenance") await d.getByRole("button", { name: "Plan maintenance" }).click();
        expect(await noSidewaysScroll(viewer.page), `${name} ${shot.name}`).toBe(true);
        await viewer.page.screenshot({ path: `${ARTIFACTS}/dashboard-${name}-${shot.name}.png`, fullPage: true });
        expect(await axeViolations(viewer.page), `${name} ${shot.name}`).toEqual([]);
      }
      expect(viewer.errors).toEqual([]);
      await viewer.context.close();
    }
    // Sign-in, its forms in the one style: the API's message, announced.
    const guest = await open({ width: 375 });
    await guest.page.goto(`${origin}/dashboard/sign-in`);
    const d = dashboard(guest.page);
    await d.getByLabel("E-mail").fill("owner@example.com");
    await d.getByLabel("Password").fill("not the password");
    await d.getByRole("button", { name: "Sign in" }).click();
    await expect.poll(() => d.getByRole("alert").textContent()).toBe("The e-mail address or password is wrong.");
    expect(await noSidewaysScroll(guest.page)).toBe(true);
    expect(await axeViolations(guest.page)).toEqual([]);
    await guest.page.screenshot({ path: `${ARTIFACTS}/dashboard-sign-in-refused-375.png` });
    await guest.context.close();
  }, 180_000);
});
