import { LOOK, maskUrl, type Provider, plainText, postJson } from "../outbound.ts";

const PRIORITY = {
  "site.down": 5,
  "site.still_down": 5,
  "site.degraded": 4,
  "site.recovered": 3,
  "certificate.expiring": 4,
  "certificate.renewed": 3,
  "domain.expiring": 4,
  "domain.renewed": 3,
  "performance.chronic": 4,
  "site.flapping": 4,
  "site.flapping_ended": 4,
  test: 3,
} as const;

/**
 * ntfy: published as JSON to the server's root with the topic named in the body (so any title or site name is
 * fine, which headers would not carry), a token as Authorization when the topic is protected.
 */
export const ntfy: Provider<"ntfy"> = {
  target: (config) => maskUrl(config.url),
  format(event, config) {
    const url = new URL(config.url);
    const topic = url.pathname.split("/").filter(Boolean).at(-1) ?? "";
    const root = `${url.origin}${url.pathname.slice(0, url.pathname.lastIndexOf(topic)) || "/"}${url.search}`;
    return postJson(
      root,
      {
        topic,
        title: `${LOOK[event.type].word}: ${event.site.name}`,
        message: plainText(event),
        priority: PRIORITY[event.type],
        tags: [
          event.type === "site.down" ? "rotating_light" : event.type === "site.recovered" ? "white_check_mark" : "bell",
        ],
        // A click only opens what a browser can: a tcp://, dns:// or push:// address is left out.
        ...(/^https?:/.test(event.site.url) ? { click: event.site.url } : {}),
      },
      config.token ? { authorization: `Bearer ${config.token}` } : {},
    );
  },
};
