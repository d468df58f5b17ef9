// Postgres: the database (DATABASE_URL, or the embedded engine), its migrations, the pool and the
// breaker every query of the service goes through. Closed last: every other part needs it to close.

import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type pg from 'pg';
import { openDatabase } from './database.ts';
import { createDbBreaker, type DbBreaker } from './breaker.ts';
import { migrate } from './migrate.ts';
import { breakerTransitions, watchBreaker } from './metrics.ts';
import { createPool, type Queryable } from './pool.ts';
import type { PartOptions } from '../part.ts';

declare module 'fastify' {
  interface FastifyInstance {
    db: Queryable;
    /** The pool behind `db`, for the few changes that take a transaction of several statements. */
    pool: pg.Pool;
    /** The Postgres breaker: its state and the failures it counted. */
    breaker: DbBreaker;
    /**
     * The link list's, its search's, tags' and exports' own pool and breaker (DB_LIST_POOL_MAX): a
     * slow search holds one of its connections and counts against its breaker, never those of
     * redirects and writes. On the embedded engine, its one connection is shared.
     */
    listDb: Queryable;
    listBreaker: DbBreaker;
    /**
     * Look-ups of API keys and sessions, and the readiness probe: their own pool and breaker
     * (DB_AUTH_POOL_MAX), so that a flood of made-up credentials or of /readyz neither takes the
     * connections of redirects and writes nor opens their breaker.
     */
    authDb: Queryable;
    /** The auth pool itself, for transactions (people, memberships, the audit log). */
    authPool: pg.Pool;
    authBreaker: DbBreaker;
  }
}

/** What app.ts gives this part besides PartOptions. */
export interface DatabaseOptions {
  /** Apply pending migrations first (false: a cluster's primary, or the tests, did it). */
  readonly migrate: boolean;
  /** A window between the app and its pool (tests hold or inspect statements through it). */
  readonly wrapDb: ((db: Queryable) => Queryable) | undefined;
}

export default fp(
  async function postgresPart(app: FastifyInstance, { config, log, migrate: migrating, wrapDb }: PartOptions & DatabaseOptions) {
    const database = await openDatabase(config, log);
    app.addHook('onClose', async () => {
      await database.stop();
    });
    if (migrating) await migrate(database.url, log);
    const pool = createPool(database.url, { ...config, dbPoolMax: database.poolMax }, log);
    app.addHook('onClose', async () => {
      await pool.end();
    });
    const breaker = createDbBreaker(config, log, app.metrics === null ? undefined : breakerTransitions(app.metrics));
    if (app.metrics !== null) watchBreaker(app.metrics, breaker);
    app.addHook('onClose', async () => {
      breaker.shutdown();
    });
    // A page of the list is at most 101 rows: parallel workers only add their start-up and take
    // cores from the queries of redirects (measured: load/run.ts --scenario list).
    const listPool =
      database.poolMax === 1
        ? pool
        : createPool(database.url, { ...config, dbPoolMax: config.dbListPoolMax }, log, { max_parallel_workers_per_gather: '0' });
    if (listPool !== pool) {
      app.addHook('onClose', async () => {
        await listPool.end();
      });
    }
    const listBreaker = createDbBreaker(config, log, undefined, 'Postgres breaker of the link list');
    app.addHook('onClose', async () => {
      listBreaker.shutdown();
    });
    const authPool = database.poolMax === 1 ? pool : createPool(database.url, { ...config, dbPoolMax: config.dbAuthPoolMax }, log);
    if (authPool !== pool) {
      app.addHook('onClose', async () => {
        await authPool.end();
      });
    }
    const authBreaker = createDbBreaker(config, log, undefined, 'Postgres breaker of key and session look-ups');
    app.addHook('onClose', async () => {
      authBreaker.shutdown();
    });
    app.decorate('db', wrapDb?.(pool) ?? pool);
    app.decorate('pool', pool);
    app.decorate('breaker', breaker);
    app.decorate('listDb', wrapDb?.(listPool) ?? listPool);
    app.decorate('listBreaker', listBreaker);
    app.decorate('authDb', wrapDb?.(authPool) ?? authPool);
    app.decorate('authPool', authPool);
    app.decorate('authBreaker', authBreaker);
  },
  { name: 'postgres', dependencies: ['metrics'] },
);
