import { z } from "zod";
import { ENGINE_TIMERS, type EngineHealth } from "../engine/engine.ts";
import { ApiError } from "../http/errors.ts";
import { route } from "../http/route.ts";
import type { Store } from "../store/store.ts";

const Health = z.object({ status: z.literal("ok") });

/**
 * /healthz: the process answers. /readyz: the store answers and, in a process that runs an engine, the engine is
 * still claiming work (see EngineHealth); a process without one (PORCHLIGHT_ENGINE=off) is judged by its store.
 */
export function healthRoutes({ store, engine }: { store: Store; engine?: { health(): EngineHealth } }) {
  return [
    route({
      method: "get",
      path: "/healthz",
      operationId: "healthz",
      summary: "The process is alive",
      tag: "Operations",
      access: "none",
      response: { status: 200, description: "Alive", schema: Health },
      errors: [],
      async handler() {
        return { status: 200, body: { status: "ok" as const } };
      },
    }),
    route({
      method: "get",
      path: "/readyz",
      operationId: "readyz",
      summary: "The store answers, and this process's engine (if it runs one) claims work",
      description: `503 when the store does not answer, or when the engine running in this process has stopped or has not finished a claim round for ${ENGINE_TIMERS.stalledAfterMs / 1000} seconds. A process without an engine (PORCHLIGHT_ENGINE=off) is judged by its store alone.`,
      tag: "Operations",
      access: "none",
      response: { status: 200, description: "Ready", schema: Health.extend({ store: z.string() }) },
      errors: [503],
      async handler() {
        try {
          await store.ping();
        } catch {
          throw new ApiError(503, "internal", "The store is not reachable");
        }
        const health = engine?.health();
        if (health && !health.claiming) {
          const why =
            health.state === "stopped"
              ? "has stopped"
              : health.state === "not-started"
                ? "has not started"
                : `has not claimed work for ${Math.round(health.secondsSinceClaim ?? 0)} s`;
          throw new ApiError(503, "internal", `The engine (region ${health.region}) ${why}`);
        }
        return { status: 200, body: { status: "ok" as const, store: store.dialect } };
      },
    }),
  ];
}
