// @vitest-environment happy-dom
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import type { ErrorDetail, PorchlightStatus } from "../../../components/porchlight-status/porchlight-status.ts";
import { $, $$, settle, startChildApi, TEST_HELPERS_URL, text } from "./helpers.ts";

/**
 * The real API (createApp's node listener over a real SQLite store, seeded through the authenticated API) runs in a
 * child Node process: in this file's happy-dom environment URL, Request, Response and Headers are happy-dom's, and
 * the server modules cannot even load with them. The child prints its port; the element fetches with happy-dom's
 * own fetch, which enforces CORS from http://localhost:3000.
 */
const SERVER_SCRIPT = (helpers: string, password: string) => `
import { createServer } from "node:http";
import { client, makeApp, seedOwner, sqliteKind } from ${JSON.stringify(helpers)};
const { store, cleanup } = await sqliteKind.open();
const { app, listener } = makeApp(store);
const owner = await seedOwner(store);
const api = client(app, owner.token);
const must = async (call, status = 201) => {
  const answer = await call;
  if (answer.status !== status) throw new Error(JSON.stringify(answer.json));
  return answer.json.data;
};
const site = await must(api.post("/public/v1/sites", { url: "https://real.example.com", name: "Real site" }));
const open = await must(
  api.post("/public/v1/status-pages", { name: "Real Status", slug: "real", description: "Served by the real API." }),
);
await must(api.post(\`/public/v1/status-pages/\${open.id}/items\`, { siteId: site.id, label: "Real service" }));
const locked = await must(
  api.post("/public/v1/status-pages", {
    name: "Locked Status",
    slug: "locked",
    visibility: "password",
    password: ${JSON.stringify(password)},
  }),
);
await must(api.post(\`/public/v1/status-pages/\${locked.id}/items\`, { siteId: site.id, label: "Locked service" }));
const server = createServer(listener);
server.listen(0, "127.0.0.1", () => console.log(JSON.stringify({ port: server.address().port })));
process.on("SIGTERM", () => server.close(async () => { await cleanup(); process.exit(0); }));
`;

describe("against the real API over a real SQLite store", () => {
  const PASSWORD = "pässwörd-日本";
  let apiBase: string;
  let stop: () => Promise<void>;

  beforeAll(async () => {
    ({ apiBase, stop } = await startChildApi(SERVER_SCRIPT(TEST_HELPERS_URL, PASSWORD)));
  });

  afterAll(() => stop?.());

  /** The element's next load or error event (real network: waiting a fixed number of turns is not enough). */
  const next = (el: PorchlightStatus) =>
    new Promise<string>((done) => {
      const settled = (event: Event) => {
        el.removeEventListener("porchlight-load", settled);
        el.removeEventListener("porchlight-error", settled);
        done(event.type === "porchlight-load" ? "load" : (event as CustomEvent<ErrorDetail>).detail.problem);
      };
      el.addEventListener("porchlight-load", settled);
      el.addEventListener("porchlight-error", settled);
    });

  async function mountReal(slug: string) {
    const el = document.createElement("porchlight-status") as PorchlightStatus;
    el.setAttribute("slug", slug);
    el.setAttribute("api-base", apiBase);
    el.setAttribute("locale", "en");
    const first = next(el);
    document.body.append(el);
    await el.updateComplete;
    const outcome = await first;
    await el.updateComplete;
    return { el, outcome };
  }

  test("a public page renders across origins (happy-dom enforces CORS; fetch is not stubbed)", async () => {
    expect(window.location.origin).toBe("http://localhost:3000");
    expect(vi.isMockFunction(globalThis.fetch)).toBe(false);
    const { el, outcome } = await mountReal("real");
    expect(outcome).toBe("load");
    expect(text($(el, '[part="header"] h2') as HTMLElement)).toBe("Real Status");
    expect(text(el)).toContain("Served by the real API.");
    expect(text(el)).toContain("Real service");
    // A new site has no checks yet.
    expect(text($(el, '[part="banner"]') as HTMLElement)).toBe("Status unknown");
    // The daily bars follow a frame after the status.
    await settle(el);
    // A new site has no statistics: no bars (they begin at the first day with data), its row is there.
    expect($$(el, '[part="item"]')).toHaveLength(1);
    expect($$(el, '[part="history"] > i')).toEqual([]);
  });

  test('an unknown slug is "No such status page."', async () => {
    const { el, outcome } = await mountReal("no-such-page");
    expect(outcome).toBe("not_found");
    expect(text($(el, "h2") as HTMLElement)).toBe("No such status page.");
  });

  test("the password flow: asked, wrong, then right (non-ASCII, as UTF-8 bytes in the header)", async () => {
    const { el, outcome } = await mountReal("locked");
    expect(outcome).toBe("password_required");
    expect($(el, "input#password")).not.toBeNull();
    expect(text(el)).not.toContain("Locked service");

    const input = $<HTMLInputElement>(el, "input#password") as HTMLInputElement;
    input.value = "wrong password";
    let answered = next(el);
    ($(el, 'form[part="form"] button') as HTMLButtonElement).click();
    expect(await answered).toBe("password_incorrect");
    await el.updateComplete;
    expect(text($(el, '[role="alert"]') as HTMLElement)).toBe("The password is incorrect.");
    expect(input.getAttribute("aria-invalid")).toBe("true");
    expect(text(el)).not.toContain("Locked service");

    input.value = PASSWORD;
    answered = next(el);
    ($(el, 'form[part="form"] button') as HTMLButtonElement).click();
    expect(await answered).toBe("load");
    await el.updateComplete;
    expect(text($(el, '[part="header"] h2') as HTMLElement)).toBe("Locked Status");
    expect(text(el)).toContain("Locked service");
  });
});
