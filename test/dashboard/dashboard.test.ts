// The dashboard in a real browser (Debian's Chromium, driven by playwright-core): a team's day with
// it, from signing in with the keyboard to signing out, against the real service on a real port.
// The short link it makes points at a landing page of the test's own on 127.0.0.2 (another host
// than the service's), so that following it is a real redirect and a real click. Every page must
// hold its Content-Security-Policy (no violation, no console error), pass axe-core without a
// serious violation, and fit a phone. Screenshots land in test-results/dashboard/.

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { parse } from 'csv-parse/sync';
import type { CreatedKey } from '../../src/auth/api-keys.ts';
import { startApp } from '../helpers/app.ts';
import { inPage, launchChromium, look, screenshot, signInWithKey, startLandingPage, watchedPage } from '../helpers/browser.ts';
import { createTestDatabase, withClient, type TestDatabase } from '../helpers/db.ts';
import { keysWith } from '../helpers/workspaces.ts';
import { freePort } from '../helpers/redis.ts';

let database: TestDatabase;
let browser: Browser;
let landing: Awaited<ReturnType<typeof startLandingPage>> | undefined;
let landingUrl: string;
let admin: CreatedKey;
let viewer: CreatedKey;

before(async () => {
  database = await createTestDatabase('dashboard');
  ({ Ada: admin, Vera: viewer } = await keysWith(database.url, { Ada: 'admin', Vera: 'viewer' }));
  landing = await startLandingPage('dashboard');
  landingUrl = landing.url;
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await landing?.close();
  await database.drop();
});

const statusOf = async (page: Page, url: string) => (await page.request.get(url, { maxRedirects: 0 })).status();

test('sign in, create, search, open, follow, see the click, QR code, edit, disable, delete, keys, import, export, sign out; a viewer only reads; the CSP holds throughout', async (t) => {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const { app } = await startApp(t, database.url, {
    BASE_URL: base,
    ALLOW_PRIVATE_TARGETS: 'true',
    PORT: String(port),
    ANALYTICS_ENABLED: 'true',
  });
  await app.listen({ port, host: '127.0.0.1' });
  const desk = await watchedPage(browser, { width: 1280, height: 800 });
  t.after(() => desk.context.close());
  const { page } = desk;

  // The root goes to the dashboard, which is served under its strict policy. The database holds keys but no
  // person, so it opens on the set-up of the first admin, which links to the sign-in page for those with a key.
  await page.goto(`${base}/`);
  const policy = (await page.request.get(`${base}/app/`)).headers()['content-security-policy'] ?? '';
  assert.match(policy, /default-src 'none'; script-src 'self'; style-src 'self';/);
  await page.getByRole('heading', { name: 'Set up Shortener' }).waitFor();
  assert.equal(page.url(), `${base}/app/setup`);
  await page.getByRole('link', { name: 'Sign in with it' }).click();
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  assert.equal(page.url(), `${base}/app/sign-in`);
  assert.equal(await page.getByLabel('API key').isVisible(), false, 'the key form is folded under the email and password');
  await look(page, 'desktop-01-sign-in');

  // With the keyboard alone: the skip link comes first, then the email and password form; the key's form opens
  // from its summary, and Enter in the key field signs in.
  const focused = () => inPage<string>(page, "document.activeElement?.id || document.activeElement?.textContent || ''");
  await page.keyboard.press('Shift+Tab');
  assert.equal(await focused(), 'Skip to content');
  for (const next of ['sign-in-email', 'sign-in-password', 'Sign in', 'Sign in with an API key']) {
    await page.keyboard.press('Tab');
    assert.equal(await focused(), next, 'the focus order');
  }
  await page.keyboard.press('Enter');
  await page.keyboard.press('Tab');
  assert.equal(await focused(), 'api-key', 'the key field follows its summary');
  assert.equal(await inPage(page, "document.activeElement?.getAttribute('type')"), 'password');
  await page.keyboard.type('sk_not-a-key');
  await page.keyboard.press('Enter');
  await page.locator('.field-error').filter({ hasText: 'not valid' }).waitFor();
  const keyField = page.getByLabel('API key');
  assert.equal(await keyField.getAttribute('aria-invalid'), 'true', 'the error is on the key field');
  assert.equal(await focused(), 'api-key', 'which keeps the focus');
  await look(page, 'desktop-01-sign-in-key-error');
  await keyField.fill(admin.secret);
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'Links', level: 1 }).waitFor();
  assert.deepEqual(
    await inPage(page, '[localStorage.length, sessionStorage.length, document.cookie]'),
    [0, 0, ''],
    'nothing in reach of scripts',
  );
  const cookies = await desk.context.cookies();
  assert.equal(cookies.length, 1);
  assert.equal(cookies[0]?.httpOnly, true);
  assert.equal(cookies[0]?.sameSite, 'Strict');
  assert.ok(!cookies[0]?.value.includes(admin.secret), 'the key is not the cookie');

  // Create a link, every field; an error first, shown next to its field.
  await page.getByRole('link', { name: 'New link' }).first().click();
  await page.getByLabel('Target URL').fill('javascript:alert(1)');
  await page.getByRole('button', { name: 'Create link' }).click();
  const url = page.getByLabel('Target URL');
  await page.locator('#link-create-url-error').waitFor();
  assert.equal(await url.getAttribute('aria-invalid'), 'true');
  assert.match((await url.getAttribute('aria-describedby')) ?? '', /link-create-url-error/);
  await look(page, 'desktop-02-new-link-error');
  const alias = `spring-${Date.now().toString(36)}`;
  await url.fill(landingUrl);
  await page.getByLabel('Custom alias (optional)').fill(alias);
  await page.locator('#link-create-section-schedule > summary').click();
  await page.getByLabel('Expires (optional)').fill('2031-06-01T12:30');
  await page.getByLabel('Title (optional)').fill('Spring sale');
  await page.getByLabel('Tags (optional)').fill('spring, sms');
  await page.getByRole('button', { name: 'Create link' }).click();
  await page.getByRole('link', { name: 'Open the link’s page' }).click();
  await page.getByRole('heading', { name: 'Link Spring sale' }).waitFor();
  const stored = await withClient(database.url, (client) =>
    client.query<{ url: string; title: string; tags: string[]; expires_at: Date }>(
      'SELECT url, title, tags, expires_at FROM links WHERE code = $1',
      [alias],
    ),
  );
  assert.deepEqual(stored.rows[0], {
    url: landingUrl,
    title: 'Spring sale',
    tags: ['spring', 'sms'],
    expires_at: stored.rows[0]?.expires_at,
  });
  assert.equal(stored.rows[0]?.expires_at.getUTCFullYear(), 2031);

  // Find it by search, and open it.
  await page.getByRole('link', { name: 'Links', exact: true }).click();
  await page.getByLabel('Search').fill('spring s');
  await page.waitForURL(/[?&]q=spring/);
  await page.locator(`#row-${alias}`).waitFor();
  await look(page, 'desktop-03-links-search');
  await page.locator(`#row-${alias}`).click();
  await page.getByRole('heading', { name: 'Link Spring sale' }).waitFor();

  // Follow the short URL as a person would, then see the click in the chart once the counts are flushed.
  await page.goto(`${base}/${alias}`);
  assert.equal(await page.title(), 'Landing page');
  assert.equal(page.url(), landingUrl);
  await app.clicks.flush();
  await page.goto(`${base}/app/links/${alias}`);
  await page.getByRole('heading', { name: 'Link Spring sale' }).waitFor();
  await page.locator('.totals').filter({ hasText: '1 click by people' }).waitFor();
  await page.getByText('Clicks per day as a table').click();
  // People and bots per day, in the table under the chart.
  const days: string[][] = await page
    .locator('details table tbody tr')
    .evaluateAll((rows) =>
      rows.map((row) => Array.from(row.querySelectorAll('td'), (cell: { textContent: string | null }) => (cell.textContent ?? '').trim())),
    );
  assert.ok(days.length >= 7, `the table has every day of the range (${days.length})`);
  assert.deepEqual(days.at(-1), ['1', '0', '1'], 'today: one click by a person, none by bots, one visitor');
  assert.equal(days.filter(([people]) => people !== '0').length, 1, 'and no other day has one');
  assert.ok((await page.locator('canvas').count()) > 0, 'the chart is drawn');
  await look(page, 'desktop-04-link');
  // A range of its own: the last three UTC days.
  const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
  await page.getByRole('radio', { name: 'Custom' }).check();
  await page.getByLabel('From', { exact: true }).fill(day(-2));
  await page.getByLabel('To', { exact: true }).fill(day(0));
  await page.getByRole('button', { name: 'Show' }).click();
  // The 30 days' table gives way to the range's: no fourth row.
  await page.locator('details table tbody tr').nth(3).waitFor({ state: 'detached' });
  assert.equal(await page.locator('details table tbody tr').count(), 3, 'one row per day of the range');
  const lastDay = await page.locator('details table tbody tr').last().locator('td').allTextContents();
  assert.deepEqual(
    lastDay.map((cell) => cell.trim()),
    ['1', '0', '1'],
    'the custom range ends today, with its click',
  );

  // The QR code: a preview, and both downloads.
  const qr = page.getByRole('img', { name: /^QR code for / });
  await qr.waitFor();
  assert.ok(
    await qr.evaluate(
      (img) =>
        (img as unknown as { complete: boolean; naturalWidth: number }).complete &&
        (img as unknown as { naturalWidth: number }).naturalWidth > 0,
    ),
    'the QR preview loaded',
  );
  for (const [name, signature] of [
    ['Download PNG', '\x89PNG'],
    ['Download SVG', '<svg'],
  ] as const) {
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name }).click()]);
    const file = await readFile(await download.path(), 'latin1');
    assert.ok(file.includes(signature), `${name}: a ${signature.trim()} file`);
  }

  // Edit, then disable: the short URL answers 410.
  await page.getByRole('button', { name: 'Edit link' }).click();
  await page.getByLabel('Title (optional)').fill('Spring sale (extended)');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.getByRole('heading', { name: 'Link Spring sale (extended)' }).waitFor();
  await page.getByRole('button', { name: 'Disable link' }).click();
  await page.getByRole('button', { name: 'Enable link' }).waitFor();
  assert.equal(await statusOf(page, `${base}/${alias}`), 410);
  await look(page, 'desktop-05-link-disabled');

  // A viewer, on a phone: it reads the link, and is offered nothing that changes it.
  const phone = await watchedPage(browser, { width: 360, height: 740 });
  t.after(() => phone.context.close());
  await signInWithKey(phone.page, base, viewer.secret, `/app/links/${alias}`);
  await phone.page.getByRole('heading', { name: 'Link Spring sale (extended)' }).waitFor();
  for (const name of ['Edit link', 'Disable link', 'Enable link', 'Delete link']) {
    assert.equal(await phone.page.getByRole('button', { name }).count(), 0, `a viewer is not offered ${name}`);
  }
  // On a phone the navigation is behind the header's menu button.
  const phoneMenu = phone.page.getByRole('button', { name: 'Menu' });
  await phoneMenu.click();
  assert.deepEqual(
    await phone.page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents(),
    ['Links', 'Analytics', 'Members', 'Settings'],
    "a viewer's navigation: no New link, Import, Keys or Audit, Settings to read, and no Profile for a key",
  );
  await phoneMenu.click();
  await look(phone.page, 'phone-01-link-as-viewer');
  // Nor could it behind the page's back: the API refuses it too.
  const session = (await phone.page.request.get(`${base}/auth/session`)).json() as Promise<{ csrfToken: string }>;
  const forced = await phone.page.request.patch(`${base}/links/${alias}`, {
    data: { disabled: false },
    headers: { 'x-csrf-token': (await session).csrfToken },
  });
  assert.equal(forced.status(), 403);
  await phoneMenu.click();
  await phone.page.getByRole('link', { name: 'Links', exact: true }).click();
  await phone.page.getByRole('heading', { name: 'Links', level: 1 }).waitFor();
  await look(phone.page, 'phone-02-links-as-viewer');

  // Keys: one made with a role, its secret shown once; revoked after a confirmation.
  await page.getByRole('link', { name: 'Keys' }).click();
  await page.getByRole('heading', { name: 'API keys' }).waitFor();
  await page.getByLabel('Name').fill('Campaign bot');
  await page.getByLabel('Role').selectOption('member');
  await page.getByRole('button', { name: 'Create key' }).click();
  const secret = (await page.locator('#new-key-secret').textContent())?.trim() ?? '';
  assert.match(secret, /^sk_[A-Za-z0-9_-]{43}$/);
  await look(page, 'desktop-06-keys-new-secret');
  await page.getByRole('button', { name: 'I have saved it' }).click();
  assert.equal(await page.locator('#new-key-secret').count(), 0, 'the secret is gone from the page');
  await page.getByRole('button', { name: 'Revoke key Campaign bot' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Revoke key' }).click();
  await page.getByRole('dialog').waitFor({ state: 'hidden' });
  assert.equal((await page.request.get(`${base}/links`, { headers: { authorization: `Bearer ${secret}` } })).status(), 401);

  // Import a file, with its report per row; then export the list.
  await page.getByRole('link', { name: 'Import' }).click();
  await page.getByRole('heading', { name: 'Import links' }).waitFor();
  const csv = 'url,alias,title,tags\nhttps://example.org/a,imported-a,Autumn,autumn\nnot a url,,Broken,\n';
  await page.getByLabel('CSV file').setInputFiles({ name: 'links.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
  await page.getByRole('button', { name: 'Import' }).click();
  await page.getByRole('heading', { name: 'Import report' }).waitFor();
  const report = await page.locator('table').last().textContent();
  assert.match(report ?? '', /imported-a/);
  assert.match(report ?? '', /URL_NOT_ABSOLUTE/);
  await look(page, 'desktop-07-import-report');
  await page.getByRole('link', { name: 'Links', exact: true }).click();
  await page.getByRole('heading', { name: 'Links', level: 1 }).waitFor();
  const [exported] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export CSV' }).click()]);
  const rows = parse<Record<string, string>>(await readFile(await exported.path(), 'utf8'), { columns: true });
  assert.deepEqual(new Set(rows.map((r) => r.code)), new Set(['imported-a', alias]));
  assert.equal(rows.length, 2);
  assert.equal(rows.find((r) => r.code === alias)?.title, 'Spring sale (extended)');
  await look(page, 'desktop-08-links');

  // Delete, after a confirmation: the short URL answers 404.
  await page.goto(`${base}/app/links/${alias}`);
  await page.getByRole('button', { name: 'Delete link' }).click();
  await page.getByRole('dialog').waitFor();
  await screenshot(page, 'desktop-09-delete-dialog', false);
  await page.getByRole('dialog').getByRole('button', { name: 'Delete link' }).click();
  await page.getByRole('heading', { name: 'Links', level: 1 }).waitFor();
  assert.equal(await statusOf(page, `${base}/${alias}`), 404);

  // Sign out: the session ends, and the page goes back to the set-up (still nobody has an account).
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Set up Shortener' }).waitFor();
  assert.equal((await page.request.get(`${base}/auth/session`)).status(), 401);

  assert.deepEqual(desk.problems, [], 'no console error and no CSP violation on the desktop');
  assert.deepEqual(phone.problems, [], 'none on the phone');
});
