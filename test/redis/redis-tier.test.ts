// The Redis tier on the shared Redis, under a key prefix of this file's own: every instance shares
// what one of them fetched, the misses of one turn are one round trip, and a change on one
// instance reaches the others.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import { getRedirect, startCountedApp, onDefault, type Cleanup, type StartOptions, lruMisses } from '../helpers/app.ts';
import { createTestDatabase, insertRawLinks, withClient, type TestDatabase, holdLookups } from '../helpers/db.ts';
import {
  deleteKeys,
  listenToInvalidations,
  randomPrefix,
  redisInUse,
  redisReadiness,
  SHARED_REDIS_URL,
  startMonitor,
  type CommandLog,
} from '../helpers/redis.ts';
import { until, within } from '../helpers/wait.ts';
import { TcpProxy } from '../helpers/tcp-proxy.ts';
import type { FastifyInstance } from 'fastify';
import type { ShortCode } from '../../src/core/codes.ts';

const prefix = randomPrefix('tier');
let database: TestDatabase;
let redis: Redis;
before(async () => {
  database = await createTestDatabase('redis_tier');
  redis = new Redis(SHARED_REDIS_URL);
});
after(async () => {
  await deleteKeys(SHARED_REDIS_URL, prefix);
  redis.disconnect();
  await database.drop();
});

const env = { REDIS_URL: SHARED_REDIS_URL, REDIS_KEY_PREFIX: prefix };
/**
 * An app on this file's database and key prefix, once it hears invalidations: until then a new
 * instance keeps its LRU short, and clears it when it first hears the channel (see
 * redis/subscription.ts), which would add lookups to the counts below.
 */
async function instance(t: Cleanup, extra: Record<string, string> = {}, options: StartOptions = {}) {
  // Round trips are counted per event-loop turn: Fastify's inject() sends a test's requests in one.
  const started = await startCountedApp(t, database.url, { ...env, ...extra }, { redirects: 'fastify', ...options });
  await until('invalidations heard', redisInUse(started.app));
  return started;
}

type Instance = Awaited<ReturnType<typeof instance>>;

/**
 * How long an instance that hears the channel may take to follow a change once the message is
 * out: one delivery and one lookup, with room for a busy machine. An instance that missed the
 * message follows only after the sender's next heartbeat and a second's grace (1-2 s).
 */
const DELIVERY_MS = 500;

/** Links written straight into Postgres: neither Redis nor any LRU has heard of them. */
async function insertLinks(label: string, count: number): Promise<string[]> {
  const codes = Array.from({ length: count }, (_, i) => `${label}${i}`);
  await insertRawLinks(database.url, codes);
  return codes;
}

const get = getRedirect;

/** The positive control of a "no lookup" count: a code only Postgres has costs `counted` exactly one more lookup. */
async function looksUpOnce(counted: Instance, label: string): Promise<void> {
  const [code = ''] = await insertLinks(label, 1);
  const already = counted.lookups();
  assert.deepEqual(await get(counted.app, code), { status: 302, location: `https://example.com/${code}` });
  assert.equal(counted.lookups(), already + 1, 'a code only Postgres has is looked up, and counted');
}

test('a code fetched once from Postgres is then served from Redis by a second instance with an empty LRU', async (t) => {
  const [code = ''] = await insertLinks('shared', 1);
  const a = await instance(t);
  const b = await instance(t);
  assert.deepEqual(await get(a.app, code), { status: 302, location: `https://example.com/${code}` });
  assert.equal(a.lookups(), 1);
  await until('written back to Redis', async () => (await redis.get(`${prefix}link:${code}`)) !== null);

  assert.deepEqual(await get(b.app, code), { status: 302, location: `https://example.com/${code}` });
  assert.equal(b.lookups(), 0, 'the second instance did not ask Postgres');
  await looksUpOnce(b, 'shared-control');
});

test('200 requests for one uncached code, half while its lookup is in flight: one Redis round trip, one Postgres query', async (t) => {
  const [code = ''] = await insertLinks('stampede', 1);
  const hold = holdLookups();
  const { app, lookups } = await instance(t, {}, { wrapDb: hold.wrapDb });
  const monitor = await startMonitor(SHARED_REDIS_URL, prefix);
  t.after(() => monitor.stop());
  const missed = lruMisses(app);
  const first = Array.from({ length: 100 }, () => get(app, code));
  await within('the Postgres lookup is held', hold.reached);
  // Later turns of the event loop: only the lookup in flight can merge these, not the batchers.
  const second = Array.from({ length: 100 }, () => get(app, code));
  await until('every request has reached the resolver', async () => lruMisses(app) - missed === 200, 5000);
  hold.release();
  const responses = await Promise.all([...first, ...second]);
  assert.equal(responses.length, 200);
  for (const res of responses) assert.deepEqual(res, { status: 302, location: `https://example.com/${code}` });
  await monitor.settle();
  const reads = monitor.commands().filter((c) => (c.name === 'mget' || c.name === 'get') && c.args.includes(`${prefix}link:${code}`));
  assert.equal(reads.length, 1, JSON.stringify(reads));
  assert.equal(lookups(), 1, 'one Postgres query');
});

test('a batch of 50 distinct misses is one MGET', async (t) => {
  const codes = await insertLinks('batch', 50);
  const a = await instance(t);
  await Promise.all(codes.map((code) => get(a.app, code)));
  // Now in Redis; a fresh instance asks for all of them in one turn.
  await until('written back to Redis', async () => (await redis.exists(codes.map((code) => `${prefix}link:${code}`))) === codes.length);
  const b = await instance(t);
  const monitor = await startMonitor(SHARED_REDIS_URL, prefix);
  t.after(() => monitor.stop());
  const responses = await Promise.all(codes.map((code) => get(b.app, code)));
  for (const [i, res] of responses.entries()) assert.deepEqual(res, { status: 302, location: `https://example.com/${codes[i]}` });
  await monitor.settle();
  const reads = monitor.commands().filter((c) => c.name === 'mget' || c.name === 'get');
  assert.equal(reads.length, 1, `round trips: ${reads.map((c) => `${c.name}×${c.args.length}`).join(', ')}`);
  assert.equal(reads[0]?.args.length, 50);
  assert.equal(b.lookups(), 0);
  await looksUpOnce(b, 'batch-control');
});

/** Waits for the next message on the channel, after the first `since` heard, that invalidates `code`. */
async function published(channel: { heard: { codes: string[] }[] }, since: number, code: string): Promise<void> {
  await until(`the invalidation of ${code} published`, async () => channel.heard.slice(since).some((m) => m.codes.includes(code)), 5000);
}

/** Whether `log` shows an invalidation of `code` published (its message: instance, count, codes). */
const publishedIn = (log: CommandLog, code: string): boolean =>
  log.commands('publish').some((command) => (command.args[1] ?? '').split(' ').slice(2).includes(code));

/** A proxy to the shared Redis that adds `ms` each way: what A sends after answering reaches Redis after this test's next command. */
/**
 * The environment of an instance on a Redis `ms` away each way, whose commands may take long: on a
 * busy machine (a CI run) a write-through must not time out and be left for the resend, which is
 * another test's subject; here it is acknowledged once Redis has it.
 */
async function slowRedisEnv(t: Cleanup, ms: number): Promise<Record<string, string>> {
  return { REDIS_URL: await slowRedis(t, ms), REDIS_COMMAND_TIMEOUT_MS: '2000' };
}

async function slowRedis(t: Cleanup, ms: number): Promise<string> {
  const slow = new TcpProxy('127.0.0.1', Number(new URL(SHARED_REDIS_URL).port || 6379));
  slow.delayMs = ms;
  await slow.up();
  t.after(() => slow.down());
  return `redis://127.0.0.1:${slow.port}`;
}

test('"not found" is shared too, and a create over it is seen by every instance within one pub/sub delivery', async (t) => {
  const a = await instance(t, await slowRedisEnv(t, 25));
  const b = await instance(t);
  const channel = await listenToInvalidations(SHARED_REDIS_URL, prefix);
  t.after(() => channel.stop());
  assert.equal((await get(a.app, 'spring-sale')).status, 404);
  assert.equal(a.lookups(), 1, 'A asked Postgres');
  await until('negative entry in Redis', async () => (await redis.get(`${prefix}link:spring-sale`)) === '');
  assert.equal((await get(b.app, 'spring-sale')).status, 404);
  assert.equal(b.lookups(), 0, 'the 404 came from Redis');
  assert.deepEqual(b.app.cache.get('spring-sale'), { answer: 'LINK_NOT_FOUND' }, 'B holds the 404 in its LRU');

  const heard = channel.heard.length;
  const monitor = await startMonitor(SHARED_REDIS_URL, prefix);
  t.after(() => monitor.stop());
  const created = await a.app.inject({
    method: 'POST',
    url: '/links',
    payload: { url: 'https://example.com/spring', alias: 'spring-sale' },
  });
  assert.equal(created.statusCode, 201);
  // The 201 is sent after Redis took the link and published the invalidation; B drops its 404
  // when the message arrives, and A knew before it answered.
  assert.match(String(await redis.get(`${prefix}link:spring-sale`)), /^a0\.\d* https:\/\/example\.com\/spring$/, 'in Redis before the 201');
  await monitor.settle();
  assert.ok(publishedIn(monitor, 'spring-sale'), 'published before the 201');
  assert.deepEqual(await get(a.app, 'spring-sale'), { status: 302, location: 'https://example.com/spring' });
  await published(channel, heard, 'spring-sale');
  const delivered = performance.now();
  await until('B redirects', async () => (await get(b.app, 'spring-sale')).status === 302, DELIVERY_MS);
  t.diagnostic(`B redirected ${(performance.now() - delivered).toFixed(1)} ms after the message reached this process, its lookup included`);
  assert.deepEqual(await get(b.app, 'spring-sale'), { status: 302, location: 'https://example.com/spring' });
  const c = await instance(t);
  assert.deepEqual(await get(c.app, 'spring-sale'), { status: 302, location: 'https://example.com/spring' });
  assert.equal(c.lookups(), 0, 'the link was written through to Redis');
  await looksUpOnce(c, 'spring-control');
});

test('an update or a disable on instance A: instance B stops serving the old target within one pub/sub delivery', async (t) => {
  const a = await instance(t, await slowRedisEnv(t, 25));
  const b = await instance(t);
  const channel = await listenToInvalidations(SHARED_REDIS_URL, prefix);
  t.after(() => channel.stop());
  const created = await a.app.inject({ method: 'POST', url: '/links', payload: { url: 'https://example.com/v1' } });
  const code = created.json<{ code: ShortCode }>().code;
  assert.deepEqual(await get(b.app, code), { status: 302, location: 'https://example.com/v1' });
  assert.equal(b.app.cache.get(code), 'https://example.com/v1', 'B holds the old target in its LRU');

  let heard = channel.heard.length;
  const monitor = await startMonitor(SHARED_REDIS_URL, prefix);
  t.after(() => monitor.stop());
  await a.app.links.change(onDefault(code), { url: 'https://example.com/v2' });
  // Acknowledged once Redis has the change and the invalidation is out.
  assert.equal(
    (await redis.get(`${prefix}link:${code}`))?.endsWith(' https://example.com/v2'),
    true,
    'in Redis before the change returned',
  );
  await monitor.settle();
  assert.ok(publishedIn(monitor, code), 'published before the change returned');
  await published(channel, heard, code);
  const delivered = performance.now();
  await until('B redirects to the new target', async () => (await get(b.app, code)).location === 'https://example.com/v2', DELIVERY_MS);
  t.diagnostic(`B followed the update ${(performance.now() - delivered).toFixed(1)} ms after the message reached this process`);

  heard = channel.heard.length;
  await a.app.links.change(onDefault(code), { disabled: true });
  await published(channel, heard, code);
  await until('B answers 410', async () => (await get(b.app, code)).status === 410, DELIVERY_MS);
  const c = await instance(t);
  assert.equal((await get(c.app, code)).status, 410, 'a new instance reads the disabled state from Redis');
  assert.equal(c.lookups(), 0);
  await looksUpOnce(c, 'disable-control');
});

test("a jump in a sender's invalidation count clears the LRU: the invalidation missed may have been of any code", async (t) => {
  const [code = ''] = await insertLinks('gap', 1);
  const { app, lookups } = await instance(t);
  const key = `${prefix}link:${code}`;
  assert.equal((await get(app, code)).status, 302);
  assert.equal(lookups(), 1);
  // From now on, a lookup of the code goes to Postgres: that shows when the LRU was cleared.
  await until('written back', async () => (await redis.get(key)) !== null);
  await redis.del(key);

  // Another instance's heartbeats and invalidations (of other codes), in order, then one lost.
  const listener = await listenToInvalidations(SHARED_REDIS_URL, prefix);
  t.after(() => listener.stop());
  const channel = `${prefix}invalidate`;
  for (const message of ['another 41', 'another 42 someOther', 'another 42', 'another 42']) await redis.publish(channel, message);
  // A gap is acted on at a heartbeat once it is a second old: by the instance's third heartbeat
  // after these messages, one taken for a gap would have cleared the LRU.
  const sent = performance.now();
  const beats = () => listener.heard.filter((m) => m.instance !== 'another' && m.codes.length === 0 && m.at > sent).length;
  await until("three of the instance's heartbeats", async () => beats() >= 3, 10_000);
  assert.equal((await get(app, code)).status, 302);
  assert.equal(lookups(), 1, 'nothing missed: the LRU is kept');

  // A heartbeat that says 43 invalidations were sent: number 43 never arrived here.
  await redis.publish(channel, 'another 43');
  await until('LRU cleared', async () => {
    await get(app, code);
    return lookups() === 2;
  });
});

test('changes of the same links on two instances at once, with reads throughout: once quiet, every instance and Redis agree with Postgres', async (t) => {
  const codes = await insertLinks('race', 4);
  // A reaches Redis over a slow network: its writes land after B's later ones.
  const a = await instance(t, await slowRedisEnv(t, 25));
  const b = await instance(t);
  const apps = [a.app, b.app];
  const pick = <T>(list: readonly T[]): T => list[Math.floor(Math.random() * list.length)] as T;
  const state = { running: true };
  let changes = 0;
  // Changes made through each instance: both must write for the race to be on.
  const made = [0, 0];
  const writer = async () => {
    while (state.running) {
      const code = pick(codes);
      const on = Math.floor(Math.random() * apps.length);
      await (apps[on] as FastifyInstance).links.change(onDefault(code), { url: `https://example.com/${code}/v${changes++}` });
      made[on] = (made[on] ?? 0) + 1;
    }
  };
  const reader = async () => {
    while (state.running) {
      await get(pick(apps), pick(codes));
      // An LRU hit through inject() settles in microtasks alone: let timers and sockets run.
      await new Promise(setImmediate);
    }
  };
  const loops = [...Array.from({ length: 6 }, writer), ...Array.from({ length: 12 }, reader)];
  await new Promise((resolve) => setTimeout(resolve, 1500));
  state.running = false;
  await Promise.all(loops);
  t.diagnostic(`${changes} changes: ${made.join(' on A, ')} on B`);
  assert.ok(changes > 20, `${changes} changes`);
  assert.ok(
    made.every((n) => n > 0),
    `changes on A and on B: ${made.join(', ')}`,
  );
  // Quiet: changes that Redis did not take in time (a busy machine) have been sent again, then one
  // pub/sub delivery and any write-back still in flight.
  const unsent = async (app: FastifyInstance) => (await redisReadiness(app)).redis.unsentInvalidations;
  await until('every change in Redis', async () => (await unsent(a.app)) + (await unsent(b.app)) === 0, 10_000);
  await new Promise((resolve) => setTimeout(resolve, 200));

  const { rows } = await withClient(database.url, (client) =>
    client.query<{ code: string; url: string }>('SELECT code, url FROM links WHERE code = ANY($1)', [codes]),
  );
  assert.equal(rows.length, codes.length);
  const fresh = await instance(t);
  for (const { code, url } of rows) {
    assert.equal((await redis.get(`${prefix}link:${code}`))?.split(' ')[1], url, `Redis, ${code}`);
    for (const [name, app] of [
      ['A', a.app],
      ['B', b.app],
      ['a new instance', fresh.app],
    ] as const) {
      assert.equal((await get(app, code)).location, url, `${name}, ${code}`);
    }
  }
});

test('a change Redis did not take is cached by its instance; a newer change heard meanwhile wins within a heartbeat', async (t) => {
  const [code] = (await insertLinks('overtaken', 1)) as [string];
  // A's commands about this code are held past its command timeout; its subscription is not.
  const proxy = new TcpProxy('127.0.0.1', Number(new URL(SHARED_REDIS_URL).port || 6379));
  let holding = true;
  const held = Promise.withResolvers<void>();
  proxy.delayRequest = (chunk) => {
    const text = chunk.toString('latin1');
    if (!holding || !text.includes(`link:${code}`) || !/\beval\b/i.test(text)) return 0;
    held.resolve();
    return 700;
  };
  await proxy.up();
  t.after(() => proxy.down());
  const a = await instance(t, { REDIS_URL: `redis://127.0.0.1:${proxy.port}`, REDIS_COMMAND_TIMEOUT_MS: '400' });
  const b = await instance(t);
  const aChange = a.app.links.change(onDefault(code), { url: 'https://example.com/overtaken/a' });
  await within("A's write to Redis is held", held.promise, 5000);
  // B's change commits after A's, and A hears of it while its own write to Redis still waits.
  await b.app.links.change(onDefault(code), { url: 'https://example.com/overtaken/b' });
  await aChange;
  holding = false;
  assert.equal((await get(a.app, code)).location, 'https://example.com/overtaken/a', 'the race happened: A cached its own change');
  assert.equal((await get(b.app, code)).location, 'https://example.com/overtaken/b');
  // A sends its change again at a heartbeat (Redis keeps B's newer one), and drops it from its LRU.
  await until('A serves the newest change', async () => (await get(a.app, code)).location === 'https://example.com/overtaken/b', 3000);
});

test('a change to a code that no link has is a 404 error, and nothing is written to Redis', async (t) => {
  const { app } = await instance(t);
  await assert.rejects(app.links.change(onDefault('NoSuchLink'), { disabled: true }), { code: 'LINK_NOT_FOUND' });
  assert.equal(await redis.exists(`${prefix}link:NoSuchLink`), 0);
  // The same change of a link that exists is written, under the key looked at above.
  const [code = ''] = await insertLinks('SomeLink', 1);
  await app.links.change(onDefault(code), { disabled: true });
  assert.equal(await redis.exists(`${prefix}link:${code}`), 1);
});
