/**
 * Build-time data: every status page with what may be published of it, loaded once before any page renders and
 * checked against the contract's zod schemas, so a malformed answer fails the build with the page and the field.
 * From the API when PORCHLIGHT_API_URL is set (PORCHLIGHT_API_TOKEN lists the token's workspace pages), else from
 * the local store (the data directory or DATABASE_URL), so a fresh checkout builds what its own server holds.
 */
import { z } from "zod";
import type { PageData } from "../components/porchlight-status/porchlight-page.ts";
import { PUBLIC_INCIDENT_LIMIT, publicViews } from "../server/api/page-views.ts";
import { utcDayBefore } from "../server/api/time.ts";
import { loadConfig } from "../server/config.ts";
import { MAX_HISTORY_DAYS, PublicStatusPage, StatusPage } from "../server/contract/status-page.ts";
import { openStore } from "../server/store/store.ts";
import { promptData } from "./render.ts";

export interface SitePage {
  slug: string;
  visibility: "public" | "private" | "password";
  /** A public page's view; a protected page's error kind only (nothing of its items or incidents). */
  data: PageData;
}

export interface SiteData {
  pages: SitePage[];
  /** When the data was read (epoch ms). */
  at: number;
  /** The API the pages refresh from in the browser. */
  apiBase: string;
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
  const store = await openStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
  try {
    // Every public page in one bulk read (a fixed number of queries), the protected ones by name only.
    const now = new Date();
    const bulk = await store.publicPagesViewData(utcDayBefore(now, MAX_HISTORY_DAYS - 1), PUBLIC_INCIDENT_LIMIT);
    const views = new Map(publicViews(bulk, now).map(({ page, view }) => [page.slug, view]));
    const rows = await store.db.selectFrom("status_pages").select(["slug", "visibility"]).orderBy("slug").execute();
    const pages: SitePage[] = [];
    for (const row of rows) {
      const visibility = row.visibility as SitePage["visibility"];
      if (visibility !== "public") {
        pages.push({ slug: row.slug, visibility, data: promptData(visibility) });
        continue;
      }
      const view = views.get(row.slug);
      if (view) pages.push({ slug: row.slug, visibility, data: checkPage(row.slug, view) });
    }
    return { pages, at: now.getTime(), apiBase: env.PORCHLIGHT_SITE_API_URL ?? config.publicUrl };
  } finally {
    await store.close();
  }
}

const ListAnswer = z.object({
  data: z.object({
    statusPages: z.array(StatusPage),
    pagination: z.object({ totalPages: z.number() }),
  }),
});

async function fromApi(apiUrl: string, env: NodeJS.ProcessEnv): Promise<SiteData> {
  const base = apiUrl.replace(/\/+$/, "");
  const token = env.PORCHLIGHT_API_TOKEN;
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
  return { pages, at: Date.now(), apiBase: env.PORCHLIGHT_SITE_API_URL ?? base };
}

/** Every page's data, from the API or the store as the environment says. */
export function loadSiteData(env: NodeJS.ProcessEnv): Promise<SiteData> {
  return env.PORCHLIGHT_API_URL ? fromApi(env.PORCHLIGHT_API_URL, env) : fromStore(env);
}

let loaded: Promise<SiteData> | undefined;

/** The site's data, loaded once per build (every endpoint of the build asks for it). */
export function siteData(env: NodeJS.ProcessEnv = process.env): Promise<SiteData> {
  loaded ??= loadSiteData(env);
  return loaded;
}
