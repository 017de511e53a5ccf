import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, beforeEach, expect, test } from "vitest";
import { SecretBox } from "../../server/accounts/sealed.ts";
import { NoticeSender } from "../../server/alerts/notice-sender.ts";
import { createMailer } from "../../server/anon/mail.ts";
import { createLogger } from "../../server/log.ts";
import {
  type App,
  client,
  describeStores,
  makeApp,
  seedOwner,
  seedStatusPage,
  TestClock,
  testConfig,
  useStore,
} from "../helpers.ts";

/** A received message: its envelope recipient and its text, quoted-printable decoded. */
interface Mail {
  to: string;
  raw: string;
  text: string;
}

const decode = (raw: string) =>
  Buffer.from(
    raw
      .replace(/=\r?\n/g, "")
      .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))),
    "latin1",
  ).toString("utf8");

/** A header's value, unfolded, its RFC 2047 words (=?UTF-8?Q?…?=) decoded. */
const header = (mail: Mail, name: string) =>
  new RegExp(`^${name}:(.*(?:\\r?\\n[ \\t].*)*)`, "im")
    .exec(mail.raw)?.[1]
    ?.replace(/\r?\n[ \t]/g, " ")
    .trim()
    .replace(/\?= =\?/g, "?==?")
    .replace(/=\?UTF-8\?Q\?([^?]*)\?=/gi, (_, word: string) =>
      decodeURIComponent(word.replace(/_/g, " ").replace(/=([0-9A-F]{2})/gi, "%$1")),
    );

/** The token of the first link to `path` in a mail. */
function tokenIn(mail: Mail, path: string): string {
  const found = new RegExp(`${path}\\?token=([A-Za-z0-9_-]{43})`).exec(mail.text);
  if (!found?.[1]) throw new Error(`no ${path} link in:\n${mail.text}`);
  return found[1];
}

describeStores("visitors subscribe to a page by e-mail", (kind) => {
  let smtp: SMTPServer;
  let smtpPort = 0;
  /** While set, the mail server refuses every message's content (554), as one refusing the sender or a login would. */
  let refuseData = false;
  const mails: Mail[] = [];
  let clock: TestClock;
  let app: App;
  let api: ReturnType<typeof client>;
  let visitor: ReturnType<typeof client>;
  let sender: NoticeSender;
  let ownerToken = "";
  let page: { id: string; ids: string[] };
  let items: { id: number; label: string }[];
  /** Mails to `to`, in the order received. */
  const to = (address: string) => mails.filter((m) => m.to === address);

  beforeAll(async () => {
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ["STARTTLS"],
      logger: false,
      onRcptTo(address, _session, callback) {
        // A hard bounce, as a mail server refuses an unknown mailbox.
        if (address.address.startsWith("gone@"))
          return callback(Object.assign(new Error("5.1.1 no such user"), { responseCode: 550 }));
        callback();
      },
      onData(stream, session, callback) {
        if (refuseData) {
          stream.resume();
          stream.on("end", () => callback(Object.assign(new Error("5.7.1 rejected"), { responseCode: 554 })));
          return;
        }
        const chunks: Buffer[] = [];
        stream.on("data", (chunk: Buffer) => chunks.push(chunk));
        stream.on("end", () => {
          const raw = Buffer.concat(chunks).toString("utf8");
          for (const rcpt of session.envelope.rcptTo) mails.push({ to: rcpt.address, raw, text: decode(raw) });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", resolve));
    smtpPort = (smtp.server.address() as { port: number }).port;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => smtp?.close(() => resolve()));
  });

  const opened = useStore(kind, { each: true }, async ({ store, dataDir }) => {
    clock = new TestClock();
    const logger = createLogger("silent");
    const mailer = createMailer({
      smtpUrl: `smtp://127.0.0.1:${smtpPort}`,
      from: "status@status.test",
      dataDir,
      logger,
    });
    ({ app } = makeApp(store, { clock, mailer }));
    const owner = await seedOwner(store);
    ownerToken = owner.token;
    api = client(app, owner.token);
    visitor = client(app);
    page = await seedStatusPage(api, store, clock.now(), "acme", {}, ["Checkout", "Search"]);
    await api.patch(`/public/v1/status-pages/${page.id}`, { subscriptions: { enabled: true } });
    items = (await api.get(`/public/v1/status-pages/${page.id}`)).json.data.items.map(
      (i: { id: number; label: string }) => ({ id: i.id, label: i.label }),
    );
    const secrets = new SecretBox(testConfig().secretKey, dataDir);
    sender = new NoticeSender({
      store,
      clock,
      logger,
      mailer,
      token: (nonce) => secrets.token(nonce),
      unseal: (sealed) => secrets.open(sealed),
      publicUrl: "http://status.test",
      delivery: { allowPrivate: true },
      random: () => 0.5,
    });
    mails.length = 0;
    return () => mailer.close();
  });

  /** Runs the sender until nothing is left to do. */
  const drain = async () => {
    for (let i = 0; i < 50; i++) if ((await sender.tick()) === 0) return;
    throw new Error("the sender never ran dry");
  };

  /** Signs up and confirms `address`, answering the mail's manage token. */
  async function subscribe(address: string, chosen?: number[]): Promise<string> {
    const res = await visitor.post("/public/v1/status-page/acme/subscribers", {
      email: address,
      ...(chosen ? { items: chosen } : {}),
    });
    expect(res.status).toBe(202);
    await drain();
    const confirmation = to(address.toLowerCase()).at(-1) as Mail;
    const confirmed = await app.request("/subscriptions/confirm", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `token=${tokenIn(confirmation, "/subscriptions/confirm")}`,
    });
    expect(confirmed.status).toBe(200);
    // The page that confirms links to the subscription's choices.
    return tokenIn({ to: address, raw: "", text: await confirmed.text() }, "/subscriptions/manage");
  }

  const openIncident = async (body: Record<string, unknown>) => {
    const res = await api.post(`/public/v1/status-pages/${page.id}/incidents`, { message: "Looking into it", ...body });
    expect(res.status).toBe(201);
    return res.json.data.id as number;
  };

  beforeEach(() => {
    mails.length = 0;
    refuseData = false;
  });

  const form = (path: string, body: string) =>
    app.request(path, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body,
    });

  test("a page takes no sign-up until its owner allows subscriptions", async () => {
    await api.patch(`/public/v1/status-pages/${page.id}`, { subscriptions: { enabled: false } });
    const res = await visitor.post("/public/v1/status-page/acme/subscribers", { email: "ada@example.com" });
    expect(res.status).toBe(403);
    expect(res.json).toMatchObject({ success: false, code: 403, error: "forbidden" });
    expect((await visitor.post("/public/v1/status-page/nope/subscribers", { email: "a@example.com" })).status).toBe(
      404,
    );
    const bad = await visitor.post("/public/v1/status-page/acme/subscribers", { email: "not an address" });
    expect(bad.status).toBe(400);
  });

  test("double opt-in: only the confirmation goes out until its link is followed; then notices do", async () => {
    const res = await visitor.post("/public/v1/status-page/acme/subscribers", { email: "Ada@Example.com" });
    expect(res.status).toBe(202);
    expect(res.json.data).toEqual({ status: "confirmation_sent", confirmWithinHours: 24 });
    await drain();
    expect(mails.map((m) => m.to)).toEqual(["ada@example.com"]);
    const confirmation = mails[0] as Mail;
    expect(header(confirmation, "Subject")).toBe("[Acme acme] Confirm your subscription");
    // From the page, by name, at the configured address.
    expect(header(confirmation, "From")).toBe("Acme acme <status@status.test>");
    const confirm = tokenIn(confirmation, "/subscriptions/confirm");

    // Unconfirmed: an incident tells it nothing.
    await openIncident({ title: "Checkout is slow" });
    await drain();
    expect(mails).toHaveLength(1);

    // A GET only shows the button (mail scanners open links); the POST confirms.
    const shown = await app.request(`/subscriptions/confirm?token=${confirm}`);
    expect(shown.status).toBe(200);
    expect(await shown.text()).toContain('<form method="post"');
    expect((await api.get(`/public/v1/status-pages/${page.id}/subscribers`)).json.data.counts).toEqual({
      pending: 1,
      confirmed: 0,
      suspended: 0,
    });
    const done = await app.request("/subscriptions/confirm", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `token=${confirm}`,
    });
    expect(done.status).toBe(200);
    expect(await done.text()).toContain("Subscribed");

    const id = await openIncident({ title: "Search is down", items: [{ id: items[1]?.id, status: "major_outage" }] });
    await drain();
    expect(mails).toHaveLength(2);
    const notice = mails[1] as Mail;
    expect(header(notice, "Subject")).toBe("[Acme acme] Search is down: major outage — investigating");
    expect(header(notice, "From")).toBe("Acme acme <status@status.test>");
    expect(notice.text).toContain("Looking into it");
    expect(notice.text).toContain("Search: major outage");
    expect(notice.text).toContain("http://status.test/acme");
    expect(header(notice, "List-Unsubscribe-Post")).toBe("List-Unsubscribe=One-Click");
    expect(header(notice, "List-Unsubscribe")).toMatch(/^<http:\/\/status\.test\/subscriptions\/unsubscribe\?token=/);
    const root = header(notice, "Message-ID");
    expect(root).toMatch(new RegExp(`^<incident-${id}\\.sub_[0-9a-f]+@status\\.test>$`));

    // An update and the resolution thread under the first notice.
    await api.post(`/public/v1/status-pages/${page.id}/incidents/${id}/updates`, {
      status: "identified",
      message: "A bad deploy",
    });
    await api.post(`/public/v1/status-pages/${page.id}/incidents/${id}/updates`, {
      status: "resolved",
      message: "Rolled back",
    });
    await drain();
    expect(mails).toHaveLength(4);
    expect(header(mails[2] as Mail, "Subject")).toBe("[Acme acme] Search is down: major outage — identified");
    expect(header(mails[3] as Mail, "Subject")).toBe("[Acme acme] Search is down: resolved");
    for (const mail of mails.slice(2)) {
      expect(header(mail, "In-Reply-To")).toBe(root);
      expect(header(mail, "References")).toBe(root);
    }
    // An update the owner chose not to tell, and a draft, tell nothing.
    await api.post(`/public/v1/status-pages/${page.id}/incidents/${id}/updates`, {
      status: "monitoring",
      message: "Quiet",
      notify: false,
    });
    const draft = await openIncident({ title: "Draft", publish: false });
    await drain();
    expect(mails).toHaveLength(4);
    // Publishing the draft tells.
    expect((await api.post(`/public/v1/status-pages/${page.id}/incidents/${draft}/publish`)).status).toBe(200);
    await drain();
    expect(mails).toHaveLength(5);
    expect(header(mails[4] as Mail, "Subject")).toContain("Draft");
  });

  test("each subscriber gets each notice once, whoever fans out and however often", async () => {
    await subscribe("one@example.com");
    await subscribe("two@example.com");
    mails.length = 0;
    await openIncident({ title: "Checkout is down" });
    // Two senders (two processes) share the work.
    const other = new NoticeSender({
      store: opened.store,
      clock,
      logger: createLogger("silent"),
      mailer: createMailer({
        smtpUrl: `smtp://127.0.0.1:${smtpPort}`,
        from: "s@status.test",
        dataDir: opened.dataDir,
        logger: createLogger("silent"),
      }),
      token: (nonce) => new SecretBox(testConfig().secretKey, opened.dataDir).token(nonce),
      unseal: (sealed) => new SecretBox(testConfig().secretKey, opened.dataDir).open(sealed),
      publicUrl: "http://status.test",
      delivery: { allowPrivate: true },
    });
    await Promise.all([sender.tick(), other.tick(), sender.tick(), other.tick()]);
    await drain();
    expect(to("one@example.com")).toHaveLength(1);
    expect(to("two@example.com")).toHaveLength(1);
  });

  test("a subscriber who chose services hears only of incidents touching them", async () => {
    const checkout = items[0]?.id as number;
    const search = items[1]?.id as number;
    await subscribe("checkout-only@example.com", [checkout]);
    await subscribe("everything@example.com");
    mails.length = 0;
    await openIncident({ title: "Search is slow", items: [{ id: search, status: "degraded" }] });
    await openIncident({ title: "Checkout is slow", items: [{ id: checkout, status: "degraded" }] });
    await openIncident({ title: "Something, somewhere" });
    await drain();
    expect(to("checkout-only@example.com").map((m) => header(m, "Subject"))).toEqual([
      "[Acme acme] Checkout is slow: degraded performance — investigating",
    ]);
    expect(to("everything@example.com")).toHaveLength(3);
  });

  test("the manage link chooses services, the one-click POST unsubscribes", async () => {
    const manage = await subscribe("bea@example.com");
    const search = items[1]?.id as number;
    const form = await app.request(`/subscriptions/manage?token=${manage}`);
    expect(await form.text()).toContain("Checkout");
    const saved = await app.request("/subscriptions/manage", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `token=${manage}&items=${search}`,
    });
    expect(saved.status).toBe(200);
    const listed = (await api.get(`/public/v1/status-pages/${page.id}/subscribers?search=BEA`)).json.data;
    expect(listed.subscribers.map((s: { items: number[] }) => s.items)).toEqual([[search]]);
    // RFC 8058: the client posts List-Unsubscribe=One-Click to the link itself.
    const gone = await app.request(`/subscriptions/unsubscribe?token=${manage}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "List-Unsubscribe=One-Click",
    });
    expect(gone.status).toBe(200);
    mails.length = 0;
    await openIncident({ title: "Search is down", items: [search] });
    await drain();
    expect(to("bea@example.com")).toEqual([]);
    expect((await api.get(`/public/v1/status-pages/${page.id}/subscribers`)).json.data.total).toBe(0);
    expect((await app.request(`/subscriptions/manage?token=${manage}`)).status).toBe(404);
  });

  test("a second sign-up sends one more link after the wait, and no more than three in all", async () => {
    const ask = () => visitor.post("/public/v1/status-page/acme/subscribers", { email: "cy@example.com" });
    expect((await ask()).status).toBe(202);
    expect((await ask()).status).toBe(202);
    await drain();
    expect(to("cy@example.com")).toHaveLength(1);
    // Each sent before the next is asked for: one tick delivers what waits at once, in any order, and the test
    // needs to know which link is the newest.
    for (let i = 0; i < 3; i++) {
      clock.advance(11 * 60_000);
      await ask();
      await drain();
    }
    const sent = to("cy@example.com");
    expect(sent).toHaveLength(3);
    // Only the newest link confirms.
    const first = tokenIn(sent[0] as Mail, "/subscriptions/confirm");
    const post = (token: string) =>
      app.request("/subscriptions/confirm", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: `token=${token}`,
      });
    expect((await post(first)).status).toBe(404);
    clock.advance(25 * 3_600_000);
    expect((await post(tokenIn(sent[2] as Mail, "/subscriptions/confirm"))).status).toBe(410);
  });

  test("sign-ups are limited per client: 429 with Retry-After", async () => {
    let last: Awaited<ReturnType<typeof visitor.post>> | undefined;
    for (let i = 0; i < 11; i++) {
      last = await visitor.post("/public/v1/status-page/acme/subscribers", { email: `n${i}@example.com` });
    }
    expect(last?.status).toBe(429);
    expect(Number(last?.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  test("a hard bounce suspends the subscriber, and the owner sees why", async () => {
    await visitor.post("/public/v1/status-page/acme/subscribers", { email: "gone@example.com" });
    await drain();
    const list = (await api.get(`/public/v1/status-pages/${page.id}/subscribers?state=suspended`)).json.data;
    expect(list.subscribers).toHaveLength(1);
    expect(list.subscribers[0].suspendedReason).toContain("550");
    expect(JSON.stringify(list)).not.toMatch(/token|nonce|hash/i);
  });

  test("a password page's subscribers stop hearing once its password changes", async () => {
    await api.patch(`/public/v1/status-pages/${page.id}`, {
      visibility: "password-protected",
      password: "first-password",
    });
    const without = await visitor.post("/public/v1/status-page/acme/subscribers", { email: "dee@example.com" });
    expect(without.status).toBe(401);
    const res = await visitor.post(
      "/public/v1/status-page/acme/subscribers",
      { email: "dee@example.com" },
      { "x-status-page-password": "first-password" },
    );
    expect(res.status).toBe(202);
    await drain();
    await app.request("/subscriptions/confirm", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `token=${tokenIn(to("dee@example.com")[0] as Mail, "/subscriptions/confirm")}`,
    });
    await openIncident({ title: "One" });
    await drain();
    expect(to("dee@example.com")).toHaveLength(2);
    await api.patch(`/public/v1/status-pages/${page.id}`, { password: "second-password" });
    await openIncident({ title: "Two" });
    await drain();
    expect(to("dee@example.com")).toHaveLength(2);
  });

  test("a page made private stops notices to addresses that are not its members'", async () => {
    await subscribe("outsider@example.com");
    await api.patch(`/public/v1/status-pages/${page.id}`, { visibility: "private" });
    mails.length = 0;
    await openIncident({ title: "Private trouble" });
    await drain();
    expect(to("outsider@example.com")).toEqual([]);
    // A private page takes sign-ups from its members only.
    expect((await visitor.post("/public/v1/status-page/acme/subscribers", { email: "x@example.com" })).status).toBe(
      401,
    );
    const stranger = await api.post("/public/v1/status-page/acme/subscribers", { email: "x@example.com" });
    expect(stranger.status).toBe(400);
  });

  test("the owner removes a subscriber", async () => {
    await subscribe("eve@example.com");
    const [one] = (await api.get(`/public/v1/status-pages/${page.id}/subscribers`)).json.data.subscribers;
    expect(one.address).toBe("eve@example.com");
    expect(one.state).toBe("confirmed");
    expect((await api.delete(`/public/v1/status-pages/${page.id}/subscribers/${one.id}`)).status).toBe(200);
    expect((await api.delete(`/public/v1/status-pages/${page.id}/subscribers/${one.id}`)).status).toBe(404);
    expect((await visitor.get(`/public/v1/status-pages/${page.id}/subscribers`)).status).toBe(401);
  });

  test("the page says whether visitors may subscribe; a private page never offers it", async () => {
    expect((await visitor.get("/public/v1/status-page/acme")).json.subscribe).toBe(true);
    await api.patch(`/public/v1/status-pages/${page.id}`, { subscriptions: { enabled: false } });
    expect((await visitor.get("/public/v1/status-page/acme")).json.subscribe).toBe(false);
    await api.patch(`/public/v1/status-pages/${page.id}`, { subscriptions: { enabled: true }, visibility: "private" });
    expect((await api.get("/public/v1/status-page/acme")).json.subscribe).toBe(false);
    expect((await app.request("/subscriptions/new?page=acme")).status).toBe(404);
  });

  test("the form lists the services, names a wrong address, and signs up", async () => {
    const shown = await app.request("/subscriptions/new?page=acme");
    expect(shown.status).toBe(200);
    expect(shown.headers.get("content-security-policy")).toContain("form-action 'self'");
    const html = await shown.text();
    expect(html).toContain("Checkout");
    expect(html).toContain('name="items"');
    // The page's feeds and each service's need no sign-up.
    expect(html).toContain('href="/acme/atom.xml"');
    expect(html).toContain(`href="/acme/items/${items[0]?.id}/feed.xml"`);
    const wrong = await form("/subscriptions/new", "page=acme&email=nope");
    expect(wrong.status).toBe(400);
    expect(await wrong.text()).toContain("Enter an e-mail address");
    const done = await form(
      "/subscriptions/new",
      `page=acme&email=fay%40example.com&items=${items[0]?.id}&items=999999`,
    );
    expect(done.status).toBe(200);
    expect(await done.text()).toContain("Check your inbox");
    await drain();
    expect(to("fay@example.com")).toHaveLength(1);
    const [fay] = (await api.get(`/public/v1/status-pages/${page.id}/subscribers`)).json.data.subscribers;
    expect(fay.items).toEqual([items[0]?.id]);
    expect((await form("/subscriptions/new", "page=nope&email=a%40example.com")).status).toBe(404);
    expect((await form("/subscriptions/new", "garbage")).status).toBe(404);
  });

  test("a password page's form asks for the password and lists no services before it", async () => {
    await api.patch(`/public/v1/status-pages/${page.id}`, {
      visibility: "password-protected",
      password: "pass-word-1",
    });
    const html = await (await app.request("/subscriptions/new?page=acme")).text();
    expect(html).toContain('type="password"');
    expect(html).not.toContain("Checkout");
    const wrong = await form("/subscriptions/new", "page=acme&email=gus%40example.com&password=nope");
    expect(wrong.status).toBe(400);
    expect(await wrong.text()).toContain("The password is incorrect.");
    const right = await form("/subscriptions/new", "page=acme&email=gus%40example.com&password=pass-word-1");
    expect(right.status).toBe(200);
  });

  test("a mail server refusing the message (not the address) retries and suspends no one", async () => {
    await subscribe("hal@example.com");
    refuseData = true;
    await openIncident({ title: "Refused" });
    await drain();
    const [hal] = (await api.get(`/public/v1/status-pages/${page.id}/subscribers`)).json.data.subscribers;
    expect(hal.state).toBe("confirmed");
    refuseData = false;
    mails.length = 0;
    clock.advance(10 * 60_000);
    await drain();
    expect(to("hal@example.com").map((m) => header(m, "Subject"))).toEqual(["[Acme acme] Refused: investigating"]);
  });

  test("what waits to be sent stops when the page is made private or stops taking subscriptions", async () => {
    await subscribe("ida@example.com");
    mails.length = 0;
    await openIncident({ title: "Queued" });
    // Fanned out, not yet sent.
    expect(await opened.store.subscribers.fanOutStep(clock.now().toISOString())).toBe(true);
    await api.patch(`/public/v1/status-pages/${page.id}`, { visibility: "private" });
    await drain();
    expect(to("ida@example.com")).toEqual([]);
    await api.patch(`/public/v1/status-pages/${page.id}`, { visibility: "public", subscriptions: { enabled: false } });
    await openIncident({ title: "Off" });
    await drain();
    expect(to("ida@example.com")).toEqual([]);
  });

  test("a draft published quietly tells no one; a draft resolved before publication is told as resolved", async () => {
    await subscribe("jo@example.com");
    mails.length = 0;
    const quiet = await openIncident({ title: "Quiet one", publish: false });
    await api.post(`/public/v1/status-pages/${page.id}/incidents/${quiet}/publish?notify=false`);
    const late = await openIncident({ title: "Late one", publish: false });
    await api.post(`/public/v1/status-pages/${page.id}/incidents/${late}/updates`, {
      status: "resolved",
      message: "Done",
    });
    await api.post(`/public/v1/status-pages/${page.id}/incidents/${late}/publish`);
    await drain();
    expect(to("jo@example.com").map((m) => header(m, "Subject"))).toEqual(["[Acme acme] Late one: resolved"]);
  });

  test("a suspended address that signs up again gets a new confirmation; a used confirmation link opens nothing", async () => {
    await visitor.post("/public/v1/status-page/acme/subscribers", { email: "gone@example.com" });
    await drain();
    expect((await api.get(`/public/v1/status-pages/${page.id}/subscribers?state=suspended`)).json.data.total).toBe(1);
    const manage = await subscribe("kim@example.com");
    expect(manage).toMatch(/^[\w-]{43}$/);
    const confirm = tokenIn(to("kim@example.com")[0] as Mail, "/subscriptions/confirm");
    expect((await form("/subscriptions/confirm", `token=${confirm}`)).status).toBe(404);
    const again = await visitor.post("/public/v1/status-page/acme/subscribers", { email: "gone@example.com" });
    expect(again.status).toBe(202);
    const list = (await api.get(`/public/v1/status-pages/${page.id}/subscribers?search=gone`)).json.data.subscribers;
    expect(list[0]).toMatchObject({ state: "pending", suspendedReason: null });
  });

  test("a subscriber cut off by a new password hears again after signing up with it", async () => {
    await api.patch(`/public/v1/status-pages/${page.id}`, {
      visibility: "password-protected",
      password: "old-password",
    });
    const ask = (password: string) =>
      visitor.post(
        "/public/v1/status-page/acme/subscribers",
        { email: "lee@example.com" },
        { "x-status-page-password": password },
      );
    await ask("old-password");
    await drain();
    await form(
      "/subscriptions/confirm",
      `token=${tokenIn(to("lee@example.com")[0] as Mail, "/subscriptions/confirm")}`,
    );
    await api.patch(`/public/v1/status-pages/${page.id}`, { password: "new-password" });
    await openIncident({ title: "Unheard" });
    await drain();
    expect(to("lee@example.com")).toHaveLength(1);
    expect((await ask("new-password")).status).toBe(202);
    await openIncident({ title: "Heard" });
    await drain();
    expect(to("lee@example.com").map((m) => header(m, "Subject"))).toEqual([
      "[Acme acme] Confirm your subscription",
      "[Acme acme] Heard: investigating",
    ]);
  });

  test("the owner imports a CSV (with stated consent, or with confirmations) and exports one", async () => {
    const withConsent = await api.post(`/public/v1/status-pages/${page.id}/subscribers/import`, {
      csv: 'email,name\r\nMia@Example.com,Mia\n"quoted@example.com",Q\nnot an address,X\n\n=cmd@example.com,Evil',
      consent: true,
      items: [items[1]?.id],
    });
    expect(withConsent.status).toBe(200);
    expect(withConsent.json.data).toEqual({ added: 3, existing: 0, invalid: [{ line: 4, value: "not an address" }] });
    await drain();
    expect(mails).toEqual([]);
    const without = await api.post(`/public/v1/status-pages/${page.id}/subscribers/import`, {
      csv: "mia@example.com\nned@example.com",
    });
    expect(without.json.data).toMatchObject({ added: 1, existing: 1 });
    await drain();
    expect(mails.map((m) => m.to)).toEqual(["ned@example.com"]);
    // Imported with consent: told at once, of the services chosen.
    await openIncident({ title: "Search is down", items: [{ id: items[1]?.id, status: "major_outage" }] });
    await drain();
    expect(to("mia@example.com")).toHaveLength(1);
    expect(to("ned@example.com")).toHaveLength(1);

    const csv = await app.request(`/public/v1/status-pages/${page.id}/subscribers.csv`, {
      headers: { authorization: `Bearer ${ownerToken}` },
    });
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(csv.headers.get("content-disposition")).toBe('attachment; filename="acme-subscribers.csv"');
    const lines = (await csv.text()).trimEnd().split("\r\n");
    expect(lines[0]).toBe("email,state,services,created_at,confirmed_at,suspended_reason");
    expect(lines.slice(1).map((l) => l.split(",").slice(0, 3).join(","))).toEqual([
      "'=cmd@example.com,confirmed,Search",
      "mia@example.com,confirmed,Search",
      "ned@example.com,pending,",
      "quoted@example.com,confirmed,Search",
    ]);
    const tooMany = await api.post(`/public/v1/status-pages/${page.id}/subscribers/import`, {
      csv: Array.from({ length: 10_002 }, (_, i) => `a${i}@x.io`).join("\n"),
    });
    expect(tooMany.status).toBe(400);
  });
  /** Advances the clock past the sender's sweep interval and runs it dry. */
  const later = async (ms: number) => {
    clock.advance(ms);
    await drain();
  };
  const subjects = (address: string) => to(address).map((m) => header(m, "Subject"));

  test("maintenance: told when scheduled (again only when moved), when it starts and when it ends, threaded, to the subscribers of its services", async () => {
    await subscribe("all@example.com");
    await subscribe("checkout@example.com", [items[0]?.id as number]);
    await subscribe("search@example.com", [items[1]?.id as number]);
    mails.length = 0;
    // Now is Sat 21 Nov 2026 12:00 UTC.
    const made = await api.post("/public/v1/maintenance-windows", {
      title: "Database upgrade",
      description: "We move to a bigger database.\n\nCheckout may be slow.",
      sites: [page.ids[0]],
      start: "2026-11-22T02:00",
      durationMinutes: 60,
    });
    expect(made.status).toBe(201);
    const windowId = made.json.data.id as string;
    await drain();
    const scheduled = "[Acme acme] Database upgrade: maintenance scheduled for Sun, 22 Nov 2026, 02:00 UTC";
    expect(subjects("all@example.com")).toEqual([scheduled]);
    expect(subjects("checkout@example.com")).toEqual([scheduled]);
    expect(to("search@example.com")).toEqual([]);
    const first = to("all@example.com")[0] as Mail;
    expect(first.text).toContain("Scheduled for Sun, 22 Nov 2026, 02:00 – 03:00 UTC");
    expect(first.text).toContain("We move to a bigger database.");
    expect(first.text).toMatch(/Services under maintenance:\r?\n- Checkout/);
    expect(header(first, "List-Unsubscribe-Post")).toBe("List-Unsubscribe=One-Click");

    // A new title keeps the time: no one is told again. A new time is told.
    expect((await api.patch(`/public/v1/maintenance-windows/${windowId}`, { title: "Database move" })).status).toBe(
      200,
    );
    await drain();
    expect(to("all@example.com")).toHaveLength(1);
    expect((await api.patch(`/public/v1/maintenance-windows/${windowId}`, { start: "2026-11-22T03:00" })).status).toBe(
      200,
    );
    await drain();
    expect(subjects("all@example.com")).toEqual([
      scheduled,
      "[Acme acme] Database move: maintenance scheduled for Sun, 22 Nov 2026, 03:00 UTC",
    ]);
    const announced = header(to("all@example.com")[1] as Mail, "Message-ID");

    // It begins: told once, however often the sweep looks.
    await later(15 * 3_600_000 + 30_000);
    await later(20_000);
    await later(20_000);
    expect(subjects("all@example.com").slice(2)).toEqual(["[Acme acme] Database move: maintenance in progress"]);
    const started = to("all@example.com")[2] as Mail;
    expect(started.text).toContain("In progress until Sun, 22 Nov 2026, 04:00 UTC");
    expect(header(started, "In-Reply-To")).toBe(announced);
    // It ends: told once.
    await later(3_600_000);
    await later(20_000);
    expect(subjects("all@example.com").slice(3)).toEqual(["[Acme acme] Database move: maintenance completed"]);
    expect(header(to("all@example.com")[3] as Mail, "References")).toBe(announced);
    expect(subjects("checkout@example.com")).toEqual(subjects("all@example.com"));
    expect(to("search@example.com")).toEqual([]);
  });

  test("maintenance: one made under way is told as started, ending it early is told once, a repeating window tells its schedule only", async () => {
    await subscribe("ops@example.com");
    mails.length = 0;
    const underWay = await api.post("/public/v1/maintenance-windows", {
      title: "Cache flush",
      sites: [page.ids[1]],
      start: "2026-11-21T11:50Z",
      durationMinutes: 60,
    });
    expect(underWay.status).toBe(201);
    // The sweep that sees it under way runs every 15 s.
    await later(20_000);
    expect(subjects("ops@example.com")).toEqual(["[Acme acme] Cache flush: maintenance in progress"]);
    await later(5 * 60_000);
    expect((await api.post(`/public/v1/maintenance-windows/${underWay.json.data.id}/end`, {})).status).toBe(200);
    await drain();
    await later(20_000);
    await later(60 * 60_000);
    expect(subjects("ops@example.com")).toEqual([
      "[Acme acme] Cache flush: maintenance in progress",
      "[Acme acme] Cache flush: maintenance completed",
    ]);
    expect((to("ops@example.com")[1] as Mail).text).toContain("Completed at Sat, 21 Nov 2026, 12:05 UTC");

    mails.length = 0;
    const nightly = await api.post("/public/v1/maintenance-windows", {
      title: "Nightly backup",
      sites: [page.ids[0]],
      start: "2026-11-23T02:00",
      durationMinutes: 30,
      recurrence: "FREQ=DAILY",
    });
    expect(nightly.status).toBe(201);
    await drain();
    expect(subjects("ops@example.com")).toEqual([
      "[Acme acme] Nightly backup: maintenance scheduled for Mon, 23 Nov 2026, 02:00 UTC",
    ]);
    expect((to("ops@example.com")[0] as Mail).text).toContain("This maintenance repeats");
    // Its nights come and go without a message each; a new title, its next night come, tells no one either.
    for (let i = 0; i < 6; i++) await later(12 * 3_600_000);
    expect(to("ops@example.com")).toHaveLength(1);
    const nightlyId = nightly.json.data.id as string;
    expect((await api.patch(`/public/v1/maintenance-windows/${nightlyId}`, { title: "Nightly backups" })).status).toBe(
      200,
    );
    await drain();
    expect(to("ops@example.com")).toHaveLength(1);
    // A new plan is told: its next time, and its new length.
    expect((await api.patch(`/public/v1/maintenance-windows/${nightlyId}`, { durationMinutes: 45 })).status).toBe(200);
    await drain();
    expect(subjects("ops@example.com")).toEqual([
      "[Acme acme] Nightly backup: maintenance scheduled for Mon, 23 Nov 2026, 02:00 UTC",
      "[Acme acme] Nightly backups: maintenance scheduled for Wed, 25 Nov 2026, 02:00 UTC",
    ]);
    expect((to("ops@example.com")[1] as Mail).text).toContain("Scheduled for Wed, 25 Nov 2026, 02:00 – 02:45 UTC");
  });

  test("maintenance on a page that takes no subscriptions, or on services no page shows, writes no notice", async () => {
    await subscribe("quiet@example.com");
    await api.patch(`/public/v1/status-pages/${page.id}`, { subscriptions: { enabled: false } });
    mails.length = 0;
    const hidden = await api.post("/public/v1/maintenance-windows", {
      title: "Unseen",
      sites: [page.ids[0]],
      start: "2026-11-21T12:30",
      durationMinutes: 30,
    });
    expect(hidden.status).toBe(201);
    await later(40 * 60_000);
    await later(40 * 60_000);
    expect(mails).toEqual([]);
    expect(await opened.store.subscribers.sweepMaintenance(clock.now().toISOString())).toBe(0);
  });
  test("finished deliveries and the notices done with are pruned after 30 days; waiting ones and subscribers stay", async () => {
    await subscribe("kept@example.com");
    await openIncident({ title: "Checkout is slow" });
    await drain();
    const { db } = opened.store;
    const count = async (table: "subscriber_deliveries" | "subscriber_notices" | "subscribers") =>
      Number(
        (
          await db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<number | string>().as("n"))
            .executeTakeFirstOrThrow()
        ).n,
      );
    expect(await count("subscriber_deliveries")).toBe(2);
    expect(await count("subscriber_notices")).toBe(1);
    // 29 days on: kept. A new incident's notice is still on its way when the pruning runs.
    await later(29 * 86_400_000);
    expect(await count("subscriber_deliveries")).toBe(2);
    await later(2 * 86_400_000);
    refuseData = true;
    await openIncident({ title: "Search is down" });
    await sender.tick();
    await sender.tick();
    expect(await count("subscriber_notices")).toBe(1);
    expect(await count("subscriber_deliveries")).toBe(1);
    expect(await count("subscribers")).toBe(1);
  });
  test("the owner previews an incident's notice: the e-mail as it would read, and how many it would reach; nothing is sent", async () => {
    await subscribe("all@example.com");
    await subscribe("checkout@example.com", [items[0]?.id as number]);
    await subscribe("search@example.com", [items[1]?.id as number]);
    mails.length = 0;
    const preview = await api.post(`/public/v1/status-pages/${page.id}/subscribers/preview`, {
      title: "Checkout <b>slow</b>",
      message: "We are looking into it.",
      items: [{ id: items[0]?.id, status: "partial_outage" }, items[0]?.id],
    });
    expect(preview.status).toBe(200);
    expect(preview.json.data).toMatchObject({
      subject: "[Acme acme] Checkout <b>slow</b>: partial outage — investigating",
      recipients: 2,
    });
    expect(preview.json.data.text).toContain("- Checkout: partial outage");
    expect(preview.json.data.html).toContain("Checkout &lt;b&gt;slow&lt;/b&gt;");
    expect(preview.json.data.html).toContain("token=PREVIEW");
    // No service named: it reaches those who chose none.
    const quiet = await api.post(`/public/v1/status-pages/${page.id}/subscribers/preview`, {
      title: "A note",
      message: "All good.",
      status: "resolved",
    });
    expect(quiet.json.data).toMatchObject({ subject: "[Acme acme] A note: resolved", recipients: 1 });
    const stranger = await api.post(`/public/v1/status-pages/${page.id}/subscribers/preview`, {
      title: "x",
      message: "y",
      items: [999_999],
    });
    expect(stranger.status).toBe(400);
    expect(JSON.stringify(stranger.json)).toContain("items");
    expect((await api.post(`/public/v1/status-pages/${page.id}/subscribers/preview`, { title: "x" })).status).toBe(400);
    await drain();
    expect(mails).toEqual([]);
    // A page that takes no subscriptions reaches no one.
    await api.patch(`/public/v1/status-pages/${page.id}`, { subscriptions: { enabled: false } });
    const off = await api.post(`/public/v1/status-pages/${page.id}/subscribers/preview`, { title: "x", message: "y" });
    expect(off.json.data.recipients).toBe(0);
  });

  test("the preview speaks the pages' language (PORCHLIGHT_PAGE_LOCALE), as the notices do", async () => {
    const german = client(makeApp(opened.store, { clock, env: { PORCHLIGHT_PAGE_LOCALE: "de-AT" } }).app, ownerToken);
    const preview = await german.post(`/public/v1/status-pages/${page.id}/subscribers/preview`, {
      title: "Kasse langsam",
      message: "Wir sehen nach.",
      items: [{ id: items[0]?.id, status: "partial_outage" }],
    });
    expect(preview.status).toBe(200);
    expect(preview.json.data.subject).toBe("[Acme acme] Kasse langsam: teilweiser Ausfall — wird untersucht");
    expect(preview.json.data.html).toContain('<html lang="de" dir="ltr">');
    expect(preview.json.data.text).toContain("Abbestellen: ");
  });
});
