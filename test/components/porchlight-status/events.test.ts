// @vitest-environment happy-dom
import { describe, expect, test } from "vitest";
import type {
  ErrorDetail,
  LoadDetail,
  StatusChangeDetail,
} from "../../../components/porchlight-status/porchlight-status.ts";
import { $, answers, calls, DomResponse, json, listen, mount, page, pageWith, SLUG, settle, text } from "./helpers.ts";

describe("events", () => {
  test("porchlight-load bubbles out of the shadow root (composed) with slug, status and page", async () => {
    const loads = listen<LoadDetail>("porchlight-load");
    const p = pageWith("operational", "degraded");
    answers(() => json(p));
    await mount();
    expect(loads).toHaveLength(1);
    const event = loads[0] as CustomEvent<LoadDetail>;
    expect(event.bubbles).toBe(true);
    expect(event.composed).toBe(true);
    expect(event.detail.slug).toBe(SLUG);
    expect(event.detail.status).toBe("degraded");
    expect(event.detail.page).toEqual(p);
  });

  test("porchlight-status-change fires on a reload that changes the overall status, never on the first load", async () => {
    const changes = listen<StatusChangeDetail>("porchlight-status-change");
    const loads = listen<LoadDetail>("porchlight-load");
    answers(
      () => json(pageWith("operational")),
      () => json(pageWith("operational")),
      () => json(pageWith("major_outage")),
    );
    const el = await mount();
    expect(loads).toHaveLength(1);
    expect(changes).toHaveLength(0);

    el.reload();
    await settle(el);
    expect(loads).toHaveLength(2);
    expect(changes).toHaveLength(0); // same status

    el.reload();
    await settle(el);
    expect(changes).toHaveLength(1);
    const change = changes[0] as CustomEvent<StatusChangeDetail>;
    expect(change.detail).toEqual({ slug: SLUG, status: "major", previous: "operational" });
    expect(change.bubbles && change.composed).toBe(true);
    const banner = $(el, '[part="banner"]') as HTMLElement;
    expect(banner.getAttribute("role")).toBe("status");
    expect(text(banner.querySelector("span") as HTMLElement)).toBe("Major outage");
  });

  test("If-None-Match carries the last ETag; a 304 keeps the page shown", async () => {
    const errors = listen<ErrorDetail>("porchlight-error");
    const loads = listen<LoadDetail>("porchlight-load");
    answers(
      () => json(page(), 200, { ETag: '"v1"' }),
      () => new DomResponse(null, { status: 304, headers: { ETag: '"v1"' } }),
      () => json(page({ name: "Renamed" }), 200, { ETag: '"v2"' }),
      () => new DomResponse(null, { status: 304 }),
    );
    const el = await mount();
    expect(calls[0]?.headers.has("if-none-match")).toBe(false);

    el.reload();
    await settle(el);
    expect(calls[1]?.headers.get("if-none-match")).toBe('"v1"');
    expect(text($(el, '[part="header"] h2') as HTMLElement)).toBe("Acme Status");
    expect(errors).toHaveLength(0);
    expect(loads).toHaveLength(1);

    el.reload();
    await settle(el);
    expect(calls[2]?.headers.get("if-none-match")).toBe('"v1"');
    expect(text($(el, '[part="header"] h2') as HTMLElement)).toBe("Renamed");

    el.reload();
    await settle(el);
    expect(calls[3]?.headers.get("if-none-match")).toBe('"v2"');
    expect(text($(el, '[part="header"] h2') as HTMLElement)).toBe("Renamed");
  });
});
