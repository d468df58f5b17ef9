// Dashboard sessions and the keys an admin manages: signing in with a key sets an HttpOnly,
// SameSite=Strict cookie (Secure and __Host- behind HTTPS) that acts as the key until it expires,
// is signed out, or the key is revoked; failed sign-ins are limited per address, in Redis across
// instances; a new key's secret is shown once; a workspace keeps an admin key.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { createApiKey, type CreatedKey } from '../../src/auth/api-keys.ts';
import { bearer, errorCode, startApp } from '../helpers/app.ts';
import { createTestDatabase, withClient, type TestDatabase } from '../helpers/db.ts';
import { keysWith } from '../helpers/workspaces.ts';
import { deleteKeys, randomPrefix, redisInUse, SHARED_REDIS_URL } from '../helpers/redis.ts';
import { until } from '../helpers/wait.ts';

const prefix = randomPrefix('sessions');
let database: TestDatabase;
let admin: CreatedKey;
let member: CreatedKey;
before(async () => {
  database = await createTestDatabase('sessions');
  ({ admin, member } = await keysWith(database.url, { admin: 'admin', member: 'member' }));
});
after(async () => {
  await deleteKeys(SHARED_REDIS_URL, prefix);
  await database.drop();
});

function signIn(app: FastifyInstance, key: string, headers: Record<string, string> = {}) {
  return app.inject({ method: 'POST', url: '/auth/session', payload: { key }, headers });
}

/** The cookie a sign-in set, as a browser sends it back. */
function cookieOf(res: { headers: Record<string, unknown> }): string {
  return String(res.headers['set-cookie']).split(';')[0] ?? '';
}

async function signedIn(app: FastifyInstance, key: CreatedKey): Promise<{ cookie: string; csrf: string }> {
  const res = await signIn(app, key.secret);
  assert.equal(res.statusCode, 200, res.body);
  return { cookie: cookieOf(res), csrf: res.json<{ csrfToken: string }>().csrfToken };
}

describe('signing in', () => {
  test('a key opens a session: an HttpOnly SameSite=Strict cookie for the whole site, Secure and __Host- behind HTTPS, that acts as the key; only its hash is stored', async (t) => {
    for (const [base, secure] of [
      ['https://sho.rt', true],
      ['http://127.0.0.1:3000', false],
    ] as const) {
      const { app } = await startApp(t, database.url, { BASE_URL: base, SESSION_TTL_HOURS: '2' });
      const signedAt = Date.now();
      const res = await signIn(app, ` ${member.secret} `);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.headers['cache-control'], 'no-store');
      const body = res.json<{ workspace: unknown; key: unknown; csrfToken: string; expiresAt: string }>();
      assert.deepEqual(body.workspace, { id: 1, name: 'Default' });
      assert.deepEqual(body.key, { id: member.id, name: 'member', role: 'member' });
      assert.match(body.csrfToken, /^[A-Za-z0-9_-]{43}$/);
      const expires = Date.parse(body.expiresAt) - signedAt;
      assert.ok(expires > 2 * 3_600_000 - 60_000 && expires <= 2 * 3_600_000 + 60_000, `expires in ${expires} ms`);
      const setCookie = String(res.headers['set-cookie']);
      const name = secure ? '__Host-shortener_session' : 'shortener_session';
      assert.match(
        setCookie,
        new RegExp(`^${name}=[A-Za-z0-9_-]{43}; Max-Age=7200; Path=/; HttpOnly;${secure ? ' Secure;' : ''} SameSite=Strict$`),
      );
      const token = cookieOf(res).split('=')[1] ?? '';
      assert.ok(!setCookie.includes(member.secret), 'the key itself is not in the cookie');
      const stored = await withClient(database.url, (client) =>
        client.query<{ n: number }>("SELECT count(*)::int AS n FROM sessions WHERE hash = sha256(convert_to($1, 'UTF8'))", [token]),
      );
      assert.equal(stored.rows[0]?.n, 1, 'the SHA-256 of the token is stored');
      const plain = await withClient(database.url, (client) =>
        client.query<{ n: number }>('SELECT count(*)::int AS n FROM sessions WHERE csrf_token = $1 OR encode(hash, $2) = $1', [
          token,
          'escape',
        ]),
      );
      assert.equal(plain.rows[0]?.n, 0, 'the token itself is stored nowhere');

      const who = await app.inject({ url: '/auth/session', headers: { cookie: cookieOf(res) } });
      assert.equal(who.statusCode, 200);
      assert.deepEqual(who.json(), body);
      const list = await app.inject({ url: '/links', headers: { cookie: cookieOf(res) } });
      assert.equal(list.statusCode, 200, 'the session acts as its key');
    }
  });

  test('without a cookie GET /auth/session is 401 NOT_SIGNED_IN; a stale cookie is 401 SESSION_EXPIRED, never anonymous, but does not stand in the way of signing in', async (t) => {
    const { app } = await startApp(t, database.url);
    const none = await app.inject({ url: '/auth/session' });
    assert.equal(none.statusCode, 401);
    assert.equal(errorCode(none), 'NOT_SIGNED_IN');
    for (const cookie of [`__Host-shortener_session=${'a'.repeat(43)}`, '__Host-shortener_session=short', '__Host-shortener_session=']) {
      const stale = await app.inject({ method: 'POST', url: '/links', headers: { cookie }, payload: { url: 'https://example.com/stale' } });
      assert.equal(stale.statusCode, 401, cookie);
      assert.equal(errorCode(stale), 'SESSION_EXPIRED', cookie);
    }
    const again = await signIn(app, member.secret, { cookie: `__Host-shortener_session=${'a'.repeat(43)}` });
    assert.equal(again.statusCode, 200);
  });

  test(`a wrong key is 401; past SIGN_IN_MAX_FAILURES an address gets 429 with Retry-After, even with the right key, while another address signs in; with Redis every instance counts the same failures`, async (t) => {
    const env = {
      SIGN_IN_MAX_FAILURES: '3',
      SIGN_IN_WINDOW_SECONDS: '60',
      TRUST_PROXY: 'loopback',
      REDIS_URL: SHARED_REDIS_URL,
      REDIS_KEY_PREFIX: prefix,
    };
    const { app: a } = await startApp(t, database.url, env);
    const { app: b } = await startApp(t, database.url, env);
    await until('A uses Redis', redisInUse(a));
    await until('B uses Redis', redisInUse(b));
    const from = (address: string) => ({ 'x-forwarded-for': address });
    const wrong = `sk_${'B'.repeat(43)}`;
    for (const [app, key] of [
      [a, wrong],
      [b, 'not a key'],
      [a, `${member.secret.slice(0, -1)}x`],
    ] as const) {
      const res = await signIn(app, key, from('203.0.113.7'));
      assert.equal(res.statusCode, 401, res.body);
      assert.equal(errorCode(res), 'API_KEY_INVALID');
    }
    for (const [app, key] of [
      [b, wrong],
      [a, member.secret],
    ] as const) {
      const limited = await signIn(app, key, from('203.0.113.7'));
      assert.equal(limited.statusCode, 429, limited.body);
      assert.equal(errorCode(limited), 'SIGN_IN_RATE_LIMITED');
      const retryAfter = Number(limited.headers['retry-after']);
      assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
    }
    assert.equal((await signIn(b, member.secret, from('198.51.100.9'))).statusCode, 200, 'another address signs in');
  });
});

describe('signing out, expiry and revocation', () => {
  test('signing out needs the CSRF token, clears the cookie and ends the session on every instance', async (t) => {
    const { app } = await startApp(t, database.url);
    const { app: other } = await startApp(t, database.url);
    const session = await signedIn(app, member);
    assert.equal((await other.inject({ url: '/auth/session', headers: { cookie: session.cookie } })).statusCode, 200);
    const forged = await app.inject({ method: 'DELETE', url: '/auth/session', headers: { cookie: session.cookie } });
    assert.equal(forged.statusCode, 403);
    assert.equal(errorCode(forged), 'CSRF_TOKEN_INVALID');
    const out = await app.inject({
      method: 'DELETE',
      url: '/auth/session',
      headers: { cookie: session.cookie, 'x-csrf-token': session.csrf },
    });
    assert.equal(out.statusCode, 204);
    assert.match(String(out.headers['set-cookie']), /^__Host-shortener_session=; Max-Age=0; Path=\/; HttpOnly; Secure; SameSite=Strict/);
    const afterwards = await app.inject({ url: '/auth/session', headers: { cookie: session.cookie } });
    assert.equal(afterwards.statusCode, 401, 'at once on the instance that signed out');
    assert.equal(errorCode(afterwards), 'SESSION_EXPIRED');
    // The other instance remembered the session for up to 10 s: a fresh one has not.
    const { app: fresh } = await startApp(t, database.url);
    assert.equal((await fresh.inject({ url: '/auth/session', headers: { cookie: session.cookie } })).statusCode, 401);
  });

  test('an expired session is refused', async (t) => {
    const { app } = await startApp(t, database.url);
    const session = await signedIn(app, member);
    await withClient(database.url, (client) =>
      client.query("UPDATE sessions SET expires_at = now() - interval '1 second' WHERE hash = sha256(convert_to($1, 'UTF8'))", [
        session.cookie.split('=')[1],
      ]),
    );
    const { app: fresh } = await startApp(t, database.url);
    const res = await fresh.inject({ url: '/links', headers: { cookie: session.cookie } });
    assert.equal(res.statusCode, 401);
    assert.equal(errorCode(res), 'SESSION_EXPIRED');
  });

  test('revoking a key ends its sessions at once on the instance that revoked it', async (t) => {
    const { app } = await startApp(t, database.url);
    const doomed = await withClient(database.url, (client) => createApiKey(client, { name: 'doomed', role: 'member' }));
    const session = await signedIn(app, doomed);
    assert.equal((await app.inject({ url: '/links', headers: { cookie: session.cookie } })).statusCode, 200);
    assert.equal((await app.inject({ method: 'DELETE', url: `/keys/${doomed.id}`, headers: bearer(admin) })).statusCode, 204);
    const res = await app.inject({ url: '/links', headers: { cookie: session.cookie } });
    assert.equal(res.statusCode, 401);
    assert.equal(errorCode(res), 'SESSION_EXPIRED');
    assert.equal((await app.inject({ url: '/links', headers: bearer(doomed) })).statusCode, 401, 'and the key itself');
    const left = await withClient(database.url, (client) =>
      client.query<{ n: number }>('SELECT count(*)::int AS n FROM sessions WHERE key_id = $1', [doomed.id]),
    );
    assert.equal(left.rows[0]?.n, 0, 'its sessions are deleted');
  });
});

describe('keys', () => {
  test('an admin creates a key with a role, its secret shown once and working at once; the list never shows a secret', async (t) => {
    const { app } = await startApp(t, database.url);
    const made = await app.inject({
      method: 'POST',
      url: '/keys',
      headers: bearer(admin),
      payload: { name: '  newsletter  ', role: 'viewer' },
    });
    assert.equal(made.statusCode, 201, made.body);
    assert.equal(made.headers['cache-control'], 'no-store');
    const key = made.json<{ id: number; name: string; role: string; key: string; revokedAt: null }>();
    assert.equal(key.name, 'newsletter');
    assert.equal(key.role, 'viewer');
    assert.match(key.key, /^sk_[A-Za-z0-9_-]{43}$/);
    assert.equal((await app.inject({ url: '/links', headers: { authorization: `Bearer ${key.key}` } })).statusCode, 200);
    const list = await app.inject({ url: '/keys', headers: bearer(admin) });
    assert.equal(list.statusCode, 200);
    assert.ok(!list.body.includes(key.key), 'the secret is never listed');
    const listed = list.json<{ keys: { id: number; name: string; role: string }[] }>().keys;
    assert.deepEqual(
      listed.find((k) => k.id === key.id),
      {
        id: key.id,
        name: 'newsletter',
        role: 'viewer',
        owner: null,
        createdAt: made.json<{ createdAt: string }>().createdAt,
        revokedAt: null,
      },
    );
    for (const payload of [
      { name: '', role: 'viewer' },
      { name: 'x'.repeat(101), role: 'viewer' },
      { name: 'a\u0007b', role: 'viewer' },
      { name: 'x', role: 'owner' },
      { name: 'x' },
    ]) {
      const bad = await app.inject({ method: 'POST', url: '/keys', headers: bearer(admin), payload });
      assert.equal(bad.statusCode, 400, JSON.stringify(payload));
      assert.equal(errorCode(bad), 'BODY_INVALID');
    }
  });

  test('revoking: an unknown or malformed id is 404 KEY_NOT_FOUND; the last admin key is 409 LAST_ADMIN_KEY until there is another', async (t) => {
    const { app } = await startApp(t, database.url);
    for (const id of ['999999', 'abc', '1'.repeat(20)]) {
      const res = await app.inject({ method: 'DELETE', url: `/keys/${id}`, headers: bearer(admin) });
      assert.equal(res.statusCode, 404, id);
      assert.equal(errorCode(res), 'KEY_NOT_FOUND', id);
    }
    const last = await app.inject({ method: 'DELETE', url: `/keys/${admin.id}`, headers: bearer(admin) });
    assert.equal(last.statusCode, 409);
    assert.equal(errorCode(last), 'LAST_ADMIN_KEY');
    const second = (
      await app.inject({ method: 'POST', url: '/keys', headers: bearer(admin), payload: { name: 'second admin', role: 'admin' } })
    ).json<{
      id: number;
      key: string;
    }>();
    assert.equal((await app.inject({ method: 'DELETE', url: `/keys/${second.id}`, headers: bearer(admin) })).statusCode, 204);
    assert.equal(
      (await app.inject({ method: 'DELETE', url: `/keys/${second.id}`, headers: bearer(admin) })).statusCode,
      404,
      'revoked already',
    );
  });
});
