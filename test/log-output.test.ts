import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { requestLevel } from "../server/http/headers.ts";
import { createLogger, createLogOutput, LOG_BUFFER_BYTES, type LogFormat, prettyLine } from "../server/log.ts";
import { freePort } from "./helpers.ts";

const hasScript = spawnSync("script", ["--version"]).status === 0;

/**
 * Issue 34: a server whose stdout is a pipe that nobody reads, or whose reader has gone, still stops on SIGTERM within
 * PORCHLIGHT_SHUTDOWN_TIMEOUT_SECONDS plus one second, answers requests meanwhile, and exits at once on a second
 * signal; a merely slow reader loses no line. The deadline is the behaviour under test, so its bound is asserted
 * (with the one second of slack the README promises), not a speed.
 */
const TIMEOUT_SECONDS = 2;
const SLACK_MS = 1000;

const children: ChildProcess[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** `porchlight serve` with stdout on a pipe this test reads only as `read` says; resolves once it listens. */
/** A server of its own on `port` and SQLite in `dataDir`, without the engine, logging at info. */
function serverEnv(port: number, dataDir: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    PORT: String(port),
    HOST: "127.0.0.1",
    DATABASE_URL: "",
    PORCHLIGHT_DATA_DIR: dataDir,
    PORCHLIGHT_ENGINE: "off",
    LOG_LEVEL: "info",
  };
}

async function serve(env: Record<string, string> = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), "porchlight-log-"));
  dirs.push(dataDir);
  const port = await freePort();
  const child = spawn(process.execPath, ["bin/porchlight.js", "serve"], {
    env: {
      ...serverEnv(port, dataDir),
      PORCHLIGHT_SHUTDOWN_TIMEOUT_SECONDS: String(TIMEOUT_SECONDS),
      ...env,
    },
    stdio: ["ignore", "pipe", "ignore"],
  });
  children.push(child);
  const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
    child.on("exit", (code) => resolve({ code, at: Date.now() })),
  );
  let stdout = "";
  const collect = (chunk: Buffer) => {
    stdout += chunk;
  };
  child.stdout?.on("data", collect);
  await new Promise<void>((resolve, reject) => {
    const check = () => {
      if (stdout.includes("porchlight listening")) {
        child.stdout?.off("data", check);
        resolve();
      }
    };
    child.stdout?.on("data", check);
    void exited.then(() => reject(new Error(`exited before listening:\n${stdout}`)));
  });
  return {
    child,
    base: `http://127.0.0.1:${port}`,
    port,
    exited,
    stdout: () => stdout,
    /** Stops reading stdout: the pipe fills and stays full. */
    stopReading: () => {
      child.stdout?.off("data", collect);
      child.stdout?.pause();
    },
    resumeReading: () => {
      child.stdout?.on("data", collect);
      child.stdout?.resume();
    },
    /** Closes this end of the pipe: the reader is gone. */
    closeReader: () => child.stdout?.destroy(),
  };
}

/** `count` requests whose request log lines are long (a 1,000-character path), 20 at a time; their statuses. */
async function logMany(base: string, count: number, marker = "x") {
  const statuses: number[] = [];
  for (let sent = 0; sent < count; sent += 20) {
    const batch = Array.from({ length: Math.min(20, count - sent) }, (_, i) =>
      fetch(`${base}/no-such-${marker}-${sent + i}-${"x".repeat(1000)}`).then(async (res) => {
        await res.arrayBuffer();
        return res.status;
      }),
    );
    statuses.push(...(await Promise.all(batch)));
  }
  return statuses;
}

describe("the server's log output never holds the process", () => {
  test("stdout never read, filled past every buffer: requests answer, and SIGTERM exits 0 within the deadline", async () => {
    const server = await serve();
    server.stopReading();
    // About 4 MB of request lines: past the pipe's buffer and the 1 MiB the process keeps for a slow reader.
    const statuses = await logMany(server.base, 4000);
    expect(statuses.every((status) => status === 404)).toBe(true);
    expect((await fetch(`${server.base}/healthz`)).status).toBe(200);
    const sent = Date.now();
    server.child.kill("SIGTERM");
    const { code, at } = await server.exited;
    expect(code).toBe(0);
    expect(at - sent).toBeLessThan(TIMEOUT_SECONDS * 1000 + SLACK_MS);
  }, 60_000);

  test("the reader has exited: requests answer, and SIGTERM exits 0 within the deadline", async () => {
    const server = await serve();
    server.closeReader();
    const statuses = await logMany(server.base, 1000);
    expect(statuses.every((status) => status === 404)).toBe(true);
    const sent = Date.now();
    server.child.kill("SIGTERM");
    const { code, at } = await server.exited;
    expect(code).toBe(0);
    expect(at - sent).toBeLessThan(TIMEOUT_SECONDS * 1000 + SLACK_MS);
  });

  test("a stop held by a request under way, stdout full: the deadline exits 1; a second SIGTERM exits 1 at once", async () => {
    for (const second of [false, true]) {
      const server = await serve();
      server.stopReading();
      await logMany(server.base, 4000);
      // A request whose headers never end keeps the HTTP server from closing.
      const socket = connect(server.port, "127.0.0.1");
      // The server's exit resets it: expected, not an error of this test.
      socket.on("error", () => {});
      await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
      socket.write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ");
      // Until the server has read those bytes the connection is idle, and closing drops an idle connection at once
      // (a CI run on Node 26 sent SIGTERM first and saw exit 0): give its loop, busy with 4 MB of log lines, time.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const sent = Date.now();
      server.child.kill("SIGTERM");
      if (second) {
        await new Promise((resolve) => setTimeout(resolve, 300));
        const again = Date.now();
        server.child.kill("SIGTERM");
        const { code, at } = await server.exited;
        expect(code).toBe(1);
        expect(at - again).toBeLessThan(SLACK_MS);
      } else {
        const { code, at } = await server.exited;
        expect(code).toBe(1);
        expect(at - sent).toBeLessThan(TIMEOUT_SECONDS * 1000 + SLACK_MS);
      }
      socket.destroy();
    }
    // Two servers and 8,000 requests of 1 KB before the part that is timed: a busy machine needs more than 30 s.
  }, 120_000);

  test("a slow reader loses no line: every request is logged once it reads again", async () => {
    const server = await serve();
    server.stopReading();
    // About 300 KB: past the pipe's buffer, within what the process keeps for a slow reader.
    const statuses = await logMany(server.base, 300, "slow");
    expect(statuses.every((status) => status === 404)).toBe(true);
    server.resumeReading();
    const logged = () => server.stdout().match(/no-such-slow-\d+-/g)?.length ?? 0;
    await expect.poll(logged, { timeout: 10_000 }).toBe(300);
    expect(server.stdout()).not.toContain("log lines dropped");
    server.child.kill("SIGTERM");
    expect((await server.exited).code).toBe(0);
    expect(server.stdout()).toContain('"msg":"stopped"');
  });
});

describe("log lines a person reads (LOG_FORMAT)", () => {
  const at = new Date(2026, 0, 2, 3, 4, 5).getTime();

  test("a JSON line as HH:MM:SS LEVEL message key=value, its error's stack below; other text as it is", () => {
    const line = `${JSON.stringify({ level: 30, time: at, msg: "request", method: "GET", path: "/a b", status: 404, counts: { x: 1 } })}\n`;
    expect(prettyLine(line)).toBe('03:04:05 INFO request method=GET path="/a b" status=404 counts={"x":1}\n');
    const failed = {
      level: 50,
      time: at,
      msg: "unhandled error",
      err: { message: "boom", stack: "Error: boom\n  at x" },
    };
    expect(prettyLine(`${JSON.stringify(failed)}\n`)).toBe(
      "03:04:05 ERROR unhandled error err=boom\n    Error: boom\n      at x\n",
    );
    expect(prettyLine("\n+----+\nnot a log line\n")).toBe("\n+----+\nnot a log line\n");
  });

  test("a file (not a terminal) gets JSON unless pretty is asked for", async () => {
    const dir = mkdtempSync(join(tmpdir(), "porchlight-log-"));
    dirs.push(dir);
    const written = async (format: LogFormat | undefined) => {
      const path = join(dir, `${format}.log`);
      const fd = openSync(path, "w");
      const output = createLogOutput(fd, LOG_BUFFER_BYTES, format);
      createLogger("info", output).info({ port: 8787 }, "porchlight listening");
      expect(await output.drain(5000)).toBe(true);
      closeSync(fd);
      return readFileSync(path, "utf8");
    };
    expect(JSON.parse(await written(undefined))).toMatchObject({ level: 30, port: 8787, msg: "porchlight listening" });
    expect(JSON.parse(await written("json"))).toMatchObject({ msg: "porchlight listening" });
    expect(await written("pretty")).toMatch(/^\d\d:\d\d:\d\d INFO porchlight listening port=8787\n$/);
  });

  test.each([
    ["GET", 200, "debug"],
    ["HEAD", 200, "debug"],
    ["GET", 304, "debug"],
    ["OPTIONS", 204, "debug"],
    ["GET", 302, "info"],
    ["GET", 404, "info"],
    ["GET", 500, "info"],
    ["POST", 201, "info"],
    ["PATCH", 200, "info"],
    ["DELETE", 204, "info"],
  ])("a %s answered %i logs its request line at %s", (method, status, level) => {
    expect(requestLevel(method, status)).toBe(level);
  });

  // util-linux's `script` runs the server on a pseudo-terminal, as a person's shell would.
  test.skipIf(!hasScript)("on a terminal, the server's lines read as text, the start line among them", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "porchlight-log-"));
    dirs.push(dataDir);
    const port = await freePort();
    const child = spawn(
      "script",
      ["-qec", `${JSON.stringify(process.execPath)} bin/porchlight.js serve`, "/dev/null"],
      {
        env: serverEnv(port, dataDir),
        stdio: ["ignore", "pipe", "ignore"],
      },
    );
    children.push(child);
    let stdout = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk;
    });
    await expect.poll(() => stdout, { timeout: 20_000 }).toContain("makes a new one");
    await fetch(`http://127.0.0.1:${port}/no-such-page.txt`);
    await expect.poll(() => stdout, { timeout: 10_000 }).toContain("path=/no-such-page.txt status=404");
    const lines = stdout.split(/\r?\n/);
    expect(lines).toContainEqual(
      expect.stringMatching(/^\d\d:\d\d:\d\d INFO porchlight listening port=\d+ host=127\.0\.0\.1 store=/),
    );
    expect(lines).toContainEqual(
      expect.stringMatching(
        new RegExp(`^\\d\\d:\\d\\d:\\d\\d INFO Porchlight is running: dashboard http://localhost:${port}/dashboard/`),
      ),
    );
    expect(lines.filter((line) => line.startsWith("{"))).toEqual([]);
  });
});
