/**
 * Porchlight as a package: what `npm pack` ships, and what a production install (`npm install --omit=dev` of the
 * tarball into a scratch project) can do with it: run the command, serve the embed script and a hosted page, and
 * give TypeScript the element's types. Slow (a build, a pack, an install), so its steps are bounded generously.
 *
 * The pack runs in a copy of the working tree (tracked and untracked files, node_modules linked), so its prepack
 * build never rewrites dist/ under the suites running beside it. The install prefers npm's cache, so that a run
 * after the first needs no registry.
 */
import { execFile, spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { freePort } from "./helpers.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const PACKAGE = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string };
const TSC = join(ROOT, "node_modules/typescript/bin/tsc");
const MINUTES = 60_000;

/**
 * The environment of every command: this one's (PATH with its Node, npm_config_nodedir), without what a surrounding
 * `npm test` or Vitest adds, so that the nested npm works on its own folder and Vite builds for production, and
 * without libfaketime's.
 */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (/^npm_/i.test(name) && name.toLowerCase() !== "npm_config_nodedir") continue;
    if (name === "NODE_ENV" || name === "INIT_CWD" || name.startsWith("VITEST")) continue;
    // Under CI's year-ahead pass, npm would judge the registry's certificate by the faked clock.
    if (name === "LD_PRELOAD" || name.startsWith("FAKETIME")) continue;
    env[name] = value;
  }
  return { ...env, ...extra };
}

/** Stops a process group this file started (npx and the command it runs); nothing when it has gone. */
function stopGroup(pid: number | undefined): void {
  try {
    if (pid) process.kill(-pid, "SIGTERM");
  } catch {
    // The group has already gone.
  }
}

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], cwd: string, env = cleanEnv()): Promise<Result> {
  return new Promise((done) => {
    execFile(command, args, { cwd, env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
      done({ code, stdout, stderr });
    });
  });
}

/** Runs and insists on exit code 0, with the output in the failure. */
async function ok(command: string, args: string[], cwd: string, env?: NodeJS.ProcessEnv): Promise<Result> {
  const result = await run(command, args, cwd, env);
  if (result.code !== 0) {
    throw new Error(`${command} ${args.join(" ")} exited ${result.code}\n${result.stdout}\n${result.stderr}`);
  }
  return result;
}

/**
 * What the installed server loads: every module reachable by static or dynamic import from the command and the
 * package's main entry, as paths relative to the repository.
 */
function runtimeModules(): string[] {
  const seen = new Set<string>();
  const pending = ["bin/porchlight.js", "server/index.js", "server/index.ts"].map((path) => join(ROOT, path));
  for (let file = pending.pop(); file; file = pending.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    for (const { fileName } of importedFiles) {
      if (fileName.startsWith(".")) pending.push(resolve(dirname(file), fileName));
    }
  }
  return [...seen].map((file) => relative(ROOT, file)).sort();
}

describe("the custom elements manifest", () => {
  test("custom-elements.json is what the analyzer makes from the element's sources now (npm run cem)", async () => {
    // @ts-expect-error: the analyzer's command line module has no types.
    const { cli } = await import("@custom-elements-manifest/analyzer/cli.js");
    const manifest = await cli({ argv: ["analyze", "--litelement", "--quiet"], cwd: ROOT, noWrite: true });
    const committed = readFileSync(join(ROOT, "custom-elements.json"), "utf8");
    expect(committed, "custom-elements.json is stale: run npm run cem").toBe(`${JSON.stringify(manifest, null, 2)}\n`);

    const element = manifest.modules
      .flatMap((module: { declarations?: unknown[] }) => module.declarations ?? [])
      .find((declaration: { tagName?: string }) => declaration.tagName === "porchlight-status");
    expect(element.name).toBe("PorchlightStatus");
    expect(element.attributes.map((a: { name: string }) => a.name)).toEqual([
      "slug",
      "api-base",
      "refresh",
      "theme",
      "locale",
      "compact",
      "remember-password",
    ]);
    expect(element.events).toEqual([
      expect.objectContaining({ name: "porchlight-load", type: { text: "CustomEvent<LoadDetail>" } }),
      expect.objectContaining({ name: "porchlight-error", type: { text: "CustomEvent<ErrorDetail>" } }),
      expect.objectContaining({ name: "porchlight-status-change", type: { text: "CustomEvent<StatusChangeDetail>" } }),
    ]);
    expect(element.cssParts.map((p: { name: string }) => p.name)).toContain("base");
    expect(element.cssProperties.map((p: { name: string }) => p.name)).toContain("--porchlight-accent");
    // Only the element's API: no private members.
    for (const member of element.members) expect(member.privacy).not.toBe("private");
  });
});

describe("the package", () => {
  let work: string;
  let tarball: string;
  let files: string[];
  let size: number;
  let scratch: string;
  /** Servers started here, stopped at the end even when a test timed out before its own clean-up. */
  const groups = new Set<number>();

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "porchlight-package-"));
    // The working tree as it is (tracked and untracked files, not what .gitignore leaves out), built and packed.
    const tree = join(work, "tree");
    const listed = await ok("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], ROOT);
    for (const path of listed.stdout.split("\0")) {
      if (!path || !existsSync(join(ROOT, path))) continue;
      mkdirSync(dirname(join(tree, path)), { recursive: true });
      cpSync(join(ROOT, path), join(tree, path));
    }
    symlinkSync(join(ROOT, "node_modules"), join(tree, "node_modules"), "dir");
    const packed = await ok("npm", ["pack", "--json", "--pack-destination", work], tree);
    // The prepack build's own lines come first on stdout; the JSON report is last.
    const [report] = JSON.parse(packed.stdout.slice(packed.stdout.search(/^\[/m)));
    tarball = join(work, report.filename);
    files = report.files.map((file: { path: string }) => file.path);
    size = report.size;

    scratch = join(work, "scratch");
    mkdirSync(scratch);
    writeFileSync(join(scratch, "package.json"), JSON.stringify({ name: "scratch", private: true, type: "module" }));
    await ok(
      "npm",
      ["install", "--omit=dev", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error", tarball],
      scratch,
    );
  }, 10 * MINUTES);

  afterAll(() => {
    for (const pid of groups) stopGroup(pid);
    if (work) rmSync(work, { recursive: true, force: true });
  });

  test("the tarball holds the built element, its types and manifest, the command and the server, and no more", () => {
    for (const path of [
      "package.json",
      "README.md",
      "LICENSE",
      "custom-elements.json",
      "bin/porchlight.js",
      "server/index.js",
      "server/engine/data/rdap-dns.json",
      "dist/embed/porchlight.js",
      "dist/embed/manifest.json",
      "dist/embed/porchlight-page.js",
      "dist/embed/page-manifest.json",
      "dist/types/components/porchlight-status/index.d.ts",
      "dist/types/components/porchlight-status/porchlight-status.d.ts",
      "dist/types/server/index.d.ts",
    ]) {
      expect(files, path).toContain(path);
    }
    // Every module the server loads at run time.
    const missing = runtimeModules().filter((path) => !files.includes(path));
    expect(missing, "imported at run time but not in package.json's files").toEqual([]);
    const unwanted = files.filter((path) =>
      /^(test|bench|\.ci|data|node_modules|test-artifacts|site\/pages|dist\/site)\//.test(path),
    );
    expect(unwanted).toEqual([]);
    expect(files).not.toContain("vite.config.ts");
    expect(size).toBeLessThan(1024 * 1024);
  });

  test("npx porchlight --version prints the package's version", async () => {
    const { stdout } = await ok("npx", ["--no", "--", "porchlight", "--version"], scratch);
    expect(stdout).toMatch(new RegExp(`(^|\\D)${PACKAGE.version.replaceAll(".", "\\.")}(\\D|$)`));
  });

  test(
    "npx porchlight serve answers the embed script and a hosted page",
    async () => {
      const dataDir = join(work, "data");
      const port = await freePort();
      const env = cleanEnv({
        PORT: String(port),
        HOST: "127.0.0.1",
        PORCHLIGHT_DATA_DIR: dataDir,
        DATABASE_URL: "",
        LOG_LEVEL: "warn",
      });
      // Its own process group: npx runs the command as a child, and stopping npx alone would leave it behind.
      const child = spawn("npx", ["--no", "--", "porchlight", "serve"], {
        cwd: scratch,
        env,
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
      });
      if (child.pid) groups.add(child.pid);
      let output = "";
      child.stdout.on("data", (d) => {
        output += d;
      });
      child.stderr.on("data", (d) => {
        output += d;
      });
      const exited = new Promise<void>((done) => child.on("exit", () => done()));
      const base = `http://127.0.0.1:${port}`;
      try {
        let token: string | undefined;
        let gone = false;
        void exited.then(() => {
          gone = true;
        });
        // Until it listens and has printed the owner's token (once, on the first start); a generous bound only
        // so that a failure says what the server printed.
        const deadline = performance.now() + 3 * MINUTES;
        while (!token) {
          if (gone || performance.now() > deadline) throw new Error(`porchlight serve never got ready:\n${output}`);
          const up = await fetch(`${base}/healthz`).then(
            (r) => r.ok,
            () => false,
          );
          if (up) token = /\bpl_[\w-]{20,}/.exec(output)?.[0];
          if (!token) await new Promise((wait) => setTimeout(wait, 100));
        }

        const script = await fetch(`${base}/embed/porchlight.js`);
        expect(script.status).toBe(200);
        expect(script.headers.get("content-type")).toMatch(/^text\/javascript/);
        const shipped = readFileSync(join(scratch, "node_modules/porchlight/dist/embed/porchlight.js"), "utf8");
        expect(await script.text()).toBe(shipped);

        const created = await fetch(`${base}/public/v1/status-pages`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify({ name: "Acme", slug: "acme", visibility: "public" }),
        });
        expect(created.status, await created.clone().text()).toBe(201);
        const page = await fetch(`${base}/acme`);
        const html = await page.text();
        expect(page.status, html).toBe(200);
        expect(page.headers.get("content-type")).toMatch(/^text\/html/);
        expect(html).toContain("<porchlight-status");
        // The page's own script, named by its content hash, is served too.
        const pageScript = /src="([^"]*\/embed\/porchlight-page\.[0-9a-f]+\.js)"/.exec(html)?.[1];
        expect(pageScript, html).toBeDefined();
        expect((await fetch(new URL(pageScript as string, base))).status).toBe(200);
      } finally {
        stopGroup(child.pid);
        await exited;
        if (child.pid) groups.delete(child.pid);
      }
    },
    5 * MINUTES,
  );

  test('import "porchlight" gives the server\'s entry, and the exports resolve to shipped files', async () => {
    const probe = [
      'const api = await import("porchlight");',
      "const resolved = {};",
      'for (const name of ["porchlight", "porchlight/element", "porchlight/custom-elements.json"]) {',
      "  resolved[name] = import.meta.resolve(name);",
      "}",
      "console.log(JSON.stringify({ names: Object.keys(api).sort(), resolved }));",
    ].join("\n");
    const { stdout } = await ok("node", ["--input-type=module", "-e", probe], scratch);
    const { names, resolved } = JSON.parse(stdout.trim().split("\n").pop() as string);
    const entry = await import("../server/index.ts");
    expect(names, "server/index.js must re-export what server/index.ts exports").toEqual(Object.keys(entry).sort());
    const installed = join(scratch, "node_modules/porchlight");
    expect(fileURLToPath(resolved["porchlight/element"])).toBe(join(installed, "dist/embed/porchlight.js"));
    for (const url of Object.values(resolved) as string[]) expect(existsSync(fileURLToPath(url)), url).toBe(true);
    // The element's module is an ES module exporting the class.
    expect(readFileSync(join(installed, "dist/embed/porchlight.js"), "utf8")).toMatch(
      /export\s*\{[^}]*PorchlightStatus/,
    );
  });

  test("TypeScript sees <porchlight-status>: the element's class, its properties and its events", async () => {
    writeFileSync(
      join(scratch, "element.ts"),
      `import "porchlight/element";
import type { ErrorDetail, LoadDetail, PorchlightStatus } from "porchlight/element";

const element: PorchlightStatus = document.createElement("porchlight-status");
element.slug = "acme";
element.refresh = 30;
element.compact = true;
// @ts-expect-error: refresh is a number of seconds
element.refresh = "30";
element.addEventListener("porchlight-load", (event) => {
  const detail: LoadDetail = event.detail;
  console.log(detail.page.items.length, event.detail.status.toUpperCase());
});
element.addEventListener("porchlight-error", (event) => {
  const detail: ErrorDetail = event.detail;
  console.log(detail.problem, detail.httpStatus.toFixed(0));
  // @ts-expect-error: an error's detail carries no page
  console.log(event.detail.page);
});
document.querySelector("porchlight-status")?.reload();
document.body.append(element);
`,
    );
    writeFileSync(
      join(scratch, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: "ESNext",
          moduleResolution: "bundler",
          lib: ["ES2022", "DOM", "DOM.Iterable"],
          strict: true,
          noEmit: true,
          // The package's declarations and those of its dependencies are checked too.
          skipLibCheck: false,
          types: [],
        },
        files: ["element.ts"],
      }),
    );
    const result = await run("node", [TSC, "-p", "tsconfig.json"], scratch);
    expect(result.stdout + result.stderr).toBe("");
    expect(result.code).toBe(0);
  });
});
