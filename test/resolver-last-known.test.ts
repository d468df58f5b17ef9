// While Postgres cannot be asked, a code resolved recently answers its last known state (the LRU
// may have been cleared since); never after an invalidation of it, a missed invalidation, its
// expiry or the bound. Postgres here is a real database whose failure is switched on in front of it.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createLinkCache, isRedirect } from '../src/cache/link-cache.ts';
import type { ShortCode } from '../src/core/codes.ts';
import { findLinks } from '../src/db/links.ts';
import { AppError } from '../src/errors.ts';
import { createResolver } from '../src/resolve/resolver.ts';
import { testConfig } from './helpers/app.ts';
import { createTestDatabase, withClient, type TestDatabase } from './helpers/db.ts';
import pg from 'pg';

let database: TestDatabase;
let pool: pg.Pool;
before(async () => {
  database = await createTestDatabase('last_known');
  await withClient(database.url, (client) =>
    client.query(`INSERT INTO links (code, url, expires_at) VALUES
      ('keep1', 'https://example.com/keep1', NULL), ('keep2', 'https://example.com/keep2', NULL),
      ('keep3', 'https://example.com/keep3', NULL)`),
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
  const resolver = createResolver({
    cache,
    source: (codes) => (postgres.down ? Promise.reject(new AppError('DATABASE_UNAVAILABLE')) : findLinks(pool, codes)),
    maxBatch: 100,
    shared: null,
    sharedMaxBatch: 100,
    lastKnownTtlMs,
  });
  const target = async (code: string) => {
    const entry = await resolver.resolve(code as ShortCode);
    return isRedirect(entry) ? entry : entry.answer;
  };
  return { cache, postgres, resolver, target };
}

const unavailable = (err: unknown) => err instanceof AppError && err.code === 'DATABASE_UNAVAILABLE';

test('after the LRU was cleared, Postgres down: a code resolved before redirects; one never resolved is a 503', async () => {
  const { cache, postgres, target } = setUp();
  assert.equal(await target('keep1'), 'https://example.com/keep1');
  cache.reset(undefined);
  postgres.down = true;
  assert.equal(await target('keep1'), 'https://example.com/keep1');
  await assert.rejects(target('keep2'), unavailable);
});

test('an invalidation of the code, or forgetting after a missed invalidation, leaves a 503 instead', async () => {
  const { cache, postgres, resolver, target } = setUp();
  assert.equal(await target('keep1'), 'https://example.com/keep1');
  assert.equal(await target('keep2'), 'https://example.com/keep2');
  resolver.invalidate('keep1');
  resolver.missedInvalidations();
  cache.reset(undefined);
  postgres.down = true;
  await assert.rejects(target('keep1'), unavailable);
  await assert.rejects(target('keep2'), unavailable);
});

test('never past the link expiry', async () => {
  await withClient(database.url, (client) =>
    client.query(
      `INSERT INTO links (code, url, expires_at) VALUES ('soon1', 'https://example.com/soon1', now() + interval '500 milliseconds')`,
    ),
  );
  const { cache, postgres, target } = setUp();
  assert.equal(await target('soon1'), 'https://example.com/soon1');
  cache.reset(undefined);
  postgres.down = true;
  assert.equal(await target('soon1'), 'https://example.com/soon1');
  await new Promise((resolve) => setTimeout(resolve, 700));
  await assert.rejects(target('soon1'), unavailable);
});

test('never past the bound (CACHE_TTL_SECONDS)', async () => {
  const { cache, postgres, target } = setUp(200);
  assert.equal(await target('keep3'), 'https://example.com/keep3');
  cache.reset(undefined);
  postgres.down = true;
  assert.equal(await target('keep3'), 'https://example.com/keep3');
  await new Promise((resolve) => setTimeout(resolve, 300));
  await assert.rejects(target('keep3'), unavailable);
});
