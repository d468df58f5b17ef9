// Upgrading a database of the release before workspaces (migrations 0001–0004) with data in it:
// its links move into the default workspace, each still owned by the key that made it; its keys
// become members there; click totals move with them (and what an instance of the release before
// still counts follows them); and the service then lists, manages and replays them as before.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { cp, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { pino } from 'pino';
import { hashSecret } from '../../src/auth/api-keys.ts';
import { migrate, MIGRATIONS_DIR } from '../../src/db/migrate.ts';
import { startApp } from '../helpers/app.ts';
import { createTestDatabase, withClient, type TestDatabase } from '../helpers/db.ts';

const log = pino({ level: 'silent' });
let database: TestDatabase;
let url: string;
let before0005: string;

before(async () => {
  database = await createTestDatabase('migrate_ws', { migrated: false });
  ({ url } = database);
  before0005 = await mkdtemp(join(tmpdir(), 'migrations-before-0005-'));
  for (const file of await readdir(MIGRATIONS_DIR)) if (file < '0005') await cp(join(MIGRATIONS_DIR, file), join(before0005, file));
});
after(async () => {
  await database.drop();
  await rm(before0005, { recursive: true, force: true });
});

const SECRET = `sk_${'K'.repeat(43)}`;

test('links and keys of the release before move into the default workspace with their owners, roles and click totals, and work as before', async (t) => {
  assert.deepEqual(await migrate(url, log, before0005), [
    '0001_links.sql',
    '0002_code_space.sql',
    '0003_link_version.sql',
    '0004_management.sql',
  ]);
  await withClient(url, async (client) => {
    await client.query("INSERT INTO api_keys (name, hash) VALUES ('newsletter', $1)", [hashSecret(SECRET)]);
    await client.query(
      `INSERT INTO links (code, url, owner_key_id, clicks, bot_clicks) VALUES
         ('old-owned', 'https://example.com/owned', 1, 41, 3), ('old-anon', 'https://example.com/anon', NULL, 0, 0)`,
    );
    await client.query(`INSERT INTO link_clicks_daily (code, day, clicks, bot_clicks) VALUES ('old-owned', '2026-11-30', 41, 3)`);
    // An Idempotency-Key stored by the release before: its request hash covered url, alias and expiresAt.
    const hash = createHash('sha256')
      .update(JSON.stringify(['https://example.com/owned', null, null]))
      .digest();
    await client.query("INSERT INTO idempotency_keys (scope, key, request_hash, code) VALUES (1, 'retry-1', $1, 'old-owned')", [hash]);
  });

  assert.deepEqual(
    await migrate(url, log),
    (await readdir(MIGRATIONS_DIR)).filter((file) => file.endsWith('.sql') && file >= '0005').sort(),
  );
  await withClient(url, async (client) => {
    const links = await client.query('SELECT code, workspace_id, owner_key_id, title, tags FROM links ORDER BY code');
    assert.deepEqual(links.rows, [
      { code: 'old-anon', workspace_id: '1', owner_key_id: null, title: null, tags: [] },
      { code: 'old-owned', workspace_id: '1', owner_key_id: '1', title: null, tags: [] },
    ]);
    const totals = await client.query('SELECT code, workspace_id, clicks, bot_clicks FROM link_totals ORDER BY code');
    assert.deepEqual(totals.rows, [
      { code: 'old-anon', workspace_id: '1', clicks: '0', bot_clicks: '0' },
      { code: 'old-owned', workspace_id: '1', clicks: '41', bot_clicks: '3' },
    ]);
    const keys = await client.query('SELECT id, role, workspace_id FROM api_keys');
    assert.deepEqual(keys.rows, [{ id: '1', role: 'member', workspace_id: '1' }]);
    // An instance of the release before, still serving during a rolling upgrade, adds its click counts to
    // links.clicks as it always did: they reach link_totals too.
    await client.query("UPDATE links SET clicks = links.clicks + 5, bot_clicks = links.bot_clicks + 1 WHERE code = 'old-owned'");
    const carried = await client.query("SELECT clicks, bot_clicks FROM link_totals WHERE code = 'old-owned'");
    assert.deepEqual(carried.rows, [{ clicks: '46', bot_clicks: '4' }]);
  });

  const { app } = await startApp(t, url);
  const headers = { authorization: `Bearer ${SECRET}` };
  const list = await app.inject({ url: '/links?sort=clicks', headers });
  assert.equal(list.statusCode, 200);
  assert.deepEqual(
    list
      .json<{ links: { code: string; clicks: number; creator: unknown }[] }>()
      .links.map(({ code, clicks, creator }) => ({ code, clicks, creator })),
    [
      { code: 'old-owned', clicks: 46, creator: { id: 1, name: 'newsletter' } },
      { code: 'old-anon', clicks: 0, creator: null },
    ],
  );
  // Its own link it still changes; the one made without a key is now an admin's to manage.
  assert.equal((await app.inject({ method: 'PATCH', url: '/links/old-owned', headers, payload: { title: 'Kept' } })).statusCode, 200);
  assert.equal((await app.inject({ method: 'PATCH', url: '/links/old-anon', headers, payload: { title: 'No' } })).statusCode, 403);
  const stats = await app.inject({ url: '/links/old-owned/stats?from=2026-11-30&to=2026-11-30', headers });
  assert.deepEqual(stats.json<{ total: unknown }>().total, { clicks: 46, botClicks: 4 });
  // A retry of a create acknowledged before the upgrade still gets its original answer.
  const retry = await app.inject({
    method: 'POST',
    url: '/links',
    headers: { ...headers, 'idempotency-key': 'retry-1' },
    payload: { url: 'https://example.com/owned' },
  });
  assert.equal(retry.statusCode, 201, retry.body);
  assert.equal(retry.headers['idempotent-replayed'], 'true');
  assert.equal(retry.json<{ code: string }>().code, 'old-owned');
  // Links created now get their totals row from the trigger, hand-written rows included.
  await withClient(url, (client) => client.query("INSERT INTO links (code, url) VALUES ('by-hand', 'https://example.com/hand')"));
  const byHand = await app.inject({ url: '/links/by-hand', headers });
  assert.equal(byHand.statusCode, 200);
  assert.equal(byHand.json<{ clicks: number }>().clicks, 0);
});
