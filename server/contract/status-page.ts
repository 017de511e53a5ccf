import { z } from "zod";
import { Timestamp } from "./common.ts";
import { PUBLIC_MAINTENANCE_DAYS, PublicMaintenance } from "./maintenance.ts";
import { SiteId } from "./site.ts";

/** Paths the hosted pages and the API own: a status page may not take them as its slug. */
export const RESERVED_SLUGS = new Set([
  "api",
  "public",
  "embed",
  "healthz",
  "readyz",
  "metrics",
  "admin",
  "static",
  "assets",
  "_astro",
  "favicon.ico",
  "robots.txt",
  "sitemap.xml",
  "404",
  "login",
  "signup",
  "status",
  "docs",
  "openapi.json",
  "dashboard",
]);

export const Slug = z
  .string()
  .min(1)
  .max(64)
  .regex(
    /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/,
    "must be 1 to 64 lowercase letters, digits and inner dashes (for example acme-status)",
  )
  .refine((slug) => !RESERVED_SLUGS.has(slug), "is reserved; choose another slug")
  .meta({ description: "Short, URL-safe identifier of the page", example: "acme" });

/** Who may read a page, as every answer names it (spec 2.6). */
export const Visibility = z.enum(["public", "private", "password-protected"]).meta({
  description: "public: anyone; password-protected: X-Status-Page-Password header; private: workspace members only",
});
export type Visibility = z.infer<typeof Visibility>;

/**
 * A visibility as requests name it: the spec's values, or `password`, the name releases before spec 2.6's were
 * answered with, accepted as an alias and read as password-protected. What is parsed is always a Visibility.
 */
export const VisibilityInput = z
  .enum(["public", "private", "password-protected", "password"], {
    error: "must be public, private or password-protected (password is accepted for password-protected)",
  })
  .transform((v): Visibility => (v === "password" ? "password-protected" : v))
  .pipe(Visibility)
  .meta({
    description:
      "public: anyone; password-protected: X-Status-Page-Password header; private: workspace members only. password is accepted as an alias of password-protected, which is what answers name.",
  });

export const PagePassword = z
  .string()
  .min(8, "must be at least 8 characters")
  .max(128, "must be at most 128 characters")
  // HTTP trims header values, so these characters could never arrive in X-Status-Page-Password.
  .refine((p) => p.trim() === p, "must not begin or end with white space")
  .refine((p) => [...p].every((ch) => ch >= " " && ch !== "\u007f"), "must not contain control characters")
  .meta({ description: "Write-only; stored as an scrypt hash. Required when visibility is password-protected." });

/** A host name without scheme, port or path. */
export const CustomDomain = z
  .string()
  .max(253)
  .transform((s) => s.toLowerCase())
  .pipe(
    z
      .string()
      .regex(
        /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$/,
        "must be a host name such as status.example.com, without scheme, port or path",
      ),
  )
  .meta({ example: "status.example.com" });

/** The image types a page's logo and favicon may be, by the extension their address ends with. */
export const IMAGE_TYPES = {
  png: "image/png",
  jpg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  svg: "image/svg+xml",
  ico: "image/x-icon",
} as const;
export type ImageExtension = keyof typeof IMAGE_TYPES;
/** The largest logo or favicon the server stores, in bytes. */
export const MAX_IMAGE_BYTES = 512 * 1024;
/** The widest and tallest raster image the server stores, in pixels: no decompression bomb reaches a visitor. */
export const MAX_IMAGE_PIXELS = 4096;
/** Where the server serves an uploaded image: the SHA-256 of its bytes, so an address never changes what it shows. */
export const IMAGE_PATH = /^\/assets\/[0-9a-f]{64}\.(?:png|jpg|gif|webp|svg|ico)$/;

/** An image on the web by its address: https only, no credentials, for a logo or favicon the owner hosts. */
export const ImageUrl = z
  .url({ protocol: /^https$/, error: "must be an https:// address of an image" })
  .max(2048)
  // Zod runs this even after the checks above failed: an address that does not parse is theirs to name.
  .refine((url) => {
    if (!URL.canParse(url)) return true;
    const parsed = new URL(url);
    return parsed.username === "" && parsed.password === "";
  }, "must not carry a user name or password")
  .meta({ example: "https://example.com/logo.png" });

/**
 * A logo or favicon as a change names it: an https address, or the path of the page's current upload (an answer
 * sent back as it came), which changes nothing; an upload itself is PUT …/logo or …/favicon.
 */
const ImageRef = z
  .string()
  .superRefine((value, ctx) => {
    if (IMAGE_PATH.test(value)) return;
    const parsed = ImageUrl.safeParse(value);
    for (const issue of parsed.error?.issues ?? []) ctx.addIssue({ code: "custom", message: issue.message });
  })
  .meta({ example: "https://example.com/logo.png" });

const imageField = (what: string) =>
  z
    .string()
    .nullable()
    .default(null)
    .meta({
      description: `The page's ${what}: an https:// address the owner set, or a path on this server (/assets/<sha-256>.<ext>) for an image uploaded with PUT /public/v1/status-pages/{id}/${what}; null without one.`,
    });

const ThemeMode = z.enum(["auto", "light", "dark"]);
const AccentColor = z.string().regex(/^#[0-9a-fA-F]{6}$/, "must be a #rrggbb colour");

export const Theme = z
  .strictObject({ mode: ThemeMode.default("auto"), accentColor: AccentColor.default("#2563eb") })
  .meta({ id: "Theme" });
/** A PATCH's theme: only the fields sent change (no defaults, which would reset the others). */
export const ThemePatch = z.strictObject({ mode: ThemeMode.optional(), accentColor: AccentColor.optional() });
export type Theme = z.infer<typeof Theme>;

/** The most days of history a page shows (and the build reads). */
export const MAX_HISTORY_DAYS = 90;

const HistoryDays = z.int().min(1).max(MAX_HISTORY_DAYS).meta({ description: "Days of uptime history shown per item" });

export const DisplayOptions = z
  .strictObject({
    historyDays: HistoryDays.default(MAX_HISTORY_DAYS),
    showUptime: z.boolean().default(true),
    showResponseTime: z.boolean().default(true),
    showIncidents: z.boolean().default(true),
  })
  .meta({ id: "DisplayOptions" });
/** A PATCH's display options: only the fields sent change. */
export const DisplayOptionsPatch = z.strictObject({
  historyDays: HistoryDays.optional(),
  showUptime: z.boolean().optional(),
  showResponseTime: z.boolean().optional(),
  showIncidents: z.boolean().optional(),
});
export type DisplayOptions = z.infer<typeof DisplayOptions>;

export const DEFAULT_THEME: Theme = Theme.parse({});
export const DEFAULT_DISPLAY: DisplayOptions = DisplayOptions.parse({});

const passwordRule = {
  message: "a password of at least 8 characters is required when visibility is password-protected",
  path: ["password"],
};

export const StatusPageCreate = z
  .strictObject({
    name: z.string().trim().min(1).max(100),
    slug: Slug,
    description: z.string().max(2000).default(""),
    // A prefault, not a default: zod documents no input default on a schema that transforms.
    visibility: VisibilityInput.prefault("public"),
    password: PagePassword.optional(),
    theme: Theme.default(DEFAULT_THEME),
    display: DisplayOptions.default(DEFAULT_DISPLAY),
    customDomain: CustomDomain.nullable().default(null),
    logo: ImageUrl.nullable()
      .default(null)
      .meta({ description: "An https:// address of the page's logo; or upload one (PUT …/logo)" }),
    favicon: ImageUrl.nullable()
      .default(null)
      .meta({ description: "An https:// address of the page's favicon; or upload one (PUT …/favicon)" }),
  })
  .refine((p) => p.visibility !== "password-protected" || p.password !== undefined, passwordRule)
  .refine((p) => p.visibility === "password-protected" || p.password === undefined, {
    message: "can only be set when visibility is password-protected",
    path: ["password"],
  })
  .meta({ id: "StatusPageCreate" });
export type StatusPageCreate = z.infer<typeof StatusPageCreate>;

/** theme and display are merged into the stored values field by field. */
export const StatusPagePatch = z
  .strictObject({
    name: z.string().trim().min(1).max(100).optional(),
    slug: Slug.optional(),
    description: z.string().max(2000).optional(),
    visibility: VisibilityInput.optional(),
    password: PagePassword.optional(),
    theme: ThemePatch.optional(),
    display: DisplayOptionsPatch.optional(),
    customDomain: CustomDomain.nullable().optional(),
    logo: ImageRef.nullable().optional().meta({
      description:
        "An https:// address, replacing an uploaded logo; null removes the logo; the page's current value changes nothing",
    }),
    favicon: ImageRef.nullable().optional().meta({
      description:
        "An https:// address, replacing an uploaded favicon; null removes the favicon; the page's current value changes nothing",
    }),
  })
  .meta({ id: "StatusPagePatch" });
export type StatusPagePatch = z.infer<typeof StatusPagePatch>;

export const StatusPageDelete = z
  .strictObject({
    confirmName: z.string().meta({ description: "The page's exact name, case-sensitive" }),
  })
  .meta({ id: "StatusPageDelete" });

/** Numeric ids are PostgreSQL `serial` (int4): larger numbers cannot name anything. */
const MAX_ID = 2_147_483_647;

export const PageId = z
  .string()
  .regex(/^[1-9]\d{0,9}$/, "must be a numeric id")
  .transform(Number)
  .refine((id) => id <= MAX_ID, `must be a numeric id up to ${MAX_ID}`)
  .meta({ description: "Status page id", example: "1" });
export const ItemId = PageId.meta({ description: "Item id", example: "1" });
export const IncidentId = PageId.meta({ description: "Incident id", example: "1" });

export const ItemCreate = z
  .strictObject({
    siteId: SiteId,
    label: z.string().trim().min(1).max(100).optional().meta({ description: "Defaults to the site's name" }),
    visible: z.boolean().default(true),
  })
  .meta({ id: "ItemCreate" });
export const ItemPatch = z
  .strictObject({
    label: z.string().trim().min(1).max(100).optional(),
    visible: z.boolean().optional(),
    position: z.int().min(0).max(10_000).optional().meta({ description: "Sort order on the page, ascending" }),
  })
  .meta({ id: "ItemPatch" });

export const OwnerItem = z
  .object({
    id: z.int(),
    siteId: SiteId,
    label: z.string(),
    visible: z.boolean(),
    position: z.int(),
    createdAt: Timestamp,
  })
  .meta({ id: "StatusPageItemConfig" });
export type OwnerItem = z.infer<typeof OwnerItem>;

/** A status page as its owner sees it: configuration, never the password hash. */
export const StatusPage = z
  .object({
    id: z.int(),
    name: z.string(),
    slug: z.string(),
    description: z.string(),
    visibility: Visibility,
    hasPassword: z.boolean(),
    theme: Theme,
    display: DisplayOptions,
    customDomain: z.string().nullable(),
    logo: imageField("logo"),
    favicon: imageField("favicon"),
    url: z.string().meta({ description: "Where visitors find the page" }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    items: z.array(OwnerItem),
  })
  .meta({ id: "StatusPage" });
export type StatusPage = z.infer<typeof StatusPage>;

export const INCIDENT_STATUSES = ["investigating", "identified", "monitoring", "resolved"] as const;
export const IncidentStatus = z.enum(INCIDENT_STATUSES);
export type IncidentStatus = z.infer<typeof IncidentStatus>;

export const IncidentUpdate = z.object({
  timestamp: Timestamp.meta({ description: "When the update happened: its given time, else when it was posted" }),
  status: IncidentStatus,
  message: z.string(),
});

export const Incident = z
  .object({
    id: z.int(),
    title: z.string(),
    status: IncidentStatus,
    started_at: Timestamp,
    resolved_at: Timestamp.nullable().meta({ description: "null while the incident is open" }),
    duration_minutes: z
      .int()
      .nullable()
      .meta({ description: "Whole minutes from start to resolution; null while open (compute from started_at)" }),
    affected: z.array(z.object({ id: z.int(), label: z.string() })).meta({
      description:
        "The page's items the incident affects, in the page's order: those named by its owner (items), and an automatic incident's site's. On the public page only visible items.",
    }),
    updates: z.array(IncidentUpdate).meta({ description: "Newest first" }),
  })
  .meta({ id: "Incident" });
export type Incident = z.infer<typeof Incident>;

const Message = z.string().trim().min(1).max(5000);

/** How far ahead of the server's clock a given time may be (client clocks drift); such a time is taken as now. */
export const CLOCK_SKEW_SECONDS = 60;
const skew = `a time up to ${CLOCK_SKEW_SECONDS} s ahead of the server's clock is taken as now`;

/** How many items an incident may name as affected. */
export const MAX_INCIDENT_ITEMS = 100;
const AffectedItems = z
  .array(z.int().positive().max(MAX_ID))
  .max(MAX_INCIDENT_ITEMS)
  .meta({
    description: `Ids of the page's items the incident affects (at most ${MAX_INCIDENT_ITEMS}; repeats count once); an id not on the page is a 400 naming items. An automatic incident affects its site's items without them.`,
    example: [1, 2],
  });

export const IncidentCreate = z
  .strictObject({
    title: z.string().trim().min(1).max(200),
    status: IncidentStatus.default("investigating"),
    message: Message,
    startedAt: Timestamp.optional().meta({
      description: `Defaults to now; may not be in the future (${skew}). Stamps the first update, unless created resolved.`,
    }),
    resolvedAt: Timestamp.optional().meta({
      description: `Only with status resolved; defaults to now; not in the future (${skew}), not before startedAt. Stamps the first update, which resolves.`,
    }),
    items: AffectedItems.optional(),
  })
  .refine((i) => i.resolvedAt === undefined || i.status === "resolved", {
    message: "resolvedAt is only allowed with status resolved",
    path: ["resolvedAt"],
  })
  .meta({ id: "IncidentCreate" });
export type IncidentCreate = z.infer<typeof IncidentCreate>;

export const IncidentPatch = z
  .strictObject({
    title: z.string().trim().min(1).max(200).optional(),
    items: AffectedItems.optional().meta({ description: "Replaces the items named before; [] names none" }),
  })
  .refine((p) => p.title !== undefined || p.items !== undefined, {
    message: "title or items is required",
    path: ["title"],
  })
  .meta({ id: "IncidentPatch" });

export const IncidentUpdateCreate = z
  .strictObject({
    status: IncidentStatus,
    message: Message,
    at: Timestamp.optional().meta({
      description:
        `When the update happened, for one entered after the fact. Defaults to now; not in the future, not before the incident started or its latest update (${skew}; equal to the latest is allowed). ` +
        "With status resolved it becomes the incident's resolved_at, unless the incident is already resolved.",
      example: "2026-10-31T11:30:00.000Z",
    }),
  })
  .meta({ id: "IncidentUpdateCreate" });

export const ItemStatus = z.enum(["operational", "degraded", "outage", "paused", "unknown", "maintenance"]).meta({
  description:
    "operational (healthy), degraded, outage (unhealthy), paused, unknown (no recent check), maintenance (in a maintenance window now, whatever its checks say)",
});
export type ItemStatus = z.infer<typeof ItemStatus>;

export const PublicItem = z
  .object({
    id: z.int(),
    label: z.string(),
    type: z.literal("website"),
    status: ItemStatus,
    uptime: z.number().nullable().meta({ description: "Percentage over the page's historyDays; null without data" }),
    response_time: z.number().nullable().meta({ description: "Milliseconds of the latest check; null until checked" }),
    last_check: Timestamp.nullable(),
    history: z
      .array(z.object({ date: z.iso.date(), uptime: z.number() }))
      .meta({ description: "Daily uptime percentage, oldest first, days with data only" }),
  })
  .meta({ id: "StatusPageItem" });
export type PublicItem = z.infer<typeof PublicItem>;

/** Spec 2.6 plus theme and display options. */
export const PublicStatusPage = z
  .object({
    name: z.string(),
    slug: z.string(),
    description: z.string(),
    visibility: Visibility,
    custom_domain: z.string().nullable(),
    logo: imageField("logo"),
    favicon: imageField("favicon"),
    theme: Theme,
    display: DisplayOptions,
    items: z.array(PublicItem),
    incidents: z.array(Incident).meta({ description: "The 50 most recent, newest first" }),
    maintenance: z.array(PublicMaintenance).meta({
      description: `Maintenance under way or beginning within ${PUBLIC_MAINTENANCE_DAYS} days on the page's visible items, soonest first: each window's current or next occurrence, at most 10`,
    }),
  })
  .meta({ id: "PublicStatusPage" });
export type PublicStatusPage = z.infer<typeof PublicStatusPage>;

export const PublicItems = z.object({ slug: z.string(), items: z.array(PublicItem) }).meta({ id: "PublicItems" });
export const PublicIncidents = z
  .object({ slug: z.string(), incidents: z.array(Incident) })
  .meta({ id: "PublicIncidents" });
