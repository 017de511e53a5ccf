import { z } from "zod";
import { Pagination, Timestamp } from "./common.ts";
import { PUBLIC_MAINTENANCE_DAYS, PublicMaintenance } from "./maintenance.ts";
import { SiteId } from "./site.ts";
import { SubscriptionSettings, SubscriptionSettingsPatch } from "./subscribers.ts";

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
    "Use 1 to 64 lower-case letters, digits and dashes inside, such as acme-status.",
  )
  .refine((slug) => !RESERVED_SLUGS.has(slug), "This slug is reserved: choose another.")
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
    error: "Choose public, private or password-protected.",
  })
  .transform((v): Visibility => (v === "password" ? "password-protected" : v))
  .pipe(Visibility)
  .meta({
    description:
      "public: anyone; password-protected: X-Status-Page-Password header; private: workspace members only. password is accepted as an alias of password-protected, which is what answers name.",
  });

export const PagePassword = z
  .string()
  .min(8, "Use at least 8 characters.")
  .max(128, "Use at most 128 characters.")
  // HTTP trims header values, so these characters could never arrive in X-Status-Page-Password.
  .refine((p) => p.trim() === p, "Remove the spaces at the start and end.")
  .refine((p) => [...p].every((ch) => ch >= " " && ch !== "\u007f"), "Remove the control characters.")
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
        "Enter a host name such as status.example.com, without https://, port or path.",
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
  .url({ protocol: /^https$/, error: "Enter the https:// address of an image." })
  .max(2048)
  // Zod runs this even after the checks above failed: an address that does not parse is theirs to name.
  .refine((url) => {
    if (!URL.canParse(url)) return true;
    const parsed = new URL(url);
    return parsed.username === "" && parsed.password === "";
  }, "Remove the user name and password from the address.")
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
const AccentColor = z.string().regex(/^#[0-9a-fA-F]{6}$/, "Enter a colour as #rrggbb, such as #2563eb.");

export const Theme = z
  .strictObject({ mode: ThemeMode.default("auto"), accentColor: AccentColor.default("#2563eb") })
  .meta({ id: "Theme" });
/** A PATCH's theme: only the fields sent change (no defaults, which would reset the others). */
export const ThemePatch = z.strictObject({ mode: ThemeMode.optional(), accentColor: AccentColor.optional() });
export type Theme = z.infer<typeof Theme>;

/** The most days of history a page shows (and the build reads). */
export const MAX_HISTORY_DAYS = 90;

const HistoryDays = z.int().min(1).max(MAX_HISTORY_DAYS).meta({ description: "Days of uptime history shown per item" });

const StatuspageMaintenance = z.boolean().meta({
  description:
    "The page's Statuspage API (/SLUG/api/v2/) sends the indicator `maintenance` while only maintenance is under way, as Statuspage does; absent or false, it sends `none` with the words Service Under Maintenance, which every typed Statuspage client accepts",
});

export const DisplayOptions = z
  .strictObject({
    historyDays: HistoryDays.default(MAX_HISTORY_DAYS),
    showUptime: z.boolean().default(true),
    showResponseTime: z.boolean().default(true),
    showIncidents: z.boolean().default(true),
    statuspageMaintenance: StatuspageMaintenance.optional(),
  })
  .meta({ id: "DisplayOptions" });
/** A PATCH's display options: only the fields sent change. */
export const DisplayOptionsPatch = z.strictObject({
  historyDays: HistoryDays.optional(),
  showUptime: z.boolean().optional(),
  showResponseTime: z.boolean().optional(),
  showIncidents: z.boolean().optional(),
  statuspageMaintenance: StatuspageMaintenance.optional(),
});
export type DisplayOptions = z.infer<typeof DisplayOptions>;

export const DEFAULT_THEME: Theme = Theme.parse({});
export const DEFAULT_DISPLAY: DisplayOptions = DisplayOptions.parse({});

/**
 * An incident's impact, in Statuspage's words: none, minor (degraded performance), major (partial outage), critical
 * (major outage). An automatic incident's follows what the engine sees; an owner's is chosen, or follows the worst
 * status it gives its services (impactOf).
 */
export const INCIDENT_IMPACTS = ["none", "minor", "major", "critical"] as const;
export const IncidentImpact = z.enum(INCIDENT_IMPACTS).meta({
  description: "none, minor (degraded performance), major (partial outage), critical (major outage)",
});
export type IncidentImpact = z.infer<typeof IncidentImpact>;

/** What an open incident says of a service it affects: the item statuses an incident can set. */
export const AFFECTED_STATUSES = ["operational", "degraded", "partial_outage", "major_outage", "maintenance"] as const;
export const AffectedStatus = z.enum(AFFECTED_STATUSES).meta({
  description:
    "What the incident says of the service while it is open; the page shows the worse of this and what the engine sees",
});
export type AffectedStatus = z.infer<typeof AffectedStatus>;

/** The impact an incident takes from the worst status it gives its services, when its owner names none. */
export function impactOf(statuses: readonly AffectedStatus[]): IncidentImpact {
  if (statuses.includes("major_outage")) return "critical";
  if (statuses.includes("partial_outage")) return "major";
  if (statuses.includes("degraded")) return "minor";
  return "none";
}

/**
 * What an incident says of a service named without a status: the status its impact speaks of (none says
 * operational, which moves nothing).
 */
export function affectedStatusOf(impact: IncidentImpact): AffectedStatus {
  return ({ critical: "major_outage", major: "partial_outage", minor: "degraded", none: "operational" } as const)[
    impact
  ];
}

/** When a page's automatic incidents reach its visitors. */
export const INCIDENT_PUBLICATIONS = ["immediately", "after", "draft"] as const;

/** Placeholders of the incident templates: the service's label on the page, and an outage's length in words. */
const Template = (fallback: string, what: string) =>
  z
    .string()
    .trim()
    .min(1)
    .max(500)
    .default(fallback)
    .meta({ description: `${what}; {service} is the item's label on the page, {duration} the outage's length` });

/** The words of a page's automatic incidents, in plain language: no HTTP codes for visitors (owners see them). */
export const IncidentTemplate = z
  .strictObject({
    title: Template("{service} is unavailable", "The incident's title").pipe(z.string().max(200)),
    down: Template("We are seeing problems reaching {service} and are looking into it.", "The first update"),
    downAgain: Template(
      "{service} became unavailable again shortly after it recovered. We are looking into it.",
      "The update when the service goes down again within the cool-down, re-opening the incident",
    ),
    recovered: Template(
      "{service} is available again. It was unavailable for {duration}.",
      "The update that resolves the incident",
    ),
  })
  .meta({ id: "IncidentTemplate" });
export type IncidentTemplate = z.infer<typeof IncidentTemplate>;

/**
 * A page's incident policy: whether the engine's incidents are published at once, once the outage has lasted
 * afterMinutes (shorter ones stay the owner's), or as drafts the owner publishes; and their words.
 */
export const IncidentPolicy = z
  .strictObject({
    publish: z.enum(INCIDENT_PUBLICATIONS).default("after").meta({
      description:
        "immediately: visitors read an automatic incident as it opens; after: once the outage has lasted afterMinutes (a shorter one stays owner-only); draft: the owner publishes it (POST …/incidents/{id}/publish)",
    }),
    afterMinutes: z.int().min(1).max(1440).default(5).meta({ description: "With publish after: minutes, 1 to 1,440" }),
    template: IncidentTemplate.prefault({}),
  })
  .meta({ id: "IncidentPolicy" });
export type IncidentPolicy = z.infer<typeof IncidentPolicy>;
export const DEFAULT_INCIDENT_POLICY: IncidentPolicy = IncidentPolicy.parse({});

/** A PATCH's incident policy: only the fields sent change, the template's too. */
export const IncidentPolicyPatch = z
  .strictObject({
    publish: z.enum(INCIDENT_PUBLICATIONS).optional(),
    afterMinutes: z.int().min(1).max(1440).optional(),
    template: z
      .strictObject({
        title: z.string().trim().min(1).max(200).optional(),
        down: z.string().trim().min(1).max(500).optional(),
        downAgain: z.string().trim().min(1).max(500).optional(),
        recovered: z.string().trim().min(1).max(500).optional(),
      })
      .optional(),
  })
  .meta({ id: "IncidentPolicyPatch" });
export type IncidentPolicyPatch = z.infer<typeof IncidentPolicyPatch>;

const passwordRule = {
  message: "Enter a password of at least 8 characters for a password-protected page.",
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
    incidentPolicy: IncidentPolicy.prefault({}),
    subscriptions: SubscriptionSettings.prefault({}),
  })
  .refine((p) => p.visibility !== "password-protected" || p.password !== undefined, passwordRule)
  .refine((p) => p.visibility === "password-protected" || p.password === undefined, {
    message: "Set a password only on a password-protected page.",
    path: ["password"],
  })
  .meta({ id: "StatusPageCreate" });
export type StatusPageCreate = z.infer<typeof StatusPageCreate>;

/** theme, display and incidentPolicy (its template too) are merged into the stored values field by field. */
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
    incidentPolicy: IncidentPolicyPatch.optional(),
    subscriptions: SubscriptionSettingsPatch.optional(),
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
  .regex(/^[1-9]\d{0,9}$/, "Choose it by its numeric id.")
  .transform(Number)
  .refine((id) => id <= MAX_ID, `must be a numeric id up to ${MAX_ID}`)
  .meta({ description: "Status page id", example: "1" });
export const ItemId = PageId.meta({ description: "Item id", example: "1" });
export const IncidentId = PageId.meta({ description: "Incident id", example: "1" });

export const GroupId = PageId.meta({ description: "Group id", example: "1" });

/** How many groups a page may have. */
export const MAX_GROUPS = 100;
/** The highest position an item or group takes (one added after it ties with it). */
export const MAX_POSITION = 1_000_000;
const Position = z.int().min(0).max(MAX_POSITION);
const ItemGroup = z.int().positive().max(MAX_ID).nullable().meta({
  description: "The page's group the item sits in (null: none, among the page's groups and ungrouped items)",
});

export const ItemCreate = z
  .strictObject({
    siteId: SiteId,
    label: z.string().trim().min(1).max(100).optional().meta({ description: "Defaults to the site's name" }),
    visible: z.boolean().default(true),
    groupId: ItemGroup.optional().meta({ description: "A group of the page to put it in, last; default none" }),
  })
  .meta({ id: "ItemCreate" });
export const ItemPatch = z
  .strictObject({
    label: z.string().trim().min(1).max(100).optional(),
    visible: z.boolean().optional(),
    position: Position.optional().meta({
      description:
        "Sort order, ascending: within its group, or, ungrouped, among the page's groups and ungrouped items (ties: groups first, then by id)",
    }),
    groupId: ItemGroup.optional().meta({
      description:
        "Moves it into a group of the page (null: out of any). Without position, it goes last there (a group's members, or the page's top level).",
    }),
  })
  .meta({ id: "ItemPatch" });

export type ItemPatch = z.infer<typeof ItemPatch>;

export const OwnerItem = z
  .object({
    id: z.int(),
    siteId: SiteId,
    label: z.string(),
    visible: z.boolean(),
    position: z.int(),
    groupId: z.int().nullable(),
    createdAt: Timestamp,
  })
  .meta({ id: "StatusPageItemConfig" });
export type OwnerItem = z.infer<typeof OwnerItem>;

const GroupName = z.string().trim().min(1).max(100);
const GroupDescription = z.string().trim().max(500);
const Collapsed = z.boolean().meta({
  description:
    "Visitors first see the group closed, showing its status only; a group with a member at fault (degraded, an outage, maintenance) is shown open whatever this says",
});

export const GroupCreate = z
  .strictObject({
    name: GroupName.meta({ description: "Unique on the page" }),
    description: GroupDescription.default(""),
    collapsed: Collapsed.default(true),
    position: Position.optional().meta({
      description: "Among the page's groups and ungrouped items, ascending; default last",
    }),
  })
  .meta({ id: "GroupCreate" });
export type GroupCreate = z.infer<typeof GroupCreate>;

export const GroupPatch = z
  .strictObject({
    name: GroupName.optional(),
    description: GroupDescription.optional(),
    collapsed: Collapsed.optional(),
    position: Position.optional(),
  })
  .meta({ id: "GroupPatch" });
export type GroupPatch = z.infer<typeof GroupPatch>;

/** A component group as the page's owner configures it. */
export const OwnerGroup = z
  .object({
    id: z.int(),
    name: z.string(),
    description: z.string(),
    collapsed: Collapsed,
    position: z.int(),
    createdAt: Timestamp,
  })
  .meta({ id: "StatusPageGroupConfig" });
export type OwnerGroup = z.infer<typeof OwnerGroup>;

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
    incidentPolicy: IncidentPolicy,
    // Absent from a server before subscriptions (a static build reading an older one): off.
    subscriptions: SubscriptionSettings.prefault({}),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    items: z.array(OwnerItem),
    // Absent from a server before groups (a static build reading an older one): none.
    groups: z.array(OwnerGroup).prefault([]).meta({ description: "The page's component groups, in their order" }),
  })
  .meta({ id: "StatusPage" });
export type StatusPage = z.infer<typeof StatusPage>;

/** A page of the workspace's status pages (GET /status-pages). */
export const StatusPageList = z.object({ statusPages: z.array(StatusPage), pagination: Pagination });
export type StatusPageList = z.infer<typeof StatusPageList>;

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
    impact: IncidentImpact,
    affected: z.array(z.object({ id: z.int(), label: z.string(), status: AffectedStatus })).meta({
      description:
        "The page's items the incident affects, in the page's order, each with what the incident says of it: those named by its owner (items), and an automatic incident's site's. On the public page only visible items.",
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
/** An item an incident affects, with what the incident says of it. */
export const AffectedItem = z
  .strictObject({ id: z.int().positive().max(MAX_ID), status: AffectedStatus })
  .meta({ id: "AffectedItem" });
export type AffectedItem = z.infer<typeof AffectedItem>;
const AffectedItems = z
  .array(z.union([z.int().positive().max(MAX_ID), AffectedItem]))
  .max(MAX_INCIDENT_ITEMS)
  .meta({
    description: `The page's items the incident affects (at most ${MAX_INCIDENT_ITEMS}): each an id, or {id, status} saying what the incident says of it; an id alone takes the status the impact speaks of (critical: major_outage, major: partial_outage, minor: degraded, none: operational, which moves nothing). Forms may be mixed; an item named twice counts once, with the worse status. An id not on the page is a 400 naming items. An automatic incident affects its site's items without them.`,
    example: [1, { id: 2, status: "degraded" }],
  });

/** What the owner's items say, each an AffectedItem: an id alone takes the status `impact` speaks of. */
export function affectedItems(
  items: readonly (number | AffectedItem)[],
  impact: IncidentImpact,
): { id: number; status: AffectedStatus }[] {
  const implied = affectedStatusOf(impact);
  return items.map((item) => (typeof item === "number" ? { id: item, status: implied } : item));
}

/** The impact of an incident the owner names none for: from the worst status it gives by name (impactOf). */
export const impactOfItems = (items: readonly (number | AffectedItem)[] = []): IncidentImpact =>
  impactOf(items.flatMap((item) => (typeof item === "number" ? [] : [item.status])));

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
    impact: IncidentImpact.optional().meta({
      description:
        "Defaults to the worst status items give by name: major_outage critical, partial_outage major, degraded minor, else none",
    }),
    publish: z.boolean().default(true).meta({
      description:
        "false records a draft that only the workspace reads until published (POST …/incidents/{incidentId}/publish)",
    }),
    notify: z.boolean().optional().meta({
      description:
        "Tell the page's subscribers once it is published. Defaults to true, except for an incident recorded resolved (after the fact)",
    }),
  })
  .refine((i) => i.resolvedAt === undefined || i.status === "resolved", {
    message: "Set the resolution time only with the status resolved.",
    path: ["resolvedAt"],
  })
  .meta({ id: "IncidentCreate" });
export type IncidentCreate = z.infer<typeof IncidentCreate>;

/** POST …/subscribers/preview: an incident's words and services, as it would be published. */
export const NoticePreviewRequest = z
  .strictObject({
    title: IncidentCreate.shape.title,
    status: IncidentCreate.shape.status,
    message: Message,
    items: AffectedItems.optional(),
    impact: IncidentImpact.optional(),
  })
  .meta({ id: "NoticePreviewRequest" });

export const IncidentPatch = z
  .strictObject({
    title: z.string().trim().min(1).max(200).optional(),
    impact: IncidentImpact.optional().meta({
      description: "Changes the impact only; the statuses of the items named before stay as they are",
    }),
    items: AffectedItems.optional().meta({
      description:
        "Replaces the items named before; [] names none. An id alone takes the status of the impact (this PATCH's, else the incident's).",
    }),
  })
  .refine((p) => p.title !== undefined || p.impact !== undefined || p.items !== undefined, {
    message: "Change the title, the impact or the services.",
    path: ["title"],
  })
  .meta({ id: "IncidentPatch" });
export type IncidentPatch = z.infer<typeof IncidentPatch>;

/** An update as the workspace reads it: with its id (to edit it) and the owner-only detail. */
export const OwnerIncidentUpdate = IncidentUpdate.extend({
  id: z.int(),
  detail: z.string().nullable().meta({
    description:
      "Owner-only detail of an automatic update (the failed check, such as HTTP 500); never shown to visitors",
  }),
}).meta({ id: "OwnerIncidentUpdate" });

/** An incident as the workspace reads it: what visitors read, and whether and since when they can. */
export const OwnerIncident = Incident.extend({
  published: z.boolean().meta({
    description: "Whether visitors read it; false for a draft, or an automatic incident waiting for the page's delay",
  }),
  publishedAt: Timestamp.nullable().meta({ description: "When visitors could first read it; null while unpublished" }),
  source: z.enum(["manual", "automatic"]).meta({ description: "manual: opened by a member; automatic: by the engine" }),
  updates: z.array(OwnerIncidentUpdate).meta({ description: "Newest first" }),
}).meta({ id: "OwnerIncident" });
export type OwnerIncident = z.infer<typeof OwnerIncident>;

/** A page's incident history as the workspace reads it (GET /status-pages/{id}/incidents). */
export const OwnerIncidentList = z.object({ incidents: z.array(OwnerIncident) });
export type OwnerIncidentList = z.infer<typeof OwnerIncidentList>;

/** A correction of an update: its text, its time, or both. */
export const IncidentUpdatePatch = z
  .strictObject({
    message: Message.optional(),
    at: Timestamp.optional().meta({
      description:
        `When the update happened. Not in the future (${skew}), not before the incident started, the update before it or after the update after it (equal is allowed). ` +
        "Moving the opening update (the oldest, stamped at the start) moves started_at with it; moving the update that resolved the incident moves resolved_at.",
      example: "2026-10-31T11:30:00.000Z",
    }),
  })
  .refine((p) => p.message !== undefined || p.at !== undefined, {
    message: "Change the message or the time.",
    path: ["message"],
  })
  .meta({ id: "IncidentUpdatePatch" });
export type IncidentUpdatePatch = z.infer<typeof IncidentUpdatePatch>;

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
    notify: z.boolean().default(true).meta({
      description: "Tell the page's subscribers (when the incident is published; a draft's updates tell no one)",
    }),
  })
  .meta({ id: "IncidentUpdateCreate" });

/**
 * What a page shows for a service, in Statuspage's vocabulary where it has one (operational, degraded performance,
 * partial outage, major outage, under maintenance), plus paused and unknown.
 */
export const ITEM_STATUSES = [
  "operational",
  "degraded",
  "partial_outage",
  "major_outage",
  "maintenance",
  "paused",
  "unknown",
] as const;
export const ItemStatus = z.enum(ITEM_STATUSES).meta({
  description:
    "operational (healthy), degraded (degraded performance: slow, or a condition), partial_outage (down for some of its users: named by an open incident), major_outage (down: unhealthy, or named by an open incident), maintenance (in a maintenance window now, whatever its checks say), paused, unknown (no recent check)",
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
    group_id: z.int().optional().meta({ description: "Its group (in `groups`); absent when it has none" }),
    history: z
      .array(
        z.object({
          date: z.iso.date(),
          uptime: z.number(),
          downtime_minutes: z.int().optional().meta({
            description:
              "Minutes of confirmed outage that day, as the engine measured them (maintenance left out), rounded up; absent on a day without downtime",
          }),
        }),
      )
      .meta({ description: "Daily uptime percentage, oldest first, days with data only" }),
  })
  .meta({ id: "StatusPageItem" });
export type PublicItem = z.infer<typeof PublicItem>;

/** A component group as visitors see it. */
export const PublicGroup = z
  .object({
    id: z.int(),
    name: z.string(),
    description: z.string(),
    status: ItemStatus.meta({
      description:
        "Its worst visible member's: major_outage, partial_outage, degraded, maintenance, unknown, operational, in that order; paused when every member is",
    }),
    collapsed: z.boolean().meta({
      description:
        "Shown closed at first: the owner's default, false while a member is degraded, in an outage or in maintenance",
    }),
    items: z.array(z.int()).meta({ description: "Its visible members' ids, in their order" }),
  })
  .meta({ id: "StatusPageGroup" });
export type PublicGroup = z.infer<typeof PublicGroup>;

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
    items: z.array(PublicItem).meta({
      description:
        "Visible items in the page's order: groups and ungrouped items by position, a group's members together in its place",
    }),
    groups: z.array(PublicGroup).optional().meta({
      description: "Component groups with a visible member, in the page's order; absent when the page has none",
    }),
    incidents: z.array(Incident).meta({ description: "The 50 most recent, newest first" }),
    maintenance: z.array(PublicMaintenance).meta({
      description: `Maintenance under way or beginning within ${PUBLIC_MAINTENANCE_DAYS} days on the page's visible items, soonest first: each window's current or next occurrence, at most 10`,
    }),
    subscribe: z.boolean().optional().meta({
      description:
        "Visitors may subscribe by e-mail (the owner allows it, and the page is not private): the form is at /subscriptions/new?page=SLUG on the server",
    }),
  })
  .meta({ id: "PublicStatusPage" });
export type PublicStatusPage = z.infer<typeof PublicStatusPage>;

export const PublicItems = z
  .object({ slug: z.string(), items: z.array(PublicItem), groups: z.array(PublicGroup).optional() })
  .meta({ id: "PublicItems" });
export const PublicIncidents = z
  .object({ slug: z.string(), incidents: z.array(Incident) })
  .meta({ id: "PublicIncidents" });
