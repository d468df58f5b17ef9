// Link management with API keys: who may do what, changes and deletions seen by every instance,
// bulk creates answered per item, and creates that are safe to retry (Idempotency-Key).

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { createApiKey, revokeApiKey } from '../../src/auth/api-keys.ts';
import { redisLinkKey } from '../../src/redis/entries.ts';
import { startApp, startCountedApp, type Cleanup } from '../helpers/app.ts';
import { createTestDatabase, insertRawLinks, withClient, type TestDatabase } from '../helpers/db.ts';
import { deleteKeys, randomPrefix, redisInUse, SHARED_REDIS_URL, startMonitor, withRedis } from '../helpers/redis.ts';
import { compileCacheEnv } from '../helpers/server-process.ts';
import { TcpProxy, throughProxy } from '../helpers/tcp-proxy.ts';
import { until } from '../helpers/wait.ts';

const prefix = randomPrefix('manage');
let database: TestDatabase;
let alice: string;
before(async () => {
  database = await createTestDatabase('manage');
  await withClient(database.url, async (client) => {
    alice = (await createApiKey(client, { name: 'alice' })).secret;
  });
});
after(async () => {
  await deleteKeys(SHARED_REDIS_URL, prefix);
  await database.drop();
});

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const errorCode = (res: { json: () => unknown }) => (res.json() as { error?: { code: string } }).error?.code;

async function instance(t: Cleanup, env: Record<string, string> = {}): Promise<FastifyInstance> {
  const { app } = await startApp(t, database.url, { REDIS_URL: SHARED_REDIS_URL, REDIS_KEY_PREFIX: prefix, ...env });
  await until('invalidations heard', redisInUse(app));
  return app;
}

async function create(app: FastifyInstance, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  const res = await app.inject({ method: 'POST', url: '/links', payload: body, headers });
  return { status: res.statusCode, body: res.json<Record<string, unknown>>(), headers: res.headers };
}

describe('API keys', () => {
  test('a revoked key is refused by an instance that never saw it; CREATE_REQUIRES_API_KEY refuses anonymous creates', async (t) => {
    const { secret, id } = await withClient(database.url, (client) => createApiKey(client, { name: 'short-lived' }));
    const app = await instance(t, { CREATE_REQUIRES_API_KEY: 'true' });
    assert.equal((await create(app, { url: 'https://example.com/a' })).status, 401);
    assert.equal((await create(app, { url: 'https://example.com/a' }, bearer(secret))).status, 201);
    await withClient(database.url, (client) => revokeApiKey(client, id));
    const fresh = await instance(t);
    const refused = await create(fresh, { url: 'https://example.com/b' }, bearer(secret));
    assert.equal(refused.status, 401);
    assert.equal(refused.body.error && (refused.body.error as { code: string }).code, 'API_KEY_INVALID');
  });

  test('npm run keys: keys with roles in workspaces, printed once; list, role, revoke (never the last admin), workspaces', async () => {
    const run = (...args: string[]) =>
      promisify(execFile)(process.execPath, ['scripts/keys.ts', ...args], {
        env: { PATH: process.env.PATH ?? '', ...compileCacheEnv(), DATABASE_URL: database.url, LOG_LEVEL: 'warn' },
      });
    const refused = (code: number, pattern: RegExp) => (err: { code?: number; stderr?: string }) =>
      err.code === code && pattern.test(err.stderr ?? '');
    const created = JSON.parse((await run('create', 'ci bot')).stdout) as { id: number; name: string; role: string; key: string };
    assert.equal(created.name, 'ci bot');
    assert.equal(created.role, 'member', 'a member of the default workspace unless told');
    assert.match(created.key, /^sk_[A-Za-z0-9_-]{43}$/);
    const listed = (await run('list')).stdout;
    assert.match(listed, /"name":"ci bot","role":"member","workspaceId":1/);
    assert.ok(!listed.includes(created.key), 'the secret is never shown again');
    assert.match((await run('revoke', String(created.id))).stdout, /revoked/);
    assert.match(
      (await run('list')).stdout,
      new RegExp(`"id":${created.id},"name":"ci bot","role":"member","workspaceId":1,"createdAt":"[^"]+","revokedAt":"`),
    );

    const workspace = JSON.parse((await run('workspace', 'Marketing')).stdout) as { id: number; name: string };
    assert.equal(workspace.name, 'Marketing');
    await assert.rejects(run('workspace', 'Marketing'), refused(1, /already/));
    const boss = JSON.parse((await run('create', 'boss', '--role', 'admin', '--workspace', 'Marketing')).stdout) as { id: number };
    const intern = JSON.parse((await run('create', 'intern', '--role', 'viewer', '--workspace', String(workspace.id))).stdout) as {
      id: number;
    };
    const marketing = (await run('list', '--workspace', 'Marketing')).stdout.trim().split('\n');
    assert.deepEqual(
      marketing.map((line) => (JSON.parse(line) as { name: string; role: string }).name),
      ['boss', 'intern'],
      'list --workspace shows that workspace alone',
    );
    assert.match((await run('role', String(intern.id), 'member')).stdout, /now member/);
    await assert.rejects(run('revoke', String(boss.id)), refused(1, /last admin key/));
    assert.match((await run('workspaces')).stdout, new RegExp(`"id":${workspace.id},"name":"Marketing","keys":2,"links":0`));
    await assert.rejects(run('create', 'x', '--role', 'owner'), refused(64, /--role must be one of admin, member, viewer/));
    await assert.rejects(run('create', 'x', '--workspace', 'Nowhere'), refused(1, /no workspace "Nowhere"/));
    await assert.rejects(run('create', 'x', '--colour', 'red'), refused(64, /usage/));
    await assert.rejects(run('rotate'), refused(64, /usage/));
  });
});

describe('management', () => {
  test('a change and a deletion on A: in Redis and published before the answer, followed by B at once; a new instance reads the tombstone from Redis; the code is never reused', async (t) => {
    // A talks to Redis through a proxy that can hold its commands: an acknowledgement that did not
    // wait for Redis would come back before Redis has the change. Held for less than the command
    // timeout: a Redis slower than that is left behind, and told later (test/redis-tier).
    const HOLD_MS = 300;
    const redis = new URL(SHARED_REDIS_URL);
    const proxy = new TcpProxy(redis.hostname, Number(redis.port || 6379));
    await proxy.up();
    t.after(() => proxy.down());
    const a = await instance(t, { REDIS_URL: throughProxy(SHARED_REDIS_URL, proxy), REDIS_COMMAND_TIMEOUT_MS: String(HOLD_MS * 10) });
    const b = await instance(t);
    const monitor = await startMonitor(SHARED_REDIS_URL, prefix);
    t.after(async () => monitor.stop());
    const made = await create(a, { url: 'https://example.com/v1', alias: 'managed-1' }, bearer(alice));
    assert.equal(made.status, 201);
    assert.equal((await b.inject({ url: '/managed-1' })).headers.location, 'https://example.com/v1', 'B has v1 in its LRU');

    /**
     * Runs `request` on A with every command A sends Redis held for HOLD_MS, and checks what Redis
     * has once it is answered: the `stored` value (entries.ts: state letter, version, expiry, URL),
     * and the invalidation of the code, published.
     */
    const acknowledged = async (request: InjectOptions, stored: RegExp, what: string) => {
      monitor.clear();
      proxy.delayRequest = () => HOLD_MS;
      const started = performance.now();
      const res = await a.inject({ ...request, headers: bearer(alice) });
      const ms = performance.now() - started;
      // At once, without polling, while what A sends now is still held: the state at the acknowledgement.
      const value = await withRedis(SHARED_REDIS_URL, (client) => client.get(redisLinkKey(prefix, 'managed-1')));
      await monitor.settle();
      proxy.delayRequest = () => 0;
      assert.match(value ?? '(none)', stored, what);
      const told = monitor.commands('publish').filter((command) => (command.args[1] ?? '').split(' ').slice(2).includes('managed-1'));
      assert.equal(told.length, 1, `${what}, and every instance was told`);
      assert.ok(ms >= HOLD_MS, `the answer waited for Redis (${Math.round(ms)} ms)`);
      return res;
    };
    // B hears the change in one pub/sub delivery; a lost one would be noticed at a heartbeat, a second or two later.
    const FOLLOW_MS = 500;

    const patched = await acknowledged(
      { method: 'PATCH', url: '/links/managed-1', payload: { url: 'https://example.com/v2' } },
      /^a[1-9]\d*\. https:\/\/example\.com\/v2$/,
      'Redis holds the change',
    );
    assert.equal(patched.statusCode, 200);
    assert.equal(patched.json<{ url: string }>().url, 'https://example.com/v2');
    assert.equal((await a.inject({ url: '/managed-1' })).headers.location, 'https://example.com/v2', 'A follows at once');
    await until(
      'B follows the change',
      async () => (await b.inject({ url: '/managed-1' })).headers.location === 'https://example.com/v2',
      FOLLOW_MS,
    );

    const disabled = await acknowledged(
      { method: 'PATCH', url: '/links/managed-1', payload: { disabled: true } },
      /^d\d+\. https:\/\/example\.com\/v2$/,
      'Redis holds the disabled link',
    );
    assert.equal(disabled.json<{ disabled: boolean }>().disabled, true);
    assert.equal((await a.inject({ url: '/managed-1' })).statusCode, 410, 'A answers 410 at once');
    await until('B answers 410', async () => (await b.inject({ url: '/managed-1' })).statusCode === 410, FOLLOW_MS);

    const deleted = await acknowledged({ method: 'DELETE', url: '/links/managed-1' }, /^x\d+\. /, 'Redis holds a tombstone');
    assert.equal(deleted.statusCode, 204);
    assert.equal((await a.inject({ url: '/managed-1' })).statusCode, 404, 'A answers 404 at once');
    await until('B answers 404', async () => (await b.inject({ url: '/managed-1' })).statusCode === 404, FOLLOW_MS);

    // A new instance, which never heard of the link: the 404 is Redis's tombstone, not a lookup.
    const c = await startCountedApp(t, database.url, { REDIS_URL: SHARED_REDIS_URL, REDIS_KEY_PREFIX: prefix });
    await until('C uses Redis', redisInUse(c.app));
    const counts = c.app.lookupCounts;
    assert.ok(counts !== null);
    assert.equal((await c.app.inject({ url: '/managed-1' })).statusCode, 404);
    assert.equal(counts.redisHits, 1, 'answered by Redis');
    assert.equal(c.lookups(), 0, 'without a lookup in Postgres');
    // A link Redis has not heard of is looked up: the count would have seen one.
    await insertRawLinks(database.url, ['managed-raw']);
    assert.equal((await c.app.inject({ url: '/managed-raw' })).statusCode, 302);
    assert.equal(c.lookups(), 1);

    assert.equal((await a.inject({ url: '/links/managed-1', headers: bearer(alice) })).statusCode, 404);
    assert.equal((await a.inject({ method: 'DELETE', url: '/links/managed-1', headers: bearer(alice) })).statusCode, 404);
    const again = await create(a, { url: 'https://example.com/reuse', alias: 'managed-1' }, bearer(alice));
    assert.equal(again.status, 409, 'a deleted code is never handed out again');
  });

  test('PATCH checks what it changes as a create does', async (t) => {
    const app = await instance(t);
    const code = (await create(app, { url: 'https://example.com/p' }, bearer(alice))).body.code as string;
    const patch = (payload: unknown) =>
      app.inject({ method: 'PATCH', url: `/links/${code}`, headers: bearer(alice), payload: payload as object });
    const cases: [unknown, number, string][] = [
      [{}, 400, 'BODY_INVALID'],
      [{ url: 'javascript:alert(1)' }, 400, 'URL_SCHEME_NOT_ALLOWED'],
      [{ url: 'http://127.0.0.1/' }, 400, 'URL_PRIVATE_ADDRESS'],
      [{ expiresAt: '2001-01-01T00:00:00Z' }, 400, 'EXPIRES_AT_IN_PAST'],
      [{ expiresAt: 'soon' }, 400, 'EXPIRES_AT_INVALID'],
      [{ expiresAt: '2999-01-01T00:00:00Z' }, 400, 'EXPIRES_AT_INVALID'],
      [{ disabled: 'yes' }, 400, 'BODY_INVALID'],
      [{ owner: 'me' }, 400, 'BODY_INVALID'],
    ];
    for (const [payload, status, codeName] of cases) {
      const res = await patch(payload);
      assert.equal(res.statusCode, status, JSON.stringify(payload));
      assert.equal(errorCode(res), codeName, JSON.stringify(payload));
    }
    const later = new Date(Date.now() + 86_400_000).toISOString();
    assert.equal((await patch({ expiresAt: later })).json<{ expiresAt: string }>().expiresAt, later);
    assert.equal((await patch({ expiresAt: null })).json<{ expiresAt: null }>().expiresAt, null);
    assert.equal((await app.inject({ url: `/${code}` })).headers.location, 'https://example.com/p');
  });
});

describe('stats', () => {
  test('totals and every day of the range, zero-filled; a bad range is a 400', async (t) => {
    const app = await instance(t);
    const code = (await create(app, { url: 'https://example.com/counted' }, bearer(alice))).body.code as string;
    await withClient(database.url, (client) =>
      client
        .query('UPDATE link_totals SET clicks = 7, bot_clicks = 2 WHERE code = $1', [code])
        .then(() =>
          client.query(
            `INSERT INTO link_clicks_daily (code, day, clicks, bot_clicks) VALUES ($1, '2026-03-01', 5, 2), ($1, '2026-03-03', 2, 0)`,
            [code],
          ),
        ),
    );
    const res = await app.inject({ url: `/links/${code}/stats?from=2026-03-01&to=2026-03-04`, headers: bearer(alice) });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), {
      code,
      from: '2026-03-01',
      to: '2026-03-04',
      total: { clicks: 7, botClicks: 2 },
      // No rollups were written by hand: no visitors.
      range: { clicks: 7, botClicks: 2, visitors: 0 },
      daily: [
        { day: '2026-03-01', clicks: 5, botClicks: 2, visitors: 0 },
        { day: '2026-03-02', clicks: 0, botClicks: 0, visitors: 0 },
        { day: '2026-03-03', clicks: 2, botClicks: 0, visitors: 0 },
        { day: '2026-03-04', clicks: 0, botClicks: 0, visitors: 0 },
      ],
      dimensions: {},
      visitorsError: 1.04 / 64,
    });
    const byDefault = await app.inject({ url: `/links/${code}/stats`, headers: bearer(alice) });
    assert.equal(byDefault.json<{ daily: unknown[] }>().daily.length, 30);
    for (const query of ['from=2026-03-05&to=2026-03-01', 'from=2026-02-30', 'from=2024-01-01&to=2026-01-01', 'from=yesterday']) {
      const bad = await app.inject({ url: `/links/${code}/stats?${query}`, headers: bearer(alice) });
      assert.equal(bad.statusCode, 400, query);
      assert.equal(errorCode(bad), 'STATS_RANGE_INVALID', query);
    }
    // A parameter the route does not know is the route's own error too (README), named in the message.
    const unknown = await app.inject({ url: `/links/${code}/stats?days=7`, headers: bearer(alice) });
    assert.equal(unknown.statusCode, 400);
    assert.equal(errorCode(unknown), 'STATS_QUERY_INVALID');
    assert.match(unknown.json<{ error: { message: string } }>().error.message, /querystring has an unknown field "days"/);
  });
});

describe('bulk creates', () => {
  test('each item answered on its own, in order; the good ones committed', async (t) => {
    const app = await instance(t);
    const items = [
      { url: 'https://example.com/bulk/0' },
      { url: 'javascript:alert(1)' },
      { url: 'https://example.com/bulk/2', alias: 'bulk-alias' },
      { url: 'https://example.com/bulk/3', alias: 'bulk-alias' },
      { url: 'http://10.0.0.1/' },
      { url: 'https://example.com/bulk/5', expiresAt: '2001-01-01T00:00:00Z' },
      { url: 'https://example.com/bulk/6' },
    ];
    const res = await app.inject({ method: 'POST', url: '/links/bulk', headers: bearer(alice), payload: { links: items } });
    assert.equal(res.statusCode, 200);
    const body = res.json<{
      created: number;
      failed: number;
      results: { index: number; status: number; link?: { code: string; url: string }; error?: { code: string } }[];
    }>();
    assert.deepEqual(
      body.results.map((r) => [r.index, r.status, r.error?.code ?? r.link?.url]),
      [
        [0, 201, 'https://example.com/bulk/0'],
        [1, 400, 'URL_SCHEME_NOT_ALLOWED'],
        [2, 201, 'https://example.com/bulk/2'],
        [3, 409, 'ALIAS_TAKEN'],
        [4, 400, 'URL_PRIVATE_ADDRESS'],
        [5, 400, 'EXPIRES_AT_IN_PAST'],
        [6, 201, 'https://example.com/bulk/6'],
      ],
    );
    assert.equal(body.created, 3);
    assert.equal(body.failed, 4);
    for (const r of body.results.filter((result) => result.status === 201)) {
      assert.equal((await app.inject({ url: `/${r.link?.code ?? ''}` })).headers.location, r.link?.url);
      assert.equal((await app.inject({ url: `/links/${r.link?.code ?? ''}`, headers: bearer(alice) })).statusCode, 200, 'owned by the key');
    }
  });

  test('1000 items in one request; 1001 or none is refused whole', async (t) => {
    const app = await instance(t);
    const links = Array.from({ length: 1000 }, (_, i) => ({ url: `https://example.com/many/${i}` }));
    const res = await app.inject({ method: 'POST', url: '/links/bulk', payload: { links } });
    assert.equal(res.statusCode, 200);
    const body = res.json<{ created: number; results: { status: number; link?: { code: string } }[] }>();
    assert.equal(body.created, 1000);
    assert.equal(new Set(body.results.filter((r) => r.status === 201).map((r) => r.link?.code)).size, 1000, 'a code of its own each');
    const { rows } = await withClient(database.url, (client) =>
      client.query<{ n: number }>(`SELECT count(DISTINCT code)::int AS n FROM links WHERE url LIKE 'https://example.com/many/%'`),
    );
    assert.equal(rows[0]?.n, 1000, 'all committed');
    for (const payload of [{ links: [...links, { url: 'https://example.com/one-more' }] }, { links: [] }, { items: links }]) {
      const refused = await app.inject({ method: 'POST', url: '/links/bulk', payload });
      assert.equal(refused.statusCode, 400);
      assert.equal(errorCode(refused), 'BODY_INVALID');
    }
  });
});

describe('Idempotency-Key', () => {
  test('a retry with the same key and body gets the original answer; another body 422; a bad key 400; keys are scoped to the API key', async (t) => {
    const app = await instance(t);
    const body = { url: 'https://example.com/once' };
    const first = await create(app, body, { 'idempotency-key': 'order-1' });
    assert.equal(first.status, 201);
    const retry = await create(app, body, { 'idempotency-key': 'order-1' });
    assert.equal(retry.status, 201);
    assert.deepEqual(retry.body, first.body);
    assert.equal(retry.headers['idempotent-replayed'], 'true');
    const other = await create(app, { url: 'https://example.com/twice' }, { 'idempotency-key': 'order-1' });
    assert.equal(other.status, 422);
    assert.equal((other.body.error as { code: string }).code, 'IDEMPOTENCY_KEY_REUSED');
    for (const key of ['', 'x'.repeat(256), 'has space']) {
      assert.equal((await create(app, body, { 'idempotency-key': key })).status, 400, JSON.stringify(key));
    }
    const alices = await create(app, body, { 'idempotency-key': 'order-1', ...bearer(alice) });
    assert.equal(alices.status, 201);
    assert.notEqual(alices.body.code, first.body.code, 'another scope, another link');
  });

  test('concurrent retries on one instance create one link; on two, all get the one link, aliases included', async (t) => {
    const a = await instance(t);
    const b = await instance(t);
    const links = (url: string) =>
      withClient(database.url, (client) => client.query<{ n: number }>('SELECT count(*)::int AS n FROM links WHERE url = $1', [url])).then(
        ({ rows }) => rows[0]?.n,
      );

    const single = { url: 'https://example.com/concurrent-one' };
    const once = await Promise.all(Array.from({ length: 10 }, () => create(a, single, { 'idempotency-key': 'order-one' })));
    assert.deepEqual(new Set(once.map((x) => x.status)), new Set([201]));
    assert.equal(new Set(once.map((x) => x.body.code)).size, 1);
    assert.equal(await links(single.url), 1, 'one instance: one link written');

    const body = { url: 'https://example.com/concurrent' };
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => create(i % 2 === 0 ? a : b, body, { 'idempotency-key': 'order-concurrent' })),
    );
    assert.deepEqual(new Set(answers.map((x) => x.status)), new Set([201]));
    assert.equal(new Set(answers.map((x) => x.body.code)).size, 1);
    const { rows } = await withClient(database.url, (client) =>
      client.query<{ n: number }>(`SELECT count(*)::int AS n FROM idempotency_keys WHERE key LIKE '% order-concurrent'`),
    );
    assert.equal(rows[0]?.n, 1);

    const aliased = { url: 'https://example.com/concurrent-alias', alias: 'idem-alias' };
    const withAlias = await Promise.all(
      Array.from({ length: 6 }, (_, i) => create(i % 2 === 0 ? a : b, aliased, { 'idempotency-key': 'order-alias' })),
    );
    assert.deepEqual(
      withAlias.map((x) => [x.status, x.body.code]),
      withAlias.map(() => [201, 'idem-alias']),
      'a retry whose alias meets its own first create gets that create, not a 409',
    );
  });

  test('anonymous keys are scoped to the client address; bulk refuses a key', async (t) => {
    const app = await instance(t);
    const body = { url: 'https://example.com/per-address' };
    const first = await app.inject({
      method: 'POST',
      url: '/links',
      payload: body,
      headers: { 'idempotency-key': 'shared' },
      remoteAddress: '198.51.100.1',
    });
    const other = await app.inject({
      method: 'POST',
      url: '/links',
      payload: { url: 'https://example.com/mine' },
      headers: { 'idempotency-key': 'shared' },
      remoteAddress: '198.51.100.2',
    });
    assert.equal(first.statusCode, 201);
    assert.equal(other.statusCode, 201, 'another address may use the same key for its own create');
    assert.notEqual(first.json<{ code: string }>().code, other.json<{ code: string }>().code);
    const bulk = await app.inject({ method: 'POST', url: '/links/bulk', payload: { links: [body] }, headers: { 'idempotency-key': 'b1' } });
    assert.equal(bulk.statusCode, 400);
    assert.equal(errorCode(bulk), 'IDEMPOTENCY_KEY_INVALID');
  });
});
