import type { StatusPageList } from "../../../../server/contract/status-page.ts";
import { api } from "../../lib/api.ts";
import type { Page } from "../../lib/types.ts";

/** Spec 8: the dashboard lists status pages 10 (default), 25 or 50 at a time, newest first. */
export const PAGE_SIZES = [10, 25, 50] as const;

/** The API's limits of a page's name and slug (server/contract/status-page.ts), stated beside the inputs. */
export const NAME_MAX = 100;
export const SLUG_MAX = 64;

/** A slug from a name: lowercase letters, digits and inner dashes, as the API takes it. */
export function slugOf(name: string): string {
  return name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, SLUG_MAX)
    .replace(/-+$/, "");
}

/** One screenful of a list: the page asked for, kept within the pages that exist. */
export function pageOf<T>(
  all: readonly T[],
  page: number,
  perPage: number,
): { shown: T[]; page: number; pages: number } {
  const pages = Math.max(1, Math.ceil(all.length / perPage));
  const at = Math.min(Math.max(1, page), pages);
  return { shown: all.slice((at - 1) * perPage, at * perPage), page: at, pages };
}

/** Every status page of the workspace, 50 at a time (the API's largest), for the screens that search or choose. */
export async function allPages(signal?: AbortSignal): Promise<Page[]> {
  const pages: Page[] = [];
  for (let n = 1; ; n++) {
    const { data } = await api<StatusPageList>(
      "GET",
      `/public/v1/status-pages?perPage=50&page=${n}`,
      undefined,
      signal ? { signal } : {},
    );
    pages.push(...data.statusPages);
    if (n >= data.pagination.totalPages) return pages;
  }
}

/** Whether a page matches a search: its name or its address, letter case ignored. */
export function pageMatches(page: Pick<Page, "name" | "slug">, query: string): boolean {
  const q = query.trim().toLowerCase();
  return q === "" || page.name.toLowerCase().includes(q) || page.slug.includes(q);
}
