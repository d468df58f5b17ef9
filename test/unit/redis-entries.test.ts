// What the Redis tier stores and publishes, without Redis: every link state survives the round
// trip, and what this version cannot read is a miss, never a wrong redirect.

import assert from 'node:assert/strict';
import type { LinkKey } from '../../src/core/domains.ts';
import { test } from 'node:test';
import type { ShortCode } from '../../src/core/codes.ts';
import type { Link } from '../../src/core/link.ts';
import { plainLink } from '../helpers/links.ts';
import { reconnectDelay } from '../../src/redis/client.ts';
import { passTagOf } from '../../src/core/link-passwords.ts';
import {
  decodeInvalidation,
  decodeKnown,
  encodeInvalidation,
  encodeKnown,
  Ledger,
  Outbox,
  redisLinkKey,
  withoutKey,
} from '../../src/redis/entries.ts';

const code = 'Ab3dE5f' as ShortCode;
const key = code as string as LinkKey;
const link = (extra: Partial<Link> = {}): Link => plainLink(code, 'https://example.com/a?b=c', extra);

test('every link state survives encoding: active, expiring, starting, disabled, deleted, and "no such link"', () => {
  const states: (Link | null)[] = [
    link(),
    link({ expiresAt: new Date('2030-01-02T03:04:05.678Z') }),
    link({ startsAt: new Date('2029-05-06T07:08:09.123Z') }),
    link({ startsAt: new Date('2029-05-06T07:08:09.123Z'), expiresAt: new Date('2030-01-02T03:04:05.678Z'), version: 4 }),
    link({ disabled: true, startsAt: new Date(1) }),
    link({ disabled: true }),
    link({ disabled: true, expiresAt: new Date(0), version: 12 }),
    link({ deleted: true, version: 3 }),
    link({ version: 2_000_000_000 }),
    null,
  ];
  for (const state of states) assert.deepEqual(decodeKnown(key, encodeKnown(state)), state);
  const branded = link({ domainId: 7 });
  assert.deepEqual(decodeKnown('7:Ab3dE5f' as LinkKey, encodeKnown(branded)), branded, "a branded domain's key gives its domain back");
  assert.equal(encodeKnown(link()), 'a0. https://example.com/a?b=c');
  assert.equal(encodeKnown(link({ version: 3, expiresAt: new Date(5) })), 'a3.5 https://example.com/a?b=c');
  // A start after the expiry's place; a link without one is written as before starts existed.
  assert.equal(encodeKnown(link({ version: 3, expiresAt: new Date(5), startsAt: new Date(2) })), 'a3.5.2 https://example.com/a?b=c');
  assert.equal(encodeKnown(link({ startsAt: new Date(2) })), 'a0..2 https://example.com/a?b=c');
  assert.equal(encodeKnown(null), '');
});

test('a missing key, or a value in a format this version does not read, is a miss', () => {
  const unreadable = [
    null,
    'a https://e.com',
    'z0. https://e.com',
    'a',
    'a0.',
    'a0. ',
    'a1.2x https://e.com',
    'a0.https://e.com',
    'a0.1e400 https://e.com',
    'a0.5. https://e.com',
    'a0.5.2.3 https://e.com',
    'a0. two words',
    // A URL of anything but visible ASCII is no value this version writes: a CR or LF, or a
    // character whose low byte is one, would split the response head it went into.
    'a0. https://e.com/\u010d\u010aset-cookie:x=1',
    'a0. https://e.com/\u00e9',
    'a0. https://e.com/\x7f',
  ];
  for (const value of unreadable) {
    assert.equal(decodeKnown(key, value), undefined, JSON.stringify(value));
  }
});

test("Redis never holds a password's hash: the entry carries its tag, which is all the redirect needs", () => {
  const hash = 'scrypt$16384$8$1$c2FsdHNhbHRzYWx0c2FsdA$a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2U';
  const options = { redirectStatus: 307 as const, passwordHash: hash };
  assert.deepEqual(withoutKey(options), { redirectStatus: 307, passTag: passTagOf(hash) });
  assert.deepEqual(withoutKey({ redirectStatus: 307 }), { redirectStatus: 307 });
  const value = encodeKnown(link({ options }));
  assert.equal(value.includes(hash), false);
  assert.equal(value.includes('c2FsdHNhbHRzYWx0c2FsdA'), false, 'nor its salt');
  assert.deepEqual(decodeKnown(key, value)?.options, { redirectStatus: 307, passTag: passTagOf(hash) });
  // An entry an older version wrote, with the hash: read as its tag.
  const old = `a0. https://e.com ${JSON.stringify(options)}`;
  assert.deepEqual(decodeKnown(key, old)?.options, { redirectStatus: 307, passTag: passTagOf(hash) });
});

test('keys and invalidation messages', () => {
  assert.equal(redisLinkKey('shortener:', 'abc'), 'shortener:link:abc');
  assert.equal(encodeInvalidation('i1', 7, []), 'i1 7');
  assert.deepEqual(decodeInvalidation('i1 7'), { instance: 'i1', seq: 7, codes: [] });
  assert.deepEqual(decodeInvalidation(encodeInvalidation('i1', 8, ['a-b', 'C_d'])), { instance: 'i1', seq: 8, codes: ['a-b', 'C_d'] });
  assert.ok(Number.isNaN(decodeInvalidation('i1 a-b').seq), 'a message of another format has no number');
  const outbox = new Outbox('me');
  assert.deepEqual(
    [outbox.message([]), outbox.message(['x']), outbox.message([]), outbox.message(['y', 'z'])],
    ['me 0', 'me 1 x', 'me 1', 'me 2 y z'],
  );
});

test('a ledger gives an invalidation up as missed only when it is overdue, whatever the order messages come in', () => {
  const ledger = new Ledger(4, 0);
  ledger.hear(4, false, 100);
  assert.equal(ledger.overdue(5000, 1000), false, 'a lost heartbeat misses nothing');
  // A heartbeat overtakes the invalidation it counts; the invalidation follows.
  ledger.hear(5, false, 6000);
  ledger.hear(5, true, 6300);
  assert.equal(ledger.overdue(9000, 1000), false, 'late, not missed');
  // Two invalidations out of order.
  ledger.hear(7, true, 9100);
  ledger.hear(6, true, 9200);
  assert.equal(ledger.overdue(12_000, 1000), false);
  // Number 8 is named by a heartbeat and never arrives.
  ledger.hear(8, false, 12_100);
  assert.equal(ledger.overdue(12_500, 1000), false, 'within the grace for late messages');
  assert.equal(ledger.overdue(13_200, 1000), true, 'overdue: missed');
  assert.equal(ledger.overdue(15_000, 1000), false, 'given up on once');
  ledger.hear(10, true, 15_100);
  assert.equal(ledger.overdue(16_200, 1000), true, 'number 9 never came');
});

test('reconnect back-off grows from 25-50 ms to at most 2 s, with jitter', () => {
  const first = Array.from({ length: 200 }, () => reconnectDelay(0));
  assert.ok(first.every((ms) => ms >= 25 && ms <= 50));
  assert.ok(new Set(first).size > 5, 'jittered');
  const late = Array.from({ length: 200 }, () => reconnectDelay(50));
  assert.ok(late.every((ms) => ms >= 1000 && ms <= 2000));
});

test('a link a blocklist acted on keeps its state and its list through Redis; disabled and deleted still win', () => {
  const safeKey = 'safe1' as LinkKey;
  for (const safety of ['blocked', 'flagged'] as const) {
    const acted = plainLink('safe1', 'https://evil.example/x', { safety, safetyList: 'urlhaus', version: 3 });
    assert.deepEqual(decodeKnown(safeKey, encodeKnown(acted)), acted);
  }
  const off = plainLink('safe1', 'https://evil.example/x', { safety: 'blocked', safetyList: 'urlhaus', disabled: true });
  assert.deepEqual(decodeKnown(safeKey, encodeKnown(off)), { ...off, safety: null, safetyList: null });
  // A list name of a shape no list has is no entry of ours.
  assert.equal(decodeKnown(safeKey, 'b3.~Evil List https://evil.example/x'), undefined);
});
