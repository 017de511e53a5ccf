import { expect, test } from "vitest";
import { ErrorEnvelope } from "../../server/contract/common.ts";
import { ENGINE_TIMERS } from "../../server/engine/engine.ts";
import type { Store } from "../../server/store/store.ts";
import { client, describeStores, makeApp, seedOwner, TestClock, useStore } from "../helpers.ts";
import { appWithEngine, localTargets } from "./with-engine.ts";

describeStores("GET /readyz", (kind) => {
  let store: Store;
  let clock: TestClock;
  let made: ReturnType<typeof appWithEngine>;

  useStore(kind, { each: true }, (opened) => {
    ({ store } = opened);
    clock = new TestClock();
    made = appWithEngine(store, clock);
    return () => made.engine.stop();
  });

  const ready = async () => {
    const res = await made.app.request("/readyz");
    return { status: res.status, body: await res.json() };
  };
  const notReady = async (message: RegExp) => {
    const { status, body } = await ready();
    expect(status).toBe(503);
    expect(ErrorEnvelope.parse(body)).toMatchObject({ success: false, code: 503, error: "internal" });
    expect(body.message).toMatch(message);
  };

  test("ready while the engine claims work; 503 once it has not for its stall limit, and ready again when it does", async () => {
    const targets = await localTargets();
    try {
      const api = client(made.app, (await seedOwner(store)).token);
      await api.post("/public/v1/sites", { url: targets.ok, name: "S", checkInterval: 60, timeout: 5 });
      // Not started and never claimed: not ready.
      await notReady(/^The engine \(region local\) has not started$/);

      clock.advance(3000);
      await made.engine.runOnce();
      expect(await ready()).toEqual({ status: 200, body: { status: "ok", store: kind.name } });

      // The limit itself is still ready; a millisecond past it is not.
      clock.advance(ENGINE_TIMERS.stalledAfterMs);
      expect((await ready()).status).toBe(200);
      clock.advance(1);
      await notReady(/^The engine \(region local\) has not claimed work for 10 s$/);

      // A round with nothing due is a claim too.
      await made.engine.runOnce();
      expect((await ready()).status).toBe(200);
      clock.advance(60_000);
      await made.engine.runOnce();
      expect((await ready()).status).toBe(200);

      // Stopped: not ready, whatever the time.
      await made.engine.stop();
      await notReady(/^The engine \(region local\) has stopped$/);
      // However long ago it stopped.
      clock.advance(60_000);
      await notReady(/^The engine \(region local\) has stopped$/);
    } finally {
      targets.close();
    }
  });

  test("a started engine's own claim loop keeps it ready", async () => {
    made.engine.start();
    expect((await ready()).status).toBe(200);
    clock.advance(ENGINE_TIMERS.stalledAfterMs + 1);
    // The claim loop runs on real timers; its next round (within 200 ms) claims at the moved clock's time.
    for (let i = 0; i < 100 && (await ready()).status !== 200; i++) await new Promise((r) => setTimeout(r, 50));
    expect((await ready()).status).toBe(200);
  });

  test("a process without an engine is judged by its store alone", async () => {
    const { app } = makeApp(store, { clock });
    clock.advance(24 * 3_600_000);
    const res = await app.request("/readyz");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ok", store: kind.name });
  });
});
