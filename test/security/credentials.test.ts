// Made-up credentials and readiness checks under abuse: a flood of random API keys or of /readyz
// costs a bounded number of queries and never opens the breaker of redirects and creates; on an
// https deployment only the __Host- cookie counts; a burst of sign-ins checks at most the limit's
// worth of keys; signing out clears a stale cookie; a key's sessions are bounded.
// Driven over HTTP and configuration only, and the statements counted by a window on the pools.

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import type { CreatedKey } from '../../src/auth/api-keys.ts';
import type { Queryable } from '../../src/db/pool.ts';
import { bearer, errorCode, startApp } from '../helpers/app.ts';
import { createTestDatabase, insertRawLinks, withClient, type TestDatabase } from '../helpers/db.ts';
import { keysWith } from '../helpers/workspaces.ts';

let database: TestDatabase;
let member: CreatedKey;
before(async () => {
  database = await createTestDatabase('security_credentials');
  ({ member } = await keysWith(database.url, { member: 'member' }));
});
after(async () => {
  await database.drop();
});

/** A window on every pool of the app that counts the statements whose text matches, and can make them fail or slow. */
function statementsLike(pattern: RegExp) {
  const counted = { n: 0, failing: false, delayMs: 0 };
  const wrapDb = (db: Queryable): Queryable => ({
    async query<R extends pg.QueryResultRow>(text: string, values?: unknown[]) {
      if (!pattern.test(text)) return db.query<R>(text, values);
      counted.n++;
      if (counted.failing) throw new Error('connection terminated unexpectedly');
      // A slow answer: every request of a burst arrives while the first look-up is in flight.
      if (counted.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, counted.delayMs));
      return db.query<R>(text, values);
    },
  });
  return { wrapDb, counted };
}

/** A key of the right shape that no one has. */
const madeUpKey = (): string => `sk_${randomBytes(32).toString('base64url')}`;
const KEY_LOOKUP = /FROM api_keys/;

function signIn(app: FastifyInstance, key: string, headers: Record<string, string> = {}) {
  return app.inject({ method: 'POST', url: '/auth/session', payload: { key }, headers });
}

/** The session cookie a sign-in set, as a browser sends it back: name=value. */
function cookieOf(res: { headers: Record<string, unknown> }): string {
  return String(res.headers['set-cookie']).split(';')[0] ?? '';
}

describe('made-up API keys', () => {
  test('a flood of random well-shaped keys from one address makes at most CREDENTIAL_LOOKUPS_PER_MINUTE queries, then 429 CREDENTIALS_RATE_LIMITED with Retry-After; another address is not held back', async (t) => {
    const { wrapDb, counted } = statementsLike(KEY_LOOKUP);
    const { app } = await startApp(t, database.url, { CREDENTIAL_LOOKUPS_PER_MINUTE: '30' }, { wrapDb });
    const answers = await Promise.all(
      Array.from({ length: 200 }, () =>
        app.inject({ url: '/links', headers: bearer({ secret: madeUpKey() }), remoteAddress: '203.0.113.7' }),
      ),
    );
    assert.ok(counted.n <= 30, `${counted.n} look-ups of keys for 200 made-up keys`);
    const statuses = new Map<string, number>();
    for (const res of answers) {
      const code = `${res.statusCode} ${errorCode(res)}`;
      statuses.set(code, (statuses.get(code) ?? 0) + 1);
      if (res.statusCode === 429) {
        const retryAfter = Number(res.headers['retry-after']);
        assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
      }
    }
    assert.deepEqual([...statuses.keys()].sort(), ['401 API_KEY_INVALID', '429 CREDENTIALS_RATE_LIMITED'], JSON.stringify([...statuses]));
    const flooded = counted.n;
    const bystander = await app.inject({ url: '/links', headers: bearer(member), remoteAddress: '198.51.100.9' });
    assert.equal(bystander.statusCode, 200, 'a real key from another address');
    assert.equal(counted.n, flooded + 1);
    const malformed = await app.inject({ url: '/links', headers: bearer({ secret: 'sk_short' }), remoteAddress: '203.0.113.8' });
    assert.equal(malformed.statusCode, 401);
    assert.equal(counted.n, flooded + 1, 'a malformed key costs no query');
  });

  test('100 requests at once with the same unknown key cost one query', async (t) => {
    const { wrapDb, counted } = statementsLike(KEY_LOOKUP);
    const { app } = await startApp(t, database.url, {}, { wrapDb });
    counted.delayMs = 300;
    const key = madeUpKey();
    const answers = await Promise.all(Array.from({ length: 100 }, () => app.inject({ url: '/links', headers: bearer({ secret: key }) })));
    assert.ok(
      answers.every((res) => res.statusCode === 401),
      'each one 401',
    );
    assert.equal(counted.n, 1, `${counted.n} look-ups of one key`);
  });

  test('look-ups of keys that fail never open the breaker of redirects and creates: a cold link still redirects', async (t) => {
    const { wrapDb, counted } = statementsLike(KEY_LOOKUP);
    const { app } = await startApp(t, database.url, { CREDENTIAL_LOOKUPS_PER_MINUTE: '30' }, { wrapDb });
    await insertRawLinks(database.url, ['cold-link']);
    counted.failing = true;
    const answers = await Promise.all(
      Array.from({ length: 60 }, () =>
        app.inject({ url: '/links', headers: bearer({ secret: madeUpKey() }), remoteAddress: '203.0.113.9' }),
      ),
    );
    assert.ok(
      answers.every((res) => res.statusCode === 503 || res.statusCode === 429),
      'each one 503 or 429',
    );
    assert.ok(counted.n >= 5, `the look-ups failed (${counted.n})`);
    assert.equal(app.breaker.state, 'closed', 'the breaker of redirects and creates');
    const redirect = await app.inject({ url: '/cold-link' });
    assert.equal(redirect.statusCode, 302, 'a link no cache has heard of, from Postgres');
    assert.equal(redirect.headers.location, 'https://example.com/cold-link');
  });
});

test('200 /readyz at once make at most 2 queries, and the answer is ready', async (t) => {
  const { wrapDb, counted } = statementsLike(/^SELECT 1$/);
  const { app } = await startApp(t, database.url, {}, { wrapDb });
  const answers = await Promise.all(Array.from({ length: 200 }, () => app.inject({ url: '/readyz' })));
  assert.ok(
    answers.every((res) => res.statusCode === 200),
    'each one ready',
  );
  assert.ok(counted.n <= 2, `${counted.n} readiness queries for 200 checks`);
});

test('on an https BASE_URL only the __Host- session cookie counts: the same token under the plain name is no session', async (t) => {
  const { app } = await startApp(t, database.url, { BASE_URL: 'https://sho.rt' });
  const signedIn = await signIn(app, member.secret);
  assert.equal(signedIn.statusCode, 200, signedIn.body);
  const token = cookieOf(signedIn).split('=')[1] ?? '';
  assert.equal((await app.inject({ url: '/auth/session', headers: { cookie: `__Host-shortener_session=${token}` } })).statusCode, 200);
  const plain = await app.inject({ url: '/auth/session', headers: { cookie: `shortener_session=${token}` } });
  assert.equal(plain.statusCode, 401, 'a plain-named cookie, as a sibling subdomain or plain HTTP could plant it');
  assert.equal(errorCode(plain), 'NOT_SIGNED_IN');
});

test('a burst of wrong sign-ins checks at most SIGN_IN_MAX_FAILURES keys: at most that many 401s, then 429 SIGN_IN_RATE_LIMITED', async (t) => {
  const { wrapDb, counted } = statementsLike(KEY_LOOKUP);
  const { app } = await startApp(t, database.url, { SIGN_IN_MAX_FAILURES: '5', SIGN_IN_WINDOW_SECONDS: '60' }, { wrapDb });
  const answers = await Promise.all(Array.from({ length: 40 }, () => signIn(app, madeUpKey(), {})));
  const unauthorized = answers.filter((res) => res.statusCode === 401).length;
  const limited = answers.filter((res) => res.statusCode === 429 && errorCode(res) === 'SIGN_IN_RATE_LIMITED').length;
  assert.ok(counted.n <= 5, `${counted.n} keys checked by 40 sign-ins at once`);
  assert.ok(unauthorized <= 5, `${unauthorized} 401s`);
  assert.equal(unauthorized + limited, 40);
});

test('right sign-ins give their reservation back: a colleague signing in often is never limited, and failures still are', async (t) => {
  const { app } = await startApp(t, database.url, { SIGN_IN_MAX_FAILURES: '3', SIGN_IN_WINDOW_SECONDS: '60' });
  for (let i = 0; i < 6; i++) assert.equal((await signIn(app, member.secret)).statusCode, 200, `right sign-in ${i + 1}`);
  const wrong = [];
  for (let i = 0; i < 4; i++) wrong.push((await signIn(app, madeUpKey(), {})).statusCode);
  assert.deepEqual(wrong, [401, 401, 401, 429]);
});

describe('signing out', () => {
  test('with an expired session, or a token no one has, signing out answers 204 and clears the cookie', async (t) => {
    const { app } = await startApp(t, database.url);
    const signedIn = await signIn(app, member.secret);
    assert.equal(signedIn.statusCode, 200, signedIn.body);
    const cookie = cookieOf(signedIn);
    const csrf = signedIn.json<{ csrfToken: string }>().csrfToken;
    await withClient(database.url, (client) =>
      client.query("UPDATE sessions SET expires_at = now() - interval '1 second' WHERE hash = sha256(convert_to($1, 'UTF8'))", [
        cookie.split('=')[1],
      ]),
    );
    const { app: fresh } = await startApp(t, database.url);
    for (const [what, headers] of [
      ['expired', { cookie, 'x-csrf-token': csrf }],
      ['unknown', { cookie: `__Host-shortener_session=${randomBytes(32).toString('base64url')}` }],
    ] as const) {
      const out = await fresh.inject({ method: 'DELETE', url: '/auth/session', headers });
      assert.equal(out.statusCode, 204, `${what}: ${out.body}`);
      assert.match(
        String(out.headers['set-cookie']),
        /^__Host-shortener_session=; Max-Age=0; Path=\/; HttpOnly; Secure; SameSite=Strict/,
        what,
      );
    }
  });
});

describe('sessions of a key', () => {
  test('signing in once more than SESSIONS_PER_KEY_MAX closes the oldest session, even where it was just used', async (t) => {
    const { app } = await startApp(t, database.url, { SESSIONS_PER_KEY_MAX: '3', SIGN_IN_MAX_FAILURES: '100' });
    const { bounded } = await keysWith(database.url, { bounded: 'member' });
    const cookies: string[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await signIn(app, bounded.secret);
      assert.equal(res.statusCode, 200, res.body);
      cookies.push(cookieOf(res));
      if (i === 0) assert.equal((await app.inject({ url: '/auth/session', headers: { cookie: cookies[0] ?? '' } })).statusCode, 200);
    }
    const oldest = await app.inject({ url: '/auth/session', headers: { cookie: cookies[0] ?? '' } });
    assert.equal(oldest.statusCode, 401, 'the oldest is closed');
    assert.equal(errorCode(oldest), 'SESSION_EXPIRED');
    for (const cookie of cookies.slice(1)) assert.equal((await app.inject({ url: '/auth/session', headers: { cookie } })).statusCode, 200);
    const open = async () =>
      (
        await withClient(database.url, (client) =>
          client.query<{ n: number }>('SELECT count(*)::int AS n FROM sessions WHERE key_id = $1', [bounded.id]),
        )
      ).rows[0]?.n;
    assert.equal(await open(), 3);
    const burst = await Promise.all(Array.from({ length: 10 }, () => signIn(app, bounded.secret)));
    assert.ok(burst.every((res) => res.statusCode === 200));
    assert.equal(await open(), 3, 'sign-ins at once leave at most the bound');
  });
});
