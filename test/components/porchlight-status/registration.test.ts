// @vitest-environment happy-dom
import { describe, expect, test, vi } from "vitest";
import { PorchlightStatus } from "../../../components/porchlight-status/porchlight-status.ts";
import { $, answers, calls, json, mount, PAGE_URL, page, text } from "./helpers.ts";

describe("registration", () => {
  test("<porchlight-status> is PorchlightStatus", () => {
    expect(customElements.get("porchlight-status")).toBe(PorchlightStatus);
    expect(document.createElement("porchlight-status")).toBeInstanceOf(PorchlightStatus);
  });

  test("loading the embed script again, even as another copy, neither throws nor replaces the element", async () => {
    await expect(import("../../../components/porchlight-status/index.ts")).resolves.toBeDefined();
    vi.resetModules();
    const copy = await import("../../../components/porchlight-status/index.ts");
    expect(copy.PorchlightStatus).not.toBe(PorchlightStatus);
    expect(customElements.get("porchlight-status")).toBe(PorchlightStatus);
    // Defining the name directly is what the guard avoids.
    expect(() => customElements.define("porchlight-status", copy.PorchlightStatus)).toThrow();
  });

  test("the class can be registered under another name and works", async () => {
    class MyStatus extends PorchlightStatus {}
    customElements.define("my-status", MyStatus);
    answers(() => json(page()));
    const el = await mount({}, "my-status");
    expect(el).toBeInstanceOf(MyStatus);
    expect(el).toBeInstanceOf(PorchlightStatus);
    expect(text($(el, '[part="header"] h2') as HTMLElement)).toBe("Acme Status");
    expect(calls[0]?.url).toBe(PAGE_URL);
  });
});
