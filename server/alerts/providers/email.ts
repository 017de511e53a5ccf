import { escapeHtml } from "../../html.ts";
import { LOOK, type Provider, plainText } from "../outbound.ts";

/** Masks an address to its first character and domain: o…@example.com. */
const maskAddress = (address: string) => `${address.slice(0, 1)}…${address.slice(address.lastIndexOf("@"))}`;

/** E-mail through the server's mail transport (SMTP_URL, or .eml files): text and HTML from our own template. */
export const email: Provider<"email"> = {
  target: (config) => config.to.map(maskAddress).join(", "),
  format(event, config) {
    const look = LOOK[event.type];
    const text = plainText(event);
    const lines = text
      .split("\n")
      .map((line, i) =>
        i === 0
          ? `<h1 style="font-size:18px;color:${look.colour}">${escapeHtml(line)}</h1>`
          : `<p>${escapeHtml(line)}</p>`,
      )
      .join("");
    return {
      kind: "email",
      to: config.to,
      subject: `${look.mark} ${event.summary}`,
      text,
      html: `<!doctype html><html><body style="font-family:system-ui,sans-serif;color:#1f2328">${lines}</body></html>`,
      headers: { "X-Porchlight-Event-Id": event.id, "X-Porchlight-Delivery-Id": event.deliveryId ?? event.id },
    };
  },
};
