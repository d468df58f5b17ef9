// What a link's `state` says, on real Postgres and Redis: `limit_reached` once its click limit is
// used up (with "n of N clicks used" as clicksUsed) and `scheduled` before its startsAt, in its
// details, the list and the list's filter; a scheduled link answers LINK_NOT_YET_ACTIVE until its
// start and then redirects on every instance, over real sockets, through both transports.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createApiKey } from '../../src/auth/api-keys.ts';
import { createTestDatabase, withClient, type TestDatabase } from '../helpers/db.ts';
import { deleteKeys, randomPrefix, redisInUse, SHARED_REDIS_URL } from '../helpers/redis.ts';
import { startApp, type Cleanup } from '../helpers/app.ts';
import { until } from '../helpers/wait.ts';
import type { FastifyInstance } from 'fastify';

const prefix = randomPrefix('states');
let database: TestDatabase;
let headers: { authorization: string };
before(async () => {
  database = await createTestDatabase('link_states');
  const admin = await withClient(database.url, (c) => createApiKey(c, { name: 'states-admin', role: 'admin' }));
  headers = { authorization: `Bearer ${admin.secret}` };
});
after(async () => {
  await deleteKeys(SHARED_REDIS_URL, prefix);
  await database.drop();
});

async function start(t: Cleanup, redisOn: boolean, fastPath = true): Promise<FastifyInstance> {
  const base = { CLICK_FLUSH_INTERVAL_MS: '3600000', FAST_PATH: String(fastPath), WEBHOOK_POLL_MS: '50' };
  const { app } = await startApp(t, database.url, redisOn ? { ...base, REDIS_URL: SHARED_REDIS_URL, REDIS_KEY_PREFIX: prefix } : base);
  if (redisOn) await until('invalidations heard', redisInUse(app));
  return app;
}

async function create(app: FastifyInstance, payload: Record<string, unknown>) {
  const res = await app.inject({ method: 'POST', url: '/links', headers, payload });
  assert.equal(res.statusCode, 201, res.body);
  return res.json<{ code: string; startsAt: string | null }>();
}

interface Shown {
  code: string;
  state: string;
  clicksUsed: number | null;
  startsAt: string | null;
}

async function details(app: FastifyInstance, code: string): Promise<Shown> {
  const res = await app.inject({ url: `/links/${code}`, headers });
  assert.equal(res.statusCode, 200, res.body);
  return res.json<Shown>();
}

/** The codes GET /links?state=… lists, among those starting with `mark`. */
async function listed(app: FastifyInstance, state: string, mark: string): Promise<string[]> {
  const res = await app.inject({ url: `/links?state=${state}&limit=100`, headers });
  assert.equal(res.statusCode, 200, res.body);
  return res
    .json<{ links: Shown[] }>()
    .links.map((link) => link.code)
    .filter((code) => code.startsWith(mark))
    .sort();
}

for (const redisOn of [false, true]) {
  const where = redisOn ? 'Redis' : 'Postgres';
  test(`a link says limit_reached after its Nth click, with n of N used, and the filter lists exactly those (${where})`, async (t) => {
    const app = await start(t, redisOn);
    const mark = redisOn ? 'rs-' : 'pg-';
    await create(app, { url: 'https://example.com/limited', alias: `${mark}limited`, options: { clickLimit: 3 } });
    await create(app, { url: 'https://example.com/roomy', alias: `${mark}roomy`, options: { clickLimit: 50 } });
    await create(app, { url: 'https://example.com/plain', alias: `${mark}plain` });
    await create(app, { url: 'https://example.com/off', alias: `${mark}off`, options: { clickLimit: 1 } });
    const scheduled = new Date(Date.now() + 86_400_000).toISOString();
    await create(app, { url: 'https://example.com/later', alias: `${mark}later`, startsAt: scheduled });
    const fresh = await details(app, `${mark}limited`);
    assert.deepEqual([fresh.state, fresh.clicksUsed], ['active', 0], 'never clicked: none used');
    assert.equal((await details(app, `${mark}plain`)).clicksUsed, null, 'no limit: nothing to count');

    for (let click = 1; click <= 3; click++) {
      assert.equal((await app.inject({ url: `/${mark}limited` })).statusCode, 302);
      const shown = await details(app, `${mark}limited`);
      assert.equal(shown.clicksUsed, click);
      assert.equal(shown.state, click < 3 ? 'active' : 'limit_reached', `after click ${click}`);
    }
    assert.equal((await app.inject({ url: `/${mark}limited` })).json().error.code, 'LINK_CLICK_LIMIT_REACHED');
    assert.equal((await details(app, `${mark}limited`)).clicksUsed, 3, 'a refused redirect uses nothing');
    assert.equal((await app.inject({ url: `/${mark}roomy` })).statusCode, 302);
    // A used-up link that is disabled says disabled: the state of higher precedence.
    assert.equal((await app.inject({ url: `/${mark}off` })).statusCode, 302);
    const off = await app.inject({ method: 'PATCH', url: `/links/${mark}off`, headers, payload: { disabled: true } });
    assert.equal(off.json().state, 'disabled');

    // With Redis, the counts reach Postgres (where the filter reads them) when the limit is reached.
    await until('the filter lists the used-up link', async () => (await listed(app, 'limit_reached', mark)).length > 0);
    assert.deepEqual(await listed(app, 'limit_reached', mark), [`${mark}limited`]);
    assert.deepEqual(await listed(app, 'active', mark), [`${mark}plain`, `${mark}roomy`]);
    assert.deepEqual(await listed(app, 'scheduled', mark), [`${mark}later`]);
    assert.deepEqual(await listed(app, 'disabled', mark), [`${mark}off`]);
    const page = await app.inject({ url: `/links?limit=100`, headers });
    const item = page.json<{ links: Shown[] }>().links.find((link) => link.code === `${mark}limited`);
    assert.deepEqual([item?.state, item?.clicksUsed], ['limit_reached', 3], 'the list item says so too');

    // A limit raised: live again, its count kept; the PATCH answer says so.
    const raised = await app.inject({ method: 'PATCH', url: `/links/${mark}limited`, headers, payload: { options: { clickLimit: 5 } } });
    assert.equal(raised.statusCode, 200, raised.body);
    assert.deepEqual([raised.json().state, raised.json().clicksUsed], ['active', 3]);
    assert.deepEqual(await listed(app, 'limit_reached', mark), []);
    assert.deepEqual(await listed(app, 'active', mark), [`${mark}limited`, `${mark}plain`, `${mark}roomy`]);
  });
}

test('a scheduled link answers LINK_NOT_YET_ACTIVE until its start, then redirects on every instance (fast path and node:http, Redis)', async (t) => {
  const fast = await start(t, true, true);
  const node = await start(t, true, false);
  // Far enough ahead for the requests below on a busy machine; the wait for the flip is bounded.
  const startsAt = new Date(Date.now() + 10_000).toISOString();
  const created = await create(fast, { url: 'https://example.com/opening', alias: 'opening', startsAt });
  assert.equal(created.startsAt, startsAt);
  // Asked twice of each: looked up, then the cached answer.
  const early = await Promise.all([fast, node].map((app) => app.inject({ url: '/opening' })));
  const again = await Promise.all([fast, node].map((app) => app.inject({ url: '/opening' })));
  for (const res of [...early, ...again]) {
    assert.equal(res.statusCode, 404, `${Date.parse(startsAt) - Date.now()} ms before the start`);
    assert.equal(res.json().error.code, 'LINK_NOT_YET_ACTIVE');
  }
  assert.equal((await details(node, 'opening')).state, 'scheduled');
  // No change is made, no message sent: each instance's cached answer ends at the start.
  for (const app of [fast, node]) {
    const bound = Date.parse(startsAt) - Date.now() + 20_000;
    await until('the redirect begins', async () => (await app.inject({ url: '/opening' })).statusCode === 302, bound);
    assert.equal((await app.inject({ url: '/opening' })).headers.location, 'https://example.com/opening');
  }
  assert.equal((await details(fast, 'opening')).state, 'active');
});

test('startsAt: checked on create, bulk and PATCH (before expiresAt), shown, and removed by null (Postgres alone)', async (t) => {
  const app = await start(t, false);
  const soon = new Date(Date.now() + 3_600_000).toISOString();
  const later = new Date(Date.now() + 7_200_000).toISOString();
  const refused = async (payload: Record<string, unknown>, code: string, method: 'POST' | 'PATCH' = 'POST', url = '/links') => {
    const res = await app.inject({ method, url, headers, payload });
    assert.equal(res.statusCode, 400, res.body);
    assert.equal(res.json().error.code, code, JSON.stringify(payload));
    return res.json().error;
  };
  const invalid = await refused({ url: 'https://example.com/', startsAt: 'tomorrow' }, 'STARTS_AT_INVALID');
  assert.equal(invalid.field, 'startsAt');
  await refused({ url: 'https://example.com/', startsAt: later, expiresAt: soon }, 'STARTS_AT_NOT_BEFORE_EXPIRY');
  await refused({ url: 'https://example.com/', startsAt: soon, expiresAt: soon }, 'STARTS_AT_NOT_BEFORE_EXPIRY');

  const made = await create(app, { url: 'https://example.com/s', alias: 'starts-at', startsAt: soon, expiresAt: later });
  assert.equal(made.startsAt, soon);
  const shown = await details(app, 'starts-at');
  assert.deepEqual([shown.state, shown.startsAt], ['scheduled', soon]);
  // A change checked against what the link keeps.
  await refused({ expiresAt: soon }, 'STARTS_AT_NOT_BEFORE_EXPIRY', 'PATCH', '/links/starts-at');
  await refused({ startsAt: later }, 'STARTS_AT_NOT_BEFORE_EXPIRY', 'PATCH', '/links/starts-at');
  await refused({ startsAt: '2030-02-30T00:00:00Z' }, 'STARTS_AT_INVALID', 'PATCH', '/links/starts-at');
  const cleared = await app.inject({ method: 'PATCH', url: '/links/starts-at', headers, payload: { startsAt: null } });
  assert.equal(cleared.statusCode, 200, cleared.body);
  assert.deepEqual([cleared.json().state, cleared.json().startsAt], ['active', null]);
  assert.equal((await app.inject({ url: '/starts-at' })).statusCode, 302, 'live at once');
  const moved = await app.inject({ method: 'PATCH', url: '/links/starts-at', headers, payload: { startsAt: soon } });
  assert.equal(moved.json().state, 'scheduled');
  assert.equal((await app.inject({ url: '/starts-at' })).json().error.code, 'LINK_NOT_YET_ACTIVE', 'the change reached the cache');

  const bulk = await app.inject({
    method: 'POST',
    url: '/links/bulk',
    headers,
    payload: {
      links: [
        { url: 'https://example.com/b1', startsAt: soon },
        { url: 'https://example.com/b2', startsAt: 'soon' },
      ],
    },
  });
  assert.equal(bulk.statusCode, 200, bulk.body);
  const [first, second] = bulk.json().results;
  assert.deepEqual([first.status, first.link.startsAt], [201, soon]);
  assert.deepEqual([second.status, second.error.code], [400, 'STARTS_AT_INVALID']);
  assert.equal((await app.inject({ url: `/${first.link.code}` })).json().error.code, 'LINK_NOT_YET_ACTIVE');
  assert.equal((await app.inject({ url: '/links?state=later', headers })).statusCode, 400, 'an unknown state is refused');
});
