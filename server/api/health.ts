import { z } from "zod";
import type { Store } from "../store/store.ts";
import { ApiError } from "./errors.ts";
import { route } from "./route.ts";

const Health = z.object({ status: z.literal("ok") });

export function healthRoutes({ store }: { store: Store }) {
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
      summary: "The store answers",
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
        return { status: 200, body: { status: "ok" as const, store: store.dialect } };
      },
    }),
  ];
}
