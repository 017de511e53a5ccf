import { html, nothing, type TemplateResult } from "lit";

/**
 * A webhook's signing secret, shown once (at creation or rotation: no later answer carries it), with a copy button
 * and how a receiver checks a delivery with it (server/alerts/providers/webhook.ts signs this way).
 */
export function secretPanel(
  secret: string,
  options: { rotated: boolean; copied: boolean; onCopy: () => void; onDone: () => void },
): TemplateResult {
  return html`<section class="secret" aria-labelledby="secret-title">
    <h3 id="secret-title">${options.rotated ? "The new signing secret" : "The signing secret"}</h3>
    <p><strong>Copy it now: it is not shown again.</strong>
      ${options.rotated ? "Deliveries are signed with it from now on, retries included; the old secret signs nothing more." : nothing}</p>
    <pre class="secret-value">${secret}</pre>
    <div class="row">
      <button type="button" class="primary" @click=${options.onCopy}>Copy the secret</button>
      <span role="status">${options.copied ? "Copied." : ""}</span>
    </div>
    <details>
      <summary>How a receiver checks a delivery</summary>
      <p>Each delivery carries <code>X-Porchlight-Timestamp</code> (Unix seconds) and <code>X-Porchlight-Signature</code>:
        <code>v1=</code> and the hex HMAC-SHA256, keyed with this secret, of the timestamp, a dot and the body exactly
        as received. Compute the same, compare in constant time, and refuse a timestamp more than 5 minutes old (a replay).</p>
      <pre>const expected = "v1=" + createHmac("sha256", secret)
  .update(\`\${req.headers["x-porchlight-timestamp"]}.\${rawBody}\`).digest("hex");
const ok = timingSafeEqual(Buffer.from(expected), Buffer.from(req.headers["x-porchlight-signature"]));</pre>
    </details>
    <button type="button" class="link" @click=${options.onDone}>I have stored it</button>
  </section>`;
}
