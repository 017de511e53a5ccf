#!/usr/bin/env node
// The `porchlight` command. The version check comes before anything is loaded: on an older Node.js,
// better-sqlite3 13 crashes the process (a segmentation fault on Node 20) instead of failing with a message.
const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
if (major < 22 || (major === 22 && minor < 19)) {
  process.stderr.write(
    `Porchlight needs Node.js 22.19 or newer; this is v${process.versions.node}. Install a newer Node.js (https://nodejs.org) and run it again.\n`,
  );
  process.exit(1);
}
// Through tsx: the sources use TypeScript that Node's own type stripping refuses (parameter properties).
const { register } = await import("tsx/esm/api");
register();
const { main } = await import("../server/main.ts");
const code = await main(process.argv.slice(2));
if (code !== 0) process.exitCode = code;
