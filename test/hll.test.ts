// The visitor sketches: elements made in JavaScript (src/core/hll.ts), merged and estimated in
// Postgres (migrations/0009_analytics.sql), within the error the README states.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { addElement, hash32, HLL_ERROR, hllElement, sketchLiteral, type Registers } from '../src/core/hll.ts';
import { createTestDatabase, withClient, type TestDatabase } from './helpers/db.ts';

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase('hll');
});
after(() => database.drop());

function sketchOf(from: number, to: number, seed = 0x5eed): Registers {
  const registers: Registers = new Map();
  for (let i = from; i < to; i++) {
    const visitor = `203.0.${i >>> 8}.${i & 255}|${i}`;
    addElement(registers, hllElement(hash32(visitor, seed), hash32(visitor, ~seed)));
  }
  return registers;
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

test('a union in Postgres is the sketch of every visitor: overlapping halves count once', async () => {
  await withClient(database.url, async (client) => {
    const whole = sketchLiteral(sketchOf(0, 30_000));
    const { rows } = await client.query<{ merged: string; unioned: string; estimate: string }>(
      `SELECT hll_merge($1::integer[], $2::integer[])::text AS merged,
              (SELECT hll_union(s)::text FROM (VALUES ($1::integer[]), ($2::integer[]), ('{}'::integer[])) AS v (s)) AS unioned,
              hll_estimate(hll_merge($1::integer[], $2::integer[])) AS estimate`,
      [sketchLiteral(sketchOf(0, 20_000)), sketchLiteral(sketchOf(10_000, 30_000))],
    );
    assert.equal(rows[0]?.merged, whole);
    assert.equal(rows[0]?.unioned, whole);
    assert.ok(Math.abs(Number(rows[0]?.estimate) - 30_000) <= 3 * HLL_ERROR * 30_000);
  });
});

test('a sketch keeps at most one element per register: 4,096 elements, 16 KiB, however many visitors', () => {
  const registers = sketchOf(0, 100_000);
  assert.ok(registers.size <= 4096);
  assert.ok(registers.size > 4000);
  for (const [index, element] of registers) assert.equal(element >>> 6, index);
});
