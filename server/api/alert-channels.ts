/**
 * A workspace's alert channels: created, read (masked), changed, deleted, and tried with a test event. A channel's
 * settings are sealed at rest (server/accounts/sealed.ts), and no answer or log holds a credential whole.
 */
import { randomBytes } from "node:crypto";
import { isIP } from "node:net";
import { z } from "zod";
import type { SecretBox } from "../accounts/sealed.ts";
import { type DeliveryDeps, deliver } from "../alerts/deliver.ts";
import type { ProviderContext } from "../alerts/outbound.ts";
import { PROVIDERS } from "../alerts/providers/index.ts";
import type { Clock } from "../clock.ts";
import {
  type AlertEvent,
  CHANNEL_CONFIGS,
  Channel,
  type ChannelConfig,
  ChannelCreate,
  ChannelCreated,
  ChannelId,
  ChannelList,
  ChannelPatch,
  ChannelTestResult,
  type ChannelType,
} from "../contract/alerts.ts";
import { Envelope, envelope } from "../contract/common.ts";
import { badRequest, conflict, notFound } from "../http/errors.ts";
import { fieldDetails, route } from "../http/route.ts";
import { addressRefusal } from "../net/address-policy.ts";
import { type ChannelChange, channelView } from "../store/alerts.ts";
import type { Store } from "../store/store.ts";

export interface AlertChannelDeps {
  store: Store;
  clock: Clock;
  secrets: SecretBox;
  delivery: DeliveryDeps;
  providers: ProviderContext;
}

const ChannelParams = z.object({ channelId: ChannelId });

/** A channel's settings, opened; 409 when this process's key is not the one they were sealed with. */
function configOf(row: { config: string }, secrets: SecretBox): ChannelConfig[ChannelType] {
  try {
    return JSON.parse(secrets.open(row.config)) as ChannelConfig[ChannelType];
  } catch {
    throw conflict(
      "config",
      "cannot be opened: this server's PORCHLIGHT_SECRET_KEY is not the one the channel was saved with; set the same key on every process, or save the channel's settings again",
    );
  }
}

/** A provider's answer for its own type (the registry pairs them; TypeScript cannot see through the index). */
const providerOf = (type: ChannelType) => PROVIDERS[type] as (typeof PROVIDERS)["webhook"];

/**
 * A configured address whose host is an IP literal in a range the server may not post to: refused when it is set,
 * not only when it is first used (a host name is judged where the socket connects, at every delivery).
 */
function privateTarget(config: Record<string, unknown>, allowPrivate: boolean): string | null {
  if (allowPrivate || typeof config.url !== "string") return null;
  const host = new URL(config.url).hostname.replace(/^\[|\]$/g, "");
  if (!isIP(host)) return null;
  const reason = addressRefusal(host, { allowPrivate: false });
  return (
    reason &&
    `Enter a public address: this one is ${reason} (the operator allows those with PORCHLIGHT_ALLOW_PRIVATE_TARGETS).`
  );
}

/** A type's settings checked as on creation: 400 naming config.<field>. */
function parseConfig(type: ChannelType, value: unknown, allowPrivate: boolean): ChannelConfig[ChannelType] {
  const parsed = CHANNEL_CONFIGS[type].safeParse(value);
  if (!parsed.success) {
    const details = fieldDetails(parsed.error, "config");
    throw badRequest(`Invalid body: ${details.map((d) => `${d.field} ${d.message}`).join("; ")}`, details);
  }
  const refusal = privateTarget(parsed.data as Record<string, unknown>, allowPrivate);
  if (refusal) throw badRequest(`Invalid body: config.url ${refusal}`, [{ field: "config.url", message: refusal }]);
  return parsed.data;
}

/** A signing secret the server makes: 24 random bytes, hex, after a prefix that says what it is. */
const newSigningSecret = () => `whsec_${randomBytes(24).toString("hex")}`;

/** The event a test sends: an example site, this channel's name. */
function testEvent(channel: { name: string }, now: Date): AlertEvent {
  return {
    version: 1,
    id: `test_${randomBytes(12).toString("hex")}`,
    deliveryId: `test_${randomBytes(12).toString("hex")}`,
    type: "test",
    occurredAt: now.toISOString(),
    site: { id: "example", name: "Example site", url: "https://example.com" },
    summary: `Test alert from Porchlight: the channel "${channel.name}" works.`,
    reason: null,
    downtimeSeconds: null,
    expiry: null,
  };
}

export function alertChannelRoutes({ store, clock, secrets, delivery, providers }: AlertChannelDeps) {
  const load = async (workspaceId: string, id: string) => {
    const row = await store.alerts.channel(workspaceId, id);
    if (!row) throw notFound("Alert channel");
    return row;
  };
  /** Why a conditional write changed nothing: the channel was deleted (404) or written meanwhile (409). */
  const changedOrGone = async (workspaceId: string, id: string) =>
    (await store.alerts.channel(workspaceId, id))
      ? conflict("updatedAt", "The channel changed meanwhile: load it again, then make your change.")
      : notFound("Alert channel");
  return [
    route({
      method: "get",
      path: "/public/v1/alert-channels",
      operationId: "listAlertChannels",
      summary: "List the workspace's alert channels, oldest first",
      tag: "Alert channels",
      access: "token",
      permission: "alerts:read",
      response: {
        status: 200,
        description: "The channels, masked",
        schema: Envelope(ChannelList),
      },
      errors: [401, 403],
      async handler({ principal: p }) {
        const rows = await store.alerts.listChannels(p.workspaceId);
        return envelope(200, "Alert channels", { channels: rows.map(channelView) });
      },
    }),
    route({
      method: "post",
      path: "/public/v1/alert-channels",
      operationId: "createAlertChannel",
      summary: "Create an alert channel",
      description:
        "config depends on type. A webhook's signing secret is the one given, else one the server makes; either way this answer is the only one that shows it. An address whose host is a private, loopback or link-local IP is refused unless the operator allows private targets.",
      tag: "Alert channels",
      access: "token",
      permission: "alerts:write",
      body: ChannelCreate,
      response: { status: 201, description: "The channel, and a webhook's secret", schema: Envelope(ChannelCreated) },
      errors: [400, 401, 403, 413, 415],
      async handler({ body, principal: p }) {
        const config = parseConfig(body.type, body.config, delivery.allowPrivate);
        let secret: string | undefined;
        if (body.type === "webhook") {
          const hook = config as ChannelConfig["webhook"];
          hook.secret ??= newSigningSecret();
          secret = hook.secret;
        }
        const now = clock.now().toISOString();
        const row = await store.alerts.insertChannel({
          id: `ch_${randomBytes(12).toString("hex")}`,
          workspace_id: p.workspaceId,
          name: body.name,
          type: body.type,
          config: secrets.seal(JSON.stringify(config)),
          target: providerOf(body.type).target(config as ChannelConfig["webhook"]),
          enabled: body.enabled ? 1 : 0,
          created_at: now,
          updated_at: now,
        });
        return envelope(201, "Alert channel created", { ...channelView(row), ...(secret ? { secret } : {}) });
      },
    }),
    route({
      method: "get",
      path: "/public/v1/alert-channels/{channelId}",
      operationId: "getAlertChannel",
      summary: "An alert channel, masked",
      tag: "Alert channels",
      access: "token",
      permission: "alerts:read",
      params: ChannelParams,
      response: { status: 200, description: "The channel", schema: Envelope(Channel) },
      errors: [401, 403, 404],
      async handler({ params, principal: p }) {
        return envelope(200, "Alert channel", channelView(await load(p.workspaceId, params.channelId)));
      },
    }),
    route({
      method: "patch",
      path: "/public/v1/alert-channels/{channelId}",
      operationId: "updateAlertChannel",
      summary: "Rename, turn on or off, or replace an alert channel's settings",
      description:
        "config replaces the settings whole, checked as on creation; a webhook keeps its signing secret unless config gives a new one.",
      tag: "Alert channels",
      access: "token",
      permission: "alerts:write",
      params: ChannelParams,
      body: ChannelPatch,
      response: { status: 200, description: "The channel", schema: Envelope(Channel) },
      errors: [400, 401, 403, 404, 409, 413, 415],
      async handler({ params, body, principal: p }) {
        const row = await load(p.workspaceId, params.channelId);
        const type = row.type as ChannelType;
        const changes: ChannelChange = { updatedAt: clock.now().toISOString(), name: body.name, enabled: body.enabled };
        if (body.config !== undefined) {
          const config = parseConfig(type, body.config, delivery.allowPrivate);
          if (type === "webhook") {
            const hook = config as ChannelConfig["webhook"];
            hook.secret ??= (configOf(row, secrets) as ChannelConfig["webhook"]).secret;
          }
          changes.sealedConfig = secrets.seal(JSON.stringify(config));
          changes.target = providerOf(type).target(config as ChannelConfig["webhook"]);
        }
        // The config is read, changed and sealed whole: written only if nobody wrote it meanwhile.
        const updated = await store.alerts.updateChannel(p.workspaceId, params.channelId, changes, row.updated_at);
        if (!updated) throw await changedOrGone(p.workspaceId, params.channelId);
        return envelope(200, "Alert channel updated", channelView(updated));
      },
    }),
    route({
      method: "post",
      path: "/public/v1/alert-channels/{channelId}/rotate-secret",
      operationId: "rotateAlertChannelSecret",
      summary: "Give a webhook channel a new signing secret, answered once",
      description:
        "The server makes a new signing secret and answers it, in this answer only, as the creating answer does. Every delivery signed from now on uses it, retries of earlier events included; the old secret signs nothing more. 400 for a channel that is not a webhook.",
      tag: "Alert channels",
      access: "token",
      permission: "alerts:write",
      params: ChannelParams,
      response: { status: 200, description: "The channel, and its new secret", schema: Envelope(ChannelCreated) },
      errors: [400, 401, 403, 404, 409],
      async handler({ params, principal: p }) {
        const row = await load(p.workspaceId, params.channelId);
        if (row.type !== "webhook") {
          throw badRequest("Only a webhook channel has a signing secret.", [
            { field: "type", message: "Only a webhook channel has a signing secret to rotate." },
          ]);
        }
        const config = { ...(configOf(row, secrets) as ChannelConfig["webhook"]), secret: newSigningSecret() };
        const updated = await store.alerts.updateChannel(
          p.workspaceId,
          params.channelId,
          { sealedConfig: secrets.seal(JSON.stringify(config)), updatedAt: clock.now().toISOString() },
          row.updated_at,
        );
        // A secret shown must be the one that signs: never one an edit meanwhile overwrote.
        if (!updated) throw await changedOrGone(p.workspaceId, params.channelId);
        return envelope(200, "Signing secret rotated", { ...channelView(updated), secret: config.secret });
      },
    }),
    route({
      method: "delete",
      path: "/public/v1/alert-channels/{channelId}",
      operationId: "deleteAlertChannel",
      summary: "Delete an alert channel",
      tag: "Alert channels",
      access: "token",
      permission: "alerts:write",
      params: ChannelParams,
      response: { status: 200, description: "Deleted", schema: Envelope(z.object({ id: ChannelId })) },
      errors: [401, 403, 404],
      async handler({ params, principal: p }) {
        if (!(await store.alerts.deleteChannel(p.workspaceId, params.channelId))) throw notFound("Alert channel");
        return envelope(200, "Alert channel deleted", { id: params.channelId });
      },
    }),
    route({
      method: "post",
      path: "/public/v1/alert-channels/{channelId}/test",
      operationId: "testAlertChannel",
      summary: "Send a test event through an alert channel and answer what the receiver said",
      description:
        "Sends an event of type test (an example site) now, enabled or not, and answers the outcome: ok, the receiver's HTTP status and the start of its answer, or why nothing was delivered. The request itself succeeds (200) either way.",
      tag: "Alert channels",
      access: "token",
      permission: "alerts:write",
      params: ChannelParams,
      response: {
        status: 200,
        description: "The test event and its delivery",
        schema: Envelope(ChannelTestResult),
      },
      errors: [401, 403, 404, 409],
      async handler({ params, principal: p }) {
        const row = await load(p.workspaceId, params.channelId);
        const event = testEvent(row, clock.now());
        const outbound = providerOf(row.type as ChannelType).format(
          event,
          configOf(row, secrets) as ChannelConfig["webhook"],
          providers,
          clock.now().getTime(),
        );
        const result = await deliver(outbound, delivery);
        return envelope(200, result.ok ? "Delivered" : "Not delivered", {
          event: { id: event.id, type: event.type },
          delivery: result,
        });
      },
    }),
  ];
}
