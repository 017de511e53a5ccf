/**
 * The script of the hosted and prerendered status pages: Lit's hydration support first (it must load before Lit),
 * then <porchlight-status> as PorchlightPage, which takes over the server-rendered markup instead of drawing anew.
 */
import "@lit-labs/ssr-client/lit-element-hydrate-support.js";
import { PorchlightPage } from "./porchlight-page.ts";

if (!customElements.get("porchlight-status")) customElements.define("porchlight-status", PorchlightPage);
