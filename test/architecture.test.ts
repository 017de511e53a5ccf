/**
 * The layering rules of docs' architecture.md, read off the import graph with the TypeScript compiler's parser:
 * every import runs down, no cycle, the store owns every query, the element reaches the server only through the
 * contract. A failure names each offending import, so the fix is where it says.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, test } from "vitest";

const ROOT = resolve(import.meta.dirname, "..");
const SOURCE = /\.(ts|mts|mjs|js)$/;

interface Edge {
  from: string;
  to: string;
  /** `import type`, `export type`, or every named binding marked `type`: erased from the built code. */
  typeOnly: boolean;
}

function walk(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : walk(path);
    return SOURCE.test(entry.name) && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

function typeOnlyImport(node: ts.ImportDeclaration): boolean {
  const clause = node.importClause;
  if (!clause) return false;
  if (clause.isTypeOnly) return true;
  const bindings = clause.namedBindings;
  return (
    clause.name === undefined &&
    bindings !== undefined &&
    ts.isNamedImports(bindings) &&
    bindings.elements.length > 0 &&
    bindings.elements.every((element) => element.isTypeOnly)
  );
}

/** Every relative import and re-export of a file, static or dynamic, resolved to a path from the root. */
function importsOf(file: string): Edge[] {
  const text = readFileSync(join(ROOT, file), "utf8");
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const edges: Edge[] = [];
  const add = (specifier: string, typeOnly: boolean) => {
    if (!specifier.startsWith(".")) return;
    const to = relative(ROOT, resolve(ROOT, dirname(file), specifier))
      .split("\\")
      .join("/");
    edges.push({ from: file, to, typeOnly });
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      add(node.moduleSpecifier.text, typeOnlyImport(node));
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      add(node.moduleSpecifier.text, node.isTypeOnly);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      add(node.arguments[0].text, false);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return edges;
}

const FILES = ["server", "components", "site", "bench", "bin", "test"].flatMap(walk);
const EDGES = FILES.flatMap(importsOf);
const show = (edges: Edge[]) => edges.map((e) => `${e.from} -> ${e.to}${e.typeOnly ? " (type)" : ""}`);
const under = (path: string, ...folders: string[]) => folders.some((folder) => path.startsWith(`${folder}/`));

/**
 * The server's layers, lowest first: a file may import its own layer or a lower one. Config validates with the
 * contract's schemas (an e-mail address is checked one way everywhere), so it sits just above the contract.
 */
const LAYERS: [string, (path: string) => boolean][] = [
  ["base", (p) => /^server\/(clock|log|html|builds|group-by)\.ts$/.test(p)],
  ["contract", (p) => under(p, "server/contract")],
  ["config", (p) => p === "server/config.ts"],
  ["store", (p) => under(p, "server/store")],
  ["net", (p) => under(p, "server/net")],
  ["domain", (p) => under(p, "server/engine", "server/accounts", "server/alerts")],
  ["imports", (p) => under(p, "server/imports")],
  ["views", (p) => under(p, "server/views")],
  ["http toolkit", (p) => under(p, "server/http")],
  ["route owners", (p) => under(p, "server/api", "server/anon", "server/pages")],
  ["composition", (p) => p === "server/app.ts"],
  ["entry", (p) => under(p, "server/cli") || /^server\/(main|index)\.(ts|js)$/.test(p)],
];
const layerOf = (path: string) => LAYERS.findIndex(([, inLayer]) => inLayer(path));
/** Folders that must not import another folder of their own layer (each is its own room). */
const SIBLINGS = ["server/api", "server/anon", "server/pages", "server/engine", "server/alerts", "server/accounts"];
const folderOf = (path: string) => SIBLINGS.find((folder) => under(path, folder));

/** Strongly connected components with more than one file (Tarjan), each a cycle to break. */
function cycles(edges: Edge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) next.set(from, [...(next.get(from) ?? []), to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let counter = 0;
  const connect = (v: string) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop() as string;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of next.keys()) if (!index.has(v)) connect(v);
  return found;
}

/** Imports that run up a layer, in words. */
function upward(edges: Edge[]): string[] {
  const name = (path: string) => LAYERS[layerOf(path)]?.[0];
  return edges
    .filter((e) => under(e.from, "server") && under(e.to, "server") && layerOf(e.to) > layerOf(e.from))
    .map((e) => `${e.from} (${name(e.from)}) -> ${e.to} (${name(e.to)})`);
}

/** Imports between sibling folders of one layer. */
function across(edges: Edge[]): string[] {
  return show(
    edges.filter((e) => {
      const a = folderOf(e.from);
      const b = folderOf(e.to);
      return a !== undefined && b !== undefined && a !== b && layerOf(e.from) === layerOf(e.to);
    }),
  );
}

/** The database's own packages: only the store speaks to a database. */
const DRIVERS = new Set(["kysely", "pg", "better-sqlite3"]);
/** A name the store exports for a table's row or for the whole schema. */
const ROW_NAME = /^(?:\w*Row|Database)$/;

/**
 * Imports of row types, the query builder or a driver in `file` (its text given), as "file: name from specifier";
 * the store's own files may.
 */
function storeInternals(file: string, text: string): string[] {
  if (under(file, "server/store")) return [];
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  for (const node of source.statements) {
    if (!ts.isImportDeclaration(node) || !ts.isStringLiteral(node.moduleSpecifier)) continue;
    const specifier = node.moduleSpecifier.text;
    if (DRIVERS.has(specifier)) {
      found.push(`${file}: ${specifier}`);
      continue;
    }
    if (!specifier.startsWith(".")) continue;
    const to = relative(ROOT, resolve(ROOT, dirname(file), specifier))
      .split("\\")
      .join("/");
    const bindings = node.importClause?.namedBindings;
    if (!under(to, "server/store") || !bindings || !ts.isNamedImports(bindings)) continue;
    for (const element of bindings.elements) {
      const name = (element.propertyName ?? element.name).text;
      if (ROW_NAME.test(name)) found.push(`${file}: ${name} from ${to}`);
    }
  }
  return found;
}

/** SQL written by hand: a statement's opening words, in capitals as SQL is written here. */
const RAW_SQL = /\b(?:SELECT\s+[\w"*(]|INSERT\s+INTO|DELETE\s+FROM|UPDATE\s+"?\w+"?\s+SET|CREATE\s+(?:TABLE|INDEX))/;
const BUILDER = /\.(selectFrom|insertInto|updateTable|deleteFrom|replaceInto|mergeInto)\(|\bsql`|\bsql<[^>]*>`/;

/** Lines of `text` (not comments) that build or write a query, as "file:line: text". */
function queriesIn(file: string, text: string): string[] {
  return text
    .split("\n")
    .map((line, i) => ({ line: i + 1, text: line.trim() }))
    .filter(({ text }) => (BUILDER.test(text) || RAW_SQL.test(text)) && !/^(\/\/|\/\*|\*)/.test(text))
    .map(({ line, text }) => `${file}:${line}: ${text}`);
}

describe("each rule rejects its fixture (none is blind)", () => {
  const edge = (from: string, to: string): Edge => ({ from, to, typeOnly: true });

  test("a cycle of two files", () => {
    expect(cycles([edge("server/a.ts", "server/b.ts"), edge("server/b.ts", "server/a.ts")])).toHaveLength(1);
  });

  test("the store importing the engine runs up", () => {
    expect(upward([edge("server/store/sites.ts", "server/engine/judge.ts")])).toHaveLength(1);
    expect(upward([edge("server/engine/judge.ts", "server/store/sites.ts")])).toEqual([]);
  });

  test("the engine and the alerts importing each other, either way; both may use server/net/", () => {
    expect(across([edge("server/engine/record.ts", "server/alerts/events.ts")])).toHaveLength(1);
    expect(across([edge("server/alerts/deliver.ts", "server/engine/http-check.ts")])).toHaveLength(1);
    expect(across([edge("server/alerts/deliver.ts", "server/net/http-check.ts")])).toEqual([]);
    expect(upward([edge("server/net/http-check.ts", "server/engine/judge.ts")])).toHaveLength(1);
  });

  test("a row type, the query builder or a driver imported outside the store", () => {
    const text = [
      'import type { SiteRow } from "../store/schema.ts";',
      'import type { Store } from "../store/store.ts";',
      'import { type Kysely } from "kysely";',
      'import pg from "pg";',
    ].join("\n");
    expect(storeInternals("server/views/fixture.ts", text)).toEqual([
      "server/views/fixture.ts: SiteRow from server/store/schema.ts",
      "server/views/fixture.ts: kysely",
      "server/views/fixture.ts: pg",
    ]);
    expect(storeInternals("server/store/fixture.ts", text)).toEqual([]);
  });

  test("raw SQL and the builder outside the store", () => {
    const text = [
      'pool.query(`DELETE FROM "porchlight_rate_limits" WHERE expire < $1`, [before]);',
      'await db.selectFrom("sites").selectAll().execute();',
      "// DELETE FROM in a comment is words",
      'const label = "Select a site";',
    ].join("\n");
    expect(queriesIn("server/http/fixture.ts", text)).toHaveLength(2);
  });
});

describe("the import graph", () => {
  test("reads a graph of the whole tree (the rules below are not vacuous)", () => {
    expect(FILES.length).toBeGreaterThan(150);
    expect(EDGES.length).toBeGreaterThan(500);
    for (const folder of ["server/contract", "server/store", "server/engine", "server/views", "server/http"]) {
      expect(FILES.some((f) => under(f, folder))).toBe(true);
    }
    // Every server file belongs to a layer, so none escapes the rules.
    expect(FILES.filter((f) => under(f, "server") && layerOf(f) < 0)).toEqual([]);
  });

  test("no import cycle, type-only imports included", () => {
    expect(cycles(EDGES)).toEqual([]);
  });

  test("every server import runs down: a layer imports only itself and the layers below", () => {
    expect(upward(EDGES)).toEqual([]);
  });

  test("sibling folders of one layer never import each other (api/ and anon/, engine/ and alerts/)", () => {
    expect(across(EDGES)).toEqual([]);
  });

  test("the server never imports the static site, the tests or the benchmarks", () => {
    expect(show(EDGES.filter((e) => under(e.from, "server") && under(e.to, "site", "test", "bench")))).toEqual([]);
  });

  test("only the hosted pages import the element (to render it on the server)", () => {
    const outside = EDGES.filter(
      (e) => under(e.from, "server") && under(e.to, "components") && !under(e.from, "server/pages"),
    );
    expect(show(outside)).toEqual([]);
  });

  test("the element reaches the server only through contract types, and the pure status math", () => {
    const wrong = EDGES.filter(
      (e) =>
        under(e.from, "components") &&
        !under(e.to, "components") &&
        !(under(e.to, "server/contract") && (e.typeOnly || e.to === "server/contract/status.ts")),
    );
    expect(show(wrong)).toEqual([]);
    // status.ts runs in the browser: it may import types only, so zod never reaches the embed bundle.
    const statusImports = EDGES.filter((e) => e.from === "server/contract/status.ts");
    expect(statusImports.length).toBeGreaterThan(0);
    expect(show(statusImports.filter((e) => !e.typeOnly))).toEqual([]);
  });

  test("the static site reads through views/ or the API, never the store", () => {
    expect(show(EDGES.filter((e) => under(e.from, "site") && under(e.to, "server/store")))).toEqual([]);
  });

  test("benchmarks import only test/support/ of the tests", () => {
    const wrong = EDGES.filter((e) => under(e.from, "bench") && under(e.to, "test") && !under(e.to, "test/support"));
    expect(show(wrong)).toEqual([]);
  });
});

describe("the store owns every query", () => {
  const outsideStore = FILES.filter(
    (f) => under(f, "server", "site", "components", "bench") && !under(f, "server/store"),
  );

  test("no query builder and no SQL outside server/store/ (server, site, components, bench)", () => {
    expect(outsideStore.flatMap((file) => queriesIn(file, readFileSync(join(ROOT, file), "utf8")))).toEqual([]);
  });

  test("no row type, query builder or database driver imported outside server/store/ (server, site, components)", () => {
    const found = FILES.filter((f) => under(f, "server", "site", "components")).flatMap((file) =>
      storeInternals(file, readFileSync(join(ROOT, file), "utf8")),
    );
    expect(found).toEqual([]);
  });

  test("the patterns find builders and rows where they belong (they are not vacuous)", () => {
    const store = FILES.filter((f) => under(f, "server/store"));
    const withBuilders = store.filter((f) => BUILDER.test(readFileSync(join(ROOT, f), "utf8")));
    expect(withBuilders.length).toBeGreaterThanOrEqual(5);
    expect(
      queriesIn("server/store/rate-limits.ts", readFileSync(join(ROOT, "server/store/rate-limits.ts"), "utf8")),
    ).toHaveLength(1);
  });
});

describe("one way to mount routes (issue 31, item 4)", () => {
  /** A route answered by Hono directly: `app.get(`, `.post(`, `.on(`, `.all(`, `.put(`, `.patch(`, `.delete(`. */
  const DIRECT = /\bapp\.(get|post|put|patch|delete|on|all)\(/;
  const server = FILES.filter((f) => under(f, "server"));

  test("only server/http/mount.ts hands routes to Hono: every other module declares them (Route, PageRoute)", () => {
    const direct = server.flatMap((file) =>
      readFileSync(join(ROOT, file), "utf8")
        .split("\n")
        .flatMap((text, i) =>
          DIRECT.test(text) && !/^\s*(\/\/|\*)/.test(text) ? [`${file}:${i + 1}: ${text.trim()}`] : [],
        ),
    );
    expect(direct.filter((line) => !line.startsWith("server/http/mount.ts:"))).toEqual([]);
    // The pattern is not vacuous: mount.ts itself answers the lists with it.
    expect(direct.some((line) => line.startsWith("server/http/mount.ts:"))).toBe(true);
  });

  test("createApp only wires: the route table and the page lists are mounted, in app.ts, by mountRoutes and mountPages", () => {
    const app = readFileSync(join(ROOT, "server/app.ts"), "utf8");
    expect(app).toMatch(/\bmountRoutes\(app, routes/);
    expect(app.match(/\bmountPages\(app, \[/g)).toHaveLength(2);
  });
});
