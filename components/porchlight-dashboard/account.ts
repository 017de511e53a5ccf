import { css, html, LitElement, nothing, type TemplateResult } from "lit";
import { ApiProblem, api, problemText, setCsrf } from "./api.ts";
import { ago, dateTime } from "./format.ts";
import { BASE, navigate } from "./router.ts";
import { shared } from "./styles.ts";
import type { MeInfo } from "./types.ts";

interface Token {
  id: string;
  name: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}
interface Member {
  id: string;
  email: string;
  role: string;
  createdAt: string;
  hasPassword: boolean;
  totpEnabled: boolean;
}
interface Invitation {
  id: string;
  email: string;
  role: string;
  expiresAt: string;
}
interface Usage {
  plan: string;
  statusPages: { used: number; limit: number | null };
  sites: { used: number };
  members: { used: number };
}

/**
 * The account: plan and usage, API tokens (created and shown once, listed with last use, revoked), members and
 * invitations (for those whose role manages them), the password, the second factor and signing out everywhere.
 */
export class PlAccount extends LitElement {
  static override styles = [
    shared,
    css`
      .new-token {
        border-left: 4px solid var(--up);
      }
      .usage {
        display: grid;
        grid-template-columns: repeat(auto-fit, minmax(10rem, 1fr));
        gap: 0.75rem;
      }
      .usage div {
        background: var(--panel);
        border: 1px solid var(--line);
        border-radius: var(--radius);
        padding: 0.75rem;
      }
      .usage strong {
        display: block;
        font-size: 1.35rem;
      }
    `,
  ];

  static override properties = {
    me: { attribute: false },
    tokens: { state: true },
    members: { state: true },
    invitations: { state: true },
    usage: { state: true },
    created: { state: true },
    message: { state: true },
    error: { state: true },
    totp: { state: true },
  };

  declare me: MeInfo;
  declare tokens: Token[];
  declare members: Member[] | null;
  declare invitations: Invitation[];
  declare usage: Usage | null;
  declare created: string;
  declare message: string;
  declare error: string;
  declare totp: { secret: string; uri: string; sealed: string } | null;

  constructor() {
    super();
    this.tokens = [];
    this.members = null;
    this.invitations = [];
    this.usage = null;
    this.created = "";
    this.message = "";
    this.error = "";
    this.totp = null;
  }

  get #manages(): boolean {
    return this.me.permissions.includes("members:manage");
  }

  override connectedCallback(): void {
    super.connectedCallback();
    void this.#load();
  }

  async #load(): Promise<void> {
    try {
      const [tokens, usage] = await Promise.all([
        api<Token[]>("GET", "/public/v1/tokens"),
        api<Usage>("GET", "/public/v1/workspace/usage"),
      ]);
      this.tokens = tokens.data;
      this.usage = usage.data;
      if (this.#manages) {
        const { data } = await api<{ members: Member[]; invitations: Invitation[] }>("GET", "/public/v1/members");
        this.members = data.members;
        this.invitations = data.invitations;
      }
    } catch (error) {
      this.error = problemText(error);
    }
  }

  async #act(action: () => Promise<unknown>, done: string): Promise<void> {
    this.error = "";
    this.message = "";
    try {
      await action();
      this.message = done;
      await this.#load();
    } catch (error) {
      this.error = error instanceof ApiProblem && error.details[0] ? error.details[0].message : problemText(error);
    }
  }

  async #createToken(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    const form = event.target as HTMLFormElement;
    const name = String(new FormData(form).get("name") ?? "");
    await this.#act(async () => {
      const { data } = await api<Token & { token: string }>("POST", "/public/v1/tokens", { name });
      this.created = data.token;
      form.reset();
    }, "Token created");
  }

  async #invite(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    const form = event.target as HTMLFormElement;
    const data = new FormData(form);
    await this.#act(async () => {
      await api("POST", "/public/v1/invitations", { email: String(data.get("email")), role: String(data.get("role")) });
      form.reset();
    }, "Invitation sent");
  }

  async #changePassword(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    const form = event.target as HTMLFormElement;
    const data = new FormData(form);
    await this.#act(async () => {
      const { data: session } = await api<{ csrfToken?: string }>("POST", "/public/v1/me/password", {
        currentPassword: String(data.get("current")),
        password: String(data.get("password")),
      });
      // Every session ended; this browser has a new one, with a new CSRF token.
      if (session.csrfToken) setCsrf(session.csrfToken);
      form.reset();
    }, "Password changed; other browsers are signed out");
  }

  async #totpOn(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    const code = String(new FormData(event.target as HTMLFormElement).get("code") ?? "");
    await this.#act(async () => {
      await api("POST", "/public/v1/me/totp", { sealed: this.totp?.sealed, code });
      this.totp = null;
      this.me = { ...this.me, totpEnabled: true };
    }, "Second factor on: sign-in now asks for a code");
  }

  override render(): TemplateResult {
    return html`
      <h1>Account</h1>
      <p class="muted">${this.me.email} · ${this.me.role}</p>
      ${this.message ? html`<p class="notice" role="status">${this.message}</p>` : nothing}
      ${this.error ? html`<p class="notice bad" role="alert">${this.error}</p>` : nothing}
      ${this.#usage()} ${this.#tokens()} ${this.#manages ? this.#members() : nothing} ${this.#security()}
    `;
  }

  #usage(): TemplateResult {
    const u = this.usage;
    if (!u) return html``;
    return html`<h2>Plan and usage</h2>
      <div class="usage">
        <div><span class="muted">Plan</span><strong>${u.plan}</strong></div>
        <div><span class="muted">Status pages</span><strong>${u.statusPages.used} / ${u.statusPages.limit ?? "∞"}</strong></div>
        <div><span class="muted">Sites</span><strong>${u.sites.used}</strong></div>
        <div><span class="muted">Members</span><strong>${u.members.used}</strong></div>
      </div>`;
  }

  #tokens(): TemplateResult {
    return html`<h2>API tokens</h2>
      <p class="muted">A token acts as you, with your role, for scripts and the <code>curl</code> examples of the
        <a href="/docs">API reference</a>.</p>
      ${
        this.created
          ? html`<div class="panel new-token" role="status">
            <p><strong>Copy the token now:</strong> it is not shown again.</p>
            <pre id="new-token">${this.created}</pre>
            <button type="button" @click=${() => navigator.clipboard.writeText(this.created)}>Copy</button>
            <button type="button" class="link" @click=${() => (this.created = "")}>Done</button>
          </div>`
          : nothing
      }
      <form class="row" @submit=${this.#createToken} style="margin-bottom:0.75rem">
        <label class="sr-only" for="token-name">Token name</label>
        <input id="token-name" name="name" required maxlength="100" placeholder="What it is for, such as deploy script" style="max-width:20rem" />
        <button class="primary">Create token</button>
      </form>
      <div class="panel" style="padding:0.25rem 0.75rem">
        <table class="responsive">
          <thead><tr><th scope="col">Name</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
          <tbody>
            ${this.tokens.map(
              (t) => html`<tr>
                <td data-label="Name">${t.name}</td>
                <td data-label="Created">${dateTime(t.createdAt)}</td>
                <td data-label="Last used">${t.revokedAt ? html`<span class="muted">revoked</span>` : ago(t.lastUsedAt)}</td>
                <td data-label="">${
                  t.revokedAt
                    ? nothing
                    : html`<button type="button" class="danger" aria-label=${`Revoke ${t.name}`}
                      @click=${() => this.#act(() => api("DELETE", `/public/v1/tokens/${t.id}`), `Revoked ${t.name}`)}>Revoke</button>`
                }</td>
              </tr>`,
            )}
          </tbody>
        </table>
      </div>`;
  }

  #members(): TemplateResult {
    return html`<h2>Members</h2>
      <form class="row" @submit=${this.#invite} style="margin-bottom:0.75rem">
        <label class="sr-only" for="invite-email">E-mail to invite</label>
        <input id="invite-email" name="email" type="email" required placeholder="someone@example.com" style="max-width:18rem" />
        <label class="sr-only" for="invite-role">Role</label>
        <select id="invite-role" name="role" style="width:auto">
          <option value="viewer">Viewer</option>
          <option value="editor">Editor</option>
          <option value="admin">Admin</option>
        </select>
        <button class="primary">Invite</button>
      </form>
      <p class="muted">Viewers read everything; editors also change sites, pages, incidents and alerts; admins also
        manage members. Only the owner changes the plan.</p>
      <div class="panel" style="padding:0.25rem 0.75rem">
        <table class="responsive">
          <thead><tr><th scope="col">Member</th><th scope="col">Role</th><th scope="col">Since</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
          <tbody>
            ${(this.members ?? []).map(
              (m) => html`<tr>
                <td data-label="Member">${m.email}${m.totpEnabled ? html` <span class="muted">(2FA)</span>` : nothing}</td>
                <td data-label="Role">${
                  m.role === "owner"
                    ? "owner"
                    : html`<label class="sr-only" for=${`role-${m.id}`}>Role of ${m.email}</label>
                      <select id=${`role-${m.id}`} style="width:auto" @change=${(e: Event) =>
                        this.#act(
                          () =>
                            api("PATCH", `/public/v1/members/${m.id}`, { role: (e.target as HTMLSelectElement).value }),
                          `${m.email} is now ${(e.target as HTMLSelectElement).value}`,
                        )}>
                        ${["admin", "editor", "viewer"].map((r) => html`<option ?selected=${m.role === r}>${r}</option>`)}
                      </select>`
                }</td>
                <td data-label="Since">${dateTime(m.createdAt)}</td>
                <td data-label="">${
                  m.role === "owner" || m.id === this.me.id
                    ? nothing
                    : html`<button type="button" class="danger" aria-label=${`Remove ${m.email}`}
                      @click=${() => this.#act(() => api("DELETE", `/public/v1/members/${m.id}`), `Removed ${m.email}`)}>Remove</button>`
                }</td>
              </tr>`,
            )}
            ${this.invitations.map(
              (i) => html`<tr>
                <td data-label="Member">${i.email} <span class="muted">(invited)</span></td>
                <td data-label="Role">${i.role}</td>
                <td data-label="Since">until ${dateTime(i.expiresAt)}</td>
                <td data-label=""><button type="button" aria-label=${`Withdraw the invitation of ${i.email}`}
                  @click=${() => this.#act(() => api("DELETE", `/public/v1/invitations/${i.id}`), "Invitation withdrawn")}>Withdraw</button></td>
              </tr>`,
            )}
          </tbody>
        </table>
      </div>`;
  }

  #security(): TemplateResult {
    return html`<h2>Security</h2>
      <form class="panel" @submit=${this.#changePassword} aria-labelledby="pw-title">
        <h3 id="pw-title" style="margin-top:0">Change the password</h3>
        <input type="email" name="username" autocomplete="username" .value=${this.me.email} hidden />
        <div class="field"><label for="pw-current">Current password</label>
          <input id="pw-current" name="current" type="password" required autocomplete="current-password" /></div>
        <div class="field"><label for="pw-new">New password<small>At least 12 characters</small></label>
          <input id="pw-new" name="password" type="password" required minlength="12" maxlength="128" autocomplete="new-password" /></div>
        <button>Change password</button>
      </form>
      <div class="panel">
        <h3 style="margin-top:0">Two-factor authentication</h3>
        ${
          this.me.totpEnabled
            ? html`<p>On: sign-in asks for the code of your authenticator app.</p>`
            : this.totp
              ? html`<form @submit=${this.#totpOn}>
                <p>Add this key to your authenticator app (or open the link on the phone that has it), then type the code it shows.</p>
                <pre>${this.totp.secret}</pre>
                <p><a href=${this.totp.uri}>Open in an authenticator app</a></p>
                <div class="field"><label for="totp-code">Code</label>
                  <input id="totp-code" name="code" inputmode="numeric" pattern="[0-9]{6}" maxlength="6" required autocomplete="one-time-code" style="max-width:10rem" /></div>
                <button class="primary">Turn on</button>
              </form>`
              : html`<p class="muted">Off. With it on, a stolen password alone does not sign anyone in.</p>
                <button type="button" @click=${async () => {
                  this.totp = (
                    await api<{ secret: string; uri: string; sealed: string }>("POST", "/public/v1/me/totp/setup")
                  ).data;
                }}>Set up</button>`
        }
      </div>
      <div class="panel">
        <h3 style="margin-top:0">Sessions</h3>
        <p class="muted">Sign out every browser signed in as you, this one included. API tokens keep working.</p>
        <button type="button" @click=${async () => {
          await api("POST", "/public/v1/me/sign-out-everywhere");
          navigate(`${BASE}sign-in`);
          location.reload();
        }}>Sign out everywhere</button>
      </div>`;
  }
}

customElements.define("pl-account", PlAccount);
