import { z } from "zod";
import type { Clock } from "../clock.ts";
import { PageId } from "../contract/status-page.ts";
import { notFound } from "../http/errors.ts";
import type { Principal } from "../store/accounts.ts";
import type { Store } from "../store/store.ts";

/** What the routes of a status page and of what it holds (items, incidents) need. */
export interface PageResourceDeps {
  store: Store;
  clock: Clock;
  /** Called after every write, so cached reads rebuild. */
  changed: () => void;
}

/** The path parameter every route under `/public/v1/status-pages/{id}` names its page by. */
export const PageParams = z.object({ id: PageId });

/** The caller's status page; another workspace's is not found, exactly like a missing one. */
export async function loadWorkspacePage(store: Store, p: Principal, id: number) {
  const row = await store.pages.get(p.workspaceId, id);
  if (!row) throw notFound("Status page");
  return row;
}
