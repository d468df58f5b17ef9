// Client-caused errors never count as database failures: whatever a client puts in a stats range,
// a code, a key header or a body, the answer is a coded 4xx (or a success), never a 5xx, and the
// Postgres breaker counts nothing. Before, a key holder could open the breaker at will with a range
// Postgres refuses (year 0), and every instance then failed readiness.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { createApiKey } from '../../src/auth/api-keys.ts';
import { startApp } from '../helpers/app.ts';
import { createTestDatabase, withClient, type TestDatabase } from '../helpers/db.ts';

let database: TestDatabase;
let app: FastifyInstance;
let key: string;
let code: string;
const cleanups: (() => Promise<void>)[] = [];

before(async () => {
  database = await createTestDatabase('client_errors');
  key = await withClient(database.url, async (client) => (await createApiKey(client, { name: 'owner' })).secret);
  ({ app } = await startApp({ after: (fn) => cleanups.push(fn) }, database.url));
  const res = await app.inject({
    method: 'POST',
    url: '/links',
    headers: { authorization: `Bearer ${key}` },
    payload: { url: 'https://example.com/' },
  });
  assert.equal(res.statusCode, 201);
  code = res.json<{ code: string }>().code;
});
after(async () => {
  for (const fn of cleanups) await fn();
  await database.drop();
});

const owner = () => ({ authorization: `Bearer ${key}` });
const errorCode = (body: string) => (JSON.parse(body) as { error?: { code?: string } }).error?.code;

/** Every answer so far was below 500, and the breaker counted nothing. */
function assertNoDatabaseFailure(status: number, what: string): void {
  assert.ok(status < 500, `${what}: ${status}`);
  assert.equal(app.breaker.failures, 0, `${what}: counted against the breaker`);
  assert.equal(app.breaker.state, 'closed');
}

test('stats ranges in a year Postgres has not (year 0) are a 400 STATS_RANGE_INVALID, however many; the instance stays ready', async () => {
  for (let i = 0; i < 20; i++) {
    for (const query of ['from=0000-12-31&to=0001-01-05', 'to=0001-01-05', 'from=0000-01-01&to=0000-01-02']) {
      const res = await app.inject({ url: `/links/${code}/stats?${query}`, headers: owner() });
      assert.equal(res.statusCode, 400, query);
      assert.equal(errorCode(res.body), 'STATS_RANGE_INVALID', query);
    }
  }
  assertNoDatabaseFailure(200, 'after 60 ranges');
  assert.equal((await app.inject({ url: '/readyz' })).statusCode, 200);
  const valid = await app.inject({ url: `/links/${code}/stats?from=0001-01-01&to=0001-01-02`, headers: owner() });
  assert.equal(valid.statusCode, 200, 'the first day Postgres has is a day');
});

test("a stats parameter given twice, or one the route does not know, is the route's own 400 STATS_QUERY_INVALID", async () => {
  for (const query of ['from=2026-01-01&from=2026-01-02', 'to=2026-01-02&to=2026-01-03', 'since=2026-01-01', 'limit=1&limit=2']) {
    const res = await app.inject({ url: `/links/${code}/stats?${query}`, headers: owner() });
    assert.equal(res.statusCode, 400, query);
    assert.equal(errorCode(res.body), 'STATS_QUERY_INVALID', query);
  }
  const twice = await app.inject({ url: `/links/${code}/stats?from=2026-01-01&from=2026-01-02`, headers: owner() });
  assert.match((JSON.parse(twice.body) as { error: { message: string } }).error.message, /"from" is given more than once/);
});

describe('any value a client sends, wherever it goes: a coded 4xx or a success, and nothing counted against the breaker', () => {
  const digits = (n: number, min: number, max: number) => fc.integer({ min, max }).map((v) => String(v).padStart(n, '0'));
  // Years where calendars and databases end (0, 1, 9999) often, and any other year sometimes.
  const year = fc.oneof(
    fc.constantFrom(0, 1, 2, 1970, 2026, 9999).map((y) => String(y).padStart(4, '0')),
    digits(4, 0, 9999),
  );
  const dayish = fc.oneof(
    { arbitrary: fc.tuple(year, digits(2, 1, 12), digits(2, 1, 28)).map((p) => p.join('-')), weight: 4 },
    fc.tuple(year, digits(2, 0, 13), digits(2, 0, 32)).map((p) => p.join('-')),
    fc
      .date({ min: new Date('-000500-01-01T00:00:00Z'), max: new Date('+020000-12-31T00:00:00Z'), noInvalidDate: true })
      .map((d) => d.toISOString().slice(0, 10)),
    fc.string({ maxLength: 20 }),
  );
  /** A day `days` after `day`, when `day` is a date at all. */
  const plusDays = (day: string, days: number) => {
    const ms = Date.parse(`${day}T00:00:00Z`);
    return Number.isNaN(ms) ? day : new Date(ms + days * 86_400_000).toISOString().slice(0, 10);
  };
  // Ranges the service could accept (from before to, at most a year apart) as well as any pair.
  const range = fc.oneof(
    fc.tuple(dayish, fc.integer({ min: -2, max: 400 })).map(([from, days]): [string, string][] => [
      ['from', from],
      ['to', plusDays(from, days)],
    ]),
    dayish.map((to): [string, string][] => [['to', to]]),
    fc.array(fc.tuple(fc.constantFrom('from', 'to', 'x'), dayish), { maxLength: 3 }),
  );
  const text = fc.oneof(
    fc.string({ maxLength: 40 }),
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.string({ unit: 'grapheme-ascii', maxLength: 300 }),
  );
  const printable = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 80 });
  const anyJson = fc.jsonValue({ maxDepth: 3 });
  const dateTimeish = fc.oneof(
    dayish.map((day) => `${day}T00:00:00Z`),
    fc
      .date({ min: new Date('-000500-01-01T00:00:00Z'), max: new Date('+275000-12-31T00:00:00Z'), noInvalidDate: true })
      .map((d) => d.toISOString()),
    text,
  );

  test('stats ranges: from and to, once or repeated', async () => {
    await fc.assert(
      fc.asyncProperty(range, async (params) => {
        const query = params.map(([name, value]) => `${name}=${encodeURIComponent(value)}`).join('&');
        const res = await app.inject({ url: `/links/${code}/stats?${query}`, headers: owner() });
        assertNoDatabaseFailure(res.statusCode, query);
      }),
      { numRuns: 400 },
    );
  });

  test('codes in every route that takes one', async () => {
    await fc.assert(
      fc.asyncProperty(
        text,
        fc.constantFrom('', '/stats', '/qr', '/health'),
        fc.constantFrom('GET', 'PATCH', 'DELETE'),
        async (raw, route, method) => {
          const res = await app.inject({
            method: route === '' ? method : 'GET',
            url: `/links/${encodeURIComponent(raw)}${route}`,
            headers: owner(),
            ...(method === 'PATCH' && route === '' ? { payload: { disabled: false } } : {}),
          });
          assertNoDatabaseFailure(res.statusCode, `${method} ${JSON.stringify(raw)}${route}`);
        },
      ),
      { numRuns: 400 },
    );
  });

  test('key and idempotency headers', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('authorization', 'x-api-key', 'idempotency-key'), printable, async (header, value) => {
        const res = await app.inject({
          method: 'POST',
          url: '/links',
          headers: { [header]: value },
          payload: { url: 'https://example.com/h' },
        });
        assertNoDatabaseFailure(res.statusCode, `${header}: ${JSON.stringify(value)}`);
      }),
      { numRuns: 300 },
    );
  });

  test('create and change bodies: url, alias, expiresAt and disabled of any type and value', async () => {
    const field = fc.oneof(text, dateTimeish, anyJson);
    const body = fc.record(
      { url: fc.oneof(text, anyJson, fc.constant('https://example.com/p')), alias: field, expiresAt: field, disabled: field },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(body, fc.constantFrom('POST', 'PATCH'), async (payload, method) => {
        const res = await app.inject({
          method,
          url: method === 'POST' ? '/links' : `/links/${code}`,
          headers: { ...owner(), 'content-type': 'application/json' },
          payload: JSON.stringify(method === 'POST' ? payload : { ...payload, url: undefined, alias: undefined }),
        });
        assertNoDatabaseFailure(res.statusCode, `${method} ${JSON.stringify(payload)}`);
      }),
      { numRuns: 400 },
    );
    // The link the PATCHes changed still answers: none of them broke it.
    const reset = await app.inject({
      method: 'PATCH',
      url: `/links/${code}`,
      headers: owner(),
      payload: { disabled: false, expiresAt: null },
    });
    assert.equal(reset.statusCode, 200);
  });
});
