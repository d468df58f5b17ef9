// Issue 38's journey, in one real browser: a marketer's day on a desktop and on a phone (brand the
// workspace, make a link with options, find it, act on it from the list, read analytics and drill down),
// with axe and screenshots at each stop and no 4xx in normal use; then a visitor's browser, which gets a
// branded page, never JSON, for every state of a dead link.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Browser } from 'playwright-core';
import type { CreatedKey } from '../../src/auth/api-keys.ts';
import { bearer, startApp } from '../helpers/app.ts';
import { DESKTOP_UA, launchChromium, look, saved, signInWithKey, unfoldMenu, watchedPage } from '../helpers/browser.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { freePort } from '../helpers/redis.ts';
import { keysWith } from '../helpers/workspaces.ts';
import { COUNTRY_IP as IP } from '../helpers/geo.ts';

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

let database: TestDatabase;
let admin: CreatedKey;
let browser: Browser;

before(async () => {
  database = await createTestDatabase('marketer_day');
  ({ admin } = await keysWith(database.url, { admin: 'admin' }));
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await database.drop();
});

test('a marketer’s day on a desktop and a phone; a visitor’s browser gets a page for every dead link', async (t) => {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const { app } = await startApp(t, database.url, {
    BASE_URL: base,
    PORT: String(port),
    TRUST_PROXY: 'loopback',
    ANALYTICS_ENABLED: 'true',
  });
  await app.listen({ port, host: '127.0.0.1' });
  const api = async (method: 'POST' | 'PATCH', url: string, payload: object) => {
    const res = await app.inject({ method, url, headers: bearer(admin), payload });
    assert.ok(res.statusCode < 300, res.body);
    return res.json<{ code: string; state?: string }>();
  };
  const click = async (code: string, country: keyof typeof IP) => {
    const res = await app.inject({ url: `/${code}`, headers: { 'user-agent': DESKTOP_UA, 'x-forwarded-for': IP[country] } });
    assert.equal(res.statusCode, 302, `${code}: ${res.body}`);
  };
  // Links made before the day starts: two more tagged sms, one that expires during the day, one that starts tomorrow.
  await api('POST', '/links', { url: 'https://shop.example/winter', alias: 'winter', title: 'Winter sale', tags: ['sms'] });
  await api('POST', '/links', { url: 'https://shop.example/autumn', alias: 'autumn', title: 'Autumn sale', tags: ['sms-2025'] });
  await api('POST', '/links', { url: 'https://shop.example/news', alias: 'news', title: 'Newsletter', tags: ['email'] });
  // Expires while the day goes on: far enough ahead that a slow create is still in time, and waited out below.
  const flashEnds = Date.now() + 10_000;
  await api('POST', '/links', { url: 'https://shop.example/flash', alias: 'flash', expiresAt: new Date(flashEnds).toISOString() });
  const tomorrow = new Date(Date.now() + 86_400_000).toISOString();
  await api('POST', '/links', { url: 'https://shop.example/launch', alias: 'launch', startsAt: tomorrow });

  const desktop = await watchedPage(browser, DESKTOP);
  t.after(() => desktop.context.close());
  const { page } = desktop;

  // Settings: the brand that visitors will see.
  await signInWithKey(page, base, admin.secret, '/app/settings');
  await page.getByRole('heading', { name: 'Workspace settings', level: 1 }).waitFor();
  await page.getByLabel('Brand name (optional)').fill('Acme Deals');
  await page.getByLabel('Colour code (optional)').fill('#0a5c36');
  await saved(page, 'Save brand', 'Brand saved');
  await look(page, 'day-01-desktop-settings');

  // A link with options, made by someone who never read the API: https:// assumed, a click limit under Protection.
  await page.getByRole('navigation').getByRole('link', { name: 'New link' }).click();
  await page.getByLabel('Target URL').fill('shop.example/spring');
  await page.getByText('Read as https://shop.example/spring').waitFor();
  await page.getByLabel('Custom alias (optional)').fill('spring-sale');
  await page.locator('#link-create-short-preview').filter({ hasText: '✓ available' }).waitFor();
  await page.getByLabel('Title (optional)').fill('Spring sale');
  await page.getByLabel('Tags (optional)').fill('sms');
  await page.locator('#link-create-section-protection summary').click();
  await page.getByLabel('Click limit').fill('3');
  await page.getByRole('button', { name: 'Create link' }).click();
  await page.getByRole('heading', { name: 'Link created' }).waitFor();
  await look(page, 'day-02-desktop-created');
  const made = await app.inject({ url: '/links/spring-sale', headers: bearer(admin) });
  assert.deepEqual((({ url, title, tags, options }) => ({ url, title, tags, options }))(made.json<Record<string, unknown>>()), {
    url: 'https://shop.example/spring',
    title: 'Spring sale',
    tags: ['sms'],
    options: { clickLimit: 3 },
  });

  // The day's clicks: the limit is used up.
  await click('spring-sale', 'us');
  await click('spring-sale', 'us');
  await click('spring-sale', 'jp');
  await click('winter', 'us');
  await app.clicks.flush();

  // Find a link: a search for "sms" finds the tags that start with it; the list tells the truth about each.
  await page.getByRole('navigation').getByRole('link', { name: 'Links' }).click();
  await page.getByLabel('Search').fill('sms');
  await page.getByText('3 links matching the filters.').waitFor();
  const springRow = page.getByRole('row').filter({ hasText: 'Spring sale' });
  await springRow.getByText('Limit reached').waitFor();
  // Act on it from the list: the winter sale is over.
  await page.getByRole('button', { name: 'Actions for Winter sale', exact: true }).click();
  await page.getByRole('menu').getByRole('menuitem', { name: 'Disable' }).click();
  await page.getByRole('row').filter({ hasText: 'Winter sale' }).getByText('Disabled').waitFor();
  await look(page, 'day-03-desktop-list');
  await springRow.getByRole('link', { name: 'Spring sale' }).click();
  await page.getByText('3 of 3 clicks used').waitFor();

  // Analytics, drilled down to a country.
  await page.getByRole('navigation').getByRole('link', { name: 'Analytics' }).click();
  await page.locator('.totals').filter({ hasText: '4 clicks by people' }).waitFor();
  await page.getByRole('region', { name: 'Countries', exact: true }).getByRole('link', { name: 'United States' }).click();
  await page.waitForURL((url) => url.search === '?dimension=country&value=US');
  await page.locator('.totals').filter({ hasText: '3 clicks by people' }).waitFor();
  await look(page, 'day-04-desktop-analytics-us');
  assert.deepEqual(desktop.failedLoads, [], 'normal use answers no 4xx (each is a console error)');
  assert.deepEqual(desktop.problems, []);

  // The same person on a phone: one-row header, the links first, filters folded, the settings.
  const phone = await watchedPage(browser, PHONE);
  t.after(() => phone.context.close());
  const p = phone.page;
  await signInWithKey(p, base, admin.secret, '/app/links');
  const first = p.locator('tr.link-row').first();
  await first.waitFor();
  assert.ok(((await first.boundingBox())?.y ?? 1000) < 200, 'the first link starts above y = 200');
  await p.getByRole('button', { name: /^Filters/ }).click();
  await p.getByLabel('State').selectOption('limit_reached');
  await p.getByText('1 link matching the filters.').waitFor();
  await look(p, 'day-05-phone-list');
  await unfoldMenu(p);
  await p.getByRole('navigation').getByRole('link', { name: 'Settings' }).click();
  await p.getByRole('heading', { name: 'Workspace settings', level: 1 }).waitFor();
  await look(p, 'day-06-phone-settings');
  assert.deepEqual(phone.failedLoads, []);
  assert.deepEqual(phone.problems, []);

  // A visitor's browser: a page for every dead link, in the workspace's brand, never JSON.
  const visitor = await watchedPage(browser, PHONE);
  t.after(() => visitor.context.close());
  // A link's cache entries end at its expiry: from then on every answer is the 410.
  if (Date.now() <= flashEnds) await sleep(flashEnds - Date.now() + 50);
  for (const [code, status, state] of [
    ['no-such-link', 404, 'unknown'],
    ['flash', 410, 'expired'],
    ['winter', 410, 'disabled'],
    ['spring-sale', 410, 'used up'],
    ['launch', 404, 'not yet active'],
  ] as const) {
    const answer = await visitor.page.goto(`${base}/${code}`);
    assert.equal(answer?.status(), status, `${state}: status`);
    assert.match((await answer?.headerValue('content-type')) ?? '', /^text\/html/, `${state}: a page`);
    await visitor.page.getByRole('heading', { level: 1 }).waitFor();
    await visitor.page.getByText('Acme Deals').first().waitFor();
    await look(visitor.page, `day-07-visitor-${state.replaceAll(' ', '-')}`);
  }
  assert.deepEqual(visitor.problems, [], 'the pages run no script and break no CSP');
});
