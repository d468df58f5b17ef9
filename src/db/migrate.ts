// Applies migrations/*.sql in name order, each exactly once and in its own transaction, under a
// session advisory lock so that instances starting together take turns; an applied migration that
// was edited stops start-up. A file that starts `-- migrate: without a transaction` runs statement
// by statement in autocommit, for CREATE INDEX CONCURRENTLY. The rules such a file keeps:
// docs/architecture.md#migrations.

import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import pg from 'pg';
import type { Logger } from 'pino';

const WITHOUT_TRANSACTION = '-- migrate: without a transaction\n';

export const MIGRATIONS_DIR = new URL('../../migrations/', import.meta.url).pathname;
/** Arbitrary, fixed: pg_advisory_lock key of the migration runner. */
const LOCK_KEY = 0x5_4e_0b_1e;
/** Start-up must not hang on an unreachable server or on a runner that never lets go of the lock. */
const CONNECT_TIMEOUT_MS = 10_000;
const LOCK_WAIT_MS = 120_000;
const LOCK_POLL_MS = 200;

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
    await takeLock(client);
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
      if (sql.startsWith(WITHOUT_TRANSACTION)) await runStatements(client, file, sql);
      else await runInTransaction(client, file, sql);
      await client.query('INSERT INTO schema_migrations (name, checksum) VALUES ($1, $2)', [file, checksum]);
      applied.push(file);
      log.info({ migration: file }, 'migration applied');
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [LOCK_KEY]).catch(() => undefined);
    await client.end();
  }
  return applied;
}

async function runInTransaction(client: pg.Client, file: string, sql: string): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query(sql);
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK');
    throw new Error(`migration ${file} failed: ${(err as Error).message}`, { cause: err });
  }
}

/**
 * The statements of a file without a transaction, one by one: ";" at a line's end ends one, except
 * inside a $$ body (a DO block, which runs as one statement and so in one transaction of its own).
 */
async function runStatements(client: pg.Client, file: string, sql: string): Promise<void> {
  const statements = splitStatements(sql);
  const indexes = [...sql.matchAll(/CREATE (?:UNIQUE )?INDEX CONCURRENTLY IF NOT EXISTS (\w+)/g)].map((match) => match[1] as string);
  try {
    const { rows } = await client.query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE NOT i.indisvalid AND c.relname = ANY($1)`,
      [indexes],
    );
    for (const { name } of rows) await client.query(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
    for (const statement of statements) await client.query(statement);
  } catch (err) {
    throw new Error(`migration ${file} failed: ${(err as Error).message}`, { cause: err });
  }
}

/**
 * The migration lock, asked for again and again rather than waited for in one statement: a session
 * waiting inside a statement holds a snapshot, and CREATE INDEX CONCURRENTLY waits for every older
 * snapshot to end, so the runner building an index and one waiting for its lock would wait for
 * each other.
 */
async function takeLock(client: pg.Client): Promise<void> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [LOCK_KEY]);
    if (rows[0]?.locked === true) return;
    if (Date.now() > deadline) throw new Error(`another instance held the migration lock for over ${LOCK_WAIT_MS / 1000} s`);
    await sleep(LOCK_POLL_MS);
  }
}

/** The statements of `sql`, comments left out; a $$ body is never cut. */
export function splitStatements(sql: string): string[] {
  const statements: string[] = [];
  let pending = '';
  for (const part of sql.split(/;\s*$/m)) {
    pending = pending === '' ? part : `${pending};${part}`;
    // An odd number of $$ so far: the ";" was inside a body.
    if ((pending.split('$$').length - 1) % 2 === 1) continue;
    const statement = pending.replace(/^\s*--.*$/gm, '').trim();
    if (statement !== '') statements.push(statement);
    pending = '';
  }
  return statements;
}
