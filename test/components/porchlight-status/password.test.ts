// @vitest-environment happy-dom
import { describe, expect, test } from "vitest";
import { passwordHeaderValue } from "../../../components/porchlight-status/client.ts";
import type { ErrorDetail } from "../../../components/porchlight-status/porchlight-status.ts";
import {
  $,
  API,
  answers,
  type Call,
  calls,
  cleanups,
  json,
  listen,
  mount,
  PAGE_URL,
  page,
  problem,
  root,
  SLUG,
  settle,
  stubFetch,
  submitPassword,
  text,
} from "./helpers.ts";

describe("password-protected pages", () => {
  test("password_required: a labelled password field and no page data", async () => {
    const errors = listen<ErrorDetail>("porchlight-error");
    answers(() => problem(401, "password_required"));
    const el = await mount();
    const form = $(el, 'form[part="form"]') as HTMLFormElement;
    expect(form).not.toBeNull();
    const label = form.querySelector('label[for="password"]') as HTMLLabelElement;
    expect(text(label)).toBe("Password");
    const input = form.querySelector("input#password") as HTMLInputElement;
    expect(input.type).toBe("password");
    expect(input.getAttribute("autocomplete")).toBe("current-password");
    expect(input.getAttribute("aria-invalid")).toBe("false");
    expect(text(form)).toContain("This page is password-protected.");
    expect($(el, '[role="alert"]')).toBeNull();
    expect($(el, '[part="items"]')).toBeNull();
    expect($(el, '[part="banner"]')).toBeNull();
    expect(errors[0]?.detail).toMatchObject({ problem: "password_required", httpStatus: 401 });
  });

  test("the password goes only in X-Status-Page-Password; a wrong one is reported and focused; the right one shows the page", async () => {
    stubFetch((call) => {
      const password = call.headers.get("x-status-page-password");
      if (!password) return problem(401, "password_required");
      return password === "right horse battery" ? json(page()) : problem(401, "password_incorrect");
    });
    const el = await mount();
    expect(calls[0]?.headers.has("x-status-page-password")).toBe(false);

    await submitPassword(el, "wrong-password");
    expect(calls).toHaveLength(2);
    const sent = calls[1] as Call;
    expect(sent.url).toBe(PAGE_URL);
    expect(sent.url).not.toContain("wrong");
    expect(sent.init.body ?? null).toBeNull();
    // Cookies only to the page's own server (fetch's default): an embed on another origin sends none.
    expect(sent.init.credentials ?? "same-origin").toBe("same-origin");
    expect(sent.headers.get("x-status-page-password")).toBe("wrong-password");

    const input = $<HTMLInputElement>(el, "input#password") as HTMLInputElement;
    expect(text($(el, '[role="alert"]') as HTMLElement)).toBe("The password is incorrect.");
    expect(input.getAttribute("aria-invalid")).toBe("true");
    expect(root(el).activeElement).toBe(input);
    expect($(el, '[part="items"]')).toBeNull();

    await submitPassword(el, "right horse battery");
    expect(calls).toHaveLength(3);
    expect(calls[2]?.url).toBe(PAGE_URL);
    expect(calls[2]?.headers.get("x-status-page-password")).toBe("right horse battery");
    expect($(el, "form")).toBeNull();
    expect(text($(el, '[part="header"] h2') as HTMLElement)).toBe("Acme Status");
  });

  test("a non-ASCII password is sent as its UTF-8 bytes, one character per byte", async () => {
    const password = "pässwörd-日本";
    answers(
      () => problem(401, "password_required"),
      () => json(page()),
    );
    const el = await mount();
    await submitPassword(el, password);
    const value = calls[1]?.init.headers as Record<string, string>;
    const sent = value["X-Status-Page-Password"] as string;
    expect(sent).toBe(passwordHeaderValue(password));
    expect([...sent].every((ch) => ch.charCodeAt(0) <= 0xff)).toBe(true);
    expect(sent).toHaveLength(new TextEncoder().encode(password).length);
    // What the server does with the Latin-1 header value.
    expect(Buffer.from(sent, "latin1").toString("utf8")).toBe(password);
    expect(text($(el, '[part="header"] h2') as HTMLElement)).toBe("Acme Status");
  });

  test("the shown page keeps sending the password on refresh", async () => {
    answers(
      () => problem(401, "password_required"),
      () => json(page()),
    );
    const el = await mount();
    await submitPassword(el, "secret-password");
    el.reload();
    await settle(el);
    expect(calls[2]?.headers.get("x-status-page-password")).toBe("secret-password");
  });
});

describe("remember-password", () => {
  const passwordServer = (right: string) =>
    stubFetch((call) => {
      const password = call.headers.get("x-status-page-password");
      if (!password) return problem(401, "password_required");
      return password === right ? json(page()) : problem(401, "password_incorrect");
    });

  test("without the attribute nothing is written to sessionStorage", async () => {
    passwordServer("open sesame");
    const el = await mount();
    expect(el.rememberPassword).toBe(false);
    await submitPassword(el, "open sesame");
    expect(text($(el, '[part="header"] h2') as HTMLElement)).toBe("Acme Status");
    expect(sessionStorage.length).toBe(0);
  });

  test("with it the right password is kept for this page and a new element sends it without asking", async () => {
    passwordServer("open sesame");
    const first = await mount({ "remember-password": true });
    expect(first.rememberPassword).toBe(true);
    await submitPassword(first, "open sesame");
    expect(sessionStorage.length).toBe(1);
    const key = sessionStorage.key(0) as string;
    expect(key).toContain(SLUG);
    expect(key).toContain(API);
    expect(sessionStorage.getItem(key)).toBe("open sesame");
    first.remove();

    passwordServer("open sesame");
    const second = await mount({ "remember-password": true });
    expect(calls).toHaveLength(1);
    expect(calls[0]?.headers.get("x-status-page-password")).toBe("open sesame");
    expect($(second, "form")).toBeNull();
    expect(text($(second, '[part="header"] h2') as HTMLElement)).toBe("Acme Status");
  });

  test("a remembered password is not used by an element without the attribute, nor for another page", async () => {
    sessionStorage.setItem(`porchlight:${API}/${SLUG}`, "open sesame");
    passwordServer("open sesame");
    await mount();
    expect(calls[0]?.headers.has("x-status-page-password")).toBe(false);
    passwordServer("open sesame");
    await mount({ "remember-password": true, slug: "other" });
    expect(calls[0]?.headers.has("x-status-page-password")).toBe(false);
    passwordServer("open sesame");
    await mount({ "remember-password": true, "api-base": "https://elsewhere.test" });
    expect(calls[0]?.headers.has("x-status-page-password")).toBe(false);
  });

  test("where sessionStorage is unavailable (sandboxed iframe, storage blocked) the page still loads", async () => {
    const own = Object.getOwnPropertyDescriptor(globalThis, "sessionStorage");
    Object.defineProperty(globalThis, "sessionStorage", {
      configurable: true,
      get() {
        throw new DOMException("The document is sandboxed and lacks the 'allow-same-origin' flag.", "SecurityError");
      },
    });
    cleanups.push(() => {
      if (own) Object.defineProperty(globalThis, "sessionStorage", own);
    });
    const errors = listen<ErrorDetail>("porchlight-error");
    answers(() => json(page()));
    const el = await mount({ "remember-password": true });
    // BUG: the task reads sessionStorage unguarded; the SecurityError becomes problem "network" and no request is made.
    expect(errors.map((event) => event.detail.problem)).toEqual([]);
    expect(calls).toHaveLength(1);
    expect(text($(el, '[part="header"] h2') as HTMLElement)).toBe("Acme Status");
  });

  test("a wrong remembered password is removed and the form asks again", async () => {
    passwordServer("open sesame");
    const first = await mount({ "remember-password": true });
    await submitPassword(first, "open sesame");
    const key = sessionStorage.key(0) as string;
    first.remove();

    passwordServer("changed since"); // the owner changed the password
    const second = await mount({ "remember-password": true });
    expect(calls[0]?.headers.get("x-status-page-password")).toBe("open sesame");
    expect(sessionStorage.getItem(key)).toBeNull();
    expect($(second, "input#password")).not.toBeNull();
    expect(text($(second, '[role="alert"]') as HTMLElement)).toBe("The password is incorrect.");
  });
});
