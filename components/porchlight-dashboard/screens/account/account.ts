import { Task } from "@lit/task";
import { css, html, LitElement, nothing, type TemplateResult } from "lit";
import type { z } from "zod";
import type { Usage } from "../../../../server/contract/account.ts";
import type {
  ApiToken,
  MemberList,
  MemberRole,
  NewApiToken,
  Session,
  TotpSetup,
} from "../../../../server/contract/session.ts";
import { api, problemText, setCsrf } from "../../lib/api.ts";
import { can, consumeMe } from "../../lib/context.ts";
import { FormController, limitHint } from "../../lib/form.ts";
import { ago, dateTime } from "../../lib/format.ts";
import { BASE, navigate } from "../../lib/router.ts";
import { shared } from "../../lib/styles.ts";
import type { MeInfo } from "../../lib/types.ts";

type Token = z.infer<typeof ApiToken>;
type Role = z.infer<typeof MemberRole>;

/**
 * The account: plan and usage, API tokens (created and shown once, listed with last use, revoked), members and
 * invitations (for those whose role manages them), the password, the second factor and signing out everywhere.
 * A change to the signed-in member (the second factor on, one's own role) is told to the shell with `pl-me-changed`,
 * which provides the member to every screen.
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
        grid-template-columns: repeat(auto-fit, minmax(min(100%, 10rem), 1fr));
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
      td {
        overflow-wrap: anywhere;
      }
      form.row {
        align-items: flex-start;
      }
      form.row .field {
        margin: 0;
        flex: 1 1 14rem;
        max-width: 20rem;
      }
    `,
  ];

  static override properties = {
    created: { state: true },
    totp: { state: true },
    notice: { state: true },
    problem: { state: true },
  };

  /** A token just created: its secret, shown once. */
  declare created: string;
  declare totp: z.infer<typeof TotpSetup> | null;
  declare notice: string;
  declare problem: string;

  readonly #me = consumeMe(this);
  readonly #token = new FormController(this);
  readonly #invite = new FormController(this);
  /** "currentPassword" is the input named "current". */
  readonly #password = new FormController(this, (f) => (f === "currentPassword" ? "current" : f));
  readonly #code = new FormController(this);

  readonly #load = new Task(this, {
    task: async ([manages], { signal }) => {
      const [tokens, usage, members] = await Promise.all([
        api<Token[]>("GET", "/public/v1/tokens", undefined, { signal }),
        api<Usage>("GET", "/public/v1/workspace/usage", undefined, { signal }),
        manages ? api<MemberList>("GET", "/public/v1/members", undefined, { signal }) : null,
      ]);
      return { tokens: tokens.data, usage: usage.data, members: members?.data ?? null };
    },
    args: () => [can(this.#me.value, "members:manage")] as const,
  });

  constructor() {
    super();
    this.created = "";
    this.totp = null;
    this.notice = "";
    this.problem = "";
  }

  /** Runs an action that names no form field (revoke, remove, a role), then reloads. */
  async #act(action: () => Promise<unknown>, done: string): Promise<void> {
    this.problem = "";
    this.notice = "";
    try {
      await action();
      this.notice = done;
    } catch (error) {
      this.problem = problemText(error);
    }
    void this.#load.run();
  }

  /** Asks the API who the member is now and tells the shell, which provides it to every screen. */
  async #refreshMe(): Promise<void> {
    const { data } = await api<MeInfo>("GET", "/public/v1/me");
    this.dispatchEvent(new CustomEvent<MeInfo>("pl-me-changed", { detail: data, bubbles: true, composed: true }));
  }

  async #createToken(event: SubmitEvent): Promise<void> {
    const form = event.target as HTMLFormElement;
    const made = await this.#token.submit(event, async (data) => {
      return (
        await api<z.infer<typeof NewApiToken>>("POST", "/public/v1/tokens", { name: String(data.get("name") ?? "") })
      ).data;
    });
    if (!made) return;
    this.created = made.token;
    this.notice = `Token created: ${made.name}.`;
    form.reset();
    void this.#load.run();
  }

  async #sendInvite(event: SubmitEvent): Promise<void> {
    const form = event.target as HTMLFormElement;
    const sent = await this.#invite.submit(event, async (data) => {
      await api("POST", "/public/v1/invitations", {
        email: String(data.get("email") ?? ""),
        role: String(data.get("role")),
      });
      return String(data.get("email"));
    });
    if (sent === undefined) return;
    this.notice = `Invitation sent to ${sent}.`;
    form.reset();
    void this.#load.run();
  }

  async #changePassword(event: SubmitEvent): Promise<void> {
    const form = event.target as HTMLFormElement;
    const done = await this.#password.submit(event, async (data) => {
      const { data: session } = await api<Partial<z.infer<typeof Session>>>("POST", "/public/v1/me/password", {
        currentPassword: String(data.get("current") ?? ""),
        password: String(data.get("password") ?? ""),
      });
      // Every session ended; this browser has a new one, with a new CSRF token.
      if (session?.csrfToken) setCsrf(session.csrfToken);
      return true;
    });
    if (!done) return;
    this.notice = "Password changed; other browsers are signed out.";
    form.reset();
  }

  async #totpOn(event: SubmitEvent): Promise<void> {
    const done = await this.#code.submit(event, async (data) => {
      await api("POST", "/public/v1/me/totp", { sealed: this.totp?.sealed, code: String(data.get("code") ?? "") });
      return true;
    });
    if (!done) return;
    this.totp = null;
    this.notice = "Second factor on: sign-in now asks for a code.";
    await this.#refreshMe();
  }

  async #setRole(memberId: string, email: string, role: Role): Promise<void> {
    await this.#act(() => api("PATCH", `/public/v1/members/${memberId}`, { role }), `${email} is now ${role}.`);
    if (memberId === this.#me.value?.id) await this.#refreshMe();
  }

  override render(): TemplateResult {
    const me = this.#me.value;
    if (!me) return html`<p class="muted">Loading…</p>`;
    return html`
      <h1>Account</h1>
      <p class="muted" style="overflow-wrap:anywhere">${me.email} · ${me.role}</p>
      ${this.notice ? html`<p class="notice" role="status">${this.notice}</p>` : nothing}
      ${this.problem ? html`<p class="notice bad" role="alert">${this.problem}</p>` : nothing}
      ${this.#load.render({
        pending: () => (this.#load.value ? this.#content(me, this.#load.value) : html`<p class="muted">Loading…</p>`),
        error: (error) => html`<p class="notice bad" role="alert">${problemText(error)}</p>`,
        complete: (data) => this.#content(me, data),
      })}
      ${this.#security(me)}
    `;
  }

  #content(me: MeInfo, data: { tokens: Token[]; usage: Usage; members: MemberList | null }): TemplateResult {
    return html`${this.#usage(data.usage)} ${this.#tokens(data.tokens)} ${data.members ? this.#members(me, data.members) : nothing}`;
  }

  #usage(u: Usage): TemplateResult {
    return html`<h2>Plan and usage</h2>
      <div class="usage">
        <div><span class="muted">Plan</span><strong>${u.plan}</strong></div>
        <div><span class="muted">Status pages</span><strong>${u.statusPages.used} / ${u.statusPages.limit ?? "∞"}</strong></div>
        <div><span class="muted">Sites</span><strong>${u.sites.used}</strong></div>
        <div><span class="muted">Members</span><strong>${u.members.used}</strong></div>
      </div>`;
  }

  #tokens(tokens: Token[]): TemplateResult {
    const f = this.#token;
    return html`<h2>API tokens</h2>
      <p class="muted">A token acts as you, with your role, for scripts and the <code>curl</code> examples of the
        <a href="/docs/api/reference/">API reference</a>.</p>
      ${
        this.created
          ? html`<div class="panel new-token" role="status">
            <p><strong>Copy the token now:</strong> it is not shown again.</p>
            <pre id="new-token">${this.created}</pre>
            <div class="row">
              <button type="button" @click=${() => navigator.clipboard.writeText(this.created)}>Copy</button>
              <button type="button" class="link" @click=${() => (this.created = "")}>Done</button>
            </div>
          </div>`
          : nothing
      }
      <form class="row" novalidate @submit=${this.#createToken} style="margin-bottom:0.75rem">
        <div class="field"><label class="sr-only" for="token-name">Token name</label>
          <input id="token-name" name="name" placeholder="What it is for, such as deploy script" aria-invalid=${f.invalid("name")}
            aria-describedby=${f.describedBy("token", "name", "token-name-hint")} />${limitHint("token-name-hint", 100)}${f.error("token", "name")}</div>
        <button class="primary" ?disabled=${f.busy}>Create token</button>
      </form>
      ${f.message()}
      <div class="panel" style="padding:0.25rem 0.75rem">
        <table class="responsive">
          <thead><tr><th scope="col">Name</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
          <tbody>
            ${tokens.map(
              (t) => html`<tr>
                <td data-label="Name">${t.name}</td>
                <td data-label="Created">${dateTime(t.createdAt)}</td>
                <td data-label="Last used" title=${t.lastUsedAt ? dateTime(t.lastUsedAt) : nothing}>${t.revokedAt ? html`<span class="muted">revoked</span>` : ago(t.lastUsedAt)}</td>
                <td data-label="">${
                  t.revokedAt
                    ? nothing
                    : html`<button type="button" class="danger" aria-label=${`Revoke ${t.name}`}
                      @click=${() => this.#act(() => api("DELETE", `/public/v1/tokens/${t.id}`), `Revoked ${t.name}.`)}>Revoke</button>`
                }</td>
              </tr>`,
            )}
          </tbody>
        </table>
      </div>`;
  }

  #members(me: MeInfo, { members, invitations }: MemberList): TemplateResult {
    const f = this.#invite;
    return html`<h2>Members</h2>
      <form class="row" novalidate @submit=${this.#sendInvite} style="margin-bottom:0.75rem">
        <div class="field"><label class="sr-only" for="invite-email">E-mail to invite</label>
          <input id="invite-email" name="email" type="email" placeholder="someone@example.com" aria-invalid=${f.invalid("email")}
            aria-describedby=${f.describedBy("invite", "email")} />${f.error("invite", "email")}</div>
        <label class="sr-only" for="invite-role">Role</label>
        <select id="invite-role" name="role" style="width:auto">
          <option value="viewer">Viewer</option>
          <option value="editor">Editor</option>
          <option value="admin">Admin</option>
        </select>
        <button class="primary" ?disabled=${f.busy}>Invite</button>
      </form>
      ${f.message()}
      <p class="muted">Viewers read everything; editors also change sites, pages, incidents and alerts; admins also
        manage members. Only the owner changes the plan.</p>
      <div class="panel" style="padding:0.25rem 0.75rem">
        <table class="responsive">
          <thead><tr><th scope="col">Member</th><th scope="col">Role</th><th scope="col">Since</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
          <tbody>
            ${members.map(
              (m) => html`<tr>
                <td data-label="Member">${m.email}${m.totpEnabled ? html` <span class="muted">(2FA)</span>` : nothing}</td>
                <td data-label="Role">${
                  m.role === "owner"
                    ? "owner"
                    : html`<label class="sr-only" for=${`role-${m.id}`}>Role of ${m.email}</label>
                      <select id=${`role-${m.id}`} style="width:auto" @change=${(e: Event) =>
                        this.#setRole(m.id, m.email, (e.target as HTMLSelectElement).value as Role)}>
                        ${["admin", "editor", "viewer"].map((r) => html`<option ?selected=${m.role === r}>${r}</option>`)}
                      </select>`
                }</td>
                <td data-label="Since">${dateTime(m.createdAt)}</td>
                <td data-label="">${
                  m.role === "owner" || m.id === me.id
                    ? nothing
                    : html`<button type="button" class="danger" aria-label=${`Remove ${m.email}`}
                      @click=${() => this.#act(() => api("DELETE", `/public/v1/members/${m.id}`), `Removed ${m.email}.`)}>Remove</button>`
                }</td>
              </tr>`,
            )}
            ${invitations.map(
              (i) => html`<tr>
                <td data-label="Member">${i.email} <span class="muted">(invited)</span></td>
                <td data-label="Role">${i.role}</td>
                <td data-label="Since">until ${dateTime(i.expiresAt)}</td>
                <td data-label=""><button type="button" aria-label=${`Withdraw the invitation of ${i.email}`}
                  @click=${() => this.#act(() => api("DELETE", `/public/v1/invitations/${i.id}`), "Invitation withdrawn.")}>Withdraw</button></td>
              </tr>`,
            )}
          </tbody>
        </table>
      </div>`;
  }

  #security(me: MeInfo): TemplateResult {
    const pw = this.#password;
    const code = this.#code;
    return html`<h2>Security</h2>
      <form class="panel" novalidate @submit=${this.#changePassword} aria-labelledby="pw-title">
        <h3 id="pw-title" style="margin-top:0">Change the password</h3>
        <input type="email" name="username" autocomplete="username" .value=${me.email} hidden />
        <div class="field"><label for="pw-current">Current password</label>
          <input id="pw-current" name="current" type="password" autocomplete="current-password" aria-invalid=${pw.invalid("current")}
            aria-describedby=${pw.describedBy("pw", "current")} />${pw.error("pw", "current")}</div>
        <div class="field"><label for="pw-new">New password<small id="pw-new-hint">12 to 128 characters</small></label>
          <input id="pw-new" name="password" type="password" autocomplete="new-password" aria-invalid=${pw.invalid("password")}
            aria-describedby=${pw.describedBy("pw", "password", "pw-new-hint")} />${pw.error("pw", "password")}</div>
        ${pw.message()}
        <button ?disabled=${pw.busy}>Change password</button>
      </form>
      <div class="panel">
        <h3 style="margin-top:0">Two-factor authentication</h3>
        ${
          me.totpEnabled
            ? html`<p>On: sign-in asks for the code of your authenticator app.</p>`
            : this.totp
              ? html`<form novalidate @submit=${this.#totpOn}>
                <p>Add this key to your authenticator app (or open the link on the phone that has it), then type the code it shows.</p>
                <pre>${this.totp.secret}</pre>
                <p><a href=${this.totp.uri}>Open in an authenticator app</a></p>
                <div class="field"><label for="totp-code">Code<small id="totp-code-hint">The 6 digits the app shows</small></label>
                  <input id="totp-code" name="code" inputmode="numeric" autocomplete="one-time-code" style="max-width:10rem"
                    aria-invalid=${code.invalid("code")} aria-describedby=${code.describedBy("totp", "code", "totp-code-hint")} />${code.error("totp", "code")}</div>
                ${code.message()}
                <div class="row"><button class="primary" ?disabled=${code.busy}>Turn on</button>
                  <button type="button" @click=${() => {
                    this.totp = null;
                    code.reset();
                  }}>Cancel</button></div>
              </form>`
              : html`<p class="muted">Off. With it on, a stolen password alone does not sign anyone in.</p>
                <button type="button" @click=${() =>
                  this.#act(async () => {
                    this.totp = (await api<z.infer<typeof TotpSetup>>("POST", "/public/v1/me/totp/setup")).data;
                  }, "")}>Set up</button>`
        }
      </div>
      <div class="panel">
        <h3 style="margin-top:0">Sessions</h3>
        <p class="muted">Sign out every browser signed in as you, this one included. API tokens keep working.</p>
        <button type="button" @click=${() =>
          this.#act(async () => {
            await api("POST", "/public/v1/me/sign-out-everywhere");
            navigate(`${BASE}sign-in`);
            location.reload();
          }, "")}>Sign out everywhere</button>
      </div>`;
  }
}

customElements.define("pl-account", PlAccount);
