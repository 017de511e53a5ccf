// Issue 29: the kinds of check in the dashboard, in real Chromium against `porchlight serve` (private targets
// allowed): a site of each kind added through the form (a TCP port on a local listener, a DNS record, a ping of
// 127.0.0.1, a push heartbeat, a website with a keyword assertion), one refusal per kind shown beside its field, the
// push address shown once and rotated, each kind's detail screen; axe clean; screenshots of the form per kind and of
// each detail, light, dark and 375 px.
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createServer, type Server as TcpServer } from "node:net";
import type { Locator, Page } from "playwright-core";
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

/** The browser's report of a refusal this test asks for (a 400): expected, so not counted as a page error. */
const REFUSED = /status of 400 \(Bad Request\)/;

describeBrowser("the kinds of check in the dashboard, in Chromium", () => {
  const served = useDashboardServer("monitors");
  let web: { server: Server; origin: string };
  /** A site behind basic auth (ops / the password below); it redirects / to /login. */
  let admin: { server: Server; origin: string };
  const ADMIN_PASSWORD = "hunter2 but longer";
  let port: TcpServer;
  let portNumber = 0;
  let owner: Tab;
  /** The push site's address as shown once at its creation. */
  let pushUrl = "";

  beforeAll(async () => {
    web = await listen((_req, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end("<h1>Welcome to the shop</h1>");
    });
    const expected = `Basic ${Buffer.from(`ops:${ADMIN_PASSWORD}`).toString("base64")}`;
    admin = await listen((req, res) => {
      if (req.headers.authorization !== expected) res.writeHead(401, { "www-authenticate": "Basic" });
      else if (req.url === "/") res.writeHead(302, { location: "/login" });
      res.end();
    });
    port = createServer((socket) => socket.end());
    await new Promise<void>((resolve) => port.listen(0, "127.0.0.1", resolve));
    portNumber = (port.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await closeListener(web);
    await closeListener(admin);
    await new Promise((resolve) => port.close(resolve));
  });

  const form = (page: Page) => dashboard(page).locator("pl-site-form dialog[open]");

  /** Opens the add form on the Sites screen and chooses a kind. */
  async function openForm(page: Page, kind: string): Promise<Locator> {
    const d = dashboard(page);
    const add = d.getByRole("button", { name: /^Add (a|your first) site$/ });
    await add.first().click();
    const dialog = form(page);
    await dialog.waitFor();
    await dialog.getByLabel("Kind of check").selectOption(kind);
    return dialog;
  }

  /** Submits the form and waits for the refusal beside `field`; returns its text. */
  async function refusedAt(dialog: Locator, field: string): Promise<string> {
    await dialog.getByRole("button", { name: /^Add (site|anyway)$/ }).click();
    const error = dialog.locator(`[id="f-${field}-error"]`);
    await error.waitFor();
    expect(await dialog.locator(`[name="${field}"]`).getAttribute("aria-invalid")).toBe("true");
    return (await error.textContent()) ?? "";
  }

  /** A screenshot, no sideways scroll, and axe clean. */
  async function shoot(page: Page, name: string, width: number): Promise<void> {
    expect(
      await page.evaluate(() => document.documentElement.scrollWidth),
      `${name}: no sideways scroll`,
    ).toBeLessThanOrEqual(width);
    await page.screenshot({ path: `${ARTIFACTS}/dashboard-monitors-${name}.png`, fullPage: true });
    expect(await axeViolations(page), name).toEqual([]);
  }

  const sites = async () => {
    const { json } = await callAs(owner, "GET", "/public/v1/sites?perPage=50");
    return new Map<string, any>(json.data.sites.map((s: { name: string }) => [s.name, s]));
  };

  const rowAddress = (page: Page, name: string) =>
    dashboard(page).locator("tr", { hasText: name }).locator(".url").textContent();

  test("a TCP port: the port is asked for, then the site checks a local listener", async () => {
    owner = await served.signInOwner();
    const { page } = owner;
    const dialog = await openForm(page, "tcp");
    expect(await dialog.getByLabel("Host and port").getAttribute("placeholder")).toBe("mail.example.com:587");
    await dialog.getByLabel("Host and port").fill("127.0.0.1");
    await dialog.getByLabel("Name", { exact: true }).fill("Mail port");
    expect(await dialog.locator("#f-url-hint").textContent()).toContain("Checked as tcp://127.0.0.1.");
    expect(await refusedAt(dialog, "url")).toMatch(/Add the port to check/);
    await dialog.getByLabel("Host and port").fill(`127.0.0.1:${portNumber}`);
    await dialog.getByLabel("Check every").selectOption("30");
    await dialog.getByRole("button", { name: "Add site" }).click();
    await expect.poll(() => form(page).count()).toBe(0);
    await expect.poll(() => rowAddress(page, "Mail port")).toBe(`tcp 127.0.0.1:${portNumber}`);
    const site = (await sites()).get("Mail port");
    expect(site).toMatchObject({ protocol: "tcp", url: `tcp://127.0.0.1:${portNumber}` });
    // The engine's first check connects to the listener.
    await expect
      .poll(() => dashboard(page).locator("tr", { hasText: "Mail port" }).locator(".chip").textContent(), {
        timeout: 30_000,
      })
      .toBe("Up");
  }, 60_000);

  test("a website with a keyword: a bad JSON path is refused beside its box", async () => {
    const { page } = owner;
    const dialog = await openForm(page, "http");
    await dialog.getByLabel("Address").fill(`${web.origin}/`);
    await dialog.getByLabel("Name", { exact: true }).fill("Shop");
    await dialog.locator("summary", { hasText: "Checks on the answer" }).click();
    await dialog.getByLabel("Text", { exact: true }).fill("Welcome");
    await dialog.getByLabel("JSON path").fill("status");
    expect(await refusedAt(dialog, "assertions.json.path")).toMatch(/Write the path as \$/);
    await dialog.getByLabel("JSON path").fill("");
    await dialog.getByRole("button", { name: "Add site" }).click();
    await expect.poll(() => form(page).count()).toBe(0);
    const site = (await sites()).get("Shop");
    expect(site.assertions).toEqual({
      keyword: { text: "Welcome", absent: false, caseSensitive: false },
      json: null,
      header: null,
    });
    expect(await rowAddress(page, "Shop")).toBe(`${web.origin}/`);
  }, 30_000);

  test("a JSON value typed as a number or as text is sent as such, and read back in the form", async () => {
    const { page } = owner;
    const site = (await sites()).get("Shop");
    for (const [typed, sent] of [
      ["42", 42],
      ["true", true],
      ["ok", "ok"],
      ['"42"', "42"],
    ] as const) {
      await page.goto(`${served.origin}/dashboard/sites/${site.id}`);
      await dashboard(page).getByRole("button", { name: "Edit" }).click();
      const dialog = form(page);
      await dialog.getByLabel("JSON path").fill("$.status");
      await dialog.getByLabel("Expected value").fill(typed);
      await dialog.getByRole("button", { name: "Save" }).click();
      await expect.poll(() => form(page).count()).toBe(0);
      expect((await sites()).get("Shop").assertions.json).toEqual({ path: "$.status", equals: sent });
      await dashboard(page).getByRole("button", { name: "Edit" }).click();
      expect(await form(page).getByLabel("Expected value").inputValue()).toBe(typed);
      await form(page).getByRole("button", { name: "Cancel" }).click();
    }
    // Back to the keyword alone, for the detail's screenshots.
    await callAs(owner, "PATCH", `/public/v1/site/${site.id}`, {
      assertions: { keyword: { text: "Welcome" }, json: null, header: null },
    });
  }, 60_000);

  test("a website behind basic auth, redirects off: the password is stored, never shown, kept on edit", async () => {
    const { page } = owner;
    await page.goto(`${served.origin}/dashboard/`);
    const dialog = await openForm(page, "http");
    await dialog.getByLabel("Address").fill(`${admin.origin}/`);
    await dialog.getByLabel("Name", { exact: true }).fill("Admin area");
    await dialog.locator("summary", { hasText: "More settings" }).click();
    await dialog.getByLabel("Basic auth user").fill("ops:root");
    await dialog.getByLabel("Basic auth password").fill(ADMIN_PASSWORD);
    await dialog.getByLabel("Follow redirects").uncheck();
    expect(await refusedAt(dialog, "request.basicAuth.username")).toMatch(/Remove the colon/);
    await dialog.getByLabel("Basic auth user").fill("ops");
    await dialog.getByRole("button", { name: "Add site" }).click();
    await expect.poll(() => form(page).count()).toBe(0);
    const site = (await sites()).get("Admin area");
    expect(site.request).toEqual({
      body: null,
      followRedirects: false,
      basicAuth: { username: "ops", passwordSet: true },
    });
    // The engine's first check is let in, and the 302 is the answer: up.
    await expect
      .poll(() => dashboard(page).locator("tr", { hasText: "Admin area" }).locator(".chip").textContent(), {
        timeout: 30_000,
      })
      .toBe("Up");

    // The edit form never holds the password; saved with the box empty, the stored one is kept.
    await page.goto(`${served.origin}/dashboard/sites/${site.id}`);
    await dashboard(page).getByRole("button", { name: "Edit" }).click();
    const edit = form(page);
    expect(await edit.getByLabel("Basic auth password").inputValue()).toBe("");
    expect(await edit.getByLabel("Basic auth password").getAttribute("placeholder")).toContain("stored");
    expect(await edit.getByLabel("Basic auth user").inputValue()).toBe("ops");
    expect(await edit.getByLabel("Follow redirects").isChecked()).toBe(false);
    await edit.getByRole("button", { name: "Save" }).click();
    await expect.poll(() => form(page).count()).toBe(0);
    expect((await sites()).get("Admin area").request.basicAuth).toEqual({ username: "ops", passwordSet: true });
    expect(await page.content()).not.toContain(ADMIN_PASSWORD);

    // Removing the stored password keeps the user name (an account with no password is a real setup).
    await dashboard(page).getByRole("button", { name: "Edit" }).click();
    const again = form(page);
    await again.locator("summary", { hasText: "More settings" }).click();
    // Ticked, the box wins over a password typed beside it.
    await again.getByLabel("Basic auth password").fill("typed-then-removed");
    await again.getByLabel("Remove the stored password").check();
    await again.getByLabel("Remove the stored password").scrollIntoViewIfNeeded();
    await shoot(page, "form-http-remove-password", page.viewportSize()?.width ?? 1280);
    await again.getByRole("button", { name: "Save" }).click();
    await expect.poll(() => form(page).count()).toBe(0);
    expect((await sites()).get("Admin area").request.basicAuth).toEqual({ username: "ops", passwordSet: false });
    // The edit form now has nothing to remove; the password goes back for the detail's screenshots.
    await dashboard(page).getByRole("button", { name: "Edit" }).click();
    expect(await form(page).getByLabel("Remove the stored password").count()).toBe(0);
    await form(page).getByRole("button", { name: "Cancel" }).click();
    const restored = await callAs(owner, "PATCH", `/public/v1/site/${site.id}`, {
      request: { body: null, followRedirects: false, basicAuth: { username: "ops", password: ADMIN_PASSWORD } },
    });
    expect(restored.status).toBe(200);
  }, 60_000);

  test("a DNS record: a resolver that is not an address is refused beside its box", async () => {
    const { page } = owner;
    await page.goto(`${served.origin}/dashboard/`);
    const dialog = await openForm(page, "dns");
    await dialog.getByLabel("Name to look up").fill("example.com");
    await dialog.getByLabel("Name", { exact: true }).fill("Mail exchangers");
    await dialog.getByLabel("Record type").selectOption("MX");
    await dialog.getByLabel("Resolver (optional)").fill("resolver.example");
    await dialog.getByLabel("Expected values (one a line)").fill("10 mx1.example.com\n\n 20 mx2.example.com ");
    await dialog.getByLabel("The answer must").selectOption("exact");
    expect(await refusedAt(dialog, "dns.resolver")).toMatch(/Name the resolver by its IP address/);
    await dialog.getByLabel("Resolver (optional)").fill("");
    await dialog.getByRole("button", { name: "Add site" }).click();
    await expect.poll(() => form(page).count()).toBe(0);
    const site = (await sites()).get("Mail exchangers");
    expect(site).toMatchObject({ protocol: "dns", url: "dns://example.com" });
    expect(site.dns).toEqual({
      recordType: "MX",
      resolver: null,
      expected: ["10 mx1.example.com", "20 mx2.example.com"],
      match: "exact",
    });
    expect(await rowAddress(page, "Mail exchangers")).toBe("dns example.com (MX)");
  }, 30_000);

  test("a ping: a port is refused beside the host, then 127.0.0.1 is pinged", async () => {
    const { page } = owner;
    const dialog = await openForm(page, "icmp");
    await dialog.getByLabel("Host", { exact: true }).fill("127.0.0.1:80");
    await dialog.getByLabel("Name", { exact: true }).fill("Router");
    expect(await refusedAt(dialog, "url")).toMatch(/has no port/);
    await dialog.getByLabel("Host", { exact: true }).fill("127.0.0.1");
    await dialog.getByRole("button", { name: "Add site" }).click();
    await expect.poll(() => form(page).count()).toBe(0);
    expect((await sites()).get("Router")).toMatchObject({ protocol: "icmp", url: "icmp://127.0.0.1" });
    expect(await rowAddress(page, "Router")).toBe("ping 127.0.0.1");
  }, 30_000);

  test("a push heartbeat: the grace is checked, the address is shown once, and a call reaches the site", async () => {
    const { page, context } = owner;
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: served.origin });
    const dialog = await openForm(page, "push");
    expect(await dialog.getByLabel("Host and port").count()).toBe(0);
    expect(await dialog.getByLabel("Your job calls at least every").count()).toBe(1);
    await dialog.getByLabel("Name", { exact: true }).fill("Nightly backup");
    await dialog.getByLabel("Your job calls at least every").selectOption("86400");
    await dialog.getByLabel("Grace (seconds)").fill("100000");
    expect(await refusedAt(dialog, "push.graceSeconds")).toMatch(/86400|86,400/);
    await dialog.getByLabel("Grace (seconds)").fill("600");
    await dialog.getByRole("button", { name: "Add site" }).click();

    const panel = dialog.locator(".push-url");
    await panel.waitFor();
    pushUrl = (await panel.locator(".push-value").textContent()) ?? "";
    expect(pushUrl).toMatch(new RegExp(`^${served.origin}/public/v1/push/[A-Za-z0-9_-]{32}$`));
    expect(await panel.textContent()).toContain(`curl -fsS ${pushUrl}`);
    expect(await panel.textContent()).toContain(`curl -fsS "${pushUrl}?status=down&msg=`);
    await panel.getByRole("button", { name: "Copy the address" }).click();
    await expect.poll(() => panel.getByRole("status").textContent()).toBe("Copied.");
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(pushUrl);
    for (const shot of SHOTS.filter((s) => s.name === "light")) {
      await shoot(page, `push-shown-${shot.name}`, shot.width);
    }
    await panel.getByRole("button", { name: "I have stored it" }).click();
    await expect.poll(() => form(page).count()).toBe(0);
    expect(await rowAddress(page, "Nightly backup")).toBe("push heartbeat");

    // Shown once: no later answer carries it.
    const site = (await sites()).get("Nightly backup");
    expect(JSON.stringify(site)).not.toContain(pushUrl.split("/").pop());
    expect(site.push).toMatchObject({ graceSeconds: 600, lastCallAt: null, tokenHint: pushUrl.slice(-4) });
    const call = await fetch(pushUrl);
    expect(call.status).toBe(200);
    await expect
      .poll(async () => (await sites()).get("Nightly backup").push.lastCallAt, { timeout: 10_000 })
      .not.toBeNull();
  }, 60_000);

  test("the push site's screen rotates its address: the new one shown once, the old one refused", async () => {
    const { page } = owner;
    const site = (await sites()).get("Nightly backup");
    await page.goto(`${served.origin}/dashboard/sites/${site.id}`);
    const d = dashboard(page);
    await d.getByRole("heading", { name: "Nightly backup", level: 1 }).waitFor();
    expect(await d.getByRole("heading", { name: "Run time the job reports" }).count()).toBe(1);
    expect(await d.locator("pl-response-chart").count()).toBe(0);
    expect(await d.locator(".settings").textContent()).toContain(`ending in …${pushUrl.slice(-4)}`);
    await d.getByRole("button", { name: "Rotate push address" }).click();
    await d.locator("#rotate-push").getByRole("button", { name: "Rotate push address" }).click();
    const panel = d.locator(".push-url");
    await panel.waitFor();
    const rotated = (await panel.locator(".push-value").textContent()) ?? "";
    expect(rotated).toMatch(/\/public\/v1\/push\/[A-Za-z0-9_-]{32}$/);
    expect(rotated).not.toBe(pushUrl);
    expect(await panel.getByRole("heading").textContent()).toBe("The new push address");
    expect((await fetch(pushUrl)).status).toBe(404);
    expect((await fetch(rotated)).status).toBe(200);
    await panel.getByRole("button", { name: "I have stored it" }).click();
    expect(await d.locator(".push-url").count()).toBe(0);
    await expect.poll(() => d.locator(".settings").textContent()).toContain(`ending in …${rotated.slice(-4)}`);
  }, 30_000);

  test("editing keeps the kind: the choice is fixed, and the settings are read back", async () => {
    const { page } = owner;
    const site = (await sites()).get("Mail exchangers");
    await page.goto(`${served.origin}/dashboard/sites/${site.id}`);
    await dashboard(page).getByRole("button", { name: "Edit" }).click();
    const dialog = form(page);
    expect(await dialog.getByLabel("Kind of check").isDisabled()).toBe(true);
    expect(await dialog.locator("#f-kind-hint").textContent()).toContain("A site keeps its kind of check");
    expect(await dialog.getByLabel("Name to look up").inputValue()).toBe("example.com");
    expect(await dialog.getByLabel("Record type").inputValue()).toBe("MX");
    expect(await dialog.getByLabel("Expected values (one a line)").inputValue()).toBe(
      "10 mx1.example.com\n20 mx2.example.com",
    );
    await dialog.getByLabel("Record type").selectOption("TXT");
    await dialog.getByRole("button", { name: "Save" }).click();
    await expect.poll(() => form(page).count()).toBe(0);
    expect((await sites()).get("Mail exchangers").dns.recordType).toBe("TXT");
  }, 30_000);

  test("the form of each kind: light, dark and 375 px, axe clean", async () => {
    const state = await owner.context.storageState();
    for (const shot of SHOTS) {
      const { context, page, errors } = await served.open({ ...shot, storageState: state });
      await page.goto(`${served.origin}/dashboard/`);
      await dashboard(page).getByRole("heading", { name: "Sites", level: 1 }).waitFor();
      for (const kind of ["http", "tcp", "tls", "dns", "icmp", "push"]) {
        const dialog = await openForm(page, kind);
        if (kind === "http") await dialog.locator("summary", { hasText: "Checks on the answer" }).click();
        await shoot(page, `form-${kind}-${shot.name}`, shot.width);
        if (kind === "http") {
          // The request's own settings, at the foot of "More settings".
          await dialog.locator("summary", { hasText: "More settings" }).click();
          await dialog.getByLabel("Follow redirects").scrollIntoViewIfNeeded();
          await shoot(page, `form-http-request-${shot.name}`, shot.width);
        }
        await dialog.getByRole("button", { name: "Cancel" }).click();
        await expect.poll(() => form(page).count()).toBe(0);
      }
      expect(errors).toEqual([]);
      await context.close();
    }
  }, 180_000);

  test("each kind's screen: its settings and its chart's name; light, dark and 375 px, axe clean", async () => {
    const all = await sites();
    const screens: [string, string, RegExp][] = [
      ["Shop", "Response time", /Keyword.*The body must contain.*Welcome/],
      ["Admin area", "Response time", /Basic auth.*ops, password stored sealed.*Redirects.*Not followed/],
      ["Mail port", "Connect time", new RegExp(`Target.*127\\.0\\.0\\.1:${portNumber}`)],
      ["Mail exchangers", "Query time", /Question.*TXT records of example\.com.*Exactly.*10 mx1\.example\.com/],
      ["Router", "Round trip", /Host.*127\.0\.0\.1/],
      ["Nightly backup", "Run time the job reports", /Expected.*A call at least every 24 h, 600 s of grace/],
    ];
    const state = await owner.context.storageState();
    for (const shot of SHOTS) {
      const { context, page, errors } = await served.open({ ...shot, storageState: state });
      for (const [name, chart, settings] of screens) {
        await page.goto(`${served.origin}/dashboard/sites/${all.get(name).id}`);
        const d = dashboard(page);
        await d.getByRole("heading", { name, level: 1 }).waitFor();
        await d.getByRole("heading", { name: chart, level: 2 }).waitFor();
        expect((await d.locator(".settings").textContent())?.replace(/\s+/g, " ")).toMatch(settings);
        await expect.poll(() => d.getByText("Loading…").count()).toBe(0);
        // The chart speaks of what it draws ("Connect time, ms: 1 ms at ..."), never "response time" for a port.
        if (name === "Mail port" || name === "Router") {
          const legend = d.locator("pl-response-chart .legend");
          await expect.poll(async () => (await legend.textContent())?.toLowerCase()).toContain(chart.toLowerCase());
          expect((await legend.textContent())?.toLowerCase()).not.toContain("response time");
        }
        await shoot(page, `site-${name.toLowerCase().replaceAll(" ", "-")}-${shot.name}`, shot.width);
      }
      expect(errors).toEqual([]);
      await context.close();
    }
  }, 180_000);

  test("the owner's tab reported no error but the refusals asked for", () => {
    expect(owner.errors.filter((e) => !REFUSED.test(e))).toEqual([]);
  });
});
