// Guessing codes is slow and cheap: each client has a budget of 404s, and once it is spent its
// misses are answered 429 before any lookup, while links it already reached keep redirecting.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { trustProxyRule } from '../../src/core/trust-proxy.ts';
import { clientKey } from '../../src/edge/client-address.ts';
import { NotFoundLimit } from '../../src/edge/not-found-limit.ts';
import { startApp, startCountedApp } from '../helpers/app.ts';
import { createTestDatabase, insertRawLinks, type TestDatabase, holdLookups } from '../helpers/db.ts';
import { memoryLogger } from '../helpers/logs.ts';
import { until, within } from '../helpers/wait.ts';

describe('the budget', () => {
  test('a client gets its budget of 404s, then none until it refills at the configured rate', () => {
    const limit = new NotFoundLimit(6, 100); // one every 10 s
    const t0 = 1_000_000;
    for (let i = 0; i < 6; i++) assert.equal(limit.take('a', t0), true, `404 number ${i + 1}`);
    assert.equal(limit.take('a', t0 + 9_000), false);
    assert.equal(limit.take('b', t0), true, 'another client has its own budget');
    assert.equal(limit.take('a', t0 + 10_001), true, 'one more after 10 s');
    assert.equal(limit.take('a', t0 + 10_002), false);
    limit.refund('a');
    assert.equal(limit.take('a', t0 + 10_003), true, 'a 404 given back can be spent again');
    assert.equal(limit.retryAfterSeconds, 10);
    // Refilled to the budget, never above it (refunds included).
    limit.refund('a');
    for (let i = 0; i < 6; i++) assert.equal(limit.take('a', t0 + 3_600_000), true);
    assert.equal(limit.take('a', t0 + 3_600_000), false);
  });

  test('an IPv6 client is its /64, an IPv4-mapped address is the IPv4 address', () => {
    assert.equal(clientKey('2001:db8:1:2:aaaa::1'), clientKey('2001:0db8:0001:0002:ffff:1:2:3'));
    assert.notEqual(clientKey('2001:db8:1:2::1'), clientKey('2001:db8:1:3::1'));
    assert.equal(clientKey('::ffff:203.0.113.9'), '203.0.113.9');
    assert.equal(clientKey('203.0.113.9'), '203.0.113.9');
  });

  test('TRUST_PROXY values', () => {
    assert.equal(trustProxyRule('false'), undefined);
    assert.equal(trustProxyRule('true')?.('203.0.113.9', 0), true);
    const rule = trustProxyRule('loopback, 10.0.0.0/8');
    assert.equal(rule?.('127.0.0.1', 0), true);
    assert.equal(rule?.('10.9.9.9', 1), true);
    assert.equal(rule?.('203.0.113.9', 0), false);
    assert.throws(() => trustProxyRule('somewhere'));
  });
});

describe('on the service', () => {
  let database: TestDatabase;
  before(async () => {
    database = await createTestDatabase('not_found_limit');
    await insertRawLinks(database.url, ['known1', 'known2']);
  });
  after(() => database.drop());

  test('past its budget a client gets 429 with Retry-After and no lookup; links it has reached still redirect', async (t) => {
    const { app, lookups } = await startCountedApp(t, database.url, { NOT_FOUND_LIMIT_PER_MINUTE: '5' });
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    const get = (path: string, headers: Record<string, string> = {}) => fetch(`${base}/${path}`, { redirect: 'manual', headers });

    assert.equal((await get('known1')).status, 302);
    for (let i = 0; i < 5; i++) assert.equal((await get(`missing${i}`)).status, 404);
    const spent = lookups();
    assert.equal(spent, 6, 'known1 and the five missing codes were each looked up');
    const limited = await get('missing9');
    assert.equal(limited.status, 429);
    assert.equal(limited.headers.get('retry-after'), '12');
    assert.equal(((await limited.json()) as { error: { code: string } }).error.code, 'NOT_FOUND_RATE_LIMITED');
    // Paths that cannot be codes, and negative entries already cached, are 404s too: also limited.
    assert.equal((await get('no.such.path')).status, 429);
    assert.equal((await get('missing0')).status, 429);
    assert.equal(lookups(), spent, 'a limited client costs no lookup');
    assert.equal((await get('known1')).status, 302, 'a link in the LRU still redirects');
    // X-Forwarded-For is not believed without TRUST_PROXY: it cannot buy a fresh budget.
    assert.equal((await get('missing10', { 'x-forwarded-for': '203.0.113.7' })).status, 429);
    // The same budget through Fastify's route (app.inject), for another address.
    const other = { remoteAddress: '198.51.100.4' };
    for (let i = 0; i < 5; i++) assert.equal((await app.inject({ url: `/other${i}`, ...other })).statusCode, 404);
    assert.equal((await app.inject({ url: '/other9', ...other })).statusCode, 429);
    assert.equal((await app.inject({ url: '/known2', remoteAddress: '198.51.100.5' })).statusCode, 302);
  });

  test('a scanner sending many misses at once gets no more lookups than its budget; a crowd asking for one new code is one lookup', async (t) => {
    const hold = holdLookups((codes) => codes.includes('known1'));
    const { app } = await startApp(t, database.url, { NOT_FOUND_LIMIT_PER_MINUTE: '5' }, { wrapDb: hold.wrapDb });
    const counts = app.lookupCounts;
    const redirects = app.redirectCounts;
    assert.ok(counts !== null && redirects !== null);
    // Codes the resolver asked the Postgres primary for, by the app's own count.
    let earlier = 0;
    const lookedUp = () => counts.postgresFound + counts.postgresAbsent + counts.postgresFailed - earlier;
    const scan = await Promise.all(Array.from({ length: 50 }, (_, i) => app.inject({ url: `/scan-${i}`, remoteAddress: '198.51.100.20' })));
    const statuses = scan.map((res) => res.statusCode);
    assert.equal(statuses.filter((s) => s === 404).length, 5);
    assert.equal(statuses.filter((s) => s === 429).length, 45);
    assert.equal(lookedUp(), 5, 'only the reserved lookups reached Postgres');
    // Out of 404s, even a real link outside the LRU is a 429: nothing is looked up for this client.
    assert.equal((await app.inject({ url: '/known2', remoteAddress: '198.51.100.20' })).statusCode, 429);

    // 100 clicks from one address on a link not yet cached, half of them while its lookup is in
    // flight (held): one lookup, one token, refunded.
    earlier += lookedUp();
    const misses = () => redirects.lru[1] ?? 0;
    const missesBefore = misses();
    const click = () => app.inject({ url: '/known1', remoteAddress: '198.51.100.30' });
    const first = Array.from({ length: 50 }, click);
    await within('the lookup of known1 is held', hold.reached);
    // Later turns of the event loop: only the lookup in flight can merge these, not the batcher.
    const second = Array.from({ length: 50 }, click);
    await until('every click has missed the LRU, and so joined the lookup', async () => misses() - missesBefore === 100);
    hold.release();
    const crowd = await Promise.all([...first, ...second]);
    assert.deepEqual(new Set(crowd.map((res) => res.statusCode)), new Set([302]));
    assert.equal(lookedUp(), 1);
    for (let i = 0; i < 5; i++) assert.equal((await app.inject({ url: `/gone-${i}`, remoteAddress: '198.51.100.30' })).statusCode, 404);
  });

  test('X-Forwarded-For without TRUST_PROXY is not believed, and is named once in the log; a forwarded value that is no address is not believed either', async (t) => {
    const { log, lines } = memoryLogger();
    const { app } = await startApp(t, database.url, { NOT_FOUND_LIMIT_PER_MINUTE: '1' }, { log });
    for (const client of ['203.0.113.1', '203.0.113.2']) {
      await app.inject({ url: '/nothing', headers: { 'x-forwarded-for': client } });
    }
    assert.equal((await app.inject({ url: '/nothing2', headers: { 'x-forwarded-for': '203.0.113.3' } })).statusCode, 429);
    assert.equal(lines.filter((line) => /TRUST_PROXY is false/.test(line.msg ?? '')).length, 1);

    const { app: proxied } = await startApp(t, database.url, { NOT_FOUND_LIMIT_PER_MINUTE: '1', TRUST_PROXY: 'loopback' });
    assert.equal((await proxied.inject({ url: '/nothing', headers: { 'x-forwarded-for': 'made-up-1' } })).statusCode, 404);
    assert.equal((await proxied.inject({ url: '/nothing', headers: { 'x-forwarded-for': 'made-up-2' } })).statusCode, 429);
  });

  test('behind a trusted proxy each forwarded client has its own budget', async (t) => {
    const { app } = await startApp(t, database.url, { NOT_FOUND_LIMIT_PER_MINUTE: '2', TRUST_PROXY: 'loopback' });
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    const get = (path: string, client: string) => fetch(`${base}/${path}`, { redirect: 'manual', headers: { 'x-forwarded-for': client } });
    for (const client of ['203.0.113.1', '203.0.113.2']) {
      assert.equal((await get('gone1', client)).status, 404);
      assert.equal((await get('gone2', client)).status, 404);
      assert.equal((await get('gone3', client)).status, 429, client);
    }
    // One IPv6 subscriber: a new address in the same /64 is the same client.
    assert.equal((await get('gone1', '2001:db8:5:6::1')).status, 404);
    assert.equal((await get('gone2', '2001:db8:5:6::2')).status, 404);
    assert.equal((await get('gone3', '2001:db8:5:6:ffff::3')).status, 429);
  });

  test('NOT_FOUND_LIMIT_PER_MINUTE=0 switches it off', async (t) => {
    const { app } = await startApp(t, database.url, { NOT_FOUND_LIMIT_PER_MINUTE: '0' });
    for (let i = 0; i < 300; i++) assert.equal((await app.inject({ url: `/absent${i}` })).statusCode, 404);
  });
});
