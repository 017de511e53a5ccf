import { type ChildProcess, spawn } from "node:child_process";
import { loadavg } from "node:os";

/** The nearest-rank quantile (q from 0 to 1) of the values: the smallest value at or above that share of them. */
export function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
export const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;
/** The load average over 1, 5 and 15 minutes, as the benches print it. */
export const load = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(" / ");

/** The bench file `file` again in a child process with `role` (its CPU not counted here), and its first message. */
export async function child<T>(file: string, role: string): Promise<{ process: ChildProcess; first: T }> {
  const started = spawn(process.execPath, ["--import", "tsx", file, role], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const first = await new Promise<T>((resolve) => started.once("message", (m) => resolve(m as T)));
  return { process: started, first };
}

/** Sends `message` to a child and waits for its answer (one question at a time). */
export function ask<T>(to: ChildProcess, message: unknown): Promise<T> {
  return new Promise<T>((resolve) => {
    to.once("message", (m) => resolve(m as T));
    to.send(message as never);
  });
}
