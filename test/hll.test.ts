// The visitor sketches: elements made in JavaScript (src/core/hll.ts), merged and estimated in
// Postgres (migrations/0009_analytics.sql), within the error the README states.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { hash32, HLL_ERROR, hllElement, Sketch, sketchLiteral } from '../src/core/hll.ts';
import { createTestDatabase, withClient, type TestDatabase } from './helpers/db.ts';

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase('hll');
});
after(() => database.drop());

function sketchOf(from: number, to: number, seed = 0x5eed): Sketch {
  const sketch = new Sketch();
  for (let i = from; i < to; i++) {
    const visitor = `203.0.${i >>> 8}.${i & 255}|${i}`;
    sketch.add(hllElement(hash32(visitor, seed), hash32(visitor, ~seed)));
  }
  return sketch;
}

test('estimates of 0 to 200,000 distinct visitors are within three standard errors; small counts within one', async () => {
  await withClient(database.url, async (client) => {
    for (const n of [0, 1, 7, 50, 300, 2_000, 20_000, 200_000]) {
      const { rows } = await client.query<{ estimate: string }>('SELECT hll_estimate($1::integer[]) AS estimate', [
        sketchLiteral(sketchOf(0, n)),
      ]);
      const estimate = Number(rows[0]?.estimate);
      const slack = Math.max(1, Math.ceil(3 * HLL_ERROR * n));
      assert.ok(Math.abs(estimate - n) <= slack, `${n} visitors estimated as ${estimate} (± ${slack})`);
    }
  });
});

test('a union in Postgres, by hll_merge or set-based, is the sketch of every visitor: overlapping halves count once', async () => {
  await withClient(database.url, async (client) => {
    const whole = sketchLiteral(sketchOf(0, 30_000));
    const { rows } = await client.query<{ merged: string; unioned: string; estimate: string }>(
      `SELECT hll_merge($1::integer[], $2::integer[])::text AS merged,
              (SELECT array_agg(m ORDER BY m)::text FROM (SELECT max(x) AS m FROM (VALUES ($1::integer[]), ($2::integer[]), ('{}'::integer[])) AS v (s),
                 unnest(s) AS x GROUP BY x >> 6) AS r) AS unioned,
              hll_estimate(hll_merge($1::integer[], $2::integer[])) AS estimate`,
      [sketchLiteral(sketchOf(0, 20_000)), sketchLiteral(sketchOf(10_000, 30_000))],
    );
    assert.equal(rows[0]?.merged, whole);
    assert.equal(rows[0]?.unioned, whole);
    assert.ok(Math.abs(Number(rows[0]?.estimate) - 30_000) <= 3 * HLL_ERROR * 30_000);
  });
});

test('a sketch keeps at most one element per register, the greatest rank, sorted: 4,096 elements however many visitors', () => {
  const elements = sketchOf(0, 100_000).elements();
  assert.ok(elements.length <= 4096 && elements.length > 4000, String(elements.length));
  for (let i = 1; i < elements.length; i++) assert.ok((elements[i - 1] as number) >>> 6 < (elements[i] as number) >>> 6);
  const sketch = new Sketch();
  for (const element of [(7 << 6) | 3, (7 << 6) | 9, (2 << 6) | 1, (7 << 6) | 4]) sketch.add(element);
  assert.deepEqual(sketch.elements(), [(2 << 6) | 1, (7 << 6) | 9]);
  // Merged in memory as in Postgres: the same elements as one sketch of both.
  const merged = sketchOf(0, 3000);
  merged.merge(sketchOf(2000, 5000));
  assert.deepEqual(merged.elements(), sketchOf(0, 5000).elements());
});
