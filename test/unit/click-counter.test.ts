// The in-memory click counter: pure, no I/O.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ClickCount } from '../../src/analytics/click-store.ts';
import { ClickCounter } from '../../src/analytics/click-counter.ts';

/** What a take hands the flusher: each code's clicks and bots. */
function counts(taken: Map<string, ClickCount>): [string, ClickCount][] {
  return [...taken].map(([code, { clicks, bots }]) => [code, { clicks, bots }]);
}

const BROWSER = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15';

test('counts per code, bots apart; a take hands the counts over and starts again from zero', () => {
  const counter = new ClickCounter(100, () => assert.fail('not full'));
  for (let i = 0; i < 3; i++) counter.count('abc', BROWSER);
  counter.count('abc', 'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)');
  counter.count('abc', 'curl/8.5.0');
  counter.count('xyz', undefined);
  assert.deepEqual(counts(counter.take()), [
    ['abc', { clicks: 3, bots: 2 }],
    ['xyz', { clicks: 1, bots: 0 }],
  ]);
  assert.equal(counter.take().size, 0);
});

test('a full counter drops clicks on new codes, counts them, and asks to be taken early', () => {
  let asked = 0;
  const counter = new ClickCounter(2, () => asked++);
  counter.count('a', BROWSER);
  counter.count('b', BROWSER);
  counter.count('c', BROWSER);
  counter.count('d', BROWSER);
  counter.count('a', BROWSER);
  // Once per dropped click: the flusher coalesces the asks into one early take.
  assert.equal(asked, 2);
  assert.equal(counter.takeDropped(), 2);
  assert.equal(counter.takeDropped(), 0);
  assert.deepEqual(counts(counter.take()), [
    ['a', { clicks: 2, bots: 0 }],
    ['b', { clicks: 1, bots: 0 }],
  ]);
  counter.count('c', BROWSER);
  assert.equal(counter.takeDropped(), 0, 'room again after a take');
  assert.equal(asked, 2, 'a counter with room does not ask');
  assert.deepEqual(counts(counter.take()), [['c', { clicks: 1, bots: 0 }]]);
});

test('many distinct User-Agents: verdicts stay right after the memo of them starts over', () => {
  const counter = new ClickCounter(10, () => {});
  for (let i = 0; i < 25_000; i++)
    counter.count('ua', i % 2 === 0 ? `${BROWSER} build/${i}` : `Googlebot/2.1 (+http://www.google.com/bot.html) v${i}`);
  assert.deepEqual(counts(counter.take()), [['ua', { clicks: 12_500, bots: 12_500 }]]);
});

test("a click returns its code's count of the interval, where analytics keeps the link's slot; a take starts new ones", () => {
  const counter = new ClickCounter(1, () => {});
  const first = counter.count('abc', BROWSER);
  assert.ok(first !== undefined);
  first.slot = 7;
  assert.equal(counter.count('abc', BROWSER), first);
  assert.equal(counter.count('xyz', BROWSER), undefined, 'a dropped click has no count');
  counter.take();
  const next = counter.count('abc', BROWSER);
  assert.notEqual(next, first);
  assert.deepEqual([next?.slot, next?.slots], [0, null]);
});
