/**
 * One status page as a whole HTML document: the element rendered on the server with @lit-labs/ssr (declarative
 * shadow DOM, readable without JavaScript), its data beside it for the browser to take over, and the head a page
 * needs (title, description, canonical URL, Open Graph, feeds). The Astro build and the hosted server both call
 * this, so a prerendered page and a page rendered on request are the same bytes for the same data and time.
 */
import { renderThunked } from "@lit-labs/ssr";
import type { ThunkedRenderResult } from "@lit-labs/ssr/lib/render-result.js";
import { html, nothing } from "lit";
import { TABLES } from "../../components/porchlight-status/languages.ts";
import { MESSAGES, messagesFor } from "../../components/porchlight-status/messages.ts";
import { type PageData, PorchlightPage, statusIcon } from "../../components/porchlight-status/porchlight-page.ts";
import { overallStatus } from "../contract/status.ts";
import type { PublicStatusPage, Visibility } from "../contract/status-page.ts";
import { escapeHtml, minifyCss } from "../html.ts";

if (!customElements.get("porchlight-status")) customElements.define("porchlight-status", PorchlightPage);

export interface PageDocument {
  slug: string;
  /** The API's answer: the page, or for a protected page only its error kind (the prompt is rendered). */
  data: PageData;
  /** `data` as JSON, when the caller has it already. */
  json?: string;
  /**
   * The API's ETag for `data`, when it is the API's current answer (the hosted pages): the element takes both over
   * and asks again only at its refresh interval, If-None-Match, instead of downloading the same page at once.
   */
  etag?: string | undefined;
  /** When the data was read (epoch ms): the page says "Updated …" from it. */
  at: number;
  /** The path the site is served under, with slashes at both ends ("/" or "/status/"). */
  base: string;
  /** The page's absolute address, or null when unknown. */
  canonical: string | null;
  /** The page script's file name under `${base}embed/`. */
  script: string;
  /** The API the element refreshes from; "" means the origin the script came from. */
  apiBase: string;
  locale: string;
  /** Without the outer chrome (header, footer), for an iframe. */
  embed?: boolean;
  /** With embed: no background of its own, so the framing page shows through. */
  transparent?: boolean;
  /** Feed and snapshot links (public pages), at `${base}${slug}/feed.xml`, `atom.xml` and `status.json`. */
  feeds?: boolean;
  /** Where those links point instead (a custom domain serves them at "/"). */
  feedBase?: string;
  /** A Content-Security-Policy meta tag, for static hosts that cannot send the header. */
  cspMeta?: string;
  /** A private page's way in for members: the dashboard's sign-in, coming back here after. */
  signIn?: string;
}

/**
 * What a protected page hands its element instead of its data: only the prompt it needs, and for a password page
 * what its prompt shows without the password (its name, logo and accent: not secret, unlike its items and
 * incidents, which never come here).
 */
export function promptData(
  visibility: Exclude<Visibility, "public">,
  page?: Pick<PublicStatusPage, "name" | "logo" | "theme">,
): PageData {
  if (visibility !== "password-protected") return { error: "sign_in_required" };
  return page
    ? { error: "password_required", name: page.name, logo: page.logo, accentColor: page.theme.accentColor }
    : { error: "password_required" };
}

/** JSON inside <script type="application/json">: "<" written as \u003c, so no "</script" or "<!--" can occur. */
const scriptJson = (json: string) => json.replace(/</g, "\\u003c");

/** The element's styles, minified once (they are the same for every page): the last styles and their minified form. */
let lastStyles: [css: string, minified: string] = ["", ""];
function minified(css: string): string {
  if (lastStyles[0] !== css) lastStyles = [css, minifyCss(css)];
  return lastStyles[1];
}

// The server renders a page in any of the element's languages.
Object.assign(MESSAGES, TABLES);

/** A page's title from its name: "Acme status", but not "Acme Status status". */
const titleOf = (name: string) => (/\bstatus$/i.test(name) ? name : `${name} status`);

/**
 * The page's name, status words and description for the head; a protected page gives away nothing but its name
 * (a password page's, which its prompt shows too).
 */
export function pageSummary(data: PageData): { title: string; description: string } {
  if (!("items" in data)) {
    const description = "This status page is protected.";
    return { title: data.name ? titleOf(data.name) : "Status page", description };
  }
  const status = MESSAGES.en?.[overallStatus(data.items)] ?? "";
  return {
    title: titleOf(data.name),
    description: data.description ? `${status}. ${data.description}` : `${status}.`,
  };
}

/**
 * A password page's note for browsers without JavaScript, in the page's language: the prompt is there (declarative
 * shadow DOM), but only the script sends a password, so without this the button would do nothing, silently. Here
 * rather than in the element's tables: the embed script never shows it.
 */
const NO_SCRIPT: Record<string, string> = {
  en: "This page needs JavaScript to check the password. Turn JavaScript on and reload the page to unlock it.",
  de: "Diese Seite braucht JavaScript, um das Passwort zu prüfen. Bitte JavaScript einschalten und die Seite neu laden.",
  he: "הדף הזה צריך JavaScript כדי לבדוק את הסיסמה. יש להפעיל JavaScript ולטעון את הדף מחדש.",
};

/** The note above a password page's prompt, shown only where scripts do not run. */
function noScriptNote(locale: string): string {
  const { lang, dir } = messagesFor(locale);
  return `<noscript><p class="nojs" lang="${lang}" dir="${dir}">${escapeHtml(NO_SCRIPT[lang] ?? "")}</p></noscript>`;
}

// One background per theme: the element's own (#fff, #0d1117), so the page and its card are never two blacks.
const CHROME_CSS = `html{color-scheme:light dark}.light{color-scheme:light}.dark{color-scheme:dark}
body{margin:0;font:16px/1.5 system-ui,sans-serif;background:light-dark(#fff,#0d1117);color:light-dark(#1f2328,#e6edf3)}
main{max-width:56rem;margin:0 auto;padding:1rem}porchlight-status{display:block;height:auto}
.nojs{margin:0 0 1rem;padding:.75rem 1rem;border:1px solid light-dark(#d1d9e0,#3d444d);border-inline-start:4px solid light-dark(#9a6700,#d29922);border-radius:8px}
footer{max-width:56rem;margin:0 auto;padding:0 1rem 2rem;font-size:.875rem;color:light-dark(#59636e,#9198a1)}
footer a{color:inherit;text-underline-offset:2px}footer a:hover{color:light-dark(#1f2328,#e6edf3)}
.vh{position:absolute;clip-path:inset(50%);width:1px;height:1px;overflow:hidden}
.sign-in{text-align:center;margin:1rem 0}.sign-in a{color:light-dark(#0b57d0,#6ca4f8);font-weight:600}
.logo{margin:0 0 1rem;line-height:0}.logo img{height:48px;width:auto;max-width:100%;object-fit:contain}
.embed main{max-width:none;padding:0}.transparent body{background:transparent}
.transparent porchlight-status::part(base){background:transparent;border:0;padding:0}`;

/**
 * The pieces of a render, in order, into `into`: its thunks called as they come (the element renders
 * synchronously, so a Promise is a bug). One join of the pieces costs a fraction of concatenating them one by one.
 */
function collect(result: ThunkedRenderResult, into: string[]): string[] {
  for (const chunk of result) {
    let value: unknown = chunk;
    while (typeof value === "function") value = value();
    if (typeof value === "string") into.push(value);
    else if (Array.isArray(value)) collect(value, into);
    else if (value !== undefined) throw new Error("the status element rendered asynchronously");
  }
  return into;
}

export function renderDocument(doc: PageDocument): string {
  // The page's own light or dark, on the page and its element alike (one background per theme). An iframe's page
  // (embed) is light unless the page says dark, as an embed is: it sits in someone else's site.
  const mode = "items" in doc.data ? doc.data.theme.mode : "auto";
  const theme = mode === "auto" ? (doc.embed ? "light" : "") : mode;
  const { title, description } = pageSummary(doc.data);
  const page = "items" in doc.data ? doc.data : null;
  // An uploaded image's path is the server's (/assets/…), which a static build copies under its base.
  const image = (src: string | null | undefined) => (src?.startsWith("/") ? doc.base + src.slice(1) : src);
  const logo = doc.embed ? null : image(page ? page.logo : "error" in doc.data ? doc.data.logo : null);
  const favicon = image(page?.favicon);
  const element = collect(
    renderThunked(
      html`<porchlight-status slug=${doc.slug} locale=${doc.locale} api-base=${doc.apiBase || nothing} theme=${theme || nothing}
        data-time=${doc.at} data-etag=${doc.etag || nothing} ?data-frame=${doc.embed} .data=${doc.data}></porchlight-status>`,
    ),
    [],
  )
    .join("")
    // The element's styles as its source has them, comments and all: as the embed's build does, without them.
    .replace(
      /(<style>)([\s\S]*?)(<\/style>)/,
      (_all, open: string, css: string, close: string) => open + minified(css) + close,
    );
  // The data for the browser, as the element's (unrendered) JSON child: it needs no HTML escaping beyond "<". The
  // page's words too, in a language other than English: the pages' script carries English only.
  const close = element.lastIndexOf("</porchlight-status>");
  const language = messagesFor(doc.locale).lang;
  const words = TABLES[language]
    ? `<script type="application/json" data-words="${language}">${scriptJson(JSON.stringify(TABLES[language]))}</script>`
    : "";
  const withData = `${element.slice(0, close)}<script type="application/json">${scriptJson(doc.json ?? JSON.stringify(doc.data))}</script>${words}${element.slice(close)}`;
  const e = escapeHtml;
  const here = doc.feedBase ?? `${doc.base}${doc.slug}/`;
  const classes = [doc.embed && "embed", doc.embed && doc.transparent && "transparent", theme]
    .filter(Boolean)
    .join(" ");
  const head = [
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    // The owner's, else a disc in the status's colour (the page script keeps it current): never a request for
    // /favicon.ico.
    favicon
      ? `<link rel="icon" href="${e(favicon)}">`
      : `<link rel="icon" href="${e(statusIcon(page ? overallStatus(page.items) : ""))}" data-status>`,
    doc.cspMeta ? `<meta http-equiv="Content-Security-Policy" content="${e(doc.cspMeta)}">` : "",
    `<title>${e(title)}</title>`,
    `<meta name="description" content="${e(description)}">`,
    doc.canonical ? `<link rel="canonical" href="${e(doc.canonical)}">` : "",
    '<meta property="og:type" content="website">',
    `<meta property="og:title" content="${e(title)}">`,
    `<meta property="og:description" content="${e(description)}">`,
    doc.canonical ? `<meta property="og:url" content="${e(doc.canonical)}">` : "",
    '<meta property="og:site_name" content="Porchlight">',
    "items" in doc.data ? "" : '<meta name="robots" content="noindex">',
    doc.feeds
      ? `<link rel="alternate" type="application/rss+xml" title="${e(title)} (RSS)" href="${e(here)}feed.xml">` +
        `<link rel="alternate" type="application/atom+xml" title="${e(title)} (Atom)" href="${e(here)}atom.xml">`
      : "",
    `<style>${CHROME_CSS}</style>`,
    `<script type="module" src="${e(doc.base)}embed/${e(doc.script)}"></script>`,
  ].filter(Boolean);
  const feeds = doc.feeds
    ? ` · <a href="${e(here)}feed.xml">RSS</a> · <a href="${e(here)}atom.xml">Atom</a> · <a href="${e(here)}status.json">JSON</a>`
    : "";
  const note = "error" in doc.data && doc.data.error === "password_required" ? noScriptNote(doc.locale) : "";
  // With a logo, it is the page's heading (its text the title); without, the heading is there for readers only.
  const heading = logo
    ? `<h1 class="logo"><img src="${e(logo)}" alt="${e(title)}"></h1>`
    : `<h1 class="vh">${e(title)}</h1>`;
  const signIn = doc.signIn
    ? `<p class="sign-in"><a href="${e(doc.signIn)}">Members: sign in to see this page</a></p>`
    : "";
  const content = `<main>${heading}${note}${withData}${signIn}</main>`;
  const body = doc.embed ? content : `${content}<footer>Powered by Porchlight${feeds}</footer>`;
  const lang = e(doc.locale.split("-")[0] || "en");
  return `<!doctype html>\n<html lang="${lang}"${classes ? ` class="${classes}"` : ""}><head>${head.join("")}</head><body>${body}</body></html>\n`;
}

/** A script-free page of the site in the chrome's styles: the 404 page and the front page. */
function plainDocument(title: string, body: string, extraHead = ""): string {
  return `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title>${extraHead}<style>${CHROME_CSS}</style></head><body><main>${body}</main></body></html>\n`;
}

/**
 * A card in the element's style (its border, accent edge, radius, type and link colour), for the pages of the site
 * that have no element: the 404 page.
 */
const CARD_CSS = `.card{margin:2rem auto;max-width:32rem;padding:1.5rem;border:1px solid light-dark(#d1d9e0,#3d444d);border-top:4px solid #2563eb;border-radius:8px;text-align:center;font-size:15px}
.card svg{width:2.5rem;height:2.5rem;color:light-dark(#59636e,#9198a1)}.card h1{font-size:1.6em;line-height:1.25;margin:.5rem 0;text-wrap:balance}
.card p{margin:.5rem 0 0;color:light-dark(#59636e,#9198a1)}.card a{color:light-dark(#0b57d0,#8ab4f8);font-weight:600;text-underline-offset:2px}`;

/** The site's 404 page, in the pages' style: plain HTML, no script. */
export function notFoundDocument(base: string): string {
  // A magnifying glass: nothing found here.
  const icon =
    '<svg viewBox="0 0 24 24" aria-hidden="true"><circle cx="10" cy="10" r="6.5" fill="none" stroke="currentColor" stroke-width="2"/><path d="M15 15l6 6" stroke="currentColor" stroke-width="2.5" stroke-linecap="round"/></svg>';
  return plainDocument(
    "Page not found · status",
    `<div class="card">${icon}<h1>No such status page</h1><p>The address may be mistyped, or the page was removed or renamed.</p><p><a href="${escapeHtml(base)}">See the list of status pages</a></p></div>`,
    `<meta name="robots" content="noindex"><style>${CARD_CSS}</style>`,
  );
}

/** The site's front page: its public status pages, each with its overall status. */
export function indexDocument(base: string, pages: { slug: string; data: PageData }[]): string {
  const rows = pages.map(({ slug, data }) => {
    const { title, description } = pageSummary(data);
    return `<li><a href="${escapeHtml(`${base}${slug}/`)}">${escapeHtml(title)}</a>: ${escapeHtml(description)}</li>`;
  });
  const list = rows.length ? `<ul>${rows.join("")}</ul>` : "<p>No public status pages yet.</p>";
  return plainDocument("Status pages", `<h1>Status pages</h1>${list}`);
}
