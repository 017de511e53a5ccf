import { css, html, LitElement, nothing, type TemplateResult } from "lit";
import { api, setCsrf, whenSignedOut } from "./api.ts";
import { BASE, navigate, type Route, routeOf } from "./router.ts";
import { shared } from "./styles.ts";
import type { MeInfo, SessionInfo } from "./types.ts";
import "./sign-in.ts";

/** The screens beyond sign-in load on first use, so the first visit downloads sign-in and the shell only. */
const SCREENS: Record<string, () => Promise<unknown>> = {
  sites: () => import("./sites.ts"),
  site: () => import("./site-detail.ts"),
  pages: () => import("./pages.ts"),
  page: () => import("./page-edit.ts"),
  incidents: () => import("./incidents.ts"),
  maintenance: () => import("./maintenance.ts"),
  alerts: () => import("./alerts.ts"),
  account: () => import("./account.ts"),
};

const NAV: [Route["screen"], string, string][] = [
  ["sites", "Sites", `${BASE}`],
  ["pages", "Status pages", `${BASE}pages`],
  ["incidents", "Incidents", `${BASE}incidents`],
  ["maintenance", "Maintenance", `${BASE}maintenance`],
  ["alerts", "Alerts", `${BASE}alerts`],
  ["account", "Account", `${BASE}account`],
];

/**
 * The owner's dashboard: the session, the route, the shell (header, navigation, main) and the screen the route
 * names. Every screen talks to the documented API only.
 */
export class PorchlightDashboard extends LitElement {
  static override styles = [
    shared,
    css`
      :host {
        display: block;
        min-height: 100vh;
        background: var(--bg);
      }
      header {
        background: var(--panel);
        border-bottom: 1px solid var(--line);
      }
      .top {
        max-width: 72rem;
        margin: 0 auto;
        padding: 0.5rem 1rem;
        display: flex;
        flex-wrap: wrap;
        align-items: center;
        gap: 0.5rem 1.5rem;
      }
      .brand {
        font-weight: 700;
        font-size: 1.05rem;
        color: var(--text);
        text-decoration: none;
        display: inline-flex;
        align-items: center;
        gap: 0.4rem;
      }
      .brand::before {
        content: "";
        width: 0.8rem;
        height: 0.8rem;
        border-radius: 50%;
        background: var(--up);
        box-shadow: 0 0 0 3px color-mix(in srgb, var(--up) 25%, transparent);
      }
      nav ul {
        display: flex;
        flex-wrap: wrap;
        gap: 0.25rem;
        list-style: none;
        margin: 0;
        padding: 0;
      }
      nav a {
        display: block;
        padding: 0.4rem 0.7rem;
        border-radius: 6px;
        color: var(--text);
        text-decoration: none;
        font-weight: 500;
      }
      nav a[aria-current="page"] {
        background: color-mix(in srgb, var(--accent) 14%, transparent);
        color: var(--accent);
        font-weight: 600;
      }
      .who {
        margin-left: auto;
        display: flex;
        align-items: center;
        gap: 0.75rem;
        font-size: 0.9rem;
      }
      main {
        max-width: 72rem;
        margin: 0 auto;
        padding: 1.25rem 1rem 3rem;
      }
      @media (max-width: 640px) {
        .who {
          margin-left: 0;
          width: 100%;
          justify-content: space-between;
        }
      }
    `,
  ];

  static override properties = {
    route: { state: true },
    me: { state: true },
    loading: { state: true },
    screenReady: { state: true },
  };

  declare route: Route;
  declare me: MeInfo | null;
  declare loading: boolean;
  declare screenReady: boolean;

  constructor() {
    super();
    this.route = routeOf(location);
    this.me = null;
    this.loading = true;
    this.screenReady = false;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    addEventListener("popstate", this.#onLocation);
    addEventListener("pl-navigate", this.#onLocation);
    whenSignedOut(() => this.#signedOut());
    void this.#loadSession();
  }

  override disconnectedCallback(): void {
    removeEventListener("popstate", this.#onLocation);
    removeEventListener("pl-navigate", this.#onLocation);
    super.disconnectedCallback();
  }

  readonly #onLocation = () => {
    this.route = routeOf(location);
    void this.#loadScreen();
  };

  async #loadSession(): Promise<void> {
    try {
      const { data } = await api<SessionInfo | null>("GET", "/public/v1/session");
      if (data) this.#signedIn(data);
      else this.me = null;
    } catch {
      this.me = null;
    }
    this.loading = false;
    await this.#loadScreen();
  }

  #signedIn(session: SessionInfo): void {
    setCsrf(session.csrfToken, session.user.id);
    this.me = session.user;
  }

  #signedOut(): void {
    setCsrf("", "");
    this.me = null;
  }

  async #loadScreen(): Promise<void> {
    const load = SCREENS[this.route.screen];
    if (!load || !this.me) return;
    this.screenReady = false;
    await load();
    this.screenReady = true;
    const title = NAV.find(([screen]) => screen === this.route.screen)?.[1];
    document.title = title ? `${title} · Porchlight` : "Porchlight";
  }

  readonly #onSession = (event: CustomEvent<SessionInfo>) => {
    this.#signedIn(event.detail);
    const next = new URLSearchParams(location.search).get("next");
    // Only an address of this origin, as the browser resolves it (tabs and newlines stripped, backslashes read as
    // slashes): never another origin, which would carry a freshly signed-in member away (an open redirect).
    const target = next ? new URL(next, location.origin) : null;
    // A path of "//elsewhere" is read as another host when used alone: such a next goes to the dashboard instead.
    if (target && target.origin === location.origin && !target.pathname.startsWith("//")) location.assign(target.href);
    else navigate(BASE);
  };

  async #signOut(): Promise<void> {
    try {
      await api("DELETE", "/public/v1/session");
    } finally {
      this.#signedOut();
      navigate(`${BASE}sign-in`);
    }
  }

  override render(): TemplateResult {
    if (this.loading) return html`<main aria-busy="true"><p class="muted">Loading…</p></main>`;
    const linkScreen = ["setup", "reset", "join", "forgot", "sign-in"].includes(this.route.screen);
    if (!this.me || linkScreen) {
      return html`<main>
        <pl-sign-in .mode=${linkScreen ? this.route.screen : "sign-in"} @pl-session=${this.#onSession}></pl-sign-in>
      </main>`;
    }
    return html`
      <header>
        <div class="top">
          <a class="brand" href=${BASE} @click=${this.#follow}>Porchlight</a>
          <nav aria-label="Dashboard">
            <ul>
              ${NAV.map(
                ([screen, label, href]) =>
                  html`<li><a href=${href} @click=${this.#follow} aria-current=${this.#current(screen) ? "page" : nothing}>${label}</a></li>`,
              )}
            </ul>
          </nav>
          <div class="who">
            <span class="muted">${this.me.email} · ${this.me.role}</span>
            <button type="button" @click=${() => this.#signOut()}>Sign out</button>
          </div>
        </div>
      </header>
      <main id="main" tabindex="-1">${this.screenReady ? this.#screen() : html`<p class="muted">Loading…</p>`}</main>
    `;
  }

  #current(screen: Route["screen"]): boolean {
    const r = this.route.screen;
    return r === screen || (screen === "sites" && r === "site") || (screen === "pages" && r === "page");
  }

  readonly #follow = (event: MouseEvent) => {
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
    event.preventDefault();
    navigate((event.currentTarget as HTMLAnchorElement).getAttribute("href") as string);
  };

  #screen(): TemplateResult {
    const { screen, id } = this.route;
    const me = this.me as MeInfo;
    switch (screen) {
      case "site":
        return html`<pl-site .me=${me} .siteId=${id}></pl-site>`;
      case "pages":
        return html`<pl-pages .me=${me}></pl-pages>`;
      case "page":
        return html`<pl-page .me=${me} .pageId=${id}></pl-page>`;
      case "incidents":
        return html`<pl-incidents .me=${me}></pl-incidents>`;
      case "maintenance":
        return html`<pl-maintenance .me=${me}></pl-maintenance>`;
      case "alerts":
        return html`<pl-alerts .me=${me}></pl-alerts>`;
      case "account":
        return html`<pl-account .me=${me}></pl-account>`;
      default:
        return html`<pl-sites .me=${me}></pl-sites>`;
    }
  }
}

customElements.define("porchlight-dashboard", PorchlightDashboard);
