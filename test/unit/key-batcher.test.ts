// The per-turn batch fetcher with a fake fetch: what goes out together, what is shared, and that
// nothing a fetch or an observer does wrong escapes as an exception or an unhandled rejection.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KeyBatcher } from '../../src/resolve/batcher.ts';
import { recordEscapes } from '../helpers/escapes.ts';

function recordingFetch(values: Record<string, number> = {}) {
  const calls: string[][] = [];
  const fetch = async (keys: string[]) => {
    calls.push(keys);
    return new Map(keys.filter((key) => key in values).map((key) => [key, values[key] as number]));
  };
  return { calls, fetch };
}

/** Fails the test if anything escapes as an uncaught exception or an unhandled rejection while `fn` runs. */
async function nothingEscapes(t: { after(fn: () => void): void }, fn: () => Promise<void>): Promise<void> {
  const escaped = recordEscapes(t);
  await fn();
  // Unhandled rejections are reported after the microtask queue drains.
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.deepEqual(escaped, []);
}

test('the keys asked for in one turn are one fetch; a key asked for twice is fetched once and both get its value', async () => {
  const { calls, fetch } = recordingFetch({ a: 1, b: 2 });
  const batcher = new KeyBatcher(fetch, 100);
  const values = await Promise.all(['a', 'b', 'a', 'missing'].map((key) => batcher.load(key)));
  assert.deepEqual(values, [1, 2, 1, undefined]);
  assert.deepEqual(calls, [['a', 'b', 'missing']]);
});

test('keys of the next turn go in the next fetch', async () => {
  const { calls, fetch } = recordingFetch({ a: 1 });
  const batcher = new KeyBatcher(fetch, 100);
  await batcher.load('a');
  await batcher.load('a');
  assert.deepEqual(calls, [['a'], ['a']]);
});

test('a batch is sent as soon as it holds maxBatch keys, and its size is told', async () => {
  const { calls, fetch } = recordingFetch();
  const sizes: number[] = [];
  const batcher = new KeyBatcher(fetch, 3, (size) => sizes.push(size));
  await Promise.all(['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((key) => batcher.load(key)));
  assert.deepEqual(calls, [['a', 'b', 'c'], ['d', 'e', 'f'], ['g']]);
  assert.deepEqual(sizes, [3, 3, 1]);
});

test('a failed fetch rejects every key of its batch with its error', async () => {
  const failure = new Error('Postgres went away');
  const batcher = new KeyBatcher<string, number>(() => Promise.reject(failure), 100);
  const results = await Promise.allSettled([batcher.load('a'), batcher.load('b')]);
  assert.deepEqual(results, [
    { status: 'rejected', reason: failure },
    { status: 'rejected', reason: failure },
  ]);
});

test('a fetch or an observer that throws at once rejects the batch; nothing escapes the timer', async (t) => {
  await nothingEscapes(t, async () => {
    const thrown = new Error('thrown before any promise');
    const throwingFetch = new KeyBatcher<string, number>(() => {
      throw thrown;
    }, 100);
    await assert.rejects(throwingFetch.load('a'), thrown);
    const throwingObserver = new KeyBatcher<string, number>(recordingFetch().fetch, 100, () => {
      throw thrown;
    });
    await assert.rejects(throwingObserver.load('a'), thrown);
  });
});
