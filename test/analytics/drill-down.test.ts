// Drill-down and per-tag analytics against a real Postgres, with clicks recorded through the service
// and flushed: one value of a dimension counts exactly its clicks (a link's and the workspace's,
// with its share and its top links); a tag's view sums exactly its links' and no other's; the two
// combine; a tag's links are bounded; bad input is a 400 with its code.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { readTagLinks } from '../../src/analytics/link-sets.ts';
import { msToNextUtcDay, utcDay } from '../../src/core/day-range.ts';
import { DEFAULT_WORKSPACE_ID } from '../../src/core/link.ts';
import { answers, drillLabel, filterParams, NO_FILTER, readViewFilter, viewSearch } from '../../web/src/analytics/drill.ts';
import { bearer, errorCode, startApp } from '../helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { keysWith } from '../helpers/workspaces.ts';
import { COUNTRY_IP as IP } from '../helpers/geo.ts';

const UA = {
  iphone:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
  pixel: 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.6478.71 Mobile Safari/537.36',
  windows: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
  mac: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14.5; rv:127.0) Gecko/20100101 Firefox/127.0',
  googlebot: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
};

interface Click {
  times: number;
  ua: string;
  ip: string;
}

/** Three links: two tagged sms (one of them promo too), one email. Every number below follows from this. */
const LINKS = {
  a: {
    tags: ['sms'],
    clicks: [
      { times: 3, ua: UA.iphone, ip: IP.us },
      { times: 2, ua: UA.pixel, ip: IP.gb },
      { times: 1, ua: UA.googlebot, ip: IP.us },
    ],
  },
  b: {
    tags: ['sms', 'promo'],
    clicks: [
      { times: 2, ua: UA.windows, ip: IP.us },
      { times: 1, ua: UA.windows, ip: IP.jp },
    ],
  },
  c: {
    tags: ['email'],
    clicks: [
      { times: 5, ua: UA.mac, ip: IP.us },
      { times: 2, ua: UA.iphone, ip: IP.gb },
    ],
  },
} satisfies Record<string, { tags: string[]; clicks: Click[] }>;

interface Counts {
  clicks: number;
  botClicks: number;
  visitors: number;
}
interface Body {
  range: Counts;
  daily: ({ day: string } & Counts)[];
  dimensions: Record<string, ({ value: string } & Counts)[]>;
  filter?: { dimension: string; value: string; of: Counts; share: number };
  tag?: { tag: string; links: number; counted: number };
  topLinks?: { code: string; clicks: number; botClicks: number }[];
  topLinksAmong?: number;
}

let database: TestDatabase;
let headers: { authorization: string };
let app: FastifyInstance;
let pool: pg.Pool;
const closers: (() => Promise<void>)[] = [];
const codes: Record<keyof typeof LINKS, string> = { a: '', b: '', c: '' };
const today = utcDay(Date.now());

before(async () => {
  database = await createTestDatabase('drill');
  headers = bearer((await keysWith(database.url, { admin: 'admin' })).admin);
  // A flush must not cross UTC midnight: its clicks would land on two days.
  const left = msToNextUtcDay(Date.now());
  if (left < 30_000) await sleep(left + 50);
  const started = await startApp({ after: (fn) => closers.push(fn) }, database.url, {
    ANALYTICS_ENABLED: 'true',
    TRUST_PROXY: 'loopback',
    CLICK_FLUSH_INTERVAL_MS: '3600000',
  });
  app = started.app;
  pool = started.pool;
  for (const [name, link] of Object.entries(LINKS) as [keyof typeof LINKS, (typeof LINKS)[keyof typeof LINKS]][]) {
    const res = await app.inject({
      method: 'POST',
      url: '/links',
      headers,
      payload: { url: `https://example.com/${name}`, tags: link.tags },
    });
    assert.equal(res.statusCode, 201, res.body);
    codes[name] = res.json<{ code: string }>().code;
    for (const click of link.clicks) {
      for (let i = 0; i < click.times; i++) {
        const sent = await app.inject({ url: `/${codes[name]}`, headers: { 'user-agent': click.ua, 'x-forwarded-for': click.ip } });
        assert.equal(sent.statusCode, 302);
      }
    }
  }
  await app.clicks.flush();
});
after(async () => {
  for (const close of closers) await close();
  await database.drop();
});

async function stats(path: string): Promise<Body> {
  const res = await app.inject({ url: path, headers });
  assert.equal(res.statusCode, 200, res.body);
  return res.json<Body>();
}

/** People, bots: what a view counts. */
function clicks(counts: Counts): [number, number] {
  return [counts.clicks, counts.botClicks];
}

/** Small visitor counts are near exact (two visitors may share a register). */
function assertVisitors(actual: number, exact: number, what: string): void {
  assert.ok(Math.abs(actual - exact) <= 1, `${what}: ${actual} visitors, expected ${exact}`);
}

function todayOf(body: Body): Counts | undefined {
  return body.daily.find((day) => day.day === today);
}

test("a link's drill-down to a country counts that country's clicks, per day and over the range, and its share of the link's", async () => {
  const us = await stats(`/links/${codes.a}/stats?dimension=country&value=US&dimensions=all`);
  assert.deepEqual(clicks(us.range), [3, 1]);
  assert.deepEqual(clicks(todayOf(us) as Counts), [3, 1]);
  assert.equal(us.daily.length, 30);
  assert.equal(
    us.daily.reduce((sum, day) => sum + day.clicks, 0),
    3,
  );
  assertVisitors(us.range.visitors, 1, 'US on a');
  assert.deepEqual(us.filter && [us.filter.dimension, us.filter.value, ...clicks(us.filter.of)], ['country', 'US', 5, 1]);
  assert.equal(us.filter?.share, 4 / 6);
  // No other dimension can be narrowed to a country: none is answered.
  assert.deepEqual(us.dimensions, {});

  const gb = await stats(`/links/${codes.a}/stats?dimension=country&value=GB`);
  assert.deepEqual(clicks(gb.range), [2, 0]);
  const mobile = await stats(`/links/${codes.a}/stats?dimension=device&value=mobile`);
  assert.deepEqual(clicks(mobile.range), [5, 0]);
  const nowhere = await stats(`/links/${codes.a}/stats?dimension=country&value=FR`);
  assert.deepEqual([...clicks(nowhere.range), nowhere.filter?.share], [0, 0, 0]);

  // The CSV holds the same days.
  const csv = await app.inject({ url: `/links/${codes.a}/stats.csv?dimension=country&value=US&from=${today}`, headers });
  assert.equal(csv.statusCode, 200);
  assert.deepEqual(csv.body.trim().split('\r\n'), ['kind,value,clicks,bot_clicks,visitors', `day,${today},3,1,1`]);
});

test("the workspace's drill-down counts the value over every link, with the links that had the most clicks of it", async () => {
  const us = await stats('/stats?dimension=country&value=US');
  assert.deepEqual(clicks(us.range), [3 + 2 + 5, 1]);
  assert.deepEqual(clicks(todayOf(us) as Counts), [10, 1]);
  assertVisitors(us.range.visitors, 3, 'US');
  assert.deepEqual(clicks(us.filter?.of as Counts), [5 + 3 + 7, 1]);
  assert.equal(us.filter?.share, 11 / 16);
  assert.deepEqual(
    us.topLinks?.map((link) => [link.code, link.clicks, link.botClicks]),
    [
      [codes.c, 5, 0],
      [codes.a, 3, 1],
      [codes.b, 2, 0],
    ],
  );
  assert.equal(us.topLinksAmong, 200);
  const jp = await stats('/stats?dimension=country&value=JP');
  assert.deepEqual([...clicks(jp.range), ...(jp.topLinks ?? []).map((link) => link.code)], [1, 0, codes.b]);
  const mobile = await stats('/stats?dimension=device&value=mobile');
  assert.deepEqual(clicks(mobile.range), [5 + 2, 0]);
  const bots = await stats('/stats?dimension=device&value=bot');
  assert.deepEqual(clicks(bots.range), [0, 1]);
});

test("a tag's view sums exactly the links with that tag, and no other", async () => {
  const sms = await stats('/stats?tag=sms&dimensions=country,device');
  assert.deepEqual(sms.tag, { tag: 'sms', links: 2, counted: 2 });
  assert.deepEqual(clicks(sms.range), [5 + 3, 1]);
  assert.deepEqual(clicks(todayOf(sms) as Counts), [8, 1]);
  assertVisitors(sms.range.visitors, 4, 'sms');
  assert.deepEqual(
    sms.dimensions.country?.map((v) => [v.value, v.clicks, v.botClicks]),
    [
      ['US', 5, 1],
      ['GB', 2, 0],
      ['JP', 1, 0],
    ],
  );
  assert.deepEqual(
    sms.dimensions.device?.map((v) => [v.value, v.clicks, v.botClicks]),
    [
      ['mobile', 5, 0],
      ['desktop', 3, 0],
      ['bot', 0, 1],
    ],
  );
  assert.deepEqual(
    sms.topLinks?.map((link) => link.code),
    [codes.a, codes.b],
  );

  const promo = await stats('/stats?tag=promo&dimensions=country');
  assert.deepEqual([...clicks(promo.range), promo.topLinks?.map((link) => link.code)], [3, 0, [codes.b]]);
  const email = await stats('/stats?tag=email');
  assert.deepEqual([...clicks(email.range), email.tag?.links], [7, 0, 1]);

  const none = await stats('/stats?tag=nobody-has-it&dimensions=all');
  assert.deepEqual([...clicks(none.range), none.tag?.links, none.topLinks?.length], [0, 0, 0, 0]);
  assert.deepEqual(none.dimensions.country, []);
});

test('a tag and a drill-down combine: the value among the tag’s links only', async () => {
  const body = await stats('/stats?tag=sms&dimension=country&value=US');
  assert.deepEqual(clicks(body.range), [5, 1]);
  assert.deepEqual(clicks(body.filter?.of as Counts), [8, 1]);
  assert.equal(body.filter?.share, 6 / 9);
  assert.deepEqual(
    body.topLinks?.map((link) => [link.code, link.clicks + link.botClicks]),
    [
      [codes.a, 4],
      [codes.b, 2],
    ],
  );
  assert.equal(body.topLinksAmong, undefined, 'a tag’s links are all read');
  const gb = await stats('/stats?tag=promo&dimension=country&value=GB');
  assert.deepEqual([...clicks(gb.range), gb.topLinks?.length], [0, 0, 0]);
});

test('a tag’s links are bounded: the most clicked of all time are kept', async () => {
  const all = await readTagLinks(pool, DEFAULT_WORKSPACE_ID, 'sms', 500);
  assert.equal(all.total, 2);
  assert.deepEqual(
    all.links.map((link) => link.code),
    [codes.a, codes.b],
  );
  const one = await readTagLinks(pool, DEFAULT_WORKSPACE_ID, 'sms', 1);
  assert.deepEqual([one.total, one.links.map((link) => link.code)], [2, [codes.a]]);
});

test('bad drill-downs and tags are refused with STATS_QUERY_INVALID and a message that says what to send', async () => {
  const refused: [string, RegExp][] = [
    ['/stats?dimension=country', /dimension and value go together/],
    ['/stats?value=US', /dimension and value go together/],
    ['/stats?dimension=planet&value=Mars', /none of referrer/],
    ['/stats?dimension=country&value=', /value must be 1 to 256 bytes/],
    [`/stats?dimension=referrer&value=${'x'.repeat(257)}`, /value must be 1 to 256 bytes/],
    ['/stats?dimension=target&value=url', /counted per link only/],
    ['/stats?tag=', /tag must be 1 to 40 characters/],
    ['/stats?tag=%20%20', /tag must be 1 to 40 characters/],
    [`/stats?tag=${'t'.repeat(41)}`, /tag must be 1 to 40 characters/],
    [`/links/${codes.a}/stats?dimension=city&value=Paris`, /does not count clicks by city/],
    [`/links/${codes.a}/stats?tag=sms`, /./],
  ];
  for (const [url, message] of refused) {
    const res = await app.inject({ url, headers });
    assert.equal(res.statusCode, 400, `${url}: ${res.body}`);
    assert.equal(errorCode(res), 'STATS_QUERY_INVALID', url);
    assert.match(res.json<{ error: { message: string } }>().error.message, message, url);
  }
  // A link's own rules and variants can be drilled into (a plain link has none).
  const target = await stats(`/links/${codes.a}/stats?dimension=target&value=url`);
  assert.deepEqual(clicks(target.range), [0, 0]);
});

test("the dashboard's filter lives in the address: read back as written, other parameters kept, unknown dimensions ignored", () => {
  const filter = { drill: { dimension: 'country' as const, value: 'FR' }, tag: 'sms' };
  const search = viewSearch(filter, { domain: 'go.example', tag: 'old' });
  assert.equal(search, '?domain=go.example&tag=sms&dimension=country&value=FR');
  assert.deepEqual(readViewFilter(Object.fromEntries(new URLSearchParams(search))), filter);
  assert.equal(viewSearch(NO_FILTER), '');
  assert.deepEqual(readViewFilter({ dimension: 'planet', value: 'Mars', tag: ' sms ' }), { drill: null, tag: 'sms' });
  assert.deepEqual(readViewFilter({ dimension: 'country' }), NO_FILTER);
  assert.deepEqual(filterParams(filter), { tag: 'sms', dimension: 'country', value: 'FR' });
  assert.equal(drillLabel({ dimension: 'referrer', value: 'direct' }), 'Referrer: No referrer');
  assert.ok(answers({ filter: { dimension: 'country', value: 'FR' }, tag: { tag: 'sms' } }, filter));
  assert.ok(!answers({ tag: { tag: 'sms' } }, filter), 'an answer without the drill-down is not the one asked for');
});
