// upTo (src/cache/bounded.ts): an LRU bounded by its count of entries, without lru-cache's `max`.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LRUCache } from 'lru-cache';
import { upTo } from '../../src/cache/bounded.ts';

test('upTo(n): at most n entries; a new one pushes out the least recently used, a new value for a key it holds pushes out none', () => {
  const cache = new LRUCache<string, number>({ ...upTo(3) });
  for (const [i, key] of ['a', 'b', 'c'].entries()) cache.set(key, i);
  cache.set('c', 30);
  assert.equal(cache.get('a'), 0, 'a is still there, and now used: b is the least recently used');
  cache.set('d', 3);
  assert.deepEqual([...cache.keys()].sort(), ['a', 'c', 'd']);
  assert.equal(cache.get('c'), 30);
});
