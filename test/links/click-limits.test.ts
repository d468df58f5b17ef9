// Click limits granted by links/click-limits.ts, on the shared Redis (under a prefix of this file's
// own) and on a real Postgres: however many redirects several instances ask for at once, exactly
// the limit are given.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import type { LinkKey } from '../../src/core/domains.ts';
import { createApiKey } from '../../src/auth/api-keys.ts';
import { ClickLimits } from '../../src/links/click-limits.ts';
import { createTestDatabase, insertRawLinks, withClient, type TestDatabase } from '../helpers/db.ts';
import { deleteKeys, randomPrefix, redisInUse, SHARED_REDIS_URL } from '../helpers/redis.ts';
import { createLink, startApp, type Cleanup } from '../helpers/app.ts';
import { until } from '../helpers/wait.ts';
import pg from 'pg';

const prefix = randomPrefix('limits');
let database: TestDatabase;
let redis: Redis;
let pool: pg.Pool;
before(async () => {
  database = await createTestDatabase('click_limits');
  await insertRawLinks(database.url, ['limA', 'limB', 'limC']);
  redis = new Redis(SHARED_REDIS_URL);
  pool = new pg.Pool({ connectionString: database.url, max: 6 });
});
after(async () => {
  await deleteKeys(SHARED_REDIS_URL, prefix);
  redis.disconnect();
  await pool.end();
  await database.drop();
});

const direct = { run: <T>(operation: () => Promise<T>) => operation() };

/** `instances` grantors asking `perInstance` times each for `key`, in bursts over several turns; how many were given. */
async function burst(instances: ClickLimits[], key: string, limit: number, perInstance: number): Promise<number> {
  const asks: Promise<boolean>[] = [];
  for (let round = 0; round < perInstance / 10; round++) {
    for (const limits of instances) for (let i = 0; i < 10; i++) asks.push(limits.take(key as LinkKey, limit));
    await new Promise((resolve) => setImmediate(resolve));
  }
  return (await Promise.all(asks)).filter(Boolean).length;
}

test('Redis: three instances asking 600 redirects of a link at once are given exactly its limit, and no more after', async () => {
  const instances = [0, 1, 2].map(() => new ClickLimits({ redis, prefix }));
  assert.equal(await burst(instances, 'limA', 137, 200), 137);
  assert.equal(await burst(instances, 'limA', 137, 20), 0);
  // Another link counts on its own.
  assert.equal(await burst(instances, 'limB', 5, 20), 5);
});

test('Postgres: three instances asking 600 redirects at once are given exactly the limit; the count is in the table', async () => {
  const instances = [0, 1, 2].map(() => new ClickLimits({ db: pool, breaker: direct }));
  assert.equal(await burst(instances, 'limC', 137, 200), 137);
  assert.equal(await burst(instances, 'limC', 137, 20), 0);
  const { rows } = await withClient(database.url, (c) =>
    c.query<{ used: string }>("SELECT used FROM link_click_limits WHERE code = 'limC'"),
  );
  assert.equal(rows[0]?.used, '137');
  // A limit raised later gives the difference.
  assert.equal(await burst(instances, 'limC', 140, 20), 3);
});

/** Two instances on this file's database (and Redis, with `redisOn`), each sent `each` clicks of `code` at once over sockets. */
async function clickFromTwo(t: Cleanup, redisOn: boolean, fastPath: boolean, code: string, limit: number, each: number) {
  const base = { CLICK_FLUSH_INTERVAL_MS: '3600000', FAST_PATH: String(fastPath) };
  const env = redisOn ? { ...base, REDIS_URL: SHARED_REDIS_URL, REDIS_KEY_PREFIX: prefix } : base;
  const [one, two] = [await startApp(t, database.url, env), await startApp(t, database.url, env)];
  if (redisOn) for (const { app } of [one, two]) await until('invalidations heard', redisInUse(app));
  const created = await createLink(one.app, {
    url: 'https://example.com/limited',
    alias: code,
    options: { clickLimit: limit, redirectStatus: 307 },
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const answers = await Promise.all([one, two].flatMap(({ app }) => Array.from({ length: each }, () => app.inject({ url: `/${code}` }))));
  const statuses = new Map<number, number>();
  for (const res of answers) statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
  return { statuses, one: one.app, two: two.app };
}

for (const [redisOn, fastPath] of [
  [true, true],
  [false, true],
  [false, false],
] as const) {
  const where = `${redisOn ? 'Redis' : 'Postgres'}, ${fastPath ? 'the fast path' : 'node:http'}`;
  test(`a link with a click limit gives exactly that many redirects across two instances clicked at once (${where}), then 410`, async (t) => {
    const code = `limited-${redisOn ? 'redis' : 'pg'}-${fastPath ? 'fast' : 'node'}`;
    const { statuses, one, two } = await clickFromTwo(t, redisOn, fastPath, code, 23, 60);
    assert.deepEqual(Object.fromEntries(statuses), { 307: 23, 410: 97 });
    for (const app of [one, two]) {
      const later = await app.inject({ url: `/${code}` });
      assert.equal(later.statusCode, 410);
      assert.equal(later.json().error.code, 'LINK_CLICK_LIMIT_REACHED');
    }
    // The clicks counted are the redirects given.
    await Promise.all([one.clicks.flush(), two.clicks.flush()]);
    const { rows } = await withClient(database.url, (c) =>
      c.query<{ clicks: string }>('SELECT clicks FROM link_totals WHERE code = $1', [code]),
    );
    assert.equal(Number(rows[0]?.clicks), 23);
  });
}

test('a limited link past its limit takes its domain’s expired fallback; a bad limit is refused', async (t) => {
  const { app } = await startApp(t, database.url, { CLICK_FLUSH_INTERVAL_MS: '3600000', DOMAIN_VERIFICATION: 'false' });
  const admin = await withClient(database.url, (c) => createApiKey(c, { name: 'limits-admin', role: 'admin' }));
  const headers = { authorization: `Bearer ${admin.secret}` };
  const host = 'go.limits.example';
  const domain = await app.inject({
    method: 'POST',
    url: '/domains',
    headers,
    payload: { host, expiredRedirect: 'https://example.com/over' },
  });
  assert.equal(domain.statusCode, 201, domain.body);
  const created = await app.inject({
    method: 'POST',
    url: '/links',
    headers,
    payload: { url: 'https://example.com/once', alias: 'limited-once', domain: host, options: { clickLimit: 1 } },
  });
  assert.equal(created.statusCode, 201, created.body);
  const on = { host };
  assert.equal((await app.inject({ url: '/limited-once', headers: on })).headers.location, 'https://example.com/once');
  const over = await app.inject({ url: '/limited-once', headers: on });
  assert.equal(over.statusCode, 302);
  assert.equal(over.headers.location, 'https://example.com/over');
  for (const bad of [0, -1, 1.5, '10', 1_000_000_001]) {
    const res = await app.inject({
      method: 'POST',
      url: '/links',
      headers,
      payload: { url: 'https://example.com/', options: { clickLimit: bad } },
    });
    assert.equal(res.statusCode, 400, String(bad));
    assert.ok(['CLICK_LIMIT_INVALID', 'BODY_INVALID'].includes(res.json().error.code), String(bad));
  }
});
