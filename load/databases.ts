// The databases and Redis a run works on, each its own and gone at its end: a scratch database on
// DATABASE_URL's server or on a Postgres of the run's own (--database-cpus), or an embedded folder;
// a key prefix on REDIS_URL's server, or a redis-server of the run's own.

import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pino } from 'pino';
import { migrate } from '../src/db/migrate.ts';
import { createTestDatabase } from '../test/helpers/db.ts';
import { PrivatePostgres } from '../test/helpers/private-postgres.ts';
import { deleteKeys, PrivateRedis, randomPrefix } from '../test/helpers/redis.ts';
import type { Processes } from './processes.ts';

/** What a service is started with to use it (DATABASE_URL, or REDIS_URL and its prefix), and what the report calls it. */
export interface Prepared {
  readonly env: Record<string, string>;
  readonly label: string;
}

export interface PreparedRedis extends Prepared {
  readonly url: string;
  readonly prefix: string;
}

/**
 * A fresh database for this run: on a Postgres of its own on `databaseCpus`, or a scratch one on
 * DATABASE_URL's server (migrated, unless not `migrated`: the service migrates it as it starts),
 * or an embedded `folder` of the scratch folder.
 */
export async function prepareDatabase(
  processes: Processes,
  databaseCpus: readonly number[] | null,
  folder = 'pglite',
  { migrated = true } = {},
): Promise<Prepared> {
  if (databaseCpus !== null) {
    const server = await PrivatePostgres.start({ cpus: databaseCpus });
    processes.onCleanup(() => server.stop());
    const url = await server.createDatabase('load');
    if (migrated) await migrate(url, pino({ level: 'silent' }));
    return {
      env: { DATABASE_URL: url },
      label: `a Postgres of the run's own on 127.0.0.1:${server.port}, on CPU ${databaseCpus.join(',')} at nice 19`,
    };
  }
  if (process.env.DATABASE_URL !== undefined) {
    const db = await createTestDatabase('load', { migrated });
    processes.onCleanup(() => db.drop());
    const server = new URL(db.url);
    return { env: { DATABASE_URL: db.url }, label: `Postgres at ${server.host} (scratch database ${db.name}, dropped afterwards)` };
  }
  return { env: { EMBEDDED_DATA_DIR: join(processes.scratch, folder) }, label: 'embedded PGlite (DATABASE_URL unset)' };
}

/** Redis for this run, under a key prefix of its own that is deleted afterwards; null without a Redis URL. */
export function prepareRedis(processes: Processes, redisUrl: string | undefined): PreparedRedis | null {
  if (redisUrl === undefined) return null;
  const prefix = randomPrefix('load');
  processes.onCleanup(() => deleteKeys(redisUrl, prefix));
  return {
    env: { REDIS_URL: redisUrl, REDIS_KEY_PREFIX: prefix },
    url: redisUrl,
    prefix,
    label: `Redis at ${new URL(redisUrl).host} (key prefix ${prefix}, deleted afterwards)`,
  };
}

/** A redis-server of the run's own on `cpus` at nice 19, stopped at the end. */
export async function privateRedisOn(processes: Processes, cpus: readonly number[]): Promise<Prepared> {
  const server = await PrivateRedis.start();
  processes.onCleanup(() => server.stop());
  spawnSync('taskset', ['-a', '-p', '-c', cpus.join(','), String(server.pid)], { stdio: 'ignore' });
  spawnSync('renice', ['-n', '19', '-p', String(server.pid)], { stdio: 'ignore' });
  return {
    env: { REDIS_URL: server.url, REDIS_KEY_PREFIX: 'load:' },
    label: `a redis-server of the run's own on 127.0.0.1:${server.port}, on CPU ${cpus.join(',')} at nice 19`,
  };
}
