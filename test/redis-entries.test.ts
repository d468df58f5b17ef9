// What the Redis tier stores and publishes, without Redis: every link state survives the round
// trip, and what this version cannot read is a miss, never a wrong redirect.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ShortCode } from '../src/core/codes.ts';
import type { Link } from '../src/core/link.ts';
import { reconnectDelay } from '../src/redis/client.ts';
import { decodeInvalidation, decodeKnown, encodeInvalidation, encodeKnown, linkKey, missedBefore, Outbox } from '../src/redis/entries.ts';

const code = 'Ab3dE5f' as ShortCode;
const link = (extra: Partial<Link> = {}): Link => ({
  code,
  url: 'https://example.com/a?b=c',
  expiresAt: null,
  disabled: false,
  version: 0,
  ...extra,
});

test('every link state survives encoding: active, expiring, disabled, and "no such link"', () => {
  const states: (Link | null)[] = [
    link(),
    link({ expiresAt: new Date('2030-01-02T03:04:05.678Z') }),
    link({ disabled: true }),
    link({ disabled: true, expiresAt: new Date(0), version: 12 }),
    link({ version: 2_000_000_000 }),
    null,
  ];
  for (const state of states) assert.deepEqual(decodeKnown(code, encodeKnown(state)), state);
  assert.equal(encodeKnown(link()), 'a0. https://example.com/a?b=c');
  assert.equal(encodeKnown(link({ version: 3, expiresAt: new Date(5) })), 'a3.5 https://example.com/a?b=c');
  assert.equal(encodeKnown(null), '');
});

test('a missing key, or a value in a format this version does not read, is a miss', () => {
  const unreadable = [null, 'a https://e.com', 'x0. https://e.com', 'a', 'a0.', 'a0. ', 'a1.2x https://e.com', 'a0.https://e.com', 'a0.1e400 https://e.com', 'a0. two words'];
  for (const value of unreadable) {
    assert.equal(decodeKnown(code, value), undefined, JSON.stringify(value));
  }
});

test('keys and invalidation messages', () => {
  assert.equal(linkKey('shortener:', 'abc'), 'shortener:link:abc');
  assert.equal(encodeInvalidation('i1', 7, []), 'i1 7');
  assert.deepEqual(decodeInvalidation('i1 7'), { instance: 'i1', seq: 7, codes: [] });
  assert.deepEqual(decodeInvalidation(encodeInvalidation('i1', 8, ['a-b', 'C_d'])), { instance: 'i1', seq: 8, codes: ['a-b', 'C_d'] });
  assert.ok(Number.isNaN(decodeInvalidation('i1 a-b').seq), 'a message of another format has no number');
  const outbox = new Outbox('me');
  assert.deepEqual([outbox.message([]), outbox.message(['x']), outbox.message([]), outbox.message(['y', 'z'])], ['me 0', 'me 1 x', 'me 1', 'me 2 y z']);
});

test('a receiver knows it missed an invalidation when the count jumps, not when a heartbeat was lost', () => {
  assert.equal(missedBefore(undefined, 5, ['x']), false, 'the first message heard of a sender');
  assert.equal(missedBefore(4, 4, []), false, 'a heartbeat after a lost heartbeat');
  assert.equal(missedBefore(4, 5, ['x']), false);
  assert.equal(missedBefore(4, 5, []), true, 'a heartbeat after a lost invalidation');
  assert.equal(missedBefore(4, 6, ['x']), true);
  assert.equal(missedBefore(4, Number.NaN, []), true, 'an unreadable message');
});

test('reconnect back-off grows from 25-50 ms to at most 2 s, with jitter', () => {
  const first = Array.from({ length: 200 }, () => reconnectDelay(0));
  assert.ok(first.every((ms) => ms >= 25 && ms <= 50));
  assert.ok(new Set(first).size > 5, 'jittered');
  const late = Array.from({ length: 200 }, () => reconnectDelay(50));
  assert.ok(late.every((ms) => ms >= 1000 && ms <= 2000));
});
