/**
 * The rate limiter's counters on PostgreSQL (server/http/rate-limit.ts): the connection pool they use and the sweep
 * of expired rows. The limiter library (rate-limiter-flexible) writes the table itself through this pool; every query
 * Porchlight runs on it is here, with the store's others.
 */
import pg from "pg";

/** The counters' connection pool: the limiter hands it to the library, never queries it. */
export type CounterPool = pg.Pool;

/** A pool for the counters: small, and quick to give up so that the limiter's memory insurance answers instead. */
export function counterPool(connectionString: string): CounterPool {
  const pool = new pg.Pool({
    connectionString,
    max: 4,
    // Short, so that an unreachable database hands over to the insurance limiter instead of holding requests.
    connectionTimeoutMillis: 2000,
    query_timeout: 2000,
    idleTimeoutMillis: 30_000,
  });
  // An idle connection the server drops (restart, failover) must not crash the process; the next query reconnects.
  pool.on("error", () => {});
  return pool;
}

/** Deletes the counters whose window ended before `before` (ms since the epoch). `table` is checked by the caller. */
export async function deleteExpiredCounters(pool: CounterPool, table: string, before: number): Promise<void> {
  await pool.query(`DELETE FROM "${table}" WHERE expire < $1`, [before]);
}
