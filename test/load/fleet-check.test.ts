// The fleet test's checks (load/fleet/check.ts) on histories written by hand: each catches what it
// is there to catch, and lets through what the README allows.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  checkClickEvents,
  checkClicks,
  checkCreatesInPostgres,
  checkErrors,
  checkFinalRedirects,
  checkReads,
  checkWebhooks,
  errorsByFault,
} from '../../load/fleet/check.ts';
import { emptyHistory, GONE, MISSING, possibleFinalValues, type History, type Outcome, type Version } from '../../load/fleet/history.ts';
import type { FaultWindow } from '../../load/fleet/types.ts';

const BOUND = 9000;
const A = 'https://example.com/a';
const B = 'https://example.com/b';

function version(value: string, sentAt: number, doneAt: number, fate: Version['outcome'] = 'ack'): Version {
  return { value, sentAt, doneAt, outcome: fate, by: 'app-1' };
}

/** One link: created with A at 0–10 ms, then given B at 100–110 ms. */
function history(second: Version['outcome'] = 'ack'): History {
  const h = emptyHistory();
  h.links.set('abc', { code: 'abc', versions: [version(A, 0, 10), version(B, 100, 110, second)] });
  return h;
}

const read = (value: string | null, start: number, end = start + 5) => ({ code: 'abc', start, end, value, by: 'app-2' });
const ackedAt = (v: Version) => v.doneAt;

test('a redirect may return a replaced state within the bound, not past it; a 404 or a target never written is wrong at any time', () => {
  const h = history();
  h.reads.push(read(A, 50), read(B, 105), read(A, 110 + BOUND - 1), read(B, 20_000));
  assert.equal(checkReads(h, BOUND, ackedAt).check.ok, true, 'within the bound, and while the write was under way');
  const { figures } = checkReads(h, BOUND, ackedAt);
  assert.equal(figures.stale, 1);
  assert.equal(figures.maxStalenessMs, BOUND - 1);

  h.reads.push(read(A, 110 + BOUND + 1));
  const late = checkReads(h, BOUND, ackedAt);
  assert.equal(late.check.ok, false);
  assert.equal(late.figures.beyondBound, 1);
  assert.match(late.check.examples[0] ?? '', /replaced 9001 ms before/);

  for (const wrong of [read(MISSING, 50), read('https://example.com/never', 50), read(B, 20, 60)]) {
    const h2 = history();
    h2.reads.push(wrong);
    assert.equal(checkReads(h2, BOUND, ackedAt).check.ok, false, `${wrong.value} from ${wrong.start} to ${wrong.end} ms`);
  }
});

test('the bound counts from when a write is known: a change made while its instance could not reach Redis counts from then', () => {
  const h = history();
  h.reads.push(read(A, 110 + BOUND + 1));
  assert.equal(checkReads(h, BOUND, (v) => (v.value === B ? 5000 : v.doneAt)).check.ok, true);
});

test('a write whose answer was lost may or may not have happened: either state is right until an acknowledged one replaces it', () => {
  const h = history('unknown');
  assert.deepEqual(possibleFinalValues(h.links.get('abc') ?? { code: '', versions: [] }), new Set([B, A]));
  h.reads.push(read(A, 60_000), read(B, 60_000));
  assert.equal(checkReads(h, BOUND, ackedAt).check.ok, true);
  assert.equal(checkCreatesInPostgres(h, new Map([['abc', A]])).ok, true);
  assert.equal(checkCreatesInPostgres(h, new Map([['abc', B]])).ok, true);
  assert.equal(checkCreatesInPostgres(history(), new Map([['abc', A]])).ok, false, 'B was acknowledged: A is lost');
  assert.equal(checkCreatesInPostgres(h, new Map()).ok, false, 'the link itself is lost');
  assert.equal(checkCreatesInPostgres(h, new Map()).detail.includes('1 lost'), true);
});

test('every instance must redirect every acknowledged link to its last state afterwards', () => {
  const h = history();
  assert.equal(checkFinalRedirects(h, new Map([['app-1', new Map([['abc', B]])]])).ok, true);
  assert.equal(
    checkFinalRedirects(
      h,
      new Map([
        ['app-1', new Map([['abc', B]])],
        ['app-2', new Map([['abc', A]])],
      ]),
    ).ok,
    false,
  );
  assert.equal(checkFinalRedirects(h, new Map([['app-3', new Map()]])).ok, false, 'no answer');
});

function outcome(start: number, status: number, documented = false, end = start + 10, kind: Outcome['kind'] = 'update'): Outcome {
  return { kind, start, end, status, documented, by: 'app-1', error: documented ? 'DATABASE_UNAVAILABLE' : null };
}

const FAULTS: FaultWindow[] = [
  { name: 'primary-restart', label: 'restart', start: 10, end: 15 },
  { name: 'term-instance', label: 'SIGTERM', start: 40, end: 45 },
];

test('the primary down: its documented 503 to writes and stats; a SIGKILL: its writes in flight; nothing else, nowhere else', () => {
  const kills = [{ sent: 20_000, gone: 20_005 }];
  const allowed = [
    outcome(0, 200),
    outcome(11_000, 503, true),
    outcome(9_995, 503, true),
    outcome(12_000, 503, true, 12_010, 'stats'),
    outcome(19_990, 502),
    outcome(20_003, 0, false, 20_100),
    outcome(25_000, 410, false, 25_010, 'redirect'),
  ];
  assert.equal(checkErrors(allowed, FAULTS, kills).ok, true, checkErrors(allowed, FAULTS, kills).examples.join('; '));
  for (const bad of [
    outcome(5000, 503, true),
    outcome(11_000, 503),
    outcome(11_000, 500),
    outcome(11_000, 503, true, 11_010, 'redirect'),
    outcome(41_000, 503, true),
    outcome(20_050, 502),
    outcome(19_990, 502, false, 20_010, 'redirect'),
    outcome(30_000, 0),
    outcome(30_000, 409),
  ]) {
    assert.equal(checkErrors([...allowed, bad], FAULTS, kills).ok, false, `${bad.kind} ${bad.status} at ${bad.start} ms`);
  }
  // A stale redirect counts for the window it or the change that replaced its state fell in.
  const rates = errorsByFault(allowed, FAULTS, 30, [
    { start: 12_000, replacedAt: 11_000 },
    { start: 50_000, replacedAt: 49_990 },
    { start: 16_000, replacedAt: 14_000 },
  ]);
  assert.deepEqual(
    rates.map((r) => [r.fault, r.requests, r.errors, r.maxStaleMs]),
    [
      ['none', 4, 2, 10],
      ['primary-restart', 3, 3, 2000],
      ['term-instance', 0, 0, 0],
    ],
  );
});

test('clicks: never more counted than served, and fewer only by what the crash may lose; link.clicked adds up to the counts', () => {
  const served = new Map([
    ['a', 10],
    ['b', 5],
  ]);
  assert.equal(
    checkClicks(
      served,
      new Map([
        ['a', 10],
        ['b', 3],
      ]),
      2,
    ).ok,
    true,
  );
  assert.equal(
    checkClicks(
      served,
      new Map([
        ['a', 10],
        ['b', 2],
      ]),
      2,
    ).ok,
    false,
    'three lost, two allowed',
  );
  assert.equal(
    checkClicks(
      served,
      new Map([
        ['a', 11],
        ['b', 0],
      ]),
      100,
    ).ok,
    false,
    'counted twice',
  );
  assert.equal(checkClicks(served, new Map([['c', 1]]), 100).ok, false, 'a click nobody made');
  assert.equal(checkClickEvents(new Map([['a', 3]]), new Map([['a', 3]])).ok, true);
  assert.equal(checkClickEvents(new Map([['a', 3]]), new Map([['a', 2]])).ok, false);
});

test('webhooks: each acknowledged write once at least, none for a write refused or never made', () => {
  const h = history();
  h.links.get('abc')?.versions.push(version(GONE, 200, 210, 'refused'));
  const created = { type: 'link.created', code: 'abc', value: A };
  const updated = { type: 'link.updated', code: 'abc', value: B };
  assert.equal(checkWebhooks(h, [created, updated]).ok, true);
  assert.equal(checkWebhooks(h, [created]).ok, false, 'the change never came');
  assert.equal(checkWebhooks(h, [created, updated, updated]).ok, false, 'twice under two ids');
  assert.equal(checkWebhooks(h, [created, updated, { type: 'link.updated', code: 'abc', value: GONE }]).ok, false, 'the refused disable');
});
