import { css, html, LitElement, nothing, type TemplateResult } from "lit";
import type { ImportCreated, ImportReport } from "../../../../server/contract/imports.ts";
import { upload } from "../../lib/api.ts";
import { can, consumeMe } from "../../lib/context.ts";
import { FormController } from "../../lib/form.ts";
import { BASE, follow } from "../../lib/router.ts";
import { shared } from "../../lib/styles.ts";
import { countOf, KIND_WORD, nounOf, SOURCES, type Source, tally } from "./words.ts";

/**
 * What was previewed: the answer, and the bytes and choices to send again when the owner confirms (the bytes as read
 * for the preview, so a file changed on disk since is not imported unseen).
 */
interface Previewed {
  report: ImportReport;
  source: Source;
  name: string;
  bytes: Blob;
  slug: string;
}

/**
 * Moving in from another tool (issue 31): the owner picks the tool and its file, sees what the import would create
 * and skip (the API's dry run, nothing written), and confirms; the answer lists what was created, with links, and a
 * new push site's address shown this once. The API is the one judge of the file: its refusal is shown as it says it.
 */
export class PlImport extends LitElement {
  static override styles = [
    shared,
    css`
      fieldset {
        border: 0;
        margin: 0 0 0.9rem;
        padding: 0;
      }
      legend {
        font-weight: 600;
        margin: 0 0 0.4rem;
        padding: 0;
      }
      .sources {
        display: grid;
        grid-template-columns: repeat(auto-fit, minmax(14rem, 1fr));
        gap: 0.5rem;
      }
      .source {
        display: flex;
        gap: 0.6rem;
        align-items: flex-start;
        border: 1px solid var(--line);
        border-radius: var(--radius);
        padding: 0.7rem 0.8rem;
        margin: 0;
        cursor: pointer;
      }
      .source:has(input:checked) {
        border-color: var(--accent);
        box-shadow: inset 0 0 0 1px var(--accent);
      }
      .source input {
        width: auto;
        margin: 0.3rem 0 0;
      }
      .source small {
        display: block;
        color: var(--muted);
        font-weight: 400;
      }
      .tally {
        display: flex;
        flex-wrap: wrap;
        gap: 0.4rem;
        list-style: none;
        margin: 0 0 1rem;
        padding: 0;
      }
      .tally li {
        border: 1px solid var(--line);
        border-radius: 999px;
        padding: 0.15rem 0.65rem;
        font-size: 0.9rem;
      }
      .tally strong {
        font-variant-numeric: tabular-nums;
      }
      td.notes {
        color: var(--muted);
        font-size: 0.9rem;
      }
      td.notes ul,
      ul.skipped {
        margin: 0;
        padding-left: 1.1rem;
      }
      .scroll {
        max-height: 28rem;
        overflow: auto;
      }
      .push li {
        margin: 0 0 0.75rem;
      }
      .push pre {
        margin: 0.25rem 0;
      }
    `,
  ];

  static override properties = {
    source: { state: true },
    preview: { state: true },
    done: { state: true },
    copied: { state: true },
  };

  declare source: Source;
  declare preview: Previewed | null;
  /** The import's answer, once confirmed. */
  declare done: ImportReport | null;
  /** The push address last copied. */
  declare copied: string;

  readonly #me = consumeMe(this);
  readonly #chooseForm = new FormController(this);
  readonly #confirmForm = new FormController(this);

  constructor() {
    super();
    this.source = "uptime-kuma";
    this.preview = null;
    this.done = null;
    this.copied = "";
  }

  override render(): TemplateResult {
    const back = html`<a href=${BASE} @click=${follow}>← Sites</a>`;
    const head = html`${back}
      <div class="bar">
        <div>
          <h1>Move in from another tool</h1>
          <p class="muted">Monitors, status pages, incidents and maintenance from Uptime Kuma, Atlassian Statuspage or
            Gatus. You see everything an import would create before anything is written, and importing the same file
            again creates nothing twice. <a href="/docs/importing/">What carries over</a></p>
        </div>
      </div>`;
    if (!can(this.#me.value, "sites:write")) {
      return html`${head}<p class="panel">Importing adds sites and pages: an owner, an admin or an editor can import.</p>`;
    }
    if (this.done) return html`${head}${this.#done(this.done)}`;
    if (this.preview) return html`${head}${this.#preview(this.preview)}`;
    return html`${head}${this.#choose()}`;
  }

  #choose(): TemplateResult {
    const f = this.#chooseForm;
    const chosen = SOURCES[this.source];
    return html`<form class="panel" novalidate @submit=${this.#previewFile} aria-labelledby="im-title">
      <h2 id="im-title" style="margin-top:0">The file</h2>
      <fieldset>
        <legend>From</legend>
        <div class="sources">
          ${Object.entries(SOURCES).map(
            ([source, s]) => html`<label class="source">
              <input type="radio" name="source" value=${source} ?checked=${this.source === source}
                @change=${() => (this.source = source as Source)} />
              <span>${s.name}<small>${s.what}</small></span>
            </label>`,
          )}
        </div>
      </fieldset>
      <div class="field">
        <label for="im-file">${chosen.label}<small>${chosen.where}</small></label>
        <input id="im-file" name="file" type="file" accept=${chosen.accept} aria-invalid=${f.invalid("file")}
          aria-describedby=${f.describedBy("im", "file")} />${f.error("im", "file")}
      </div>
      ${
        chosen.page
          ? html`<div class="field">
              <label for="im-slug">The new page's address <small>Optional: letters, digits and dashes, such as
                <code>acme</code> for /acme. Left blank, it comes from the page's name.</small></label>
              <input id="im-slug" name="slug" autocomplete="off" spellcheck="false" style="max-width:20rem"
                aria-invalid=${f.invalid("slug")} aria-describedby=${f.describedBy("im", "slug")} />${f.error("im", "slug")}
            </div>`
          : nothing
      }
      ${f.message()}
      <div class="row"><button class="primary" ?disabled=${f.busy}>${f.busy ? "Reading the file…" : "Preview the import"}</button></div>
    </form>`;
  }

  readonly #previewFile = async (event: SubmitEvent) => {
    const f = this.#chooseForm;
    const form = event.target as HTMLFormElement;
    const file = form.querySelector<HTMLInputElement>("#im-file")?.files?.[0];
    event.preventDefault();
    if (!file) {
      f.errors = { file: `Choose ${SOURCES[this.source].file} first.` };
      f.problem = "";
      this.requestUpdate();
      form.querySelector<HTMLElement>("#im-file")?.focus();
      return;
    }
    const source = this.source;
    const slug = String(new FormData(form).get("slug") ?? "").trim();
    const report = await f.submit(event, async () => {
      const bytes = new Blob([await file.arrayBuffer()]);
      return { bytes, report: await this.#send(source, bytes, slug, true) };
    });
    if (!report) return;
    this.preview = { ...report, source, name: file.name, slug };
    await this.updateComplete;
    this.renderRoot.querySelector<HTMLElement>("#pv-title")?.focus();
  };

  /** The file to the source's route: as its media type, whatever the browser guessed from the file's name. */
  #send(source: Source, file: Blob, slug: string, dryRun: boolean): Promise<ImportReport> {
    const query = new URLSearchParams();
    if (dryRun) query.set("dryRun", "true");
    if (slug && SOURCES[source].page) query.set("slug", slug);
    return upload<ImportReport>(`/public/v1/imports/${source}${query.size > 0 ? `?${query}` : ""}`, file, {
      method: "POST",
      type: SOURCES[source].type,
    });
  }

  #preview(p: Previewed): TemplateResult {
    const { report } = p;
    const f = this.#confirmForm;
    const count = report.created.length;
    return html`<section class="panel" aria-labelledby="pv-title">
      <h2 id="pv-title" tabindex="-1" style="margin-top:0">What this import would do</h2>
      <p>Read <strong>${p.name}</strong> as ${report.detected}. Nothing is written until you import.</p>
      ${
        count > 0
          ? html`${this.#tally(report.created)}${this.#createdTable(report.created, false)}`
          : html`<p class="notice" role="status">Nothing new to create: this file was imported before, or everything
              in it is skipped below.</p>`
      }
      ${this.#skipped(report)}
      ${f.message()}
      <div class="row" style="margin-top:1rem">
        ${count > 0 ? html`<button class="primary" ?disabled=${f.busy} @click=${this.#confirm}>${f.busy ? "Importing…" : `Import ${countOf(count, "object")}`}</button>` : nothing}
        <button type="button" ?disabled=${f.busy} @click=${this.#again}>Choose another file</button>
      </div>
    </section>`;
  }

  readonly #confirm = async () => {
    const p = this.preview;
    if (!p) return;
    const report = await this.#confirmForm.submit(null, () => this.#send(p.source, p.bytes, p.slug, false));
    if (!report) return;
    this.preview = null;
    this.done = report;
    await this.updateComplete;
    this.renderRoot.querySelector<HTMLElement>("#done-title")?.focus();
  };

  readonly #again = async () => {
    this.preview = null;
    this.done = null;
    this.copied = "";
    this.#chooseForm.reset();
    this.#confirmForm.reset();
    await this.updateComplete;
    this.renderRoot.querySelector<HTMLElement>("#im-file")?.focus();
  };

  #done(report: ImportReport): TemplateResult {
    const pushes = report.created.filter((c): c is ImportCreated & { pushUrl: string } => c.pushUrl !== undefined);
    return html`<section class="panel" aria-labelledby="done-title">
      <h2 id="done-title" tabindex="-1" style="margin-top:0">Imported from ${report.detected}</h2>
      ${
        report.created.length > 0
          ? html`<p role="status">Created ${tally(report.created)
              .map(([kind, n]) => countOf(n, KIND_WORD[kind]))
              .join(", ")}.</p>
            ${this.#createdTable(report.created, true)}`
          : html`<p role="status">Nothing new was created: this file was imported before.</p>`
      }
      ${pushes.length > 0 ? this.#pushes(pushes) : nothing}
      ${this.#skipped(report)}
      <div class="row" style="margin-top:1rem">
        <a class="button primary" href=${BASE} @click=${follow}>Go to the sites</a>
        <a class="button" href=${`${BASE}pages`} @click=${follow}>Status pages</a>
        <button type="button" @click=${this.#again}>Import another file</button>
      </div>
    </section>`;
  }

  #tally(created: ImportCreated[]): TemplateResult {
    return html`<ul class="tally" aria-label="What would be created">
      ${tally(created).map(([kind, n]) => html`<li><strong>${n}</strong> ${nounOf(n, KIND_WORD[kind])}</li>`)}
    </ul>`;
  }

  #createdTable(created: ImportCreated[], linked: boolean): TemplateResult {
    return html`<div class="scroll">
      <table class="responsive">
        <caption class="sr-only">${linked ? "Created" : "Would be created"}, with what did not carry over exactly</caption>
        <thead><tr><th scope="col">What</th><th scope="col">Name</th><th scope="col">Notes</th></tr></thead>
        <tbody>
          ${created.map(
            (c) => html`<tr>
              <td data-label="What">${KIND_WORD[c.kind][0]}</td>
              <td data-label="Name">${linked ? this.#link(c) : c.name}</td>
              <td data-label="Notes" class="notes">${
                c.notes.length === 0
                  ? "—"
                  : c.notes.length === 1
                    ? c.notes[0]
                    : html`<ul>${c.notes.map((n) => html`<li>${n}</li>`)}</ul>`
              }</td>
            </tr>`,
          )}
        </tbody>
      </table>
    </div>`;
  }

  /** A created site or page, linked to its screen. */
  #link(c: ImportCreated): TemplateResult | string {
    if (c.id === null) return c.name;
    if (c.kind === "site")
      return html`<a href=${`${BASE}sites/${encodeURIComponent(c.id)}`} @click=${follow}>${c.name}</a>`;
    if (c.kind === "page")
      return html`<a href=${`${BASE}pages/${encodeURIComponent(c.id)}`} @click=${follow}>${c.name}</a>`;
    return c.name;
  }

  #skipped(report: ImportReport): TemplateResult | typeof nothing {
    if (report.skipped.length === 0) return nothing;
    return html`<h3>Skipped (${report.skipped.length})</h3>
      <ul class="skipped">
        ${report.skipped.map((s) => html`<li><strong>${s.name}</strong> (${KIND_WORD[s.kind][0]}): ${s.reason}</li>`)}
      </ul>`;
  }

  #pushes(pushes: (ImportCreated & { pushUrl: string })[]): TemplateResult {
    return html`<h3>Push addresses</h3>
      <p><strong>Copy them now: they are not shown again.</strong> A job reports to its address; a site that hears
        nothing within its interval is down.</p>
      <ul class="push">
        ${pushes.map(
          (c) => html`<li><strong>${c.name}</strong><pre>${c.pushUrl}</pre>
            <button type="button" @click=${() => this.#copy(c.pushUrl)}>Copy</button>
            <span role="status">${this.copied === c.pushUrl ? "Copied." : ""}</span></li>`,
        )}
      </ul>`;
  }

  async #copy(text: string): Promise<void> {
    try {
      await navigator.clipboard.writeText(text);
      this.copied = text;
    } catch {
      this.copied = "";
    }
  }
}

customElements.define("pl-import", PlImport);

declare global {
  interface HTMLElementTagNameMap {
    "pl-import": PlImport;
  }
}
