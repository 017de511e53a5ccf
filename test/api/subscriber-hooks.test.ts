import type { IncomingHttpHeaders, Server } from "node:http";
import { afterAll, beforeAll, beforeEach, expect, test } from "vitest";
import { SecretBox } from "../../server/accounts/sealed.ts";
import { NoticeSender } from "../../server/alerts/notice-sender.ts";
import { webhookSignature } from "../../server/alerts/providers/webhook.ts";
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
import { closeServer, listen } from "../support/listen.ts";

/** A request a receiver got. */
interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  raw: string;
  body: any;
}

describeStores("visitors subscribe a webhook, Slack, Discord or Teams", (kind) => {
  let receiver: Server;
  let origin = "";
  const received: Received[] = [];
  /** What each path answers (200 when unset). */
  const answers = new Map<string, number>();
  let clock: TestClock;
  let app: App;
  let api: ReturnType<typeof client>;
  let ownerToken = "";
  let visitor: ReturnType<typeof client>;
  let page: { id: string; ids: string[] };
  let items: { id: number; label: string }[];
  let makeSender: (allowPrivate: boolean) => NoticeSender;
  let sender: NoticeSender;
  const at = (path: string) => received.filter((r) => r.path === path);

  beforeAll(async () => {
    ({ server: receiver, origin } = await listen((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const raw = Buffer.concat(chunks).toString("utf8");
        const path = req.url ?? "/";
        received.push({ path, headers: req.headers, raw, body: JSON.parse(raw) });
        res.writeHead(answers.get(path) ?? 200, { "content-type": "text/plain" }).end("ok");
      });
    }));
  });
  afterAll(async () => {
    await closeServer(receiver);
  });

  const opened = useStore(kind, { each: true }, async ({ store, dataDir }) => {
    clock = new TestClock();
    const logger = createLogger("silent");
    const mailer = createMailer({ from: "status@status.test", dataDir, logger });
    ({ app } = makeApp(store, { clock, mailer }));
    const owner = await seedOwner(store);
    ownerToken = owner.token;
    api = client(app, owner.token);
    visitor = client(app);
    page = await seedStatusPage(api, store, clock.now(), "acme", {}, ["Checkout", "Search"]);
    await api.patch(`/public/v1/status-pages/${page.id}`, {
      subscriptions: { enabled: true, kinds: ["email", "webhook", "slack", "discord", "teams"] },
    });
    items = (await api.get(`/public/v1/status-pages/${page.id}`)).json.data.items.map(
      (i: { id: number; label: string }) => ({ id: i.id, label: i.label }),
    );
    const secrets = new SecretBox(testConfig().secretKey, dataDir);
    makeSender = (allowPrivate) =>
      new NoticeSender({
        store,
        clock,
        logger,
        mailer,
        token: (nonce) => secrets.token(nonce),
        unseal: (sealed) => secrets.open(sealed),
        publicUrl: "http://status.test",
        delivery: { allowPrivate },
        random: () => 0.5,
      });
    sender = makeSender(true);
  });

  beforeEach(() => {
    received.length = 0;
    answers.clear();
  });

  const drain = async () => {
    for (let i = 0; i < 50; i++) if ((await sender.tick()) === 0) return;
    throw new Error("the sender never ran dry");
  };
  const signUp = (type: string, path: string, chosen?: number[]) =>
    visitor.post("/public/v1/status-page/acme/subscribers", {
      type,
      url: `${origin}${path}`,
      ...(chosen ? { items: chosen } : {}),
    });
  const listed = async () =>
    (await api.get(`/public/v1/status-pages/${page.id}/subscribers`)).json.data.subscribers as {
      type: string;
      address: string;
      state: string;
      suspendedReason: string | null;
    }[];
  const openIncident = async (body: Record<string, unknown>) => {
    const res = await api.post(`/public/v1/status-pages/${page.id}/incidents`, { message: "Looking into it", ...body });
    expect(res.status).toBe(201);
  };
  const signed = (r: Received, secret: string) =>
    r.headers["x-porchlight-signature"] ===
    webhookSignature(secret, String(r.headers["x-porchlight-timestamp"]), r.raw);

  test("a webhook is confirmed by a signed test delivery, then gets signed notices of the services it chose, and unsubscribes by its link", async () => {
    const res = await signUp("webhook", "/hook/a", [items[0]?.id as number]);
    expect(res.status).toBe(202);
    expect(res.json.data).toEqual({ status: "test_delivery_sent", confirmWithinHours: 24 });
    // The owner sees it masked: the URL's path is often its credential.
    const [waiting] = await listed();
    expect(waiting).toMatchObject({ type: "webhook", state: "pending" });
    expect(waiting?.address).toMatch(new RegExp(`^${origin}/… #[0-9a-f]{16}$`));
    expect(JSON.stringify(await listed())).not.toContain("/hook/a");

    await drain();
    const [test] = at("/hook/a");
    expect(at("/hook/a")).toHaveLength(1);
    expect(test?.headers["x-porchlight-event"]).toBe("subscription.test");
    expect(test?.body).toMatchObject({ version: 1, type: "subscription.test", page: { name: "Acme acme" } });
    const secret = test?.body.signingSecret as string;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{32}$/);
    expect(signed(test as Received, secret)).toBe(true);
    expect(signed(test as Received, "whsec_other")).toBe(false);
    expect((await listed())[0]?.state).toBe("confirmed");

    await openIncident({ title: "Checkout is slow", items: [{ id: items[0]?.id, status: "partial_outage" }] });
    await openIncident({ title: "Search is down", items: [{ id: items[1]?.id, status: "major_outage" }] });
    await drain();
    const notices = at("/hook/a").slice(1);
    expect(notices).toHaveLength(1);
    const [notice] = notices as [Received];
    expect(notice.headers["x-porchlight-event"]).toBe("incident.published");
    expect(signed(notice, secret)).toBe(true);
    expect(notice.body.signingSecret).toBeUndefined();
    expect(notice.body).toMatchObject({
      type: "incident.published",
      summary: "Checkout is slow: partial outage — investigating",
      incident: { title: "Checkout is slow", update: { status: "investigating", message: "Looking into it" } },
      affected: [{ name: "Checkout", status: "partial_outage" }],
      links: { page: "http://status.test/acme" },
    });

    // Its one-click unsubscribe link ends it: nothing more is posted.
    const unsubscribe = new URL(notice.body.links.unsubscribe as string);
    const gone = await app.request(`${unsubscribe.pathname}${unsubscribe.search}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "List-Unsubscribe=One-Click",
    });
    expect(gone.status).toBe(200);
    await openIncident({ title: "Checkout again", items: [{ id: items[0]?.id, status: "degraded" }] });
    await drain();
    expect(at("/hook/a")).toHaveLength(2);
    expect(await listed()).toEqual([]);
  });

  test("Slack, Discord and Teams: a test message, then notices in each one's format, the owner's words escaped and mentioning no one", async () => {
    for (const type of ["slack", "discord", "teams"]) expect((await signUp(type, `/${type}`)).status).toBe(202);
    await drain();
    for (const type of ["slack", "discord", "teams"]) expect(at(`/${type}`)).toHaveLength(1);
    expect((await listed()).map((s) => s.state)).toEqual(["confirmed", "confirmed", "confirmed"]);
    // The CSV is an e-mail list: a masked URL is no use to another tool.
    const csv = await app.request(`/public/v1/status-pages/${page.id}/subscribers.csv`, {
      headers: { authorization: `Bearer ${ownerToken}` },
    });
    expect((await csv.text()).trim().split(/\r?\n/)).toHaveLength(1);
    expect(JSON.stringify(at("/slack")[0]?.body)).toContain("This subscription to Acme acme works");

    await openIncident({ title: "<!channel> & @everyone <b>", impact: "critical" });
    await drain();
    const slack = at("/slack")[1]?.body;
    expect(slack.text).toBe("Acme acme: &lt;!channel&gt; &amp; @everyone &lt;b&gt;: major outage — investigating");
    const section = slack.blocks[0].text.text as string;
    expect(section).toContain("&lt;!channel&gt; &amp; @everyone &lt;b&gt;");
    expect(section).not.toContain("<!channel>");
    expect(slack.blocks[1].elements[0].text).toMatch(/<http:\/\/status\.test\/subscriptions\/unsubscribe\?token=/);

    const discord = at("/discord")[1]?.body;
    expect(discord.allowed_mentions).toEqual({ parse: [] });
    expect(discord.embeds[0]).toMatchObject({ url: "http://status.test/acme", color: 0xc4232d });
    expect(discord.embeds[0].description).toContain(
      "[Unsubscribe](http://status.test/subscriptions/unsubscribe?token=",
    );

    const teams = at("/teams")[1]?.body;
    const card = teams.attachments[0].content;
    expect(teams.attachments[0].contentType).toBe("application/vnd.microsoft.card.adaptive");
    expect(card.body[0].text).toBe("Acme acme: <!channel> & @everyone <b>: major outage — investigating");
    expect(card.actions.map((a: { title: string }) => a.title)).toEqual([
      "View the status page",
      "Choose services",
      "Unsubscribe",
    ]);
  });

  test("a receiver that refuses its test is told nothing; one gone later (410) ends the subscription at once", async () => {
    answers.set("/refuses", 500);
    await signUp("webhook", "/refuses");
    await signUp("slack", "/later-gone");
    await drain();
    expect(at("/refuses")).toHaveLength(1);
    const states = Object.fromEntries((await listed()).map((s) => [s.type, s.state]));
    expect(states).toEqual({ webhook: "pending", slack: "confirmed" });

    answers.set("/later-gone", 410);
    await openIncident({ title: "Checkout is slow" });
    await drain();
    // The waiting one hears nothing of the incident (its test is retried later, alone).
    expect(at("/refuses").every((r) => r.body.type === "subscription.test")).toBe(true);
    expect(at("/later-gone")).toHaveLength(2);
    const slack = (await listed()).find((s) => s.type === "slack");
    expect(slack).toMatchObject({ state: "suspended" });
    expect(slack?.suspendedReason).toContain("410");
    expect(slack?.suspendedReason).not.toContain("/later-gone");
  });

  test("a kind the page stops taking is told nothing more; settings sealed under another key end the subscription, not the sender", async () => {
    await signUp("discord", "/discord");
    await signUp("webhook", "/sealed");
    await drain();
    expect((await listed()).map((s) => s.state)).toEqual(["confirmed", "confirmed"]);
    await api.patch(`/public/v1/status-pages/${page.id}`, { subscriptions: { kinds: ["email", "webhook"] } });
    await opened.store.db
      .updateTable("subscribers")
      .set({ secret: "v1:not-sealed-here" })
      .where("kind", "=", "webhook")
      .execute();
    await openIncident({ title: "Checkout is slow" });
    await drain();
    expect(at("/discord")).toHaveLength(1);
    expect(at("/sealed")).toHaveLength(1);
    const webhook = (await listed()).find((s) => s.type === "webhook");
    expect(webhook).toMatchObject({ state: "suspended" });
    expect(webhook?.suspendedReason).toContain("cannot be opened");
    expect((await listed()).find((s) => s.type === "discord")?.state).toBe("confirmed");
  });

  test("what a page takes: its kinds, no URL on a private page, and clear 400s", async () => {
    const bad = async (body: Record<string, unknown>, field: string) => {
      const res = await visitor.post("/public/v1/status-page/acme/subscribers", body);
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.json)).toContain(field);
    };
    await bad({ type: "webhook" }, "url");
    await bad({ type: "webhook", url: "ftp://example.com/x" }, "url");
    await bad({ type: "slack", url: `${origin}/x`, email: "a@example.com" }, "email");
    await bad({ url: `${origin}/x` }, "email");
    await bad({ type: "pager", url: `${origin}/x` }, "type");

    await api.patch(`/public/v1/status-pages/${page.id}`, { subscriptions: { kinds: ["email"] } });
    expect((await signUp("webhook", "/w")).status).toBe(403);
    // A password page's notices go to mailboxes only: a channel's readers may not have the password.
    await api.patch(`/public/v1/status-pages/${page.id}`, {
      subscriptions: { kinds: ["email", "webhook"] },
      visibility: "password-protected",
      password: "pass-word-1",
    });
    const withPassword = await visitor.post(
      "/public/v1/status-page/acme/subscribers",
      { type: "webhook", url: `${origin}/w` },
      { "x-status-page-password": "pass-word-1" },
    );
    expect(withPassword.status).toBe(403);
    expect(withPassword.json.message).toContain("by e-mail");
    const form = await (await app.request("/subscriptions/new?page=acme")).text();
    expect(form).not.toContain('name="url"');
    await api.patch(`/public/v1/status-pages/${page.id}`, {
      subscriptions: { kinds: ["email", "webhook"] },
      visibility: "private",
    });
    // A stranger is not let in at all; a member is, but not with a URL: its notices go to members' mailboxes only.
    expect((await signUp("webhook", "/w")).status).toBe(401);
    const refused = await api.post("/public/v1/status-page/acme/subscribers", { type: "webhook", url: `${origin}/w` });
    expect(refused.status).toBe(403);
    expect(refused.json.message).toContain("by e-mail");
    expect(await listed()).toEqual([]);
  });

  test("where private receivers are not allowed, a webhook to a loopback address is never connected to", async () => {
    sender = makeSender(false);
    expect((await signUp("webhook", "/private")).status).toBe(202);
    await drain();
    expect(received).toEqual([]);
    expect((await listed())[0]?.state).toBe("pending");
    expect(opened.dataDir).toBeTruthy();
  });
});
