import { z } from "zod";
import { Slug } from "./status-page.ts";

/** badge-maker's styles, as shields.io names them. */
export const BADGE_STYLES = ["flat", "flat-square", "plastic", "for-the-badge", "social"] as const;
export type BadgeStyle = (typeof BADGE_STYLES)[number];

/** The uptime badge's window in days: at most the 90 a page can show; never more than the page's own historyDays. */
export const BADGE_DAYS = { default: 30, min: 1, max: 90 } as const;

/** What a badge says about: the page as a whole, or one of its items. */
export const BADGE_METRICS = ["status", "uptime", "response-time"] as const;
export type BadgeMetric = (typeof BADGE_METRICS)[number];

const Label = z
  .string()
  .max(64, "must be at most 64 characters")
  .refine((label) => [...label].every((ch) => ch >= " " && ch !== "\u007f"), "must not contain control characters")
  .optional()
  .meta({ description: "The badge's left-hand text instead of the default; empty leaves only the message" });

const Style = z
  .enum(BADGE_STYLES, { error: `must be one of ${BADGE_STYLES.join(", ")}` })
  .optional()
  .meta({ description: "The look (shields.io's styles); default flat" });

/** Query of the status and response-time badges. A repeated or unknown parameter is a 400, as everywhere. */
export const BadgeQuery = z.strictObject({ label: Label, style: Style });
export type BadgeQuery = z.infer<typeof BadgeQuery>;

/** Query of the uptime badges: the window as well. */
export const UptimeBadgeQuery = z.strictObject({
  label: Label,
  style: Style,
  days: z
    .string()
    .regex(/^[1-9]\d{0,2}$/, `must be a whole number of days from ${BADGE_DAYS.min} to ${BADGE_DAYS.max}`)
    .transform(Number)
    .refine(
      (days) => days <= BADGE_DAYS.max,
      `must be a whole number of days from ${BADGE_DAYS.min} to ${BADGE_DAYS.max}`,
    )
    .optional()
    .meta({
      description: `Days of uptime, ${BADGE_DAYS.min} to ${BADGE_DAYS.max} (default ${BADGE_DAYS.default}), counting today (UTC); a page that shows fewer days of history gives its own number`,
      example: "30",
    }),
});
export type UptimeBadgeQuery = z.infer<typeof UptimeBadgeQuery>;

/**
 * The path parameters. A malformed slug or item id (one that no page or item can have) is refused by the route's
 * path parsing with the same 404 as an unknown one, so that no answer tells a page that exists apart from one that
 * does not.
 */
export const BadgeParams = z.object({
  slug: Slug.meta({ description: "A public status page's slug", example: "acme" }),
});
export const ItemBadgeParams = BadgeParams.extend({
  itemId: z
    .string()
    .regex(/^[1-9]\d{0,9}$/, "must be an item id")
    .meta({ description: "The item's id, as the page's items list shows it", example: "1" }),
});

export const GroupBadgeParams = BadgeParams.extend({
  groupId: z
    .string()
    .regex(/^[1-9]\d{0,9}$/, "must be a group id")
    .meta({ description: "The group's id, as the page's groups list shows it", example: "1" }),
});

/** shields.io's endpoint badge (https://shields.io/badges/endpoint-badge): give its URL to img.shields.io/endpoint. */
export const ShieldsEndpoint = z
  .object({
    schemaVersion: z.literal(1),
    label: z.string(),
    message: z.string(),
    color: z.string().meta({ description: "A shields.io colour name" }),
    style: z.enum(BADGE_STYLES).optional(),
  })
  .meta({ id: "ShieldsEndpoint" });
export type ShieldsEndpoint = z.infer<typeof ShieldsEndpoint>;

/** An SVG badge (image/svg+xml), made by badge-maker, shields.io's own library. */
export const BadgeSvg = z.string().meta({ description: "An SVG image (image/svg+xml)" });
