import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { passwordLink } from "../server/accounts/accounts.ts";
import { client, makeApp, seedOwner, seedStatusPage, sqliteKind, useStore } from "./helpers.ts";

/**
 * Every `curl` example of the README and of the documentation's pages (docs/src/content/docs/) that sends a JSON body, run as written against a test server (its placeholders
 * replaced by the ids of real records): none may be refused as invalid input. An integrator copies them to the
 * letter; an example the schema refuses is a bug in the documentation (issue 35).
 */

interface Example {
  /** The command as written (continuations joined), for the failure message. */
  text: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** The shell words of a command: quotes removed, `$BASE` and `$TOKEN` left as written. */
function words(command: string): string[] {
  const out: string[] = [];
  let word = "";
  let quote: string | null = null;
  let inWord = false;
  for (const ch of command) {
    if (quote) {
      if (ch === quote) quote = null;
      else word += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      inWord = true;
    } else if (/\s/.test(ch)) {
      if (inWord) out.push(word);
      word = "";
      inWord = false;
    } else {
      word += ch;
      inWord = true;
    }
  }
  if (inWord) out.push(word);
  return out;
}

/** The commands of a shell block: a backslash-newline continues a line, and so does a newline inside quotes. */
function commands(block: string): string[] {
  const out: string[] = [];
  let current = "";
  let quote: string | null = null;
  for (let i = 0; i < block.length; i++) {
    const ch = block[i] as string;
    if (!quote && ch === "\\" && block[i + 1] === "\n") {
      i++;
      current += " ";
      continue;
    }
    if (!quote && ch === "#" && (current === "" || /\s$/.test(current))) {
      while (i < block.length && block[i] !== "\n") i++;
      i--;
      continue;
    }
    if (quote ? ch === quote : ch === "'" || ch === '"') quote = quote ? null : ch;
    if (!quote && ch === "\n") {
      if (current.trim()) out.push(current.trim());
      current = "";
      continue;
    }
    current += ch;
  }
  if (current.trim()) out.push(current.trim());
  return out;
}

/** The curl examples of Markdown text with a JSON body addressed to $BASE. */
function jsonExamples(markdown: string): Example[] {
  const examples: Example[] = [];
  for (const [, block] of markdown.matchAll(/```(?:sh|bash|shell)\n([\s\S]*?)```/g)) {
    for (const text of commands(block as string)) {
      const argv = words(text);
      const at = argv.indexOf("curl");
      if (at < 0) continue;
      let method: string | undefined;
      let body: string | undefined;
      let url: string | undefined;
      const headers: Record<string, string> = {};
      for (let i = at + 1; i < argv.length; i++) {
        const arg = argv[i] as string;
        if (arg === "-X" || arg === "--request") method = argv[++i];
        else if (arg === "-d" || arg === "--data" || arg === "--data-raw" || arg === "--json") body = argv[++i];
        else if (arg === "-H" || arg === "--header") {
          const [name, ...value] = (argv[++i] as string).split(":");
          headers[(name as string).trim().toLowerCase()] = value.join(":").trim();
        } else if (arg.startsWith("$BASE")) url = arg;
      }
      if (body === undefined || url === undefined) continue;
      const trimmed = body.trim();
      if (!trimmed.startsWith("{") && !trimmed.startsWith("[")) continue;
      examples.push({ text, method: method ?? "POST", path: url.slice("$BASE".length), headers, body });
    }
  }
  return examples;
}

/** The test server's own address (testConfig's PORCHLIGHT_PUBLIC_URL): what $BASE stands for. */
const BASE = "http://status.test";
const ROOT = join(import.meta.dirname, "..");
const PAGES = join(ROOT, "docs/src/content/docs");
/** The README, then every page of the documentation, by path. */
const SOURCES = [
  join(ROOT, "README.md"),
  ...readdirSync(PAGES, { recursive: true, encoding: "utf8" })
    .filter((name) => /\.mdx?$/.test(name))
    .sort()
    .map((name) => join(PAGES, name)),
];
const MARKDOWN = SOURCES.map((file) => readFileSync(file, "utf8")).join("\n");

describe("the README's and the documentation's JSON examples", () => {
  const opened = useStore(sqliteKind);

  test("there are examples to run, and each extracted body is JSON once its placeholders are filled", () => {
    const examples = jsonExamples(MARKDOWN);
    expect(examples.length).toBeGreaterThan(30);
    expect(examples.some((e) => e.path.includes("/alert-channels"))).toBe(true);
  });

  test("none is refused as invalid input", async () => {
    const { store } = opened;
    const { app, clock } = makeApp(store);
    const owner = await seedOwner(store);
    const api = client(app, owner.token);
    const seeded = await seedStatusPage(api, store, clock.now(), "acme-docs", {}, ["Website", "Checkout"]);
    const channel = await api.post("/public/v1/alert-channels", {
      name: "Hook",
      type: "webhook",
      config: { url: "https://hooks.example.com/porchlight" },
    });
    const incident = await api.post(`/public/v1/status-pages/${seeded.id}/incidents`, {
      title: "Checkout errors",
      message: "Payments failing.",
    });
    const window = await api.post("/public/v1/maintenance-windows", {
      title: "Upgrade",
      start: "2026-12-01T02:00:00Z",
      timeZone: "UTC",
      durationMinutes: 60,
      sites: [seeded.ids[0]],
    });
    const group = await api.post(`/public/v1/status-pages/${seeded.id}/groups`, { name: "Docs group" });
    const page = await api.get(`/public/v1/status-pages/${seeded.id}`);
    const items = page.json.data.items as { id: number }[];
    const values: Record<string, string> = {
      SITE_ID_2: String(seeded.ids[1]),
      SITE_ID: String(seeded.ids[0]),
      PAGE_ID: String(seeded.id),
      ITEM_ID_2: String(items[1]?.id),
      ITEM_ID: String(items[0]?.id),
      INCIDENT_ID: String(incident.json.data.id),
      UPDATE_ID: String(incident.json.data.updates?.[0]?.id ?? 1),
      CHANNEL_ID: String(channel.json.data.id),
      WINDOW_ID: String(window.json.data.id),
      GROUP_ID: String(group.json.data.id),
      MEMBER_ID: "000000000000000000000000",
      LINK_TOKEN: await passwordLink(store, owner.email, clock.now()),
    };
    const fill = (text: string) =>
      Object.entries(values).reduce((out, [name, value]) => out.replaceAll(name, value), text);

    await api.patch(`/public/v1/status-pages/${seeded.id}`, { name: "Acme Status" });

    // In the order of the files, each as a reader follows it (an incident it creates is the one its next examples update),
    // deletions last, so that they do not turn the examples after them into 404s.
    const examples = jsonExamples(MARKDOWN);
    const ordered = [
      ...examples.filter((e) => e.method !== "DELETE"),
      ...examples.filter((e) => e.method === "DELETE"),
    ];
    const refused: string[] = [];
    for (const example of ordered) {
      const headers: Record<string, string> = { "content-type": "application/json" };
      for (const [name, value] of Object.entries(example.headers)) headers[name] = value.replace("$BASE", BASE);
      delete headers.authorization;
      const path = fill(example.path);
      const res = await api.call(example.method, `${BASE}${path}`, fill(example.body), headers);
      if ([400, 415, 422].includes(res.status)) refused.push(`${example.text}\n  → ${res.status} ${res.text}`);
      if (res.status === 201 && /\/incidents$/.test(path)) values.INCIDENT_ID = String(res.json.data.id);
      if (res.status === 201 && /\/groups$/.test(path)) values.GROUP_ID = String(res.json.data.id);
    }
    expect(refused).toEqual([]);
  });
});
