import { css, html, LitElement, nothing, type TemplateResult } from "lit";
import type { z } from "zod";
import type { LinkInfo as LinkInfoSchema } from "../../../../server/contract/session.ts";
import { ApiProblem, api } from "../../lib/api.ts";
import { FormController } from "../../lib/form.ts";
import { BASE, navigate } from "../../lib/router.ts";
import { shared } from "../../lib/styles.ts";
import type { SessionInfo } from "../../lib/types.ts";

type LinkInfo = z.infer<typeof LinkInfoSchema>;

/**
 * Signing in, and the screens one-time links open: choosing a first password (setup), a new one (reset), joining a
 * workspace (join), and asking for a reset link (forgot). Fires `pl-session` with the new session.
 */
export class PlSignIn extends LitElement {
  static override styles = [
    shared,
    css`
      :host {
        display: block;
        max-width: 26rem;
        margin: 8vh auto 0;
      }
      .brand {
        font-weight: 700;
        font-size: 1.25rem;
        margin: 0 0 1.25rem;
        display: flex;
        align-items: center;
        gap: 0.5rem;
      }
      .brand::before {
        content: "";
        width: 0.9rem;
        height: 0.9rem;
        border-radius: 50%;
        background: var(--up);
      }
      .panel {
        padding: 1.5rem;
      }
      input {
        max-width: none;
      }
      button.primary {
        width: 100%;
        justify-content: center;
        margin-top: 0.25rem;
      }
      .links {
        margin-top: 1rem;
        display: flex;
        justify-content: space-between;
        flex-wrap: wrap;
        gap: 0.5rem;
        font-size: 0.9rem;
      }
    `,
  ];

  static override properties = {
    mode: {},
    askTotp: { state: true },
    link: { state: true },
    sent: { state: true },
  };

  declare mode: string;
  declare askTotp: boolean;
  declare link: LinkInfo | null | undefined;
  declare sent: boolean;

  /** One form is shown at a time: sign-in, a link's password, or the reset request. */
  readonly #form = new FormController(this);

  constructor() {
    super();
    this.mode = "sign-in";
    this.askTotp = false;
    this.link = undefined;
    this.sent = false;
  }

  get #token(): string {
    return new URLSearchParams(location.hash.slice(1)).get("token") ?? "";
  }

  get #isLink(): boolean {
    return ["setup", "reset", "join"].includes(this.mode);
  }

  override willUpdate(changed: Map<string, unknown>): void {
    // Another form (sign-in → forgot): no message of the last one follows.
    if (changed.has("mode") && changed.get("mode") !== undefined) this.#form.reset();
  }

  override updated(changed: Map<string, unknown>): void {
    if (changed.has("mode") && this.#isLink && this.link === undefined) void this.#inspect();
  }

  async #inspect(): Promise<void> {
    try {
      this.link = (await api<LinkInfo>("POST", "/public/v1/account-links/inspect", { token: this.#token })).data;
    } catch {
      this.link = null;
    }
  }

  async #submit(event: SubmitEvent): Promise<void> {
    const session = await this.#form.submit(event, async (form) => {
      const value = (name: string) => String(form.get(name) ?? "");
      if (this.mode === "forgot") {
        await api("POST", "/public/v1/password-reset", { email: value("email") });
        this.sent = true;
        return null;
      }
      try {
        if (this.#isLink) {
          if (value("password") !== value("confirm")) {
            throw new ApiProblem(400, "validation", "The two passwords differ.", [
              { field: "confirm", message: "The two passwords differ: type the same one twice." },
            ]);
          }
          const { data } = await api<SessionInfo>("POST", "/public/v1/account-links/use", {
            token: this.#token,
            password: value("password"),
            ...(this.askTotp ? { totp: value("totp") } : {}),
          });
          history.replaceState(null, "", BASE);
          return data;
        }
        const body: Record<string, string> = { email: value("email"), password: value("password") };
        if (this.askTotp) body.totp = value("totp");
        return (await api<SessionInfo>("POST", "/public/v1/session", body)).data;
      } catch (error) {
        // The password was right and a second factor is on: ask for its code, not an error.
        if (error instanceof ApiProblem && error.kind === "totp_required") {
          this.askTotp = true;
          return null;
        }
        throw error;
      }
    });
    if (session) this.#done(session);
    else if (this.askTotp) {
      await this.updateComplete;
      this.renderRoot.querySelector<HTMLInputElement>("#totp")?.focus();
    }
  }

  #done(session: SessionInfo): void {
    this.dispatchEvent(new CustomEvent("pl-session", { detail: session, bubbles: true, composed: true }));
  }

  /** A field: its label, hint and the API's message beside it (ids `<name>-hint`, `<name>-error`). */
  #field(
    name: string,
    label: string,
    attributes: { type?: string; autocomplete: string; inputmode?: string },
    hint?: string,
  ): TemplateResult {
    const f = this.#form;
    return html`<div class="field">
      <label for=${name}>${label}${hint ? html`<small id=${`${name}-hint`}>${hint}</small>` : nothing}</label>
      <input id=${name} name=${name} type=${attributes.type ?? "text"} autocomplete=${attributes.autocomplete}
        inputmode=${attributes.inputmode ?? nothing} aria-invalid=${f.invalid(name)}
        aria-describedby=${f.describedBy("si", name, hint ? `${name}-hint` : undefined)} />
      ${f.error("si", name)}
    </div>`;
  }

  #password(name: string, label: string, autocomplete: string, hint?: string): TemplateResult {
    return this.#field(name, label, { type: "password", autocomplete }, hint);
  }

  #go(path: string) {
    return (event: Event) => {
      event.preventDefault();
      this.#form.reset();
      this.sent = false;
      navigate(path);
    };
  }

  #totpField(): TemplateResult {
    return this.#field(
      "totp",
      "Authenticator code",
      { autocomplete: "one-time-code", inputmode: "numeric" },
      "The 6 digits your authenticator app shows for Porchlight",
    );
  }

  override render(): TemplateResult {
    const title =
      {
        setup: "Choose your password",
        reset: "Choose a new password",
        join: "Join the workspace",
        forgot: "Reset your password",
      }[this.mode] ?? "Sign in to Porchlight";
    return html`
      <p class="brand" aria-hidden="true">Porchlight</p>
      <div class="panel">
        <h1>${title}</h1>
        ${this.#body()}
      </div>
      <div class="links">
        ${
          this.mode === "sign-in"
            ? html`<a href=${`${BASE}forgot`} @click=${this.#go(`${BASE}forgot`)}>Forgot your password?</a>`
            : html`<a href=${`${BASE}sign-in`} @click=${this.#go(`${BASE}sign-in`)}>Back to sign-in</a>`
        }
        <a href="/status">Public status pages</a>
      </div>
    `;
  }

  #body(): TemplateResult {
    if (this.mode === "forgot") {
      if (this.sent) {
        return html`<p role="status">If that address belongs to a member, a link to choose a new password is on its way. It works once, within an hour.</p>`;
      }
      return html`<form @submit=${this.#submit} novalidate>
        <p class="muted">We will e-mail you a link to choose a new password.</p>
        ${this.#field("email", "E-mail", { type: "email", autocomplete: "email" })}
        ${this.#form.message()}
        <button class="primary" ?disabled=${this.#form.busy}>Send the link</button>
      </form>`;
    }
    if (this.#isLink) {
      if (this.link === undefined) return html`<p class="muted">Checking the link…</p>`;
      if (this.link === null) {
        return html`<p class="notice bad">This link is unknown, used or expired. Ask for a new one with
          <a href=${`${BASE}forgot`} @click=${this.#go(`${BASE}forgot`)}>Forgot your password</a>, or from whoever invited you.</p>`;
      }
      const intro =
        this.link.kind === "invite"
          ? html`<p>You are invited to <strong>${this.link.workspace}</strong> as <strong>${this.link.role}</strong>.</p>`
          : nothing;
      return html`<form novalidate @submit=${this.#submit}>
        ${intro}
        <p class="muted">For <strong>${this.link.email}</strong></p>
        <input type="email" name="username" autocomplete="username" .value=${this.link.email} hidden />
        ${this.#password("password", "New password", "new-password", "12 to 128 characters. A few unrelated words are easy to remember.")}
        ${this.#password("confirm", "Repeat the password", "new-password")}
        ${this.askTotp ? this.#totpField() : nothing}
        ${this.#form.message()}
        <button class="primary" ?disabled=${this.#form.busy}>${this.link.kind === "invite" ? "Join" : "Save and sign in"}</button>
      </form>`;
    }
    return html`<form novalidate @submit=${this.#submit}>
      ${this.#field("email", "E-mail", { type: "email", autocomplete: "username" })}
      ${this.#password("password", "Password", "current-password")}
      ${this.askTotp ? this.#totpField() : nothing}
      ${this.#form.message()}
      <button class="primary" ?disabled=${this.#form.busy}>Sign in</button>
    </form>`;
  }
}

customElements.define("pl-sign-in", PlSignIn);
