// The read path below the LRU: misses are batched per event-loop turn, identical codes share one
// lookup, and unknown codes are remembered for a while instead of asked for again.

import assert from 'node:assert/strict';
import type { LinkKey } from '../../src/core/domains.ts';
import { after, before, test } from 'node:test';
import { createLinkCache } from '../../src/cache/link-cache.ts';
import { plainLink } from '../helpers/links.ts';
import type { Queryable } from '../../src/db/pool.ts';
import { startApp, startCountedApp, testConfig, onDefault, type Cleanup, type StartOptions, lruMisses } from '../helpers/app.ts';
import { createTestDatabase, withClient, type TestDatabase, holdLookups } from '../helpers/db.ts';
import { until, within } from '../helpers/wait.ts';

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase('read_path');
  await withClient(database.url, (client) =>
    client.query(`INSERT INTO links (code, url) SELECT 'seed' || i, 'https://example.com/seed/' || i FROM generate_series(1, 200) AS i`),
  );
});
after(() => database.drop());

// Batches and single-flight are about requests of one event-loop turn: Fastify's inject() sends them so.
const countedApp = (t: Cleanup, env: Record<string, string> = {}, options: StartOptions = {}) =>
  startCountedApp(t, database.url, env, { redirects: 'fastify', ...options });

test('200 concurrent misses for distinct codes cost one query per batch, not one per request', async (t) => {
  const { app, lookups } = await countedApp(t, { READ_BATCH_MAX: '100' });
  const responses = await Promise.all(Array.from({ length: 200 }, (_, i) => app.inject({ url: `/seed${i + 1}` })));
  for (const [i, res] of responses.entries()) {
    assert.equal(res.statusCode, 302);
    assert.equal(res.headers.location, `https://example.com/seed/${i + 1}`);
  }
  assert.ok(lookups() >= 2 && lookups() <= 4, `${lookups()} queries for 200 misses in batches of at most 100`);
});

test('a stampede on one code costs one lookup, also for requests that come while it is in flight', async (t) => {
  const hold = holdLookups();
  const { app, lookups } = await countedApp(t, {}, { wrapDb: hold.wrapDb });
  const first = Array.from({ length: 50 }, () => app.inject({ url: '/seed7' }));
  await within('the lookup is held', hold.reached);
  // A later turn of the event loop: only the lookup in flight can merge these, not the batcher.
  const second = Array.from({ length: 50 }, () => app.inject({ url: '/seed7' }));
  await until('every request has reached the resolver while the lookup is held', async () => lruMisses(app) === 100, 5000);
  hold.release();
  const responses = await Promise.all([...first, ...second]);
  assert.deepEqual(new Set(responses.map((res) => res.statusCode)), new Set([302]));
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
  const hold = holdLookups();
  const { app } = await startApp(t, database.url, {}, { wrapDb: hold.wrapDb, redirects: 'fastify' });
  const lookup = app.inject({ url: '/in-flight-alias' });
  assert.equal(await within('the lookup is held', hold.reached), 0, 'the held lookup found no row: the race is on');
  const created = await app.inject({
    method: 'POST',
    url: '/links',
    payload: { url: 'https://example.com/fresh', alias: 'in-flight-alias' },
  });
  assert.equal(created.statusCode, 201);
  hold.release();
  // The request that asked before the create may see either answer...
  assert.ok([302, 404].includes((await lookup).statusCode));
  const later = await app.inject({ url: '/in-flight-alias' });
  assert.equal(later.statusCode, 302, 'but the stale "absent" must not replace the created link');
});

test("a lookup that saw a link's old target must not overwrite the change made while it was in flight", async (t) => {
  await withClient(database.url, (client) =>
    client.query("INSERT INTO links (code, url) VALUES ('in-flight-change', 'https://example.com/before')"),
  );
  const hold = holdLookups();
  const { app } = await startApp(t, database.url, {}, { wrapDb: hold.wrapDb, redirects: 'fastify' });
  const lookup = app.inject({ url: '/in-flight-change' });
  assert.equal(await within('the lookup is held', hold.reached), 1, 'the held lookup found the old row: the race is on');
  // Without Redis, the change goes straight into this instance's LRU.
  await app.links.change(onDefault('in-flight-change'), { url: 'https://example.com/after' });
  hold.release();
  // The request that asked before the change may see either target...
  assert.ok(['https://example.com/before', 'https://example.com/after'].includes(String((await lookup).headers.location)));
  const later = await app.inject({ url: '/in-flight-change' });
  assert.equal(later.headers.location, 'https://example.com/after', 'but the old target must not replace the new one');
});

test('"not found" never replaces a link the LRU holds: that link was created while the lookup ran', () => {
  const cache = createLinkCache(testConfig(database.url));
  const code = 'made-meanwhile' as LinkKey;
  const link = plainLink(code, 'https://example.com/meanwhile');
  assert.equal(cache.fill(code, link, Date.now()), link.url);
  assert.equal(cache.fill(code, undefined, Date.now()), link.url, 'the lookup is answered with the link');
  assert.equal(cache.get(code), link.url);
  // A code that no link has is remembered as such.
  assert.deepEqual(cache.fill('never-made' as LinkKey, undefined, Date.now()), { answer: 'LINK_NOT_FOUND' });
  assert.deepEqual(cache.get('never-made'), { answer: 'LINK_NOT_FOUND' });
});

test('the LRU holds at most CACHE_MAX_ENTRIES links: a new one pushes out the least recently used, a refill of one it holds pushes out none', () => {
  const cache = createLinkCache({ ...testConfig(database.url), cacheMaxEntries: 3 });
  const now = Date.now();
  const fill = (code: string): unknown => cache.fill(code as LinkKey, plainLink(code), now);
  for (const code of ['a', 'b', 'c']) fill(code);
  fill('c');
  assert.equal(cache.get('a'), 'https://example.com/a', 'the refill of c made no room: a, the least recently used, is still there');
  // a is used: b is now the least recently used.
  fill('d');
  assert.deepEqual(
    ['a', 'b', 'c', 'd'].map((code) => cache.get(code) !== undefined),
    [true, false, true, true],
    'b, the least recently used, and only b, left for d',
  );
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
  // Every statement the app sends, but the code space's reads every REFRESH_MS (Redis is off here),
  // and the background work on the domains table (the host table's reads, domain verification's rounds).
  const statements: string[] = [];
  const wrapDb = (db: Queryable): Queryable => ({
    query(text, values) {
      if (!text.includes('alias_log') && !text.includes('code_space') && !/\bdomains\b/.test(text)) statements.push(text);
      return db.query(text, values);
    },
  });
  // Clicks are flushed only when asked to: the 302 below must stay the one statement.
  const { app, lookups } = await countedApp(t, { CLICK_FLUSH_INTERVAL_MS: '3600000' }, { wrapDb });
  statements.length = 0;
  for (const path of ['/x', '/way-too-long-' + 'x'.repeat(80), '/bad.code', '/%F0%9F%92%A9', '/%E0%A4%A', '/%zz']) {
    assert.equal((await app.inject({ url: path })).statusCode, 404);
  }
  // inject() answers within microtasks; a lookup set off without being waited for would be sent
  // at the batchers' setImmediate, before this one.
  await new Promise(setImmediate);
  assert.equal(lookups(), 0);
  assert.deepEqual(statements, []);
  assert.equal((await app.inject({ url: '/seed3' })).statusCode, 302);
  assert.equal(lookups(), 1, 'a code that may exist is looked up, and counted');
  assert.equal(statements.length, 1, 'and its lookup is the one statement seen');
});
