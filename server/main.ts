import { mkdirSync, readFileSync } from "node:fs";
import { runCli } from "./cli/program.ts";

/** The version of this copy of Porchlight: package.json's. */
function version(): string {
  return (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }).version;
}

/**
 * The `porchlight` command on this process: its arguments, environment, working directory and standard streams.
 * Answers the exit code; `serve` and `worker` answer once they run and exit the process themselves when stopped.
 * The server, the engine and the store load only for the commands that use them, so `--help` answers at once.
 */
export async function main(argv: string[]): Promise<number> {
  return runCli(argv, {
    io: {
      out: (line) => process.stdout.write(`${line}\n`),
      err: (line) => process.stderr.write(`${line}\n`),
    },
    env: process.env,
    cwd: process.cwd(),
    version: version(),
    now: () => new Date(),
    async withStore(config, use) {
      const { openStore } = await import("./store/store.ts");
      const store = await openStore(config);
      try {
        return await use(store);
      } finally {
        await store.close();
      }
    },
    serve: async (config) => (await import("./cli/serve.ts")).serve(config),
    work: async (config, region) => (await import("./cli/worker.ts")).work(config, region),
    async refreshRdap(config, from) {
      const { refreshBootstrap } = await import("./engine/domain.ts");
      mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
      return refreshBootstrap(config.dataDir, from);
    },
  });
}
