import { Task } from "@lit/task";
import { css, html, LitElement, nothing, type TemplateResult } from "lit";
import type { Usage } from "../../../../server/contract/account.ts";
import type { SiteList } from "../../../../server/contract/site.ts";
import { allSites, api, problemText } from "../../lib/api.ts";
import { can, consumeMe } from "../../lib/context.ts";
import { FormController, limitHint } from "../../lib/form.ts";
import { dateTime } from "../../lib/format.ts";
import { PollController } from "../../lib/poll.ts";
import { BASE, follow, navigate } from "../../lib/router.ts";
import { shared } from "../../lib/styles.ts";
import type { Page, Site } from "../../lib/types.ts";
import { allPages, NAME_MAX, PAGE_SIZES, pageMatches, pageOf, SLUG_MAX, slugOf } from "./list.ts";
import { statusFromSites } from "./page-status.ts";

/**
 * The status pages: each with what its visitors read now (live), searchable by name or address, listed 10, 25 or
 * 50 at a time, newest first, each with a link to its hosted address; created with the plan's limit in view.
 */
export class PlPages extends LitElement {
  static override styles = [
    shared,
    css`
      .new {
        max-width: 36rem;
      }
      .size select {
        width: auto;
      }
      .tools {
        display: flex;
        flex-wrap: wrap;
        gap: 0.5rem 1rem;
        align-items: end;
        justify-content: space-between;
        margin: 0 0 0.75rem;
      }
      .tools .field {
        margin: 0;
        flex: 1 1 16rem;
        max-width: 24rem;
      }
      table.pages {
        table-layout: fixed;
      }
      .pages .c-status {
        width: 10rem;
      }
      .pages .c-visibility {
        width: 8rem;
      }
      .pages .c-items {
        width: 4.5rem;
      }
      .pages .c-created {
        width: 13rem;
      }
      .pages .c-view {
        width: 5rem;
        text-align: right;
      }
      /* A long name: one line, ellipsised, the whole of it in the title. */
      .name a,
      .name small {
        display: block;
        overflow: hidden;
        text-overflow: ellipsis;
        white-space: nowrap;
      }
      .name a {
        font-weight: 600;
        color: var(--text);
      }
      .name small {
        color: var(--muted);
      }
      .view {
        white-space: nowrap;
      }
      .name .line {
        display: flex;
        gap: 0.4rem;
        align-items: baseline;
        min-width: 0;
      }
      .name .line small {
        min-width: 0;
      }
      .m-only {
        display: none;
      }
      /* A phone: one dense row per page (name, then its status in words and its address; View); the rest is on the
         page's own screen. */
      @media (max-width: 640px) {
        .pages thead,
        .pages .c-status,
        .pages .c-visibility,
        .pages .c-items,
        .pages .c-created {
          display: none;
        }
        .pages td {
          padding: 0.45rem 0.25rem;
        }
        .pages .c-view {
          width: 3.5rem;
        }
        .m-only {
          display: inline-flex;
          font-size: 0.8rem;
        }
      }
    `,
  ];

  static override properties = {
    perPage: { state: true },
    page: { state: true },
    query: { state: true },
    creating: { state: true },
    slugEdited: { state: true },
    slug: { state: true },
  };

  declare perPage: number;
  declare page: number;
  declare query: string;
  declare creating: boolean;
  declare slugEdited: boolean;
  declare slug: string;

  readonly #me = consumeMe(this);
  readonly #form = new FormController(this);

  /** Every page (a search covers them all), the plan's use, and every site (what each page's status is made of). */
  readonly #load = new Task(this, {
    task: async (_args, { signal }) => {
      const [pages, usage, sites] = await Promise.all([
        allPages(signal),
        api<Usage>("GET", "/public/v1/workspace/usage", undefined, { signal }),
        allSites(),
      ]);
      return { pages, usage: usage.data, sites };
    },
    args: () => [] as const,
  });

  /**
   * The newest sites, live: a site going down changes its pages' status here within a poll. One request (304 while
   * nothing changed) serves every row; the sites beyond the newest 50 keep the status they had at load.
   */
  readonly #live = new PollController<SiteList>(this, { url: () => "/public/v1/sites?perPage=50" });

  constructor() {
    super();
    const params = new URLSearchParams(location.search);
    const size = Number(params.get("perPage"));
    this.perPage = (PAGE_SIZES as readonly number[]).includes(size) ? size : 10;
    this.page = Math.max(1, Number(params.get("page")) || 1);
    this.query = params.get("q") ?? "";
    this.creating = false;
    this.slugEdited = false;
    this.slug = "";
  }

  get #canWrite(): boolean {
    return can(this.#me.value, "status_pages:write");
  }

  /** The list's place and search, kept in the address so that Back and a shared link show the same list. */
  #go(page: number, perPage = this.perPage, query = this.query): void {
    this.page = page;
    this.perPage = perPage;
    this.query = query;
    const params = new URLSearchParams({ page: String(page), perPage: String(perPage) });
    if (query) params.set("q", query);
    history.replaceState(null, "", `${BASE}pages?${params}`);
  }

  #atLimit(usage: Usage | undefined): boolean {
    const u = usage?.statusPages;
    return !!u && u.limit !== null && u.used >= u.limit;
  }

  #create(event: SubmitEvent): Promise<unknown> {
    return this.#form.submit(event, async (data) => {
      const { data: page } = await api<Page>("POST", "/public/v1/status-pages", {
        name: String(data.get("name") ?? ""),
        slug: String(data.get("slug") ?? ""),
        visibility: String(data.get("visibility") ?? "public"),
      });
      navigate(`${BASE}pages/${page.id}`);
    });
  }

  /** Closes the form and forgets it: what was typed and what was refused, so the next page starts clean. */
  #cancel(): void {
    this.renderRoot.querySelector<HTMLFormElement>("form.new")?.reset();
    this.#form.reset();
    this.slug = "";
    this.slugEdited = false;
    this.creating = false;
  }

  override render(): TemplateResult {
    const loaded = this.#load.value;
    const usage = loaded?.usage;
    const u = usage?.statusPages;
    const atLimit = this.#atLimit(usage);
    return html`
      <div class="bar">
        <div>
          <h1>Status pages</h1>
          <p class="muted">
            ${u ? html`${u.used} of ${u.limit === null ? "unlimited" : u.limit} on the ${usage?.plan} plan` : "Loading…"}
          </p>
        </div>
        ${
          this.#canWrite
            ? html`<button class="primary" ?disabled=${atLimit} @click=${() => (this.creating = true)}
              aria-describedby=${atLimit ? "limit-note" : nothing}>Create a page</button>`
            : nothing
        }
      </div>
      ${
        atLimit
          ? html`<p class="notice" id="limit-note">Your plan allows ${u?.limit} status
            page${u?.limit === 1 ? "" : "s"}, and all are in use: delete one or change the plan to create another.</p>`
          : nothing
      }
      ${this.creating ? this.#newForm() : nothing}
      ${this.#load.render({
        pending: () => (loaded ? this.#list(loaded.pages, loaded.sites) : html`<p class="muted">Loading…</p>`),
        complete: ({ pages, sites }) => this.#list(pages, sites),
        error: (error) => html`<p class="notice bad" role="alert">${problemText(error)}</p>`,
      })}
    `;
  }

  #newForm(): TemplateResult {
    const f = this.#form;
    return html`<form class="panel new" novalidate @submit=${this.#create} aria-labelledby="new-page-title">
      <h2 id="new-page-title" style="margin-top:0">New status page</h2>
      <div class="field">
        <label for="p-name">Name</label>
        ${limitHint("p-name-hint", NAME_MAX)}
        <input id="p-name" name="name" autocomplete="off" aria-invalid=${f.invalid("name")}
          aria-describedby=${f.describedBy("p", "name", "p-name-hint")}
          @input=${(e: Event) => {
            if (!this.slugEdited) this.slug = slugOf((e.target as HTMLInputElement).value);
          }} />
        ${f.error("p", "name")}
      </div>
      <div class="field">
        <label for="p-slug">Address<small id="p-slug-hint">Visitors find the page at /<strong>${this.slug || "slug"}</strong>: lower-case letters, digits and dashes, at most ${SLUG_MAX} characters.</small></label>
        <input id="p-slug" name="slug" autocomplete="off" .value=${this.slug} aria-invalid=${f.invalid("slug")}
          aria-describedby=${f.describedBy("p", "slug", "p-slug-hint")}
          @input=${(e: Event) => {
            this.slugEdited = true;
            this.slug = (e.target as HTMLInputElement).value;
          }} />
        ${f.error("p", "slug")}
      </div>
      <div class="field">
        <label for="p-visibility">Who can see it</label>
        <select id="p-visibility" name="visibility" aria-invalid=${f.invalid("visibility")}
          aria-describedby=${f.describedBy("p", "visibility")}>
          <option value="public">Anyone (public)</option>
          <option value="private">Members of this workspace (private)</option>
        </select>
        ${f.error("p", "visibility")}
      </div>
      ${f.message()}
      <div class="row">
        <button class="primary" ?disabled=${f.busy}>Create</button>
        <button type="button" @click=${() => this.#cancel()}>Cancel</button>
      </div>
    </form>`;
  }

  #list(pages: Page[], loadedSites: Site[]): TemplateResult {
    const sites = new Map([...loadedSites, ...(this.#live.value?.sites ?? [])].map((s) => [s.id, s]));
    if (pages.length === 0) {
      return html`<div class="panel"><p style="margin:0">No status page yet. A page shows visitors how your sites are doing, on its own address or inside your website.</p></div>`;
    }
    const matching = pages.filter((p) => pageMatches(p, this.query));
    const { shown, page, pages: count } = pageOf(matching, this.page, this.perPage);
    return html`<div class="tools" role="search">
        <div class="field">
          <label for="page-search">Find a page</label>
          <small id="page-search-hint">By name or address</small>
          <input id="page-search" type="search" autocomplete="off" .value=${this.query} aria-controls="page-list"
            aria-describedby="page-search-hint"
            @input=${(e: Event) => this.#go(1, this.perPage, (e.target as HTMLInputElement).value)} />
        </div>
        <p class="muted" role="status" style="margin:0">${
          this.query.trim() === ""
            ? `${pages.length} page${pages.length === 1 ? "" : "s"}`
            : `${matching.length} of ${pages.length} pages match`
        }</p>
      </div>
      <div class="panel" style="padding:0.25rem 0.75rem" id="page-list">
        ${
          shown.length === 0
            ? html`<p style="margin:0.5rem 0">No page matches “${this.query.trim()}”.</p>`
            : html`<table class="pages">
              <thead>
                <tr>
                  <th scope="col" class="c-status">Status</th>
                  <th scope="col" class="c-name">Page</th>
                  <th scope="col" class="c-visibility">Visibility</th>
                  <th scope="col" class="c-items">Items</th>
                  <th scope="col" class="c-created">Created</th>
                  <th scope="col" class="c-view"><span class="sr-only">Hosted page</span></th>
                </tr>
              </thead>
              <tbody>
                ${shown.map((p) => this.#row(p, sites))}
              </tbody>
            </table>`
        }
      </div>
      <nav class="row" aria-label="Pages of status pages" style="justify-content:space-between">
        <div class="row">
          <button ?disabled=${page <= 1} @click=${() => this.#go(page - 1)}>Previous</button>
          <span class="muted">Page ${page} of ${count} · ${matching.length} in all</span>
          <button ?disabled=${page >= count} @click=${() => this.#go(page + 1)}>Next</button>
        </div>
        <div class="row size">
          <label for="per-page" style="margin:0">Per page</label>
          <select id="per-page" @change=${(e: Event) => this.#go(1, Number((e.target as HTMLSelectElement).value))}>
            ${PAGE_SIZES.map((n) => html`<option value=${n} ?selected=${n === this.perPage}>${n}</option>`)}
          </select>
        </div>
      </nav>`;
  }

  #row(page: Page, sites: ReadonlyMap<string, Site>): TemplateResult {
    const [word, look] = statusFromSites(page, sites);
    const visibility = { public: "Public", private: "Private", "password-protected": "Password" }[page.visibility];
    return html`<tr data-page=${page.id}>
      <td class="c-status"><span class="chip ${look}">${word}</span></td>
      <td class="c-name name">
        <a href=${`${BASE}pages/${page.id}`} title=${page.name} @click=${follow}>${page.name}</a>
        <span class="line"><span class="chip ${look} m-only">${word}</span><small title=${`/${page.slug}`}>/${page.slug}</small></span>
      </td>
      <td class="c-visibility">${visibility}</td>
      <td class="c-items">${page.items.length}</td>
      <td class="c-created">${dateTime(page.createdAt)}</td>
      <td class="c-view"><a class="view" href=${page.url} target="_blank" rel="noopener"
        aria-label=${`View ${page.name}, the hosted page (opens a new tab)`}>View</a></td>
    </tr>`;
  }
}

customElements.define("pl-pages", PlPages);
