// While Postgres cannot be asked, a code resolved recently answers its last known state (the LRU
// may have been cleared since); never after an invalidation of it, a missed invalidation, its
// expiry or the bound. Postgres here is a real database whose failure is switched on in front of it.

import assert from 'node:assert/strict';
import type { LinkKey } from '../../src/core/domains.ts';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { createLinkCache, isRedirect, refusalOf } from '../../src/cache/link-cache.ts';
import { findLinks, LOOKUP_SOURCE } from '../../src/db/links.ts';
import type { Queryable } from '../../src/db/pool.ts';
import { AppError } from '../../src/errors.ts';
import { Resolver } from '../../src/resolve/resolver.ts';
import { getRedirect, startApp, testConfig } from '../helpers/app.ts';
import { createTestDatabase, withClient, type TestDatabase } from '../helpers/db.ts';
import { until } from '../helpers/wait.ts';

let database: TestDatabase;
let pool: pg.Pool;
before(async () => {
  database = await createTestDatabase('last_known');
  await withClient(database.url, (client) =>
    client.query(`INSERT INTO links (code, url, expires_at) VALUES
      ('keep1', 'https://example.com/keep1', NULL), ('keep2', 'https://example.com/keep2', NULL),
      ('keep3', 'https://example.com/keep3', NULL), ('keep4', 'https://example.com/keep4', NULL),
      ('keep5', 'https://example.com/keep5', NULL)`),
  );
  pool = new pg.Pool({ connectionString: database.url, max: 2 });
});
after(async () => {
  await pool.end();
  await database.drop();
});

function setUp(lastKnownTtlMs = 60_000) {
  const cache = createLinkCache(testConfig(database.url));
  const postgres = { down: false };
  const resolver = new Resolver({
    cache,
    source: (codes) => (postgres.down ? Promise.reject(new AppError('DATABASE_UNAVAILABLE')) : findLinks(pool, codes)),
    maxBatch: 100,
    shared: null,
    sharedMaxBatch: 100,
    lastKnownTtlMs,
  });
  const target = async (code: string) => {
    const entry = await resolver.resolve(code as LinkKey);
    return isRedirect(entry) ? entry : (refusalOf(entry) ?? 'rules');
  };
  return { cache, postgres, resolver, target };
}

/** A link `code` to https://example.com/`code` that expires `interval` from now (Postgres's clock): its expiry, in ms. */
async function expiringLink(code: string, interval: string): Promise<number> {
  const { rows } = await withClient(database.url, (client) =>
    client.query<{ expires_at: Date }>(
      `INSERT INTO links (code, url, expires_at) VALUES ($1, 'https://example.com/' || $1, now() + $2::interval) RETURNING expires_at`,
      [code, interval],
    ),
  );
  return rows[0]?.expires_at.getTime() ?? Number.NaN;
}

/** A resolver that answered `code` from Postgres and then, its LRU cleared and Postgres down, from its last known answer. */
async function knownThenDown(code: string): Promise<(code: string) => Promise<string>> {
  const { cache, postgres, target } = setUp();
  assert.equal(await target(code), `https://example.com/${code}`);
  cache.reset();
  postgres.down = true;
  assert.equal(await target(code), `https://example.com/${code}`);
  return target;
}

const unavailable = (err: unknown) => err instanceof AppError && err.code === 'DATABASE_UNAVAILABLE';

/** Waits until `ms` have passed since `since` (a performance.now()): timers never fire early, but may fire late. */
const untilPast = (what: string, since: number, ms: number) => until(what, async () => performance.now() > since + ms, ms + 10_000);

test('after the LRU was cleared, Postgres down: a code resolved before redirects; one never resolved is a 503', async () => {
  const { cache, postgres, target } = setUp();
  assert.equal(await target('keep1'), 'https://example.com/keep1');
  cache.reset();
  postgres.down = true;
  assert.equal(await target('keep1'), 'https://example.com/keep1');
  await assert.rejects(target('keep2'), unavailable);
});

test('an invalidation of a code leaves a 503 for that code; another code still answers its last known state', async () => {
  const { cache, postgres, resolver, target } = setUp();
  assert.equal(await target('keep1'), 'https://example.com/keep1');
  assert.equal(await target('keep2'), 'https://example.com/keep2');
  resolver.invalidate('keep1');
  cache.reset();
  postgres.down = true;
  await assert.rejects(target('keep1'), unavailable);
  assert.equal(await target('keep2'), 'https://example.com/keep2');
});

test('forgetting after a missed invalidation leaves a 503 for every code', async () => {
  const { cache, postgres, resolver, target } = setUp();
  assert.equal(await target('keep1'), 'https://example.com/keep1');
  assert.equal(await target('keep2'), 'https://example.com/keep2');
  resolver.missedInvalidations();
  cache.reset();
  postgres.down = true;
  await assert.rejects(target('keep1'), unavailable);
  await assert.rejects(target('keep2'), unavailable);
});

test('never past the link expiry', async () => {
  // Seconds ahead, so that the answers before it have room on a busy machine; Postgres and this
  // process read the same clock.
  const expiresAt = await expiringLink('soon1', '2 seconds');
  const target = await knownThenDown('soon1');
  assert.ok(Date.now() < expiresAt, 'both answers came before the expiry');
  await until('the link has expired', async () => Date.now() > expiresAt + 100, 10_000);
  await assert.rejects(target('soon1'), unavailable);
});

test('never past the link expiry by the wall clock, even one set ahead of the monotonic clock the TTL runs on', async (t) => {
  const expiresAt = await expiringLink('soon2', '1 minute');
  const target = await knownThenDown('soon2');
  // A virtual machine's wall clock resynchronised forward, past the expiry; performance.now() did not move.
  t.mock.timers.enable({ apis: ['Date'], now: expiresAt + 1000 });
  await assert.rejects(target('soon2'), unavailable);
});

test('never past the bound (lastKnownTtlMs)', async () => {
  const boundMs = 1000;
  const { cache, postgres, target } = setUp(boundMs);
  assert.equal(await target('keep3'), 'https://example.com/keep3');
  // The bound runs from the lookup, which ended before this.
  const resolved = performance.now();
  cache.reset();
  postgres.down = true;
  assert.equal(await target('keep3'), 'https://example.com/keep3');
  assert.ok(performance.now() - resolved < boundMs, 'the answer came within the bound');
  await untilPast('the bound has passed', resolved, boundMs + 100);
  await assert.rejects(target('keep3'), unavailable);
});

test('in the app, the bound is CACHE_TTL_SECONDS', async (t) => {
  // The app's lookups of links fail on demand; the code space's reads go on.
  const postgres = { down: false };
  const wrapDb = (db: Queryable): Queryable => ({
    query(text, values) {
      if (postgres.down && text.includes(LOOKUP_SOURCE)) return Promise.reject(new Error('Postgres is down (test)'));
      return db.query(text, values);
    },
  });
  const { app } = await startApp(t, database.url, { CACHE_TTL_SECONDS: '1' }, { wrapDb });
  assert.deepEqual(await getRedirect(app, 'keep4'), { status: 302, location: 'https://example.com/keep4' });
  const resolved = performance.now();
  app.cache.reset();
  postgres.down = true;
  assert.deepEqual(await getRedirect(app, 'keep4'), { status: 302, location: 'https://example.com/keep4' });
  assert.equal((await getRedirect(app, 'keep5')).status, 503, 'a code never resolved is looked up, and Postgres is down');
  assert.ok(performance.now() - resolved < 1000, 'the answers came within the bound');
  await untilPast('CACHE_TTL_SECONDS has passed', resolved, 1100);
  assert.equal((await getRedirect(app, 'keep4')).status, 503);
});
