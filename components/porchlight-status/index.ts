/**
 * The embed script: defines <porchlight-status> unless that name is taken (by an earlier copy or another version),
 * so loading it twice breaks nothing. Owners who want another name import the class and define it themselves.
 */
import { PorchlightStatus } from "./porchlight-status.ts";

if (!customElements.get("porchlight-status")) customElements.define("porchlight-status", PorchlightStatus);
// A document's first use of Intl loads its locale data (15-25 ms in Chromium): here in a task of its own, while the
// page is on its way, rather than in the task that renders it.
setTimeout(Intl.DateTimeFormat);

declare global {
  interface HTMLElementTagNameMap {
    "porchlight-status": PorchlightStatus;
  }
}

export { type OverallStatus, overallStatus } from "../../server/contract/status.ts";
export { MESSAGES } from "./messages.ts";
export type { ErrorDetail, LoadDetail, StatusChangeDetail } from "./porchlight-status.ts";
export { PorchlightStatus } from "./porchlight-status.ts";
