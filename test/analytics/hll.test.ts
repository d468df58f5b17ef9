// The visitor sketches: elements made in JavaScript (src/core/hll.ts), merged and estimated in
// Postgres (migrations/0009_analytics.sql), within the error the README states.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { hash32, HLL_ERROR, hllElement, sketchLiteral } from '../../src/core/hll.ts';
import { createTestDatabase, withClient, type TestDatabase } from '../helpers/db.ts';

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase('hll');
});
after(() => database.drop());

/** The sketch of visitors from to to, as a literal. */
function sketchOf(from: number, to: number, seed = 0x5eed): string {
  const elements = new Int32Array(to - from);
  for (let i = from; i < to; i++) {
    const visitor = `203.0.${i >>> 8}.${i & 255}|${i}`;
    elements[i - from] = hllElement(hash32(visitor, seed), hash32(visitor, ~seed));
  }
  return sketchLiteral(elements);
}

/** A literal's elements. */
function elementsOf(literal: string): number[] {
  return literal === '{}' ? [] : literal.slice(1, -1).split(',').map(Number);
}

test('estimates of 0 to 200,000 distinct visitors are within three standard errors; small counts within one', async () => {
  await withClient(database.url, async (client) => {
    for (const n of [0, 1, 7, 50, 300, 2_000, 20_000, 200_000]) {
      const { rows } = await client.query<{ estimate: string }>('SELECT hll_estimate($1::integer[]) AS estimate', [sketchOf(0, n)]);
      const estimate = Number(rows[0]?.estimate);
      const slack = Math.max(1, Math.ceil(3 * HLL_ERROR * n));
      assert.ok(Math.abs(estimate - n) <= slack, `${n} visitors estimated as ${estimate} (± ${slack})`);
    }
  });
});

test('a union in Postgres, by hll_merge or set-based, is the sketch of every visitor: overlapping halves count once', async () => {
  await withClient(database.url, async (client) => {
    const whole = sketchOf(0, 30_000);
    const { rows } = await client.query<{ merged: string; unioned: string; estimate: string }>(
      `SELECT hll_merge($1::integer[], $2::integer[])::text AS merged,
              (SELECT array_agg(m ORDER BY m)::text FROM (SELECT max(x) AS m FROM (VALUES ($1::integer[]), ($2::integer[]), ('{}'::integer[])) AS v (s),
                 unnest(s) AS x GROUP BY x >> 6) AS r) AS unioned,
              hll_estimate(hll_merge($1::integer[], $2::integer[])) AS estimate`,
      [sketchOf(0, 20_000), sketchOf(10_000, 30_000)],
    );
    assert.equal(rows[0]?.merged, whole);
    assert.equal(rows[0]?.unioned, whole);
    assert.ok(Math.abs(Number(rows[0]?.estimate) - 30_000) <= 3 * HLL_ERROR * 30_000);
  });
});

test('a sketch keeps at most one element per register, the greatest rank, sorted: 4,096 elements however many visitors', () => {
  const elements = elementsOf(sketchOf(0, 100_000));
  assert.ok(elements.length <= 4096 && elements.length > 4000, String(elements.length));
  for (let i = 1; i < elements.length; i++) assert.ok((elements[i - 1] as number) >>> 6 < (elements[i] as number) >>> 6);
  const some = Int32Array.of((7 << 6) | 3, (7 << 6) | 9, (2 << 6) | 1, (7 << 6) | 4, (2 << 6) | 1);
  assert.equal(sketchLiteral(some), `{${(2 << 6) | 1},${(7 << 6) | 9}}`);
  // Part of an array: the rest is left as it was.
  const parts = Int32Array.of(99, (5 << 6) | 2, (3 << 6) | 1, 98);
  assert.equal(sketchLiteral(parts, 1, 3), `{${(3 << 6) | 1},${(5 << 6) | 2}}`);
  assert.deepEqual([parts[0], parts[3]], [99, 98]);
  assert.equal(sketchLiteral(parts, 1, 1), '{}');
  assert.equal(sketchLiteral(parts, 3, 4), '{98}');
});
