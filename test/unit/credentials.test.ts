// What a look-up of a key or session costs (src/auth/credentials.ts), with a store that counts:
// a credential seen good spends no budget when it is looked up again; an unknown one spends one
// before its query, and none once its client is out of budget; one in flight is shared.

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { LocalCounter } from '../../src/api/counters.ts';
import { hashSecret } from '../../src/auth/api-keys.ts';
import { Credentials, lookupBudget } from '../../src/auth/credentials.ts';
import type { Principal } from '../../src/auth/roles.ts';
import type { Session } from '../../src/auth/sessions.ts';

const secret = (): string => `sk_${randomBytes(32).toString('base64url')}`;

function countingStore(good: ReadonlySet<string>) {
  const asked: string[] = [];
  let release: () => void = () => {};
  let held: Promise<void> | null = null;
  const store = {
    async activeKey(key: string): Promise<Principal | undefined> {
      asked.push(key);
      if (held !== null) await held;
      return good.has(key) ? { id: 1, name: 'k', role: 'member', workspaceId: 1, personId: null } : undefined;
    },
    async session(token: string): Promise<Session | undefined> {
      asked.push(token);
      return undefined;
    },
  };
  return {
    store,
    asked,
    hold: () => {
      held = new Promise((resolve) => {
        release = resolve;
      });
    },
    release: () => {
      held = null;
      release();
    },
  };
}

test('a key seen good is looked up again without spending its client’s budget; unknown ones spend it, then get a wait and no query', async () => {
  const known = secret();
  const { store, asked } = countingStore(new Set([known]));
  const credentials = new Credentials(store, lookupBudget(new LocalCounter(100), 3));
  assert.deepEqual(await credentials.key(known, 'a'), { found: { id: 1, name: 'k', role: 'member', workspaceId: 1, personId: null } });
  for (let i = 0; i < 5; i++) {
    credentials.forgetAll(); // as a revocation here does: the key is asked for again
    assert.ok('found' in (await credentials.key(known, 'a')));
  }
  assert.equal(asked.length, 6);
  assert.deepEqual(await credentials.key(secret(), 'a'), { found: false });
  assert.deepEqual(await credentials.key(secret(), 'a'), { found: false });
  const limited = await credentials.key(secret(), 'a');
  assert.ok('retryAfterMs' in limited && limited.retryAfterMs > 0 && limited.retryAfterMs <= 60_000, JSON.stringify(limited));
  assert.equal(asked.length, 8, 'no query past the budget');
  assert.deepEqual(await credentials.key(secret(), 'b'), { found: false }, 'another client has its own budget');
  credentials.forgetAll();
  assert.ok('found' in (await credentials.key(known, 'a')), 'a good key from a client out of budget');
});

test('malformed secrets cost nothing; an answer is remembered; look-ups of one secret in flight share one query and one unit of budget', async () => {
  const { store, asked, hold, release } = countingStore(new Set());
  const credentials = new Credentials(store, lookupBudget(new LocalCounter(100), 2));
  assert.deepEqual(await credentials.key('sk_short', 'a'), { found: false });
  assert.deepEqual(await credentials.session('not a token', 'a'), { found: false });
  assert.equal(asked.length, 0);
  const unknown = secret();
  hold();
  const all = Promise.all(Array.from({ length: 50 }, () => credentials.key(unknown, 'a')));
  await new Promise((resolve) => setImmediate(resolve));
  release();
  assert.ok((await all).every((lookup) => 'found' in lookup && lookup.found === false));
  assert.equal(asked.length, 1);
  assert.deepEqual(await credentials.key(unknown, 'a'), { found: false }, 'remembered');
  assert.equal(asked.length, 1);
  assert.deepEqual(await credentials.key(secret(), 'a'), { found: false }, 'one unit of the budget of 2 is left');
});

test('sessions closed to keep a key’s bound are forgotten by their stored hash', async () => {
  let live = true;
  const token = randomBytes(32).toString('base64url');
  const session: Session = {
    key: { id: 1, name: 'k', role: 'member', workspaceId: 1, personId: null },
    workspaceName: 'w',
    csrfToken: 'c',
    expiresAt: new Date(Date.now() + 60_000),
    personId: null,
    publicId: null,
    methods: [],
    requires: { sso: false, secondFactor: false },
  };
  const credentials = new Credentials(
    { activeKey: () => Promise.resolve(undefined), session: () => Promise.resolve(live ? session : undefined) },
    null,
  );
  assert.deepEqual(await credentials.session(token, 'a'), { found: session });
  live = false;
  assert.deepEqual(await credentials.session(token, 'a'), { found: session }, 'remembered');
  credentials.forgetSessionHashes([hashSecret(token)]);
  assert.deepEqual(await credentials.session(token, 'a'), { found: false });
});
