import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { SecretBox } from "../accounts/sealed.ts";
import { newPushToken, pushUrl } from "../api/push.ts";
import type { Config } from "../config.ts";
import type { ImportReport } from "../contract/imports.ts";
import { applyPlan } from "../imports/apply.ts";
import { planGatus } from "../imports/gatus.ts";
import { type ImportPlan, ImportRefused } from "../imports/plan.ts";
import { planStatuspage, type StatuspageFiles } from "../imports/statuspage.ts";
import { planUptimeKuma } from "../imports/uptime-kuma.ts";
import type { Store } from "../store/store.ts";
import type { Io } from "./accounts.ts";
import { Refusal } from "./refusal.ts";

export type ImportOptions = {
  email: string;
  dryRun?: boolean;
  json?: boolean;
  slug?: string;
  /** Statuspage: "component name or id=address", repeated. */
  bind?: string[];
};

/** Who imports: a user who may change the workspace's sites and pages (as the API's sites:write). */
async function importer(store: Store, email: string) {
  const user = await store.accounts.findUserByEmail(email);
  if (!user) throw new Refusal(`No user with e-mail ${email}`);
  if (user.role === "viewer") {
    throw new Refusal(`${email} is a viewer: only an owner, an admin or an editor imports`);
  }
  return user;
}

const readText = (path: string) => {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    throw new Refusal(`Cannot read ${path}: ${(error as Error).message}`);
  }
};
const readJson = (path: string): unknown => {
  try {
    return JSON.parse(readText(path));
  } catch (error) {
    if (error instanceof Refusal) throw error;
    throw new Refusal(`${path} is not JSON: ${(error as Error).message}`);
  }
};

/**
 * Statuspage's documents from a page's address (`https://status.example.com`: its /api/v2/ files), a folder holding
 * summary.json (and incidents.json, scheduled-maintenances.json), or summary.json itself.
 */
async function statuspageFiles(source: string): Promise<StatuspageFiles> {
  if (/^https?:\/\//i.test(source)) {
    const base = source.replace(/\/+$/, "").replace(/\/api\/v2(\/summary\.json)?$/, "");
    const get = async (name: string, required: boolean) => {
      let response: Response;
      try {
        response = await fetch(`${base}/api/v2/${name}`, { signal: AbortSignal.timeout(30_000), redirect: "follow" });
      } catch (error) {
        throw new Refusal(`Cannot fetch ${base}/api/v2/${name}: ${(error as Error).message}`);
      }
      if (!response.ok) {
        if (!required) return undefined;
        throw new Refusal(`${base}/api/v2/${name} answered ${response.status}`);
      }
      try {
        return (await response.json()) as unknown;
      } catch {
        throw new Refusal(`${base}/api/v2/${name} is not JSON`);
      }
    };
    return {
      summary: await get("summary.json", true),
      incidents: await get("incidents.json", false),
      maintenances: await get("scheduled-maintenances.json", false),
    };
  }
  if (existsSync(source) && statSync(source).isDirectory()) {
    const optional = (name: string) => (existsSync(join(source, name)) ? readJson(join(source, name)) : undefined);
    return {
      summary: readJson(join(source, "summary.json")),
      incidents: optional("incidents.json"),
      maintenances: optional("scheduled-maintenances.json"),
    };
  }
  return { summary: readJson(source) };
}

function bindings(pairs: string[] = []): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.lastIndexOf("=");
    // The address itself may hold "=" (a query string): split at the first "=" that a scheme follows.
    const split = pair.search(/=(?=[a-z][a-z0-9+.-]*:\/\/)/i);
    const cut = split > 0 ? split : at;
    if (cut <= 0) throw new Refusal(`--bind ${pair}: write it as "component name or id=https://address"`);
    out[pair.slice(0, cut).trim()] = pair.slice(cut + 1).trim();
  }
  return out;
}

/** `import <source> <file>`: reads, plans, writes (or previews with --dry-run) and prints the report. */
export async function importCommand(
  store: Store,
  config: Config,
  source: "uptime-kuma" | "statuspage" | "gatus",
  file: string,
  options: ImportOptions,
  io: Io,
  now: Date,
): Promise<void> {
  const user = await importer(store, options.email);
  const secrets = new SecretBox(config.secretKey, config.dataDir);
  let report: ImportReport;
  try {
    let plan: ImportPlan;
    if (source === "uptime-kuma") {
      if (!existsSync(file)) throw new Refusal(`No such file: ${file}`);
      plan = planUptimeKuma(file, now);
    } else if (source === "statuspage") {
      plan = planStatuspage(await statuspageFiles(file), { slug: options.slug, bind: bindings(options.bind) }, now);
    } else {
      plan = planGatus(readText(file), { slug: options.slug });
    }
    report = await applyPlan(
      {
        store,
        seal: (plain) => secrets.seal(plain),
        newPush: newPushToken,
        pushUrl: (token) => pushUrl(config.publicUrl, token),
      },
      plan,
      { workspaceId: user.workspace_id, plan: user.plan, now, dryRun: options.dryRun === true },
    );
  } catch (error) {
    // The file's fault (foreign, damaged, naming one object twice): nothing was written.
    if (error instanceof ImportRefused) throw new Refusal(`Nothing was imported: ${error.message}`);
    throw error;
  }
  if (options.json) io.out(JSON.stringify(report, null, 2));
  else printReport(report, io);
}

/** The report as an owner reads it in a terminal: a summary line, then one line per object. */
export function printReport(report: ImportReport, io: Io): void {
  const count = (list: { kind: string }[]) => {
    const by = new Map<string, number>();
    for (const x of list) by.set(x.kind, (by.get(x.kind) ?? 0) + 1);
    return (
      [...by].map(([kind, n]) => `${n} ${kind}${n === 1 ? "" : kind.endsWith("s") ? "" : "s"}`).join(", ") || "nothing"
    );
  };
  const verb = report.dryRun ? "Would create" : "Created";
  io.out(`${report.detected}: ${verb.toLowerCase()} ${count(report.created)}; skipped ${count(report.skipped)}.`);
  if (report.dryRun) io.out("Nothing was written (--dry-run).");
  for (const c of report.created) {
    const extra = [...c.notes, ...(c.pushUrl ? [`push to ${c.pushUrl}`] : [])];
    io.out(
      `${report.dryRun ? "would create" : "created"}\t${c.kind}\t${c.name}${c.id ? ` (${c.id})` : ""}${extra.length ? `\t${extra.join("; ")}` : ""}`,
    );
  }
  for (const s of report.skipped) io.out(`skipped\t${s.kind}\t${s.name}\t${s.reason}`);
}
