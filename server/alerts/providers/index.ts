import type { ChannelType } from "../../contract/alerts.ts";
import type { Provider } from "../outbound.ts";
import { discord } from "./discord.ts";
import { email } from "./email.ts";
import { ntfy } from "./ntfy.ts";
import { pagerduty } from "./pagerduty.ts";
import { slack } from "./slack.ts";
import { teams } from "./teams.ts";
import { telegram } from "./telegram.ts";
import { webhook } from "./webhook.ts";

/** Every channel type's provider. */
export const PROVIDERS: { [T in ChannelType]: Provider<T> } = {
  email,
  webhook,
  slack,
  discord,
  teams,
  telegram,
  ntfy,
  pagerduty,
};
