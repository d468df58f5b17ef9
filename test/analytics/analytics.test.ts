// Click analytics against a real Postgres and the shipped geography database: every dimension of a
// click is counted exactly, through the fast path and through node:http; unique visitors within
// the stated error, once across two instances; the bounded `other`; visits to unknown codes; no
// click lost to a graceful restart; retention drops whole months; no address is kept anywhere.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, before, test, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import { msToNextUtcDay, utcDay } from '../../src/core/day-range.ts';
import { HLL_ERROR } from '../../src/core/hll.ts';
import { CHUNK_ROWS } from '../../src/analytics/rollups.ts';
import { bearer, errorCode, startApp } from '../helpers/app.ts';
import { createTestDatabase, insertRawLinks, withClient, type TestDatabase } from '../helpers/db.ts';
import { startLoggedApp } from '../helpers/logs.ts';
import { startServer } from '../helpers/server-process.ts';
import { proxyInFront } from '../helpers/tcp-proxy.ts';
import { keysWith } from '../helpers/workspaces.ts';
import { maintainPartitions } from '../../src/analytics/rollup-store.ts';

/** Real User-Agents of common browsers, phones and crawlers. */
const UA = {
  iphone:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
  pixel: 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.6478.71 Mobile Safari/537.36',
  windows: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
  ipad: 'Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
  mac: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14.5; rv:127.0) Gecko/20100101 Firefox/127.0',
  googlebot: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  facebook: 'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
};

interface Click {
  times: number;
  ua: string;
  /** A public address the shipped database places in `country`. */
  ip: string;
  referer?: string;
  language?: string;
  qr?: true;
  /** What each dimension must count the click under. */
  expect: { referrer: string; country: string; device: string; browser: string; os: string; language: string; source: string };
}

const CLICKS: readonly Click[] = [
  {
    times: 3,
    ua: UA.iphone,
    ip: '8.8.8.8',
    referer: 'https://www.google.com/search?q=private+words',
    language: 'en-US,en;q=0.9',
    expect: { referrer: 'google.com', country: 'US', device: 'mobile', browser: 'Safari', os: 'iOS', language: 'en', source: 'link' },
  },
  {
    times: 2,
    ua: UA.pixel,
    ip: '81.2.69.142',
    referer: 'android-app://com.google.android.gm/',
    language: 'en-GB;q=0.8, fr',
    expect: {
      referrer: 'com.google.android.gm',
      country: 'GB',
      device: 'mobile',
      browser: 'Chrome',
      os: 'Android',
      language: 'fr',
      source: 'link',
    },
  },
  {
    times: 2,
    ua: UA.windows,
    ip: '210.130.0.1',
    language: 'ja',
    qr: true,
    expect: { referrer: 'direct', country: 'JP', device: 'desktop', browser: 'Chrome', os: 'Windows', language: 'ja', source: 'qr' },
  },
  {
    times: 1,
    ua: UA.ipad,
    ip: '193.0.6.139',
    referer: 'http://t.co/AbC',
    language: 'nl-NL',
    expect: { referrer: 't.co', country: 'NL', device: 'tablet', browser: 'Safari', os: 'iOS', language: 'nl', source: 'link' },
  },
  {
    times: 1,
    ua: UA.mac,
    ip: '2001:4860:4860::8888',
    referer: 'https://news.ycombinator.com/item?id=1',
    language: 'de-DE,de;q=0.9,en;q=0.5',
    qr: true,
    expect: {
      referrer: 'news.ycombinator.com',
      country: 'US',
      device: 'desktop',
      browser: 'Firefox',
      os: 'macOS',
      language: 'de',
      source: 'qr',
    },
  },
  {
    times: 2,
    ua: UA.googlebot,
    ip: '8.8.4.4',
    expect: { referrer: 'direct', country: 'US', device: 'bot', browser: 'Googlebot', os: 'unknown', language: 'unknown', source: 'link' },
  },
  {
    times: 1,
    ua: UA.facebook,
    ip: '185.60.216.35',
    referer: 'https://www.facebook.com/',
    expect: {
      referrer: 'facebook.com',
      country: 'IE',
      device: 'bot',
      browser: 'FacebookExternalHit',
      os: 'unknown',
      language: 'unknown',
      source: 'link',
    },
  },
];
const ADDRESSES = CLICKS.map((click) => click.ip);
const DIMENSIONS = ['referrer', 'country', 'device', 'browser', 'os', 'language', 'source'] as const;
/** Clients behind the test's own loopback proxy: X-Forwarded-For is believed. */
const BEHIND_PROXY = { ANALYTICS_ENABLED: 'true', TRUST_PROXY: 'loopback', CLICK_FLUSH_INTERVAL_MS: '3600000' };

interface ValueCount {
  value: string;
  other?: true;
  clicks: number;
  botClicks: number;
  visitors: number;
}
interface StatsBody {
  range: { clicks: number; botClicks: number; visitors: number };
  daily: { day: string; clicks: number; botClicks: number; visitors: number }[];
  dimensions: Record<string, ValueCount[]>;
  visitorsError: number;
}

let database: TestDatabase;
let headers: { authorization: string };
before(async () => {
  database = await createTestDatabase('analytics');
  headers = bearer((await keysWith(database.url, { admin: 'admin' })).admin);
});
after(() => database.drop());

/** A flush must not cross UTC midnight: its clicks would land on two days. */
async function clearOfMidnight(marginMs = 30_000): Promise<void> {
  const left = msToNextUtcDay(Date.now());
  if (left < marginMs) await sleep(left + 50);
}

async function create(app: FastifyInstance, url = 'https://example.com/counted'): Promise<string> {
  const res = await app.inject({ method: 'POST', url: '/links', headers, payload: { url } });
  assert.equal(res.statusCode, 201, res.body);
  return res.json<{ code: string }>().code;
}

async function clickAll(app: FastifyInstance, code: string, clicks: readonly Click[] = CLICKS): Promise<void> {
  for (const click of clicks) {
    const sent: Record<string, string> = { 'user-agent': click.ua, 'x-forwarded-for': click.ip };
    if (click.referer !== undefined) sent.referer = click.referer;
    if (click.language !== undefined) sent['accept-language'] = click.language;
    for (let i = 0; i < click.times; i++) {
      const res = await app.inject({ url: `/${code}${click.qr === true ? '?qr=1' : ''}`, headers: sent });
      assert.equal(res.statusCode, 302);
    }
  }
}

async function stats(app: FastifyInstance, path: string): Promise<StatsBody> {
  const res = await app.inject({ url: path, headers });
  assert.equal(res.statusCode, 200, res.body);
  return res.json<StatsBody>();
}

/** What CLICKS must give per dimension: value -> [clicks by people, by bots, visitors]. */
function expected(dimension: (typeof DIMENSIONS)[number]): Map<string, [number, number, number]> {
  const counts = new Map<string, [number, number, number]>();
  for (const click of CLICKS) {
    const bot = click.expect.device === 'bot';
    const count = counts.get(click.expect[dimension]) ?? [0, 0, 0];
    counts.set(click.expect[dimension], [count[0] + (bot ? 0 : click.times), count[1] + (bot ? click.times : 0), count[2] + (bot ? 0 : 1)]);
  }
  return counts;
}

/** Visitor counts are estimates: small ones within one (two visitors in one register), else within 3 standard errors. */
function assertVisitors(actual: number, exact: number, what: string): void {
  const slack = Math.max(1, Math.ceil(3 * HLL_ERROR * exact));
  assert.ok(Math.abs(actual - exact) <= slack, `${what}: ${actual} visitors, expected ${exact} ± ${slack}`);
}

function assertDimensions(body: StatsBody, how: string): void {
  for (const dimension of DIMENSIONS) {
    const want = expected(dimension);
    const got = body.dimensions[dimension];
    assert.ok(got !== undefined, `${how}: ${dimension} answered`);
    assert.deepEqual(
      Object.fromEntries(got.map((v) => [v.value, [v.clicks, v.botClicks]])),
      Object.fromEntries([...want].map(([value, [clicks, bots]]) => [value, [clicks, bots]])),
      `${how}: ${dimension}`,
    );
    for (const value of got) assertVisitors(value.visitors, want.get(value.value)?.[2] ?? -1, `${how}: ${dimension} ${value.value}`);
  }
}

test('every dimension of clicks from real browsers, phones and crawlers is exact after a flush, through the fast path and through node:http', async (t) => {
  await clearOfMidnight();
  const people = CLICKS.filter((c) => c.expect.device !== 'bot').reduce((sum, c) => sum + c.times, 0);
  const bots = CLICKS.filter((c) => c.expect.device === 'bot').reduce((sum, c) => sum + c.times, 0);
  for (const fastPath of ['true', 'false']) {
    const { app } = await startApp(t, database.url, { ...BEHIND_PROXY, FAST_PATH: fastPath });
    const code = await create(app);
    await clickAll(app, code);
    await app.clicks.flush();
    const body = await stats(app, `/links/${code}/stats?dimensions=all&limit=100`);
    const how = `FAST_PATH=${fastPath}`;
    assert.deepEqual([body.range.clicks, body.range.botClicks], [people, bots], how);
    assertVisitors(body.range.visitors, CLICKS.filter((c) => c.expect.device !== 'bot').length, `${how}: the link`);
    const today = body.daily.find((day) => day.day === utcDay(Date.now()));
    assert.deepEqual([today?.clicks, today?.botClicks], [people, bots], how);
    assert.equal(body.visitorsError, HLL_ERROR);
    // The shipped database names no cities: the city dimension is not kept, and not answered.
    assert.equal(body.dimensions.city, undefined);
    assertDimensions(body, how);
    // The workspace's view adds this link's clicks to every value.
    const workspace = await stats(app, '/stats?dimensions=country&limit=100');
    assert.ok((workspace.dimensions.country?.find((v) => v.value === 'JP')?.clicks ?? 0) >= 2, how);
  }
});

test('the CSV export has a row per day and per value, and refuses a referrer that would be a spreadsheet formula', async (t) => {
  const { app } = await startApp(t, database.url, BEHIND_PROXY);
  const code = await create(app);
  await clickAll(app, code, [{ ...(CLICKS[0] as Click), times: 2, referer: 'https://=cmd.example/' }]);
  await app.clicks.flush();
  const today = utcDay(Date.now());
  const res = await app.inject({ url: `/links/${code}/stats.csv?dimensions=referrer,country&from=${today}`, headers });
  assert.equal(res.statusCode, 200);
  assert.match(String(res.headers['content-type']), /^text\/csv/);
  assert.match(String(res.headers['content-disposition']), new RegExp(`attachment; filename="${code}-${today}-${today}.csv"`));
  const lines = res.body.trim().split('\r\n');
  assert.equal(lines[0], 'kind,value,clicks,bot_clicks,visitors');
  assert.equal(lines[1], `day,${today},2,0,1`);
  // A host cannot hold "=": such a referrer is `unknown`, never a formula.
  assert.deepEqual(lines.slice(2), ['referrer,unknown,2,0,1', 'country,US,2,0,1']);
});

test('unique visitors: 1,200 distinct visitors clicking 2,400 times on two instances at once count within the stated error, each once', async (t) => {
  await clearOfMidnight(120_000);
  const a = await startApp(t, database.url, BEHIND_PROXY);
  const b = await startApp(t, database.url, BEHIND_PROXY);
  const code = await create(a.app);
  const visitor = (i: number) => ({
    'user-agent': i % 2 === 0 ? UA.iphone : UA.windows,
    'x-forwarded-for': `100.${64 + (i >> 8)}.${i & 255}.7`,
  });
  // Visitors 0..799 click on A, 400..1199 on B: 400 of them on both, and every one twice.
  const send = async (app: FastifyInstance, from: number, to: number) => {
    for (let round = 0; round < 2; round++) {
      for (let i = from; i < to; i += 50) {
        const batch = Array.from({ length: Math.min(50, to - i) }, (_, k) => app.inject({ url: `/${code}`, headers: visitor(i + k) }));
        for (const res of await Promise.all(batch)) assert.equal(res.statusCode, 302);
      }
    }
  };
  await Promise.all([send(a.app, 0, 800), send(b.app, 400, 1200)]);
  // Both instances write the same link's counts and sketches at once: they take turns on its rows.
  await Promise.all([a.app.clicks.flush(), b.app.clicks.flush()]);
  const body = await stats(a.app, `/links/${code}/stats?dimensions=device,country`);
  assert.equal(body.range.clicks, 3200);
  assertVisitors(body.range.visitors, 1200, 'the link');
  const devices = Object.fromEntries(body.dimensions.device?.map((v) => [v.value, v]) ?? []);
  assert.deepEqual([devices.mobile?.clicks, devices.desktop?.clicks], [1600, 1600]);
  assertVisitors(devices.mobile?.visitors ?? 0, 600, 'mobile');
  assertVisitors(devices.desktop?.visitors ?? 0, 600, 'desktop');
  assert.equal(
    body.dimensions.country?.reduce((sum, v) => sum + v.clicks, 0),
    3200,
  );
});

test('values past ANALYTICS_VALUES_MAX are counted as other, within a flush and across flushes; an answer sums what is past its limit into other', async (t) => {
  await clearOfMidnight();
  const { app } = await startApp(t, database.url, { ...BEHIND_PROXY, ANALYTICS_VALUES_MAX: '3' });
  const code = await create(app);
  const from = (host: string, times: number): Click => ({ ...(CLICKS[0] as Click), times, referer: `https://${host}/` });
  await clickAll(app, code, [from('a.example', 5), from('b.example', 4)]);
  await app.clicks.flush();
  // Stored: a, b. This flush brings four more hosts: one finds room, the other three are `other`.
  await clickAll(app, code, [from('c.example', 3), from('d.example', 2), from('e.example', 2), from('f.example', 1)]);
  await app.clicks.flush();
  const all = await stats(app, `/links/${code}/stats?dimensions=referrer&limit=100`);
  assert.deepEqual(
    all.dimensions.referrer?.map((v) => [v.value, v.clicks, v.other ?? false]),
    [
      ['a.example', 5, false],
      ['b.example', 4, false],
      ['c.example', 3, false],
      ['other', 5, true],
    ],
  );
  const stored = await withClient(database.url, (client) =>
    client.query<{ n: string }>("SELECT count(*) AS n FROM click_rollups WHERE code = $1 AND dimension = 1 AND value <> ''", [code]),
  );
  assert.equal(stored.rows[0]?.n, '3');
  const top = await stats(app, `/links/${code}/stats?dimensions=referrer&limit=1`);
  assert.deepEqual(
    top.dimensions.referrer?.map((v) => [v.value, v.clicks]),
    [
      ['a.example', 5],
      ['other', 12],
    ],
  );
});

test('visits to codes that do not exist: counted per day, the most requested named, on the workspace’s domains only', async (t) => {
  await clearOfMidnight();
  const { app } = await startApp(t, database.url, { ...BEHIND_PROXY, ANALYTICS_VALUES_MAX: '3' });
  const earlier = (await stats(app, '/stats')) as StatsBody & { orphans: { visits: number } };
  for (const [path, times] of [
    ['gone111', 3],
    ['gone222', 2],
    ['gone333', 1],
    ['gone444', 1],
  ] as const) {
    for (let i = 0; i < times; i++)
      assert.equal((await app.inject({ url: `/${path}`, headers: { 'x-forwarded-for': '8.8.8.8' } })).statusCode, 404);
  }
  await app.clicks.flush();
  const body = (await stats(app, '/stats')) as StatsBody & {
    orphans: {
      visits: number;
      daily: { day: string; visits: number }[];
      top: { domain: string; path: string; other?: true; visits: number }[];
    };
  };
  assert.equal(body.orphans.visits - earlier.orphans.visits, 7);
  assert.equal(body.orphans.daily.find((day) => day.day === utcDay(Date.now()))?.visits, body.orphans.visits);
  const mine = body.orphans.top.filter((o) => o.path.startsWith('gone') || o.other === true);
  assert.deepEqual(
    mine.map((o) => [o.path, o.visits]),
    [
      ['gone111', 3],
      ['gone222', 2],
      ['gone333', 1],
      ['other', 1],
    ],
  );
  // Another workspace sees none of the default domain's.
  const { rows } = await withClient(database.url, (client) =>
    client.query<{ id: string }>("INSERT INTO workspaces (name) VALUES ('other') RETURNING id"),
  );
  const stranger = (await keysWith(database.url, { viewer: 'viewer' }, Number(rows[0]?.id))).viewer;
  const theirs = await app.inject({ url: '/stats', headers: bearer(stranger) });
  assert.equal(theirs.json<{ orphans: { visits: number } }>().orphans.visits, 0);
});

test('a graceful restart loses no click and no rollup: SIGTERM writes what was not flushed', async (t) => {
  await clearOfMidnight();
  const env = { DATABASE_URL: database.url, BASE_URL: 'https://sho.rt', CODE_SECRET: 'analytics-test-secret-1234', ...BEHIND_PROXY };
  const server = await startServer(env);
  const created = await fetch(`${server.url}/links`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ url: 'https://example.com/restart' }),
  });
  const { code } = (await created.json()) as { code: string };
  for (const click of CLICKS) {
    for (let i = 0; i < click.times; i++) {
      const sent: Record<string, string> = { 'user-agent': click.ua, 'x-forwarded-for': click.ip };
      if (click.referer !== undefined) sent.referer = click.referer;
      if (click.language !== undefined) sent['accept-language'] = click.language;
      const res = await fetch(`${server.url}/${code}${click.qr === true ? '?qr=1' : ''}`, { redirect: 'manual', headers: sent });
      await res.arrayBuffer();
      assert.equal(res.status, 302);
    }
  }
  server.child.kill('SIGTERM');
  assert.deepEqual(await server.exited, { code: 0, signal: null });
  const { app } = await startApp(t, database.url, BEHIND_PROXY);
  assertDimensions(await stats(app, `/links/${code}/stats?dimensions=all&limit=100`), 'after SIGTERM');
});

/** The clicks (`sum` of the expression) in the link's own rows of click_rollups, written so far. */
async function ownRowClicks(code: string, sum: 'clicks' | 'clicks + bot_clicks'): Promise<number> {
  const { rows } = await withClient(database.url, (client) =>
    client.query<{ clicks: string }>(`SELECT coalesce(sum(${sum}), 0) AS clicks FROM click_rollups WHERE code = $1 AND dimension = 0`, [
      code,
    ]),
  );
  return Number(rows[0]?.clicks);
}

test('the timer writes the click counts every CLICK_FLUSH_INTERVAL_MS and the analytics every ANALYTICS_FLUSH_INTERVAL_MS', async (t) => {
  await clearOfMidnight();
  // The analytics timer starts while the app starts, so its first round is at least 1500 ms after this.
  const starting = Date.now();
  const { app } = await startApp(t, database.url, {
    ANALYTICS_ENABLED: 'true',
    TRUST_PROXY: 'loopback',
    CLICK_FLUSH_INTERVAL_MS: '100',
    ANALYTICS_FLUSH_INTERVAL_MS: '1500',
  });
  const code = await create(app);
  await clickAll(app, code, [CLICKS[0] as Click]);
  const rollups = () => ownRowClicks(code, 'clicks');
  const counted = async () => (await stats(app, `/links/${code}/stats`)).range.clicks;
  for (const deadline = Date.now() + 5000; (await counted()) < 3 && Date.now() < deadline;) await sleep(50);
  assert.equal(await counted(), 3, 'the counts are written within a few click intervals');
  // Read before the first analytics round can have run (a busy machine may leave no such moment: then nothing is claimed).
  const early = Date.now() - starting < 1400 ? await rollups() : undefined;
  if (early !== undefined && Date.now() - starting < 1500) assert.equal(early, 0, 'the analytics wait for their own interval');
  for (const deadline = Date.now() + 5000; (await rollups()) < 3 && Date.now() < deadline;) await sleep(100);
  assert.equal(await rollups(), 3);
});

/**
 * Until the returned function is called (or the test ends), each statement that inserts into
 * click_rollups first counts itself in the sequence rollup_tries (a rollback does not take that
 * back), then runs `body` (PL/pgSQL).
 */
async function onRollupStatements(t: TestContext, body: string): Promise<() => Promise<unknown>> {
  await withClient(database.url, (client) =>
    client.query(`CREATE SEQUENCE rollup_tries;
      CREATE FUNCTION on_rollups() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM nextval('rollup_tries'); ${body}; RETURN NULL; END $$;
      CREATE TRIGGER on_rollups BEFORE INSERT ON click_rollups FOR EACH STATEMENT EXECUTE FUNCTION on_rollups();`),
  );
  const lift = () =>
    withClient(database.url, (client) =>
      client.query(
        'DROP TRIGGER IF EXISTS on_rollups ON click_rollups; DROP FUNCTION IF EXISTS on_rollups(); DROP SEQUENCE IF EXISTS rollup_tries',
      ),
    );
  t.after(lift);
  return lift;
}

test("a rollup statement that Postgres takes longer over than BREAKER_TIMEOUT_MS is waited for: the client gives up only past the rollups' own timeout", async (t) => {
  await clearOfMidnight();
  // A lookup's breaker gives up after 400 ms; each chunk of the rollups takes Postgres 1.5 s.
  await onRollupStatements(t, 'PERFORM pg_sleep(1.5)');
  const { app } = await startApp(t, database.url, { ...BEHIND_PROXY, DB_STATEMENT_TIMEOUT_MS: '300', BREAKER_TIMEOUT_MS: '400' });
  const code = await create(app);
  await clickAll(app, code);
  await app.clicks.flush();
  const counted = await stats(app, `/links/${code}/stats`);
  assert.equal(counted.range.clicks + counted.range.botClicks, 12);
  assert.equal(await ownRowClicks(code, 'clicks + bot_clicks'), 12, 'the rollups were written by that flush');
  assert.equal(app.clicks.waiting, 0);
});

test('a rollup write Postgres refuses is tried again an ANALYTICS_FLUSH_INTERVAL_MS later, not at each count flush; then each click is in once', async (t) => {
  await clearOfMidnight();
  // Postgres refuses every rollup statement, and counts the tries; the counts are written as ever.
  const lift = await onRollupStatements(t, "RAISE EXCEPTION 'rollups refused by the test'");
  const tries = async () =>
    Number(
      (
        await withClient(database.url, (client) =>
          client.query<{ n: string }>('SELECT last_value - 1 + is_called::int AS n FROM rollup_tries'),
        )
      ).rows[0]?.n,
    );
  const { app } = await startApp(t, database.url, {
    ...BEHIND_PROXY,
    CLICK_FLUSH_INTERVAL_MS: '100',
    ANALYTICS_FLUSH_INTERVAL_MS: '1500',
  });
  const code = await create(app);
  await clickAll(app, code);
  for (const deadline = Date.now() + 5000; (await tries()) === 0 && Date.now() < deadline;) await sleep(50);
  assert.equal(await tries(), 1, 'the rollups were due and tried');
  // 30 count flushes go by: the rollups are tried again at most twice (at 1.5 s and 3 s), not 30 times.
  await sleep(3000);
  const counted = await stats(app, `/links/${code}/stats`);
  const clicks = counted.range.clicks + counted.range.botClicks;
  assert.equal(clicks, 12, 'the counts are written meanwhile');
  const tried = await tries();
  assert.ok(tried >= 1 && tried <= 3, `tried ${tried} times in 3 s`);
  await lift();
  const rollups = () => ownRowClicks(code, 'clicks + bot_clicks');
  for (const deadline = Date.now() + 5000; (await rollups()) < clicks && Date.now() < deadline;) await sleep(100);
  assert.equal(await rollups(), clicks, 'every click once, after the tries that failed');
});

test('a rollup write is paced: each chunk waits until the one before took ANALYTICS_WRITE_SHARE of the time, the counts go on meanwhile, and flush() writes at once', async (t) => {
  await clearOfMidnight();
  // Two chunks or more: one click on a link is a row for the link and one per dimension (8).
  const codes = Array.from({ length: Math.ceil((CHUNK_ROWS + 1) / 8) + 10 }, (_, i) => `paced${String(i).padStart(5, '0')}`);
  await insertRawLinks(database.url, codes);
  // Each chunk's statement takes Postgres 1 s more, and notes when it began and ended.
  await withClient(database.url, (client) =>
    client.query(`CREATE TABLE rollup_statements (began timestamptz NOT NULL, ended timestamptz NOT NULL);
      CREATE FUNCTION rollup_ended() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN INSERT INTO rollup_statements VALUES (statement_timestamp(), clock_timestamp()); RETURN NULL; END $$;
      CREATE TRIGGER rollup_ended AFTER INSERT ON click_rollups FOR EACH STATEMENT EXECUTE FUNCTION rollup_ended();`),
  );
  t.after(() =>
    withClient(database.url, (client) =>
      client.query(
        'DROP TRIGGER IF EXISTS rollup_ended ON click_rollups; DROP FUNCTION IF EXISTS rollup_ended(); DROP TABLE IF EXISTS rollup_statements',
      ),
    ),
  );
  await onRollupStatements(t, 'PERFORM pg_sleep(1)');
  const statements = async () =>
    (
      await withClient(database.url, (client) =>
        client.query<{ began: Date; ended: Date }>('SELECT began, ended FROM rollup_statements ORDER BY began'),
      )
    ).rows.map((row) => ({ began: row.began.getTime(), took: row.ended.getTime() - row.began.getTime() }));
  /** Each pause between two statements, over the time the one before took. */
  const pauses = (list: { began: number; took: number }[]) =>
    list.slice(1).map(({ began }, i) => {
      const previous = list[i] as { began: number; took: number };
      return Number(((began - previous.began - previous.took) / previous.took).toFixed(2));
    });
  // Half an interval (15 s) has room for two chunks and the pause between them, even where a chunk takes Postgres 4 s.
  const { app } = await startApp(t, database.url, {
    ...BEHIND_PROXY,
    CLICK_FLUSH_INTERVAL_MS: '100',
    ANALYTICS_FLUSH_INTERVAL_MS: '30000',
    ANALYTICS_WRITE_SHARE: '0.5',
  });
  const clickEach = async () => {
    for (const code of codes)
      assert.equal(
        (await app.inject({ url: `/${code}`, headers: { 'user-agent': UA.iphone, 'x-forwarded-for': '8.8.8.8' } })).statusCode,
        302,
      );
  };
  await clickEach();
  for (const deadline = Date.now() + 45_000; (await statements()).length === 0 && Date.now() < deadline;) await sleep(50);
  assert.ok((await statements()).length > 0, 'the timer began writing the rollups');
  // Clicked while the rollups are written: the counts are not held back by them.
  const [busy] = codes;
  await clickAll(app, busy as string, [CLICKS[0] as Click]);
  for (const deadline = Date.now() + 5000; (await stats(app, `/links/${busy}/stats`)).range.clicks < 4 && Date.now() < deadline;)
    await sleep(50);
  assert.equal((await stats(app, `/links/${busy}/stats`)).range.clicks, 4, 'counted meanwhile');
  const chunksNow = (await statements()).length;
  const own = async () =>
    Number(
      (
        await withClient(database.url, (client) =>
          client.query<{ n: string }>("SELECT coalesce(sum(clicks), 0) AS n FROM click_rollups WHERE code LIKE 'paced%' AND dimension = 0"),
        )
      ).rows[0]?.n,
    );
  for (const deadline = Date.now() + 60_000; (await own()) < codes.length && Date.now() < deadline;) await sleep(100);
  assert.equal(await own(), codes.length, 'every click of the paced write is in, once');
  const paced = await statements();
  assert.ok(paced.length >= 2, `${paced.length} chunks`);
  assert.ok(chunksNow < paced.length, `the counts were written before the rollups' last chunk (${chunksNow} of ${paced.length} written)`);
  // At a share of 0.5 a pause lasts as long as the chunk before it.
  for (const pause of pauses(paced)) assert.ok(pause >= 0.9, `pauses of ${pauses(paced).join(', ')} × the chunk before`);
  // flush() (and a graceful stop) write at once: no pauses.
  await withClient(database.url, (client) => client.query('TRUNCATE rollup_statements'));
  await clickEach();
  await app.clicks.flush();
  const hurried = await statements();
  assert.ok(hurried.length >= 2, `${hurried.length} chunks`);
  for (const pause of pauses(hurried)) assert.ok(pause < 0.2, `pauses of ${pauses(hurried).join(', ')} × the chunk before`);
  assert.equal(await own(), 2 * codes.length + 3);
});

test('a flush Postgres cannot take keeps the rollups with the counts, and the next one writes them, each click once', async (t) => {
  await clearOfMidnight();
  const { proxy, url } = await proxyInFront(t, database.url);
  const { app } = await startApp(t, url, {
    ...BEHIND_PROXY,
    DB_CONNECT_TIMEOUT_MS: '500',
    BREAKER_RESET_MS: '300',
  });
  const code = await create(app);
  const [first, ...rest] = CLICKS;
  await clickAll(app, code, [first as Click]);
  await proxy.down();
  await app.clicks.flush();
  // While Postgres is away, the link keeps redirecting from the cache, and counting.
  await clickAll(app, code, rest);
  await app.clicks.flush();
  await proxy.up();
  for (const deadline = Date.now() + 10_000; app.clicks.waiting > 0 && Date.now() < deadline;) {
    await app.clicks.flush();
    if (app.clicks.waiting > 0) await sleep(100);
  }
  assertDimensions(await stats(app, `/links/${code}/stats?dimensions=all&limit=100`), 'after two failed flushes');
  assert.equal(app.visits?.dropped, 0);
});

test('with ANALYTICS_ENABLED=false clicks are still counted and nothing else is kept', async (t) => {
  const { app } = await startApp(t, database.url, { ...BEHIND_PROXY, ANALYTICS_ENABLED: 'false' });
  assert.equal(app.visits, null);
  const code = await create(app);
  await clickAll(app, code);
  await app.clicks.flush();
  const body = await stats(app, `/links/${code}/stats?dimensions=all`);
  assert.equal(body.range.clicks + body.range.botClicks, 12);
  assert.deepEqual(body.dimensions, {});
  const rows = await withClient(database.url, (client) => client.query('SELECT 1 FROM click_rollups WHERE code = $1', [code]));
  assert.equal(rows.rowCount, 0);
});

test('a stats query that names no dimension, or a limit out of range, is a 400 that says what is wrong', async (t) => {
  const { app } = await startApp(t, database.url, BEHIND_PROXY);
  const code = await create(app);
  for (const [query, message] of [
    ['dimensions=ip', /"ip" is none of referrer/],
    ['dimensions=country,,device', /"" is none of/],
    ['limit=0', /limit must be an integer from 1 to 100/],
    ['limit=101', /limit must be an integer from 1 to 100/],
    ['limit=ten', /limit must be an integer from 1 to 100/],
    ['dimensions=a&dimensions=b', /"dimensions" is given more than once/],
  ] as const) {
    for (const path of [`/links/${code}/stats`, `/links/${code}/stats.csv`, '/stats', '/stats.csv']) {
      const res = await app.inject({ url: `${path}?${query}`, headers });
      assert.equal(res.statusCode, 400, `${path}?${query}`);
      assert.equal(errorCode(res), 'STATS_QUERY_INVALID', `${path}?${query}`);
      assert.match(res.json<{ error: { message: string } }>().error.message, message);
    }
  }
  assert.equal((await app.inject({ url: '/stats?from=2026-13-01', headers })).statusCode, 400);
  assert.equal((await app.inject({ url: '/stats' })).statusCode, 401);
});

test('retention drops the months whose days are all past ANALYTICS_RETENTION_DAYS, and keeps the rest', async (t) => {
  const { app, pool } = await startApp(t, database.url, { ...BEHIND_PROXY, ANALYTICS_RETENTION_DAYS: '60' });
  const code = await create(app);
  // A month long past, as a deployment running since then would have it.
  await maintainPartitions(pool, '2024-01-15', null, 0);
  await pool.query(
    `INSERT INTO click_rollups (domain_id, code, day, dimension, value, clicks, bot_clicks, visitors) VALUES (0, $1, '2024-01-10', 2, 'US', 4, 0, '{65}')`,
    [code],
  );
  await pool.query(`INSERT INTO orphan_visits (domain_id, day, path, visits) VALUES (0, '2024-01-10', 'gone', 4)`);
  const partitions = async () =>
    (
      await pool.query<{ name: string }>(
        `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
         WHERE i.inhparent IN ('click_rollups'::regclass, 'workspace_rollups'::regclass, 'orphan_visits'::regclass, 'link_clicks_daily'::regclass)`,
      )
    ).rows.map((row) => row.name);
  assert.ok((await partitions()).includes('click_rollups_2024_01'));

  const dropped = await app.upkeep.run();
  assert.equal(dropped, 3, 'click_rollups, workspace_rollups and orphan_visits of 2024-01');
  const left = await partitions();
  for (const gone of ['click_rollups_2024_01', 'workspace_rollups_2024_01', 'orphan_visits_2024_01']) assert.ok(!left.includes(gone), gone);
  const month = utcDay(Date.now()).slice(0, 7).replace('-', '_');
  for (const kept of [`click_rollups_${month}`, `orphan_visits_${month}`, 'link_clicks_daily_before']) assert.ok(left.includes(kept), kept);
  assert.equal((await pool.query("SELECT 1 FROM orphan_visits WHERE path = 'gone'")).rowCount, 0);
  // The daily counts have the same retention: years later, their partition from before partitioning goes too.
  await maintainPartitions(pool, '2031-06-15', 60, 0);
  assert.ok(!(await partitions()).includes('link_clicks_daily_before'));
  assert.ok((await partitions()).includes('link_clicks_daily_2031_06'));
});

test('no client address is kept in any table, nor written to the log', async (t) => {
  const { app, lines } = await startLoggedApp(t, database.url, BEHIND_PROXY, 'debug');
  const code = await create(app);
  await clickAll(app, code);
  await app.clicks.flush();
  const dump = execFileSync('pg_dump', ['--data-only', '--no-owner', database.url], { maxBuffer: 256 * 1024 * 1024 }).toString();
  assert.ok(dump.includes(code), 'the dump holds the link: it is the database the clicks went to');
  // Every address any test of this file clicked from, and the forms an address could be stored in.
  const forms = [...ADDRESSES, '100.64.', '100.65.', '2001:4860:4860:0:0:0:0:8888', '2001:4860:4860::/64', '::ffff:8.8.8.8'];
  for (const address of forms) assert.ok(!dump.includes(address), `${address} is in the database dump`);
  const logged = JSON.stringify(lines);
  assert.ok(lines.length > 0, 'the app logged at debug level');
  for (const address of forms) assert.ok(!logged.includes(address), `${address} is in the log`);
});
