// @vitest-environment happy-dom
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { LoadDetail } from "../../../components/porchlight-status/events.ts";
import type { ErrorDetail, PorchlightStatus } from "../../../components/porchlight-status/porchlight-status.ts";
import { $, startChildApi, TEST_HELPERS_URL, text } from "./helpers.ts";

/**
 * What the element hands its page (the porchlight-load event's page) names a password page's visibility as the
 * API answers it, password-protected, whichever name the page was created with; and the element still prompts for
 * the password. The real API runs in a child process, as in real-api.test.ts (the server cannot load in happy-dom).
 */
const PASSWORD = "correct horse";
const SERVER_SCRIPT = (helpers: string) => `
import { createServer } from "node:http";
import { client, makeApp, seedOwner, sqliteKind } from ${JSON.stringify(helpers)};
const { store, cleanup } = await sqliteKind.open();
const { listener, app } = makeApp(store);
const api = client(app, (await seedOwner(store)).token);
for (const visibility of ["password", "password-protected"]) {
  const made = await api.post("/public/v1/status-pages", {
    name: "Locked " + visibility,
    slug: "locked-" + visibility,
    visibility,
    password: ${JSON.stringify(PASSWORD)},
  });
  if (made.status !== 201) throw new Error(JSON.stringify(made.json));
}
const server = createServer(listener);
server.listen(0, "127.0.0.1", () => console.log(JSON.stringify({ port: server.address().port })));
process.on("SIGTERM", () => server.close(async () => { await cleanup(); process.exit(0); }));
`;

describe("the element's page data names the visibility password-protected", () => {
  let apiBase: string;
  let stop: () => Promise<void>;

  beforeAll(async () => {
    ({ apiBase, stop } = await startChildApi(SERVER_SCRIPT(TEST_HELPERS_URL)));
  });

  afterAll(() => stop?.());

  /** The element's next event: the load's detail, or the error's problem. */
  const next = (el: PorchlightStatus) =>
    new Promise<LoadDetail | string>((done) => {
      const settled = (event: Event) => {
        el.removeEventListener("porchlight-load", settled);
        el.removeEventListener("porchlight-error", settled);
        done(
          event.type === "porchlight-load"
            ? (event as CustomEvent<LoadDetail>).detail
            : (event as CustomEvent<ErrorDetail>).detail.problem,
        );
      };
      el.addEventListener("porchlight-load", settled);
      el.addEventListener("porchlight-error", settled);
    });

  test.each(["password", "password-protected"])("created with %s", async (visibility) => {
    const el = document.createElement("porchlight-status") as PorchlightStatus;
    el.setAttribute("slug", `locked-${visibility}`);
    el.setAttribute("api-base", apiBase);
    el.setAttribute("locale", "en");
    const first = next(el);
    document.body.append(el);
    expect(await first).toBe("password_required");
    await el.updateComplete;
    expect(text(el)).toContain("This page is password-protected.");
    const input = $<HTMLInputElement>(el, "input#password") as HTMLInputElement;
    input.value = PASSWORD;
    const loaded = next(el);
    ($(el, 'form[part="form"] button') as HTMLButtonElement).click();
    const detail = (await loaded) as LoadDetail;
    expect(detail.page.visibility).toBe("password-protected");
    expect(detail.page.slug).toBe(`locked-${visibility}`);
    el.remove();
  });
});
