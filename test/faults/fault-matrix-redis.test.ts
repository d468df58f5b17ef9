// Fault matrix, Redis rows: the service as a child process on a private Postgres and a private
// redis-server, under a load of redirects (cached and uncached codes) and creates, while Redis is
// down, killed, or hanging. Redis is a cache: none of this may become an error a client sees.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { privatePostgres, rowLoad, seedLinks, startService } from '../helpers/fault-matrix.ts';
import { Load, lostWrites, offenders, p99, readyz } from '../helpers/load.ts';
import { PrivateRedis, randomPrefix, redisInUse } from '../helpers/redis.ts';
import type { ServerProcess } from '../helpers/server-process.ts';
import { TcpProxy, throughProxy } from '../helpers/tcp-proxy.ts';
import { until } from '../helpers/wait.ts';

const COMMAND_TIMEOUT_MS = 100;

const privatePg = privatePostgres();

interface Row {
  server: ServerProcess;
  databaseUrl: string;
  cached: string[];
  uncached: string[];
}

/**
 * The service on a fresh database of the private Postgres, with 300 links of which 30 are in its
 * LRU. The LRU holds 50 links, so most reads of the other codes go below it, to Redis or Postgres.
 */
async function startRow(
  t: { after(fn: () => Promise<unknown>): void },
  name: string,
  redisUrl: string,
  waitForRedis: boolean,
): Promise<Row> {
  const databaseUrl = await privatePg().createDatabase(name);
  const server = await startService(t, {
    DATABASE_URL: databaseUrl,
    REDIS_URL: redisUrl,
    REDIS_KEY_PREFIX: randomPrefix(name),
    REDIS_COMMAND_TIMEOUT_MS: String(COMMAND_TIMEOUT_MS),
    REDIS_CONNECT_TIMEOUT_MS: '500',
    CACHE_MAX_ENTRIES: '50',
    BASE_URL: 'https://sho.rt',
    CODE_SECRET: 'fault-matrix-redis-secret',
  });
  // Becoming live clears the LRU once: warm it after that.
  if (waitForRedis) await until('the Redis tier in use', redisInUse(server.url));
  const { cached, rest } = await seedLinks(databaseUrl, server.url, 'fm-r', 300, 30);
  return { server, databaseUrl, cached, uncached: rest };
}

function startLoad(row: Row, label: string): Load {
  return rowLoad(row.server.url, row.cached, row.uncached, label);
}

/** Every read a 302 to its link, every create a 201 that echoes its URL: no 5xx, nothing else either. */
function assertUntouched(load: Load): void {
  const reads = load.of('read');
  const creates = load.of('create');
  assert.ok(reads.length > 100 && creates.length > 10, `a real load: ${load.summary()}`);
  assert.deepEqual(offenders(reads, (a) => a.status === 302 && a.right).slice(0, 10), [], load.summary());
  assert.deepEqual(offenders(creates, (a) => a.status === 201 && a.right).slice(0, 10), [], load.summary());
}

/** What /readyz says of Redis: 'ready' (in use), 'down' (not connected), 'bypassed' (failing, left alone). */
async function redisState(base: string): Promise<string> {
  const { redis } = await readyz(base);
  return redis === 'off' ? 'off' : redis.redis;
}

/** GET and MGET calls the Redis server has answered since it started. */
async function redisReads(redis: PrivateRedis): Promise<number> {
  return (await redis.commandCalls('get')) + (await redis.commandCalls('mget'));
}

test('Redis down at start-up: the service starts, is ready, and serves redirects and creates from its LRU and Postgres', async (t) => {
  const redis = await PrivateRedis.start();
  t.after(() => redis.stop());
  await redis.kill();
  const row = await startRow(t, 'fm_redis_down_at_start', redis.url, false);

  const ready = await readyz(row.server.url);
  assert.equal(ready.status, 200, 'ready without Redis');
  assert.deepEqual(ready.redis === 'off' ? 'off' : ready.redis.redis, 'down');

  const load = startLoad(row, 'redis-down-at-start');
  t.after(() => load.stop());
  await sleep(1500);
  await load.stop();
  t.diagnostic(load.summary());

  assertUntouched(load);
  assert.deepEqual(await lostWrites(row.databaseUrl, load.acknowledged), []);
  assert.equal((await readyz(row.server.url)).status, 200);
});

test('Redis killed during the load and back: no 5xx for existing codes, and the tier is used again after it returns', async (t) => {
  const redis = await PrivateRedis.start();
  t.after(() => redis.stop());
  const row = await startRow(t, 'fm_redis_dies', redis.url, true);
  const load = startLoad(row, 'redis-dies');
  t.after(() => load.stop());

  await sleep(700);
  load.phase = 'killed';
  await redis.kill();
  const killedAt = performance.now();
  await until('the service sees Redis down', async () => (await redisState(row.server.url)) === 'down', 1200);
  await sleep(Math.max(0, 1200 - (performance.now() - killedAt)));
  load.phase = 'restarting';
  await redis.restart();
  await until('Redis ready again in /readyz', async () => {
    const { redis: tier } = await readyz(row.server.url);
    return tier !== 'off' && tier.redis === 'ready';
  });
  load.phase = 'recovered';
  const readsBefore = await redisReads(redis);
  await sleep(700);
  await load.stop();
  t.diagnostic(load.summary());

  assertUntouched(load);
  assert.ok(load.of('read', 'killed').length > 20, 'reads while Redis was dead');
  assert.ok((await redisReads(redis)) > readsBefore, 'misses go to Redis again');
  // The creates made while Redis was dead reach it once it is back.
  await until('the invalidations kept while Redis was dead sent', async () => {
    const { redis: tier } = await readyz(row.server.url);
    return tier !== 'off' && tier.unsentInvalidations === 0;
  });
  assert.deepEqual(await lostWrites(row.databaseUrl, load.acknowledged), []);
});

interface Hang {
  readonly name: string;
  /** The URL the service is given, and what starts and ends the hang. */
  setUp(redis: PrivateRedis): Promise<{ url: string; hang(): void; heal(): void; close(): Promise<void> }>;
}

const hangs: Hang[] = [
  {
    name: 'SIGSTOP of redis-server',
    async setUp(redis) {
      return { url: redis.url, hang: () => redis.pause(), heal: () => redis.resume(), close: async () => redis.resume() };
    },
  },
  {
    // What a network black hole does to TCP: nothing arrives, and when it heals the
    // retransmitted bytes arrive late, in order.
    name: 'a network black hole that heals (bytes held, then delivered late)',
    async setUp(redis) {
      const proxy = new TcpProxy('127.0.0.1', redis.port);
      await proxy.up();
      return {
        url: throughProxy(redis.url, proxy),
        hang: () => (proxy.delayMs = 1500),
        heal: () => (proxy.delayMs = 0),
        close: () => proxy.down(),
      };
    },
  },
  {
    // A middlebox that drops everything, then forgets the connections (they are reset).
    name: 'a proxy black hole that ends with the connections reset',
    async setUp(redis) {
      const proxy = new TcpProxy('127.0.0.1', redis.port);
      await proxy.up();
      return {
        url: throughProxy(redis.url, proxy),
        hang: () => (proxy.fault = 'blackhole'),
        heal: () => {
          proxy.reset();
          proxy.fault = 'pass';
        },
        close: () => proxy.down(),
      };
    },
  },
];

for (const [i, hang] of hangs.entries()) {
  test(`Redis hangs (${hang.name}): no 5xx, p99 of redirects within the command timeout plus the Postgres path, then the tier is back`, async (t) => {
    const redis = await PrivateRedis.start();
    t.after(() => redis.stop());
    const fault = await hang.setUp(redis);
    t.after(() => fault.close());
    const row = await startRow(t, `fm_redis_hangs_${i}`, fault.url, true);
    const load = startLoad(row, `redis-hangs-${i}`);
    t.after(() => load.stop());

    await sleep(600);
    load.phase = 'hung';
    fault.hang();
    await sleep(1500);
    load.phase = 'healed';
    fault.heal();
    await until('the Redis tier in use again', redisInUse(row.server.url));
    await sleep(300);
    await load.stop();
    t.diagnostic(load.summary());

    assertUntouched(load);
    const hungReads = load.of('read', 'hung');
    assert.ok(hungReads.length > 20, 'reads while Redis hung');
    // The service felt the hang: misses waited out the command timeout before Postgres answered
    // them, at least until Redis' breaker counted enough failures to leave it alone.
    const waited = hungReads.filter((a) => a.ms >= COMMAND_TIMEOUT_MS);
    t.diagnostic(`${waited.length} of ${hungReads.length} reads while Redis hung waited out its command timeout`);
    assert.ok(waited.length >= Math.max(5, hungReads.length / 10), 'reads waited out the Redis command timeout');
    // A hanging Redis costs a miss one command timeout (then Postgres answers), and nothing once
    // its breaker leaves it alone: a generous bound for a busy machine.
    const p = p99(hungReads);
    t.diagnostic(`p99 of redirects while Redis hung: ${p.toFixed(0)} ms (command timeout ${COMMAND_TIMEOUT_MS} ms)`);
    assert.ok(p < 500, `p99 ${p.toFixed(0)} ms while Redis hung`);
    assert.deepEqual(await lostWrites(row.databaseUrl, load.acknowledged), []);
  });
}
