/**
 * Moving in from another tool: an Uptime Kuma database, Statuspage's v2 JSON or a Gatus configuration, uploaded,
 * previewed (dryRun) and imported. The work is imports/'s, shared with the `porchlight import` command.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import type { SecretBox } from "../accounts/sealed.ts";
import type { Clock } from "../clock.ts";
import { Envelope, envelope } from "../contract/common.ts";
import {
  IMPORT_SOURCES,
  IMPORT_TYPES,
  ImportReport,
  MAX_IMPORT_FILE_BYTES,
  StatuspageUpload,
} from "../contract/imports.ts";
import { Slug } from "../contract/status-page.ts";
import { ApiError, badRequest } from "../http/errors.ts";
import { route } from "../http/route.ts";
import { applyPlan } from "../imports/apply.ts";
import { planGatus } from "../imports/gatus.ts";
import { ImportRefused } from "../imports/plan.ts";
import { planStatuspage } from "../imports/statuspage.ts";
import { planUptimeKuma } from "../imports/uptime-kuma.ts";
import type { Store } from "../store/store.ts";
import { newPushToken, pushUrl } from "./push.ts";

export interface ImportDeps {
  store: Store;
  clock: Clock;
  secrets: SecretBox;
  publicUrl: string;
  /** Called after an import that wrote something: pages and sites changed. */
  changed: () => void;
}

const Query = z.object({
  dryRun: z
    .enum(["true", "false"])
    .default("false")
    .transform((v) => v === "true")
    .meta({ description: "true: answer what would be created and skipped, and write nothing" }),
});
const PageQuery = Query.extend({
  slug: Slug.optional().meta({ description: "The new page's slug (default: from its name)" }),
});

/** The plan for an upload; ImportRefused says why the file cannot be imported. */
function planOf(source: keyof typeof IMPORT_TYPES, bytes: Uint8Array, slug: string | undefined, now: Date) {
  if (source === "uptime-kuma") {
    // better-sqlite3 reads files: the upload goes to a private folder for as long as it is read.
    const dir = mkdtempSync(join(tmpdir(), "porchlight-import-"));
    try {
      writeFileSync(join(dir, "kuma.db"), bytes, { mode: 0o600 });
      return planUptimeKuma(join(dir, "kuma.db"), now);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new ImportRefused("the file is not UTF-8 text.");
  }
  if (source === "gatus") return planGatus(text, { slug });
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ImportRefused("the body is not JSON.");
  }
  const upload = StatuspageUpload.safeParse(body);
  // summary.json alone is accepted too, as saved from the page.
  const files =
    upload.success && upload.data.summary !== undefined
      ? {
          summary: upload.data.summary,
          incidents: upload.data.incidents,
          maintenances: upload.data.scheduledMaintenances,
        }
      : { summary: body };
  return planStatuspage(files, { slug }, now);
}

/** What each source's route says of its body. */
const SOURCES: Record<(typeof IMPORT_SOURCES)[number], { summary: string; body: string }> = {
  "uptime-kuma": {
    summary: "Import an Uptime Kuma database",
    body: "The body is kuma.db's bytes (Uptime Kuma 1.23 or 2.x with SQLite), opened read-only: its monitors, status pages, incidents and maintenance.",
  },
  statuspage: {
    summary: "Import a Statuspage page from its v2 JSON",
    body: "The body is the page's /api/v2/summary.json, or {summary, incidents, scheduledMaintenances} with the other two documents: its components, groups, incidents and maintenance. Components become paused push sites, to be given an address.",
  },
  gatus: {
    summary: "Import a Gatus configuration",
    body: "The body is the YAML: its endpoints (HTTP, TCP, DNS, ICMP, TLS) and conditions, as sites on one new page grouped by their group.",
  },
};

export function importRoutes({ store, clock, secrets, publicUrl, changed }: ImportDeps) {
  return IMPORT_SOURCES.map((source) =>
    route({
      method: "post",
      path: `/public/v1/imports/${source}`,
      operationId: `import${source.replace(/(^|-)(\w)/g, (_, __, c: string) => c.toUpperCase())}`,
      summary: SOURCES[source].summary,
      description: `${SOURCES[source].body} With dryRun=true nothing is written and the answer is the preview. An import writes everything or nothing; importing the same file again creates nothing twice. A file that is not the tool's, or is damaged, answers 400 and nothing is written. A new push site's address is in the answer, shown this once. At most ${MAX_IMPORT_FILE_BYTES[source] / 1024 / 1024} MiB; the porchlight import command reads any size.`,
      tag: "Imports",
      access: "token",
      permission: "sites:write",
      query: source === "uptime-kuma" ? Query : PageQuery,
      upload: {
        types: [...IMPORT_TYPES[source]],
        description: "The file to import",
        maxBytes: MAX_IMPORT_FILE_BYTES[source],
      },
      response: {
        status: 200,
        description: "What was (or would be) created and skipped",
        schema: Envelope(ImportReport),
      },
      errors: [400, 401, 403, 413, 415],
      async handler({ query, principal: p, c }) {
        const type = (c.req.header("content-type") ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
        if (!(IMPORT_TYPES[source] as readonly string[]).includes(type)) {
          throw new ApiError(415, "unsupported_media_type", `Send the file as ${IMPORT_TYPES[source].join(" or ")}`);
        }
        const bytes = new Uint8Array(await c.req.arrayBuffer());
        if (bytes.length === 0) throw badRequest("Send the file as the request's body.");
        const now = clock.now();
        const slug = "slug" in query ? (query.slug as string | undefined) : undefined;
        let report: ImportReport;
        try {
          report = await applyPlan(
            {
              store,
              seal: (plain) => secrets.seal(plain),
              newPush: newPushToken,
              pushUrl: (token) => pushUrl(publicUrl, token),
            },
            planOf(source, bytes, slug, now),
            { workspaceId: p.workspaceId, plan: p.plan, now, dryRun: query.dryRun },
          );
        } catch (error) {
          // The file's fault (foreign, damaged, naming one object twice): a 400, and nothing was written.
          if (error instanceof ImportRefused) throw badRequest(`Nothing was imported: ${error.message}`);
          throw error;
        }
        if (!query.dryRun && report.created.length > 0) changed();
        return envelope(200, query.dryRun ? "Import preview" : "Imported", report);
      },
    }),
  );
}
