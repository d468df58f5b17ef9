// Limits on creates: per client address without an API key, per key with one, counted in links
// (a bulk counts its items), in Redis shared by every instance, in memory without Redis, and in
// memory again while Redis is down, without slowing a create past the Redis command timeout.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { createApiKey } from '../../src/auth/api-keys.ts';
import { LocalCounter, SharedCounter } from '../../src/api/counters.ts';
import { loadConfig } from '../../src/config/config.ts';
import { createRedisClient } from '../../src/redis/client.ts';
import { startApp } from '../helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { memoryLogger } from '../helpers/logs.ts';
import { deleteKeys, PrivateRedis, PrivateRedisCluster, randomPrefix, redisInUse, SHARED_REDIS_URL, withRedis } from '../helpers/redis.ts';
import { until } from '../helpers/wait.ts';

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase('rate_limits');
});
after(() => database.drop());

const ON = { RATE_LIMIT_ENABLED: 'true' };
/** The service's Redis client settings (no offline queue, a 100 ms command timeout). */
const REDIS_CLIENT = loadConfig({ REDIS_COMMAND_TIMEOUT_MS: '100' });

interface Answer {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: { error?: { code: string; message: string } };
  ms: number;
}

let n = 0;
async function create(app: FastifyInstance, from = '203.0.113.1', headers: Record<string, string> = {}): Promise<Answer> {
  const started = performance.now();
  const res = await app.inject({
    method: 'POST',
    url: '/links',
    remoteAddress: from,
    headers,
    payload: { url: `https://example.com/rate/${n++}` },
  });
  return { status: res.statusCode, headers: res.headers, body: res.json(), ms: performance.now() - started };
}

async function bulk(app: FastifyInstance, count: number, from = '203.0.113.1'): Promise<Answer> {
  const links = Array.from({ length: count }, () => ({ url: `https://example.com/rate/${n++}` }));
  const started = performance.now();
  const res = await app.inject({ method: 'POST', url: '/links/bulk', remoteAddress: from, payload: { links } });
  return { status: res.statusCode, headers: res.headers, body: res.json(), ms: performance.now() - started };
}

function assertLimited(answer: Answer, limit: number): void {
  assert.equal(answer.status, 429);
  assert.equal(answer.body.error?.code, 'RATE_LIMITED');
  assert.equal(answer.headers['x-ratelimit-limit'], String(limit));
  assert.equal(answer.headers['x-ratelimit-remaining'], '0');
  const retryAfter = Number(answer.headers['retry-after']);
  assert.ok(retryAfter >= 1 && retryAfter <= 60, `retry-after ${String(answer.headers['retry-after'])}`);
  assert.equal(answer.headers['x-ratelimit-reset'], answer.headers['retry-after']);
  assert.match(String(answer.headers['content-type']), /^application\/json/);
}

describe('in memory (no Redis)', () => {
  test('past RATE_LIMIT_CREATES_PER_IP an address gets 429 RATE_LIMITED with Retry-After and the x-ratelimit headers; other addresses go on', async (t) => {
    const { app } = await startApp(t, database.url, { ...ON, RATE_LIMIT_CREATES_PER_IP: '3' });
    for (let i = 0; i < 3; i++) {
      const ok = await create(app);
      assert.equal(ok.status, 201);
      assert.equal(ok.headers['x-ratelimit-limit'], '3');
      assert.equal(ok.headers['x-ratelimit-remaining'], String(2 - i));
      const reset = Number(ok.headers['x-ratelimit-reset']);
      assert.ok(reset > 0 && reset <= 60, `x-ratelimit-reset ${reset}`);
    }
    const limited = await create(app);
    assertLimited(limited, 3);
    assert.match(limited.body.error?.message ?? '', /address may create 3 links per 60 s/);
    assert.equal((await create(app)).status, 429, 'a refused create does not open the door');
    assert.equal((await create(app, '198.51.100.7')).status, 201, 'another address has its own count');
    // The redirect path never carries the limiter.
    const redirect = await app.inject({ url: '/anything1' });
    assert.equal(redirect.headers['x-ratelimit-limit'], undefined);
  });

  test('an API key has its own, higher limit, counted per key and not against its address', async (t) => {
    const { app, pool } = await startApp(t, database.url, { ...ON, RATE_LIMIT_CREATES_PER_IP: '2', RATE_LIMIT_CREATES_PER_KEY: '4' });
    const first = await createApiKey(pool, { name: 'rate-limit test one' });
    const second = await createApiKey(pool, { name: 'rate-limit test two' });
    const from = '203.0.113.2';
    const withKey = (secret: string) => ({ authorization: `Bearer ${secret}` });
    for (let i = 0; i < 4; i++) {
      const ok = await create(app, from, withKey(first.secret));
      assert.equal(ok.status, 201);
      assert.equal(ok.headers['x-ratelimit-limit'], '4');
    }
    const limited = await create(app, from, withKey(first.secret));
    assertLimited(limited, 4);
    assert.match(limited.body.error?.message ?? '', /API key may create 4 links/);
    // Another key from the same address, and the address without a key, each still have their own.
    assert.equal((await create(app, from, withKey(second.secret))).status, 201);
    assert.equal((await create(app, from)).headers['x-ratelimit-remaining'], '1');
    assert.equal((await create(app, from)).status, 201);
    assertLimited(await create(app, from), 2);
    // The key is limited wherever it comes from.
    assert.equal((await create(app, '198.51.100.8', withKey(first.secret))).status, 429);
  });

  test('a bulk counts its links; one that does not fit is refused whole, creates nothing and costs nothing', async (t) => {
    const { app } = await startApp(t, database.url, { ...ON, RATE_LIMIT_CREATES_PER_IP: '5' });
    const three = await bulk(app, 3);
    assert.equal(three.status, 200);
    assert.equal(three.headers['x-ratelimit-remaining'], '2');
    const tooMany = await bulk(app, 3);
    assertLimited(tooMany, 5);
    // Nothing of the refused bulk was counted: two single creates still fit.
    assert.equal((await create(app)).headers['x-ratelimit-remaining'], '1');
    assert.equal((await bulk(app, 1)).headers['x-ratelimit-remaining'], '0');
    assert.equal((await create(app)).status, 429);
    const never = await bulk(app, 6, '198.51.100.9');
    assert.equal(never.status, 429);
    assert.match(never.body.error?.message ?? '', /6 links at once are more than the 5 this address may create in 60 s; send fewer/);
  });

  test('RATE_LIMIT_ENABLED=false: no limit, no rate-limit headers', async (t) => {
    const { app } = await startApp(t, database.url, { RATE_LIMIT_ENABLED: 'false', RATE_LIMIT_CREATES_PER_IP: '1' });
    for (let i = 0; i < 5; i++) {
      const ok = await create(app);
      assert.equal(ok.status, 201);
      assert.equal(ok.headers['x-ratelimit-limit'], undefined);
      assert.equal(ok.headers['retry-after'], undefined);
    }
  });

  test('a limit of 0 lets that kind of client create without limit (trusted callers with a key)', async (t) => {
    const { app, pool } = await startApp(t, database.url, { ...ON, RATE_LIMIT_CREATES_PER_IP: '1', RATE_LIMIT_CREATES_PER_KEY: '0' });
    const key = await createApiKey(pool, { name: 'trusted' });
    for (let i = 0; i < 5; i++) {
      const ok = await create(app, '203.0.113.3', { 'x-api-key': key.secret });
      assert.equal(ok.status, 201);
      assert.equal(ok.headers['x-ratelimit-limit'], undefined);
    }
    assert.equal((await create(app, '203.0.113.3')).status, 201);
    assert.equal((await create(app, '203.0.113.3')).status, 429);
  });

  test('the window: counts start again once it has passed', () => {
    const counter = new LocalCounter(10);
    const t0 = 1_000_000;
    assert.deepEqual(counter.add('a', 2, 3, 1000, t0), { current: 2, ttl: 1000 });
    assert.deepEqual(counter.add('a', 2, 3, 1000, t0 + 400), { current: 4, ttl: 600 }, 'refused');
    assert.deepEqual(counter.add('a', 1, 3, 1000, t0 + 500), { current: 3, ttl: 500 }, 'the refused 2 were not counted');
    assert.deepEqual(counter.add('a', 1, 3, 1000, t0 + 1000), { current: 1, ttl: 1000 }, 'a new window');
  });
});

describe('in Redis', () => {
  const prefix = randomPrefix('rate_limits');
  after(() => deleteKeys(SHARED_REDIS_URL, prefix));

  test('two instances on one Redis share the count, kept under the key prefix with the window as TTL', async (t) => {
    const env = { ...ON, REDIS_URL: SHARED_REDIS_URL, REDIS_KEY_PREFIX: prefix, RATE_LIMIT_CREATES_PER_IP: '4' };
    const { app: one } = await startApp(t, database.url, env);
    const { app: two } = await startApp(t, database.url, env);
    await until('Redis in use by both', async () => (await redisInUse(one)()) && (await redisInUse(two)()));
    const from = '203.0.113.4';
    assert.equal((await create(one, from)).headers['x-ratelimit-remaining'], '3');
    assert.equal((await create(two, from)).headers['x-ratelimit-remaining'], '2');
    assert.equal((await bulk(one, 2, from)).headers['x-ratelimit-remaining'], '0');
    assertLimited(await create(two, from), 4);
    assertLimited(await create(one, from), 4);
    const [count, ttl] = await withRedis(SHARED_REDIS_URL, (redis) =>
      Promise.all([redis.get(`${prefix}creates:ip:${from}`), redis.pttl(`${prefix}creates:ip:${from}`)]),
    );
    assert.equal(count, '4', 'refused creates are not counted');
    assert.ok(ttl > 50_000 && ttl <= 60_000, `TTL ${ttl}`);
  });

  test('the count with Redis hanging or dead: one command timeout, then counted in this process for a second at a time', async (t) => {
    const redis = await PrivateRedis.start();
    t.after(() => redis.stop());
    // A command timeout far above scheduling noise, so that "waited for it" and "did not" differ.
    const client = createRedisClient({ ...REDIS_CLIENT, redisCommandTimeoutMs: 400, redisUrl: redis.url });
    assert.ok(client !== null);
    t.after(() => client.disconnect());
    client.on('error', () => {});
    const { log, lines } = memoryLogger('info');
    const counter = new SharedCounter(client, prefix, new LocalCounter(100), log);
    await until('connected', async () => client.status === 'ready');
    const timed = async (key: string) => {
      const started = performance.now();
      const count = await counter.add(key, 1, 100, 60_000);
      return { current: count.current, ms: performance.now() - started };
    };
    assert.equal((await timed('a')).current, 1);
    assert.equal((await timed('a')).current, 2, 'counted in Redis');

    redis.pause();
    const first = await timed('a');
    assert.ok(first.ms >= 390 && first.ms < 2000, `the first count during the hang waits for the command timeout: ${first.ms} ms`);
    assert.equal(first.current, 1, 'counted in this process, from 0');
    // Below the command timeout, with room for a busy machine: waiting for Redis would take 400 ms.
    const second = await timed('a');
    assert.ok(second.ms < 300, `the next ones do not wait for Redis: ${second.ms} ms`);
    assert.equal(second.current, 2);
    assert.equal(lines.filter((line) => line.msg?.startsWith('Redis is unavailable: create rate limits')).length, 1, 'said once');

    redis.resume();
    await redis.kill();
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const dead = await timed('b');
    assert.ok(dead.ms < 300, `with Redis dead a count fails at once: ${dead.ms} ms`);
    assert.equal(dead.current, 1);

    await redis.restart();
    await until('connected again', async () => client.status === 'ready', 15_000);
    await until('counted in Redis again', async () => {
      await counter.add('c', 1, 100, 60_000);
      return (await withRedis(redis.url, (r) => r.get(`${prefix}creates:c`))) !== null;
    });
    assert.ok(lines.some((line) => line.msg?.startsWith('Redis answers again: create rate limits are shared')));
  });

  test('on a Redis Cluster: the one-key script runs on the node of each key, and the count holds', async (t) => {
    const cluster = await PrivateRedisCluster.start(3);
    t.after(() => cluster.stop());
    const client = createRedisClient({ ...REDIS_CLIENT, redisClusterUrls: cluster.urls });
    assert.ok(client !== null);
    t.after(() => client.disconnect());
    const { log, lines } = memoryLogger('warn');
    const counter = new SharedCounter(client, 'rl:', new LocalCounter(100), log);
    await until('cluster connected', async () => client.status === 'ready', 15_000);
    // Clients whose keys land on different slots, so on different nodes.
    const clients = Array.from({ length: 6 }, (_, i) => `ip:203.0.113.${i}`);
    for (const key of clients) {
      for (let i = 1; i <= 3; i++) assert.equal((await counter.add(key, 1, 3, 60_000)).current, i);
      assert.equal((await counter.add(key, 1, 3, 60_000)).current, 4, 'refused');
    }
    const stored = await Promise.all(cluster.urls.map((url) => withRedis(url, (redis) => redis.keys('rl:creates:*'))));
    assert.equal(stored.flat().length, 6);
    assert.ok(stored.filter((keys) => keys.length > 0).length > 1, 'the keys live on more than one node');
    assert.equal(lines.length, 0, 'no fallback to local counting');
  });

  test('on the service, with Redis hanging then killed: creates are answered (201 or 429, never an error) in bounded time and still limited', async (t) => {
    const redis = await PrivateRedis.start();
    t.after(() => redis.stop());
    const { app } = await startApp(t, database.url, {
      ...ON,
      REDIS_URL: redis.url,
      REDIS_COMMAND_TIMEOUT_MS: '100',
      RATE_LIMIT_CREATES_PER_IP: '3',
    });
    await until('Redis in use', redisInUse(app));
    const from = '203.0.113.5';
    assert.equal((await create(app, from)).headers['x-ratelimit-remaining'], '2');
    assert.equal(await withRedis(redis.url, (r) => r.get(`shortener:creates:ip:${from}`)), '1', 'counted in Redis');

    redis.pause();
    const hanging: Answer[] = [];
    for (let i = 0; i < 4; i++) hanging.push(await create(app, from));
    // Counted here from 0: the Redis count is out of reach.
    assert.deepEqual(
      hanging.map((a) => a.status),
      [201, 201, 201, 429],
    );
    // At most one command timeout for the count, one for the link's own write-through to Redis.
    // (Bounds with room for a busy machine: what matters is that nothing waits for Redis to come back.)
    for (const answer of hanging) assert.ok(answer.ms < 1500, `create with Redis hanging: ${answer.ms} ms`);

    redis.resume();
    await redis.kill();
    const other = '203.0.113.6';
    const dead: Answer[] = [];
    for (let i = 0; i < 4; i++) dead.push(await create(app, other));
    assert.deepEqual(
      dead.map((a) => a.status),
      [201, 201, 201, 429],
    );
    for (const answer of dead) assert.ok(answer.ms < 1000, `create with Redis dead: ${answer.ms} ms`);
  });
});
