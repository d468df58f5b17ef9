// Ids for generated codes from blocks, with a fake sequence: one round trip per block, the next
// block reserved in the background, and nothing lost or reused when a reservation fails.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { IdAllocator } from '../../src/write/id-allocator.ts';
import { recordEscapes } from '../helpers/escapes.ts';

/** A sequence of blocks of `size` ids; `failNext` makes the next reservations fail. */
function fakeSequence(size: number) {
  let next = 0;
  let failures = 0;
  const reservations: number[] = [];
  return {
    reservations,
    failNext(count: number) {
      failures = count;
    },
    reserve: async () => {
      if (failures > 0) {
        failures--;
        throw new Error('Postgres unavailable');
      }
      const start = next;
      next += size;
      reservations.push(start);
      return { start, size };
    },
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

test('ids come in order from one block, at one reservation for the block', async () => {
  const sequence = fakeSequence(10);
  const ids = new IdAllocator(sequence.reserve);
  assert.deepEqual(await ids.take(3), [0, 1, 2]);
  assert.deepEqual(await ids.take(1), [3]);
  assert.deepEqual(sequence.reservations, [0]);
});

test('once half a block is used the next one is reserved in the background, once, and used when the block runs out', async () => {
  const sequence = fakeSequence(10);
  const ids = new IdAllocator(sequence.reserve);
  await ids.take(4);
  await settle();
  assert.deepEqual(sequence.reservations, [0], 'reserved before half the block was used');
  await ids.take(1);
  await ids.take(1);
  await settle();
  assert.deepEqual(sequence.reservations, [0, 10], 'one spare block, however many takes pass the half');
  assert.deepEqual(await ids.take(6), [6, 7, 8, 9, 10, 11]);
  assert.deepEqual(sequence.reservations, [0, 10]);
});

test('a take larger than a block spans blocks, every id once', async () => {
  const sequence = fakeSequence(4);
  const ids = new IdAllocator(sequence.reserve);
  const taken = await ids.take(10);
  assert.deepEqual(taken, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
});

test('a failed reservation rejects the take; the next take reserves again; a failed spare goes unhandled nowhere', async (t) => {
  const unhandled = recordEscapes(t);

  const sequence = fakeSequence(4);
  const ids = new IdAllocator(sequence.reserve);
  sequence.failNext(1);
  await assert.rejects(ids.take(1), /Postgres unavailable/);
  assert.deepEqual(await ids.take(2), [0, 1]);
  assert.deepEqual(await ids.take(3), [2, 3, 4]);
  // Past half of block 4: its spare is reserved now, and fails.
  sequence.failNext(1);
  assert.deepEqual(await ids.take(1), [5]);
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.deepEqual(await ids.take(3), [6, 7, 8]);
  assert.deepEqual(sequence.reservations, [0, 4, 8]);
  assert.deepEqual(unhandled, []);
});
