/**
 * Issue 28: the dashboard reads the API's payloads through the contract's types, never through shapes copied by
 * hand (a copy drifts silently when the contract changes). Every interface or object type declared in the
 * dashboard's sources is compared with every object schema the contract exports: one that repeats most of a
 * schema's fields is a copy, and fails here naming both.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, test } from "vitest";
import { z } from "zod";

const ROOT = resolve(import.meta.dirname, "../../..");
const DASHBOARD = join(ROOT, "components/porchlight-dashboard");
const CONTRACT = join(ROOT, "server/contract");

const sources = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith(".ts") && !e.name.endsWith(".d.ts"))
    .map((e) => join(e.parentPath, e.name));

/** The property names of every interface and object-literal type alias declared in a file. */
function declaredShapes(file: string): { name: string; keys: string[] }[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const shapes: { name: string; keys: string[] }[] = [];
  const keysOf = (members: ts.NodeArray<ts.TypeElement>) =>
    members.filter(ts.isPropertySignature).map((m) => m.name.getText(source).replace(/^["']|["']$/g, ""));
  const visit = (node: ts.Node) => {
    if (ts.isInterfaceDeclaration(node)) shapes.push({ name: node.name.text, keys: keysOf(node.members) });
    if (ts.isTypeAliasDeclaration(node) && ts.isTypeLiteralNode(node.type)) {
      shapes.push({ name: node.name.text, keys: keysOf(node.type.members) });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return shapes;
}

/** Every object schema the contract exports, by export name, with its field names. */
async function contractShapes(): Promise<{ name: string; keys: string[] }[]> {
  const shapes: { name: string; keys: string[] }[] = [];
  for (const file of sources(CONTRACT)) {
    const module: Record<string, unknown> = await import(file);
    for (const [name, value] of Object.entries(module)) {
      if (value instanceof z.ZodObject)
        shapes.push({ name: `${relative(ROOT, file)}#${name}`, keys: Object.keys(value.shape) });
    }
  }
  return shapes;
}

/** A local shape copies a contract schema when it repeats at least three of its fields and most of its own. */
function copies(local: string[], contract: string[]): boolean {
  const shared = local.filter((k) => contract.includes(k)).length;
  return shared >= 3 && shared / local.length >= 0.75 && shared / contract.length >= 0.5;
}

describe("the dashboard's payload types come from server/contract/", () => {
  test("the rule catches a copy and lets a screen's own state through", () => {
    expect(copies(["id", "name", "url", "status"], ["id", "name", "url", "status", "state", "tags"])).toBe(true);
    expect(copies(["open", "sort", "query"], ["id", "name", "url", "status"])).toBe(false);
    expect(copies(["id", "name"], ["id", "name"])).toBe(false);
  });

  test("no interface or object type in components/porchlight-dashboard/ copies a contract schema", async () => {
    const contract = await contractShapes();
    expect(contract.length).toBeGreaterThan(20);
    const found: string[] = [];
    for (const file of sources(DASHBOARD)) {
      for (const local of declaredShapes(file)) {
        for (const schema of contract) {
          if (copies(local.keys, schema.keys)) {
            found.push(`${relative(ROOT, file)}: ${local.name} {${local.keys.join(", ")}} copies ${schema.name}`);
          }
        }
      }
    }
    expect(found).toEqual([]);
  });

  test("no API call or poll reads its answer through an inline object type: the payload is the contract's", () => {
    const inline: string[] = [];
    for (const file of sources(DASHBOARD)) {
      const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
      const visit = (node: ts.Node) => {
        if (
          (ts.isCallExpression(node) || ts.isNewExpression(node)) &&
          /^(api|PollController)$/.test(node.expression.getText(source))
        ) {
          if (node.typeArguments?.some(ts.isTypeLiteralNode)) {
            const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
            inline.push(`${relative(ROOT, file)}:${line + 1}`);
          }
        }
        ts.forEachChild(node, visit);
      };
      visit(source);
    }
    expect(inline).toEqual([]);
  });

  test("the dashboard imports the contract as types only: zod stays out of its bundle", () => {
    const runtime = sources(DASHBOARD).filter((file) =>
      // status.ts is the pure status math, shared with the element; its own imports are types only.
      /^import\s+(?!type\b)[^;]*from\s+"[^"]*(server\/contract\/(?!status\.ts")|zod)/m.test(readFileSync(file, "utf8")),
    );
    expect(runtime.map((f) => relative(ROOT, f))).toEqual([]);
  });
});
