#!/usr/bin/env node
// The `porchlight` command: loads the TypeScript sources through tsx (Node 20 cannot strip types itself).
import { register } from "tsx/esm/api";

register();
const { main } = await import("../server/main.ts");
const code = await main(process.argv.slice(2));
if (code !== 0) process.exitCode = code;
