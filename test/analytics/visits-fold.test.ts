// The recorder's log folded into rows (src/analytics/visits.ts, rollups.ts) and written as the
// click flusher writes them (analytics/store.ts), against a real Postgres: a log folded early (more
// links than a log's bound) gives rows that name the same value twice, which Postgres adds up, and
// values past the bound still land under other once each; the visitors of a link's day count once
// across folds; a batch put back is written once.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { pino } from 'pino';
import { Geo, SHIPPED_DATABASE } from '../../src/analytics/geo.ts';
import { VisitorSalts } from '../../src/analytics/salts.ts';
import { Visits } from '../../src/analytics/visits.ts';
import { ANALYTICS_PARTS } from '../../src/core/dimensions.ts';
import { HLL_ERROR } from '../../src/core/hll.ts';
import { trustProxyRule } from '../../src/core/trust-proxy.ts';
import { createPool } from '../../src/db/pool.ts';
import { addressOfReader } from '../../src/edge/client-address.ts';
import { TARGET_RULE, TARGET_VARIANT } from '../../src/core/redirect-rules.ts';
import { ClickCounter } from '../../src/analytics/click-counter.ts';
import { createTestDatabase, insertRawLinks, withClient, type TestDatabase } from '../helpers/db.ts';
import { addRollupBatch } from '../../src/analytics/rollup-store.ts';

const log = pino({ level: 'silent' });
const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase('visits_fold');
  await insertRawLinks(database.url, ['foldAa1', 'foldBb2', 'foldCc3']);
});
after(() => database.drop());

function visits(maxLinks: number, valuesMax: number): Visits {
  return new Visits({
    parts: new Set(ANALYTICS_PARTS),
    geo: new Geo(SHIPPED_DATABASE),
    salts: new VisitorSalts({ salt: async (_day, fresh) => fresh }, log),
    bounds: { maxLinks, valuesMax },
    addressOf: addressOfReader(trustProxyRule('loopback'), log),
    log,
  });
}

interface Row {
  code: string;
  dimension: number;
  value: string;
  clicks: number;
  bot_clicks: number;
  visitors: number;
}

async function storedRows(): Promise<Row[]> {
  return withClient(database.url, async (client) => {
    const { rows } = await client.query<Row>(
      `SELECT code, dimension, value, clicks::int, bot_clicks::int, hll_estimate(visitors)::int AS visitors
       FROM click_rollups ORDER BY code, dimension, value`,
    );
    return rows;
  });
}

async function write(batch: Awaited<ReturnType<Visits['take']>>): Promise<void> {
  const pool = createPool(
    database.url,
    { dbPoolMax: 1, dbConnectTimeoutMs: 5000, dbStatementTimeoutMs: 10_000, breakerTimeoutMs: 10_000 },
    log,
  );
  try {
    await addRollupBatch(pool, batch, { valuesMax: 2, workspaceValuesMax: 8 });
  } finally {
    await pool.end();
  }
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

test('a log folded early names a value in several rows: Postgres adds them up, exact, and bounds the values once each', async () => {
  await withClient(database.url, (client) => client.query('TRUNCATE click_rollups, workspace_rollups'));
  // Two links per log: three links clicked in turn fold the log at every third click.
  const recorder = visits(2, 2);
  // The clicks counted first, as the redirect counts them: each link's count holds its slot between folds.
  const counter = new ClickCounter(100, () => {});
  const referers = ['https://a.example/x', 'https://b.example/y', 'https://c.example/z'];
  for (let round = 0; round < 4; round++) {
    for (const [i, code] of ['foldAa1', 'foldBb2', 'foldCc3'].entries()) {
      // Four visitors per link, each twice; a crawler once per round.
      for (const visitor of [1, 2, 3, 4]) {
        const userAgent = round % 2 === 0 ? CHROME : IPHONE;
        recorder.record(
          code,
          counter.count(code, userAgent),
          userAgent,
          referers[(round + i) % 3],
          'de-DE',
          '127.0.0.1',
          `81.2.69.${visitor}`,
          false,
          // foldBb2 has rules: people get its first rule's target; the others are plain links.
          code === 'foldBb2' ? TARGET_RULE : 0,
        );
      }
      recorder.record(
        code,
        counter.count(code, GOOGLEBOT),
        GOOGLEBOT,
        undefined,
        undefined,
        '127.0.0.1',
        '8.8.8.8',
        true,
        code === 'foldBb2' ? TARGET_VARIANT + 1 : 0,
      );
    }
    await turn();
  }
  const batch = await recorder.take();
  // The same (link, dimension, value) in more than one row: folds happened within the batch.
  const seen = new Map<string, number>();
  for (const chunk of batch.chunks) {
    for (let r = 0; r < chunk.length; r++) {
      const name = `${chunk.codes[r]}|${chunk.dimensions[r]}|${chunk.values[r]}`;
      seen.set(name, (seen.get(name) ?? 0) + 1);
    }
  }
  assert.ok(
    [...seen.values()].some((n) => n > 1),
    'no value was split across folds',
  );
  assert.equal(batch.clicks, 60);
  await write(batch);
  const stored = await storedRows();
  for (const code of ['foldAa1', 'foldBb2', 'foldCc3']) {
    const of = (dimension: number) => stored.filter((row) => row.code === code && row.dimension === dimension);
    // The link's own row: 16 people's clicks and 4 bots'; 8 visitors (4 addresses, each with two browsers).
    const [own, ...more] = of(0);
    assert.equal(more.length, 0);
    assert.deepEqual([own?.value, own?.clicks, own?.bot_clicks], ['', 16, 4]);
    assert.ok(Math.abs((own?.visitors ?? 0) - 8) <= 1, `visitors ${own?.visitors}`);
    // Every dimension: one row per value, at most two named, every click counted once.
    for (let dimension = 1; dimension <= 8; dimension++) {
      if (dimension === 3) continue; // no cities in the shipped database
      const values = of(dimension);
      assert.equal(new Set(values.map((row) => row.value)).size, values.length, `dimension ${dimension}: a value twice`);
      assert.ok(values.filter((row) => row.value !== '').length <= 2, `dimension ${dimension}: ${JSON.stringify(values)}`);
      assert.deepEqual(
        [values.reduce((n, row) => n + row.clicks, 0), values.reduce((n, row) => n + row.bot_clicks, 0)],
        [16, 4],
        `dimension ${dimension}`,
      );
    }
    // Three referrers and direct: something is other. Two values only: exact.
    assert.ok(
      of(1).some((row) => row.value === ''),
      'no referrer counted as other',
    );
    const pairs = (dimension: number) => of(dimension).map((row) => [row.value, row.clicks, row.bot_clicks]);
    assert.deepEqual(pairs(2), [
      ['GB', 16, 0],
      ['US', 0, 4],
    ]);
    assert.deepEqual(pairs(7), [
      ['de', 16, 0],
      ['unknown', 0, 4],
    ]);
    assert.deepEqual(pairs(8), [
      ['link', 16, 0],
      ['qr', 0, 4],
    ]);
    // Which rule or variant answered: for the link with rules only, whatever the folds.
    assert.deepEqual(
      pairs(9),
      code === 'foldBb2'
        ? [
            ['rule 1', 16, 0],
            ['variant B', 0, 4],
          ]
        : [],
    );
  }
  // The workspace's rows (the three links are the default workspace's), added up across the folds' rows in the service.
  const workspace = await withClient(database.url, async (client) => {
    const { rows } = await client.query<Omit<Row, 'code'>>(
      `SELECT dimension, value, clicks::int, bot_clicks::int, hll_estimate(visitors)::int AS visitors
       FROM workspace_rollups ORDER BY dimension, value`,
    );
    return rows;
  });
  const inWorkspace = (dimension: number) => workspace.filter((row) => row.dimension === dimension);
  const [own, ...more] = inWorkspace(0);
  assert.equal(more.length, 0);
  assert.deepEqual([own?.value, own?.clicks, own?.bot_clicks], ['', 48, 12]);
  // The same 8 visitors (4 addresses, two browsers each) on the three links.
  assert.ok(Math.abs((own?.visitors ?? 0) - 8) <= 1, `workspace visitors ${own?.visitors}`);
  for (let dimension = 1; dimension <= 8; dimension++) {
    if (dimension === 3) continue;
    const values = inWorkspace(dimension);
    assert.equal(new Set(values.map((row) => row.value)).size, values.length, `workspace dimension ${dimension}: a value twice`);
    assert.deepEqual(
      [values.reduce((n, row) => n + row.clicks, 0), values.reduce((n, row) => n + row.bot_clicks, 0)],
      [48, 12],
      `workspace dimension ${dimension}`,
    );
  }
  assert.deepEqual(
    inWorkspace(2).map((row) => [row.value, row.clicks, row.bot_clicks]),
    [
      ['GB', 48, 0],
      ['US', 0, 12],
    ],
  );
  // A sketch's small counts are near exact: two of the 8 visitors may share a register.
  // A rule's number means nothing across links: no workspace rows of it.
  assert.deepEqual(inWorkspace(9), []);
  const [gb, us] = inWorkspace(2);
  assert.ok(Math.abs((gb?.visitors ?? 0) - 8) <= 1 && us?.visitors === 0, `GB ${gb?.visitors} visitors, US ${us?.visitors}`);
});

test('the workspace rows add up every fold’s rows of its links: clicks exact, a visitor of several links once', async () => {
  await withClient(database.url, (client) => client.query('TRUNCATE click_rollups, workspace_rollups'));
  // Two links per log: the log is folded as the third link is clicked, so that the links' rows are in several chunks.
  const recorder = visits(2, 50);
  // 80 visitors: the first link's are 1–40, the second's 21–60, the third's 41–80.
  const links = [
    ['foldAa1', 1],
    ['foldBb2', 21],
    ['foldCc3', 41],
  ] as const;
  for (let i = 0; i < 40; i++) {
    for (const [code, first] of links)
      recorder.record(code, undefined, CHROME, undefined, 'en', '127.0.0.1', `81.2.69.${first + i}`, false, 0);
    await turn();
  }
  const batch = await recorder.take();
  assert.ok(batch.chunks.length > 3, `${batch.chunks.length} chunks`);
  await write(batch);
  const { rows } = await withClient(database.url, (client) =>
    client.query<{ dimension: number; value: string; clicks: number; visitors: number }>(
      `SELECT dimension, value, clicks::int, hll_estimate(visitors)::int AS visitors FROM workspace_rollups
       WHERE dimension IN (0, 2) ORDER BY dimension, value`,
    ),
  );
  const slack = Math.ceil(3 * HLL_ERROR * 80);
  assert.deepEqual(
    rows.map((row) => [row.dimension, row.value, row.clicks]),
    [
      [0, '', 120],
      [2, 'GB', 120],
    ],
  );
  for (const row of rows)
    assert.ok(Math.abs(row.visitors - 80) <= slack, `dimension ${row.dimension}: ${row.visitors} visitors, expected 80 ± ${slack}`);
});
