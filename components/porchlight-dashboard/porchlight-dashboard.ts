import { ContextProvider } from "@lit/context";
import { css, html, LitElement, nothing, type TemplateResult } from "lit";
import { api, setCsrf, whenSignedOut } from "./lib/api.ts";
import { meContext } from "./lib/context.ts";
import { BASE, follow, navigate, type Route, routeOf } from "./lib/router.ts";
import { shared } from "./lib/styles.ts";
import type { MeInfo, SessionInfo } from "./lib/types.ts";
import "./screens/sign-in/sign-in.ts";

/** The screens beyond sign-in load on first use, so the first visit downloads sign-in and the shell only. */
const SCREENS: Record<string, () => Promise<unknown>> = {
  sites: () => import("./screens/sites/sites.ts"),
  site: () => import("./screens/site/site.ts"),
  pages: () => import("./screens/pages/pages.ts"),
  page: () => import("./screens/page/page.ts"),
  subscribers: () => import("./screens/subscribers/subscribers.ts"),
  incidents: () => import("./screens/incidents/incidents.ts"),
  maintenance: () => import("./screens/maintenance/maintenance.ts"),
  alerts: () => import("./screens/alerts/alerts.ts"),
  account: () => import("./screens/account/account.ts"),
  import: () => import("./screens/import/import.ts"),
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
      .menu {
        display: none;
      }
      /* A phone: one row (the name and a Menu button); the navigation and the member open beneath it. */
      @media (max-width: 640px) {
        .top {
          flex-wrap: nowrap;
          justify-content: space-between;
        }
        .menu {
          display: inline-flex;
        }
        header:not(.open) nav,
        header:not(.open) .who {
          display: none;
        }
        header.open .top {
          flex-wrap: wrap;
        }
        header.open nav {
          order: 3;
          width: 100%;
        }
        header.open nav ul {
          flex-direction: column;
        }
        .who {
          order: 4;
          margin-left: 0;
          width: 100%;
          justify-content: space-between;
          padding-bottom: 0.5rem;
        }
        .who button {
          white-space: nowrap;
        }
        .who .muted {
          min-width: 0;
          overflow: hidden;
          text-overflow: ellipsis;
          white-space: nowrap;
        }
      }
    `,
  ];

  static override properties = {
    route: { state: true },
    me: { state: true },
    loading: { state: true },
    screenReady: { state: true },
    menuOpen: { state: true },
  };

  declare route: Route;
  declare me: MeInfo | null;
  declare loading: boolean;
  declare screenReady: boolean;
  /** The navigation on a phone, folded behind its Menu button until asked for. */
  declare menuOpen: boolean;

  /** The member, for every screen below (lib/context.ts): set at sign-in, never passed down by hand. */
  readonly #me = new ContextProvider(this, { context: meContext });

  constructor() {
    super();
    this.route = routeOf(location);
    this.me = null;
    this.loading = true;
    this.screenReady = false;
    this.menuOpen = false;
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
    this.menuOpen = false;
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
    this.#me.setValue(session.user);
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
    const own: Partial<Record<Route["screen"], string>> = { subscribers: "Subscribers", import: "Import" };
    const title = own[this.route.screen] ?? NAV.find(([screen]) => screen === this.route.screen)?.[1];
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
      <header class=${this.menuOpen ? "open" : ""} @keydown=${this.#closeOnEscape}>
        <div class="top">
          <a class="brand" href=${BASE} @click=${follow}>Porchlight</a>
          <button type="button" class="menu" aria-expanded=${this.menuOpen ? "true" : "false"} aria-controls="nav"
            @click=${() => (this.menuOpen = !this.menuOpen)}>Menu</button>
          <nav aria-label="Dashboard" id="nav">
            <ul>
              ${NAV.map(
                ([screen, label, href]) =>
                  html`<li><a href=${href} @click=${follow} aria-current=${this.#current(screen) ? "page" : nothing}>${label}</a></li>`,
              )}
            </ul>
          </nav>
          <div class="who">
            <a href="/docs/">Docs</a>
            <span class="muted" title=${`${this.me.email} · ${this.me.role}`}>${this.me.email} · ${this.me.role}</span>
            <button type="button" @click=${() => this.#signOut()}>Sign out</button>
          </div>
        </div>
      </header>
      <main id="main" tabindex="-1" @pl-me-changed=${this.#onMe}>${this.screenReady ? this.#screen() : html`<p class="muted">Loading…</p>`}</main>
    `;
  }

  /** The account screen changed the member (two-step sign-in on, an admin's own role): every screen learns it. */
  readonly #onMe = (event: CustomEvent<MeInfo>) => {
    this.me = event.detail;
    this.#me.setValue(event.detail);
  };

  readonly #closeOnEscape = (event: KeyboardEvent) => {
    if (event.key !== "Escape" || !this.menuOpen) return;
    this.menuOpen = false;
    this.renderRoot.querySelector<HTMLButtonElement>(".menu")?.focus();
  };

  #current(screen: Route["screen"]): boolean {
    const r = this.route.screen;
    return (
      r === screen ||
      (screen === "sites" && (r === "site" || r === "import")) ||
      (screen === "pages" && (r === "page" || r === "subscribers"))
    );
  }

  #screen(): TemplateResult {
    const { screen, id } = this.route;
    switch (screen) {
      case "site":
        return html`<pl-site .siteId=${id}></pl-site>`;
      case "pages":
        return html`<pl-pages></pl-pages>`;
      case "page":
        return html`<pl-page .pageId=${id}></pl-page>`;
      case "subscribers":
        return html`<pl-subscribers .pageId=${id}></pl-subscribers>`;
      case "incidents":
        return html`<pl-incidents></pl-incidents>`;
      case "maintenance":
        return html`<pl-maintenance></pl-maintenance>`;
      case "alerts":
        return html`<pl-alerts></pl-alerts>`;
      case "account":
        return html`<pl-account></pl-account>`;
      case "import":
        return html`<pl-import></pl-import>`;
      default:
        return html`<pl-sites></pl-sites>`;
    }
  }
}

customElements.define("porchlight-dashboard", PorchlightDashboard);
