// A sick Redis never becomes a client-visible error: with a private redis-server that the tests
// kill, pause (SIGSTOP) and bring back, redirects keep answering from the LRU and Postgres, and the
// tier is used again once Redis is back.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import { startCountedApp, onDefault, type Cleanup } from '../helpers/app.ts';
import { createTestDatabase, insertRawLinks, type TestDatabase } from '../helpers/db.ts';
import { PrivateRedis, redisInUse, redisReadiness, withRedis } from '../helpers/redis.ts';
import { TcpProxy, throughProxy } from '../helpers/tcp-proxy.ts';
import { until } from '../helpers/wait.ts';
import { startServer } from '../helpers/server-process.ts';

const COMMAND_TIMEOUT_MS = 100;

let database: TestDatabase;
let codes: string[];
before(async () => {
  database = await createTestDatabase('redis_outage');
  codes = Array.from({ length: 300 }, (_, i) => `out${i}`);
  await insertRawLinks(database.url, codes);
});
after(() => database.drop());

async function startRedis(t: Cleanup): Promise<PrivateRedis> {
  const redis = await PrivateRedis.start();
  t.after(() => redis.stop());
  return redis;
}

/** The app on a real socket, with an LRU too small for the codes, so most requests go below it. */
async function serve(t: Cleanup, redisUrl: string): Promise<{ app: FastifyInstance; base: string }> {
  const { app } = await startCountedApp(t, database.url, {
    REDIS_URL: redisUrl,
    REDIS_COMMAND_TIMEOUT_MS: String(COMMAND_TIMEOUT_MS),
    CACHE_MAX_ENTRIES: '50',
  });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, base };
}

const readiness = redisReadiness;
const back = redisInUse;

/** Redirect requests from a few concurrent clients, until stopped; each answer's status and time. */
class Traffic {
  readonly answers: { status: number; ms: number; phase: string }[] = [];
  phase = 'healthy';
  #running = true;
  readonly #done: Promise<void[]>;

  constructor(base: string, clients: number) {
    this.#done = Promise.all(Array.from({ length: clients }, () => this.#client(base)));
  }

  async #client(base: string): Promise<void> {
    while (this.#running) {
      const code = codes[Math.floor(Math.random() * codes.length)] ?? '';
      const started = performance.now();
      let status = 0;
      try {
        const res = await fetch(`${base}/${code}`, { redirect: 'manual', signal: AbortSignal.timeout(5000) });
        status = res.status;
        if (res.headers.get('location') !== `https://example.com/${code}`) status = -status;
        await res.arrayBuffer();
      } catch {
        status = 0;
      }
      this.answers.push({ status, ms: performance.now() - started, phase: this.phase });
    }
  }

  async stop(): Promise<void> {
    this.#running = false;
    await this.#done;
  }

  wrong(): string[] {
    return this.answers.filter((a) => a.status !== 302).map((a) => `${a.phase}: ${a.status}`);
  }

  p99(phase: string): number {
    const times = this.answers
      .filter((a) => a.phase === phase)
      .map((a) => a.ms)
      .sort((x, y) => x - y);
    assert.ok(times.length > 0, `answers during ${phase}`);
    return times[Math.floor(times.length * 0.99)] ?? Infinity;
  }
}

/** Lookups the Redis server has answered: one GET for a lone miss, one MGET for several. */
async function reads(redis: PrivateRedis): Promise<number> {
  return (await redis.commandCalls('get')) + (await redis.commandCalls('mget'));
}

test('Redis down at start-up: the service starts, is ready, serves and creates; once Redis is up, the tier is used', async (t) => {
  const redis = await startRedis(t);
  await redis.kill();
  const { app } = await serve(t, redis.url);

  const first = await readiness(app);
  assert.equal(first.status, 200, 'ready without Redis');
  assert.equal(first.redis.redis, 'down');
  const res = await app.inject({ url: '/out1' });
  assert.equal(res.statusCode, 302);
  const created = await app.inject({ method: 'POST', url: '/links', payload: { url: 'https://example.com/made-while-down' } });
  assert.equal(created.statusCode, 201);
  assert.equal((await readiness(app)).redis.unsentInvalidations, 1, 'the invalidation waits for Redis');

  await redis.restart();
  await until('Redis in use and invalidations heard', back(app));
  await until('the waiting invalidation sent', async () => (await readiness(app)).redis.unsentInvalidations === 0, 5000);
  const readsBefore = await reads(redis);
  assert.equal((await app.inject({ url: '/out2' })).statusCode, 302);
  assert.ok((await reads(redis)) > readsBefore, 'the miss went to Redis');
});

test('Redis killed, restarted, paused and resumed during a run of redirects: no error, bounded latency, the tier back in use, a few log lines', async (t) => {
  const redis = await startRedis(t);
  // The real process, for its log lines.
  const server = await startServer({
    DATABASE_URL: database.url,
    REDIS_URL: redis.url,
    REDIS_COMMAND_TIMEOUT_MS: String(COMMAND_TIMEOUT_MS),
    CACHE_MAX_ENTRIES: '50',
  });
  t.after(() => server.child.kill('SIGKILL'));
  const base = server.url;
  await until('Redis in use', back(base));
  const traffic = new Traffic(base, 8);
  t.after(() => traffic.stop());

  await sleep(1000);
  traffic.phase = 'killed';
  await redis.kill();
  await sleep(1500);
  traffic.phase = 'restarted';
  await redis.restart();
  await until('Redis in use after the restart', back(base));
  await sleep(500);

  traffic.phase = 'paused';
  redis.pause();
  await until('the pause noticed', async () => (await readiness(base)).redis.invalidations === 'deaf');
  await sleep(500);
  traffic.phase = 'resumed';
  redis.resume();
  await until('Redis in use after the pause', back(base));
  const calls = await reads(redis);
  await sleep(500);
  await traffic.stop();

  const wrong = traffic.wrong();
  assert.deepEqual(wrong.slice(0, 10), [], `${wrong.length} of ${traffic.answers.length} answers were not the right 302`);
  for (const phase of ['healthy', 'killed', 'restarted', 'paused', 'resumed']) {
    assert.ok(
      traffic.answers.some((answer) => answer.phase === phase),
      `redirects answered while Redis was ${phase}`,
    );
  }
  assert.ok(traffic.answers.filter((a) => a.phase === 'resumed').length > 50);
  assert.ok((await reads(redis)) > calls, 'misses go to Redis again');
  // While Redis hangs, a miss waits at most one command timeout before Postgres answers it.
  const p99 = traffic.p99('paused');
  t.diagnostic(
    `p99 while Redis was paused: ${p99.toFixed(1)} ms (command timeout ${COMMAND_TIMEOUT_MS} ms); answers: ${traffic.answers.length}`,
  );
  assert.ok(p99 < COMMAND_TIMEOUT_MS + 400, `p99 ${p99.toFixed(1)} ms while Redis was paused`);

  // Two outages, thousands of requests: a few lines saying what happened, none per request.
  const lines = server.logs.filter((line) => Number(line.level) >= 40).map((line) => String(line.msg));
  t.diagnostic(lines.join(' | '));
  assert.ok(
    lines.some((msg) => /Redis unavailable/.test(msg)),
    'the kill is reported',
  );
  assert.ok(
    lines.some((msg) => /invalidations no longer heard/.test(msg)),
    'the pause is reported',
  );
  assert.ok(lines.length <= 6, `${lines.length} warnings or errors`);
  assert.ok(
    server.logs.some((line) => /back in use/.test(String(line.msg))),
    'the recovery is reported',
  );
});

/**
 * Two instances on a private Redis, both hearing invalidations, B with `code` in its LRU. When
 * `proxied`, B's connections go through `proxy`, which the test may then have hold B's commands.
 */
async function pairOnPrivateRedis(t: Cleanup, code: string, { proxied = false } = {}) {
  const redis = await startRedis(t);
  const proxy = new TcpProxy('127.0.0.1', redis.port);
  if (proxied) {
    await proxy.up();
    t.after(() => proxy.down());
  }
  const { app: a } = await serve(t, redis.url);
  const { app: b } = await serve(t, proxied ? throughProxy(redis.url, proxy) : redis.url);
  await Promise.all([until('A hears', back(a)), until('B hears', back(b))]);
  assert.equal((await b.inject({ url: `/${code}` })).headers.location, `https://example.com/${code}`);
  assert.equal(b.cache.get(code), `https://example.com/${code}`, 'B holds the link in its LRU');
  return { redis, proxy, a, b };
}

/** Lookups below the LRU (Redis, then Postgres for what Redis lacks) that `app` has begun. */
const lookupsBelowTheLru = (app: FastifyInstance): number => app.lookupCounts?.redisBatches ?? Number.NaN;

/** What the Redis tier of an app in this process says of its invalidations: live or deaf. */
const invalidations = async (app: FastifyInstance) => (await readiness(app)).redis.invalidations;

test('a subscription connection cut while a change is published: the instance clears its LRU and follows the change', async (t) => {
  const { redis, proxy, a, b } = await pairOnPrivateRedis(t, 'out9', { proxied: true });

  // B's SUBSCRIBE is held once its subscription connection is cut: B cannot hear the change.
  const subscribes: number[] = [];
  proxy.delayRequest = (chunk) => {
    if (!/\bsubscribe\b/i.test(chunk.toString('latin1'))) return 0;
    subscribes.push(performance.now());
    return 60_000;
  };
  const cut = performance.now();
  await withRedis(redis.url, (client) => client.call('CLIENT', 'KILL', 'TYPE', 'pubsub'));
  // At the close, not at the silence its heartbeats would show (DEAF_AFTER_MS, 3 s): B stops
  // trusting its LRU and clears it.
  await until('B is deaf', async () => (await invalidations(b)) === 'deaf', 1500);
  t.diagnostic(`B deaf ${(performance.now() - cut).toFixed(0)} ms after the cut`);
  assert.equal(b.cache.get('out9'), undefined, 'B cleared its LRU');
  await until('B has reconnected, and its SUBSCRIBE is held', async () => subscribes.length >= 1, 5000);

  await a.links.change(onDefault('out9'), { url: 'https://example.com/out9-v2' });
  assert.equal(await invalidations(b), 'deaf', 'the change was published while B could not hear it');
  const looked = lookupsBelowTheLru(b);
  assert.equal((await b.inject({ url: '/out9' })).headers.location, 'https://example.com/out9-v2');
  assert.equal(lookupsBelowTheLru(b), looked + 1, 'the new target was looked up, not served from the LRU');

  // Let B subscribe again: its connections are cut and come back through a proxy that holds nothing.
  proxy.delayRequest = () => 0;
  proxy.reset();
  await until('B hears again', back(b));
});

test('a subscription that comes back slower than the command timeout is no unhandled rejection, and is heard again', async (t) => {
  const redis = await startRedis(t);
  const proxy = new TcpProxy('127.0.0.1', redis.port);
  await proxy.up();
  t.after(() => proxy.down());
  const { app } = await serve(t, throughProxy(redis.url, proxy));
  await until('the instance hears', back(app));

  // Node ends the process on an unhandled rejection: a re-subscribe nobody awaits must not time out into one.
  const unhandled: unknown[] = [];
  const record = (reason: unknown) => unhandled.push(reason);
  process.on('unhandledRejection', record);
  t.after(() => process.off('unhandledRejection', record));

  // Each SUBSCRIBE reaches Redis long after the command timeout: the reconnect's and each
  // heartbeat's time out first, and the first of them is answered late.
  const HOLD_MS = 3000;
  const held: number[] = [];
  proxy.delayRequest = (chunk) => {
    if (!/\bsubscribe\b/i.test(chunk.toString('latin1'))) return 0;
    held.push(performance.now());
    return HOLD_MS;
  };
  await withRedis(redis.url, (client) => client.call('CLIENT', 'KILL', 'TYPE', 'pubsub'));
  await until('the instance is deaf', async () => (await invalidations(app)) === 'deaf');
  // Past the reconnect's SUBSCRIBE and a heartbeat's, none of them through yet.
  const watched = performance.now();
  while (performance.now() - watched < 1500) {
    assert.equal(await invalidations(app), 'deaf', 'no SUBSCRIBE has got through yet');
    await sleep(100);
  }
  assert.ok(held.length >= 2, `${held.length} SUBSCRIBEs held past the command timeout`);
  assert.deepEqual(unhandled, []);

  proxy.delayRequest = () => 0;
  await until('the instance hears again', back(app));
  assert.deepEqual(unhandled, []);
});

test('an instance that stops hearing invalidations serves a changed link for at most 8 s', async (t) => {
  const { redis, a, b } = await pairOnPrivateRedis(t, 'out7');

  // Redis hangs: A cannot tell anyone about its change.
  redis.pause();
  t.after(() => redis.resume());
  const changed = performance.now();
  await a.links.change(onDefault('out7'), { url: 'https://example.com/out7-v2' });
  assert.equal((await a.inject({ url: '/out7' })).headers.location, 'https://example.com/out7-v2', 'A follows its own change');
  await until(
    'B drops the old target',
    async () => (await b.inject({ url: '/out7' })).headers.location === 'https://example.com/out7-v2',
    8000,
  );
  const followedMs = performance.now() - changed;
  t.diagnostic(`B followed after ${(followedMs / 1000).toFixed(1)} s without Redis`);
  // DEAF_AFTER_MS + DEAF_TTL_MS, and the last probe.
  assert.ok(followedMs < 8000 + 500, `B followed after ${followedMs.toFixed(0)} ms`);
  redis.resume();
  await until('the waiting invalidation sent', async () => (await readiness(a)).redis.unsentInvalidations === 0);
});
