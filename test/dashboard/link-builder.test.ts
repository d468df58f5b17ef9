// The new-link page as a builder, in a real browser: https:// assumed, the short link and its
// alias's availability as it is typed, tags suggested, options in named sections that say what is
// set, errors (the browser's and the API's) on their fields with the focus there, a summary beside
// the button, the created link to copy or share, and a duplicate of a link. Desktop and phone, axe
// clean, nothing sideways; screenshots in test-results/dashboard/.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { CreatedKey } from '../../src/auth/api-keys.ts';
import { startApp } from '../helpers/app.ts';
import { launchChromium, look, screenshot, signInWithKey, watchedPage } from '../helpers/browser.ts';
import { createTestDatabase, withClient, type TestDatabase } from '../helpers/db.ts';
import { freePort } from '../helpers/redis.ts';
import { keysWith } from '../helpers/workspaces.ts';

let database: TestDatabase;
let browser: Browser;
let admin: CreatedKey;

before(async () => {
  database = await createTestDatabase('link_builder');
  ({ Ada: admin } = await keysWith(database.url, { Ada: 'admin' }));
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await database.drop();
});

const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';

const focused = (page: Page) => page.evaluate<string>('document.activeElement?.id ?? ""');

async function stored(code: string) {
  const { rows } = await withClient(database.url, (client) =>
    client.query<{ url: string; tags: string[]; options: unknown }>('SELECT url, tags, options FROM links WHERE code = $1', [code]),
  );
  return rows[0];
}

test('build a link on a desk and on a phone: previews, availability, errors on their fields, copy, another, a duplicate', async (t) => {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const { app } = await startApp(t, database.url, { BASE_URL: base, PORT: String(port) });
  await app.listen({ port, host: '127.0.0.1' });
  const made = await app.inject({
    method: 'POST',
    url: '/links',
    headers: { authorization: `Bearer ${admin.secret}` },
    payload: { url: 'https://example.com/old', alias: 'taken-one', tags: ['spring', 'newsletter'] },
  });
  assert.equal(made.statusCode, 201, made.body);

  const desk = await watchedPage(browser, { width: 1280, height: 800 });
  t.after(() => desk.context.close());
  const { page } = desk;
  await signInWithKey(page, base, admin.secret, '/app/links/new');
  const host = `127.0.0.1:${port}`;

  // https:// assumed, and said beside the field.
  await page.getByLabel('Target URL').fill('example.com/page');
  await page.getByText('Read as https://example.com/page').waitFor();

  // The short link as typed, and its alias's availability once typing pauses.
  const preview = page.locator('#link-create-short-preview');
  assert.equal((await preview.textContent())?.trim(), `Short link: ${host}/a random code`);
  await page.getByLabel('Custom alias (optional)').fill('taken-one');
  await preview.filter({ hasText: '✗ already taken' }).waitFor();
  await page.getByLabel('Custom alias (optional)').fill('fresh-one');
  await preview.filter({ hasText: `${host}/fresh-one ✓ available` }).waitFor();
  await page.getByRole('img', { name: `QR code of http://${host}/fresh-one` }).waitFor();

  // Tags the workspace used before, offered as they match what is typed.
  await page.getByLabel('Tags (optional)').fill('spr');
  await page.getByRole('button', { name: 'Add tag spring' }).click();
  assert.equal(await page.getByLabel('Tags (optional)').inputValue(), 'spring, ');
  assert.equal(await focused(page), 'link-create-tags');

  // A click limit that is no whole number: refused in the browser, its closed section opened, the field focused.
  const protection = page.locator('#link-create-section-protection');
  await protection.locator('summary').click();
  await page.getByLabel('Click limit').fill('12.5');
  await protection.locator('summary').click();
  assert.equal(await page.getByLabel('Click limit').isVisible(), false, 'closed again');
  assert.match((await protection.locator('summary').textContent()) ?? '', /^Protection: Click limit$/);
  await page.getByRole('button', { name: 'Create link' }).click();
  await page.locator('#link-create-opt-limit-error').waitFor();
  assert.equal(await focused(page), 'link-create-opt-limit');
  assert.equal(await page.getByLabel('Click limit').getAttribute('aria-invalid'), 'true');
  assert.match((await page.getByLabel('Click limit').getAttribute('aria-describedby')) ?? '', /link-create-opt-limit-error/);
  const summary = page.getByRole('alert').filter({ hasText: 'The link was not saved' });
  assert.match((await summary.textContent()) ?? '', /Click limit: Enter a whole number of clicks from 1 to 1,000,000,000/);
  await look(page, 'desktop-40-builder-error');
  assert.equal(await stored('fresh-one'), undefined, 'nothing was sent');
  await page.getByLabel('Click limit').fill('100');
  await protection.locator('summary').click();
  assert.match((await protection.locator('summary').textContent()) ?? '', /Limit 100 clicks/);

  // The API's refusal (an alias taken meanwhile) on the alias field, in people's words, focused.
  await page.getByLabel('Custom alias (optional)').fill('taken-one');
  await page.getByRole('button', { name: 'Create link' }).click();
  await page.locator('#link-create-alias-error').filter({ hasText: 'This alias is already taken on this domain' }).waitFor();
  assert.equal(await focused(page), 'link-create-alias');

  await page.getByLabel('Custom alias (optional)').fill('fresh-one');
  await page.getByRole('button', { name: 'Create link' }).click();
  await page.getByRole('heading', { name: 'Link created' }).waitFor();
  assert.equal(await focused(page), 'created-heading');
  assert.deepEqual(await stored('fresh-one'), { url: 'https://example.com/page', tags: ['spring'], options: { clickLimit: 100 } });
  await page.getByRole('button', { name: 'Copy short link' }).click();
  await page.getByRole('button', { name: 'Copied short link' }).waitFor();
  assert.equal(await page.evaluate<string>('navigator.clipboard.readText()'), `${base}/fresh-one`);
  await look(page, 'desktop-41-builder-created');
  await page.getByRole('button', { name: 'Create another' }).click();
  assert.equal(await page.getByLabel('Target URL').inputValue(), '');
  assert.equal(await focused(page), 'link-create-url');

  // A phone: a duplicate of the link, "Add a rule" moving the focus to the new rule, the preview under the form.
  const phone = await watchedPage(browser, { width: 390, height: 844 }, IPHONE);
  t.after(() => phone.context.close());
  const p = phone.page;
  await signInWithKey(p, base, admin.secret, '/app/links/new?duplicate=fresh-one');
  assert.equal(await p.getByLabel('Target URL').inputValue(), 'https://example.com/page');
  assert.equal(await p.getByLabel('Custom alias (optional)').inputValue(), '');
  assert.match((await p.locator('#link-create-section-protection summary').textContent()) ?? '', /Limit 100 clicks/);
  assert.equal(await p.getByLabel('Click limit', { exact: true }).getAttribute('inputmode'), 'numeric');
  await p.locator('#link-create-section-targeting summary').click();
  await p.getByRole('button', { name: 'Add a rule' }).click();
  assert.equal(await focused(p), 'link-create-opt-targets-0-device');
  await p.getByRole('group', { name: 'Rule 1' }).getByLabel('Android').check();
  await p.getByRole('group', { name: 'Rule 1' }).getByLabel('Send them to').fill('https://play.example.com/app');
  await look(p, 'phone-40-builder');
  // As the phone shows it: the submit button kept at the bottom of the screen.
  await screenshot(p, 'phone-40-builder-viewport', false);
  const button = p.getByRole('button', { name: 'Create link' });
  const box = await button.boundingBox();
  assert.ok(box !== null && box.y + box.height <= 844, 'the submit button stays in reach on a long form');
  await button.click();
  await p.getByRole('heading', { name: 'Link created' }).waitFor();
  const code = ((await p.locator('#created-short-url').textContent()) ?? '').split('/').pop() ?? '';
  assert.deepEqual((await stored(code))?.options, {
    clickLimit: 100,
    targets: [{ when: { device: ['android'] }, url: 'https://play.example.com/app' }],
  });
  // Its page: a QR size out of range is said on its field, not ignored.
  await p.getByRole('link', { name: 'Open the link’s page' }).click();
  const size = p.getByLabel('Size in pixels');
  await size.fill('5000');
  await size.press('Tab');
  await p.locator('#qr-size-error').filter({ hasText: 'Enter a whole number from 64 to 2048' }).waitFor();
  assert.equal(await size.getAttribute('aria-invalid'), 'true');
  assert.equal(await size.getAttribute('inputmode'), 'numeric');
  assert.deepEqual([...desk.problems, ...phone.problems], [], 'no CSP violation, console error or uncaught error');
});
