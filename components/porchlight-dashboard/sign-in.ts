import { css, html, LitElement, nothing, type TemplateResult } from "lit";
import { ApiProblem, api, fieldErrorsOf, problemText } from "./api.ts";
import { BASE, navigate } from "./router.ts";
import { shared } from "./styles.ts";
import type { SessionInfo } from "./types.ts";

interface LinkInfo {
  kind: "setup" | "reset" | "invite";
  email: string;
  role: string | null;
  workspace: string;
}

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
    error: { state: true },
    fieldErrors: { state: true },
    busy: { state: true },
    askTotp: { state: true },
    link: { state: true },
    sent: { state: true },
  };

  declare mode: string;
  declare error: string;
  declare fieldErrors: Record<string, string>;
  declare busy: boolean;
  declare askTotp: boolean;
  declare link: LinkInfo | null | undefined;
  declare sent: boolean;

  constructor() {
    super();
    this.mode = "sign-in";
    this.error = "";
    this.fieldErrors = {};
    this.busy = false;
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
    event.preventDefault();
    const form = new FormData(event.target as HTMLFormElement);
    const value = (name: string) => String(form.get(name) ?? "");
    this.busy = true;
    this.error = "";
    this.fieldErrors = {};
    try {
      if (this.mode === "forgot") {
        await api("POST", "/public/v1/password-reset", { email: value("email") });
        this.sent = true;
        return;
      }
      if (this.#isLink) {
        if (value("password") !== value("confirm")) {
          this.fieldErrors = { confirm: "The two passwords differ" };
          return;
        }
        const { data } = await api<SessionInfo>("POST", "/public/v1/account-links/use", {
          token: this.#token,
          password: value("password"),
          ...(this.askTotp ? { totp: value("totp") } : {}),
        });
        history.replaceState(null, "", BASE);
        this.#done(data);
        return;
      }
      const body: Record<string, string> = { email: value("email"), password: value("password") };
      if (this.askTotp) body.totp = value("totp");
      const { data } = await api<SessionInfo>("POST", "/public/v1/session", body);
      this.#done(data);
    } catch (error) {
      if (error instanceof ApiProblem && error.kind === "totp_required") {
        this.askTotp = true;
        await this.updateComplete;
        this.renderRoot.querySelector<HTMLInputElement>("#totp")?.focus();
        return;
      }
      const fields = fieldErrorsOf(error);
      if (fields) {
        this.fieldErrors = fields;
      }
      this.error = problemText(error);
    } finally {
      this.busy = false;
    }
  }

  #done(session: SessionInfo): void {
    this.dispatchEvent(new CustomEvent("pl-session", { detail: session, bubbles: true, composed: true }));
  }

  #field(name: string, label: string, input: TemplateResult, hint?: string): TemplateResult {
    const error = this.fieldErrors[name];
    return html`<div class="field">
      <label for=${name}>${label}${hint ? html`<small id=${`${name}-hint`}>${hint}</small>` : nothing}</label>
      ${input} ${error ? html`<p class="error" id=${`${name}-error`}>${error}</p>` : nothing}
    </div>`;
  }

  #password(name: string, label: string, autocomplete: string, hint?: string): TemplateResult {
    const error = this.fieldErrors[name];
    return this.#field(
      name,
      label,
      html`<input id=${name} name=${name} type="password" required autocomplete=${autocomplete}
        minlength=${autocomplete === "new-password" ? 12 : nothing} maxlength="128"
        aria-invalid=${error ? "true" : nothing}
        aria-describedby=${[hint ? `${name}-hint` : "", error ? `${name}-error` : ""].join(" ").trim() || nothing} />`,
      hint,
    );
  }

  #go(path: string) {
    return (event: Event) => {
      event.preventDefault();
      this.error = "";
      this.sent = false;
      navigate(path);
    };
  }

  #totpField(): TemplateResult {
    return this.#field(
      "totp",
      "Authenticator code",
      html`<input id="totp" name="totp" inputmode="numeric" pattern="[0-9]{6}" maxlength="6" required autocomplete="one-time-code" />`,
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
        ${this.error ? html`<p class="error" role="alert">${this.error}</p>` : nothing}
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
        ${this.#field("email", "E-mail", html`<input id="email" name="email" type="email" required autocomplete="email" />`)}
        <button class="primary" ?disabled=${this.busy}>Send the link</button>
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
      return html`<form @submit=${this.#submit}>
        ${intro}
        <p class="muted">For <strong>${this.link.email}</strong></p>
        <input type="email" name="username" autocomplete="username" .value=${this.link.email} hidden />
        ${this.#password("password", "New password", "new-password", "At least 12 characters. A few unrelated words are easy to remember.")}
        ${this.#password("confirm", "Repeat the password", "new-password")}
        ${this.askTotp ? this.#totpField() : nothing}
        <button class="primary" ?disabled=${this.busy}>${this.link.kind === "invite" ? "Join" : "Save and sign in"}</button>
      </form>`;
    }
    return html`<form @submit=${this.#submit}>
      ${this.#field("email", "E-mail", html`<input id="email" name="email" type="email" required autocomplete="username" />`)}
      ${this.#password("password", "Password", "current-password")}
      ${this.askTotp ? this.#totpField() : nothing}
      <button class="primary" ?disabled=${this.busy}>Sign in</button>
    </form>`;
  }
}

customElements.define("pl-sign-in", PlSignIn);
