// What bounds the work of link passwords, without services: the hash slots and their two queues
// (src/core/hash-slots.ts), attempts reserved before they are judged (src/api/attempt-budget.ts),
// and what the cache refuses to hold as an answer (src/cache/link-cache.ts entryOf).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AttemptBudget } from '../../src/api/attempt-budget.ts';
import { LocalCounter } from '../../src/api/counters.ts';
import { ABSENT, entryOf } from '../../src/cache/link-cache.ts';
import type { Link } from '../../src/core/link.ts';
import { plainLink } from '../helpers/links.ts';
import { LinkRules } from '../../src/core/redirect-rules.ts';
import { privateCacheControl } from '../../src/edge/respond.ts';
import { HashSlots } from '../../src/core/hash-slots.ts';
import { isAppError } from '../../src/errors.ts';

function gate(): { promise: Promise<void>; open: () => void } {
  let open = () => {};
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

test('at most N hashes at once; guesses past their queue are refused at once; new passwords wait in their own queue and take turns', async () => {
  const slots = new HashSlots(1, 1);
  const order: string[] = [];
  const first = gate();
  const running = slots.guess(async () => {
    await first.promise;
    order.push('guess 1');
  });
  const waitingGuess = slots.guess(async () => order.push('guess 2'));
  const waitingGuess2 = slots.guess(async () => order.push('never'));
  await assert.rejects(waitingGuess2, (err) => isAppError(err) && err.code === 'PASSWORD_CHECKS_BUSY');
  const news = [slots.newPassword(async () => order.push('new 1')), slots.newPassword(async () => order.push('new 2'))];
  assert.deepEqual(slots.state, { running: 1, guesses: 1, news: 2 });
  first.open();
  await Promise.all([running, waitingGuess, ...news]);
  // After a guess, a new password; then the other guess; then the rest.
  assert.deepEqual(order, ['guess 1', 'new 1', 'guess 2', 'new 2']);
  assert.deepEqual(slots.state, { running: 0, guesses: 0, news: 0 });
});

test('a hash that fails frees its slot', async () => {
  const slots = new HashSlots(1, 0);
  await assert.rejects(
    slots.guess(async () => Promise.reject(new Error('boom'))),
    /boom/,
  );
  assert.equal(await slots.guess(async () => 42), 42);
});

test('attempts are reserved before they are judged, and a right one is given back', async () => {
  const budget = new AttemptBudget(new LocalCounter(10), 3, 60_000);
  const reserved = await Promise.all(Array.from({ length: 5 }, () => budget.take('client link')));
  assert.deepEqual(
    reserved.map((r) => r.ok),
    [true, true, true, false, false],
  );
  const refused = reserved[4];
  assert.ok(refused !== undefined && !refused.ok && refused.retryAfterSeconds > 0 && refused.retryAfterSeconds <= 60);
  await budget.giveBack('client link');
  assert.equal((await budget.take('client link')).ok, true);
  assert.equal((await budget.take('another link')).ok, true);
});

const link = (extra: Partial<Link>): Link => plainLink('abcdefg', 'https://example.com/a', extra);

test('a link whose Location would not be visible ASCII is never an answer the cache holds', () => {
  assert.equal(entryOf(link({}), 0), 'https://example.com/a');
  for (const url of [
    'https://example.com/\u010d\u010aset-cookie:x=1',
    'https://example.com/\r\nx:1',
    'https://example.com/é',
    'https://e.com/\x7f',
  ])
    assert.equal(entryOf(link({ url }), 0), ABSENT, JSON.stringify(url));
  const bad = 'https://example.com/\u010d\u010ax:1';
  for (const options of [
    { targets: [{ when: { device: ['ios' as const] }, url: bad }] },
    {
      split: [
        { url: bad, weight: 50 },
        { url: 'https://example.com/b', weight: 50 },
      ],
    },
    { deepLink: { ios: 'app://x\u010a' } },
  ])
    assert.equal(entryOf(link({ options }), 0), ABSENT, JSON.stringify(options));
  assert.ok(entryOf(link({ options: { targets: [{ when: { device: ['ios'] }, url: 'https://example.com/b' }] } }), 0) instanceof LinkRules);
});

test('a redirect that depends on who asks is private, whatever REDIRECT_CACHE_CONTROL says', () => {
  assert.equal(privateCacheControl('private, max-age=90'), 'private, max-age=90');
  assert.equal(privateCacheControl('no-store'), 'no-store');
  assert.equal(privateCacheControl('public, max-age=90'), 'private, max-age=90');
  assert.equal(privateCacheControl('max-age=90, s-maxage=600'), 'private, max-age=90');
  const rules = entryOf(link({ options: { preview: { title: 'T' }, passwordHash: 'scrypt$1$1$1$c2FsdA$a2V5' } }), 0) as LinkRules;
  assert.equal(rules.personal, true);
  assert.equal(rules.preview?.body.includes('example.com/a'), false, "a protected link's preview names no target");
  assert.ok(rules.preview?.head.includes('private, max-age=300') && rules.preview.head.includes('User-Agent'));
  assert.equal((entryOf(link({ options: { redirectStatus: 307 } }), 0) as LinkRules).personal, false);
});
