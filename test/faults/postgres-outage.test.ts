// Postgres goes away (a proxy between the app and the real server is taken down) and comes back.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { startApp } from '../helpers/app.ts';
import { createTestDatabase, withClient, type TestDatabase } from '../helpers/db.ts';
import { TcpProxy, throughProxy } from '../helpers/tcp-proxy.ts';
import { until } from '../helpers/wait.ts';

let database: TestDatabase;
let proxy: TcpProxy;
before(async () => {
  database = await createTestDatabase('pg_outage');
  await withClient(database.url, (client) =>
    client.query(`INSERT INTO links (code, url) VALUES ('cached1', 'https://example.com/c'), ('uncached1', 'https://example.com/u')`),
  );
  const target = new URL(database.url);
  proxy = new TcpProxy(target.hostname, Number(target.port || 5432));
  await proxy.up();
});
after(async () => {
  await proxy.down();
  await database.drop();
});

const errorCode = (body: string) => (JSON.parse(body) as { error: { code: string } }).error.code;

test('Postgres unreachable: uncached codes 503 (never 404), the breaker opens, creates never 201; then it recovers', async (t) => {
  const { app } = await startApp(t, throughProxy(database.url, proxy), {
    BREAKER_RESET_MS: '500',
    DB_CONNECT_TIMEOUT_MS: '500',
  });
  assert.equal((await app.inject({ url: '/cached1' })).statusCode, 302);

  await proxy.down();

  const uncached = await app.inject({ url: '/uncached1' });
  assert.equal(uncached.statusCode, 503);
  assert.equal(errorCode(uncached.body), 'DATABASE_UNAVAILABLE');
  assert.equal(uncached.headers['retry-after'], '1');
  const create = await app.inject({ method: 'POST', url: '/links', payload: { url: 'https://example.com/during-outage' } });
  assert.equal(create.statusCode, 503);
  assert.equal(create.headers['retry-after'], '1');

  // A few failed batches open the breaker; from then on, misses fail fast without touching the network.
  for (let i = 0; i < 5; i++) {
    const miss = await app.inject({ url: `/miss${i}x` });
    assert.equal(miss.statusCode, 503, `miss${i}x`);
    assert.equal(errorCode(miss.body), 'DATABASE_UNAVAILABLE');
  }
  const ready = await app.inject({ url: '/readyz' });
  assert.equal(ready.statusCode, 503);
  assert.equal(ready.json<{ breaker: string }>().breaker, 'open');
  const started = performance.now();
  const fast = await app.inject({ url: '/uncached1' });
  assert.equal(fast.statusCode, 503);
  assert.ok(performance.now() - started < 200, 'an open breaker answers at once');
  const refused = await app.inject({ method: 'POST', url: '/links', payload: { url: 'https://example.com/during-open' } });
  assert.equal(refused.statusCode, 503);
  assert.equal(errorCode(refused.body), 'DATABASE_UNAVAILABLE');
  // The cached link still redirects.
  assert.equal((await app.inject({ url: '/cached1' })).statusCode, 302);

  await proxy.up();
  // After BREAKER_RESET_MS the breaker lets one batch try again.
  await until(
    'the breaker half-open',
    async () => (await app.inject({ url: '/readyz' })).json<{ breaker: string }>().breaker === 'half-open',
  );
  const back = await app.inject({ url: '/uncached1' });
  assert.equal(back.statusCode, 302);
  assert.equal(back.headers.location, 'https://example.com/u');
  assert.equal((await app.inject({ url: '/readyz' })).json<{ breaker: string }>().breaker, 'closed');
  const created = await app.inject({ method: 'POST', url: '/links', payload: { url: 'https://example.com/after' } });
  assert.equal(created.statusCode, 201);
});

test('a query stuck behind a lock is cancelled by Postgres: 503 DATABASE_TIMEOUT in bounded time, then it recovers', async (t) => {
  const { app } = await startApp(t, database.url, { DB_STATEMENT_TIMEOUT_MS: '200', BREAKER_TIMEOUT_MS: '1000' });
  const locker = new pg.Client({ connectionString: database.url });
  await locker.connect();
  t.after(() => locker.end());
  await locker.query('BEGIN');
  await locker.query('LOCK TABLE links IN ACCESS EXCLUSIVE MODE');

  const started = performance.now();
  const res = await app.inject({ url: '/uncached1' });
  const ms = performance.now() - started;
  assert.equal(res.statusCode, 503);
  assert.equal(errorCode(res.body), 'DATABASE_TIMEOUT');
  assert.equal(res.headers['retry-after'], '1');
  // Held by the lock for the whole statement timeout, and cancelled by Postgres before the breaker's own timeout.
  assert.ok(ms >= 200, `answered after ${Math.round(ms)} ms: before the statement timeout`);
  assert.ok(ms < 1000, `answered after ${Math.round(ms)} ms: the server-side statement timeout must act first`);

  await locker.query('ROLLBACK');
  const back = await app.inject({ url: '/uncached1' });
  assert.equal(back.statusCode, 302);
});
