import { z } from "zod";
import { Timestamp } from "./common.ts";

// A status page's subscribers: visitors told by e-mail when an incident is published, updated or resolved.

/**
 * How a subscriber is told: by e-mail (double opt-in), or by a POST to a URL (a signed webhook, or a Slack, Discord
 * or Microsoft Teams incoming webhook), confirmed by a test delivery the receiver accepts.
 */
export const SUBSCRIBER_KINDS = ["email", "webhook", "slack", "discord", "teams"] as const;
export const SubscriberKind = z.enum(SUBSCRIBER_KINDS);
export type SubscriberKind = z.infer<typeof SubscriberKind>;
/** The kinds told by a POST to a URL. */
export type HookKind = Exclude<SubscriberKind, "email">;
export const isHookKind = (kind: SubscriberKind): kind is HookKind => kind !== "email";

/** How long a confirmation link works. */
export const CONFIRM_HOURS = 24;
/** Confirmation e-mails one sign-up may cause in all (the first and the resends). */
export const CONFIRMATIONS_PER_SIGN_UP = 3;
/** The least time between two confirmation e-mails to one address for one page. */
export const RESEND_AFTER_MINUTES = 10;
/** Failed deliveries in a row that suspend a subscriber (a hard bounce suspends at once). */
export const FAILURES_TO_SUSPEND = 5;

/** A page's subscription settings (off unless its owner turns them on). */
export const SubscriptionSettings = z
  .strictObject({
    enabled: z.boolean().default(false).meta({ description: "Visitors may subscribe to this page" }),
    kinds: z.array(SubscriberKind).min(1).default(["email"]).meta({ description: "How visitors may subscribe" }),
  })
  .meta({ id: "SubscriptionSettings" });
export type SubscriptionSettings = z.infer<typeof SubscriptionSettings>;
/** A change of them: what is absent stays. */
export const SubscriptionSettingsPatch = z
  .strictObject({
    enabled: z.boolean().optional(),
    kinds: z.array(SubscriberKind).min(1).optional(),
  })
  .meta({ id: "SubscriptionSettingsPatch" });
export const DEFAULT_SUBSCRIPTIONS: SubscriptionSettings = { enabled: false, kinds: ["email"] };

/** Items of a page, by id: the services a subscriber chose. */
const ChosenItems = z
  .array(z.int().positive())
  .max(200)
  .meta({ description: "The page's item ids the subscriber wants to hear about; absent or empty: all of them" });

export const SubscriberEmail = z.email({ pattern: z.regexes.html5Email }).max(254).meta({ example: "ada@example.com" });

/** POST /public/v1/status-page/{slug}/subscribers. */
export const SubscribeRequest = z
  .strictObject({
    type: SubscriberKind.default("email").meta({
      description:
        "email (the default): a confirmation e-mail is sent; webhook, slack, discord, teams: a test delivery is posted to url, and the subscription holds once the receiver accepts it (2xx)",
    }),
    email: SubscriberEmail.optional().meta({ description: "The address, for type email" }),
    url: z
      .url({ protocol: /^https?$/, error: "Enter a URL starting with http:// or https://." })
      .max(2048)
      .optional()
      .meta({
        description:
          "Where notices are posted, for the other types: a webhook receiver, or a Slack, Discord or Teams incoming-webhook address. Stored sealed; answers show it masked",
        example: "https://hooks.slack.com/services/T000/B000/XXXX",
      }),
    items: ChosenItems.optional(),
  })
  .superRefine((body, ctx) => {
    if (body.type === "email") {
      if (body.email === undefined)
        ctx.addIssue({ code: "custom", path: ["email"], message: "Enter an e-mail address." });
      if (body.url !== undefined)
        ctx.addIssue({ code: "custom", path: ["url"], message: "An e-mail subscription takes no url." });
    } else {
      if (body.url === undefined)
        ctx.addIssue({ code: "custom", path: ["url"], message: `Enter the ${body.type} URL.` });
      if (body.email !== undefined)
        ctx.addIssue({ code: "custom", path: ["email"], message: `A ${body.type} subscription takes no email.` });
    }
  })
  .meta({ id: "SubscribeRequest" });
export type SubscribeRequest = z.infer<typeof SubscribeRequest>;

/** Its answer, the same whether the address was new, waiting or already subscribed (nothing is revealed). */
export const SubscribeAccepted = z.object({
  status: z.enum(["confirmation_sent", "test_delivery_sent"]).meta({
    description:
      "confirmation_sent: an e-mail with a link to follow; test_delivery_sent: a test message posted to the URL (it carries the links and, for a webhook, the signing secret)",
  }),
  confirmWithinHours: z.int(),
});

/** Where a subscriber stands. */
export const SubscriberState = z.enum(["pending", "confirmed", "suspended"]);
export type SubscriberState = z.infer<typeof SubscriberState>;

/** A subscription as its subscriber manages it (with the token of its links, no account). */
export const ManagedSubscription = z
  .object({
    page: z.object({ name: z.string(), slug: z.string() }),
    type: SubscriberKind,
    address: z.string(),
    state: SubscriberState,
    items: z.array(z.int()).meta({ description: "The chosen item ids; empty: all of them" }),
    available: z.array(z.object({ id: z.int(), label: z.string() })).meta({ description: "The page's visible items" }),
  })
  .meta({ id: "ManagedSubscription" });
export type ManagedSubscription = z.infer<typeof ManagedSubscription>;

/** PATCH of a managed subscription: the services chosen. */
export const ManagedSubscriptionPatch = z.strictObject({ items: ChosenItems });

/** A subscriber as the page's owner sees it. */
export const Subscriber = z
  .object({
    id: z.string(),
    type: SubscriberKind,
    address: z.string(),
    state: SubscriberState,
    items: z.array(z.int()),
    createdAt: Timestamp,
    confirmedAt: Timestamp.nullable(),
    suspendedReason: z.string().nullable().meta({ description: "Why deliveries stopped (a bounce, failures)" }),
  })
  .meta({ id: "Subscriber" });
export type Subscriber = z.infer<typeof Subscriber>;

export const SubscriberList = z.object({
  subscribers: z.array(Subscriber),
  total: z.int().meta({ description: "Subscribers matching the search, all pages of the answer together" }),
  counts: z.object({ pending: z.int(), confirmed: z.int(), suspended: z.int() }),
});

export const SubscriberQuery = z.object({
  search: z.string().max(254).optional().meta({ description: "Part of the address, any case" }),
  state: SubscriberState.optional().meta({ description: "Only subscribers in this state" }),
  offset: z.coerce
    .number()
    .int()
    .min(0)
    .max(1_000_000)
    .default(0)
    .meta({ description: "How many matching subscribers to skip, by address" }),
  limit: z.coerce.number().int().min(1).max(500).default(100).meta({ description: "How many to answer, at most 500" }),
});

/** How many addresses one import may hold. */
export const SUBSCRIBER_IMPORT_ROWS = 10_000;

/** POST …/subscribers/import: addresses as CSV (the first column; a header line is skipped). */
export const SubscriberImport = z
  .strictObject({
    csv: z
      .string()
      .max(1_000_000)
      .meta({
        description: `CSV text, one subscriber per line, the address in the first column (a header line naming "email" is skipped); at most ${SUBSCRIBER_IMPORT_ROWS} lines`,
        example: "email\nada@example.com\nbob@example.com",
      }),
    consent: z.boolean().default(false).meta({
      description:
        "true: you state that every address agreed to be told (they are subscribed at once, with no confirmation e-mail); false: each gets a confirmation e-mail, as a sign-up on the page",
    }),
    items: ChosenItems.optional(),
  })
  .meta({ id: "SubscriberImport" });

/** What an import did. */
export const SubscriberImportResult = z.object({
  added: z.int().meta({ description: "New subscribers (confirmed with consent, else waiting for their confirmation)" }),
  existing: z.int().meta({ description: "Addresses already subscribed or waiting: left as they were" }),
  invalid: z
    .array(z.object({ line: z.int(), value: z.string() }))
    .meta({ description: "Lines whose first column is not an address (the first 100)" }),
});

/**
 * What a notice says, as its page shows it to visitors: one incident's event, or one maintenance occurrence's
 * (scheduled when its window is made or moved, started and ended as it happens).
 */
export const NoticeEvent = z.enum([
  "published",
  "updated",
  "resolved",
  "maintenance_scheduled",
  "maintenance_started",
  "maintenance_ended",
]);
export type NoticeEvent = z.infer<typeof NoticeEvent>;

/**
 * An address as subscriptions compare it: Unicode NFC, trimmed, the domain in lower case and, as almost every
 * provider treats it, the local part too (one person, one subscription).
 */
export function normalisedAddress(address: string): string {
  return address.normalize("NFC").trim().toLowerCase();
}

/** What subscribers would receive: the e-mail, and how many confirmed subscribers it would reach now. */
export const NoticePreview = z
  .object({
    subject: z.string(),
    text: z.string().meta({ description: "The e-mail's plain-text part" }),
    html: z.string().meta({ description: "The e-mail's HTML part" }),
    recipients: z.int().meta({
      description: "Confirmed subscribers it would reach now (access to the page, and a service they chose or none)",
    }),
  })
  .meta({ id: "NoticePreview" });
