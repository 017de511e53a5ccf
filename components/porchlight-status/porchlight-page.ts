import type { PublicStatusPage } from "../../server/contract/status-page.ts";
import type { Problem } from "./client.ts";
import { PorchlightStatus } from "./porchlight-status.ts";

/** What a prerendered page hands its element: the API's answer for the page (a page, or an error's kind). */
export type PageData = PublicStatusPage | { error: Problem };

/**
 * <porchlight-status> as the hosted and prerendered pages use it: the page comes with the element, so the server
 * renders the page itself and the browser takes that markup over (hydration) without a request, a flash or a
 * shift, then refreshes live from the API like any embed. On the server the renderer sets `data` (the API's answer)
 * and `data-time` (when it was read, epoch ms); in the browser `data` comes from the element's JSON script child.
 * A protected page's answer is only its error kind (`password_required`, `sign_in_required`): it renders the prompt.
 */
export class PorchlightPage extends PorchlightStatus {
  static override properties = {
    ...PorchlightStatus.properties,
    data: { attribute: false },
    dataTime: { type: Number, attribute: "data-time" },
  };

  declare data: PageData | undefined;
  declare dataTime: number;

  override connectedCallback(): void {
    const script = this.querySelector('script[type="application/json"]');
    if (script && !this.data) this.data = JSON.parse(script.textContent ?? "") as PageData;
    super.connectedCallback();
  }

  protected override willUpdate(changed: Map<PropertyKey, unknown>): void {
    super.willUpdate(changed);
    const data = this.data;
    if (this.hasUpdated || !data) return;
    const at = this.dataTime || Date.now();
    if ("items" in data) this.prerendered(data, undefined, at);
    else this.prerendered(undefined, data.error, at);
  }
}
