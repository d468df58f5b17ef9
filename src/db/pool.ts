// The Postgres pool. Every wait is bounded on both sides: connecting (connectionTimeoutMillis),
// the server cancelling a slow statement (statement_timeout), and the client giving up on a
// server that no longer answers at all (query_timeout, which also discards that connection).

import pg from 'pg';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';

export type PoolOptions = Pick<Config, 'dbPoolMax' | 'dbConnectTimeoutMs' | 'dbStatementTimeoutMs' | 'breakerTimeoutMs'>;

export function createPool(databaseUrl: string, options: PoolOptions, log: Logger): pg.Pool {
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    application_name: 'shortener',
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
