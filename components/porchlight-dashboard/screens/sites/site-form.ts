import { Task } from "@lit/task";
import { css, html, LitElement, nothing, type TemplateResult } from "lit";
import { keyed } from "lit/directives/keyed.js";
import { repeat } from "lit/directives/repeat.js";
import type { z } from "zod";
import type {
  DNS_RECORD_TYPES,
  HTTP_REQUEST_LIMITS,
  HttpAssertions,
  HttpRequestInput,
  PUSH_GRACE,
} from "../../../../server/contract/monitor.ts";
import type {
  CHECK_INTERVAL,
  HTTP_METHODS,
  SiteCreated,
  SiteDetail,
  SitePatch,
  SiteTagList,
  SLOW_THRESHOLD_MS,
  TAGS,
  TargetCheckResult,
  TIMEOUT,
} from "../../../../server/contract/site.ts";
import { allSites, api } from "../../lib/api.ts";
import { FormController, limitHint } from "../../lib/form.ts";
import { shared } from "../../lib/styles.ts";
import type { Site } from "../../lib/types.ts";
import {
  addTags,
  formatCodes,
  formatExpected,
  type Kind,
  kindOf,
  monitorUrl,
  parseCodes,
  parseExpected,
  sameAddress,
  splitLines,
  splitTags,
  typedAddress,
} from "./list.ts";

// The contract's limits, as values here (the dashboard takes only types from the contract, so no server code reaches
// the bundle); typed by the contract's own constants, so a changed limit fails the typecheck until this follows.
const INTERVAL: typeof CHECK_INTERVAL = { min: 30, max: 86_400, default: 300 };
const TIMEOUT_S: typeof TIMEOUT = { min: 1, max: 120, default: 30 };
const SLOW_MS: typeof SLOW_THRESHOLD_MS = { min: 50, max: 120_000, default: 2000 };
const TAG_LIMIT: typeof TAGS = { max: 10, maxLength: 32 };
const METHODS: typeof HTTP_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];
const RECORD_TYPES: typeof DNS_RECORD_TYPES = ["A", "AAAA", "CNAME", "MX", "TXT", "NS", "SOA", "CAA"];
const GRACE: typeof PUSH_GRACE = { min: 0, max: 86_400, default: 60 };
const REQUEST_LIMITS: typeof HTTP_REQUEST_LIMITS = { body: 16_384, username: 256, password: 1024 };
/** The contract's `name` and `headers` limits (written inline there). */
const NAME_MAX = 100;
const HEADERS_MAX = 20;
/** The API's default success codes: every registered 2xx code (DEFAULT_SUCCESS_CODES). */
const DEFAULT_CODES = [200, 201, 202, 203, 204, 205, 206, 207, 208, 226];

/** The check intervals offered (spec 8's guidance: critical 30 s to 1 min, standard 1 to 5 min, stable 5 to 10). */
const INTERVALS: [number, string][] = [
  [30, "30 seconds"],
  [60, "1 minute"],
  [300, "5 minutes"],
  [600, "10 minutes"],
  [1800, "30 minutes"],
  [3600, "1 hour"],
  [86_400, "1 day"],
];

/**
 * Each kind of check as the form offers it: its name in the choice, what it does, and how its address box reads
 * (a push site has none: Porchlight gives it an address).
 */
const KINDS: Record<
  Kind,
  { name: string; does: string; address?: { label: string; placeholder: string; hint: string } }
> = {
  http: {
    name: "Website (HTTP or HTTPS)",
    does: "An HTTP request to a page or an API; up on an expected status code and the checks on the answer you add.",
    address: {
      label: "Address",
      placeholder: "https://example.com",
      hint: "The page or API endpoint to check, with http:// or https://.",
    },
  },
  tcp: {
    name: "TCP port",
    does: "A TCP connection to a port (mail, a database, SSH); up when it connects.",
    address: {
      label: "Host and port",
      placeholder: "mail.example.com:587",
      hint: "Host and port, such as mail.example.com:587.",
    },
  },
  tls: {
    name: "TLS port (certificate watched)",
    does: "A TCP connection and a TLS handshake; the certificate's expiry is watched as a website's is.",
    address: {
      label: "Host and port",
      placeholder: "mail.example.com:465",
      hint: "Host and port, such as mail.example.com:465 or imap.example.com:993.",
    },
  },
  dns: {
    name: "DNS record",
    does: "A DNS query; up when the answer holds the values you expect (any answer when you list none).",
    address: {
      label: "Name to look up",
      placeholder: "example.com",
      hint: "A domain name, such as example.com or _dmarc.example.com.",
    },
  },
  icmp: {
    name: "Ping (ICMP)",
    does: "A ping (ICMP echo); up when the host answers.",
    address: {
      label: "Host",
      placeholder: "server.example.com",
      hint: "A host name or an IP address, such as server.example.com or 192.0.2.7.",
    },
  },
  push: {
    name: "Push heartbeat",
    does: "Your job (a cron task, a backup) calls a secret address; down when it stops calling or reports a failure.",
  },
};

/** The kinds in the order the choice lists them. */
const KIND_ORDER: Kind[] = ["http", "tcp", "tls", "dns", "icmp", "push"];

/** How an HTTP check asks beyond its method and headers, named as the API's field paths. */
const REQUEST_FIELDS = [
  "request",
  "request.body",
  "request.followRedirects",
  "request.basicAuth",
  "request.basicAuth.username",
  "request.basicAuth.password",
];
/** The fields under "More settings" (HTTP). */
const MORE = ["method", "slowThresholdMs", "successCodes", "errorCodes", "headers", ...REQUEST_FIELDS];
/** The fields under "Checks on the answer" (HTTP), named as the API's field paths. */
const ASSERTION_FIELDS = [
  "assertions",
  "assertions.keyword.text",
  "assertions.keyword.absent",
  "assertions.keyword.caseSensitive",
  "assertions.json.path",
  "assertions.json.equals",
  "assertions.header.name",
  "assertions.header.contains",
];
const DNS_FIELDS = ["dns", "dns.recordType", "dns.resolver", "dns.expected", "dns.match"];
const PUSH_FIELDS = ["push", "push.graceSeconds"];

/** The inputs each kind shows, by name: a refusal about any other field is shown above the buttons. */
function fieldsOf(kind: Kind): string[] {
  const common = ["url", "name", "checkInterval", "tags"];
  if (kind === "push") return [...common, ...PUSH_FIELDS];
  const checked = [...common, "timeout", "slowThresholdMs"];
  if (kind === "http") return [...checked, ...MORE, ...ASSERTION_FIELDS];
  if (kind === "dns") return [...checked, ...DNS_FIELDS];
  return checked;
}

/**
 * The input an API field path belongs to: a kind's setting by its path ("assertions.json.path", "dns.expected.2" to
 * "dns.expected"), up to its section ("assertions") when no input has that path; any other field by its first part
 * ("headers.0.name" to "headers").
 */
export function inputOf(field: string): string {
  const parts = field.split(".").filter((p) => !/^\d+$/.test(p));
  if (!["assertions", "request", "dns", "push"].includes(parts[0] ?? "")) return parts[0] ?? field;
  const known = [...ASSERTION_FIELDS, ...REQUEST_FIELDS, ...DNS_FIELDS, ...PUSH_FIELDS];
  for (let n = parts.length; n > 1; n--) {
    const path = parts.slice(0, n).join(".");
    if (known.includes(path)) return path;
  }
  return parts[0] as string;
}

/** A header row as the form edits it; `key` keeps a row's inputs when another row above it is removed. */
interface HeaderRow {
  key: number;
  name: string;
  value: string;
}

/** A site as the API answers its creation: a push site's answer holds its secret address, this once. */
type Created = z.infer<typeof SiteCreated>;

/** A push site's secret address on screen, until the owner says it is stored. */
export type ShownPushUrl = { pushUrl: string; copied: boolean };

/** What the address check found: the server's answer for the address sent. */
type TargetAnswer = TargetCheckResult & { url: string };

/** The addresses the server's address policy is asked about: a target Porchlight connects to (not a DNS name). */
const CHECKABLE = /^(https?|tcp|tls|icmp):\/\/[^/?#\s]+/i;

const delay = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(signal.reason);
    });
  });

/** The form's text of a field, "" when absent. */
const textOf = (data: FormData, name: string) => String(data.get(name) ?? "");

/**
 * What the form sends as the request settings: an empty body is none; basic auth is off without a user name; an
 * empty password box on a site whose password is set keeps it (the API never sends it back to fill the box), unless
 * "Remove the stored password" is ticked, which stores an empty one and keeps the user name.
 */
export function requestOf(data: FormData, passwordSet: boolean): HttpRequestInput {
  const body = textOf(data, "request.body");
  const username = textOf(data, "request.basicAuth.username").trim();
  // Ticked, the box wins over anything typed in the password box: what it says is what happens.
  const remove = passwordSet && data.has("request.basicAuth.removePassword");
  const password = remove ? "" : textOf(data, "request.basicAuth.password");
  const keep = password === "" && passwordSet && !remove;
  return {
    body: body === "" ? null : body,
    followRedirects: data.has("request.followRedirects"),
    basicAuth: username === "" ? null : { username, ...(keep ? {} : { password }) },
  };
}

/** What the form sends as a JSON assertion, a header assertion: null when the owner typed nothing in its boxes. */
function assertionsOf(data: FormData): HttpAssertions {
  const keyword = textOf(data, "assertions.keyword.text");
  const path = textOf(data, "assertions.json.path").trim();
  const equals = parseExpected(textOf(data, "assertions.json.equals"));
  const header = textOf(data, "assertions.header.name").trim();
  const contains = textOf(data, "assertions.header.contains");
  return {
    keyword:
      keyword === ""
        ? null
        : {
            text: keyword,
            absent: data.has("assertions.keyword.absent"),
            caseSensitive: data.has("assertions.keyword.caseSensitive"),
          },
    // A value typed without a path is sent as it is, so the API says beside the path that one is needed.
    json: path === "" && equals === undefined ? null : { path, ...(equals === undefined ? {} : { equals }) },
    header: header === "" && contains === "" ? null : { name: header, contains },
  };
}

/**
 * A push site's secret address, shown once (at creation or rotation: no later answer carries it), with a copy button
 * and the calls a job makes: `curl -fsS` when it succeeded, `?status=down&msg=` when it failed.
 */
export function pushUrlPanel(
  shown: ShownPushUrl,
  options: { rotated: boolean; onCopy: () => void; onDone: () => void },
): TemplateResult {
  const { pushUrl } = shown;
  return html`<section class="push-url" aria-labelledby="push-url-title">
    <h3 id="push-url-title">${options.rotated ? "The new push address" : "The push address"}</h3>
    <p><strong>Copy it now: it is not shown again.</strong> ${
      options.rotated
        ? "The old address stopped working: give your job this one."
        : "Your job calls it (GET or POST) each time it runs."
    }</p>
    <pre class="push-value">${pushUrl}</pre>
    <div class="row">
      <button type="button" class="primary" @click=${options.onCopy}>Copy the address</button>
      <span role="status">${shown.copied ? "Copied." : ""}</span>
    </div>
    <p>When the job succeeds, from a script or a cron line:</p>
    <pre>curl -fsS ${pushUrl}</pre>
    <p>When it fails, say so (the site is down at once, with your message):</p>
    <pre>curl -fsS "${pushUrl}?status=down&amp;msg=backup%20failed"</pre>
    <p class="muted">Add <code>&amp;ms=</code> and the milliseconds the job took to chart its run time.</p>
    <button type="button" class="link" @click=${options.onDone}>I have stored it</button>
  </section>`;
}

/** The look of the push address panel, for the screens that show it. */
export const pushUrlStyles = css`
  .push-url {
    border: 1px solid var(--accent);
    border-radius: var(--radius);
    padding: 0.75rem 1rem;
    margin: 0 0 1rem;
    background: var(--panel);
  }
  .push-url h3 {
    margin: 0 0 0.5rem;
  }
  .push-url pre {
    white-space: pre-wrap;
    overflow-wrap: anywhere;
    background: var(--bg);
    border: 1px solid var(--line);
    border-radius: 6px;
    padding: 0.5rem 0.6rem;
    margin: 0 0 0.75rem;
    font-size: 0.85rem;
  }
  .push-url .push-value {
    font-weight: 600;
  }
  .push-url .row {
    margin: 0 0 0.75rem;
  }
`;

/** Copies `text`; false when the browser did not allow it. */
export async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * The add and edit form of a site, in its own modal dialog: first the kind of check (a website, a TCP or TLS port, a
 * DNS record, a ping, a push heartbeat), which sets how the address reads and which settings follow; then the name,
 * the interval, tags, and the kind's own settings (for a website: checks on the answer, and under "More settings"
 * the method, status codes, request headers and the slow threshold; for DNS the question and the expected values;
 * for push the grace). Every limit is stated beforehand; the API is the one validator and its messages stand beside
 * their fields. As the address is typed, the form warns (without refusing) when another site already checks it,
 * and says when the server's address policy would refuse to check it. A push site just added shows its secret
 * address here, once, before the form closes. Closing it any way (Cancel, Escape, saving) forgets what was typed:
 * the next open starts from `site`. A site keeps its kind: editing does not offer another.
 *
 *   <pl-site-form .site=${site} @pl-saved=${(e) => ...} @pl-cancel=${...}></pl-site-form>
 *   this.renderRoot.querySelector("pl-site-form").show();
 *
 * @property site - the site to edit, or null to add one.
 * @property sites - the workspace's sites, for the duplicate warning; when not given the form loads them on opening.
 * @event pl-saved - the site was saved; `detail` is the API's answer (the site).
 * @event pl-cancel - the form was closed without saving.
 */
export class PlSiteForm extends LitElement {
  static override styles = [
    shared,
    pushUrlStyles,
    css`
      dialog {
        width: min(38rem, calc(100vw - 1rem));
        max-height: calc(100dvh - 2rem);
      }
      h2 {
        margin-top: 0;
        overflow-wrap: anywhere;
      }
      .pair {
        display: grid;
        grid-template-columns: 1fr 1fr;
        gap: 0 0.75rem;
      }
      details {
        margin: 0 0 0.9rem;
      }
      summary {
        cursor: pointer;
        font-weight: 600;
        margin: 0 0 0.75rem;
      }
      fieldset.group {
        border: 1px solid var(--line);
        border-radius: var(--radius);
        padding: 0.6rem 0.75rem 0;
        margin: 0 0 0.9rem;
        min-width: 0;
      }
      fieldset.group legend {
        font-weight: 600;
        padding: 0 0.25rem;
      }
      label.check {
        display: inline-flex;
        align-items: center;
        gap: 0.4rem;
        font-weight: 400;
        margin: 0.35rem 1rem 0 0;
      }
      textarea {
        min-height: 4.5rem;
        resize: vertical;
      }
      .warning {
        color: var(--warn);
        font-weight: 500;
        margin: 0.25rem 0 0;
        overflow-wrap: anywhere;
      }
      .tags {
        display: flex;
        flex-wrap: wrap;
        gap: 0.35rem;
        margin: 0 0 0.35rem;
        padding: 0;
        list-style: none;
      }
      .tags li {
        display: inline-flex;
        align-items: center;
        gap: 0.15rem;
        border: 1px solid var(--line);
        border-radius: 999px;
        padding: 0 0.15rem 0 0.6rem;
        font-size: 0.85rem;
        max-width: 100%;
        overflow-wrap: anywhere;
      }
      .tags button {
        min-height: 1.75rem;
        padding: 0 0.4rem;
        border: 0;
        background: none;
      }
      .header-row {
        display: grid;
        grid-template-columns: 1fr 1.4fr auto;
        gap: 0.4rem;
        margin: 0 0 0.4rem;
      }
      .buttons {
        justify-content: flex-end;
      }
      .field code {
        overflow-wrap: anywhere;
      }
      @media (max-width: 480px) {
        .pair,
        .header-row {
          grid-template-columns: 1fr;
        }
      }
    `,
  ];

  static override properties = {
    site: { attribute: false },
    sites: { attribute: false },
  };

  declare site: Site | null;
  declare sites: readonly Site[] | undefined;

  /** Counts the openings: each open renders fresh inputs (keyed), so nothing typed before survives a Cancel. */
  #opening = 0;
  #open = false;
  #saved = false;
  /** The kind of check chosen (a site being edited keeps its own). */
  #kind: Kind = "http";
  /** The address box as typed, for the duplicate warning and the address check. */
  #url = "";
  #tags: string[] = [];
  #headers: HeaderRow[] = [];
  #rowKey = 0;
  /** Whether "More settings" is open (it opens by itself when one of its fields is refused). */
  #more = false;
  /** A push site just added: its address, shown once in place of the form. */
  #pushUrl: ShownPushUrl | null = null;
  #copyProblem = "";

  readonly #form = new FormController(this, inputOf);

  /** The server's answer for the typed address, asked after a pause in typing (a newer address aborts it). */
  readonly #target = new Task(this, {
    task: async ([url, open], { signal }): Promise<TargetAnswer | null> => {
      if (!open || !CHECKABLE.test(url) || !URL.canParse(url)) return null;
      await delay(400, signal);
      const { data } = await api<TargetCheckResult>("POST", "/public/v1/sites/target-check", { url }, { signal });
      return { ...data, url };
    },
    args: () => [this.#address, this.#open] as const,
  });

  /** The workspace's other sites, for the duplicate warning: as given, or loaded when the form opens. */
  readonly #others = new Task(this, {
    task: async ([opening, given]) => (opening === 0 ? [] : (given ?? (await allSites()))),
    args: () => [this.#opening, this.sites] as const,
  });

  /** The workspace's tags, offered as the tag box is typed in; asked once per opening. */
  readonly #known = new Task(this, {
    task: async ([opening], { signal }) =>
      opening === 0
        ? []
        : (await api<SiteTagList>("GET", "/public/v1/sites/tags", undefined, { signal })).data.tags.map((t) => t.tag),
    args: () => [this.#opening] as const,
  });

  constructor() {
    super();
    this.site = null;
    this.sites = undefined;
  }

  get #dialog(): HTMLDialogElement | null {
    return this.renderRoot.querySelector("dialog");
  }

  /** The address the API would be sent for what is typed now. */
  get #address(): string {
    return monitorUrl(this.#kind, this.#url);
  }

  /** Opens the form on `site` (null: a new site), with nothing left of an earlier opening. */
  async show(): Promise<void> {
    this.#opening++;
    this.#open = true;
    this.#saved = false;
    this.#more = false;
    this.#pushUrl = null;
    this.#copyProblem = "";
    this.#kind = this.site ? kindOf(this.site.protocol) : "http";
    this.#url = this.site ? typedAddress(this.#kind, this.site.url) : "";
    this.#tags = [...(this.site?.tags ?? [])];
    this.#headers = (this.site?.headers ?? []).map((h) => ({ ...h, key: this.#rowKey++ }));
    this.#form.reset();
    this.requestUpdate();
    await this.updateComplete;
    this.#dialog?.showModal();
  }

  /** Closes the form as Cancel does. */
  close(): void {
    this.#dialog?.close();
  }

  readonly #closed = () => {
    this.#open = false;
    this.#pushUrl = null;
    this.#form.reset();
    if (!this.#saved) this.dispatchEvent(new Event("pl-cancel", { bubbles: true, composed: true }));
    this.requestUpdate();
  };

  /** The body sent: the fields every kind has, then the kind's own (a field left out is kept as it is on edit). */
  #body(data: FormData): { [K in keyof SitePatch]?: unknown } {
    const kind = this.#kind;
    const body: { [K in keyof SitePatch]?: unknown } = {
      url: monitorUrl(kind, textOf(data, "url")),
      name: textOf(data, "name"),
      checkInterval: Number(data.get("checkInterval")),
      tags: addTags(this.#tags, splitTags(textOf(data, "tag"))),
    };
    if (kind === "push") {
      const grace = textOf(data, "push.graceSeconds").trim();
      // Empty is not 0 (no grace at all): it goes as null, and the API asks for a number beside the field.
      body.push = { graceSeconds: grace === "" ? null : Number(grace) };
      return body;
    }
    body.timeout = Number(data.get("timeout"));
    body.slowThresholdMs = Number(data.get("slowThresholdMs"));
    if (kind === "http") {
      body.method = textOf(data, "method") || "GET";
      body.successCodes = parseCodes(textOf(data, "successCodes"));
      body.errorCodes = parseCodes(textOf(data, "errorCodes"));
      // A row left empty is no header: the owner added it and changed their mind.
      body.headers = this.#headers
        .filter((h) => h.name !== "" || h.value !== "")
        .map(({ name, value }) => ({ name, value }));
      body.assertions = assertionsOf(data);
      body.request = requestOf(data, this.site?.request?.basicAuth?.passwordSet ?? false);
    }
    if (kind === "dns") {
      const resolver = textOf(data, "dns.resolver").trim();
      body.dns = {
        recordType: textOf(data, "dns.recordType") || "A",
        resolver: resolver === "" ? null : resolver,
        expected: splitLines(textOf(data, "dns.expected")),
        match: textOf(data, "dns.match") || "contains",
      };
    }
    return body;
  }

  async #save(event: SubmitEvent): Promise<void> {
    const site = this.site;
    const saved = await this.#form.submit(event, async (data) => {
      const body = this.#body(data);
      const reply = site
        ? await api<SiteDetail>("PATCH", `/public/v1/site/${site.id}`, body)
        : await api<Created>("POST", "/public/v1/sites", body);
      return reply.data;
    });
    if (!saved) return;
    this.#saved = true;
    const { pushUrl, ...answer } = saved as Created;
    this.dispatchEvent(new CustomEvent<Site>("pl-saved", { detail: answer, bubbles: true, composed: true }));
    // The push address is in this answer only: the dialog shows it until the owner says it is stored.
    if (pushUrl) {
      this.#pushUrl = { pushUrl, copied: false };
      this.requestUpdate();
      await this.updateComplete;
      this.renderRoot.querySelector<HTMLElement>("#push-url-title")?.focus();
    } else this.#dialog?.close();
  }

  async #copy(): Promise<void> {
    const shown = this.#pushUrl;
    if (!shown) return;
    const ok = await copyText(shown.pushUrl);
    this.#pushUrl = { ...shown, copied: ok };
    this.#copyProblem = ok ? "" : "The browser did not allow copying: select the address and copy it by hand.";
    this.requestUpdate();
  }

  #addTyped(input: HTMLInputElement, keepLast: boolean): void {
    const parts = input.value.split(",");
    const rest = keepLast ? (parts.pop() ?? "") : "";
    const more = splitTags(parts.join(","));
    if (more.length === 0 && !keepLast) return;
    this.#tags = addTags(this.#tags, more);
    input.value = rest.trimStart();
    this.requestUpdate();
  }

  #tagKey(event: KeyboardEvent): void {
    const input = event.target as HTMLInputElement;
    if (event.key === "Enter") {
      // Enter makes a tag of what was typed; it submits the form only when the box is empty.
      if (input.value.trim() === "") return;
      event.preventDefault();
      this.#addTyped(input, false);
    } else if (event.key === "Backspace" && input.value === "" && this.#tags.length > 0) {
      this.#tags = this.#tags.slice(0, -1);
      this.requestUpdate();
    }
  }

  override render(): TemplateResult {
    return html`<dialog aria-labelledby="f-title" @close=${this.#closed}>
      ${keyed(this.#opening, this.#open ? (this.#pushUrl ? this.#shownPushUrl(this.#pushUrl) : this.#formBody()) : nothing)}
    </dialog>`;
  }

  #shownPushUrl(shown: ShownPushUrl): TemplateResult {
    return html`<h2 id="f-title">Push site added</h2>
      ${pushUrlPanel(shown, { rotated: false, onCopy: () => this.#copy(), onDone: () => this.close() })}
      ${this.#copyProblem ? html`<p class="notice bad" role="alert">${this.#copyProblem}</p>` : nothing}`;
  }

  #field(name: string, label: string, input: TemplateResult, hint?: string | TemplateResult): TemplateResult {
    return html`<div class="field">
      <label for=${`f-${name}`}>${label}</label>
      ${input}
      ${typeof hint === "string" ? html`<small class="hint" id=${`f-${name}-hint`}>${hint}</small>` : (hint ?? nothing)}
      ${this.#form.error("f", name)}
    </div>`;
  }

  /** A text input of a kind's setting, named by its API path. */
  #text(name: string, value: string, extra: { placeholder?: string; hinted?: boolean } = {}): TemplateResult {
    const f = this.#form;
    return html`<input id=${`f-${name}`} name=${name} autocomplete="off" autocapitalize="off" spellcheck="false"
      .value=${value} placeholder=${extra.placeholder ?? nothing} aria-invalid=${f.invalid(name)}
      aria-describedby=${f.describedBy("f", name, extra.hinted ? `f-${name}-hint` : undefined)} />`;
  }

  #formBody(): TemplateResult {
    const site = this.site;
    const f = this.#form;
    const kind = this.#kind;
    const interval = site?.checkInterval ?? INTERVAL.default;
    const intervals = INTERVALS.some(([s]) => s === interval)
      ? INTERVALS
      : [...INTERVALS, [interval, `${interval} seconds`] as [number, string]];
    const shown = new Set(fieldsOf(kind));
    const elsewhere = Object.entries(f.errors).filter(([name]) => !shown.has(name));
    return html`<form novalidate @submit=${this.#save}>
      <h2 id="f-title">${site ? `Edit ${site.name}` : "Add a site"}</h2>
      ${this.#kindField()}
      ${kind === "push" ? nothing : this.#addressField()}
      ${this.#field(
        "name",
        "Name",
        html`<input id="f-name" name="name" autocomplete="off" value=${site?.name ?? ""} aria-invalid=${f.invalid("name")}
          aria-describedby=${f.describedBy("f", "name", "f-name-hint")} />`,
        limitHint("f-name-hint", NAME_MAX),
      )}
      <div class="pair">
        ${this.#field(
          "checkInterval",
          kind === "push" ? "Your job calls at least every" : "Check every",
          html`<select id="f-checkInterval" name="checkInterval" aria-invalid=${f.invalid("checkInterval")}
            aria-describedby=${f.describedBy("f", "checkInterval", "f-checkInterval-hint")}>
            ${intervals.map(([s, label]) => html`<option value=${s} ?selected=${interval === s}>${label}</option>`)}
          </select>`,
          kind === "push"
            ? "The period of your job: the site is down when no call comes within it and the grace."
            : "Critical services: 30 s to 1 min; standard: 1 to 5 min.",
        )}
        ${
          kind === "push"
            ? this.#field(
                "push.graceSeconds",
                "Grace (seconds)",
                html`<input id="f-push.graceSeconds" name="push.graceSeconds" type="number" inputmode="numeric"
                  value=${site?.push?.graceSeconds ?? GRACE.default} aria-invalid=${f.invalid("push.graceSeconds")}
                  aria-describedby=${f.describedBy("f", "push.graceSeconds", "f-push.graceSeconds-hint")} />`,
                `How late a call may be, ${GRACE.min} to ${GRACE.max}.`,
              )
            : this.#field(
                "timeout",
                "Timeout (seconds)",
                html`<input id="f-timeout" name="timeout" type="number" inputmode="numeric" value=${site?.timeout ?? TIMEOUT_S.default}
                  aria-invalid=${f.invalid("timeout")} aria-describedby=${f.describedBy("f", "timeout", "f-timeout-hint")} />`,
                `${TIMEOUT_S.min} to ${TIMEOUT_S.max}, and no longer than the interval.`,
              )
        }
      </div>
      ${kind === "push" ? this.#pushNote() : nothing}
      ${kind === "tcp" || kind === "tls" || kind === "dns" || kind === "icmp" ? this.#slowField() : nothing}
      ${this.#tagsField(this.#known.value ?? [])}
      ${kind === "dns" ? this.#dnsFields() : nothing}
      ${kind === "http" ? html`${this.#assertionFields()}${this.#moreFields()}` : nothing}
      ${f.message()}
      ${
        elsewhere.length > 0
          ? html`<div class="notice bad" role="alert">${elsewhere.map(([name, message]) => html`<p style="margin:0">${name}: ${message}</p>`)}</div>`
          : nothing
      }
      <div class="row buttons">
        <button type="button" @click=${() => this.close()}>Cancel</button>
        <button class="primary" ?disabled=${f.busy}>${this.#twin() ? `${site ? "Save" : "Add"} anyway` : site ? "Save" : "Add site"}</button>
      </div>
    </form>`;
  }

  /** Another site checking the same address, for the warning (never a refusal). */
  #twin(): Site | undefined {
    if (this.#kind === "push") return undefined;
    return sameAddress(this.#address, this.#others.value ?? [], this.site?.id ?? null);
  }

  #kindField(): TemplateResult {
    const editing = this.site !== null;
    return html`<div class="field">
      <label for="f-kind">Kind of check</label>
      <select id="f-kind" ?disabled=${editing} aria-describedby="f-kind-hint" @change=${(e: Event) => {
        this.#kind = (e.target as HTMLSelectElement).value as Kind;
        this.#form.reset();
        this.requestUpdate();
      }}>
        ${KIND_ORDER.map((k) => html`<option value=${k} ?selected=${this.#kind === k}>${KINDS[k].name}</option>`)}
      </select>
      <small class="hint" id="f-kind-hint">${KINDS[this.#kind].does}${
        editing ? " A site keeps its kind of check: to check it another way, add a new site." : ""
      }</small>
    </div>`;
  }

  #addressField(): TemplateResult {
    const f = this.#form;
    const kind = this.#kind;
    const look = KINDS[kind].address ?? (KINDS.http.address as NonNullable<(typeof KINDS)["http"]["address"]>);
    const twin = this.#twin();
    const target = this.#target.value;
    const refusal = target && !target.allowed && target.url === this.#address ? target : null;
    const sent = this.#address;
    const urlHints = ["f-url-hint", twin ? "f-url-twin" : "", refusal ? "f-url-refused" : ""].filter(Boolean).join(" ");
    return html`<div class="field">
      <label for="f-url">${look.label}</label>
      <input id="f-url" name="url" type=${kind === "http" ? "url" : "text"} inputmode=${kind === "http" ? "url" : nothing}
        autocomplete="off" autocapitalize="off" spellcheck="false" placeholder=${look.placeholder}
        .value=${this.#url} aria-invalid=${f.invalid("url")} aria-describedby=${f.describedBy("f", "url", urlHints)}
        @input=${(e: Event) => {
          this.#url = (e.target as HTMLInputElement).value;
          this.requestUpdate();
        }} />
      <small class="hint" id="f-url-hint">${look.hint}${
        kind !== "http" && this.#url.trim() !== "" ? html` Checked as <code>${sent}</code>.` : nothing
      }</small>
      ${f.error("f", "url")}
      <p class="warning" id="f-url-twin" role="status">${
        twin ? `Already monitored as ${twin.name}. ${this.site ? "Save" : "Add"} anyway?` : nothing
      }</p>
      <p class="error" id="f-url-refused" role="status">${
        refusal
          ? html`This server will not check this address: ${(refusal.reason ?? "not allowed").replace(/\.$/, "")}.${
              // The reason may name the setting already: it is said once.
              refusal.setting && !refusal.reason?.includes(refusal.setting)
                ? html` Its administrator can allow it with the setting <code>${refusal.setting}</code>.`
                : nothing
            }`
          : nothing
      }</p>
    </div>`;
  }

  #pushNote(): TemplateResult {
    const site = this.site;
    return html`<p class="notice">${
      site
        ? html`Its secret address stays as it is; the site's screen gives it a new one (Rotate push address).`
        : html`Porchlight gives this site a secret address when you add it, shown once: your job calls it each time it
          runs, and the site is down when a call is late by more than the grace, or when the job reports a failure.`
    }</p>`;
  }

  #slowField(): TemplateResult {
    const f = this.#form;
    const site = this.site;
    return this.#field(
      "slowThresholdMs",
      "Degraded when slower than (ms)",
      html`<input id="f-slowThresholdMs" name="slowThresholdMs" type="number" inputmode="numeric"
        value=${site?.slowThresholdMs ?? SLOW_MS.default} aria-invalid=${f.invalid("slowThresholdMs")}
        aria-describedby=${f.describedBy("f", "slowThresholdMs", "f-slowThresholdMs-hint")} />`,
      `${SLOW_MS.min} to ${SLOW_MS.max} ms.`,
    );
  }

  #dnsFields(): TemplateResult {
    const f = this.#form;
    const dns = this.site?.dns ?? null;
    const type = dns?.recordType ?? "A";
    const match = dns?.match ?? "contains";
    return html`<fieldset class="group">
      <legend>DNS question</legend>
      ${f.error("f", "dns")}
      <div class="pair">
        ${this.#field(
          "dns.recordType",
          "Record type",
          html`<select id="f-dns.recordType" name="dns.recordType" aria-invalid=${f.invalid("dns.recordType")}
            aria-describedby=${f.describedBy("f", "dns.recordType")}>
            ${RECORD_TYPES.map((t) => html`<option ?selected=${t === type}>${t}</option>`)}
          </select>`,
        )}
        ${this.#field(
          "dns.resolver",
          "Resolver (optional)",
          this.#text("dns.resolver", dns?.resolver ?? "", { placeholder: "1.1.1.1", hinted: true }),
          "An IP address, with a port if not 53. Empty: the server's own resolver.",
        )}
      </div>
      ${this.#field(
        "dns.expected",
        "Expected values (one a line)",
        html`<textarea id="f-dns.expected" name="dns.expected" rows="3" autocapitalize="off" spellcheck="false"
          .value=${(dns?.expected ?? []).join("\n")} aria-invalid=${f.invalid("dns.expected")}
          aria-describedby=${f.describedBy("f", "dns.expected", "f-dns.expected-hint")}></textarea>`,
        "As the answer shows them: an address, a host name, 10 mx.example.com for MX, a TXT record's text. Empty: any answer is up.",
      )}
      ${this.#field(
        "dns.match",
        "The answer must",
        html`<select id="f-dns.match" name="dns.match" aria-invalid=${f.invalid("dns.match")}
          aria-describedby=${f.describedBy("f", "dns.match")}>
          <option value="contains" ?selected=${match === "contains"}>Contain every expected value</option>
          <option value="exact" ?selected=${match === "exact"}>Be exactly the expected values</option>
        </select>`,
      )}
    </fieldset>`;
  }

  /** Keyword, JSON value and header: each off while its boxes are empty. */
  #assertionFields(): TemplateResult {
    const f = this.#form;
    const a = this.site?.assertions ?? null;
    const set = a !== null && (a.keyword !== null || a.json !== null || a.header !== null);
    return html`<details .open=${set || ASSERTION_FIELDS.some((name) => f.errors[name])}>
      <summary>Checks on the answer: keyword, JSON value, header</summary>
      ${f.error("f", "assertions")}
      <fieldset class="group">
        <legend>Keyword in the body</legend>
        ${this.#field(
          "assertions.keyword.text",
          "Text",
          this.#text("assertions.keyword.text", a?.keyword?.text ?? "", { placeholder: "Welcome", hinted: true }),
          "Searched in the first 256 KiB of the body. Empty: no keyword check.",
        )}
        <div class="field">
          <label class="check"><input type="checkbox" name="assertions.keyword.absent" ?checked=${a?.keyword?.absent ?? false} />
            Must be absent (down when the text is found)</label>
          <label class="check"><input type="checkbox" name="assertions.keyword.caseSensitive"
            ?checked=${a?.keyword?.caseSensitive ?? false} /> Case-sensitive</label>
        </div>
      </fieldset>
      <fieldset class="group">
        <legend>JSON value</legend>
        <div class="pair">
          ${this.#field(
            "assertions.json.path",
            "JSON path",
            this.#text("assertions.json.path", a?.json?.path ?? "", { placeholder: "$.status", hinted: true }),
            html`<small class="hint" id="f-assertions.json.path-hint">$ then .name, ["name"] or [index], such as <code>$.checks[0].state</code>.</small>`,
          )}
          ${this.#field(
            "assertions.json.equals",
            "Expected value",
            this.#text("assertions.json.equals", formatExpected(a?.json?.equals), { placeholder: "ok", hinted: true }),
            'A number, true, false or null is compared as JSON, other text as text ("42" in quotes for the text 42). Empty: the path only has to exist.',
          )}
        </div>
      </fieldset>
      <fieldset class="group">
        <legend>Response header</legend>
        <div class="pair">
          ${this.#field(
            "assertions.header.name",
            "Header",
            this.#text("assertions.header.name", a?.header?.name ?? "", { placeholder: "Content-Type" }),
          )}
          ${this.#field(
            "assertions.header.contains",
            "Contains",
            this.#text("assertions.header.contains", a?.header?.contains ?? "", { placeholder: "json", hinted: true }),
            "Case-insensitive. Empty: the header only has to be there.",
          )}
        </div>
      </fieldset>
    </details>`;
  }

  #moreFields(): TemplateResult {
    const f = this.#form;
    const site = this.site;
    return html`<details .open=${this.#more || MORE.some((name) => f.errors[name])}
      @toggle=${(e: Event) => (this.#more = (e.target as HTMLDetailsElement).open)}>
      <summary>More settings: method, status codes, headers, body, basic auth, redirects</summary>
      <div class="pair">
        ${this.#field(
          "method",
          "Method",
          html`<select id="f-method" name="method" aria-invalid=${f.invalid("method")} aria-describedby=${f.describedBy("f", "method")}>
            ${METHODS.map((m) => html`<option ?selected=${(site?.method ?? "GET") === m}>${m}</option>`)}
          </select>`,
        )}
        ${this.#field(
          "slowThresholdMs",
          "Degraded when slower than (ms)",
          html`<input id="f-slowThresholdMs" name="slowThresholdMs" type="number" inputmode="numeric"
            value=${site?.slowThresholdMs ?? SLOW_MS.default} aria-invalid=${f.invalid("slowThresholdMs")}
            aria-describedby=${f.describedBy("f", "slowThresholdMs", "f-slowThresholdMs-hint")} />`,
          `${SLOW_MS.min} to ${SLOW_MS.max} ms.`,
        )}
      </div>
      ${this.#field(
        "successCodes",
        "Expected status codes",
        html`<input id="f-successCodes" name="successCodes" autocomplete="off" value=${formatCodes(site?.successCodes ?? DEFAULT_CODES)}
          aria-invalid=${f.invalid("successCodes")} aria-describedby=${f.describedBy("f", "successCodes", "f-successCodes-hint")} />`,
        "Codes or ranges, such as 200-299, 401. A code below 400 counts as up unless listed as down; from 400, only the codes listed here do.",
      )}
      ${this.#field(
        "errorCodes",
        "Status codes that count as down",
        html`<input id="f-errorCodes" name="errorCodes" autocomplete="off" value=${formatCodes(site?.errorCodes ?? [])}
          aria-invalid=${f.invalid("errorCodes")} aria-describedby=${f.describedBy("f", "errorCodes", "f-errorCodes-hint")} />`,
        "Even below 400, such as 301-308 to catch a redirect. Empty: none.",
      )}
      ${this.#headersField()}
      ${this.#requestFields()}
    </details>`;
  }

  /** The request body, basic auth and the redirect switch (http sites). */
  #requestFields(): TemplateResult {
    const f = this.#form;
    const request = this.site?.request ?? null;
    const auth = request?.basicAuth ?? null;
    return html`${this.#field(
      "request.body",
      "Request body",
      html`<textarea id="f-request.body" name="request.body" rows="3" autocapitalize="off" spellcheck="false"
        .value=${request?.body ?? ""} placeholder='{"probe": true}' aria-invalid=${f.invalid("request.body")}
        aria-describedby=${f.describedBy("f", "request.body", "f-request.body-hint")}></textarea>`,
      `Sent with every method but GET and HEAD, at most ${REQUEST_LIMITS.body.toLocaleString("en-US")} characters; add a Content-Type header to match. Empty: none.`,
    )}
    <div class="pair">
      ${this.#field(
        "request.basicAuth.username",
        "Basic auth user",
        html`<input id="f-request.basicAuth.username" name="request.basicAuth.username" autocomplete="off"
          autocapitalize="off" spellcheck="false" .value=${auth?.username ?? ""}
          aria-invalid=${f.invalid("request.basicAuth.username")}
          aria-describedby=${f.describedBy("f", "request.basicAuth.username", "f-request.basicAuth.username-hint")} />`,
        "Empty: no basic auth.",
      )}
      ${this.#field(
        "request.basicAuth.password",
        "Basic auth password",
        html`<input id="f-request.basicAuth.password" name="request.basicAuth.password" type="password"
          autocomplete="new-password" placeholder=${auth?.passwordSet ? "•••••••• (stored)" : nothing}
          aria-invalid=${f.invalid("request.basicAuth.password")}
          aria-describedby=${f.describedBy("f", "request.basicAuth.password", "f-request.basicAuth.password-hint")} />`,
        auth?.passwordSet
          ? "Stored sealed and never shown. Empty: the stored password is kept."
          : "Stored sealed and never shown again.",
      )}
    </div>
    ${
      auth?.passwordSet
        ? html`<div class="field">
      <label class="check"><input type="checkbox" name="request.basicAuth.removePassword"
        id="f-request.basicAuth.removePassword" /> Remove the stored password (the user name is kept)</label>
    </div>`
        : nothing
    }
    <div class="field">
      <label class="check"><input type="checkbox" name="request.followRedirects" id="f-request.followRedirects"
        ?checked=${request?.followRedirects ?? true}
        aria-describedby=${f.describedBy("f", "request.followRedirects", "f-request.followRedirects-hint")} />
        Follow redirects</label>
      <small class="hint" id="f-request.followRedirects-hint">Up to 5. Off: a redirect is the answer, judged by its status code. Credentials and the body never go to another origin.</small>
      ${f.error("f", "request.followRedirects")}
    </div>`;
  }

  #tagsField(known: readonly string[]): TemplateResult {
    const f = this.#form;
    const offered = known.filter((t) => !this.#tags.includes(t));
    return html`<div class="field">
      <label for="f-tag">Tags</label>
      ${
        this.#tags.length > 0
          ? html`<ul class="tags" aria-label="Tags of this site">
            ${this.#tags.map(
              (tag) =>
                html`<li>${tag}<button type="button" aria-label=${`Remove tag ${tag}`} @click=${() => {
                  this.#tags = this.#tags.filter((t) => t !== tag);
                  this.requestUpdate();
                }}>×</button></li>`,
            )}
          </ul>`
          : nothing
      }
      <input id="f-tag" name="tag" autocomplete="off" list="f-tag-options" placeholder="production, eu"
        aria-invalid=${f.invalid("tags")} aria-describedby=${f.describedBy("f", "tags", "f-tag-hint")}
        @keydown=${this.#tagKey}
        @input=${(e: Event) => {
          const input = e.target as HTMLInputElement;
          if (input.value.includes(",")) this.#addTyped(input, true);
        }} />
      <datalist id="f-tag-options">${offered.map((t) => html`<option value=${t}></option>`)}</datalist>
      <small class="hint" id="f-tag-hint">Separate tags with a comma or Enter. At most ${TAG_LIMIT.max} tags of ${TAG_LIMIT.maxLength} characters: letters, digits, spaces, - _ and .</small>
      ${f.error("f", "tags")}
    </div>`;
  }

  #headersField(): TemplateResult {
    const f = this.#form;
    const rows = this.#headers;
    const edit = (row: HeaderRow, part: "name" | "value") => (e: Event) => {
      row[part] = (e.target as HTMLInputElement).value;
    };
    return html`<fieldset class="field" style="border:0;padding:0;margin:0 0 0.9rem" aria-describedby=${f.describedBy("f", "headers", "f-headers-hint")}>
      <legend style="font-weight:600;padding:0;margin:0 0 0.25rem">Request headers</legend>
      ${repeat(
        rows,
        (row) => row.key,
        (row, i) => html`<div class="header-row">
          <input aria-label=${`Header ${i + 1} name`} placeholder="Authorization" autocomplete="off" .value=${row.name}
            aria-invalid=${f.invalid("headers")} @input=${edit(row, "name")} />
          <input aria-label=${`Header ${i + 1} value`} placeholder="Bearer …" autocomplete="off" .value=${row.value}
            aria-invalid=${f.invalid("headers")} @input=${edit(row, "value")} />
          <button type="button" aria-label=${`Remove header ${i + 1}`} @click=${() => {
            this.#headers = this.#headers.filter((h) => h !== row);
            this.requestUpdate();
          }}>Remove</button>
        </div>`,
      )}
      <button type="button" ?disabled=${rows.length >= HEADERS_MAX} @click=${() => {
        this.#headers = [...this.#headers, { key: this.#rowKey++, name: "", value: "" }];
        this.requestUpdate();
      }}>Add a header</button>
      <small class="hint" id="f-headers-hint">Sent with every check, at most ${HEADERS_MAX}; never shown to visitors.</small>
      ${f.error("f", "headers")}
    </fieldset>`;
  }
}

customElements.define("pl-site-form", PlSiteForm);

declare global {
  interface HTMLElementTagNameMap {
    "pl-site-form": PlSiteForm;
  }
}
