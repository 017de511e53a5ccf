// A build thread's entry (see page-pool.ts): Node 20 does not apply `--import tsx` given to a worker, so the
// TypeScript of the thread is imported through tsx's API.
import { tsImport } from "tsx/esm/api";

await tsImport("./page-worker.ts", import.meta.url);
