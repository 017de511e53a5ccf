import { z } from "zod";

export const IMPORT_SOURCES = ["uptime-kuma", "statuspage", "gatus"] as const;
export const ImportSourceName = z.enum(IMPORT_SOURCES).meta({
  description:
    "uptime-kuma: its kuma.db; statuspage: its v2 summary.json (with incidents and maintenances); gatus: its YAML",
});
export type ImportSourceName = z.infer<typeof ImportSourceName>;

const OBJECT_KINDS = ["site", "page", "group", "item", "incident", "maintenance", "condition", "setting"] as const;

export const ImportCreated = z
  .object({
    kind: z.enum(OBJECT_KINDS),
    name: z.string(),
    id: z.string().nullable().meta({ description: "The new object's id; null in a preview" }),
    notes: z.array(z.string()).meta({ description: "What did not carry over exactly" }),
    pushUrl: z.string().optional().meta({ description: "A new push site's secret address, shown this once" }),
  })
  .meta({ id: "ImportCreated" });
export type ImportCreated = z.infer<typeof ImportCreated>;

export const ImportSkipped = z
  .object({ kind: z.enum(OBJECT_KINDS), name: z.string(), reason: z.string() })
  .meta({ id: "ImportSkipped" });
export type ImportSkipped = z.infer<typeof ImportSkipped>;

export const ImportReport = z
  .object({
    source: ImportSourceName,
    detected: z.string().meta({ description: "What the file was read as", example: "Uptime Kuma 2.x" }),
    dryRun: z.boolean().meta({ description: "true: a preview, nothing was written" }),
    created: z.array(ImportCreated).meta({ description: "What was (or, in a preview, would be) created" }),
    skipped: z.array(ImportSkipped).meta({ description: "What was not created, and why" }),
  })
  .meta({ id: "ImportReport" });
export type ImportReport = z.infer<typeof ImportReport>;

/** The Content-Types an import's upload may have, by source. */
export const IMPORT_TYPES = {
  "uptime-kuma": ["application/octet-stream", "application/vnd.sqlite3", "application/x-sqlite3"],
  statuspage: ["application/json"],
  gatus: ["application/yaml", "application/x-yaml", "text/yaml", "text/plain"],
} as const;

/**
 * The largest file each import reads through the API (the CLI reads any size): a Kuma database holds its heartbeats
 * (which are not imported) and grows; Statuspage's documents and a Gatus file are text of a few hundred kilobytes.
 */
export const MAX_IMPORT_FILE_BYTES = {
  "uptime-kuma": 64 * 1024 * 1024,
  statuspage: 8 * 1024 * 1024,
  gatus: 1024 * 1024,
} as const satisfies Record<(typeof IMPORT_SOURCES)[number], number>;

/** A Statuspage import in one request: the three documents, the latter two optional. */
export const StatuspageUpload = z
  .strictObject({
    summary: z.unknown().meta({ description: "The page's /api/v2/summary.json" }),
    incidents: z.unknown().optional().meta({ description: "Its /api/v2/incidents.json (the history)" }),
    scheduledMaintenances: z.unknown().optional().meta({ description: "Its /api/v2/scheduled-maintenances.json" }),
  })
  .meta({ id: "StatuspageUpload" });
