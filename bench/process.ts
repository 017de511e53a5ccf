/** What the benchmarks that start `porchlight serve` share: a free port, waiting for it, and reading its usage. */
import { execSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";

/** A port nothing listens on now (127.0.0.1). */
export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** Resolves once the address answers at all (10 s at most). */
export async function waitFor(url: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    try {
      await fetch(url);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  throw new Error(`${url} never answered`);
}

const TICKS = Number(execSync("getconf CLK_TCK").toString().trim()) || 100;

/** The CPU seconds a process has used so far (user and system, all its threads), from /proc. */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return (Number(fields[11]) + Number(fields[12])) / TICKS;
}

/** A process's resident memory in MiB, from /proc. */
export function rssMiB(pid: number): number {
  const pages = Number(readFileSync(`/proc/${pid}/statm`, "utf8").split(" ")[1]);
  return Math.round((pages * 4096) / 1_048_576);
}
