// The Postgres pool. Every wait is bounded on both sides: connecting (connectionTimeoutMillis),
// the server cancelling a slow statement (statement_timeout), and the client giving up on a
// server that no longer answers at all (query_timeout, which also discards that connection).

import pg from 'pg';
import type { Logger } from 'pino';
import type { Config } from '../config/config.ts';

export type PoolOptions = Pick<Config, 'dbPoolMax' | 'dbConnectTimeoutMs' | 'dbStatementTimeoutMs' | 'breakerTimeoutMs'>;

/**
 * `settings`: run-time parameters of the pool's sessions (`-c name=value`, sent as the startup's
 * `options`), for a pool whose queries want other ones than Postgres's defaults.
 */
export function createPool(
  databaseUrl: string,
  options: PoolOptions,
  log: Logger,
  settings: Readonly<Record<string, string>> = {},
): pg.Pool {
  const startup = Object.entries(settings).map(([name, value]) => `-c ${name}=${value}`);
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    application_name: 'shortener',
    ...(startup.length === 0 ? {} : { options: startup.join(' ') }),
    max: options.dbPoolMax,
    connectionTimeoutMillis: options.dbConnectTimeoutMs,
    statement_timeout: options.dbStatementTimeoutMs,
    query_timeout: options.breakerTimeoutMs,
    idle_in_transaction_session_timeout: options.breakerTimeoutMs,
    idleTimeoutMillis: 30_000,
    keepAlive: true,
  });
  // An idle client whose server went away emits 'error' on the pool; without a listener that
  // would be an uncaught exception. The pool discards the client and the next query reconnects.
  pool.on('error', (err) => log.warn({ err: err.message }, 'idle Postgres connection lost'));
  return pool;
}

/** The narrow slice of a pool that queries need; tests may pass a counting one. */
export interface Queryable {
  query<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>>;
}

/**
 * Runs `work` in a transaction on a connection of its own: committed if it resolves to a result
 * `commit` accepts (any, by default), else rolled back, as it is if it throws. A connection that
 * failed mid-transaction is not given back to the pool.
 */
export async function inTransaction<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
  commit: (result: T) => boolean = () => true,
): Promise<T> {
  const client = await pool.connect();
  let failed: unknown;
  // A connection lost while checked out emits 'error' as well as failing the query under way;
  // without a listener that would be an uncaught exception (pool.query() listens for itself).
  const lost = (err: Error): void => {
    failed ??= err;
  };
  client.on('error', lost);
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query(commit(result) ? 'COMMIT' : 'ROLLBACK');
    return result;
  } catch (err) {
    failed = err;
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.off('error', lost);
    client.release(failed instanceof Error ? failed : undefined);
  }
}
