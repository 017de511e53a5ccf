import { LOOK, type Provider, plainText, postJson } from "../outbound.ts";

/** A Telegram bot's sendMessage (Bot API): plain text, no preview. The token is in the address, as the API wants. */
export const telegram: Provider<"telegram"> = {
  target: (config) => `Telegram chat ${config.chatId}`,
  format(event, config, { apis }) {
    return postJson(`${apis.telegram}/bot${config.botToken}/sendMessage`, {
      chat_id: config.chatId,
      text: `${LOOK[event.type].mark} ${plainText(event)}`.slice(0, 4096),
      disable_web_page_preview: true,
    });
  },
};
