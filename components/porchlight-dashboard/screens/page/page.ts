import { Task } from "@lit/task";
import { css, html, LitElement, nothing, type TemplateResult } from "lit";
import { keyed } from "lit/directives/keyed.js";
import { allSites, api, problemText, upload } from "../../lib/api.ts";
import { can, consumeMe } from "../../lib/context.ts";
import { FormController, limitHint } from "../../lib/form.ts";
import { BASE, navigate } from "../../lib/router.ts";
import { shared } from "../../lib/styles.ts";
import type { IncidentPolicy, Page } from "../../lib/types.ts";
import {
  changesOf,
  dropGroup,
  dropItem,
  type Entry,
  layoutOf,
  placed,
  placeOf,
  putGroup,
  putItem,
  stepItem,
} from "./layout.ts";

type Item = Page["items"][number];

/** The server's defaults (server/contract/status-page.ts), for a page whose answer carries no policy yet. */
const DEFAULT_POLICY: IncidentPolicy = {
  publish: "after",
  afterMinutes: 5,
  template: {
    title: "{service} is unavailable",
    down: "We are seeing problems reaching {service} and are looking into it.",
    downAgain: "{service} became unavailable again shortly after it recovered. We are looking into it.",
    recovered: "{service} is available again. It was unavailable for {duration}.",
  },
};

/** The API's limits (server/contract/status-page.ts), stated beside the inputs rather than cutting the text. */
const LIMITS = { name: 100, slug: 64, description: 2000, label: 100, title: 200, text: 500 } as const;

/** The API's field of a settings refusal ("theme.accentColor") as the input's name ("accentColor"). */
const settingsField = (field: string) => field.replace(/^(theme|display)\./, "");
/** The API's field of a policy refusal ("incidentPolicy.template.down") as the input's name ("t-down"). */
const policyField = (field: string) => field.replace(/^incidentPolicy\./, "").replace(/^template\./, "t-");

/** The four texts of automatic incidents: [field, label, hint]. */
const TEMPLATES: [keyof IncidentPolicy["template"], string, string][] = [
  ["title", "Title", "The incident's name on the page"],
  ["down", "When a service goes down", "The first update"],
  ["downAgain", "When it goes down again soon after recovering", "Re-opens the same incident instead of a new one"],
  ["recovered", "When it recovers", "Resolves the incident; {duration} is how long it was down"],
];

/**
 * One status page: its settings (name, slug, description, visibility and password, theme, display options, custom
 * domain with the DNS record it needs), its items and groups (labels, visibility, order and groups by drag, by
 * keyboard or by a list), a live
 * preview with the real element, the embed snippets, and deletion once the exact name is typed.
 */
export class PlPage extends LitElement {
  static override styles = [
    shared,
    css`
      /* A 100-character name or address wraps rather than widening the screen. */
      h1,
      .bar .muted a {
        overflow-wrap: anywhere;
      }
      .grid {
        display: grid;
        grid-template-columns: minmax(0, 1fr) minmax(0, 1fr);
        gap: 1rem;
        align-items: start;
      }
      @media (max-width: 900px) {
        .grid {
          grid-template-columns: minmax(0, 1fr);
        }
      }
      ol.items {
        list-style: none;
        margin: 0;
        padding: 0;
      }
      ol.items li {
        display: flex;
        flex-wrap: wrap;
        gap: 0.5rem;
        align-items: center;
        padding: 0.5rem;
        border: 1px solid var(--line);
        border-radius: 6px;
        margin: 0 0 0.4rem;
        background: var(--panel);
      }
      ol.items ol.members {
        flex-basis: 100%;
        list-style: none;
        margin: 0.25rem 0 0;
        padding: 0 0 0 1.5rem;
      }
      ol.items li.group {
        background: var(--bg);
      }
      ol.items .group-name {
        font-weight: 600;
      }
      /* Its own line under the group's name, whatever the width. */
      ol.items li.group > input.group-description {
        flex: 1 1 100%;
      }
      ol.items li.empty {
        display: block;
        border-style: dashed;
      }
      ol.items select.item-group {
        width: auto;
        max-width: 10rem;
      }
      ol.items li.dragging {
        opacity: 0.5;
      }
      ol.items li.over {
        border-color: var(--accent);
      }
      .handle {
        cursor: grab;
        color: var(--muted);
        padding: 0 0.25rem;
        user-select: none;
      }
      ol.items input[type="text"] {
        flex: 1;
        min-width: 8rem;
        width: auto;
      }
      .preview {
        border: 1px dashed var(--line);
        border-radius: var(--radius);
        padding: 0.5rem;
        min-height: 12rem;
        background: var(--bg);
      }
      .danger-zone {
        border-color: var(--down);
      }
      fieldset {
        border: 1px solid var(--line);
        border-radius: 6px;
        margin: 0 0 0.9rem;
        padding: 0.5rem 0.75rem;
      }
      legend {
        font-weight: 600;
      }
      .check {
        display: flex;
        gap: 0.5rem;
        align-items: center;
        font-weight: 400;
      }
      .check small {
        display: block;
        color: var(--muted);
      }
      #policy .check {
        align-items: flex-start;
        margin: 0 0 0.4rem;
      }
      input[type="radio"] {
        width: auto;
        margin-top: 0.3rem;
      }
      #policy textarea {
        resize: vertical;
      }
    `,
  ];

  static override properties = {
    pageId: { attribute: false },
    page: { state: true },
    error: { state: true },
    saved: { state: true },
    visibility: { state: true },
    confirm: { state: true },
    copied: { state: true },
    dragKey: { state: true },
    overKey: { state: true },
    groupError: { state: true },
    announcement: { state: true },
    previewKey: { state: true },
    publishMode: { state: true },
    policySaved: { state: true },
  };

  declare pageId: string;
  /** The page as the owner is changing it: the load's answer, then each save's answer and reordered items. */
  declare page: Page | null;
  declare error: string;
  declare saved: string;
  declare visibility: string;
  declare confirm: string;
  declare copied: string;
  /** The row being dragged and the row under it: `i<id>` (an item) or `g<id>` (a group); "" for none. */
  declare dragKey: string;
  declare overKey: string;
  declare groupError: string;
  declare announcement: string;
  declare previewKey: number;
  /** The policy form's publication choice, as the owner has it before saving. */
  declare publishMode: IncidentPolicy["publish"];
  declare policySaved: string;

  readonly #me = consumeMe(this);
  readonly #settingsForm = new FormController(this, settingsField);
  readonly #policyForm = new FormController(this, policyField);
  readonly #logoForm = new FormController(this);

  /** The page and the workspace's sites (to add as items), loaded again at once when the address names another page. */
  readonly #load = new Task(this, {
    task: async ([id], { signal }) => {
      const [page, sites] = await Promise.all([
        api<Page>("GET", `/public/v1/status-pages/${encodeURIComponent(id)}`, undefined, { signal }),
        allSites(),
      ]);
      return { page: page.data, sites };
    },
    args: () => [this.pageId] as const,
    onComplete: ({ page }) => this.#show(page),
  });

  constructor() {
    super();
    this.page = null;
    this.error = "";
    this.saved = "";
    this.visibility = "public";
    this.confirm = "";
    this.copied = "";
    this.dragKey = "";
    this.overKey = "";
    this.groupError = "";
    this.announcement = "";
    this.previewKey = 0;
    this.publishMode = DEFAULT_POLICY.publish;
    this.policySaved = "";
  }

  get #canWrite(): boolean {
    return can(this.#me.value, "status_pages:write");
  }

  /** Shows a page as loaded: its forms start from what it holds, with no message of another page's. */
  #show(page: Page): void {
    if (page.id !== this.page?.id) {
      for (const form of [this.#settingsForm, this.#policyForm, this.#logoForm]) form.reset();
      this.saved = "";
      this.policySaved = "";
      this.error = "";
      this.confirm = "";
    }
    this.page = page;
    this.visibility = page.visibility;
    this.publishMode = page.incidentPolicy?.publish ?? DEFAULT_POLICY.publish;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    // The real element, from this server, for the preview.
    if (!customElements.get("porchlight-status")) {
      const script = document.createElement("script");
      script.type = "module";
      script.src = "/embed/porchlight.js";
      document.head.append(script);
    }
  }

  async #save(event: SubmitEvent): Promise<void> {
    const page = this.page;
    if (!page) return;
    this.saved = "";
    const updated = await this.#settingsForm.submit(event, async (data) => {
      const text = (name: string) => String(data.get(name) ?? "");
      const body: Record<string, unknown> = {
        name: text("name"),
        slug: text("slug"),
        description: text("description"),
        visibility: text("visibility"),
        theme: { mode: text("mode"), accentColor: text("accentColor") },
        display: {
          historyDays: Number(text("historyDays")),
          showUptime: data.has("showUptime"),
          showResponseTime: data.has("showResponseTime"),
          showIncidents: data.has("showIncidents"),
          // Sent once set, so a page that never chose keeps the default.
          ...(data.has("statuspageMaintenance") || page.display.statuspageMaintenance !== undefined
            ? { statuspageMaintenance: data.has("statuspageMaintenance") }
            : {}),
        },
        customDomain: text("customDomain").trim() || null,
      };
      if (text("password")) body.password = text("password");
      return (await api<Page>("PATCH", `/public/v1/status-pages/${page.id}`, body)).data;
    });
    if (!updated) return;
    this.#show(updated);
    this.saved = "Saved.";
    this.#refreshPreview();
  }

  async #savePolicy(event: SubmitEvent): Promise<void> {
    const page = this.page;
    if (!page) return;
    this.policySaved = "";
    const updated = await this.#policyForm.submit(event, async (data) => {
      const text = (name: string) => String(data.get(name) ?? "");
      const afterMinutes = text("afterMinutes");
      const incidentPolicy = {
        publish: this.publishMode,
        // A blank delay is sent as it is, so the API says what it wants; an absent one (not "after") keeps the page's.
        afterMinutes: data.has("afterMinutes")
          ? afterMinutes.trim() === ""
            ? null
            : Number(afterMinutes)
          : page.incidentPolicy.afterMinutes,
        template: Object.fromEntries(TEMPLATES.map(([field]) => [field, text(`t-${field}`)])),
      };
      return (await api<Page>("PATCH", `/public/v1/status-pages/${page.id}`, { incidentPolicy })).data;
    });
    if (!updated) return;
    this.#show(updated);
    this.policySaved = "Saved.";
  }

  /** A new element for the preview: it reads the page as it is now. */
  #refreshPreview(): void {
    this.previewKey++;
  }

  async #uploadLogo(event: Event): Promise<void> {
    const input = event.target as HTMLInputElement;
    const file = input.files?.[0];
    const page = this.page;
    if (!file || !page) return;
    const updated = await this.#logoForm.submit(null, () =>
      upload<Page>(`/public/v1/status-pages/${page.id}/logo`, file),
    );
    input.value = "";
    if (!updated) return;
    this.#show(updated);
    this.saved = "Logo uploaded.";
    this.#refreshPreview();
  }

  async #addItem(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    const page = this.page;
    if (!page) return;
    const siteId = String(new FormData(event.target as HTMLFormElement).get("siteId") ?? "");
    if (!siteId) return;
    try {
      await api("POST", `/public/v1/status-pages/${page.id}/items`, { siteId });
      await this.#load.run();
      this.#refreshPreview();
    } catch (error) {
      this.error = problemText(error);
    }
  }

  async #patchItem(item: Item, body: Record<string, unknown>): Promise<void> {
    await this.#patch(`items/${item.id}`, body);
  }

  async #removeItem(item: Item): Promise<void> {
    try {
      await api("DELETE", `/public/v1/status-pages/${this.page?.id}/items/${item.id}`);
      await this.#load.run();
      this.#refreshPreview();
    } catch (error) {
      this.error = problemText(error);
    }
  }

  /**
   * Shows the page as `layout` places its items and groups, saves what moved (each item's and group's position and
   * group), says so to screen readers, and gives the focus back to the moved row's handle.
   */
  async #apply(layout: Entry[], focus: string, announcement: string): Promise<void> {
    const page = this.page;
    if (!page) return;
    const { items, groups } = changesOf(page, layout);
    if (items.length === 0 && groups.length === 0) return;
    this.page = placed(page, layout);
    this.announcement = announcement;
    await Promise.all([
      ...items.map((change) => this.#patch(`items/${change.id}`, change.body)),
      ...groups.map((change) => this.#patch(`groups/${change.id}`, change.body)),
    ]);
    await this.updateComplete;
    this.renderRoot.querySelector<HTMLElement>(`[data-key="${focus}"] > .handle`)?.focus();
    this.#refreshPreview();
  }

  /** Where an item now is, in words: "Checkout moved to position 2 of 3 in Payments". */
  #said(layout: Entry[], item: Item): string {
    const place = placeOf(layout, item.id);
    const group = layout.find((e) => e.kind === "group" && e.group.id === place.groupId);
    const where = group?.kind === "group" ? ` in ${group.group.name}` : "";
    return `${item.label} moved to position ${place.index + 1} of ${place.of}${where}`;
  }

  #moveItem(item: Item, layout: Entry[]): Promise<void> {
    return this.#apply(layout, `i${item.id}`, this.#said(layout, item));
  }

  #moveGroup(groupId: number, layout: Entry[]): Promise<void> {
    const at = layout.findIndex((e) => e.kind === "group" && e.group.id === groupId);
    const entry = layout[at];
    const name = entry?.kind === "group" ? entry.group.name : "";
    return this.#apply(layout, `g${groupId}`, `Group ${name} moved to position ${at + 1} of ${layout.length}`);
  }

  /** An item's handle: the up and down arrows step it through the page, into and out of groups. */
  #onItemKey(event: KeyboardEvent, item: Item): void {
    const direction = event.key === "ArrowUp" ? -1 : event.key === "ArrowDown" ? 1 : 0;
    if (!direction || !this.page) return;
    event.preventDefault();
    const layout = layoutOf(this.page);
    const target = stepItem(layout, item.id, direction);
    if (target) void this.#moveItem(item, putItem(layout, item.id, target));
  }

  /** A group's handle: the up and down arrows move it among the page's groups and ungrouped items. */
  #onGroupKey(event: KeyboardEvent, groupId: number): void {
    const direction = event.key === "ArrowUp" ? -1 : event.key === "ArrowDown" ? 1 : 0;
    if (!direction || !this.page) return;
    event.preventDefault();
    const layout = layoutOf(this.page);
    const at = layout.findIndex((e) => e.kind === "group" && e.group.id === groupId);
    if (at + direction < 0 || at + direction >= layout.length) return;
    void this.#moveGroup(groupId, putGroup(layout, groupId, at + direction));
  }

  /** An item's "Group" choice: last in the group chosen, or last on the page with none. */
  #chooseGroup(item: Item, value: string): void {
    if (!this.page) return;
    const layout = layoutOf(this.page);
    const groupId = value === "" ? null : Number(value);
    const group = layout.find((e) => e.kind === "group" && e.group.id === groupId);
    const index = group?.kind === "group" ? group.members.length : layout.length;
    void this.#moveItem(item, putItem(layout, item.id, { groupId, index }));
  }

  /** A drop on a row (`onto`): what was dragged takes its place (see layout.ts dropItem and dropGroup). */
  #drop(onto: { item: number } | { group: number }): void {
    const dragged = this.dragKey;
    this.dragKey = "";
    this.overKey = "";
    if (!this.page || !dragged) return;
    const layout = layoutOf(this.page);
    const id = Number(dragged.slice(1));
    if (dragged[0] === "g") {
      void this.#moveGroup(id, dropGroup(layout, id, onto));
      return;
    }
    const item = this.page.items.find((i) => i.id === id);
    if (item) void this.#moveItem(item, dropItem(layout, id, onto));
  }

  async #patch(path: string, body: Record<string, unknown>): Promise<boolean> {
    try {
      await api("PATCH", `/public/v1/status-pages/${this.page?.id}/${path}`, body);
      return true;
    } catch (error) {
      this.error = problemText(error);
      return false;
    }
  }

  async #addGroup(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    const page = this.page;
    const form = event.target as HTMLFormElement;
    if (!page) return;
    const name = String(new FormData(form).get("groupName") ?? "").trim();
    this.groupError = "";
    try {
      await api("POST", `/public/v1/status-pages/${page.id}/groups`, { name });
      form.reset();
      await this.#load.run();
      this.announcement = `Group ${name} added, last on the page`;
      this.#refreshPreview();
    } catch (error) {
      this.groupError = problemText(error);
    }
  }

  async #changeGroup(groupId: number, body: Record<string, unknown>): Promise<void> {
    if (await this.#patch(`groups/${groupId}`, body)) {
      await this.#load.run();
      this.#refreshPreview();
    }
  }

  async #removeGroup(groupId: number, name: string): Promise<void> {
    try {
      await api("DELETE", `/public/v1/status-pages/${this.page?.id}/groups/${groupId}`);
      await this.#load.run();
      this.announcement = `Group ${name} removed; its items stay on the page, in its place`;
      this.#refreshPreview();
    } catch (error) {
      this.error = problemText(error);
    }
  }

  async #delete(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    const page = this.page;
    if (!page) return;
    try {
      await api("DELETE", `/public/v1/status-pages/${page.id}`, { confirmName: this.confirm });
      navigate(`${BASE}pages`);
    } catch (error) {
      this.error = problemText(error);
    }
  }

  async #copy(what: string, text: string): Promise<void> {
    try {
      await navigator.clipboard.writeText(text);
      this.copied = `${what} copied`;
    } catch {
      this.copied = `Select the ${what.toLowerCase()} and copy it`;
    }
  }

  override render(): TemplateResult {
    const back = html`<a href=${`${BASE}pages`} @click=${(e: MouseEvent) => {
      e.preventDefault();
      navigate(`${BASE}pages`);
    }}>← Status pages</a>`;
    // Another page's settings never show under this page's address while it loads.
    const page = this.page?.id === Number(this.pageId) ? this.page : null;
    if (!page) {
      return html`${back}${this.#load.render({
        pending: () => html`<p class="muted">Loading…</p>`,
        error: (error) => html`<p class="notice bad" role="alert">${problemText(error)}</p>`,
      })}`;
    }
    return html`
      ${back}
      <div class="bar">
        <div>
          <h1>${page.name}</h1>
          <p class="muted"><a href=${`/${page.slug}`} target="_blank" rel="noopener">${page.url}</a></p>
        </div>
        <div class="row">
          ${
            this.#canWrite
              ? html`<a class="button" href=${`${BASE}pages/${page.id}/subscribers`} @click=${(e: MouseEvent) => {
                  e.preventDefault();
                  navigate(`${BASE}pages/${page.id}/subscribers`);
                }}>Subscribers${page.subscriptions.enabled ? "" : " (off)"}</a>`
              : nothing
          }
          ${
            can(this.#me.value, "incidents:write")
              ? html`<a class="button" href=${`${BASE}incidents?page=${page.id}`} @click=${(e: MouseEvent) => {
                  e.preventDefault();
                  navigate(`${BASE}incidents?page=${page.id}`);
                }}>Open an incident on this page</a>`
              : nothing
          }
        </div>
      </div>
      ${this.error ? html`<p class="notice bad" role="alert">${this.error}</p>` : nothing}
      <div class="grid">
        <div>${this.#settings(page)} ${this.#items(page)} ${this.#policy(page)}</div>
        <div>${this.#preview(page)} ${this.#embed(page)}</div>
      </div>
      ${this.#canWrite ? this.#deleteForm(page) : nothing}
    `;
  }

  #settings(page: Page): TemplateResult {
    const ro = !this.#canWrite;
    const f = this.#settingsForm;
    const invalid = (name: string) => f.invalid(name);
    const described = (name: string, hint?: string) => f.describedBy("s", name, hint);
    const err = (name: string) => f.error("s", name);
    const host = new URL(page.url).host;
    return html`<form class="panel" novalidate @submit=${this.#save} aria-labelledby="settings-title">
      <h2 id="settings-title" style="margin-top:0">Settings</h2>
      <fieldset ?disabled=${ro} style="border:0;padding:0;margin:0">
        <div class="field"><label for="s-name">Name</label>${limitHint("s-name-hint", LIMITS.name)}
          <input id="s-name" name="name" .value=${page.name} aria-invalid=${invalid("name")} aria-describedby=${described("name", "s-name-hint")} />${err("name")}</div>
        <div class="field"><label for="s-slug">Slug<small id="s-slug-hint">The page's address: /${page.slug}. Lower-case letters, digits and dashes, at most ${LIMITS.slug} characters.</small></label>
          <input id="s-slug" name="slug" .value=${page.slug} aria-invalid=${invalid("slug")} aria-describedby=${described("slug", "s-slug-hint")} />${err("slug")}</div>
        <div class="field"><label for="s-description">Description</label>${limitHint("s-description-hint", LIMITS.description)}
          <textarea id="s-description" name="description" rows="2" .value=${page.description} aria-invalid=${invalid("description")}
            aria-describedby=${described("description", "s-description-hint")}></textarea>${err("description")}</div>
        <div class="field"><label for="s-visibility">Visibility</label>
          <select id="s-visibility" name="visibility" @change=${(e: Event) => (this.visibility = (e.target as HTMLSelectElement).value)}>
            <option value="public" ?selected=${page.visibility === "public"}>Public: anyone</option>
            <option value="password-protected" ?selected=${page.visibility === "password-protected"}>Password: anyone with the password</option>
            <option value="private" ?selected=${page.visibility === "private"}>Private: members of this workspace</option>
          </select></div>
        ${
          this.visibility === "password-protected"
            ? html`<div class="field"><label for="s-password">Password<small>${page.hasPassword ? "Leave empty to keep the current one" : "Visitors type it; case-sensitive"}</small></label>
              <input id="s-password" name="password" type="password" autocomplete="new-password"
                aria-invalid=${invalid("password")} aria-describedby=${described("password")} />${err("password")}</div>`
            : nothing
        }
        <fieldset><legend>Theme</legend>
          <div class="field"><label for="s-mode">Colours</label>
            <select id="s-mode" name="mode">
              ${["auto", "light", "dark"].map((m) => html`<option value=${m} ?selected=${page.theme.mode === m}>${m === "auto" ? "Follow the visitor" : m}</option>`)}
            </select></div>
          <div class="field"><label for="s-accent">Accent colour</label>
            <input id="s-accent" name="accentColor" type="color" .value=${page.theme.accentColor} style="width:4rem;padding:0.1rem" /></div>
        </fieldset>
        <fieldset><legend>Show</legend>
          <label class="check"><input type="checkbox" name="showUptime" ?checked=${page.display.showUptime} /> Uptime</label>
          <label class="check"><input type="checkbox" name="showResponseTime" ?checked=${page.display.showResponseTime} /> Response times</label>
          <label class="check"><input type="checkbox" name="showIncidents" ?checked=${page.display.showIncidents} /> Incidents</label>
          <div class="field" style="margin-top:0.5rem"><label for="s-history">Days of history</label>
            <select id="s-history" name="historyDays" style="max-width:10rem">
              ${[...new Set([30, 60, 90, page.display.historyDays])]
                .sort((a, b) => a - b)
                .map((d) => html`<option value=${d} ?selected=${page.display.historyDays === d}>${d} days</option>`)}
            </select></div>
        </fieldset>
        <fieldset><legend>Statuspage API</legend>
          <p class="muted">${
            page.visibility === "public"
              ? html`What reads Statuspage pages reads this one at <code>/${page.slug}/api/v2/summary.json</code>.`
              : "Only a public page answers it: this one answers 401 or 404."
          }</p>
          <label class="check"><input type="checkbox" name="statuspageMaintenance" ?checked=${page.display.statuspageMaintenance === true} />
            <span>Say “maintenance” as Statuspage does<small>Some Statuspage clients refuse that word: leave it off unless yours expect it</small></span></label>
        </fieldset>
        <fieldset><legend>Logo</legend>
          ${page.logo ? html`<p><img src=${page.logo} alt="The page's logo" style="max-height:48px;max-width:100%" /></p>` : html`<p class="muted">No logo: the page's name is its heading.</p>`}
          <label for="s-logo">Upload a logo<small>PNG, JPEG, WebP, GIF or SVG</small></label>
          <input id="s-logo" type="file" accept="image/png,image/jpeg,image/webp,image/gif,image/svg+xml"
            @change=${(e: Event) => this.#uploadLogo(e)} />
          ${this.#logoForm.message()}
        </fieldset>
        <div class="field"><label for="s-domain">Custom domain<small>Optional, such as status.example.com</small></label>
          <input id="s-domain" name="customDomain" .value=${page.customDomain ?? ""} aria-invalid=${invalid("customDomain")} aria-describedby=${described("customDomain")} />${err("customDomain")}
          ${
            page.customDomain
              ? html`<p class="muted" style="margin-top:0.4rem">At your DNS provider, create:</p>
                <pre>${page.customDomain}.  CNAME  ${host}.</pre>`
              : nothing
          }
        </div>
        ${f.message()}
        <div class="row"><button class="primary" ?disabled=${f.busy}>Save settings</button><span role="status">${this.saved}</span></div>
      </fieldset>
    </form>`;
  }

  /** When the checks' incidents reach visitors, and their words. */
  #policy(page: Page): TemplateResult {
    const policy = page.incidentPolicy ?? DEFAULT_POLICY;
    const f = this.#policyForm;
    const err = (name: string) => f.error("p", name);
    const invalid = (name: string) => f.invalid(name);
    const described = (name: string, hint?: string) => f.describedBy("p", name, hint);
    const choice = (value: IncidentPolicy["publish"], label: string, hint: string) =>
      html`<label class="check"><input type="radio" name="publish" value=${value} .checked=${this.publishMode === value}
        @change=${() => (this.publishMode = value)} /> <span>${label}<small>${hint}</small></span></label>`;
    return html`<form id="policy" class="panel" novalidate @submit=${this.#savePolicy} aria-labelledby="policy-title">
      <h2 id="policy-title" style="margin-top:0">Incidents from the checks</h2>
      <p class="muted">When a service on this page goes down, Porchlight opens an incident for it. You choose when visitors read it.</p>
      <fieldset ?disabled=${!this.#canWrite} style="border:0;padding:0;margin:0">
        <fieldset class="choices"><legend>Publish automatic incidents</legend>
          ${choice("immediately", "At once", "Visitors read the incident as soon as the service is down")}
          ${choice("after", "Only outages that last", "Shorter ones stay yours, in the dashboard; you can publish them")}
          ${
            this.publishMode === "after"
              ? html`<div class="field" style="margin:0.25rem 0 0.5rem 1.6rem">
                <label for="p-after">Minutes<small>1 to 1,440</small></label>
                <input id="p-after" name="afterMinutes" type="number" min="1" max="1440" style="max-width:8rem"
                  .value=${String(policy.afterMinutes)} aria-invalid=${invalid("afterMinutes")} aria-describedby=${described("afterMinutes")} />${err("afterMinutes")}</div>`
              : nothing
          }
          ${choice("draft", "As drafts", "Nothing reaches visitors until you publish it from Incidents")}
          ${err("publish")}
        </fieldset>
        <fieldset><legend>Their words</legend>
          <p class="muted" id="p-placeholders">Plain words for visitors: <code>{service}</code> becomes the service's name on this page and <code>{duration}</code> how long it was down. Technical details (such as HTTP 500) are never shown to visitors; you see them under each update.</p>
          ${TEMPLATES.map(
            ([
              field,
              label,
              hint,
            ]) => html`<div class="field"><label for=${`p-t-${field}`}>${label}<small>${hint}</small></label>
              <textarea id=${`p-t-${field}`} name=${`t-${field}`} rows=${field === "title" ? 1 : 2}
                .value=${policy.template[field]} aria-invalid=${invalid(`t-${field}`)}
                aria-describedby=${described(`t-${field}`, `p-placeholders p-t-${field}-hint`)}></textarea>
              ${limitHint(`p-t-${field}-hint`, field === "title" ? LIMITS.title : LIMITS.text)}${err(`t-${field}`)}</div>`,
          )}
        </fieldset>
        ${f.message()}
        <div class="row"><button class="primary" ?disabled=${f.busy}>Save incident policy</button><span role="status">${this.policySaved}</span></div>
      </fieldset>
    </form>`;
  }

  #items(page: Page): TemplateResult {
    const onPage = new Set(page.items.map((i) => i.siteId));
    const free = (this.#load.value?.sites ?? []).filter((s) => !onPage.has(s.id));
    const ro = !this.#canWrite;
    const layout = layoutOf(page);
    return html`<section class="panel" aria-labelledby="items-title">
      <h2 id="items-title" style="margin-top:0">Items and groups</h2>
      <p class="muted" id="items-help">${
        ro
          ? "The sites this page shows, in order, in their groups."
          : `Drag an item or a group by its handle, or focus the handle and press the up and down arrows: an item steps into and out of the groups it meets. An item's Group list moves it too. A label has at most ${LIMITS.label} characters.`
      }</p>
      <p class="sr-only" aria-live="polite">${this.announcement}</p>
      ${page.items.length === 0 && page.groups.length === 0 ? html`<p>No item yet: add a site below.</p>` : nothing}
      <ol class="items">
        ${layout.map((entry, index) =>
          entry.kind === "item"
            ? this.#item(entry.item, `position ${index + 1} of ${layout.length}`, page, ro)
            : this.#group(entry, index, layout.length, page, ro),
        )}
      </ol>
      ${
        ro
          ? nothing
          : html`<form class="row" novalidate @submit=${this.#addItem}>
            <label class="sr-only" for="add-site">Site to add</label>
            <select id="add-site" name="siteId" style="flex:1">
              ${free.length === 0 ? html`<option value="">Every site is on the page</option>` : free.map((s) => html`<option value=${s.id}>${s.name}</option>`)}
            </select>
            <button ?disabled=${free.length === 0}>Add item</button>
          </form>
          <form class="row" novalidate @submit=${this.#addGroup} style="margin-top:0.5rem">
            <label class="sr-only" for="add-group">Name of the new group</label>
            <input id="add-group" name="groupName" autocomplete="off" placeholder="Group name, such as Payments" style="flex:1"
              aria-invalid=${this.groupError ? "true" : "false"} aria-describedby=${this.groupError ? "add-group-error" : nothing} />
            <button>Add group</button>
          </form>
          ${this.groupError ? html`<p class="error" id="add-group-error">${this.groupError}</p>` : nothing}`
      }
    </section>`;
  }

  /** The drag events of a row, keyed `i<id>` (an item) or `g<id>` (a group). */
  #dragEvents(key: string, onto: { item: number } | { group: number }) {
    return {
      start: (e: DragEvent) => {
        e.stopPropagation();
        this.dragKey = key;
        e.dataTransfer?.setData("text/plain", key);
      },
      over: (e: DragEvent) => {
        e.preventDefault();
        e.stopPropagation();
        this.overKey = key;
      },
      drop: (e: DragEvent) => {
        e.preventDefault();
        e.stopPropagation();
        this.#drop(onto);
      },
      end: () => {
        this.dragKey = "";
        this.overKey = "";
      },
    };
  }

  #group(entry: Extract<Entry, { kind: "group" }>, index: number, count: number, page: Page, ro: boolean) {
    const { group, members } = entry;
    const key = `g${group.id}`;
    const drag = this.#dragEvents(key, { group: group.id });
    const classes = ["group", this.dragKey === key ? "dragging" : "", this.overKey === key ? "over" : ""].join(" ");
    return html`<li class=${classes} data-key=${key} draggable=${ro ? "false" : "true"}
      @dragstart=${drag.start} @dragover=${drag.over} @dragleave=${() => (this.overKey = "")} @drop=${drag.drop}
      @dragend=${drag.end}>
      ${
        ro
          ? nothing
          : html`<button type="button" class="handle link" aria-describedby="items-help"
            aria-label=${`Move group ${group.name}, position ${index + 1} of ${count}`}
            @keydown=${(e: KeyboardEvent) => this.#onGroupKey(e, group.id)}>⠿</button>`
      }
      <label class="sr-only" for=${`group-${group.id}`}>Name of group ${group.name}</label>
      <input type="text" class="group-name" id=${`group-${group.id}`} .value=${group.name} ?disabled=${ro}
        @change=${(e: Event) => this.#changeGroup(group.id, { name: (e.target as HTMLInputElement).value })} />
      <label class="check"><input type="checkbox" ?checked=${group.collapsed} ?disabled=${ro}
        @change=${(e: Event) => this.#changeGroup(group.id, { collapsed: (e.target as HTMLInputElement).checked })} />
        <span>Closed<small>Open anyway while a member is at fault</small></span></label>
      ${ro ? nothing : html`<button type="button" class="danger" @click=${() => this.#removeGroup(group.id, group.name)} aria-label=${`Remove group ${group.name}`}>Remove</button>`}
      <label class="sr-only" for=${`group-d-${group.id}`}>Description of group ${group.name}</label>
      <input type="text" class="group-description" id=${`group-d-${group.id}`} .value=${group.description} ?disabled=${ro}
        placeholder="Description (optional)"
        @change=${(e: Event) => this.#changeGroup(group.id, { description: (e.target as HTMLInputElement).value })} />
      <ol class="members" aria-label=${`Items in ${group.name}`}>
        ${
          members.length === 0
            ? html`<li class="empty muted">No item yet: drag one here, or choose this group in an item's Group list.</li>`
            : members.map((item, at) =>
                this.#item(item, `position ${at + 1} of ${members.length} in ${group.name}`, page, ro),
              )
        }
      </ol>
    </li>`;
  }

  #item(item: Item, where: string, page: Page, ro: boolean): TemplateResult {
    const key = `i${item.id}`;
    const drag = this.#dragEvents(key, { item: item.id });
    const classes = [this.dragKey === key ? "dragging" : "", this.overKey === key ? "over" : ""].join(" ");
    return html`<li class=${classes} data-item=${item.id} data-key=${key} draggable=${ro ? "false" : "true"}
      @dragstart=${drag.start} @dragover=${drag.over} @dragleave=${() => (this.overKey = "")} @drop=${drag.drop}
      @dragend=${drag.end}>
      ${
        ro
          ? nothing
          : html`<button type="button" class="handle link" aria-describedby="items-help"
            aria-label=${`Move ${item.label}, ${where}`}
            @keydown=${(e: KeyboardEvent) => this.#onItemKey(e, item)}>⠿</button>`
      }
      <label class="sr-only" for=${`label-${item.id}`}>Label of ${item.label}</label>
      <input type="text" id=${`label-${item.id}`} .value=${item.label} ?disabled=${ro} aria-describedby="items-help"
        @change=${(e: Event) => this.#patchItem(item, { label: (e.target as HTMLInputElement).value })} />
      <label class="check"><input type="checkbox" ?checked=${item.visible} ?disabled=${ro}
        @change=${(e: Event) => this.#patchItem(item, { visible: (e.target as HTMLInputElement).checked })} /> Shown</label>
      ${
        page.groups.length === 0
          ? nothing
          : html`<label class="sr-only" for=${`item-group-${item.id}`}>Group of ${item.label}</label>
            <select id=${`item-group-${item.id}`} class="item-group" ?disabled=${ro}
              @change=${(e: Event) => this.#chooseGroup(item, (e.target as HTMLSelectElement).value)}>
              <option value="" ?selected=${item.groupId === null}>No group</option>
              ${page.groups.map((g) => html`<option value=${g.id} ?selected=${item.groupId === g.id}>${g.name}</option>`)}
            </select>`
      }
      ${ro ? nothing : html`<button type="button" class="danger" @click=${() => this.#removeItem(item)} aria-label=${`Remove ${item.label}`}>Remove</button>`}
    </li>`;
  }

  #preview(page: Page): TemplateResult {
    return html`<section class="panel" aria-labelledby="preview-title">
      <h2 id="preview-title" style="margin-top:0">Preview</h2>
      ${
        page.visibility === "public"
          ? html`<div class="preview">${keyed(this.previewKey, html`<porchlight-status slug=${page.slug} refresh="30"></porchlight-status>`)}</div>`
          : html`<p class="muted">A ${page.visibility} page asks its visitors to ${page.visibility === "private" ? "sign in" : "type the password"};
            <a href=${`/${page.slug}`} target="_blank" rel="noopener">open the hosted page</a> to see it as they do.</p>`
      }
    </section>`;
  }

  #embed(page: Page): TemplateResult {
    const origin = new URL(page.url).origin;
    const script = `<script type="module" src="${origin}/embed/porchlight.js"></script>\n<porchlight-status slug="${page.slug}"></porchlight-status>`;
    const iframe = `<iframe src="${origin}/${page.slug}?embed=1" title="${page.name.replace(/"/g, "&quot;")} status"\n  style="border:0; width:100%; height:40rem"></iframe>`;
    return html`<section class="panel" aria-labelledby="embed-title">
      <h2 id="embed-title" style="margin-top:0">Embed on your website</h2>
      <h3>Script tag</h3>
      <pre id="snippet-script">${script}</pre>
      <button type="button" @click=${() => this.#copy("Script snippet", script)}>Copy the script snippet</button>
      <h3>iframe</h3>
      <pre id="snippet-iframe">${iframe}</pre>
      <button type="button" @click=${() => this.#copy("iframe snippet", iframe)}>Copy the iframe snippet</button>
      <p role="status" class="muted">${this.copied}</p>
    </section>`;
  }

  #deleteForm(page: Page): TemplateResult {
    const matches = this.confirm === page.name;
    return html`<form class="panel danger-zone" novalidate @submit=${this.#delete} aria-labelledby="delete-title">
      <h2 id="delete-title" style="margin-top:0">Delete this page</h2>
      <p>Visitors, embeds and iframes stop seeing it at once. Its incidents go with it; the sites stay.</p>
      <div class="field">
        <label for="confirm-name">Type the page's name, <strong>${page.name}</strong>, exactly (letter case counts)</label>
        <input id="confirm-name" autocomplete="off" .value=${this.confirm}
          @input=${(e: Event) => (this.confirm = (e.target as HTMLInputElement).value)} />
      </div>
      <button class="danger solid" ?disabled=${!matches}>Delete ${page.name}</button>
    </form>`;
  }
}

customElements.define("pl-page", PlPage);
