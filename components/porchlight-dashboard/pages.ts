import { css, html, LitElement, nothing, type TemplateResult } from "lit";
import { api, fieldErrorsOf, problemText } from "./api.ts";
import { dateTime } from "./format.ts";
import { BASE, navigate } from "./router.ts";
import { shared } from "./styles.ts";
import type { MeInfo, Page, Pagination } from "./types.ts";

interface Usage {
  plan: string;
  statusPages: { used: number; limit: number | null };
}

/** Spec 8: the dashboard lists status pages 10 (default), 25 or 50 at a time, newest first. */
export const PAGE_SIZES = [10, 25, 50] as const;

/** A slug from a name: lowercase letters, digits and inner dashes, as the API takes it. */
export function slugOf(name: string): string {
  return name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 64)
    .replace(/-+$/, "");
}

/** The status pages: listed 10, 25 or 50 at a time, newest first; created with the plan's limit in view. */
export class PlPages extends LitElement {
  static override styles = [
    shared,
    css`
      .name a {
        font-weight: 600;
        color: var(--text);
      }
      .name small {
        display: block;
        color: var(--muted);
      }
      .new {
        max-width: 36rem;
      }
      .size select {
        width: auto;
      }
    `,
  ];

  static override properties = {
    me: { attribute: false },
    pages: { state: true },
    pagination: { state: true },
    perPage: { state: true },
    page: { state: true },
    usage: { state: true },
    creating: { state: true },
    error: { state: true },
    fieldErrors: { state: true },
    slugEdited: { state: true },
    slug: { state: true },
  };

  declare me: MeInfo;
  declare pages: Page[] | null;
  declare pagination: Pagination | null;
  declare perPage: number;
  declare page: number;
  declare usage: Usage | null;
  declare creating: boolean;
  declare error: string;
  declare fieldErrors: Record<string, string>;
  declare slugEdited: boolean;
  declare slug: string;

  constructor() {
    super();
    this.pages = null;
    this.pagination = null;
    const size = Number(new URLSearchParams(location.search).get("perPage"));
    this.perPage = (PAGE_SIZES as readonly number[]).includes(size) ? size : 10;
    this.page = Math.max(1, Number(new URLSearchParams(location.search).get("page")) || 1);
    this.usage = null;
    this.creating = false;
    this.error = "";
    this.fieldErrors = {};
    this.slugEdited = false;
    this.slug = "";
  }

  get #canWrite(): boolean {
    return this.me.permissions.includes("status_pages:write");
  }

  override connectedCallback(): void {
    super.connectedCallback();
    void this.#load();
  }

  async #load(): Promise<void> {
    try {
      const [list, usage] = await Promise.all([
        api<{ statusPages?: Page[]; pages?: Page[]; pagination: Pagination }>(
          "GET",
          `/public/v1/status-pages?page=${this.page}&perPage=${this.perPage}`,
        ),
        api<Usage>("GET", "/public/v1/workspace/usage"),
      ]);
      this.pages = list.data.statusPages ?? list.data.pages ?? [];
      this.pagination = list.data.pagination;
      this.usage = usage.data;
      this.error = "";
    } catch (error) {
      this.error = problemText(error);
    }
  }

  #go(page: number, perPage = this.perPage): void {
    this.page = page;
    this.perPage = perPage;
    history.replaceState(null, "", `${BASE}pages?page=${page}&perPage=${perPage}`);
    void this.#load();
  }

  get #atLimit(): boolean {
    const u = this.usage?.statusPages;
    return !!u && u.limit !== null && u.used >= u.limit;
  }

  async #create(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    const data = new FormData(event.target as HTMLFormElement);
    this.fieldErrors = {};
    try {
      const { data: page } = await api<Page>("POST", "/public/v1/status-pages", {
        name: String(data.get("name") ?? ""),
        slug: String(data.get("slug") ?? ""),
        visibility: String(data.get("visibility") ?? "public"),
      });
      navigate(`${BASE}pages/${page.id}`);
    } catch (error) {
      const fields = fieldErrorsOf(error);
      if (fields) {
        this.fieldErrors = fields;
      } else {
        this.error = problemText(error);
      }
    }
  }

  override render(): TemplateResult {
    const u = this.usage?.statusPages;
    return html`
      <div class="bar">
        <div>
          <h1>Status pages</h1>
          <p class="muted">
            ${u ? html`${u.used} of ${u.limit === null ? "unlimited" : u.limit} on the ${this.usage?.plan} plan` : "Loading…"}
          </p>
        </div>
        ${
          this.#canWrite
            ? html`<button class="primary" ?disabled=${this.#atLimit} @click=${() => (this.creating = true)}
              aria-describedby=${this.#atLimit ? "limit-note" : nothing}>Create a page</button>`
            : nothing
        }
      </div>
      ${
        this.#atLimit
          ? html`<p class="notice" id="limit-note">Your plan allows ${u?.limit} status
            page${u?.limit === 1 ? "" : "s"}, and all are in use: delete one or change the plan to create another.</p>`
          : nothing
      }
      ${this.error ? html`<p class="notice bad" role="alert">${this.error}</p>` : nothing}
      ${this.creating ? this.#form() : nothing} ${this.#list()}
    `;
  }

  #form(): TemplateResult {
    const error = (name: string) =>
      this.fieldErrors[name] ? html`<p class="error" id=${`p-${name}-error`}>${this.fieldErrors[name]}</p>` : nothing;
    const invalid = (name: string) => (this.fieldErrors[name] ? "true" : nothing);
    return html`<form class="panel new" @submit=${this.#create}>
      <h2 style="margin-top:0">New status page</h2>
      <div class="field">
        <label for="p-name">Name</label>
        <input id="p-name" name="name" required maxlength="100" aria-invalid=${invalid("name")}
          @input=${(e: Event) => {
            if (!this.slugEdited) this.slug = slugOf((e.target as HTMLInputElement).value);
          }} />
        ${error("name")}
      </div>
      <div class="field">
        <label for="p-slug">Address<small>Visitors find the page at /<strong>${this.slug || "slug"}</strong></small></label>
        <input id="p-slug" name="slug" required maxlength="64" .value=${this.slug} aria-invalid=${invalid("slug")}
          aria-describedby=${this.fieldErrors.slug ? "p-slug-error" : nothing}
          @input=${(e: Event) => {
            this.slugEdited = true;
            this.slug = (e.target as HTMLInputElement).value;
          }} />
        ${error("slug")}
      </div>
      <div class="field">
        <label for="p-visibility">Who can see it</label>
        <select id="p-visibility" name="visibility">
          <option value="public">Anyone (public)</option>
          <option value="private">Members of this workspace (private)</option>
        </select>
      </div>
      <div class="row">
        <button class="primary">Create</button>
        <button type="button" @click=${() => (this.creating = false)}>Cancel</button>
      </div>
    </form>`;
  }

  #list(): TemplateResult {
    if (this.pages === null) return html``;
    if (this.pages.length === 0 && this.page === 1) {
      return html`<div class="panel"><p>No status page yet. A page shows visitors how your sites are doing, on its own address or inside your website.</p></div>`;
    }
    const p = this.pagination;
    return html`<div class="panel" style="padding:0.25rem 0.75rem">
        <table class="responsive">
          <thead>
            <tr><th scope="col">Page</th><th scope="col">Visibility</th><th scope="col">Items</th><th scope="col">Created</th></tr>
          </thead>
          <tbody>
            ${this.pages.map(
              (page) => html`<tr data-page=${page.id}>
                <td class="name" data-label="Page"><span><a href=${`${BASE}pages/${page.id}`} @click=${(
                  e: MouseEvent,
                ) => {
                  e.preventDefault();
                  navigate(`${BASE}pages/${page.id}`);
                }}>${page.name}</a><small>/${page.slug}</small></span></td>
                <td data-label="Visibility">${page.visibility}</td>
                <td data-label="Items">${page.items.length}</td>
                <td data-label="Created">${dateTime(page.createdAt)}</td>
              </tr>`,
            )}
          </tbody>
        </table>
      </div>
      ${
        p
          ? html`<nav class="row" aria-label="Pages of status pages" style="justify-content:space-between">
            <div class="row">
              <button ?disabled=${p.page <= 1} @click=${() => this.#go(p.page - 1)}>Previous</button>
              <span class="muted">Page ${p.page} of ${Math.max(1, p.totalPages)} · ${p.total} in all</span>
              <button ?disabled=${p.page >= p.totalPages} @click=${() => this.#go(p.page + 1)}>Next</button>
            </div>
            <div class="row size">
              <label for="per-page" style="margin:0">Per page</label>
              <select id="per-page" @change=${(e: Event) => this.#go(1, Number((e.target as HTMLSelectElement).value))}>
                ${PAGE_SIZES.map((n) => html`<option value=${n} ?selected=${n === this.perPage}>${n}</option>`)}
              </select>
            </div>
          </nav>`
          : nothing
      }`;
  }
}

customElements.define("pl-pages", PlPages);
