// Issue 30: the owner's side of subscriptions in the dashboard, in real Chromium against `porchlight serve` with a
// real SMTP server in the test process. From a page's editor, its Subscribers screen: the switch (and the kinds), the
// API's message beside the kinds; an import with consent (no e-mail) and one without (a confirmation e-mail to the
// new address only); counts by state, a search and a state filter kept in the address; a removal after a
// confirmation; the CSV export. On the incidents screen: the e-mail previewed before it goes out (its subject, its
// reach), the notice mailed on publish, and an update posted with "Tell the page's subscribers" unticked mailed to no
// one. Screenshots in test-artifacts/dashboard-subscribers-*.png.
import type { Server } from "node:http";
import type { Page } from "playwright-core";
import PostalMime from "postal-mime";
import { SMTPServer } from "smtp-server";
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

describeBrowser("the dashboard's subscribers screen and the notice preview", () => {
  /** Filled before the server starts (this beforeAll runs first): the SMTP server's address. */
  const env: Record<string, string> = { PORCHLIGHT_VIEW_TTL_SECONDS: "1" };
  const mails: { to: string; raw: string }[] = [];
  let smtp: SMTPServer;

  beforeAll(async () => {
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ["STARTTLS"],
      logger: false,
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on("data", (chunk: Buffer) => chunks.push(chunk));
        stream.on("end", () => {
          const raw = Buffer.concat(chunks).toString("utf8");
          for (const rcpt of session.envelope.rcptTo) mails.push({ to: rcpt.address, raw });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", resolve));
    env.SMTP_URL = `smtp://127.0.0.1:${(smtp.server.address() as { port: number }).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => smtp?.close(() => resolve())));

  const served = useDashboardServer("dashboard-subscribers", env);
  let origin: string;
  let owner: Tab;
  let target: { server: Server; origin: string };
  let pageId = 0;

  const call = (method: string, path: string, body?: unknown) => callAs(owner, method, path, body);
  const to = (address: string) => mails.filter((m) => m.to === address);
  /** A mail as its reader sees it: subject and plain text, decoded. */
  const parsed = (raw: string | undefined) => PostalMime.parse(raw ?? "");

  beforeAll(async () => {
    origin = served.origin;
    target = await listen((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end("ok");
    });
    owner = await served.signInOwner();
    const page = await call("POST", "/public/v1/status-pages", { name: "Acme Status", slug: "acme" });
    expect(page.status, JSON.stringify(page.json)).toBe(201);
    pageId = page.json.data.id;
    for (const name of ["Website", "Checkout"]) {
      const site = await call("POST", "/public/v1/sites", { url: `${target.origin}/${name}`, name, checkInterval: 60 });
      expect(site.status, JSON.stringify(site.json)).toBe(201);
      const item = await call("POST", `/public/v1/status-pages/${pageId}/items`, { siteId: site.json.data.id });
      expect(item.status, JSON.stringify(item.json)).toBe(201);
    }
  }, 60_000);

  afterAll(() => closeListener(target));

  const listed = async () =>
    (await call("GET", `/public/v1/status-pages/${pageId}/subscribers?limit=500`)).json.data as {
      subscribers: { id: string; address: string; state: string }[];
      counts: Record<string, number>;
    };
  const rows = (page: Page) => dashboard(page).locator("tbody tr");

  test("from the page's editor: the switch and its kinds, the API's message beside them", async () => {
    const { page } = owner;
    const d = dashboard(page);
    await page.goto(`${origin}/dashboard/pages/${pageId}`);
    await d.getByRole("link", { name: "Subscribers (off)" }).click();
    await d.getByRole("heading", { name: "Subscribers", level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/dashboard/pages/${pageId}/subscribers`);
    expect(await page.title()).toBe("Subscribers · Porchlight");
    // The navigation still says where this is: under Status pages.
    expect(await d.getByRole("link", { name: "Status pages" }).getAttribute("aria-current")).toBe("page");

    const form = d.locator("form", { has: page.getByRole("heading", { name: "Subscriptions" }) });
    // No kind at all: the API refuses, and its sentence stands beside the kinds, the first of which takes the focus.
    await form.getByLabel("E-mail").uncheck();
    await form.getByRole("button", { name: "Save" }).click();
    await expect.poll(() => form.locator(".error").textContent()).toBeTruthy();
    const refused = await call("PATCH", `/public/v1/status-pages/${pageId}`, { subscriptions: { kinds: [] } });
    expect(refused.status).toBe(400);
    expect(await form.locator(".error").textContent()).toBe(refused.json.details[0].message);
    expect(await form.getByLabel("E-mail").getAttribute("aria-invalid")).toBe("true");

    await form.getByLabel("Visitors may subscribe").check();
    await form.getByLabel("E-mail").check();
    await form.getByLabel("Slack").check();
    await form.getByRole("button", { name: "Save" }).click();
    await expect.poll(() => d.getByRole("status").first().textContent()).toBe("Visitors may subscribe to Acme Status.");
    const saved = (await call("GET", `/public/v1/status-pages/${pageId}`)).json.data.subscriptions;
    expect(saved).toEqual({ enabled: true, kinds: ["email", "slack"] });
    expect(await form.locator(".error").count()).toBe(0);
  });

  test("an import with consent mails no one; one without mails the new address only; bad lines are named", async () => {
    const { page } = owner;
    const d = dashboard(page);
    await page.goto(`${origin}/dashboard/pages/${pageId}/subscribers`);
    const importForm = d.locator("#import-form");
    await importForm
      .getByLabel("Addresses")
      .fill("email\nAda@Example.com\nnot an address\nbob@example.com\ncarol@example.org");
    await importForm.getByLabel(/They agreed to hear from Acme Status/).check();
    await importForm.getByRole("button", { name: "Import" }).click();
    const result = importForm.getByRole("status");
    await expect.poll(() => result.textContent()).toContain("Added 3; 0 already here. One line is not an address:");
    expect(await result.locator("li").textContent()).toBe("Line 3: not an address");
    await expect.poll(() => rows(page).count()).toBe(3);
    expect((await listed()).counts).toEqual({ pending: 0, confirmed: 3, suspended: 0 });
    // The form is cleared for the next import, consent unticked again.
    expect(await importForm.getByLabel("Addresses").inputValue()).toBe("");
    expect(await importForm.getByLabel(/They agreed/).isChecked()).toBe(false);

    // Without consent, from a file: the new address gets a confirmation e-mail; the one already here gets nothing.
    await importForm.getByLabel("Or a CSV file").setInputFiles({
      name: "more.csv",
      mimeType: "text/csv",
      buffer: Buffer.from("email,name\r\ndave@example.net,Dave\r\nbob@example.com,Bob\r\n"),
    });
    await importForm.getByRole("button", { name: "Import" }).click();
    await expect.poll(() => result.textContent()).toContain("Added 1; 1 already here.");
    await expect.poll(() => to("dave@example.net").length, { timeout: 15_000 }).toBe(1);
    expect((await parsed(to("dave@example.net")[0]?.raw)).subject).toMatch(/confirm/i);
    expect(to("bob@example.com")).toHaveLength(0);
    expect(to("ada@example.com")).toHaveLength(0);
    expect((await listed()).counts).toEqual({ pending: 1, confirmed: 3, suspended: 0 });
    // The counts in words, by state.
    await expect
      .poll(() => d.getByLabel("Subscribers by state").innerText())
      .toMatch(/3\s+confirmed\s+1\s+waiting for confirmation\s+0\s+suspended/);
    // Stored normalised, listed by address.
    expect((await listed()).subscribers.map((s) => s.address)).toEqual([
      "ada@example.com",
      "bob@example.com",
      "carol@example.org",
      "dave@example.net",
    ]);
  }, 90_000);

  test("a search and a state filter, kept in the address; a removal after a confirmation; the CSV export", async () => {
    const { page } = owner;
    const d = dashboard(page);
    await page.goto(`${origin}/dashboard/pages/${pageId}/subscribers`);
    await expect.poll(() => rows(page).count()).toBe(4);
    await d.getByLabel("Find a subscriber").fill("EXAMPLE.COM");
    await expect.poll(() => rows(page).count()).toBe(2);
    expect(await d.getByRole("status").filter({ hasText: "match" }).textContent()).toBe("2 of 4 subscribers match");
    await d.getByLabel(/^State/).selectOption({ label: "Waiting for confirmation" });
    await expect.poll(() => rows(page).count()).toBe(0);
    await d.getByLabel("Find a subscriber").fill("");
    await expect.poll(() => rows(page).count()).toBe(1);
    expect(await rows(page).first().textContent()).toContain("dave@example.net");
    expect(await rows(page).first().textContent()).toContain("Waiting for confirmation");
    // A reload (or a shared link) shows the same list.
    expect(new URL(page.url()).search).toBe("?state=pending");
    await page.reload();
    await expect.poll(() => rows(page).count()).toBe(1);
    expect(await d.getByLabel(/^State/).inputValue()).toBe("pending");
    await d.getByLabel(/^State/).selectOption("");
    await expect.poll(() => rows(page).count()).toBe(4);

    // Remove asks first; Cancel keeps the subscriber.
    await d.getByRole("button", { name: "Remove bob@example.com" }).click();
    const dialog = d.locator("dialog#remove-subscriber");
    await expect.poll(() => dialog.getAttribute("open")).toBe("");
    await dialog.getByRole("button", { name: "Cancel" }).click();
    expect((await listed()).subscribers.map((s) => s.address)).toContain("bob@example.com");
    await d.getByRole("button", { name: "Remove bob@example.com" }).click();
    await dialog.getByRole("button", { name: "Remove" }).click();
    await expect.poll(() => rows(page).count()).toBe(3);
    expect(await d.getByRole("status").first().textContent()).toBe(
      "Removed bob@example.com: nothing more is sent there.",
    );
    expect((await listed()).subscribers.map((s) => s.address)).not.toContain("bob@example.com");

    // Export: the session's own download of the CSV, one line per subscriber, by address.
    const exportLink = d.getByRole("link", { name: "Export CSV" });
    expect(await exportLink.getAttribute("download")).not.toBeNull();
    const href = (await exportLink.getAttribute("href")) as string;
    const csv = await page.evaluate(async (path) => (await fetch(path)).text(), href);
    const lines = csv.trim().split("\r\n");
    expect(lines[0]).toBe("email,state,services,created_at,confirmed_at,suspended_reason");
    expect(lines.slice(1).map((l) => l.split(",").slice(0, 2).join(","))).toEqual([
      "ada@example.com,confirmed",
      "carol@example.org,confirmed",
      "dave@example.net,pending",
    ]);
  }, 90_000);

  test("the subscribers screen in light, dark and 375 px: nothing wider than the screen, axe clean", async () => {
    for (const shot of SHOTS) {
      const tab = await served.open({
        width: shot.width,
        colorScheme: shot.colorScheme,
        storageState: await owner.context.storageState(),
      });
      await tab.page.goto(`${origin}/dashboard/pages/${pageId}/subscribers`);
      await expect.poll(() => rows(tab.page).count()).toBe(3);
      expect(await tab.page.evaluate(() => document.documentElement.scrollWidth <= innerWidth)).toBe(true);
      await tab.page.screenshot({ path: `${ARTIFACTS}/dashboard-subscribers-${shot.name}.png`, fullPage: true });
      if (shot.name === "light") expect(await axeViolations(tab.page)).toEqual([]);
      expect(tab.errors).toEqual([]);
      await tab.context.close();
    }
  }, 90_000);

  test("an incident's e-mail is previewed before it goes out; unticked, an update tells no one", async () => {
    const { page } = owner;
    const d = dashboard(page);
    await page.goto(`${origin}/dashboard/incidents?page=${pageId}`);
    const form = d.locator("#new-incident-form");
    await form.waitFor();
    // Nothing to preview yet: the API's message beside the title.
    await form.getByRole("button", { name: "Preview the e-mail" }).click();
    await expect.poll(() => form.locator("#i-title-error").count()).toBe(1);
    await form.getByLabel("Title").fill("Checkout is slow");
    await form.getByLabel("Checkout", { exact: true }).check();
    await form.getByLabel("Status of Checkout").selectOption("degraded");
    await form.getByLabel("What visitors read").fill("Payments take up to a minute. We are on it.");
    await form.getByRole("button", { name: "Preview the e-mail" }).click();
    const preview = form.locator("#notice-preview");
    await expect.poll(() => preview.count()).toBe(1);
    // Its reach: the two confirmed subscribers (dave has not confirmed); its subject as an inbox lists it.
    expect(await preview.innerText()).toContain("Acme Status: 2 confirmed subscribers");
    const subject = await preview.locator(".subject").textContent();
    expect(subject).toContain("[Acme Status]");
    expect(subject).toContain("Checkout is slow");
    const frame = preview.locator("iframe");
    expect(await frame.getAttribute("sandbox")).toBe("");
    expect(await frame.getAttribute("srcdoc")).toContain("Payments take up to a minute. We are on it.");
    await form.screenshot({ path: `${ARTIFACTS}/dashboard-subscribers-preview.png` });
    expect(mails.filter((m) => m.to !== "dave@example.net")).toHaveLength(0);
    // A change to the form makes the preview stale: it goes until asked for again.
    await form.getByLabel("Title").fill("Checkout is slow!");
    await expect.poll(() => preview.count()).toBe(0);
    await form.getByLabel("Title").fill("Checkout is slow");

    // Published with the tick on (the default): each confirmed subscriber gets it, once.
    expect(await form.getByLabel("Tell the page's subscribers").isChecked()).toBe(true);
    await form.getByRole("button", { name: "Open incident" }).click();
    await expect.poll(() => to("ada@example.com").length, { timeout: 20_000 }).toBe(1);
    await expect.poll(() => to("carol@example.org").length, { timeout: 20_000 }).toBe(1);
    expect((await parsed(to("ada@example.com")[0]?.raw)).subject).toBe(subject);

    // An update with the tick off, then one with it on: only the second is mailed.
    const incident = d.locator("article.incident", { hasText: "Checkout is slow" });
    for (const [words, tell] of [
      ["Quiet note for the record.", false],
      ["Payments are back to normal speed.", true],
    ] as const) {
      await incident.getByRole("button", { name: "Post an update" }).click();
      const update = incident.getByRole("form", { name: "Post an update on Checkout is slow" });
      await update.getByLabel("Update", { exact: true }).fill(words);
      await update.getByLabel("Tell the page's subscribers").setChecked(tell);
      await update.getByRole("button", { name: "Post update" }).click();
      await expect.poll(() => update.count()).toBe(0);
    }
    await expect.poll(() => to("ada@example.com").length, { timeout: 20_000 }).toBe(2);
    // A wrongly told quiet note could still be on its way: the sender's next rounds are given time to send it.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(to("ada@example.com")).toHaveLength(2);
    const told = await Promise.all(to("ada@example.com").map(async (m) => (await parsed(m.raw)).text ?? ""));
    expect(told[1]).toContain("Payments are back to normal speed.");
    expect(told.some((text) => text.includes("Quiet note for the record."))).toBe(false);
    expect(to("bob@example.com")).toHaveLength(0);
  }, 90_000);
});
