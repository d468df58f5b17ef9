// Postgres: the database (DATABASE_URL, or the embedded engine), its migrations, the pool and the
// breaker every query of the service goes through. Closed last: every other part needs it to close.

import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { openDatabase } from '../db/database.ts';
import { createDbBreaker, type DbBreaker } from '../db/breaker.ts';
import { migrate } from '../db/migrate.ts';
import { createPool, type Queryable } from '../db/pool.ts';
import type { PartOptions } from './options.ts';

declare module 'fastify' {
  interface FastifyInstance {
    db: Queryable;
    /** The Postgres breaker: its state and the failures it counted. */
    breaker: DbBreaker;
  }
}

export default fp(
  async function postgresPart(app: FastifyInstance, { config, log, migrate: migrating, wrapDb }: PartOptions) {
    const database = await openDatabase(config, log);
    app.addHook('onClose', async () => {
      await database.stop();
    });
    if (migrating) await migrate(database.url, log);
    const pool = createPool(database.url, { ...config, dbPoolMax: database.poolMax }, log);
    app.addHook('onClose', async () => {
      await pool.end();
    });
    const breaker = createDbBreaker(config, log, app.metrics?.breakerTransition);
    app.addHook('onClose', async () => {
      breaker.shutdown();
    });
    app.decorate('db', wrapDb?.(pool) ?? pool);
    app.decorate('breaker', breaker);
  },
  { name: 'postgres', dependencies: ['metrics'] },
);
