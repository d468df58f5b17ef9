// Two instances flushing the same links and days at once: their rollup and click-count statements
// lock rows in one fixed order (each statement's rows are sorted by the conflict key before the
// upsert, analytics/rollup-store.ts and click-store.ts), so one waits for the other and neither
// deadlocks (40P01). The control shows this harness does provoke deadlocks when an upsert takes its
// rows in input order, so a green run means the order holds, not that the race was never met.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type pg from 'pg';
import { pino } from 'pino';
import { addClicks, type ClickCount } from '../../src/analytics/click-store.ts';
import { addRollupBatch, maintainPartitions } from '../../src/analytics/rollup-store.ts';
import { RollupBatch, RollupRows } from '../../src/analytics/rollups.ts';
import { dimensionId } from '../../src/core/dimensions.ts';
import { linkKey } from '../../src/core/domains.ts';
import type { ShortCode } from '../../src/core/codes.ts';
import { createPool } from '../../src/db/pool.ts';
import { createTestDatabase, insertRawLinks, withClient, type TestDatabase } from '../helpers/db.ts';

const log = pino({ level: 'silent' });
const LINKS = 400;
const DAYS = ['2026-11-30', '2026-12-01'];
const VALUES = ['de', 'fr', 'nl', 'se', 'us'];
const ROUNDS = 12;
const CODES = Array.from({ length: LINKS }, (_, i) => `dl${String(i).padStart(5, '0')}`);

let database: TestDatabase;
let domainId: number;
/** Two instances: a pool each, as two processes would have. */
let pools: [pg.Pool, pg.Pool];

before(async () => {
  database = await createTestDatabase('rollup_deadlock');
  await insertRawLinks(database.url, CODES);
  domainId = await withClient(database.url, async (client) => {
    const { rows } = await client.query<{ domain_id: number }>('SELECT domain_id::int FROM links LIMIT 1');
    return (rows[0] as { domain_id: number }).domain_id;
  });
  const options = { dbPoolMax: 2, dbConnectTimeoutMs: 5000, dbStatementTimeoutMs: 60_000, breakerTimeoutMs: 60_000 };
  pools = [createPool(database.url, options, log), createPool(database.url, options, log)];
  await maintainPartitions(pools[0], DAYS[0] as string, null, 1);
});
after(async () => {
  await Promise.all(pools.map((pool) => pool.end()));
  await database.drop();
});

/** One flush's rollups: every link, day and value, in ascending or descending order. */
function batch(descending: boolean): RollupBatch {
  const rows = new RollupRows();
  const country = dimensionId('country');
  const empty = new Int32Array(0);
  const links = descending ? CODES.toReversed() : CODES;
  const days = descending ? DAYS.toReversed() : DAYS;
  const values = descending ? VALUES.toReversed() : VALUES;
  for (const code of links) {
    for (const day of days) for (const value of values) rows.push(domainId, code, day, country, value, 1, 0, empty, 0, 0);
  }
  rows.clickTotal = rows.length;
  const out = new RollupBatch();
  out.chunks.push(rows);
  return out;
}

/** One flush's click counts, its days and links in ascending or descending order. */
function counts(descending: boolean): Map<string, Map<string, ClickCount>> {
  const out = new Map<string, Map<string, ClickCount>>();
  for (const day of descending ? DAYS.toReversed() : DAYS) {
    const byLink = new Map<string, ClickCount>();
    for (const code of descending ? CODES.toReversed() : CODES) byLink.set(linkKey(domainId, code as ShortCode), { clicks: 1, bots: 0 });
    out.set(day, byLink);
  }
  return out;
}

function deadlocks(results: PromiseSettledResult<unknown>[]): number {
  let n = 0;
  for (const result of results) {
    if (result.status === 'fulfilled') continue;
    if ((result.reason as { code?: string }).code === '40P01') n++;
    else throw result.reason;
  }
  return n;
}

test('control: an upsert that takes overlapping rows in opposite orders at once deadlocks here', async () => {
  await withClient(database.url, (client) =>
    client.query(`CREATE TABLE deadlock_probe (k int PRIMARY KEY, n int NOT NULL);
                  INSERT INTO deadlock_probe SELECT k, 0 FROM generate_series(1, 20000) AS k`),
  );
  const keys = Array.from({ length: 20_000 }, (_, i) => i + 1);
  const upsert = (pool: pg.Pool, list: number[]) =>
    pool.query(
      `INSERT INTO deadlock_probe AS p (k, n) SELECT k, 1 FROM unnest($1::int[]) AS k
       ON CONFLICT (k) DO UPDATE SET n = p.n + 1`,
      [list],
    );
  let seen = 0;
  for (let round = 0; round < 20 && seen === 0; round++) {
    seen += deadlocks(await Promise.allSettled([upsert(pools[0], keys), upsert(pools[1], keys.toReversed())]));
  }
  assert.ok(seen > 0, 'the harness never met the race: the test below would prove nothing');
});

test('two instances folding the same links and days in opposite orders never deadlock, and every click is added', async () => {
  let seen = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const limits = { valuesMax: 100, workspaceValuesMax: 100 };
    seen += deadlocks(
      await Promise.allSettled([
        addRollupBatch(pools[0], batch(false), limits),
        addRollupBatch(pools[1], batch(true), limits),
        addClicks(pools[0], counts(false)),
        addClicks(pools[1], counts(true)),
      ]),
    );
  }
  assert.equal(seen, 0, `${seen} of ${4 * ROUNDS} flushes deadlocked (40P01)`);
  const stored = await withClient(database.url, async (client) => {
    const rollups = await client.query<{ clicks: number }>('SELECT sum(clicks)::int AS clicks FROM click_rollups');
    const workspaces = await client.query<{ clicks: number }>('SELECT sum(clicks)::int AS clicks FROM workspace_rollups');
    const daily = await client.query<{ clicks: number }>('SELECT sum(clicks)::int AS clicks FROM link_clicks_daily');
    return { rollups: rollups.rows[0]?.clicks, workspaces: workspaces.rows[0]?.clicks, daily: daily.rows[0]?.clicks };
  });
  const perFlush = LINKS * DAYS.length * VALUES.length;
  assert.deepEqual(stored, { rollups: 2 * ROUNDS * perFlush, workspaces: 2 * ROUNDS * perFlush, daily: 2 * ROUNDS * LINKS * DAYS.length });
});
