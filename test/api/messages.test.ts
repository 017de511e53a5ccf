import { expect, test } from "vitest";
import { z } from "zod";
import { ownerMessage, sentence, withOwnerMessages } from "../../server/contract/messages.ts";
import { SiteCreate } from "../../server/contract/site.ts";
import type { Store } from "../../server/store/store.ts";
import { type App, client, describeStores, makeApp, seedOwner, useStore } from "../helpers.ts";

/**
 * Issue 28: every field error is written for the owner who reads it in a form, in one place
 * (server/contract/messages.ts): a sentence with a capital letter and a full stop, limits in words, never the
 * validator's own words.
 */
const messagesOf = (schema: z.ZodType, value: unknown) => {
  const result = withOwnerMessages(schema).safeParse(value);
  return result.success ? {} : Object.fromEntries(result.error.issues.map((i) => [i.path.join("."), i.message]));
};

test("the site form's limits read as sentences naming them in words", () => {
  const base = { url: "https://example.com", name: "Shop" };
  expect(messagesOf(SiteCreate, { ...base, name: "  " })).toEqual({ name: "Enter a name." });
  expect(messagesOf(SiteCreate, { ...base, name: "x".repeat(101) })).toEqual({ name: "Use at most 100 characters." });
  expect(messagesOf(SiteCreate, { ...base, url: "ftp://example.com" })).toEqual({
    url: "Start the address with http://, https://, tcp://, tls://, dns://, icmp:// or push://.",
  });
  expect(messagesOf(SiteCreate, { ...base, checkInterval: 60, timeout: 90 })).toEqual({
    timeout: "The timeout must not be longer than the check interval.",
  });
  expect(messagesOf(SiteCreate, { ...base, checkInterval: 100_000 })).toEqual({
    checkInterval: "Enter 86,400 or less.",
  });
  expect(messagesOf(SiteCreate, { ...base, tags: Array.from({ length: 11 }, (_, i) => `t${i}`) })).toEqual({
    tags: "Use at most 10 tags.",
  });
  expect(messagesOf(SiteCreate, { url: "https://example.com" })).toEqual({ name: "Enter a name." });
  expect(messagesOf(SiteCreate, { ...base, id: "x" })).toEqual({
    id: "This field does not exist here or cannot be changed.",
  });
  expect(messagesOf(SiteCreate, { ...base, method: "FETCH" }).method).toBe(
    "Choose GET, HEAD, POST, PUT, PATCH, DELETE or OPTIONS.",
  );
});

test("the map words every kind of issue; a schema's own message becomes a sentence", () => {
  const parse = (schema: z.ZodType, value: unknown) =>
    (schema.safeParse(value, { error: ownerMessage }).error?.issues ?? []).map((i) => i.message);
  expect(parse(z.string().min(12), "short")).toEqual(["Use at least 12 characters."]);
  expect(parse(z.array(z.string()).min(2), [])).toEqual(["Give at least 2 items."]);
  expect(parse(z.int(), 1.5)).toEqual(["Enter a whole number."]);
  expect(parse(z.boolean(), "yes")).toEqual(["Choose true or false."]);
  expect(parse(z.email(), "nope")).toEqual(["Enter an e-mail address such as name@example.com."]);
  expect(parse(z.number().multipleOf(5), 7)).toEqual(["Enter a multiple of 5."]);
  expect(sentence("must be one of a, b")).toBe("Must be one of a, b.");
  expect(sentence("Done.")).toBe("Done.");
});

describeStores("every field error across the routes is a sentence for an owner", (kind) => {
  let store: Store;
  let app: App;
  let api: ReturnType<typeof client>;

  useStore(kind, async (opened) => {
    ({ store } = opened);
    ({ app } = makeApp(store));
    api = client(app, (await seedOwner(store, "stack")).token);
  });

  test("bad input on sites, maintenance, alerts, pages, items, incidents and members", async () => {
    const site = (await api.post("/public/v1/sites", { url: "https://example.com", name: "Shop" })).json.data;
    const page = (await api.post("/public/v1/status-pages", { name: "Acme", slug: "acme-messages" })).json.data;
    const long = "x".repeat(3000);
    const requests: [string, string, unknown][] = [
      ["post", "/public/v1/sites", {}],
      ["post", "/public/v1/sites", { url: "ftp://x", name: "", method: "X", headers: "no", extra: 1 }],
      ["post", "/public/v1/sites", { url: "https://u:p@x.com", name: long, checkInterval: 5, timeout: 500 }],
      ["post", "/public/v1/sites", { url: "https://x.com", name: "a", tags: ["a/b", "", long], regions: ["EU!"] }],
      ["post", "/public/v1/sites", { url: "https://x.com", name: "a", headers: [{ name: "a b", value: "x\ny" }] }],
      ["post", "/public/v1/sites", { url: "https://x.com", name: "a\u0000b", successCodes: [99], pause: "yes" }],
      ["patch", `/public/v1/site/${site.id}`, { timeout: 120, checkInterval: 60 }],
      ["patch", `/public/v1/site/${site.id}`, { timeout: 400 }],
      ["patch", `/public/v1/site/${site.id}`, { id: "x", state: "healthy" }],
      ["get", "/public/v1/sites?page=0&perPage=7&tag=a%2Fb&zzz=1", undefined],
      ["get", "/public/v1/sites/overview?page=x&page=y", undefined],
      ["post", "/public/v1/maintenance-windows", { title: "", sites: [], start: "x", timeZone: "Mars/X" }],
      ["post", "/public/v1/maintenance-windows", { title: "a", sites: ["nope"], start: "1999-01-01T00:00" }],
      [
        "post",
        "/public/v1/maintenance-windows",
        { title: "a", sites: [site.id], start: "2026-12-01T02:00", durationMinutes: 99999 },
      ],
      [
        "post",
        "/public/v1/maintenance-windows",
        { title: "a", sites: [site.id], start: "2026-12-01T02:00", durationMinutes: 5, recurrence: "FREQ=NOPE" },
      ],
      ["post", "/public/v1/alert-channels", { name: "", type: "sms", config: {} }],
      ["post", "/public/v1/alert-channels", { name: "a", type: "email", config: { to: ["bad"] } }],
      ["post", "/public/v1/alert-channels", { name: "a", type: "webhook", config: { url: "nope", secret: "short" } }],
      ["post", "/public/v1/alert-channels", { name: "a", type: "telegram", config: { botToken: "x", chatId: "?" } }],
      ["put", "/public/v1/alert-rules/default", { channels: ["nope"], repeatMinutes: 1, confirmations: 99 }],
      ["put", `/public/v1/site/${site.id}/alert-rule`, { channels: ["ch_000000000000000000000000"], events: { x: 1 } }],
      ["post", "/public/v1/status-pages", { name: "", slug: "Not A Slug", visibility: "secret" }],
      ["post", "/public/v1/status-pages", { name: "a", slug: "ok-slug", visibility: "password-protected" }],
      ["patch", `/public/v1/status-pages/${page.id}`, { password: "long enough pass" }],
      ["patch", `/public/v1/status-pages/${page.id}`, { theme: { accentColor: "blue" }, logo: "http://x" }],
      ["post", `/public/v1/status-pages/${page.id}/items`, { siteId: "000000000000000000000000" }],
      ["post", `/public/v1/status-pages/${page.id}/incidents`, { title: "", status: "broken", impact: "huge" }],
      ["post", "/public/v1/invitations", { email: "nope", role: "god" }],
      ["post", "/public/v1/tokens", { name: long }],
    ];
    const messages: string[] = [];
    for (const [method, path, body] of requests) {
      const res = await api.call(method.toUpperCase(), path, body);
      expect(res.status, `${method} ${path} ${JSON.stringify(body)}: ${res.text}`).toBe(400);
      expect(res.json.error).toBe("validation_failed");
      expect(res.json.details.length).toBeGreaterThan(0);
      for (const detail of res.json.details as { field: string; message: string }[]) {
        messages.push(`${path} ${detail.field}: ${detail.message}`);
        expect(detail.message, `${path} ${detail.field}`).toMatch(/^[A-Z].*\.$/s);
        expect(detail.message, `${path} ${detail.field}`).not.toMatch(/expected|Too small|Too big|Invalid input/i);
      }
    }
    // Each request was refused for several reasons: the walk covers many kinds of issue.
    expect(messages.length).toBeGreaterThan(50);
  });
});
