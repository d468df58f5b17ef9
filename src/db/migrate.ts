// Applies migrations/*.sql in name order, each exactly once and in its own transaction, under a
// session advisory lock so that instances starting together take turns. A migration that was
// applied and then edited stops start-up: the database no longer matches the files.

import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import type { Logger } from 'pino';

export const MIGRATIONS_DIR = new URL('../../migrations/', import.meta.url).pathname;
/** Arbitrary, fixed: pg_advisory_lock key of the migration runner. */
const LOCK_KEY = 0x5_4e_0b_1e;
/** Start-up must not hang on an unreachable server or on a runner that never lets go of the lock. */
const CONNECT_TIMEOUT_MS = 10_000;
const LOCK_WAIT = '120s';

export async function migrate(databaseUrl: string, log: Logger, dir: string = MIGRATIONS_DIR): Promise<string[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.sql')).sort();
  // Its own connection, without the pool's statement timeout: waiting for the lock or building
  // an index on a large table may take a while, and that is fine here.
  const client = new pg.Client({
    connectionString: databaseUrl,
    application_name: 'shortener-migrate',
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
  });
  await client.connect();
  const applied: string[] = [];
  try {
    await client.query(`SET lock_timeout = '${LOCK_WAIT}'`);
    await client.query('SELECT pg_advisory_lock($1)', [LOCK_KEY]).catch((err: unknown) => {
      throw new Error(`another instance held the migration lock for over ${LOCK_WAIT}`, { cause: err });
    });
    await client.query('SET lock_timeout = 0');
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      name text PRIMARY KEY, checksum text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
    const done = new Map<string, string>();
    const { rows } = await client.query<{ name: string; checksum: string }>('SELECT name, checksum FROM schema_migrations');
    for (const row of rows) done.set(row.name, row.checksum);

    for (const file of files) {
      const sql = await readFile(join(dir, file), 'utf8');
      const checksum = createHash('sha256').update(sql).digest('hex');
      const previous = done.get(file);
      if (previous !== undefined) {
        if (previous !== checksum) throw new Error(`migration ${file} was changed after it was applied`);
        continue;
      }
      await client.query('BEGIN');
      try {
        await client.query(sql);
        await client.query('INSERT INTO schema_migrations (name, checksum) VALUES ($1, $2)', [file, checksum]);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK');
        throw new Error(`migration ${file} failed: ${(err as Error).message}`, { cause: err });
      }
      applied.push(file);
      log.info({ migration: file }, 'migration applied');
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [LOCK_KEY]).catch(() => undefined);
    await client.end();
  }
  return applied;
}
