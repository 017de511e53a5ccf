/**
 * Porchlight as a library (`import … from "porchlight"`): the pieces `porchlight serve` puts together, for running
 * the server inside another Node program or testing against it. Everything here takes its dependencies explicitly;
 * only loadConfig reads the environment.
 *
 * ```ts
 * import { createServer } from "node:http";
 * import { createApp, createLogger, loadConfig, openStore } from "porchlight";
 *
 * const config = loadConfig();
 * const store = await openStore(config);
 * const { listener } = createApp({ store, config, logger: createLogger(config.logLevel) });
 * createServer(listener).listen(config.port, config.host);
 * ```
 *
 * The package runs its TypeScript through tsx: `server/index.js` loads this module for plain Node. A name exported
 * here must be listed there too (test/package.test.ts compares the two).
 */
export { bootstrapOwner, createToken, createUser } from "./accounts/accounts.ts";
export { type AppDeps, createApp } from "./app.ts";
export { type Config, ConfigError, loadConfig } from "./config.ts";
export { createLimiter, createMemoryLimiter, type Limiter, type LimiterOptions } from "./http/rate-limit.ts";
export { createLogger, type Logger } from "./log.ts";
export { main } from "./main.ts";
export { openStore, Store, type StoreOptions } from "./store/store.ts";
