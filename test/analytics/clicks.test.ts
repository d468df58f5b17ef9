// Click analytics against a real Postgres: every 302 is counted once, bots apart, per UTC day, and
// no count is lost to a failed flush or a graceful restart.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import { msToNextUtcDay, statsRange, utcDay } from '../../src/core/day-range.ts';
import { addClicks, readStats } from '../../src/analytics/click-store.ts';
import { createLink, onDefault, startApp } from '../helpers/app.ts';
import { createTestDatabase, insertRawLinks, withClient, type TestDatabase } from '../helpers/db.ts';
import { startLoggedApp } from '../helpers/logs.ts';
import { postLink, startServer } from '../helpers/server-process.ts';
import { proxyInFront } from '../helpers/tcp-proxy.ts';

const BROWSER = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
/** No flush by the timer during a test: each one flushes when it means to. */
const NO_TIMER = { CLICK_FLUSH_INTERVAL_MS: '3600000' };

/**
 * Waits past the next UTC midnight when it is near. The flusher takes its counts at midnight, so
 * that a day's clicks stay on that day: a test crossing it would see them written on two days.
 */
async function clearOfMidnight(marginMs = 30_000): Promise<void> {
  const left = msToNextUtcDay(Date.now());
  if (left < marginMs) await sleep(left + 50);
}

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase('clicks');
});
after(() => database.drop());

interface Totals {
  clicks: number;
  botClicks: number;
  daily: Record<string, [clicks: number, botClicks: number]>;
}

/** What Postgres holds for `code`, read straight from the database (not through the app). */
async function totals(code: string): Promise<Totals> {
  return withClient(database.url, async (client) => {
    const link = await client.query<{ clicks: string; bot_clicks: string }>('SELECT clicks, bot_clicks FROM link_totals WHERE code = $1', [
      code,
    ]);
    const days = await client.query<{ day: string; clicks: string; bot_clicks: string }>(
      'SELECT day::text AS day, clicks, bot_clicks FROM link_clicks_daily WHERE code = $1',
      [code],
    );
    const row = link.rows[0];
    assert.ok(row !== undefined, `no link ${code}`);
    const daily: Totals['daily'] = {};
    for (const d of days.rows) daily[d.day] = [Number(d.clicks), Number(d.bot_clicks)];
    return { clicks: Number(row.clicks), botClicks: Number(row.bot_clicks), daily };
  });
}

async function redirectOverHttp(base: string, code: string, userAgent: string): Promise<number> {
  const res = await fetch(`${base}/${code}`, { redirect: 'manual', headers: { 'user-agent': userAgent } });
  await res.arrayBuffer();
  return res.status;
}

async function redirectInjected(app: FastifyInstance, code: string, userAgent: string, method: 'GET' | 'HEAD' = 'GET'): Promise<number> {
  return (await app.inject({ method, url: `/${code}`, headers: { 'user-agent': userAgent } })).statusCode;
}

test('after N redirects and a flush the counts are exact, through the listener and through app.inject, bots apart, on the UTC day', async (t) => {
  await clearOfMidnight();
  const { app, pool } = await startApp(t, database.url, NO_TIMER);
  const created = await createLink(app, { url: 'https://example.com/counted' });
  const code = String(created.body.code);
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  const day = utcDay(Date.now());

  for (let i = 0; i < 25; i++) assert.equal(await redirectOverHttp(base, code, BROWSER), 302);
  for (let i = 0; i < 7; i++) assert.equal(await redirectOverHttp(base, code, GOOGLEBOT), 302);
  for (let i = 0; i < 10; i++) assert.equal(await redirectInjected(app, code, BROWSER), 302);
  for (let i = 0; i < 3; i++) assert.equal(await redirectInjected(app, code, GOOGLEBOT, 'HEAD'), 302);
  // Answers that are not redirects are not clicks.
  assert.equal(await redirectOverHttp(base, 'no-such-link', BROWSER), 404);
  assert.equal((await totals(code)).clicks, 0, 'nothing is written before a flush');

  await app.clicks.flush();
  const written = await totals(code);
  assert.equal(written.clicks, 35);
  assert.equal(written.botClicks, 10);
  assert.deepEqual(written.daily, { [day]: [35, 10] });

  // A second flush adds; it never rewrites.
  assert.equal(await redirectOverHttp(base, code, BROWSER), 302);
  await app.clicks.flush();
  await app.clicks.flush();
  assert.deepEqual(await totals(code), { clicks: 36, botClicks: 10, daily: { [day]: [36, 10] } });

  const range = statsRange(undefined, undefined, Date.now());
  assert.ok(range !== undefined);
  const stats = await readStats(pool, onDefault(code), range);
  assert.deepEqual(stats?.total, { clicks: 36, botClicks: 10 });
  assert.equal(stats.daily.length, 30, 'every day of the range, zero-filled');
  assert.deepEqual(stats.daily.at(-1), { day: range.to, clicks: 36, botClicks: 10 });
  assert.ok(stats.daily.slice(0, -1).every((d) => d.clicks === 0 && d.botClicks === 0));
  assert.equal(await readStats(pool, onDefault('no-such-link'), range), undefined);
});

test('a click on a code with no row does not break the flush: the other links get theirs', async (t) => {
  await clearOfMidnight();
  const { app, pool } = await startApp(t, database.url, NO_TIMER);
  await insertRawLinks(database.url, ['real-one', 'real-two']);
  const day = utcDay(Date.now());
  const counts = new Map([
    [
      day,
      new Map([
        ['real-one', { clicks: 3, bots: 1 }],
        ['ghost-link', { clicks: 5, bots: 0 }],
      ]),
    ],
  ]);
  assert.equal(await addClicks(pool, counts), 1, 'one daily row: the ghost is left out');
  assert.deepEqual(await totals('real-one'), { clicks: 3, botClicks: 1, daily: { [day]: [3, 1] } });

  // The same through the app's counter and flusher.
  app.clicks.counter.count('ghost-link', BROWSER);
  assert.equal(await redirectInjected(app, 'real-two', BROWSER), 302);
  await app.clicks.flush();
  assert.equal(app.clicks.waiting, 0, 'nothing kept back for another try');
  assert.deepEqual(await totals('real-two'), { clicks: 1, botClicks: 0, daily: { [day]: [1, 0] } });
});

test('past CLICK_MAX_CODES links between flushes, further clicks are dropped, counted and logged, never held without bound', async (t) => {
  const { app, lines } = await startLoggedApp(t, database.url, { ...NO_TIMER, CLICK_MAX_CODES: '3' });
  const codes = ['cap-a', 'cap-b', 'cap-c', 'cap-d', 'cap-e'];
  await insertRawLinks(database.url, codes);
  // In one turn of the event loop, before the early flush that a full counter asks for can run.
  for (const code of codes) app.clicks.counter.count(code, BROWSER);
  app.clicks.counter.count('cap-a', BROWSER);
  await app.clicks.flush();
  const written = await Promise.all(codes.map(async (code) => (await totals(code)).clicks));
  assert.deepEqual(written, [2, 1, 1, 0, 0]);
  assert.equal(app.clicks.dropped, 2);
  const warnings = lines.filter((line) => String(line.msg).startsWith('clicks dropped'));
  assert.equal(warnings.length, 1);
  assert.equal(warnings[0]?.clicks, 2);
});

test('a flush that fails (Postgres unreachable) keeps its counts, and the next one writes them all', async (t) => {
  const { proxy, url } = await proxyInFront(t, database.url);
  const { app } = await startApp(t, url, {
    ...NO_TIMER,
    DB_CONNECT_TIMEOUT_MS: '500',
    BREAKER_RESET_MS: '300',
  });
  await insertRawLinks(database.url, ['kept-one']);
  for (let i = 0; i < 4; i++) assert.equal(await redirectInjected(app, 'kept-one', BROWSER), 302);

  await proxy.down();
  await app.clicks.flush();
  assert.equal(app.clicks.waiting, 1, 'the failed flush kept its counts');
  assert.equal((await totals('kept-one')).clicks, 0);
  // Cached, the link keeps redirecting, and counting, while Postgres is away.
  for (let i = 0; i < 3; i++) assert.equal(await redirectInjected(app, 'kept-one', GOOGLEBOT), 302);
  await app.clicks.flush();
  assert.equal((await totals('kept-one')).clicks, 0);
  assert.equal(app.clicks.waiting, 1, 'the second failed flush kept the counts, merged with the new ones');

  await proxy.up();
  for (const deadline = Date.now() + 10_000; app.clicks.waiting > 0 && Date.now() < deadline;) {
    await app.clicks.flush();
    if (app.clicks.waiting > 0) await sleep(100);
  }
  const written = await totals('kept-one');
  assert.equal(written.clicks, 4);
  assert.equal(written.botClicks, 3);
  assert.equal(app.clicks.dropped, 0);
});

test('counts are exact across a graceful restart: SIGTERM writes the clicks not yet flushed', async () => {
  const env = { DATABASE_URL: database.url, BASE_URL: 'https://sho.rt', CODE_SECRET: 'clicks-test-secret-1234', ...NO_TIMER };
  const first = await startServer(env);
  const created = await postLink(first.url, { url: 'https://example.com/restart' });
  assert.equal(created.status, 201);
  const code = created.code as string;
  for (let i = 0; i < 20; i++) assert.equal(await redirectOverHttp(first.url, code, BROWSER), 302);
  for (let i = 0; i < 5; i++) assert.equal(await redirectOverHttp(first.url, code, GOOGLEBOT), 302);
  first.child.kill('SIGTERM');
  assert.deepEqual(await first.exited, { code: 0, signal: null });
  assert.deepEqual([(await totals(code)).clicks, (await totals(code)).botClicks], [20, 5]);

  const second = await startServer(env);
  for (let i = 0; i < 15; i++) assert.equal(await redirectOverHttp(second.url, code, BROWSER), 302);
  second.child.kill('SIGTERM');
  assert.deepEqual(await second.exited, { code: 0, signal: null });
  const written = await totals(code);
  assert.equal(written.clicks, 35);
  assert.equal(written.botClicks, 5);
  assert.equal(
    Object.values(written.daily).reduce((sum, [clicks]) => sum + clicks, 0),
    35,
  );
});
