// Click analytics in the dashboard, in a real browser (see test/dashboard/dashboard.test.ts for the set-up): clicks
// are sent to two links with known user agents, referrers, languages, addresses (X-Forwarded-For,
// believed from loopback) and a QR code; then the link's page and the workspace's analytics page must
// show exactly those clicks, value by value, and their CSV downloads the same numbers. Also: requests
// for short URLs that do not exist (orphan visits), an empty period, and an API error with its retry.

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import type { Browser, Locator, Page } from 'playwright-core';
import type { CreatedKey } from '../../src/auth/api-keys.ts';
import { formatError, sharePercent, valueCode, valueLabel } from '../../web/src/analytics/analytics.ts';
import { bearer, startApp } from '../helpers/app.ts';
import { launchChromium, look, screenshot, signInWithKey, startLandingPage, watchedPage } from '../helpers/browser.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { freePort } from '../helpers/redis.ts';
import { keysWith } from '../helpers/workspaces.ts';
import { COUNTRY_IP as IP } from '../helpers/geo.ts';

const UA = {
  chromeWindows: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
  safariIphone:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
  chromeAndroid: 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36',
  safariIpad:
    'Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
  firefoxLinux: 'Mozilla/5.0 (X11; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0',
  googlebot: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
};

interface Click {
  times: number;
  ip: string;
  ua: string;
  referer?: string;
  language?: string;
  qr?: true;
}

/**
 * The clicks on the first link. Five people (an address and a browser each), one of them twice over a
 * QR code… and a crawler. Every number the pages must show follows from this table.
 */
const SPRING_CLICKS: Click[] = [
  { times: 3, ip: IP.us, ua: UA.chromeWindows, referer: 'https://www.news.example.com/today?id=7', language: 'en-US,en;q=0.9' },
  { times: 2, ip: IP.gb, ua: UA.safariIphone, referer: 'https://social.example.org/p/1', language: 'en-GB' },
  { times: 1, ip: IP.jp, ua: UA.chromeAndroid, language: 'ja-JP,ja;q=0.8' },
  { times: 1, ip: IP.nl, ua: UA.safariIpad, language: 'nl-NL', qr: true },
  { times: 1, ip: IP.us, ua: UA.firefoxLinux, referer: 'https://news.example.com/b', language: 'de-DE,de;q=0.9,en;q=0.5', qr: true },
  { times: 1, ip: IP.us, ua: UA.googlebot },
];
const AUTUMN_CLICKS: Click[] = [{ times: 2, ip: IP.jp, ua: UA.chromeAndroid, language: 'ja' }];

/** A row of a top list as shown: people, bots, visitors. */
type Shown = [people: number, bots: number, visitors: number];

/** What the link's page must show per dimension (label -> numbers), from SPRING_CLICKS. */
const SPRING: Record<string, Record<string, Shown>> = {
  Referrers: { 'news.example.com': [4, 0, 2], 'social.example.org': [2, 0, 1], 'No referrer': [2, 1, 2] },
  Countries: { 'United States': [4, 1, 2], 'United Kingdom': [2, 0, 1], Japan: [1, 0, 1], Netherlands: [1, 0, 1] },
  Devices: { Desktop: [4, 0, 2], Mobile: [3, 0, 2], Tablet: [1, 0, 1], Bot: [0, 1, 0] },
  Languages: { English: [5, 0, 2], Japanese: [1, 0, 1], Dutch: [1, 0, 1], German: [1, 0, 1], Unknown: [0, 1, 0] },
  'QR code or link': { 'Short URL': [6, 1, 3], 'QR code': [2, 0, 2] },
};
/** Browsers and systems of the people; what a crawler's user agent reads as is the parser's business. */
const SPRING_PEOPLE: Record<string, Record<string, Shown>> = {
  Browsers: { Chrome: [4, 0, 2], Safari: [3, 0, 2], Firefox: [1, 0, 1] },
  'Operating systems': { Windows: [3, 0, 1], iOS: [3, 0, 2], Android: [1, 0, 1], Linux: [1, 0, 1] },
};

let database: TestDatabase;
let browser: Browser;
let landing: Awaited<ReturnType<typeof startLandingPage>> | undefined;
let admin: CreatedKey;

before(async () => {
  database = await createTestDatabase('dashboard-analytics');
  ({ Ada: admin } = await keysWith(database.url, { Ada: 'admin' }));
  landing = await startLandingPage('analytics');
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await landing?.close();
  await database.drop();
});

/** A GET of `path` as a browser behind a proxy would send it; resolves with the status. */
function visit(port: number, path: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

async function sendClicks(port: number, code: string, clicks: readonly Click[]): Promise<void> {
  for (const click of clicks) {
    const headers: Record<string, string> = { 'user-agent': click.ua, 'x-forwarded-for': click.ip };
    if (click.referer !== undefined) headers['referer'] = click.referer;
    if (click.language !== undefined) headers['accept-language'] = click.language;
    for (let i = 0; i < click.times; i++) {
      assert.equal(await visit(port, `/${code}${click.qr === true ? '?qr=1' : ''}`, headers), 302, `a click on ${code}`);
    }
  }
}

/** A table's body rows as text, cell by cell, without what is hidden from assistive technology (a country's code badge). */
async function rowsOf(table: Locator): Promise<string[][]> {
  return table.locator('tbody tr').evaluateAll((rows) =>
    rows.map((row) =>
      Array.from((row as unknown as { cells: ArrayLike<{ cloneNode(deep: boolean): unknown }> }).cells, (cell) => {
        const copy = cell.cloneNode(true) as { querySelectorAll(s: string): { remove(): void }[]; textContent: string | null };
        for (const hidden of copy.querySelectorAll('[aria-hidden="true"]')) hidden.remove();
        return (copy.textContent ?? '').trim();
      }),
    ),
  );
}

/** A top list's rows by label, and their order by clicks (people and bots) checked on the way. */
async function topList(scope: Page | Locator, title: string): Promise<Map<string, Shown>> {
  const rows = await rowsOf(scope.getByRole('region', { name: title, exact: true }).getByRole('table'));
  const shown = new Map<string, Shown>();
  for (const [label = '', ...numbers] of rows) shown.set(label, numbers.map(Number) as Shown);
  // The bucket of the values past those kept apart ("Others") may come last whatever its size.
  const sums = [...shown].filter(([label]) => label !== 'Others').map(([, [people, bots]]) => people + bots);
  assert.deepEqual(
    sums,
    sums.toSorted((a, b) => b - a),
    `${title}: most clicked first`,
  );
  return shown;
}

async function assertTopLists(scope: Page | Locator, exact: Record<string, Record<string, Shown>>, people: typeof SPRING_PEOPLE) {
  for (const [title, expected] of Object.entries(exact)) {
    assert.deepEqual(Object.fromEntries(await topList(scope, title)), expected, title);
  }
  for (const [title, expected] of Object.entries(people)) {
    const shown = await topList(scope, title);
    for (const [label, numbers] of Object.entries(expected)) assert.deepEqual(shown.get(label), numbers, `${title}: ${label}`);
    const bots = [...shown.values()].reduce((sum, [, b]) => sum + b, 0);
    assert.equal(bots, 1, `${title}: the crawler's click, under whatever it reads as`);
  }
}

/** A CSV answer parsed: its rows after the header, as kind -> value -> [clicks, bot clicks, visitors]. */
function csvTable(text: string): Map<string, Map<string, Shown>> {
  const [header, ...rows] = parse(text);
  assert.deepEqual(header, ['kind', 'value', 'clicks', 'bot_clicks', 'visitors']);
  const kinds = new Map<string, Map<string, Shown>>();
  for (const [kind = '', value = '', ...numbers] of rows) {
    const values = kinds.get(kind) ?? new Map<string, Shown>();
    values.set(value, numbers.map(Number) as Shown);
    kinds.set(kind, values);
  }
  return kinds;
}

function sumOf(values: Map<string, Shown> | undefined): Shown {
  const sum: Shown = [0, 0, 0];
  for (const numbers of values?.values() ?? []) for (let i = 0; i < 3; i++) sum[i] = (sum[i] ?? 0) + (numbers[i] ?? 0);
  return sum;
}

test("a link's page and the workspace's analytics page show the clicks sent, value by value, and their CSV files the same", async (t) => {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const { app } = await startApp(t, database.url, {
    BASE_URL: base,
    ALLOW_PRIVATE_TARGETS: 'true',
    PORT: String(port),
    // The clicks' addresses come in X-Forwarded-For, from the test on loopback.
    TRUST_PROXY: 'loopback',
    ANALYTICS_ENABLED: 'true',
  });
  await app.listen({ port, host: '127.0.0.1' });
  const suffix = Date.now().toString(36);
  const spring = `spring-${suffix}`;
  const autumn = `autumn-${suffix}`;
  for (const [alias, title] of [
    [spring, 'Spring sale'],
    [autumn, 'Autumn sale'],
  ] as const) {
    const res = await app.inject({ method: 'POST', url: '/links', headers: bearer(admin), payload: { url: landing?.url, alias, title } });
    assert.equal(res.statusCode, 201, res.body);
  }
  await sendClicks(port, spring, SPRING_CLICKS);
  await sendClicks(port, autumn, AUTUMN_CLICKS);
  for (const [path, times] of [
    [`nope-${suffix}`, 2],
    [`gone-${suffix}`, 1],
  ] as const) {
    for (let i = 0; i < times; i++) assert.equal(await visit(port, `/${path}`, { 'user-agent': UA.firefoxLinux }), 404);
  }
  await app.clicks.flush();

  const desk = await watchedPage(browser, { width: 1280, height: 800 });
  t.after(() => desk.context.close());
  const { page } = desk;

  // The link's page: the period's totals, the top lists, and its CSV.
  await signInWithKey(page, base, admin.secret, `/app/links/${spring}`);
  await page.getByRole('heading', { name: 'Link Spring sale' }).waitFor();
  const totals = page.locator('.totals');
  await totals.filter({ hasText: '8 clicks by people' }).waitFor();
  assert.match((await totals.textContent()) ?? '', /8 clicks by people\s*1 by bots\s*≈ 5 unique visitors \(±1\.6%\)/);
  await assertTopLists(page, SPRING, SPRING_PEOPLE);
  assert.ok((await page.locator('.chart canvas').count()) > 0, 'the chart is drawn');
  await look(page, 'desktop-analytics-01-link');
  const daysTable = page.locator('details.data-table');
  await daysTable.getByText('Clicks per day as a table').click();
  const days = await rowsOf(daysTable.getByRole('table'));
  assert.equal(days.length, 30, 'a row per day of the 30 days');
  assert.deepEqual(days.at(-1)?.slice(1), ['8', '1', '5'], 'today: 8 clicks by people, 1 by a bot, 5 visitors');

  const csvLink = page.getByRole('link', { name: 'Download CSV' });
  const href = (await csvLink.getAttribute('href')) ?? '';
  assert.match(
    href,
    new RegExp(`^/links/${spring}/stats\\.csv\\?from=\\d{4}-\\d{2}-\\d{2}&to=\\d{4}-\\d{2}-\\d{2}&dimensions=all&limit=100$`),
  );
  const [download] = await Promise.all([page.waitForEvent('download'), csvLink.click()]);
  const linkCsv = csvTable(await readFile(await download.path(), 'utf8'));
  assert.equal(linkCsv.get('day')?.size, 30, 'a day row per day');
  assert.deepEqual(sumOf(linkCsv.get('day')).slice(0, 2), [8, 1], 'the days add up to the clicks');
  assert.deepEqual(linkCsv.get('country')?.get('US'), [4, 1, 2]);
  assert.deepEqual(linkCsv.get('country')?.get('GB'), [2, 0, 1]);
  assert.deepEqual(linkCsv.get('referrer')?.get('direct'), [2, 1, 2]);
  assert.deepEqual(linkCsv.get('source')?.get('qr'), [2, 0, 2]);
  assert.deepEqual(linkCsv.get('language')?.get('ja'), [1, 0, 1]);
  assert.deepEqual(linkCsv.get('device')?.get('tablet'), [1, 0, 1]);

  // The workspace's analytics page, from the header.
  await page.getByRole('navigation').getByRole('link', { name: 'Analytics' }).click();
  await page.getByRole('heading', { name: 'Analytics', level: 1 }).waitFor();
  await page.locator('.totals').filter({ hasText: '10 clicks by people' }).waitFor();
  assert.match((await page.locator('.totals').textContent()) ?? '', /10 clicks by people\s*1 by bots\s*≈ 5 unique visitors/);
  const topLinks = await rowsOf(page.getByRole('region', { name: 'Top links' }).getByRole('table'));
  assert.deepEqual(topLinks, [
    [`Spring sale${base}/${spring}`, '8', '1'],
    [`Autumn sale${base}/${autumn}`, '2', '0'],
  ]);
  assert.equal(
    await page.getByRole('link', { name: 'Autumn sale' }).getAttribute('href'),
    `/app/links/${autumn}`,
    'a link of the default domain',
  );
  const orphans = page.getByRole('region', { name: 'Orphan visits' });
  // The default domain's host is BASE_URL's.
  const host = '127.0.0.1';
  assert.match((await orphans.textContent()) ?? '', /3 visits to short URLs that do not exist/);
  assert.deepEqual(await rowsOf(orphans.getByRole('table')), [
    [`${host}/nope-${suffix}`, '2'],
    [`${host}/gone-${suffix}`, '1'],
  ]);
  const breakdown = page.getByRole('region', { name: 'Where the clicks come from' });
  assert.deepEqual(Object.fromEntries(await topList(breakdown, 'Countries')), { ...SPRING['Countries'], Japan: [3, 0, 1] });
  assert.deepEqual(Object.fromEntries(await topList(breakdown, 'QR code or link')), { 'Short URL': [8, 1, 3], 'QR code': [2, 0, 2] });
  assert.deepEqual((await topList(breakdown, 'Devices')).get('Mobile'), [5, 0, 2]);
  // Not hovering the header's link it followed.
  await page.mouse.move(640, 790);
  await look(page, 'desktop-analytics-02-workspace');

  const workspaceHref = (await page.getByRole('link', { name: 'Download CSV' }).getAttribute('href')) ?? '';
  assert.match(workspaceHref, /^\/stats\.csv\?from=\d{4}-\d{2}-\d{2}&to=\d{4}-\d{2}-\d{2}&dimensions=all&limit=100$/);
  const answer = await page.request.get(`${base}${workspaceHref}`);
  assert.equal(answer.status(), 200);
  assert.match(answer.headers()['content-type'] ?? '', /^text\/csv/);
  assert.match(answer.headers()['content-disposition'] ?? '', /^attachment/);
  const workspaceCsv = csvTable(await answer.text());
  assert.deepEqual(sumOf(workspaceCsv.get('day')).slice(0, 2), [10, 1]);
  assert.deepEqual(workspaceCsv.get('link')?.get(`${base}/${spring}`)?.slice(0, 2), [8, 1]);
  assert.deepEqual(workspaceCsv.get('link')?.get(`${base}/${autumn}`)?.slice(0, 2), [2, 0]);
  assert.deepEqual(workspaceCsv.get('country')?.get('JP'), [3, 0, 1]);
  assert.deepEqual(workspaceCsv.get('orphan')?.get(`${host}/nope-${suffix}`)?.[0], 2);
  assert.deepEqual(workspaceCsv.get('orphan')?.get(`${host}/gone-${suffix}`)?.[0], 1);

  // A period without clicks says so.
  await page.getByRole('radio', { name: 'Custom' }).check();
  await page.getByLabel('From', { exact: true }).fill('2020-01-01');
  await page.getByLabel('To', { exact: true }).fill('2020-01-07');
  await page.getByRole('button', { name: 'Show' }).click();
  await page.getByText('No clicks in this period.').waitFor();
  assert.match((await page.locator('.totals').textContent()) ?? '', /^0 clicks by people/);
  assert.match((await orphans.textContent()) ?? '', /0 visits to short URLs/);
  assert.match((await page.getByRole('link', { name: 'Download CSV' }).getAttribute('href')) ?? '', /from=2020-01-01&to=2020-01-07/);
  await look(page, 'desktop-analytics-03-empty');

  // On a phone: both pages fit its width.
  const phone = await watchedPage(browser, { width: 375, height: 812 });
  t.after(() => phone.context.close());
  await signInWithKey(phone.page, base, admin.secret, '/app/analytics');
  await phone.page.getByRole('heading', { name: 'Analytics', level: 1 }).waitFor();
  await phone.page.locator('.totals').filter({ hasText: '10 clicks by people' }).waitFor();
  await look(phone.page, 'phone-analytics-workspace');
  await phone.page.goto(`${base}/app/links/${spring}`);
  await phone.page.locator('.totals').filter({ hasText: '8 clicks by people' }).waitFor();
  await assertTopLists(phone.page, SPRING, SPRING_PEOPLE);
  await look(phone.page, 'phone-analytics-link');

  assert.deepEqual(desk.problems, [], 'no console error and no CSP violation on the desktop');
  assert.deepEqual(phone.problems, [], 'none on the phone');
});

test('when the analytics cannot be read, the page says why and reads them again on "Try again"', async (t) => {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const { app } = await startApp(t, database.url, { BASE_URL: base, PORT: String(port), ANALYTICS_ENABLED: 'true' });
  await app.listen({ port, host: '127.0.0.1' });
  const desk = await watchedPage(browser, { width: 1280, height: 800 });
  t.after(() => desk.context.close());
  const { page } = desk;
  const isStats = (url: URL) => url.pathname === '/stats';
  await page.route(isStats, (route) =>
    route.fulfill({
      status: 503,
      contentType: 'application/json',
      body: JSON.stringify({ error: { code: 'DATABASE_UNAVAILABLE', message: 'The database is not reachable.' } }),
    }),
  );
  await signInWithKey(page, base, admin.secret, '/app/analytics');
  const alert = page.getByRole('alert').filter({ hasText: 'The analytics could not be loaded' });
  await alert.waitFor();
  assert.match((await alert.textContent()) ?? '', /The database is not reachable\./);
  await screenshot(page, 'desktop-analytics-04-error');
  await page.unroute(isStats);
  await alert.getByRole('button', { name: 'Try again' }).click();
  await page.locator('.totals').waitFor();
  assert.equal(await alert.count(), 0, 'the error is gone');
  assert.deepEqual(desk.problems, []);
});

describe('what the analytics views say', () => {
  test("a dimension's values read as names; the bucket past the bound as Others", () => {
    const row = (value: string, other?: true) => ({ value, clicks: 1, botClicks: 0, visitors: 1, ...(other ? { other } : {}) });
    assert.equal(valueLabel('country', row('US')), 'United States');
    assert.equal(valueCode('country', row('US')), 'US');
    assert.equal(valueLabel('country', row('unknown')), 'Unknown');
    assert.equal(valueCode('country', row('unknown')), null);
    assert.equal(valueLabel('language', row('ja')), 'Japanese');
    assert.equal(valueLabel('referrer', row('direct')), 'No referrer');
    assert.equal(valueLabel('source', row('qr')), 'QR code');
    assert.equal(valueLabel('device', row('other')), 'Other device', 'a device the parser could not place');
    assert.equal(valueLabel('device', row('other', true)), 'Others', 'the bucket of values past the bound');
    assert.equal(valueLabel('city', row('Zürich')), 'Zürich');
  });

  test('the error of the visitor counts reads as a percentage; a bar is a share of all clicks', () => {
    assert.equal(formatError(0.0163), '±1.6%');
    assert.equal(sharePercent({ clicks: 3, botClicks: 1 }, { clicks: 7, botClicks: 1 }), 50);
    assert.equal(sharePercent({ clicks: 0, botClicks: 0 }, { clicks: 0, botClicks: 0 }), 0);
  });
});
