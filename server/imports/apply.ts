import { randomBytes } from "node:crypto";
import { type Plan, STATUS_PAGE_LIMITS } from "../contract/account.ts";
import type { ImportCreated, ImportReport } from "../contract/imports.ts";
import { MAX_MAINTENANCE_MINUTES, MAX_MAINTENANCE_WINDOWS } from "../contract/maintenance.ts";
import { protocolOf } from "../contract/monitor.ts";
import { MAX_GROUPS, StatusPageCreate } from "../contract/status-page.ts";
import { canonicalZone, type Expansion, expandWindow, normalRecurrence } from "../engine/maintenance.ts";
import { isUniqueViolation, type Transaction } from "../store/connection.ts";
import type { StoredWindow } from "../store/maintenance.ts";
import { newSiteRecord, type Seal } from "../store/site-columns.ts";
import { newPageColumns } from "../store/status-pages.ts";
import type { Store } from "../store/store.ts";
import { type ImportPlan, ImportRefused, type PlannedPage, type PlannedWindow, type Skip } from "./plan.ts";

export interface ApplyDeps {
  store: Store;
  seal: Seal;
  /** A new push site's token, its hash and hint (api/push.ts), and the address its job calls. */
  newPush: () => { token: string; hash: string; hint: string };
  pushUrl: (token: string) => string;
}

export interface ApplyTarget {
  workspaceId: string;
  plan: string;
  now: Date;
  /** true: work everything out in a transaction that is rolled back, and report what would be created. */
  dryRun: boolean;
}

/** Thrown to roll a preview's transaction back, carrying its report. */
class Preview extends Error {
  constructor(readonly report: ImportReport) {
    super("preview");
  }
}

const ALREADY = "imported before (importing again creates nothing twice)";

/**
 * Writes a plan for a workspace in one transaction, with the source's key of each object it creates, so that a
 * second import of the same source finds them and creates nothing twice; everything or nothing is written. A preview
 * runs the same transaction and rolls it back, so what it reports (slugs, limits, what exists already) is exactly
 * what a real import would do. Nobody is told of imported incidents or maintenance: the pages are new.
 */
export async function applyPlan(deps: ApplyDeps, plan: ImportPlan, target: ApplyTarget): Promise<ImportReport> {
  const { store } = deps;
  const { workspaceId, dryRun } = target;
  const at = target.now.toISOString();
  const expansions = await expandAll(plan.windows, target, workspaceId);
  const run = async (trx: Transaction): Promise<ImportReport> => {
    await store.imports.lock(trx, workspaceId);
    const origins = await store.imports.origins(workspaceId, plan.source, trx);
    const alive = await store.imports.existing(trx, workspaceId, [...origins.values()]);
    const created: ImportCreated[] = [];
    const skipped: Skip[] = [...plan.skipped];
    const record = (key: string, kind: string, objectId: string) =>
      store.imports.record(trx, workspaceId, plan.source, { key, kind, objectId }, at);

    const siteIds = new Map<string, string>();
    for (const { key, site, notes } of plan.sites) {
      const before = origins.get(key);
      if (before) {
        if (alive.has(before.objectId)) siteIds.set(key, before.objectId);
        skipped.push({
          kind: "site",
          name: site.name,
          reason: alive.has(before.objectId) ? ALREADY : `${ALREADY}; deleted since`,
        });
        continue;
      }
      const push = protocolOf(site.url) === "push" ? deps.newPush() : undefined;
      const row = newSiteRecord(workspaceId, site, at, undefined, push, deps.seal);
      await store.sites.insert(row, trx);
      await record(key, "site", row.id);
      siteIds.set(key, row.id);
      created.push({
        kind: "site",
        name: site.name,
        id: dryRun ? null : row.id,
        notes,
        ...(push && !dryRun ? { pushUrl: deps.pushUrl(push.token) } : {}),
      });
    }

    let pageCount = await store.pages.count(workspaceId, trx);
    const limit = STATUS_PAGE_LIMITS[target.plan as Plan] ?? 1;
    for (const page of plan.pages) {
      const before = origins.get(page.key);
      if (before) {
        skipped.push({
          kind: "page",
          name: page.name,
          reason: alive.has(before.objectId) ? ALREADY : `${ALREADY}; deleted since`,
        });
        continue;
      }
      if (pageCount >= limit) {
        skipped.push({
          kind: "page",
          name: page.name,
          reason: `the ${target.plan} plan allows ${limit} status page${limit === 1 ? "" : "s"}`,
        });
        continue;
      }
      const made = await writePage(trx, page, siteIds, created, skipped);
      if (made !== null) {
        pageCount++;
        await record(page.key, "page", String(made));
      }
    }

    let windowCount = await store.maintenance.count(workspaceId, trx);
    for (const window of plan.windows) {
      const before = origins.get(window.key);
      const expansion = expansions.get(window.key);
      const sites = [...new Set(window.siteKeys.flatMap((k) => siteIds.get(k) ?? []))];
      const reason = before
        ? alive.has(before.objectId)
          ? ALREADY
          : `${ALREADY}; deleted since`
        : !expansion?.ok
          ? `its schedule does not map: ${expansion && !expansion.ok ? expansion.problem : "invalid"}`
          : sites.length === 0
            ? "none of its sites is imported"
            : windowCount >= MAX_MAINTENANCE_WINDOWS
              ? `a workspace has at most ${MAX_MAINTENANCE_WINDOWS} maintenance windows`
              : null;
      if (reason || !expansion?.ok) {
        skipped.push({ kind: "maintenance", name: window.title, reason: reason ?? "" });
        continue;
      }
      const stored: StoredWindow = {
        id: `mw_${randomBytes(12).toString("hex")}`,
        workspace_id: workspaceId,
        title: window.title,
        description: window.description,
        start: window.start,
        time_zone: canonicalZone(window.timeZone),
        duration_minutes: window.durationMinutes,
        recurrence: window.recurrence === null ? null : normalRecurrence(window.recurrence),
        refill_at: new Date(expansion.refillAt).toISOString(),
        created_at: at,
        updated_at: at,
        ended_at: null,
        sites,
      };
      await store.maintenance.insertNew(trx, stored, expansion.occurrences);
      await record(window.key, "maintenance", stored.id);
      windowCount++;
      const repeats = window.recurrence ? `, repeating ${window.recurrence}` : "";
      created.push({
        kind: "maintenance",
        name: window.title,
        id: dryRun ? null : stored.id,
        notes: [`${window.start} ${window.timeZone}, ${window.durationMinutes} min${repeats}`],
      });
    }
    const report: ImportReport = { source: plan.source, detected: plan.detected, dryRun, created, skipped };
    if (dryRun) throw new Preview(report);
    return report;
  };

  const writePage = async (
    trx: Transaction,
    page: PlannedPage,
    siteIds: Map<string, string>,
    created: ImportCreated[],
    skipped: Skip[],
  ): Promise<number | null> => {
    const notes: string[] = [];
    const taken = await store.imports.taken(
      trx,
      [page.slug, ...Array.from({ length: 9 }, (_, i) => `${page.slug.slice(0, 61)}-${i + 2}`)],
      page.customDomain ? [page.customDomain] : [],
    );
    const slug = [page.slug, ...Array.from({ length: 9 }, (_, i) => `${page.slug.slice(0, 61)}-${i + 2}`)].find(
      (s) => !taken.slugs.has(s) && StatusPageCreate.safeParse({ name: "x", slug: s }).success,
    );
    if (!slug) {
      skipped.push({
        kind: "page",
        name: page.name,
        reason: `the slug ${page.slug} and its variants are taken or reserved`,
      });
      return null;
    }
    if (slug !== page.slug) notes.push(`the slug ${page.slug} is taken or reserved: ${slug}`);
    let customDomain = page.customDomain;
    if (customDomain && taken.domains.has(customDomain)) {
      notes.push(`the custom domain ${customDomain} belongs to another page: left out`);
      customDomain = null;
    }
    const input = StatusPageCreate.safeParse({
      name: page.name,
      slug,
      description: page.description,
      visibility: page.visibility,
      customDomain,
    });
    if (!input.success) {
      const issue = input.error.issues[0];
      skipped.push({ kind: "page", name: page.name, reason: `${issue?.path.join(".")}: ${issue?.message}` });
      return null;
    }
    const row = await store.pages.insert(trx, newPageColumns(workspaceId, input.data, null, at));
    created.push({ kind: "page", name: page.name, id: dryRun ? null : String(row.id), notes: [`/${slug}`, ...notes] });
    const itemIds = new Map<string, number>();
    let position = 0;
    let groups = 0;
    const putItem = async (item: { siteKey: string; label: string }, groupId: number | null, at_: number) => {
      const siteId = siteIds.get(item.siteKey);
      if (!siteId) return false;
      const id = await store.imports.insertItem(trx, {
        page_id: row.id,
        site_id: siteId,
        label: item.label,
        visible: 1,
        position: at_,
        group_id: groupId,
        created_at: at,
      });
      itemIds.set(item.siteKey, id);
      return true;
    };
    for (const entry of page.entries) {
      if ("item" in entry) {
        if (await putItem(entry.item, null, position)) position++;
        continue;
      }
      const g = entry.group;
      if (groups >= MAX_GROUPS) {
        skipped.push({ kind: "group", name: g.name, reason: `a page has at most ${MAX_GROUPS} groups` });
        continue;
      }
      const groupId = await store.imports.insertGroup(trx, {
        page_id: row.id,
        name: g.name,
        description: g.description,
        position: position++,
        collapsed: g.collapsed ? 1 : 0,
        created_at: at,
      });
      groups++;
      let member = 0;
      for (const item of g.items) if (await putItem(item, groupId, member)) member++;
      created.push({
        kind: "group",
        name: `${page.name} / ${g.name}`,
        id: dryRun ? null : String(groupId),
        notes: [`${member} items`],
      });
    }
    for (const incident of page.incidents) {
      const id = await store.imports.insertIncident(trx, row.id, incident, at);
      await store.imports.linkIncident(
        trx,
        id,
        incident.affected.flatMap((a) => {
          const itemId = itemIds.get(a.siteKey);
          return itemId === undefined ? [] : [{ itemId, status: a.status }];
        }),
      );
      const state = incident.resolvedAt ? "resolved" : (incident.updates.at(-1)?.status ?? "investigating");
      created.push({
        kind: "incident",
        name: incident.title,
        id: dryRun ? null : String(id),
        notes: [
          `${incident.startedAt.slice(0, 10)}, ${state}, ${incident.updates.length} update${incident.updates.length === 1 ? "" : "s"}`,
        ],
      });
    }
    return row.id;
  };

  try {
    return await store.transaction(run);
  } catch (error) {
    if (error instanceof Preview) return error.report;
    // The planners skip what a file names twice; anything that still meets a unique rule is the file's, not ours.
    if (isUniqueViolation(error)) throw new ImportRefused("the file names one object twice (the same id or name).");
    throw error;
  }
}

/** Each window's occurrences from now, worked out before the transaction (RRULE expansion takes its time). */
async function expandAll(windows: PlannedWindow[], target: ApplyTarget, key: string) {
  const out = new Map<string, Expansion>();
  for (const w of windows) {
    let timeZone: string;
    try {
      timeZone = canonicalZone(w.timeZone);
    } catch {
      out.set(w.key, { ok: false, problem: `names an unknown time zone ${w.timeZone}` });
      continue;
    }
    if (w.durationMinutes > MAX_MAINTENANCE_MINUTES) {
      out.set(w.key, { ok: false, problem: "lasts more than 7 days" });
      continue;
    }
    const spec = {
      start: w.start,
      timeZone,
      durationMinutes: w.durationMinutes,
      recurrence: w.recurrence === null ? null : normalRecurrence(w.recurrence),
    };
    try {
      out.set(w.key, await expandWindow(spec, target.now.getTime(), key));
    } catch {
      // A start or rule the file holds that no calendar reads: that window is skipped, not the import.
      out.set(w.key, { ok: false, problem: "its start or repetition cannot be read" });
    }
  }
  return out;
}
