// What GET /links adds for the dashboard's list: the total for the filters (exact up to TOTAL_MAX,
// then a bound), a search that also finds links by their tags, and each link's 14-day trend of
// clicks by people, read for the whole page in one statement.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import type { Queryable } from '../../src/db/pool.ts';
import { TOTAL_MAX } from '../../src/links/list-query.ts';
import { TREND_DAYS } from '../../src/links/list-trends.ts';
import { bearer, errorOf, startApp } from '../helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { workspaceWith } from '../helpers/workspaces.ts';

let database: TestDatabase;
let app: FastifyInstance;
let pool: pg.Pool;
/** The statements the app sent that read link_clicks_daily. */
const dailyReads: string[] = [];
const cleanups: (() => Promise<void>)[] = [];

const recording = (db: Queryable): Queryable => ({
  query(text, values) {
    if (text.includes('link_clicks_daily')) dailyReads.push(text);
    return db.query(text, values);
  },
});

before(async () => {
  database = await createTestDatabase('list_extras');
  ({ app, pool } = await startApp({ after: (fn) => cleanups.push(fn) }, database.url, {}, { wrapDb: recording }));
});
after(async () => {
  for (const fn of cleanups) await fn();
  await database.drop();
});

interface Listed {
  code: string;
  tags: string[];
  clicks: number;
  trend?: number[];
}
interface Page {
  links: Listed[];
  nextCursor: string | null;
  total?: number;
  totalAtLeast?: boolean;
}

async function list(key: { secret: string }, query: string): Promise<Page> {
  const res = await app.inject({ url: `/links?${query}`, headers: bearer(key) });
  assert.equal(res.statusCode, 200, `GET /links?${query}: ${res.body}`);
  return res.json<Page>();
}

async function create(key: { secret: string }, body: Record<string, unknown>): Promise<string> {
  const res = await app.inject({ method: 'POST', url: '/links', headers: bearer(key), payload: body });
  assert.equal(res.statusCode, 201, res.body);
  return res.json<{ code: string }>().code;
}

const codes = (page: Page) => page.links.map((link) => link.code).sort();

describe('GET /links: the total', () => {
  test('the first page says how many links pass the filters; later pages leave it out', async () => {
    const { keys } = await workspaceWith(database.url, 'totals', { ada: 'admin' });
    for (let i = 0; i < 5; i++) await create(keys.ada, { url: `https://example.com/t/${i}`, tags: i < 3 ? ['sms'] : [] });
    const first = await list(keys.ada, 'limit=2');
    assert.equal(first.total, 5);
    assert.equal(first.totalAtLeast, false);
    assert.notEqual(first.nextCursor, null);
    const second = await list(keys.ada, `limit=2&cursor=${first.nextCursor}`);
    assert.equal(second.total, undefined, 'a later page is not counted again');
    const tagged = await list(keys.ada, 'tag=sms&limit=1');
    assert.deepEqual([tagged.total, tagged.totalAtLeast], [3, false]);
    const none = await list(keys.ada, 'q=nothing-has-this');
    assert.deepEqual([none.total, none.totalAtLeast], [0, false]);
  });

  test(`past ${TOTAL_MAX.toLocaleString('en')} links the count stops: total is the bound and totalAtLeast is true`, async () => {
    const { id, keys } = await workspaceWith(database.url, 'many', { ada: 'admin' });
    await pool.query(
      `INSERT INTO links (code, url, workspace_id, tags)
       SELECT 'many-' || i, 'https://example.com/m/' || i, $1, CASE WHEN i <= 7 THEN ARRAY['few'] ELSE ARRAY[]::text[] END
       FROM generate_series(1, $2) AS i`,
      [id, TOTAL_MAX + 5],
    );
    const all = await list(keys.ada, 'limit=1');
    assert.deepEqual([all.total, all.totalAtLeast], [TOTAL_MAX, true]);
    const few = await list(keys.ada, 'tag=few&limit=1');
    assert.deepEqual([few.total, few.totalAtLeast], [7, false]);
  });
});

describe('GET /links: q searches tags too', () => {
  test('q finds links with a tag that starts with it, without case, besides its code, target and title', async () => {
    const { keys } = await workspaceWith(database.url, 'tagsearch', { ada: 'admin' });
    const byTag = await create(keys.ada, { url: 'https://example.com/a', tags: ['Newsletter-May'] });
    const byTitle = await create(keys.ada, { url: 'https://example.com/b', title: 'Our newsletter' });
    const inside = await create(keys.ada, { url: 'https://example.com/c', tags: ['spring-newsletter'] });
    await create(keys.ada, { url: 'https://example.com/d', tags: ['other'] });
    const found = await list(keys.ada, 'q=NEWSLETTER');
    assert.deepEqual(codes(found), [byTag, byTitle].sort(), 'a tag starting with the search is found; one merely containing it is not');
    assert.ok(!codes(found).includes(inside));
    assert.equal(found.total, 2, 'the total counts the same links');
    // With another filter, and most clicked first (other plans of the page).
    assert.deepEqual(codes(await list(keys.ada, 'q=newsl&sort=clicks')), [byTag, byTitle].sort());
    assert.deepEqual(codes(await list(keys.ada, 'q=newsl&tag=Newsletter-May')), [byTag]);
    // A deleted link's tag no longer finds it.
    const res = await app.inject({ method: 'DELETE', url: `/links/${byTag}`, headers: bearer(keys.ada) });
    assert.equal(res.statusCode, 204);
    assert.deepEqual(codes(await list(keys.ada, 'q=newsletter')), [byTitle]);
  });
});

describe('GET /links?include=trend', () => {
  test("each link's clicks by people on each of the last 14 UTC days, oldest first, from real redirects, in one statement", async () => {
    const { keys } = await workspaceWith(database.url, 'trends', { ada: 'admin' });
    const busy = await create(keys.ada, { url: 'https://example.com/busy' });
    const quiet = await create(keys.ada, { url: 'https://example.com/quiet' });
    const browser = { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36' };
    for (let i = 0; i < 3; i++) assert.equal((await app.inject({ url: `/${busy}`, headers: browser })).statusCode, 302);
    // A bot's click is not a person's.
    await app.inject({ url: `/${busy}`, headers: { 'user-agent': 'Googlebot/2.1 (+http://www.google.com/bot.html)' } });
    await app.clicks.flush();
    // Days before today, as the flush writes them: 13 days ago is the trend's first day, 14 days ago is outside it.
    await pool.query(
      `INSERT INTO link_clicks_daily (domain_id, code, day, clicks, bot_clicks)
       VALUES (0, $1, (now() AT TIME ZONE 'UTC')::date - 13, 4, 1), (0, $1, (now() AT TIME ZONE 'UTC')::date - 14, 99, 0),
              (0, $1, (now() AT TIME ZONE 'UTC')::date - 1, 2, 0)`,
      [busy],
    );
    dailyReads.length = 0;
    const page = await list(keys.ada, 'include=trend');
    assert.equal(dailyReads.length, 1, 'one statement reads the trends of the whole page');
    const trendOf = (code: string) => page.links.find((link) => link.code === code)?.trend;
    const expected = Array.from({ length: TREND_DAYS }, () => 0);
    expected[0] = 4;
    expected[TREND_DAYS - 2] = 2;
    expected[TREND_DAYS - 1] = 3;
    assert.deepEqual(trendOf(busy), expected);
    assert.deepEqual(
      trendOf(quiet),
      Array.from({ length: TREND_DAYS }, () => 0),
    );
    // Without include, no trend and no statement.
    dailyReads.length = 0;
    assert.equal((await list(keys.ada, '')).links[0]?.trend, undefined);
    assert.equal(dailyReads.length, 0);
  });

  test('include takes only trend', async () => {
    const { keys } = await workspaceWith(database.url, 'include', { ada: 'admin' });
    const res = await app.inject({ url: '/links?include=everything', headers: bearer(keys.ada) });
    assert.equal(res.statusCode, 400);
    assert.equal(errorOf(res)?.code, 'LIST_QUERY_INVALID');
  });
});
