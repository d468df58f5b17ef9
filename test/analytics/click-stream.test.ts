// The click stream (CLICK_STREAM=redis) on real engines: clicks through the service arrive in the
// stream with every field, are read and acknowledged by a consumer group (the README's example
// consumer), and never carry an address; they are sent per flush, not per request; a consumer
// that falls behind a small bound counts exactly what it lost; a Redis outage drops stream
// batches while redirects and the Postgres counts stay right; on a Redis Cluster the shards lie in
// different slots and are all consumed.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { Cluster, Redis } from 'ioredis';
import { startApp } from '../helpers/app.ts';
import { createTestDatabase, withClient, type TestDatabase } from '../helpers/db.ts';
import { deleteKeys, PrivateRedis, PrivateRedisCluster, randomPrefix, SHARED_REDIS_URL, withRedis } from '../helpers/redis.ts';
import { until } from '../helpers/wait.ts';
import { ClickStreamConsumer, streamKeys, type ClickEvent } from '../../scripts/click-stream-consumer.ts';
import { EVENT_FIELDS } from '../../src/analytics/click-events.ts';

const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
/** Public addresses the shipped database places in the US and Japan: none may appear in the stream. */
const US_ADDRESS = '8.8.8.8';
const JP_ADDRESS = '210.130.0.1';

/** The service on a shared Redis key prefix, clicks flushed only when a test says so. */
const STREAM_ENV = {
  ANALYTICS_ENABLED: 'true',
  TRUST_PROXY: 'loopback',
  CLICK_FLUSH_INTERVAL_MS: '3600000',
  ANALYTICS_FLUSH_INTERVAL_MS: '3600000',
  CLICK_STREAM: 'redis',
};

let database: TestDatabase;
const prefixes: string[] = [];
before(async () => {
  database = await createTestDatabase('click_stream');
});
after(async () => {
  for (const prefix of prefixes) await deleteKeys(SHARED_REDIS_URL, prefix);
  await database.drop();
});

function ownPrefix(label: string): string {
  const prefix = randomPrefix(label);
  prefixes.push(prefix);
  return prefix;
}

async function created(app: FastifyInstance, url: string): Promise<string> {
  const res = await app.inject({ method: 'POST', url: '/links', payload: { url } });
  assert.equal(res.statusCode, 201, res.body);
  return res.json<{ code: string }>().code;
}

async function click(app: FastifyInstance, path: string, headers: Record<string, string>): Promise<void> {
  const res = await app.inject({ url: path, headers });
  assert.equal(res.statusCode, 302, `${path}: ${res.statusCode}`);
}

/** Everything a consumer group reads of `keys` until `want` events came (or the wait ends). */
async function consume(redis: Redis | Cluster, keys: readonly string[], want: number, group = 'test') {
  const consumer = new ClickStreamConsumer(redis, { keys, group, consumer: 'c1' });
  await consumer.start();
  const events: (ClickEvent & { key: string })[] = [];
  await until(`${want} events read`, async () => {
    await consumer.poll((event, key) => events.push({ ...event, key }));
    return events.length >= want;
  });
  return { consumer, events };
}

async function clickCount(code: string): Promise<number> {
  return withClient(database.url, async (client) => {
    const { rows } = await client.query<{ n: string }>(
      'SELECT coalesce(sum(clicks + bot_clicks), 0) AS n FROM link_clicks_daily WHERE code = $1',
      [code],
    );
    return Number(rows[0]?.n ?? 0);
  });
}

test('clicks through the service reach the stream with every field, are read by a consumer group and acknowledged, and carry no address', async (t) => {
  const prefix = ownPrefix('stream');
  const { app } = await startApp(t, database.url, { ...STREAM_ENV, REDIS_URL: SHARED_REDIS_URL, REDIS_KEY_PREFIX: prefix });
  const code = await created(app, 'https://example.com/stream/fields');
  const sentAt = Date.now();
  for (let i = 0; i < 3; i++) {
    await click(app, `/${code}`, {
      'user-agent': IPHONE,
      'x-forwarded-for': US_ADDRESS,
      referer: 'https://www.google.com/search?q=private+words',
      'accept-language': 'en-US,en;q=0.9',
    });
  }
  await click(app, `/${code}?qr=1`, { 'user-agent': GOOGLEBOT, 'x-forwarded-for': JP_ADDRESS, 'accept-language': 'ja' });
  await app.clicks.flush();

  const [key] = streamKeys(prefix, 1) as [string];
  await withRedis(SHARED_REDIS_URL, async (redis) => {
    const { consumer, events } = await consume(redis, [key], 4);
    assert.equal(events.length, 4);
    assert.deepEqual(
      events.map((event) => Object.keys(event).filter((field) => field !== 'key')),
      events.map(() => ['n', ...EVENT_FIELDS]),
      'every field, in order',
    );
    assert.deepEqual(
      events.map((event) => event.n),
      ['1', '2', '3', '4'],
    );
    const person = events[0] as ClickEvent;
    assert.equal(person.domain, '0');
    assert.equal(person.host, 'sho.rt');
    assert.equal(person.code, code);
    assert.ok(Number(person.time) >= sentAt && Number(person.time) <= Date.now(), `time ${person.time}`);
    assert.match(person.visitor as string, /^\d+$/, 'a person has a sketch element');
    assert.deepEqual(
      { ...person, n: undefined, time: undefined, visitor: undefined, key: undefined, code: undefined },
      {
        ...person,
        n: undefined,
        time: undefined,
        visitor: undefined,
        key: undefined,
        code: undefined,
        domain: '0',
        host: 'sho.rt',
        bot: '0',
        country: 'US',
        city: 'unknown',
        device: 'mobile',
        browser: 'Safari',
        os: 'iOS',
        referrer: 'google.com',
        language: 'en',
        source: 'link',
        target: '',
      },
    );
    assert.equal(events[1]?.visitor, person.visitor, 'the same visitor, the same element');
    const bot = events[3] as ClickEvent;
    assert.deepEqual(
      [bot.bot, bot.visitor, bot.country, bot.device, bot.language, bot.source, bot.referrer],
      ['1', '', 'JP', 'bot', 'ja', 'qr', 'direct'],
    );
    assert.equal(consumer.read, 4);
    assert.equal(consumer.lost, 0);
    // Acknowledged: nothing pending for the group.
    const pending = (await redis.xpending(key, 'test')) as [number, ...unknown[]];
    assert.equal(pending[0], 0, 'nothing left pending');
    // No address anywhere: not in any field, not in the raw entries.
    const entries = (await redis.xrange(key, '-', '+')) as [string, string[]][];
    // An entry is its ordinal and the event's values, tab-separated in EVENT_FIELDS order (README "Click stream").
    assert.deepEqual(
      entries.map(([, fields]) => [fields[0], fields[1], fields[2], (fields[3] ?? '').split('\t').length, fields.length]),
      entries.map((_, i) => ['n', String(i + 1), 'event', EVENT_FIELDS.length, 4]),
    );
    const raw = JSON.stringify(entries);
    for (const address of [US_ADDRESS, JP_ADDRESS, '127.0.0.1']) assert.ok(!raw.includes(address), `${address} is in the stream`);
  });
});

test('the stream is sent per flush, not per request: a command per shard and thousand events, whatever the requests', async (t) => {
  const redis = await PrivateRedis.start();
  t.after(() => redis.stop());
  const { app } = await startApp(t, database.url, { ...STREAM_ENV, REDIS_URL: redis.url, REDIS_KEY_PREFIX: 'batching:' });
  const code = await created(app, 'https://example.com/stream/batching');
  await until('the stream connected', async () => (await redis.info('clients')).connected_clients !== '1');
  const scripts = async () => (await redis.commandCalls('evalsha')) + (await redis.commandCalls('eval'));
  const [scriptsBefore, addsBefore] = [await scripts(), await redis.commandCalls('xadd')];

  // 300 requests, one after the other: 300 turns of the event loop.
  for (let i = 0; i < 300; i++) await click(app, `/${code}`, { 'user-agent': IPHONE, 'x-forwarded-for': US_ADDRESS });
  assert.equal(await scripts(), scriptsBefore, 'nothing is sent before the flush');
  await app.clicks.flush();
  await until('the flush in the stream', async () => (await redis.commandCalls('xadd')) - addsBefore === 300);
  assert.equal((await scripts()) - scriptsBefore, 1, '300 clicks, one command');

  // 1,200 more, 50 at a time: two commands (1,000 events and 200).
  for (let i = 0; i < 1200; i += 50) {
    await Promise.all(Array.from({ length: 50 }, () => click(app, `/${code}`, { 'user-agent': IPHONE, 'x-forwarded-for': US_ADDRESS })));
  }
  await app.clicks.flush();
  await until('the second flush in the stream', async () => (await redis.commandCalls('xadd')) - addsBefore === 1500);
  assert.equal((await scripts()) - scriptsBefore, 3);
  assert.equal(app.clickStream?.sent, 1500);
});

test('a consumer that falls behind the bound counts what was trimmed before it read it: read + lost is every click sent', async (t) => {
  const prefix = ownPrefix('behind');
  const { app } = await startApp(t, database.url, {
    ...STREAM_ENV,
    REDIS_URL: SHARED_REDIS_URL,
    REDIS_KEY_PREFIX: prefix,
    CLICK_STREAM_MAXLEN: '100',
  });
  const code = await created(app, 'https://example.com/stream/behind');
  const [key] = streamKeys(prefix, 1) as [string];
  await withRedis(SHARED_REDIS_URL, async (redis) => {
    const consumer = new ClickStreamConsumer(redis, { keys: [key], group: 'slow', consumer: 'c1', count: 50 });
    await consumer.start();
    const seen: number[] = [];
    const read = () => consumer.poll((event) => seen.push(Number(event.n)));
    let sent = 0;
    for (let flush = 0; flush < 6; flush++) {
      for (let i = 0; i < 150; i += 50) {
        await Promise.all(
          Array.from({ length: 50 }, () => click(app, `/${code}`, { 'user-agent': IPHONE, 'x-forwarded-for': US_ADDRESS })),
        );
      }
      sent += 150;
      await app.clicks.flush();
      await until('the flush in the stream', async () => app.clickStream?.sent === sent);
      // It reads 50 after the first flush only: then it falls behind.
      if (flush === 0) assert.equal(await read(), 50);
    }
    while ((await read()) > 0);
    const info = (await redis.xinfo('STREAM', key)) as unknown[];
    const added = Number(info[info.indexOf('entries-added') + 1]);
    assert.equal(added, sent);
    assert.ok(consumer.lost > 0, 'it fell behind the bound: some events were trimmed before it read them');
    assert.ok((await redis.xlen(key)) < sent - 50, 'the stream was trimmed');
    assert.equal(consumer.read + consumer.lost, sent, `read ${consumer.read} + lost ${consumer.lost}`);
    assert.deepEqual(
      seen,
      [...seen].sort((a, b) => a - b),
      'read in order',
    );
    assert.equal(seen.at(-1), sent, 'up to the last');
  });
});

test('a Redis outage drops stream batches, counted, while redirects and the Postgres counts stay right; the stream resumes after', async (t) => {
  const redis = await PrivateRedis.start();
  t.after(() => redis.stop());
  const { app } = await startApp(t, database.url, { ...STREAM_ENV, REDIS_URL: redis.url, REDIS_KEY_PREFIX: 'outage:' });
  const code = await created(app, 'https://example.com/stream/outage');
  const clicks = (n: number) =>
    Promise.all(Array.from({ length: n }, () => click(app, `/${code}`, { 'user-agent': IPHONE, 'x-forwarded-for': US_ADDRESS })));
  const [key] = streamKeys('outage:', 1) as [string];
  const length = () => withRedis(redis.url, (r) => r.xlen(key));
  const stream = app.clickStream;
  assert.ok(stream !== null);

  await clicks(20);
  await app.clicks.flush();
  await until('the first flush in the stream', async () => (await length()) === 20);

  await redis.kill();
  await clicks(30);
  await app.clicks.flush();
  await until('the batch dropped', async () => stream.dropped === 30);
  assert.equal(await clickCount(code), 50, 'Postgres counted every click');
  const metrics = await app.inject({ url: '/metrics' });
  assert.match(metrics.body, /shortener_click_stream_events_total\{result="dropped"\} 30/);
  assert.match(metrics.body, /shortener_click_stream_events_total\{result="sent"\} 20/);

  await redis.restart();
  let sent = 50;
  await until(
    'the stream again',
    async () => {
      await clicks(1);
      sent++;
      await app.clicks.flush();
      return (await length().catch(() => 0)) > 0;
    },
    15_000,
  );
  assert.equal(await clickCount(code), sent, 'Postgres counted every click, then too');
  assert.equal(stream.dropped + stream.sent, sent, 'each event sent or counted as dropped');
});

test('on a Redis Cluster the shards are keys of different slots, a link on one of them, and a consumer group reads them all', async (t) => {
  const cluster = await PrivateRedisCluster.start(3);
  t.after(() => cluster.stop());
  const prefix = 'sharded:';
  const { app } = await startApp(t, database.url, {
    ...STREAM_ENV,
    REDIS_CLUSTER_URLS: cluster.urls.join(','),
    REDIS_KEY_PREFIX: prefix,
    CLICK_STREAM_SHARDS: '3',
  });
  const codes = await Promise.all(Array.from({ length: 30 }, (_, i) => created(app, `https://example.com/stream/shard/${i}`)));
  for (let round = 0; round < 2; round++) {
    await Promise.all(codes.map((code) => click(app, `/${code}`, { 'user-agent': IPHONE, 'x-forwarded-for': US_ADDRESS })));
  }
  await app.clicks.flush();
  const keys = streamKeys(prefix, 3);
  const client = new Cluster(cluster.urls.map((url) => ({ host: '127.0.0.1', port: Number(new URL(url).port) })));
  t.after(() => client.disconnect());
  const slots = await Promise.all(keys.map((key) => client.cluster('KEYSLOT', key)));
  assert.equal(new Set(slots).size, 3, `three slots: ${slots.join(', ')}`);

  const { consumer, events } = await consume(client, keys, 60);
  assert.equal(events.length, 60);
  assert.equal(consumer.lost, 0);
  const byKey = new Map<string, number>();
  const shardOfCode = new Map<string, string>();
  for (const event of events) {
    byKey.set(event.key, (byKey.get(event.key) ?? 0) + 1);
    const shard = shardOfCode.get(event.code as string);
    assert.ok(shard === undefined || shard === event.key, `${event.code} on one shard`);
    shardOfCode.set(event.code as string, event.key);
  }
  assert.deepEqual([...byKey.keys()].sort(), [...keys].sort(), 'every shard had events, and was read');
});
