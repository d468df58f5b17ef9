// The group-commit write queue against a real Postgres.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { createCodeCodec } from '../../src/core/codes.ts';
import { createPermutation } from '../../src/core/permutation.ts';
import type { Queryable } from '../../src/db/pool.ts';
import { createLink, startApp } from '../helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { until, within } from '../helpers/wait.ts';

let database: TestDatabase;
let check: pg.Pool;
before(async () => {
  database = await createTestDatabase('write_queue');
  check = new pg.Pool({ connectionString: database.url, max: 10 });
});
after(async () => {
  await check.end();
  await database.drop();
});

/** The count and sum of one of the app's histograms, as /metrics exports them. */
async function histogram(app: FastifyInstance, name: string): Promise<{ count: number; sum: number }> {
  const metric = app.metrics?.registry.getSingleMetric(name);
  assert.ok(metric !== undefined, `${name} is not exported`);
  const values = (await metric.get()).values as { metricName?: string; value: number }[];
  const value = (suffix: string) => values.find((v) => v.metricName === `${name}${suffix}`)?.value ?? Number.NaN;
  return { count: value('_count'), sum: value('_sum') };
}

/** Ids reserved so far: the sequence's position (its blocks are 1000 ids). */
async function reservedIds(): Promise<number> {
  const { rows } = await check.query<{ last_value: string; is_called: boolean }>('SELECT last_value, is_called FROM link_id_blocks');
  const seq = rows[0];
  assert.ok(seq !== undefined);
  return seq.is_called ? Number(seq.last_value) + 1000 : Number(seq.last_value);
}

test('1000 concurrent creates: distinct codes, every one committed, in a few batches and id blocks', async (t) => {
  const { app } = await startApp(t, database.url);
  const idsBefore = await reservedIds();
  const results = await Promise.all(Array.from({ length: 1000 }, (_, i) => createLink(app, { url: `https://example.com/item/${i}` })));
  assert.deepEqual(new Set(results.map((res) => res.status)), new Set([201]));
  const codes = results.map((res) => res.body.code as string);
  assert.equal(new Set(codes).size, 1000);
  const { rows } = await check.query<{ code: string; url: string }>('SELECT code, url FROM links WHERE code = ANY($1)', [codes]);
  const stored = new Map(rows.map((row) => [row.code, row.url]));
  assert.deepEqual(
    codes.filter((code, i) => stored.get(code) !== `https://example.com/item/${i}`),
    [],
    'a 201 whose link is not in Postgres with its URL',
  );
  const batches = await histogram(app, 'shortener_write_batch_size');
  const blocks = ((await reservedIds()) - idsBefore) / 1000;
  t.diagnostic(`1000 links in ${batches.count} group-commit batches and ${blocks} id blocks`);
  assert.equal(batches.sum, 1000, 'every link went through a batch once');
  // At most WRITE_BATCH_MAX (500) a batch: at least two; one per create would be 1000.
  assert.ok(batches.count >= 2 && batches.count <= 20, `${batches.count} batches for 1000 links`);
  assert.ok(blocks >= 1 && blocks <= 3, `${blocks} id blocks for 1000 links`);
});

test('a 201 waits for the commit: while the INSERT waits on a lock, no create is answered', async (t) => {
  const { app } = await startApp(t, database.url);
  const locker = new pg.Client({ connectionString: database.url });
  await locker.connect();
  t.after(() => locker.end());
  await locker.query('BEGIN');
  await locker.query('LOCK TABLE links IN SHARE MODE'); // blocks INSERT, not SELECT
  let answered = false;
  const create = createLink(app, { url: 'https://example.com/blocked', alias: 'blocked-by-lock' }).then((res) => {
    answered = true;
    return res;
  });
  // The batch's statement reached Postgres and waits for the lock: the race is on.
  await until('the INSERT waits on the lock', async () => {
    const { rows } = await check.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity
       WHERE datname = $1 AND wait_event_type = 'Lock' AND query LIKE '%INSERT INTO links%'`,
      [database.name],
    );
    return rows[0]?.n === 1;
  });
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(answered, false, 'a create was answered while its INSERT could not commit');
  assert.equal((await check.query("SELECT 1 FROM links WHERE code = 'blocked-by-lock'")).rowCount, 0);
  await locker.query('COMMIT');
  const res = await create;
  assert.equal(res.status, 201);
  assert.equal((await check.query("SELECT 1 FROM links WHERE code = 'blocked-by-lock'")).rowCount, 1);
});

test('the same alias asked for by five requests at once: one 201, four 409', async (t) => {
  const { app } = await startApp(t, database.url);
  const results = await Promise.all(
    Array.from({ length: 5 }, (_, i) => createLink(app, { url: `https://example.com/race/${i}`, alias: 'race-alias' })),
  );
  assert.deepEqual(
    results.map((r) => r.status).sort((a, b) => a - b),
    [201, 409, 409, 409, 409],
  );
  const winner = results.find((r) => r.status === 201);
  const { rows } = await check.query('SELECT url FROM links WHERE code = $1', ['race-alias']);
  assert.equal(rows[0]?.url, winner?.body.url);
});

test('a generated code that meets an existing alias takes the next id; the alias is untouched', async (t) => {
  const { app, config } = await startApp(t, database.url);
  const { rows } = await check.query<{ last_value: string; is_called: boolean }>('SELECT last_value, is_called FROM link_id_blocks');
  const seq = rows[0];
  assert.ok(seq !== undefined);
  const nextId = seq.is_called ? Number(seq.last_value) + 1000 : Number(seq.last_value);
  const codec = createCodeCodec(createPermutation(config.codeSecret, config.codeLength), config.codeLength);
  const squatted = codec.fromId(nextId);
  assert.equal((await createLink(app, { url: 'https://example.com/squatter', alias: squatted })).status, 201);

  const generated = await createLink(app, { url: 'https://example.com/generated' });
  assert.equal(generated.status, 201);
  assert.equal(generated.body.code, codec.fromId(nextId + 1));
  const res = await app.inject({ url: `/${squatted}` });
  assert.equal(res.headers.location, 'https://example.com/squatter');
});

test('a full queue answers 503 WRITE_QUEUE_FULL at once, with Retry-After; the queued links still commit', async (t) => {
  const gate = Promise.withResolvers<void>();
  const reached = Promise.withResolvers<void>();
  const gated = (db: Queryable): Queryable => ({
    async query(text, values) {
      if (text.includes('INSERT INTO links')) {
        reached.resolve();
        await gate.promise;
      }
      return db.query(text, values);
    },
  });
  // One link per batch: the first is held at the gate, five wait in the queue, the rest are refused.
  // All of one workspace: its share is the whole queue here (test/security/fairness.test.ts has the shares).
  const { app } = await startApp(
    t,
    database.url,
    { WRITE_QUEUE_MAX: '5', WRITE_BATCH_MAX: '1', WRITE_QUEUE_WORKSPACE_SHARE: '1' },
    { wrapDb: gated },
  );
  const settled: { status: number; code: string; retryAfter: unknown; ms: number }[] = [];
  const post = (i: number) => {
    const sent = Date.now();
    return app.inject({ method: 'POST', url: '/links', payload: { url: `https://example.com/full/${i}` } }).then((res) => {
      settled.push({
        status: res.statusCode,
        code: res.json<{ error?: { code: string } }>().error?.code ?? '',
        retryAfter: res.headers['retry-after'],
        ms: Date.now() - sent,
      });
    });
  };
  const first = post(0);
  await within('the first create reaches Postgres', reached.promise);
  const rest = Array.from({ length: 11 }, (_, i) => post(i + 1));
  await until('the creates past the queue are refused', async () => settled.length === 6);
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(settled.length, 6, 'five queued and one held; the other six refused, no more');
  for (const refusal of settled) {
    assert.deepEqual({ ...refusal, ms: 0 }, { status: 503, code: 'WRITE_QUEUE_FULL', retryAfter: '1', ms: 0 });
    assert.ok(refusal.ms < 500, `refused after ${refusal.ms} ms`);
  }
  gate.resolve();
  await Promise.all([first, ...rest]);
  assert.deepEqual(
    settled.slice(6).map((r) => r.status),
    Array(6).fill(201),
  );
});
