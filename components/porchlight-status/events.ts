/**
 * The element's events: their names and details. The controller fires them on the element; they bubble and are
 * composed, so they leave the shadow root.
 */
import type { OverallStatus } from "../../server/contract/status.ts";
import type { PublicStatusPage } from "../../server/contract/status-page.ts";
import type { Problem } from "./client.ts";

/** The `detail` of `porchlight-load`: a page arrived or changed. */
export interface LoadDetail {
  slug: string;
  status: OverallStatus;
  /** The API's answer for the page: its items and incidents included. */
  page: PublicStatusPage;
}
/** The `detail` of `porchlight-error`: a request failed or the page needs a password. */
export interface ErrorDetail {
  slug: string;
  /** The API's error kind, `server` for another failed answer, or `network` when no answer came. */
  problem: Problem | "network";
  /** The HTTP status, or 0 when the network failed. */
  httpStatus: number;
  message: string;
}
/** The `detail` of `porchlight-status-change`: a refresh changed the overall status. */
export interface StatusChangeDetail {
  slug: string;
  status: OverallStatus;
  previous: OverallStatus;
}

/** The element's events, typed for `addEventListener` on any element (they bubble and are composed). */
declare global {
  interface HTMLElementEventMap {
    "porchlight-load": CustomEvent<LoadDetail>;
    "porchlight-error": CustomEvent<ErrorDetail>;
    "porchlight-status-change": CustomEvent<StatusChangeDetail>;
  }
}
