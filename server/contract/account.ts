import { z } from "zod";

export const PLANS = ["free", "solo", "team", "stack"] as const;
export const Plan = z.enum(PLANS);
export type Plan = z.infer<typeof Plan>;

/** Status pages a workspace may have on each plan (spec 8). */
export const STATUS_PAGE_LIMITS: Record<Plan, number> = { free: 1, solo: 2, team: 5, stack: Number.POSITIVE_INFINITY };

/**
 * A user's e-mail address: the HTML form's rule (WHATWG), which also accepts a host without a dot, so that the
 * default owner `owner@localhost` of a fresh install is as valid for the CLI as for the server that created it.
 */
export const AccountEmail = z.email({ pattern: z.regexes.html5Email }).max(254);

export const ROLES = ["owner", "admin", "editor", "viewer"] as const;
export const RoleName = z.enum(ROLES);
export type RoleName = z.infer<typeof RoleName>;

export const PERMISSIONS = [
  "sites:read",
  "sites:write",
  "status_pages:read",
  "status_pages:write",
  "incidents:write",
  "alerts:read",
  "alerts:write",
  "members:manage",
  "workspace:manage",
] as const;
export type Permission = (typeof PERMISSIONS)[number];

/** What each role may do. Reads are open to every member; the owner alone manages the workspace (its plan). */
export const ROLE_PERMISSIONS: Record<RoleName, readonly Permission[]> = {
  owner: PERMISSIONS,
  admin: PERMISSIONS.filter((p) => p !== "workspace:manage"),
  editor: [
    "sites:read",
    "sites:write",
    "status_pages:read",
    "status_pages:write",
    "incidents:write",
    "alerts:read",
    "alerts:write",
  ],
  viewer: ["sites:read", "status_pages:read", "alerts:read"],
};

/** A workspace's plan and what it uses of it. */
export const Usage = z
  .object({
    plan: Plan,
    statusPages: z.object({
      used: z.int(),
      limit: z.int().nullable().meta({ description: "null: no limit" }),
    }),
    sites: z.object({ used: z.int() }),
    members: z.object({ used: z.int() }),
  })
  .meta({ id: "Usage" });
export type Usage = z.infer<typeof Usage>;
