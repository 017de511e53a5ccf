/**
 * The script of the hosted and prerendered status pages: Lit's hydration support first (it must load before Lit),
 * then <porchlight-status> as PorchlightPage, which takes over the server-rendered markup instead of drawing anew.
 */
import "@lit-labs/ssr-client/lit-element-hydrate-support.js";
import { PorchlightPage } from "./porchlight-page.ts";

// A document's first use of Intl loads its locale data (15-25 ms in Chromium), and hydrating needs it: loaded in this
// task, and the element defined (which hydrates it) in the next, so that neither is one long task with the other.
new Intl.DateTimeFormat().format();
setTimeout(() => customElements.get("porchlight-status") || customElements.define("porchlight-status", PorchlightPage));
