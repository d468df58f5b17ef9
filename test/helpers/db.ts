// Each test file gets its own database on the shared Postgres, migrated, and dropped at the end.

import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { pino } from 'pino';
import { LOOKUP_SOURCE } from '../../src/db/links.ts';
import { migrate } from '../../src/db/migrate.ts';
import type { Queryable } from '../../src/db/pool.ts';

export const ADMIN_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface TestDatabase {
  readonly name: string;
  readonly url: string;
  drop(): Promise<void>;
}

export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.href;
}

/** `migrated: false`: left empty, for tests of the migrations themselves. */
export async function createTestDatabase(label: string, { migrated = true } = {}): Promise<TestDatabase> {
  const name = `shortener_${label.replace(/\W/g, '_')}_${randomBytes(4).toString('hex')}`;
  await adminQuery(`CREATE DATABASE ${name}`);
  const url = withDatabase(ADMIN_URL, name);
  if (migrated) await migrate(url, pino({ level: 'silent' }));
  return { name, url, drop: () => dropDatabase(name) };
}

/** Runs `fn` with a connection of its own to `url`, closed afterwards whatever happens. */
export async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Links written straight into Postgres, each to https://example.com/<code>: no cache has heard of them. */
export async function insertRawLinks(databaseUrl: string, codes: readonly string[]): Promise<void> {
  await withClient(databaseUrl, (client) =>
    client.query(`INSERT INTO links (code, url) SELECT c, 'https://example.com/' || c FROM unnest($1::text[]) AS c`, [codes]),
  );
}

/** Runs one statement on the admin database (CREATE/DROP DATABASE). */
export async function adminQuery(sql: string): Promise<void> {
  await withClient(ADMIN_URL, (client) => client.query(sql));
}

/**
 * Waits (up to 5 s) for the database's connections to close, then drops it. pg's Pool.end()
 * resolves before its clients' sockets are closed; forcing the drop at that moment would make
 * those clients emit an error that no one listens to any more.
 */
export async function dropDatabase(name: string): Promise<void> {
  await withClient(ADMIN_URL, async (client) => {
    for (let waited = 0; waited < 5000; waited += 20) {
      const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [name]);
      if (rows[0]?.n === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  });
}

/** A real pool seen through a window that records each statement it runs. */
export function countingDb(db: Queryable): { db: Queryable; statements: string[] } {
  const statements: string[] = [];
  return {
    statements,
    db: {
      query(text, values) {
        statements.push(text);
        return db.query(text, values);
      },
    },
  };
}

/**
 * A window that holds the lookups of links by code (findLinks) whose codes `which` picks, once
 * Postgres has answered them, until released: a lookup kept in flight. (A gate, not a count: the
 * counts come from the app's own counters.)
 */
export function holdLookups(which: (codes: readonly string[]) => boolean = () => true) {
  const reached = Promise.withResolvers<number>();
  const release = Promise.withResolvers<void>();
  let holding = true;
  const wrapDb = (db: Queryable): Queryable => ({
    async query<R extends pg.QueryResultRow>(text: string, values?: unknown[]) {
      const result = await db.query<R>(text, values);
      const codes = values?.[0];
      if (holding && text.includes(LOOKUP_SOURCE) && Array.isArray(codes) && which(codes as string[])) {
        reached.resolve(result.rowCount ?? 0);
        await release.promise;
      }
      return result;
    },
  });
  return {
    wrapDb,
    /** Resolves with the held lookup's row count once one is held. */
    reached: reached.promise,
    release() {
      holding = false;
      release.resolve();
    },
  };
}
