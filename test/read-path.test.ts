// The read path below the LRU: misses are batched per event-loop turn, identical codes share one
// lookup, and unknown codes are remembered for a while instead of asked for again.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { startApp, startCountedApp, type Cleanup } from './helpers/app.ts';
import { createTestDatabase, withClient, type TestDatabase } from './helpers/db.ts';

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase('read_path');
  await withClient(database.url, (client) =>
    client.query(`INSERT INTO links (code, url) SELECT 'seed' || i, 'https://example.com/seed/' || i FROM generate_series(1, 200) AS i`),
  );
});
after(() => database.drop());

const countedApp = (t: Cleanup, env: Record<string, string> = {}) => startCountedApp(t, database.url, env);

test('200 concurrent misses for distinct codes cost one query per batch, not one per request', async (t) => {
  const { app, lookups } = await countedApp(t, { READ_BATCH_MAX: '100' });
  const responses = await Promise.all(Array.from({ length: 200 }, (_, i) => app.inject({ url: `/seed${i + 1}` })));
  for (const [i, res] of responses.entries()) {
    assert.equal(res.statusCode, 302);
    assert.equal(res.headers.location, `https://example.com/seed/${i + 1}`);
  }
  assert.ok(lookups() >= 2 && lookups() <= 4, `${lookups()} queries for 200 misses in batches of at most 100`);
});

test('a stampede on one code costs one lookup', async (t) => {
  const { app, lookups } = await countedApp(t);
  const responses = await Promise.all(Array.from({ length: 100 }, () => app.inject({ url: '/seed7' })));
  assert.ok(responses.every((res) => res.statusCode === 302));
  assert.equal(lookups(), 1);
});

test('a repeated unknown code costs one database lookup, not one per request', async (t) => {
  const { app, lookups } = await countedApp(t);
  for (let i = 0; i < 25; i++) {
    const res = await app.inject({ url: '/NoSuchCode' });
    assert.equal(res.statusCode, 404);
  }
  assert.equal(lookups(), 1);
});

test('creating a link replaces the negative entry of its code at once', async (t) => {
  const { app } = await countedApp(t);
  assert.equal((await app.inject({ url: '/late-alias' })).statusCode, 404);
  const created = await app.inject({ method: 'POST', url: '/links', payload: { url: 'https://example.com/late', alias: 'late-alias' } });
  assert.equal(created.statusCode, 201);
  const res = await app.inject({ url: '/late-alias' });
  assert.equal(res.statusCode, 302);
  assert.equal(res.headers.location, 'https://example.com/late');
});

test('a lookup that saw no row must not overwrite the link created while it was in flight', async (t) => {
  const held = Promise.withResolvers<void>();
  let holding = true;
  const { app } = await startApp(t, database.url, {}, (db) => ({
    async query<R extends pg.QueryResultRow>(text: string, values?: unknown[]) {
      const result = await db.query<R>(text, values);
      // The SELECT has run (and found nothing); its answer arrives only after the create.
      if (holding && text.includes('code = ANY')) await held.promise;
      return result;
    },
  }));
  const lookup = app.inject({ url: '/in-flight-alias' });
  await new Promise((resolve) => setTimeout(resolve, 100));
  const created = await app.inject({
    method: 'POST',
    url: '/links',
    payload: { url: 'https://example.com/fresh', alias: 'in-flight-alias' },
  });
  assert.equal(created.statusCode, 201);
  holding = false;
  held.resolve();
  // The request that asked before the create may see either answer...
  assert.ok([302, 404].includes((await lookup).statusCode));
  const later = await app.inject({ url: '/in-flight-alias' });
  assert.equal(later.statusCode, 302, 'but the stale "absent" must not replace the created link');
});

test('a scanner asking for many unknown codes does not push hot links out of the LRU', async (t) => {
  const { app, lookups } = await countedApp(t, { CACHE_MAX_ENTRIES: '20', NEGATIVE_MAX_ENTRIES: '50' });
  for (let i = 1; i <= 10; i++) assert.equal((await app.inject({ url: `/seed${i}` })).statusCode, 302);
  const beforeScan = lookups();
  await Promise.all(Array.from({ length: 500 }, (_, i) => app.inject({ url: `/scan${i}x` })));
  const afterScan = lookups();
  for (let i = 1; i <= 10; i++) assert.equal((await app.inject({ url: `/seed${i}` })).statusCode, 302);
  assert.ok(afterScan > beforeScan, 'the scan itself went to the database');
  assert.equal(lookups(), afterScan, 'hot links were still cached after the scan');
});

test('a code that cannot exist is answered without any I/O', async (t) => {
  const { app, lookups } = await countedApp(t);
  for (const path of ['/x', '/way-too-long-' + 'x'.repeat(80), '/bad.code', '/%F0%9F%92%A9', '/%E0%A4%A', '/%zz']) {
    assert.equal((await app.inject({ url: path })).statusCode, 404);
  }
  assert.equal(lookups(), 0);
});
