import type { ImportCreated, ImportSourceName } from "../../../../server/contract/imports.ts";

export type Source = ImportSourceName;

/** What the screen says of each tool: its name, what it brings, its file, and the media type the route takes. */
export const SOURCES: Record<
  Source,
  {
    name: string;
    what: string;
    /** The field's label, and the file's usual name (in "Choose … first"). */
    label: string;
    file: string;
    where: string;
    accept: string;
    type: string;
    page: boolean;
  }
> = {
  "uptime-kuma": {
    name: "Uptime Kuma",
    what: "Monitors, status pages with their sections, incidents and maintenance (1.23 or 2.x).",
    label: "Uptime Kuma's database",
    file: "kuma.db",
    where:
      "In Uptime Kuma's data folder (/app/data in its container). It is read, never changed. Up to 64 MiB here; larger with the porchlight import command.",
    accept: ".db,.sqlite,.sqlite3,application/vnd.sqlite3,application/x-sqlite3",
    type: "application/octet-stream",
    page: false,
  },
  statuspage: {
    name: "Atlassian Statuspage",
    what: "A page's components and groups, its incidents and maintenance, from its public JSON.",
    label: "The page's summary.json",
    file: "summary.json",
    where:
      "Saved from your page's /api/v2/summary.json. Components become paused sites for you to give an address; the porchlight import command also fetches the history.",
    accept: ".json,application/json",
    type: "application/json",
    page: true,
  },
  gatus: {
    name: "Gatus",
    what: "Endpoints and their conditions, as sites on one new status page grouped by their group.",
    label: "Gatus's configuration",
    file: "the YAML file",
    where: "The YAML file Gatus reads (config.yaml). Up to 1 MiB.",
    accept: ".yaml,.yml,application/yaml,application/x-yaml,text/yaml,text/plain",
    type: "application/yaml",
    page: true,
  },
};

type Kind = ImportCreated["kind"];

/** Each kind of object, one and many. */
export const KIND_WORD: Record<Kind, [string, string]> = {
  site: ["Site", "sites"],
  page: ["Status page", "status pages"],
  group: ["Group", "groups"],
  item: ["Page entry", "page entries"],
  incident: ["Incident", "incidents"],
  maintenance: ["Maintenance window", "maintenance windows"],
  condition: ["Condition", "conditions"],
  setting: ["Setting", "settings"],
};

/** "site" or "sites" for n; `word` is a kind's pair or one noun that takes an s. */
export function nounOf(n: number, word: [string, string] | string): string {
  const [one, many] = typeof word === "string" ? [word, `${word}s`] : [word[0].toLowerCase(), word[1]];
  return n === 1 ? one : many;
}

/** "1 site", "3 sites". */
export function countOf(n: number, word: [string, string] | string): string {
  return `${n} ${nounOf(n, word)}`;
}

/** How many of each kind, in the order kinds first appear. */
export function tally(created: { kind: Kind }[]): [Kind, number][] {
  const counts = new Map<Kind, number>();
  for (const c of created) counts.set(c.kind, (counts.get(c.kind) ?? 0) + 1);
  return [...counts];
}
