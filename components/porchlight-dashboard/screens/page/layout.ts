import type { Page } from "../../lib/types.ts";

type Item = Page["items"][number];
type Group = Page["groups"][number];

/** A page's top level, in order: an ungrouped item, or a group with its members. */
export type Entry = { kind: "item"; item: Item } | { kind: "group"; group: Group; members: Item[] };

const byPosition = <T extends { position: number; id: number }>(a: T, b: T) => a.position - b.position || a.id - b.id;

/**
 * A page's items and groups as visitors see them placed (server/store/status-pages.ts topLevelOrder): groups and
 * ungrouped items by position, groups first at equal positions, then by id; each group's members by position. Hidden
 * items keep their places.
 */
export function layoutOf(page: Pick<Page, "items" | "groups">): Entry[] {
  const groups = [...page.groups].sort(byPosition);
  const known = new Set(groups.map((g) => g.id));
  const members = (id: number) => page.items.filter((i) => i.groupId === id).sort(byPosition);
  const top: (Entry & { position: number; id: number; rank: number })[] = [
    ...groups.map((group) => ({
      kind: "group" as const,
      group,
      members: members(group.id),
      position: group.position,
      id: group.id,
      rank: 0,
    })),
    ...page.items
      .filter((item) => item.groupId === null || !known.has(item.groupId))
      .map((item) => ({ kind: "item" as const, item, position: item.position, id: item.id, rank: 1 })),
  ];
  top.sort((a, b) => a.position - b.position || a.rank - b.rank || a.id - b.id);
  return top.map(({ position: _p, id: _i, rank: _r, ...entry }) => entry as Entry);
}

/** Where an item is: its group (null at the top level), and its index there. */
export function placeOf(layout: Entry[], itemId: number): { groupId: number | null; index: number; of: number } {
  for (const [index, entry] of layout.entries()) {
    if (entry.kind === "item" && entry.item.id === itemId) return { groupId: null, index, of: layout.length };
    if (entry.kind === "group") {
      const at = entry.members.findIndex((m) => m.id === itemId);
      if (at >= 0) return { groupId: entry.group.id, index: at, of: entry.members.length };
    }
  }
  return { groupId: null, index: -1, of: layout.length };
}

const without = (layout: Entry[], itemId: number): { rest: Entry[]; item: Item | undefined } => {
  let item: Item | undefined;
  const rest: Entry[] = [];
  for (const entry of layout) {
    if (entry.kind === "item") {
      if (entry.item.id === itemId) item = entry.item;
      else rest.push(entry);
    } else {
      const found = entry.members.find((m) => m.id === itemId);
      if (found) item = found;
      rest.push(found ? { ...entry, members: entry.members.filter((m) => m.id !== itemId) } : entry);
    }
  }
  return { rest, item };
};

/** Where an item goes: at `index` of the top level (`groupId` null) or of a group's members. */
export interface Target {
  groupId: number | null;
  index: number;
}

/** The layout with an item put at `target` (indexes as they are once it has left its place). */
export function putItem(layout: Entry[], itemId: number, target: Target): Entry[] {
  const { rest, item } = without(layout, itemId);
  if (!item) return layout;
  if (target.groupId === null) {
    const at = Math.max(0, Math.min(target.index, rest.length));
    return [...rest.slice(0, at), { kind: "item", item }, ...rest.slice(at)];
  }
  return rest.map((entry) => {
    if (entry.kind !== "group" || entry.group.id !== target.groupId) return entry;
    const at = Math.max(0, Math.min(target.index, entry.members.length));
    return { ...entry, members: [...entry.members.slice(0, at), item, ...entry.members.slice(at)] };
  });
}

/**
 * One step of an item up (-1) or down (1) in the page's reading order: within its group; past its group's first or
 * last member, out of the group, beside it; at the top level, into a group it meets (as its last member going up, its
 * first going down). Undefined when it cannot go further.
 */
export function stepItem(layout: Entry[], itemId: number, direction: -1 | 1): Target | undefined {
  const place = placeOf(layout, itemId);
  if (place.index < 0) return undefined;
  if (place.groupId !== null) {
    const to = place.index + direction;
    if (to >= 0 && to < place.of) return { groupId: place.groupId, index: to };
    // Out of the group: just before it going up, just after it going down.
    const groupAt = layout.findIndex((e) => e.kind === "group" && e.group.id === place.groupId);
    return { groupId: null, index: direction < 0 ? groupAt : groupAt + 1 };
  }
  const neighbour = layout[place.index + direction];
  if (!neighbour) return undefined;
  if (neighbour.kind === "group") {
    return { groupId: neighbour.group.id, index: direction < 0 ? neighbour.members.length : 0 };
  }
  return { groupId: null, index: place.index + direction };
}

/** The layout with a group moved to `index` of the top level, its members with it. */
export function putGroup(layout: Entry[], groupId: number, index: number): Entry[] {
  const from = layout.findIndex((e) => e.kind === "group" && e.group.id === groupId);
  const entry = layout[from];
  if (!entry) return layout;
  const rest = layout.filter((_, i) => i !== from);
  const at = Math.max(0, Math.min(index, rest.length));
  return [...rest.slice(0, at), entry, ...rest.slice(at)];
}

/** What to save for a layout: each item and group whose position or group differs from the page's. */
export function changesOf(page: Pick<Page, "items" | "groups">, layout: Entry[]) {
  const items: { id: number; body: { position?: number; groupId?: number | null } }[] = [];
  const groups: { id: number; body: { position: number } }[] = [];
  const before = new Map(page.items.map((i) => [i.id, i]));
  const beforeGroups = new Map(page.groups.map((g) => [g.id, g]));
  const place = (item: Item, position: number, groupId: number | null) => {
    const was = before.get(item.id);
    const body: { position?: number; groupId?: number | null } = {};
    if (was?.groupId !== groupId) body.groupId = groupId;
    if (was?.position !== position || body.groupId !== undefined) body.position = position;
    if (Object.keys(body).length > 0) items.push({ id: item.id, body });
  };
  for (const [position, entry] of layout.entries()) {
    if (entry.kind === "item") {
      place(entry.item, position, null);
      continue;
    }
    if (beforeGroups.get(entry.group.id)?.position !== position)
      groups.push({ id: entry.group.id, body: { position } });
    for (const [at, member] of entry.members.entries()) place(member, at, entry.group.id);
  }
  return { items, groups };
}

/** The page as the layout places it: positions and groups as changesOf saves them. */
export function placed(page: Page, layout: Entry[]): Page {
  const items: Item[] = [];
  const groups: Group[] = [];
  for (const [position, entry] of layout.entries()) {
    if (entry.kind === "item") items.push({ ...entry.item, position, groupId: null });
    else {
      groups.push({ ...entry.group, position });
      for (const [at, member] of entry.members.entries()) {
        items.push({ ...member, position: at, groupId: entry.group.id });
      }
    }
  }
  return { ...page, items, groups };
}

/**
 * The layout after a drop of an item on a row: on an item, it takes that item's place (after it when it came from
 * above in the same list, so that the last place can be reached; before it otherwise); on a group, it becomes the
 * group's last member.
 */
export function dropItem(layout: Entry[], itemId: number, onto: { item: number } | { group: number }): Entry[] {
  if ("group" in onto) {
    const group = layout.find((e) => e.kind === "group" && e.group.id === onto.group);
    if (group?.kind !== "group") return layout;
    const stays = group.members.some((m) => m.id === itemId);
    return putItem(layout, itemId, { groupId: onto.group, index: group.members.length - (stays ? 1 : 0) });
  }
  if (onto.item === itemId) return layout;
  const from = placeOf(layout, itemId);
  const to = placeOf(layout, onto.item);
  const downward = from.groupId === to.groupId && from.index < to.index;
  const { rest } = without(layout, itemId);
  const there = placeOf(rest, onto.item);
  return putItem(layout, itemId, { groupId: there.groupId, index: there.index + (downward ? 1 : 0) });
}

/** The layout after a drop of a group on a top-level row (or a member of a group: that group's row). */
export function dropGroup(layout: Entry[], groupId: number, onto: { item: number } | { group: number }): Entry[] {
  const at =
    "group" in onto
      ? layout.findIndex((e) => e.kind === "group" && e.group.id === onto.group)
      : (() => {
          const place = placeOf(layout, onto.item);
          return place.groupId === null
            ? place.index
            : layout.findIndex((e) => e.kind === "group" && e.group.id === place.groupId);
        })();
  return at < 0 ? layout : putGroup(layout, groupId, at);
}
