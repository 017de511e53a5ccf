// @vitest-environment happy-dom
import { describe, expect, test } from "vitest";
import type { ErrorDetail } from "../../../components/porchlight-status/porchlight-status.ts";
import {
  $,
  API,
  answers,
  type Call,
  calls,
  DomResponse,
  json,
  listen,
  mount,
  page,
  problem,
  SLUG,
  settle,
  stubFetch,
  text,
} from "./helpers.ts";

describe("problems", () => {
  test('404 not_found: "No such status page.", no retry button, and a porchlight-error with the kind and status', async () => {
    const errors = listen<ErrorDetail>("porchlight-error");
    answers(() => problem(404, "not_found"));
    const el = await mount();
    expect(text($(el, "h2") as HTMLElement)).toBe("No such status page.");
    expect($(el, '[part="items"]')).toBeNull();
    // Asking again finds no page either.
    expect($(el, "button")).toBeNull();
    expect(errors.map((event) => event.detail)).toEqual([
      { slug: SLUG, problem: "not_found", httpStatus: 404, message: "The API says not_found" },
    ]);
  });

  test("500: an error with a retry button; retrying fetches again and shows the page", async () => {
    const errors = listen<ErrorDetail>("porchlight-error");
    answers(
      () => json({ success: false, message: "Internal error", code: 500, error: "internal" }, 500),
      () => json(page()),
    );
    const el = await mount();
    expect(text(el)).toContain("Could not load the status.");
    expect(errors[0]?.detail).toMatchObject({ problem: "server", httpStatus: 500, message: "Internal error" });
    const retry = $(el, 'button[part="button"]') as HTMLButtonElement;
    expect(text(retry)).toBe("Try again");
    expect(calls).toHaveLength(1);
    retry.click();
    await settle(el);
    expect(calls).toHaveLength(2);
    expect(text($(el, '[part="header"] h2') as HTMLElement)).toBe("Acme Status");
    expect(text(el)).not.toContain("Could not load the status.");
  });

  test("a 200 that is not a page (HTML from a proxy) is a server problem, not a crash", async () => {
    answers(() => new DomResponse("<html>gateway</html>", { status: 200, headers: { "content-type": "text/html" } }));
    const errors = listen<ErrorDetail>("porchlight-error");
    const el = await mount();
    expect(text(el)).toContain("Could not load the status.");
    expect(errors[0]?.detail.problem).toBe("server");
  });

  test("a network failure (fetch rejects) shows the error state and fires porchlight-error problem network", async () => {
    const errors = listen<ErrorDetail>("porchlight-error");
    answers(
      () => new TypeError("Failed to fetch"),
      () => json(page()),
    );
    const el = await mount();
    expect(text(el)).toContain("Could not load the status.");
    expect(errors).toHaveLength(1);
    expect(errors[0]?.detail).toMatchObject({ slug: SLUG, problem: "network", httpStatus: 0 });
    expect(errors[0]?.detail.message).toContain("Failed to fetch");
    ($(el, 'button[part="button"]') as HTMLButtonElement).click();
    await settle(el);
    expect(text($(el, '[part="header"] h2') as HTMLElement)).toBe("Acme Status");
  });

  test("a failed refresh keeps the page shown and says the refresh failed, with a retry button", async () => {
    answers(
      () => json(page()),
      () => new TypeError("Failed to fetch"),
      () => json(page()),
    );
    const el = await mount();
    el.reload();
    await settle(el);
    expect(text($(el, '[part="header"] h2') as HTMLElement)).toBe("Acme Status");
    expect(text(el)).toContain("Could not load the status.");
    ($(el, 'button[part="button"]') as HTMLButtonElement).click();
    await settle(el);
    expect(calls).toHaveLength(3);
    expect(text(el)).not.toContain("Could not load the status.");
  });

  test("removing the element while the answer's body is still arriving reports no error", async () => {
    const errors = listen<ErrorDetail>("porchlight-error");
    // As in a browser: aborting a fetch after its headers arrived errors the body stream with the abort reason.
    stubFetch((call) => {
      const signal = call.init.signal as AbortSignal;
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('{"name":"Acme'));
          signal.addEventListener("abort", () => controller.error(signal.reason));
        },
      });
      return new DomResponse(body, { status: 200, headers: { "content-type": "application/json" } });
    });
    const el = await mount();
    expect(calls).toHaveLength(1);
    expect($(el, '[part="skeleton"]')).not.toBeNull();
    // The page's script listens on the element itself: a removed element's events no longer reach the document.
    el.addEventListener("porchlight-error", (event) => errors.push(event));
    el.remove();
    await settle(el);
    expect(((calls[0] as Call).init.signal as AbortSignal).aborted).toBe(true);
    // BUG: client.ts turns the aborted body into `{}` and so into problem "server" with HTTP status 200.
    expect(errors.map((event) => event.detail)).toEqual([]);
  });

  test("401 sign_in_required: says the page is private to its workspace, with no link and no retry", async () => {
    const errors = listen<ErrorDetail>("porchlight-error");
    answers(() => problem(401, "sign_in_required", { "WWW-Authenticate": 'Bearer realm="porchlight"' }));
    const el = await mount({ "api-base": `${API}/` });
    expect(text($(el, "h2") as HTMLElement)).toBe("This status page is private to its workspace's members.");
    // No sign-in exists for visitors yet: a link would lead back to this same prompt.
    expect($(el, "a")).toBeNull();
    expect($(el, "button")).toBeNull();
    expect(errors[0]?.detail).toMatchObject({ problem: "sign_in_required", httpStatus: 401 });
    expect($(el, "input")).toBeNull();
  });

  test("429 rate_limited with Retry-After: 30 says how long to wait in words, in the password form", async () => {
    const errors = listen<ErrorDetail>("porchlight-error");
    answers(() => problem(429, "rate_limited", { "Retry-After": "30" }));
    const el = await mount({ locale: "en" });
    const alert = $(el, '[role="alert"]') as HTMLElement;
    expect(text(alert)).toBe("Too many attempts. Try again in 30 seconds.");
    expect($(el, 'form[part="form"]')).not.toBeNull();
    expect(errors[0]?.detail).toMatchObject({ problem: "rate_limited", httpStatus: 429 });
  });

  test("429 without Retry-After says a minute", async () => {
    answers(() => problem(429, "rate_limited"));
    const el = await mount({ locale: "en" });
    expect(text($(el, '[role="alert"]') as HTMLElement)).toBe("Too many attempts. Try again in about 1 minute.");
  });
});
