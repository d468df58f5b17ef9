// POST /links then GET /:code, end to end on a real Postgres, through inject() and a real socket.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createLink, startApp, startCountedApp, TEST_BASE_URL } from '../helpers/app.ts';
import { createTestDatabase, withClient, type TestDatabase } from '../helpers/db.ts';

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase('create_redirect');
});
after(() => database.drop());

describe('create, then redirect', () => {
  test('a created link redirects with exactly location, cache-control and content-length', async (t) => {
    const { app, lookups } = await startCountedApp(t, database.url);
    const created = await createLink(app, { url: 'HTTPS://Example.COM/a b?q=1#top' });
    assert.equal(created.status, 201);
    const code = created.body.code as string;
    assert.match(code, /^[0-9A-Za-z]{7}$/);
    assert.deepEqual(created.body, {
      code,
      domain: 'sho.rt',
      shortUrl: `${TEST_BASE_URL}/${code}`,
      url: 'https://example.com/a%20b?q=1#top',
      expiresAt: null,
      startsAt: null,
      title: null,
      tags: [],
      options: null,
    });
    assert.equal(created.headers.location, `${TEST_BASE_URL}/${code}`);

    // The create put the link in the LRU; the LRU cleared, the next answer comes from Postgres,
    // and the one after from the LRU again: all three the same bare 302.
    for (const [round, lookedUp] of [
      ['filled by the create', 0],
      ['from Postgres', 1],
      ['from the LRU', 1],
    ] as const) {
      if (round === 'from Postgres') app.cache.reset();
      const res = await app.inject({ method: 'GET', url: `/${code}` });
      assert.equal(lookups(), lookedUp, round);
      assert.equal(res.statusCode, 302);
      assert.equal(res.body, '');
      const names = Object.keys(res.headers)
        .filter((h) => h !== 'connection' && h !== 'keep-alive')
        .sort();
      assert.deepEqual(names, ['cache-control', 'content-length', 'location'], round);
      assert.equal(res.headers.location, 'https://example.com/a%20b?q=1#top');
      assert.equal(res.headers['content-length'], '0');
      assert.equal(res.headers['cache-control'], 'private, max-age=90');
    }
  });

  test('through a real socket, the redirect head is the prebuilt one and nothing else', async (t) => {
    const { app, lookups } = await startCountedApp(t, database.url);
    const created = await createLink(app, { url: 'https://example.org/socket', alias: 'via-socket' });
    assert.equal(created.status, 201);
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    // An LRU hit, then the answer written after a lookup (the LRU cleared before each).
    for (const [round, method, lookedUp] of [
      ['from the LRU', 'GET', 0],
      ['from the LRU', 'HEAD', 0],
      ['from Postgres', 'GET', 1],
      ['from Postgres', 'HEAD', 2],
    ] as const) {
      if (round === 'from Postgres') app.cache.reset();
      const res = await fetch(`${address}/via-socket`, { method, redirect: 'manual' });
      assert.equal(lookups(), lookedUp, `${method} ${round}`);
      assert.equal(res.status, 302);
      assert.equal(await res.text(), '');
      const names = [...res.headers.keys()].filter((h) => h !== 'connection' && h !== 'keep-alive').sort();
      assert.deepEqual(names, ['cache-control', 'content-length', 'location'], `${method} ${round}`);
      assert.equal(res.headers.get('location'), 'https://example.org/socket');
    }
    const created2 = await fetch(`${address}/links`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: 'https://example.org/over-socket' }),
    });
    assert.equal(created2.status, 201);
    const { code } = (await created2.json()) as { code: string };
    const res = await fetch(`${address}/${code}`, { redirect: 'manual' });
    assert.equal(res.headers.get('location'), 'https://example.org/over-socket');
  });

  test('an alias redirects, and a taken alias answers 409 ALIAS_TAKEN', async (t) => {
    const { app } = await startApp(t, database.url);
    assert.equal((await createLink(app, { url: 'https://example.com/1', alias: 'Spring_Sale-2026' })).status, 201);
    const again = await createLink(app, { url: 'https://example.com/2', alias: 'Spring_Sale-2026' });
    assert.equal(again.status, 409);
    assert.deepEqual(again.body, { error: { code: 'ALIAS_TAKEN', message: 'This alias is already taken.' } });
    const res = await app.inject({ method: 'GET', url: '/Spring_Sale-2026' });
    assert.equal(res.headers.location, 'https://example.com/1');
    // Codes are case-sensitive.
    assert.equal((await app.inject({ method: 'GET', url: '/spring_sale-2026' })).statusCode, 404);
  });

  test('expiresAt is stored and returned', async (t) => {
    const { app, pool } = await startApp(t, database.url);
    const expiresAt = new Date(Date.now() + 3600_000).toISOString();
    const created = await createLink(app, { url: 'https://example.com/exp', expiresAt });
    assert.equal(created.status, 201);
    assert.equal(created.body.expiresAt, expiresAt);
    const { rows } = await pool.query<{ expires_at: Date }>('SELECT expires_at FROM links WHERE code = $1', [created.body.code]);
    assert.equal(rows[0]?.expires_at.toISOString(), expiresAt);
  });
});

describe('codes that do not redirect', () => {
  test('an unknown code answers 404 LINK_NOT_FOUND; so does an impossible one, and HEAD like GET', async (t) => {
    const { app } = await startApp(t, database.url);
    for (const path of [
      '/Zz9Zz9Z',
      '/no',
      `/${'a'.repeat(65)}`,
      `/${'a'.repeat(300)}`,
      '/a.b',
      '/%2e%2e%2fetc',
      '/admin',
      '/Docs',
      '/a%00b',
      '/%E0%A4%A',
    ]) {
      for (const method of ['GET', 'HEAD'] as const) {
        const res = await app.inject({ method, url: path });
        assert.equal(res.statusCode, 404, `${method} ${path}`);
        if (method === 'GET') {
          assert.equal(res.json<{ error: { code: string } }>().error.code, 'LINK_NOT_FOUND', path);
        }
        if (method === 'HEAD') assert.equal(res.body, '');
      }
    }
  });

  test('an expired link and a disabled link answer 410, and HEAD answers like GET', async (t) => {
    const { app } = await startApp(t, database.url);
    await withClient(database.url, (client) =>
      client.query(
        `INSERT INTO links (code, url, expires_at, disabled) VALUES
          ('was-valid', 'https://example.com/old', now() - interval '1 minute', false),
          ('switched-off', 'https://example.com/off', NULL, true)`,
      ),
    );
    for (const [path, code] of [
      ['/was-valid', 'LINK_EXPIRED'],
      ['/switched-off', 'LINK_DISABLED'],
    ] as const) {
      for (let round = 0; round < 2; round++) {
        const res = await app.inject({ method: 'GET', url: path });
        assert.equal(res.statusCode, 410);
        assert.equal(res.json<{ error: { code: string } }>().error.code, code);
        const head = await app.inject({ method: 'HEAD', url: path });
        assert.equal(head.statusCode, 410);
        assert.equal(head.body, '');
      }
    }
  });

  test('a link leaves the cache when it expires and then answers 410', async (t) => {
    const { app, lookups } = await startCountedApp(t, database.url);
    const created = await createLink(app, { url: 'https://example.com/short-lived', expiresAt: new Date(Date.now() + 2500).toISOString() });
    assert.equal(created.status, 201);
    assert.equal((await app.inject({ url: `/${created.body.code as string}` })).statusCode, 302);
    assert.equal(lookups(), 0, 'answered from the LRU, which the create filled');
    await new Promise((resolve) => setTimeout(resolve, 2600));
    assert.equal((await app.inject({ url: `/${created.body.code as string}` })).statusCode, 410);
    assert.equal(lookups(), 1, 'the expired link had left the LRU, and was looked up again');
  });
});
