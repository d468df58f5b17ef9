// Upgrading to domain verification (migrations/0014) with domains in use: each stays served, now
// `verified` with a token of its own to publish, and is checked from then on; a domain added
// afterwards without a status (an instance of the release before, during a rolling upgrade) waits
// for its record.

import assert from 'node:assert/strict';
import { cp, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { pino } from 'pino';
import { migrate, MIGRATIONS_DIR } from '../../src/db/migrate.ts';
import { bearer, startApp } from '../helpers/app.ts';
import { createTestDatabase, withClient, type TestDatabase } from '../helpers/db.ts';
import { keysWith } from '../helpers/workspaces.ts';

const log = pino({ level: 'silent' });
let database: TestDatabase;
let before0014: string;

before(async () => {
  database = await createTestDatabase('migrate_verify', { migrated: false });
  before0014 = await mkdtemp(join(tmpdir(), 'migrations-before-0014-'));
  for (const file of await readdir(MIGRATIONS_DIR)) if (file < '0014') await cp(join(MIGRATIONS_DIR, file), join(before0014, file));
});
after(async () => {
  await database.drop();
  await rm(before0014, { recursive: true, force: true });
});

interface Row {
  host: string;
  verification_status: string;
  verification_token: string | null;
  verified_at: Date | null;
}

test('domains that exist stay served, verified, each with a token of its own; one added without a status afterwards is pending', async (t) => {
  await migrate(database.url, log, before0014);
  await withClient(database.url, (client) =>
    client.query("INSERT INTO domains (workspace_id, host) VALUES (1, 'live.example.com'), (1, 'other.example.com')"),
  );
  await migrate(database.url, log);
  await withClient(database.url, (client) => client.query("INSERT INTO domains (workspace_id, host) VALUES (1, 'later.example.com')"));
  const rows = await withClient(database.url, async (client) => {
    const read = await client.query<Row>(
      'SELECT host, verification_status, verification_token, verified_at FROM domains WHERE id <> 0 ORDER BY host',
    );
    return read.rows;
  });
  assert.deepEqual(
    rows.map((row) => [row.host, row.verification_status]),
    [
      ['later.example.com', 'pending'],
      ['live.example.com', 'verified'],
      ['other.example.com', 'verified'],
    ],
  );
  const tokens = rows.map((row) => row.verification_token ?? '');
  assert.ok(
    tokens.every((token) => /^[A-Za-z0-9_-]{16,64}$/.test(token)),
    String(tokens),
  );
  assert.equal(new Set(tokens).size, 3, 'a token of its own each');
  assert.ok(rows.filter((row) => row.verification_status === 'verified').every((row) => row.verified_at !== null));

  // Served as before, with verification on (the first periodic check has not run: no resolver answers).
  const { app } = await startApp(t, database.url, { DOMAIN_DNS_RESOLVERS: '127.0.0.1:9' });
  assert.equal(
    (await app.inject({ url: '/nosuchcode', headers: { host: 'live.example.com' } })).json<{ error: { code: string } }>().error.code,
    'LINK_NOT_FOUND',
  );
  assert.equal(
    (await app.inject({ url: '/nosuchcode', headers: { host: 'later.example.com' } })).json<{ error: { code: string } }>().error.code,
    'HOST_NOT_SERVED',
  );
  const { admin } = await keysWith(database.url, { admin: 'admin' });
  const listed = (await app.inject({ url: '/domains', headers: bearer(admin) })).json<{
    domains: { host: string; verification: { status: string; record: { name: string } } | null }[];
  }>();
  assert.deepEqual(
    listed.domains.find((domain) => domain.host === 'live.example.com')?.verification?.record.name,
    '_shortener.live.example.com',
  );
});
