// Migrations: in order, each exactly once, in a transaction, safe when instances start together.

import assert from 'node:assert/strict';
import { cp, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { pino } from 'pino';
import { migrate, MIGRATIONS_DIR } from '../../src/db/migrate.ts';
import { createTestDatabase, withClient, type TestDatabase } from '../helpers/db.ts';

const log = pino({ level: 'silent' });
let database: TestDatabase;
let url: string;
let dir: string;

before(async () => {
  database = await createTestDatabase('migrate', { migrated: false });
  ({ url } = database);
  dir = await mkdtemp(join(tmpdir(), 'migrations-'));
  await cp(MIGRATIONS_DIR, dir, { recursive: true });
});
after(async () => {
  await database.drop();
  await rm(dir, { recursive: true, force: true });
});

test('five instances migrating at once apply each migration exactly once', async () => {
  const results = await Promise.all(Array.from({ length: 5 }, () => migrate(url, log, dir)));
  const applied = results.flat();
  const shipped = (await readdir(MIGRATIONS_DIR)).filter((file) => file.endsWith('.sql')).sort();
  assert.ok(shipped.length >= 4);
  assert.deepEqual(applied, shipped);
  assert.deepEqual(await migrate(url, log, dir), []);
});

test('the links table refuses rows the API would never write: non-ASCII URLs, infinite expiry', async () => {
  await withClient(url, async (client) => {
    await assert.rejects(client.query("INSERT INTO links (code, url) VALUES ('abc', 'https://example.com/€')"), /links_url_shape/);
    await assert.rejects(client.query("INSERT INTO links (code, url) VALUES ('abc', 'https://example.com/a b')"), /links_url_shape/);
    await assert.rejects(
      client.query("INSERT INTO links (code, url, expires_at) VALUES ('abc', 'https://example.com/', 'infinity')"),
      /links_expires_finite/,
    );
    await assert.rejects(client.query("INSERT INTO links (code, url) VALUES ('a/b', 'https://example.com/')"), /links_code_shape/);
  });
});

test('a row written by hand counts as an alias, never as a generated code', async () => {
  await withClient(url, async (client) => {
    const version = async () => (await client.query<{ v: string }>('SELECT alias_version::text AS v FROM code_space')).rows[0]?.v;
    const logged = async (code: string) =>
      (await client.query<{ version: string }>('SELECT version::text FROM alias_log WHERE code = $1', [code])).rows.map(
        (row) => row.version,
      );
    const previous = Number(await version());
    await client.query("INSERT INTO links (code, url) VALUES ('byHand1', 'https://example.com/')");
    const { rows } = await client.query<{ generated: boolean }>("SELECT generated FROM links WHERE code = 'byHand1'");
    assert.equal(rows[0]?.generated, false);
    // Logged for the code space under a new version: every instance learns it may exist (and looks it up).
    assert.equal(await version(), String(previous + 1));
    assert.deepEqual(await logged('byHand1'), [String(previous + 1)]);
    // What the service marks generated is not an alias: the log, and its version, are left alone.
    await client.query("INSERT INTO links (code, url, generated) VALUES ('byServ1', 'https://example.com/', true)");
    assert.deepEqual(await logged('byServ1'), []);
    assert.equal(await version(), String(previous + 1));
    await client.query("DELETE FROM links WHERE code IN ('byHand1', 'byServ1')");
  });
});

test('a failing migration is rolled back whole and stops start-up', async () => {
  await writeFile(join(dir, '0900_broken.sql'), 'CREATE TABLE half_done (id int);\nSELECT no_such_function();');
  await assert.rejects(migrate(url, log, dir), /migration 0900_broken.sql failed/);
  try {
    await withClient(url, async (client) => {
      const { rows } = await client.query("SELECT to_regclass('half_done') AS t");
      assert.equal(rows[0].t, null);
      const recorded = await client.query("SELECT 1 FROM schema_migrations WHERE name = '0900_broken.sql'");
      assert.equal(recorded.rowCount, 0);
    });
  } finally {
    await rm(join(dir, '0900_broken.sql'));
  }
});

test('a migration without a transaction runs its statements one by one; after a failure it runs again whole, an index a failed CONCURRENTLY build left invalid rebuilt', async () => {
  const file = join(dir, '0901_concurrent.sql');
  const migration = [
    '-- migrate: without a transaction',
    '-- A unique index over values that are not unique yet: its CONCURRENTLY build fails, and leaves it invalid.',
    'CREATE TABLE IF NOT EXISTS concurrent_probe (n integer);',
    'INSERT INTO concurrent_probe VALUES (1), (1);',
    'CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS concurrent_probe_n ON concurrent_probe (n);',
    '',
  ].join('\n');
  try {
    await writeFile(file, migration);
    await assert.rejects(migrate(url, log, dir), /migration 0901_concurrent.sql failed: could not create unique index/);
    const state = () =>
      withClient(url, async (client) => ({
        rows: (await client.query<{ n: number }>('SELECT count(*)::int AS n FROM concurrent_probe')).rows[0]?.n,
        valid: (
          await client.query<{ valid: boolean }>(
            "SELECT i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = 'concurrent_probe_n'",
          )
        ).rows.map((row) => row.valid),
        recorded: (await client.query("SELECT 1 FROM schema_migrations WHERE name = '0901_concurrent.sql'")).rowCount,
      }));
    // Not rolled back: what ran before the failure stays; the invalid index is there; nothing recorded.
    assert.deepEqual(await state(), { rows: 2, valid: [false], recorded: 0 });
    // Made right (the data, here by hand): the next start runs the file again from its first statement.
    await withClient(url, (client) => client.query('DELETE FROM concurrent_probe'));
    await writeFile(file, migration.replace('VALUES (1), (1)', 'VALUES (1), (2)'));
    assert.deepEqual(await migrate(url, log, dir), ['0901_concurrent.sql']);
    assert.deepEqual(await state(), { rows: 2, valid: [true], recorded: 1 });
  } finally {
    await withClient(url, (client) => client.query('DROP TABLE IF EXISTS concurrent_probe'));
    await withClient(url, (client) => client.query("DELETE FROM schema_migrations WHERE name = '0901_concurrent.sql'"));
    await rm(file);
  }
});

test('a migration edited after it was applied stops start-up', async () => {
  await writeFile(join(dir, '0001_links.sql'), '-- edited\n');
  await assert.rejects(migrate(url, log, dir), /0001_links.sql was changed after it was applied/);
});
