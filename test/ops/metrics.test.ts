// GET /metrics: every series named, read from a real app on real Postgres and Redis, and its
// counters move by exactly the traffic sent; with METRICS_ENABLED=false there is no route and
// nothing to count into.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Queryable } from '../../src/db/pool.ts';
import { FixedHistogram } from '../../src/metrics/fixed-histogram.ts';
import { createLink, startApp } from '../helpers/app.ts';
import { createTestDatabase, insertRawLinks, withClient, type TestDatabase } from '../helpers/db.ts';
import { deleteKeys, randomPrefix, redisInUse, SHARED_REDIS_URL } from '../helpers/redis.ts';
import { until } from '../helpers/wait.ts';

let database: TestDatabase;
const prefix = randomPrefix('metrics');
before(async () => {
  database = await createTestDatabase('metrics');
});
after(async () => {
  await deleteKeys(SHARED_REDIS_URL, prefix);
  await database.drop();
});

const SERIES = [
  'shortener_http_requests_total',
  'shortener_http_request_duration_seconds',
  'shortener_lru_lookups_total',
  'shortener_redis_lookups_total',
  'shortener_postgres_lookups_total',
  'shortener_redis_batch_size',
  'shortener_postgres_batch_size',
  'shortener_postgres_replica_lookups_total',
  'shortener_postgres_replica_batch_size',
  'shortener_postgres_replica_up',
  'shortener_postgres_replica_lag_seconds',
  'shortener_write_batch_size',
  'shortener_write_queue_depth',
  'shortener_postgres_breaker_state',
  'shortener_postgres_breaker_transitions_total',
  'shortener_click_flush_lag_seconds',
  'shortener_click_flush_size',
  'shortener_clicks_waiting',
  'shortener_clicks_dropped_total',
  'shortener_analytics_dropped_total',
  // Node's process metrics (prom-client collectDefaultMetrics).
  'process_cpu_user_seconds_total',
  'process_resident_memory_bytes',
  'nodejs_eventloop_lag_seconds',
  'nodejs_heap_size_used_bytes',
  'nodejs_gc_duration_seconds',
];

interface Scrape {
  /** Names declared by a # TYPE line. */
  types: Map<string, string>;
  /** `name{labels}` → value, labels as exposed. */
  samples: Map<string, number>;
}

/** The Prometheus text exposition, parsed: one sample per line, `name{a="b",…} value`. */
async function scrape(app: FastifyInstance): Promise<Scrape> {
  const res = await app.inject({ url: '/metrics' });
  assert.equal(res.statusCode, 200);
  assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/);
  const types = new Map<string, string>();
  const samples = new Map<string, number>();
  for (const line of res.body.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type !== null) types.set(type[1] as string, type[2] as string);
    if (line === '' || line.startsWith('#')) continue;
    const sample = /^([a-zA-Z_:][\w:]*(?:\{[^}]*\})?) (\S+)$/.exec(line);
    assert.ok(sample !== null, `not a sample line: ${line}`);
    samples.set(sample[1] as string, Number(sample[2]));
  }
  return { types, samples };
}

/** How much a sample grew between two scrapes (a sample absent before counts from 0). */
const grew = (then: Scrape, now: Scrape, sample: string): number => {
  const value = now.samples.get(sample);
  assert.ok(value !== undefined, `no sample ${sample}`);
  return value - (then.samples.get(sample) ?? 0);
};

test('/metrics names every series, and its counters move by exactly the traffic sent', async (t) => {
  const env = { REDIS_URL: SHARED_REDIS_URL, REDIS_KEY_PREFIX: prefix, CLICK_FLUSH_INTERVAL_MS: '3600000' };
  const { app } = await startApp(t, database.url, env);
  // A second instance on the same database and Redis: its own registry, its own counts.
  const { app: other } = await startApp(t, database.url, env);
  await until('Redis tier in use', redisInUse(app));
  await until('Redis tier in use on the other instance', redisInUse(other));
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  await insertRawLinks(database.url, ['raw-link']);

  const start = await scrape(app);
  const otherBefore = await scrape(other);
  for (const name of SERIES) assert.ok(start.types.has(name), `# TYPE ${name}`);
  assert.equal(start.types.get('shortener_http_request_duration_seconds'), 'histogram');
  assert.equal(start.types.get('shortener_http_requests_total'), 'counter');

  const created = await createLink(app, { url: 'https://example.com/measured' });
  assert.equal(created.status, 201);
  const code = String(created.body.code);
  // Hits answered by the listener.
  for (let i = 0; i < 5; i++) {
    const res = await fetch(`${base}/${code}`, { redirect: 'manual' });
    assert.equal(res.status, 302);
  }
  // Misses: one found in Postgres, one found nowhere (an alias shape, so it is looked up).
  assert.equal((await app.inject({ url: '/raw-link' })).statusCode, 302);
  assert.equal((await app.inject({ url: '/nowhere-link' })).statusCode, 404);
  // The other instance finds the created link in Redis (written through at its create).
  assert.equal((await other.inject({ url: `/${code}` })).statusCode, 302);
  await app.clicks.flush();

  const now = await scrape(app);
  assert.equal(grew(start, now, 'shortener_http_requests_total{route="GET /:code",status="302"}'), 6);
  assert.equal(grew(start, now, 'shortener_http_requests_total{route="GET /:code",status="404"}'), 1);
  assert.equal(grew(start, now, 'shortener_http_requests_total{route="POST /links",status="201"}'), 1);
  assert.equal(grew(start, now, 'shortener_http_requests_total{route="GET /metrics",status="200"}'), 1);
  assert.equal(grew(start, now, 'shortener_http_request_duration_seconds_count{route="GET /:code"}'), 7);
  assert.equal(grew(start, now, 'shortener_http_request_duration_seconds_bucket{route="GET /:code",le="+Inf"}'), 7);
  assert.equal(grew(start, now, 'shortener_http_request_duration_seconds_count{route="POST /links"}'), 1);
  assert.equal(grew(start, now, 'shortener_lru_lookups_total{result="hit"}'), 5);
  assert.equal(grew(start, now, 'shortener_lru_lookups_total{result="miss"}'), 2);
  assert.equal(grew(start, now, 'shortener_redis_lookups_total{result="miss"}'), 2);
  assert.equal(grew(start, now, 'shortener_redis_lookups_total{result="hit"}'), 0);
  assert.equal(grew(start, now, 'shortener_postgres_lookups_total{result="found"}'), 1);
  assert.equal(grew(start, now, 'shortener_postgres_lookups_total{result="absent"}'), 1);
  assert.equal(grew(start, now, 'shortener_redis_batch_size_count'), 2);
  assert.equal(grew(start, now, 'shortener_postgres_batch_size_count'), 2);
  assert.equal(grew(start, now, 'shortener_write_batch_size_count'), 1);
  assert.equal(grew(start, now, 'shortener_click_flush_size_count'), 1);
  assert.equal(grew(start, now, 'shortener_click_flush_size_sum'), 2, 'two links clicked');
  assert.equal(now.samples.get('shortener_write_queue_depth'), 0);
  assert.equal(now.samples.get('shortener_postgres_breaker_state{state="closed"}'), 1);
  assert.equal(now.samples.get('shortener_postgres_breaker_state{state="open"}'), 0);
  assert.ok((now.samples.get('shortener_click_flush_lag_seconds') ?? Infinity) < 5);
  assert.equal(now.samples.get('shortener_clicks_dropped_total'), 0);
  assert.equal(now.samples.get('shortener_analytics_dropped_total'), 0);
  assert.ok((now.samples.get('process_cpu_user_seconds_total') ?? 0) > 0);

  const otherNow = await scrape(other);
  assert.equal(grew(otherBefore, otherNow, 'shortener_redis_lookups_total{result="hit"}'), 1);
  assert.equal(grew(otherBefore, otherNow, 'shortener_http_requests_total{route="GET /:code",status="302"}'), 1);
  assert.equal(grew(otherBefore, otherNow, 'shortener_postgres_lookups_total{result="found"}'), 0);
});

test('the breaker state and its transitions are exposed when Postgres fails', async (t) => {
  const { app } = await startApp(t, database.url, { DB_STATEMENT_TIMEOUT_MS: '100', BREAKER_TIMEOUT_MS: '500', BREAKER_RESET_MS: '60000' });
  // Lookups that Postgres cancels (statement timeout) while the links table is locked.
  await withClient(database.url, async (locker) => {
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE links IN ACCESS EXCLUSIVE MODE');
    try {
      for (let i = 0; i < 5; i++) assert.equal((await app.inject({ url: `/locked-${i}` })).statusCode, 503);
    } finally {
      await locker.query('ROLLBACK');
    }
  });
  const now = await scrape(app);
  assert.equal(now.samples.get('shortener_postgres_breaker_state{state="open"}'), 1);
  assert.equal(now.samples.get('shortener_postgres_breaker_transitions_total{to="open"}'), 1);
  assert.equal(now.samples.get('shortener_postgres_lookups_total{result="failed"}'), 5);
  assert.equal(now.samples.get('shortener_http_requests_total{route="GET /:code",status="503"}'), 5);
});

test('METRICS_ENABLED=false: no /metrics route, and nothing to count into', async (t) => {
  // With metrics off the app counts no lookups: its statements that name a code are counted here.
  const statements: { text: string; values: unknown[] }[] = [];
  const wrapDb = (db: Queryable): Queryable => ({
    query(text, values) {
      statements.push({ text, values: values ?? [] });
      return db.query(text, values);
    },
  });
  const naming = (code: string) => statements.filter(({ text, values }) => JSON.stringify([text, values]).includes(code)).length;
  const { app } = await startApp(t, database.url, { METRICS_ENABLED: 'false', CLICK_FLUSH_INTERVAL_MS: '3600000' }, { wrapDb });
  assert.equal(app.metrics, null);
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  assert.equal((await app.inject({ url: '/metrics' })).statusCode, 404);
  const overHttp = await fetch(`${base}/metrics`);
  assert.equal(overHttp.status, 404);
  // /metrics is then a path like any other: a reserved word, so no link, without a lookup.
  assert.equal(((await overHttp.json()) as { error: { code: string } }).error.code, 'LINK_NOT_FOUND');
  assert.equal(naming('metrics'), 0, 'no statement asked for the code "metrics"');
  // Clicks are analytics, not metrics: still counted.
  await insertRawLinks(database.url, ['still-counted']);
  assert.equal(
    (
      await fetch(`${base}/still-counted`, {
        redirect: 'manual',
        headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0' },
      })
    ).status,
    302,
  );
  assert.equal(naming('still-counted'), 1, 'a code that may exist is looked up, and the lookup is seen here');
  await app.clicks.flush();
  const { rows } = await withClient(database.url, (client) =>
    client.query<{ clicks: string }>(`SELECT clicks FROM link_totals WHERE code = 'still-counted'`),
  );
  assert.equal(rows[0]?.clicks, '1');
});

test('the fixed-bucket histogram: cumulative buckets, +Inf, sum and count', () => {
  const histogram = new FixedHistogram([0.001, 0.01, 0.1]);
  for (const value of [0.0005, 0.001, 0.005, 0.05, 0.5, 7]) histogram.observe(value);
  assert.deepEqual(histogram.cumulative(), [
    [0.001, 2],
    [0.01, 3],
    [0.1, 4],
    [Infinity, 6],
  ]);
  assert.equal(histogram.count, 6);
  assert.ok(Math.abs(histogram.sum - 7.5565) < 1e-9);
});
