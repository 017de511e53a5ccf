// The package's main entry (`import … from "porchlight"`) for plain Node, which does not strip the types of files
// under node_modules: server/index.ts loaded through tsx's scoped loader (nothing is registered for the rest of the
// process), then re-exported name by name. Types: dist/types/server/index.d.ts.
import { tsImport } from "tsx/esm/api";

/** @type {typeof import("./index.ts")} */
const api = await tsImport("./index.ts", import.meta.url);

export const {
  bootstrapOwner,
  ConfigError,
  createApp,
  createLimiter,
  createLogger,
  createMemoryLimiter,
  createToken,
  createUser,
  loadConfig,
  main,
  openStore,
  Store,
} = api;
