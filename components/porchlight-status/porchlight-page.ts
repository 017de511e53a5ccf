import { isServer } from "lit";
import type { PublicStatusPage } from "../../server/contract/status-page.ts";
import type { Problem } from "./client.ts";
import { ENGLISH, MESSAGES } from "./messages.ts";
import { PorchlightStatus } from "./porchlight-status.ts";

/** The default favicon's colour by overall status: the banner's, as its light theme draws it. */
const ICON_COLOURS: Record<string, string> = {
  operational: "1a7f37",
  degraded: "9a6700",
  partial: "bc4c00",
  major: "c4232d",
  maintenance: "0b57d0",
};

/**
 * A page's favicon when its owner gave none: a disc in the colour of its overall status (grey when unknown or
 * protected), so a tab tells the status too. A data: address, so it costs no request.
 */
export const statusIcon = (status: string) =>
  `data:image/svg+xml,<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'><circle cx='8' cy='8' r='7' fill='%23${ICON_COLOURS[status] ?? "59636e"}'/></svg>`;

/** What a prerendered page hands its element: the API's answer for the page (a page, or an error's kind). */
export type PageData = PublicStatusPage | PromptData;

/**
 * A protected page's data: the kind of prompt, and what the prompt may show without the password (the page's name
 * and logo are not secret; its items and incidents are, and are never here).
 */
export interface PromptData {
  error: Problem;
  name?: string;
  logo?: string | null;
  accentColor?: string;
}

/**
 * <porchlight-status> as the hosted and prerendered pages use it: the page comes with the element, so the server
 * renders the page itself and the browser takes that markup over (hydration) without a request, a flash or a
 * shift, then refreshes live from the API like any embed. On the server the renderer sets `data` (the API's answer)
 * and `data-time` (when it was read, epoch ms); in the browser `data` comes from the element's JSON script child.
 * A hosted page is rendered with the API's current answer and its ETag (`data-etag`): the element takes them as just
 * fetched and asks again only at its refresh interval (If-None-Match: a 304 while nothing shown changed), where a
 * static build's page, whose data may be days old, asks at once.
 * A protected page's answer is only its error kind (`password_required`, `sign_in_required`): it renders the prompt.
 * The server knows neither the visitor's time zone nor when the page will be read: it renders every time in UTC,
 * named so, and nothing relative to now (see `serverTime`). The browser's first render takes that markup over as
 * it is (hydration compares nothing), so it renders the same; the next, in the next task, shows the visitor's zone
 * and the relative times.
 */
export class PorchlightPage extends PorchlightStatus {
  static override properties = {
    ...PorchlightStatus.properties,
    data: { attribute: false },
    dataTime: { type: Number, attribute: "data-time" },
    dataEtag: { attribute: "data-etag" },
    frame: { type: Boolean, attribute: "data-frame" },
  };

  declare data: PageData | undefined;
  declare dataTime: number;
  /** The API's ETag for `data`, when it is the API's current answer (a hosted page's, not a static build's). */
  declare dataEtag: string | null | undefined;
  /**
   * In an iframe (`?embed=1`): like an embed, it leads with what is wrong (the operational services folded while
   * another is at fault), so a frame of the usual height shows the fault without scrolling.
   */
  declare frame: boolean;

  protected override embedded = false;

  /** Server-rendered markup (declarative shadow DOM) was here before the element took it over. */
  #hydrating = false;

  constructor() {
    super();
    // The tab's status disc (the default favicon, data-status) follows the page: the server drew the status it had.
    this.addEventListener("porchlight-load", (event) => {
      const icon = document.querySelector<HTMLLinkElement>("link[rel=icon][data-status]");
      if (icon) icon.href = statusIcon(event.detail.status);
    });
  }

  override connectedCallback(): void {
    this.#hydrating ||= !this.hasUpdated && !!this.shadowRoot;
    const script = this.querySelector(':scope > script[type="application/json"]:not([data-words])');
    if (script && !this.data) this.data = JSON.parse(script.textContent ?? "") as PageData;
    // The page's words, when not English, come with it (data-words names their language): it hydrates in them
    // without a fetch.
    const words = this.querySelector<HTMLElement>(":scope > script[data-words]");
    const lang = words?.dataset.words;
    if (lang && !MESSAGES[lang]) MESSAGES[lang] = { ...ENGLISH, ...JSON.parse(words?.textContent ?? "") };
    super.connectedCallback();
  }

  protected override willUpdate(changed: Map<PropertyKey, unknown>): void {
    super.willUpdate(changed);
    this.embedded = !!this.frame;
    const data = this.data;
    if (this.hasUpdated || !data) return;
    const at = this.dataTime || Date.now();
    if (isServer || this.#hydrating) this.serverTime = at;
    if ("items" in data) this.prerendered(data, undefined, at, this.dataEtag ?? undefined);
    else {
      this.promptName = data.name;
      this.promptAccent = data.accentColor;
      this.promptLogo = data.logo;
      this.prerendered(undefined, data.error, at);
    }
  }

  protected override updated(): void {
    super.updated();
    if (this.serverTime === undefined) return;
    // Hydrated: now in the visitor's time zone, relative times and open incidents' durations included.
    this.serverTime = undefined;
    this.#hydrating = false;
    // In a task of its own: hydrating and this render (the visitor's formats, every time's text) are not one long task.
    setTimeout(() => this.requestUpdate());
  }
}
