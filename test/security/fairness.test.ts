// What all tenants of an instance share, shared fairly: one workspace's flood of CSV exports and
// searches cannot hold every connection of the list's pool nor open the list's breaker for the
// others (LIST_SLOW_PER_WORKSPACE: more get 429 TOO_MANY_SLOW_REQUESTS), and one workspace's imports
// cannot fill the write queue (WRITE_QUEUE_WORKSPACE_SHARE: past its share an import's rows wait),
// so another workspace's lists and creates keep answering.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import type { Queryable } from '../../src/db/pool.ts';
import { bearer, errorCode, startApp } from '../helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { until } from '../helpers/wait.ts';
import { workspaceWith } from '../helpers/workspaces.ts';

let database: TestDatabase;
let flooder: Record<string, string>;
let other: Record<string, string>;

before(async () => {
  database = await createTestDatabase('security_fairness');
  flooder = bearer((await workspaceWith(database.url, 'flooder', { owner: 'admin' })).keys.owner);
  other = bearer((await workspaceWith(database.url, 'bystander', { owner: 'admin' })).keys.owner);
});
after(() => database.drop());

/** Runs `step` in `loops` loops until `stop` says so; what each answered, counted by "<status> <code>". */
async function flood(loops: number, stop: { done: boolean }, step: (i: number) => Promise<string>): Promise<Map<string, number>> {
  const seen = new Map<string, number>();
  await Promise.all(
    Array.from({ length: loops }, async (_, loop) => {
      for (let i = 0; !stop.done; i++) {
        const outcome = await step(loop * 1000 + i);
        seen.set(outcome, (seen.get(outcome) ?? 0) + 1);
        // A refusal is not retried in a tight loop.
        if (!outcome.startsWith('2')) await sleep(20);
      }
    }),
  );
  return seen;
}

const outcomeOf = (res: Parameters<typeof errorCode>[0] & { statusCode: number }) =>
  res.statusCode < 300 ? String(res.statusCode) : `${res.statusCode} ${errorCode(res)}`;

test("one workspace's flood of exports and searches leaves another's list answering 200, and the list's breaker closed", async (t) => {
  // Every statement of the list's pool holds its connection 150 ms (a slow search): db/plugin.ts
  // wraps the main pool first, then the list's, then the auth pool.
  let wrapped = 0;
  const slowList = (db: Queryable): Queryable => {
    wrapped++;
    if (wrapped !== 2) return db;
    const pool = db as pg.Pool;
    return {
      async query<R extends pg.QueryResultRow>(text: string, values?: unknown[]) {
        const client = await pool.connect();
        try {
          await client.query('SELECT pg_sleep(0.15)');
          return await client.query<R>(text, values);
        } finally {
          client.release();
        }
      },
    };
  };
  const { app } = await startApp(
    t,
    database.url,
    { DB_POOL_MAX: '10', DB_LIST_POOL_MAX: '2', DB_CONNECT_TIMEOUT_MS: '1000', BREAKER_RESET_MS: '5000' },
    { wrapDb: slowList },
  );
  assert.equal(wrapped, 3, 'the main pool, the list pool and the auth pool were wrapped');
  for (const [headers, label] of [
    [flooder, 'flood'],
    [other, 'calm'],
  ] as const) {
    const links = Array.from({ length: 20 }, (_, i) => ({ url: `https://example.com/${label}/${i}` }));
    const res = await app.inject({ method: 'POST', url: '/links/bulk', headers, payload: { links } });
    assert.ok(res.statusCode < 300, res.body);
  }

  const stop = { done: false };
  const flooding = flood(16, stop, async (i) =>
    outcomeOf(await app.inject({ url: i % 2 === 0 ? '/links/export.csv' : '/links?q=flood', headers: flooder })),
  );
  const answers: string[] = [];
  const breaker: string[] = [];
  // A few seconds of the flood: on main, time enough for its queue past the list's two connections to time out.
  while (answers.length < 8) {
    answers.push(outcomeOf(await app.inject({ url: '/links?limit=5', headers: other })));
    breaker.push(app.listBreaker.state);
    await sleep(50);
  }
  stop.done = true;
  const flooded = await flooding;
  t.diagnostic(`the flooder's answers: ${JSON.stringify([...flooded])}; the other's: ${answers.length}`);

  assert.deepEqual(
    answers.filter((outcome) => outcome !== '200'),
    [],
    "the other workspace's list answered something else than 200",
  );
  assert.deepEqual(
    breaker.filter((state) => state !== 'closed'),
    [],
    "the list's breaker opened",
  );
  assert.ok((flooded.get('429 TOO_MANY_SLOW_REQUESTS') ?? 0) > 0, "the flooder's requests past its share were refused");
  const refused = await app.inject({ url: '/links/export.csv', headers: flooder });
  assert.equal(refused.statusCode, 200, 'its share is back once its requests ended');
});

test("one workspace's imports cannot fill the write queue: another's creates get 201 meanwhile, and the imports' rows wait instead of failing", async (t) => {
  // Each group commit takes 50 ms at least: the queue fills when a workspace floods it.
  const slowInserts = (db: Queryable): Queryable => ({
    async query<R extends pg.QueryResultRow>(text: string, values?: unknown[]) {
      if (text.includes('INSERT INTO links')) await sleep(50);
      return db.query<R>(text, values);
    },
  });
  const { app } = await startApp(t, database.url, { WRITE_QUEUE_MAX: '100', WRITE_BATCH_MAX: '20' }, { wrapDb: slowInserts });
  const stop = { done: false };
  const rowsFailed = new Map<string, number>();
  const importing = flood(4, stop, async (i) => {
    const csv = ['url', ...Array.from({ length: 150 }, (_, row) => `https://example.com/import/${i}/${row}`)].join('\n');
    const res = await app.inject({
      method: 'POST',
      url: '/links/import',
      headers: { ...flooder, 'content-type': 'text/csv' },
      payload: csv,
    });
    if (res.statusCode === 200) {
      for (const row of res.json<{ results: { status: string; error?: { code: string } }[] }>().results) {
        if (row.status === 'failed') rowsFailed.set(row.error?.code ?? '', (rowsFailed.get(row.error?.code ?? '') ?? 0) + 1);
      }
    }
    return outcomeOf(res);
  });
  await until('the imports fill the queue', async () => app.writeQueue.depth >= 20).catch((err: unknown) => {
    stop.done = true;
    throw err;
  });
  const creates: string[] = [];
  while (creates.length < 8) {
    const res = await app.inject({
      method: 'POST',
      url: '/links',
      headers: other,
      payload: { url: `https://example.com/bystander/${creates.length}` },
    });
    creates.push(outcomeOf(res));
    await sleep(30);
  }
  stop.done = true;
  const imported = await importing;
  t.diagnostic(`imports: ${JSON.stringify([...imported])}; rows failed: ${JSON.stringify([...rowsFailed])}; creates: ${creates.length}`);

  assert.deepEqual(
    creates.filter((outcome) => outcome !== '201'),
    [],
    "the other workspace's creates answered something else than 201",
  );
  assert.deepEqual([...rowsFailed], [], "the imports' rows past the workspace's share waited rather than failed");
  assert.ok((imported.get('200') ?? 0) > 0, 'imports were answered');
});
