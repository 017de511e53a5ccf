/**
 * Build-time data: every status page with what may be published of it, loaded once before any page renders and
 * checked against the contract's zod schemas, so a malformed answer fails the build with the page and the field.
 * From the API when PORCHLIGHT_API_URL is set (PORCHLIGHT_API_TOKEN lists the token's workspace pages), else from
 * the local store (the data directory or DATABASE_URL), so a fresh checkout builds what its own server holds.
 */
import { z } from "zod";
import type { PageData } from "../components/porchlight-status/porchlight-page.ts";
import { checkImage } from "../server/api/images.ts";
import { loadConfig } from "../server/config.ts";
import {
  IMAGE_PATH,
  PublicStatusPage,
  StatusPage,
  type Visibility,
  VisibilityInput,
} from "../server/contract/status-page.ts";
import { promptData } from "../server/pages/render.ts";
import { readStaticPages, type StaticImage, uploadedImages } from "../server/views/static-site.ts";
import { loadSiteConfig } from "./config.ts";

export interface SitePage {
  slug: string;
  visibility: Visibility;
  /** A public page's view; a protected page's error kind only (nothing of its items or incidents). */
  data: PageData;
}

export interface SiteData {
  pages: SitePage[];
  /** When the data was read (epoch ms). */
  at: number;
  /** The API the pages refresh from in the browser. */
  apiBase: string;
  /** The uploaded images the public pages show, each once: the build writes them under its base, at their paths. */
  images: StaticImage[];
}

/**
 * The uploaded images to publish: each once, by its path (two pages may show one logo), and only if it passes the
 * server's checks as they are now, under its own hash (a static host sends no Content-Security-Policy, so an SVG
 * must be harmless as a file). A page whose image does not pass, or could not be had, is built without it.
 */
function publishable(pages: SitePage[], found: StaticImage[]): StaticImage[] {
  const ok = new Map<string, StaticImage>();
  for (const image of found) {
    try {
      if (checkImage(image.contentType, image.bytes).path === image.path) ok.set(image.path, image);
      else console.warn(`porchlight: ${image.path} is not the image its address names; the build leaves it out`);
    } catch (error) {
      console.warn(`porchlight: ${image.path}: ${(error as Error).message}; the build leaves it out`);
    }
  }
  for (const page of pages) {
    if (!("items" in page.data)) continue;
    for (const kind of ["logo", "favicon"] as const) {
      const src = page.data[kind];
      if (src && IMAGE_PATH.test(src) && !ok.has(src)) page.data = { ...page.data, [kind]: null };
    }
  }
  return [...ok.values()];
}

/** The contract's check, with a message that names the page and the field. */
export function checkPage(slug: string, json: unknown): PublicStatusPage {
  const parsed = PublicStatusPage.safeParse(json);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue?.path.length ? issue.path.join(".") : "(the answer)";
  throw new Error(`status page "${slug}": ${field}: ${issue?.message ?? "does not match the contract"}`);
}

async function fromStore(env: NodeJS.ProcessEnv): Promise<SiteData> {
  const config = loadConfig(env);
  // Every public page in one bulk read (a fixed number of queries), the protected ones by name only.
  const now = new Date();
  const pages: SitePage[] = [];
  const images: StaticImage[] = [];
  for (const { slug, visibility, view, images: shown } of await readStaticPages(
    { dataDir: config.dataDir, databaseUrl: config.databaseUrl },
    now,
  )) {
    if (visibility !== "public") pages.push({ slug, visibility, data: promptData(visibility) });
    else if (view) {
      pages.push({ slug, visibility, data: checkPage(slug, view) });
      images.push(...(shown ?? []));
    }
  }
  return {
    pages,
    at: now.getTime(),
    apiBase: loadSiteConfig(env).siteApiUrl ?? config.publicUrl,
    images: publishable(pages, images),
  };
}

const ListAnswer = z.object({
  data: z.object({
    // A server of an earlier release names a password-protected page `password`: read as the input alias.
    statusPages: z.array(StatusPage.extend({ visibility: VisibilityInput })),
    pagination: z.object({ totalPages: z.number() }),
  }),
});

async function fromApi(apiUrl: string, env: NodeJS.ProcessEnv): Promise<SiteData> {
  const base = apiUrl.replace(/\/+$/, "");
  const token = loadSiteConfig(env).apiToken;
  if (!token) throw new Error("PORCHLIGHT_API_TOKEN is required with PORCHLIGHT_API_URL (a token that reads pages)");
  const get = async (path: string, headers: Record<string, string> = {}) => {
    const response = await fetch(`${base}${path}`, { headers });
    if (!response.ok) throw new Error(`GET ${path}: the API answered ${response.status}`);
    return response.json() as Promise<unknown>;
  };
  const listed: z.infer<typeof StatusPage>[] = [];
  for (let page = 1, pages = 1; page <= pages; page++) {
    const answer = ListAnswer.safeParse(
      await get(`/public/v1/status-pages?page=${page}&perPage=50`, { authorization: `Bearer ${token}` }),
    );
    if (!answer.success) throw new Error(`the page list: ${answer.error.issues[0]?.path.join(".")}: malformed`);
    listed.push(...answer.data.data.statusPages);
    pages = answer.data.data.pagination.totalPages;
  }
  // Eight requests at a time: the whole set is loaded before any page renders.
  const pages: SitePage[] = new Array(listed.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < listed.length; i = next++) {
      const { slug, visibility } = listed[i] as z.infer<typeof StatusPage>;
      pages[i] =
        visibility === "public"
          ? { slug, visibility, data: checkPage(slug, await get(`/public/v1/status-page/${slug}`)) }
          : { slug, visibility, data: promptData(visibility) };
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  // The uploaded images the public pages show, from the server that stores them.
  const paths = new Set(pages.flatMap((page) => ("items" in page.data ? uploadedImages(page.data) : [])));
  const images: StaticImage[] = [];
  for (const path of paths) {
    const response = await fetch(`${base}${path}`);
    if (response.status === 404 || response.status === 410) {
      // Removed since the page was read: the page is built without it.
      await response.body?.cancel();
      console.warn(`porchlight: GET ${path}: the API answered ${response.status}; the build leaves it out`);
      continue;
    }
    if (!response.ok) throw new Error(`GET ${path}: the API answered ${response.status}`);
    // The media type alone: a proxy may add parameters. checkImage (publishable) reads the rest.
    const contentType = (response.headers.get("content-type") ?? "").split(";")[0]?.trim() ?? "";
    images.push({ path, contentType, bytes: new Uint8Array(await response.arrayBuffer()) });
  }
  return {
    pages,
    at: Date.now(),
    apiBase: loadSiteConfig(env).siteApiUrl ?? base,
    images: publishable(pages, images),
  };
}

/** Every page's data, from the API or the store as the environment says. */
export function loadSiteData(env: NodeJS.ProcessEnv): Promise<SiteData> {
  const { apiUrl } = loadSiteConfig(env);
  return apiUrl ? fromApi(apiUrl, env) : fromStore(env);
}

let loaded: Promise<SiteData> | undefined;

/** The site's data, loaded once per build (every endpoint of the build asks for it). */
export function siteData(env: NodeJS.ProcessEnv = process.env): Promise<SiteData> {
  loaded ??= loadSiteData(env);
  return loaded;
}
