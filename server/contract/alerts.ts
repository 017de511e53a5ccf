import { z } from "zod";
import { Timestamp } from "./common.ts";

/** Where alerts go: one provider's format each (server/alerts/providers/). */
export const CHANNEL_TYPES = [
  "email",
  "webhook",
  "slack",
  "discord",
  "teams",
  "telegram",
  "ntfy",
  "pagerduty",
] as const;
export const ChannelType = z.enum(CHANNEL_TYPES);
export type ChannelType = z.infer<typeof ChannelType>;

/** An address a channel posts to: http or https (a private host only where the operator allows private targets). */
const PostUrl = z
  .url({ protocol: /^https?$/, error: "Enter a URL starting with http:// or https://." })
  .max(2048)
  .meta({ description: "Write-only: answers show it masked", example: "https://hooks.example.com/T0/B0/xyz" });

const Emails = z
  .array(z.email().max(254))
  .min(1)
  .max(10)
  .meta({ description: "1 to 10 addresses", example: ["oncall@example.com"] });

/** A signing secret: the owner's, or one the server makes (answered once, when the channel is created). */
const SigningSecret = z
  .string()
  .min(16, "Use at least 16 characters.")
  .max(256)
  .regex(/^[\x21-\x7e]+$/, "Use only letters, digits and punctuation, without spaces.");

/** Each type's settings: addresses, tokens and keys are credentials, write-only and masked in every answer. */
export const CHANNEL_CONFIGS = {
  email: z.strictObject({ to: Emails }),
  webhook: z.strictObject({
    url: PostUrl,
    secret: SigningSecret.optional().meta({
      description:
        "The HMAC-SHA256 key of X-Porchlight-Signature; default: one the server makes, answered once in the creating answer",
    }),
  }),
  slack: z.strictObject({ url: PostUrl.meta({ description: "A Slack incoming webhook (write-only)" }) }),
  discord: z.strictObject({ url: PostUrl.meta({ description: "A Discord channel webhook (write-only)" }) }),
  teams: z.strictObject({
    url: PostUrl.meta({ description: "A Microsoft Teams workflow's (or incoming webhook's) address (write-only)" }),
  }),
  telegram: z.strictObject({
    botToken: z
      .string()
      .regex(/^\d{1,20}:[\w-]{20,100}$/, "Enter the bot token @BotFather gave you (123456:ABC…).")
      .meta({ description: "Write-only" }),
    chatId: z
      .string()
      .regex(/^(-?\d{1,20}|@\w{5,64})$/, "Enter a chat id (a number) or @channelname.")
      .meta({ example: "-1001234567890" }),
  }),
  ntfy: z.strictObject({
    url: PostUrl.refine(
      (url) => !URL.canParse(url) || /\/[-\w]{1,64}\/?$/.test(new URL(url).pathname),
      "End the URL with the topic, such as https://ntfy.sh/my-topic.",
    ).meta({ description: "The topic's address, such as https://ntfy.sh/my-topic (write-only)" }),
    token: z
      .string()
      .min(1)
      .max(256)
      .regex(/^[\x21-\x7e]+$/, "Use only letters, digits and punctuation, without spaces.")
      .optional()
      .meta({ description: "An access token for a protected topic (write-only)" }),
  }),
  pagerduty: z.strictObject({
    routingKey: z
      .string()
      .regex(/^[0-9a-zA-Z]{32}$/, "Enter an Events API v2 integration key (32 letters and digits).")
      .meta({ description: "Write-only" }),
  }),
} as const satisfies Record<ChannelType, z.ZodType>;
export type ChannelConfig = { [T in ChannelType]: z.infer<(typeof CHANNEL_CONFIGS)[T]> };

const ChannelName = z.string().trim().min(1).max(100);

/** One type's creating body. */
const variant = <T extends ChannelType>(type: T) =>
  z.strictObject({
    name: ChannelName,
    type: z.literal(type),
    config: CHANNEL_CONFIGS[type],
    enabled: z.boolean().default(true),
  });

export const ChannelCreate = z
  .discriminatedUnion(
    "type",
    [
      variant("email"),
      variant("webhook"),
      variant("slack"),
      variant("discord"),
      variant("teams"),
      variant("telegram"),
      variant("ntfy"),
      variant("pagerduty"),
    ],
    { error: `Choose a type: ${CHANNEL_TYPES.join(", ")}.` },
  )
  .meta({ id: "AlertChannelCreate" });
export type ChannelCreate = z.infer<typeof ChannelCreate>;

/** name and enabled change in place; config replaces the channel's settings whole (its type stays). */
export const ChannelPatch = z
  .strictObject({
    name: ChannelName.optional(),
    enabled: z.boolean().optional(),
    config: z.record(z.string(), z.unknown()).optional().meta({
      description: "The whole settings of the channel's type, replacing the stored ones (checked as on creation)",
    }),
  })
  .meta({ id: "AlertChannelPatch" });

export const ChannelId = z
  .string()
  .regex(/^ch_[0-9a-f]{24}$/, "Choose a channel by its id.")
  .meta({ description: "Alert channel id", example: "ch_6743a1f0c2d4e5f60718293a" });

/** A channel as answers show it: its settings masked, its credentials never whole. */
export const Channel = z
  .object({
    id: ChannelId,
    name: z.string(),
    type: ChannelType,
    enabled: z.boolean(),
    target: z.string().meta({
      description:
        "Where it delivers, masked: the host and the start of the path (https://hooks.slack.com/services/T0…), the addresses' domains, a chat id",
      example: "https://hooks.slack.com/serv…",
    }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: "AlertChannel" });
export type Channel = z.infer<typeof Channel>;

export const ChannelCreated = Channel.extend({
  secret: z.string().optional().meta({
    description: "A webhook's signing secret, in this answer only (store it now: later answers never show it)",
  }),
}).meta({ id: "AlertChannelCreated" });

/** What an alert is about (version 1 of the event schema). */
export const ALERT_EVENT_TYPES = [
  "site.down",
  "site.still_down",
  "site.recovered",
  "site.degraded",
  "certificate.expiring",
  "certificate.renewed",
  "domain.expiring",
  "domain.renewed",
  "performance.chronic",
  "site.flapping",
  "site.flapping_ended",
  "test",
] as const;

/**
 * The event every channel is told, version 1: what a webhook receives as its JSON body, and what the other
 * providers' messages are made from. Fields are only ever added within a version.
 */
export const AlertEvent = z
  .object({
    version: z.literal(1),
    id: z.string().meta({
      description:
        "The event's id: the same for every channel told of it and on every retry (X-Porchlight-Event-Id): a receiver on two channels, or told twice, de-duplicates by it",
    }),
    deliveryId: z.string().optional().meta({
      description:
        "This delivery's id: one per event and channel, the same on every retry (X-Porchlight-Delivery-Id); absent from events queued before it existed",
    }),
    type: z.enum(ALERT_EVENT_TYPES),
    occurredAt: Timestamp,
    site: z
      .object({ id: z.string(), name: z.string(), url: z.string() })
      .meta({ description: "The site; a test event names an example" }),
    summary: z.string().meta({ description: "One line in plain words, as e-mail subjects and chat messages say it" }),
    reason: z.string().nullable().meta({ description: "The latest failure, when the site is down" }),
    downtimeSeconds: z
      .int()
      .nullable()
      .meta({ description: "How long the outage lasted (site.recovered) or has lasted so far (site.still_down)" }),
    flapping: z
      .object({
        outages: z.int().meta({ description: "Outages counted while it flapped (from the first in the window)" }),
        since: Timestamp.meta({ description: "When the first of them began" }),
        state: z.enum(["up", "down"]).meta({ description: "What it is now" }),
      })
      .nullable()
      .optional()
      .meta({ description: "On site.flapping and site.flapping_ended: the outages so far, and the state it holds" }),
    expiry: z
      .object({ expiresAt: Timestamp, daysLeft: z.int() })
      .nullable()
      .meta({ description: "On certificate.* and domain.*: when it expires (a renewal: the new date), days left" }),
  })
  .meta({ id: "AlertEvent" });
export type AlertEvent = z.infer<typeof AlertEvent>;

/** A delivery's outcome: what the receiver answered, or why nothing was delivered. */
export const DeliveryResult = z
  .object({
    ok: z.boolean(),
    statusCode: z.int().nullable().meta({ description: "The receiver's HTTP status; null for e-mail or no answer" }),
    error: z.string().nullable(),
    responseTimeMs: z.number(),
    response: z.string().meta({ description: "The start of the receiver's answer (at most 1,000 characters)" }),
  })
  .meta({ id: "AlertDeliveryResult" });
export type DeliveryResult = z.infer<typeof DeliveryResult>;

/** Which events a rule sends. */
export const AlertRuleEvents = z
  .strictObject({
    down: z.boolean().default(true).meta({
      description:
        "A site confirmed down (site.down, after the rule's confirmations), still down (repeats), and its flapping (site.flapping, site.flapping_ended)",
    }),
    recovered: z.boolean().default(true).meta({ description: "A down site back up, with the outage's length" }),
    degraded: z
      .boolean()
      .default(false)
      .meta({ description: "A healthy site turning degraded (slow, or a condition)" }),
    certificate: z.boolean().default(true).meta({
      description: "Its certificate nears expiry (on the reminder days and level changes), and once when renewed",
    }),
    domain: z.boolean().default(true).meta({
      description:
        "Its domain's registration nears expiry (on the reminder days and level changes), and once when renewed",
    }),
    performance: z.boolean().default(true).meta({
      description:
        "Chronic performance: its share of slow or failed checks over 24 hours reaches the condition's warning or critical level (once per level reached)",
    }),
  })
  .meta({ id: "AlertRuleEvents" });

/** When a site counts as flapping, and when it has calmed down. */
export const FlappingRule = z
  .strictObject({
    outages: z.int().min(2).max(20).default(3).meta({ description: "Outages (2 to 20) within the window" }),
    windowMinutes: z.int().min(5).max(1440).default(30).meta({ description: "The window, 5 to 1,440 minutes" }),
    quietMinutes: z.int().min(5).max(1440).default(30).meta({
      description: "Minutes (5 to 1,440) the site must hold one state, up or down, before the flapping ends",
    }),
  })
  .meta({ id: "AlertFlappingRule" });
export type FlappingRule = z.infer<typeof FlappingRule>;

/** A workspace's default rule, or a site's own in its place. */
export const AlertRule = z
  .strictObject({
    channels: z
      .union([z.literal("all"), z.array(ChannelId).max(50)])
      .default("all")
      .meta({ description: '"all": every enabled channel of the workspace; or these channels (their ids)' }),
    events: AlertRuleEvents.prefault({}),
    repeatMinutes: z.int().min(5).max(10_080).nullable().default(null).meta({
      description:
        "Tell again, every this many minutes (5 to 10,080), that a site is still down (site.still_down, with the down event's channels); null: once per outage",
    }),
    confirmations: z.int().min(2).max(20).default(2).meta({
      description:
        "Failed checks in a row (in a region where it is down) before site.down is sent, 2 to 20; a site back before that sends neither site.down nor site.recovered. Its state and incidents do not wait.",
    }),
    cooldownMinutes: z.int().min(0).max(1440).default(15).meta({
      description:
        "A site down again within this many minutes (0 to 1,440) after its automatic incident resolved re-opens that incident instead of opening a new one; 0: never re-open",
    }),
    flapping: FlappingRule.nullable().prefault({}).meta({
      description:
        "At the outages-th outage within windowMinutes, one site.flapping alert, then no down, recovered or still-down alerts until the site holds one state for quietMinutes, then one site.flapping_ended; null: off",
    }),
  })
  .meta({ id: "AlertRule" });
export type AlertRule = z.infer<typeof AlertRule>;

/** The default when a workspace has set none: every enabled channel hears a site go down and come back. */
export const DEFAULT_ALERT_RULE: AlertRule = AlertRule.parse({});

export const SiteAlertRule = AlertRule.extend({
  inherited: z.boolean().meta({ description: "true: the site has no rule of its own and follows the workspace's" }),
}).meta({ id: "SiteAlertRule" });
export type SiteAlertRule = z.infer<typeof SiteAlertRule>;

/** One delivery of an event to a channel, as the delivery log shows it. */
export const Delivery = z
  .object({
    id: z.int(),
    eventId: z.string().meta({ description: "The event's id, shared by its deliveries to every channel" }),
    deliveryId: z.string().meta({ description: "This delivery's id (X-Porchlight-Delivery-Id)" }),
    type: z.string(),
    channelId: ChannelId,
    siteId: z.string(),
    state: z.enum(["pending", "delivered", "failed"]).meta({
      description: "pending: not yet delivered (tried again at nextAttemptAt); delivered; failed: given up",
    }),
    createdAt: Timestamp,
    nextAttemptAt: Timestamp.nullable(),
    finishedAt: Timestamp.nullable(),
    lastStatus: z.int().nullable(),
    lastError: z.string().nullable(),
    summary: z.string(),
  })
  .meta({ id: "AlertDelivery" });
export type Delivery = z.infer<typeof Delivery>;

/** An attempt of a delivery. */
export const DeliveryAttempt = z
  .object({
    at: Timestamp,
    ok: z.boolean(),
    statusCode: z.int().nullable(),
    error: z.string().nullable(),
    responseTimeMs: z.int(),
    response: z.string(),
  })
  .meta({ id: "AlertDeliveryAttempt" });
export type DeliveryAttempt = z.infer<typeof DeliveryAttempt>;

/** A delivery with its attempts, oldest first. */
export const DeliveryWithAttempts = Delivery.extend({ attempts: z.array(DeliveryAttempt) }).meta({
  id: "AlertDeliveryWithAttempts",
});
export type DeliveryWithAttempts = z.infer<typeof DeliveryWithAttempts>;

/** A channel's or a site's delivery log, newest first. */
export const DeliveryLog = z.object({ deliveries: z.array(DeliveryWithAttempts) });
export type DeliveryLog = z.infer<typeof DeliveryLog>;

/** The workspace's channels (GET /alert-channels). */
export const ChannelList = z.object({ channels: z.array(Channel) });
export type ChannelList = z.infer<typeof ChannelList>;

/** A test event sent through a channel, and what its receiver answered. */
export const ChannelTestResult = z.object({
  event: z.object({ id: z.string(), type: z.string() }),
  delivery: DeliveryResult,
});
export type ChannelTestResult = z.infer<typeof ChannelTestResult>;

/** A duration in words: "45 s", "1 min 30 s", "12 min", "3 h 5 min", "2 d 4 h"; seconds only under 10 minutes. */
export function duration(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10 && seconds % 60 !== 0) return `${minutes} min ${seconds % 60} s`;
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours} h ${minutes % 60} min`;
  return `${Math.floor(hours / 24)} d ${hours % 24} h`;
}
