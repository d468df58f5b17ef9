// Archiving a link from the dashboard, and a link's own expiredUrl in the builder, in a real browser (Debian's Chromium, playwright-core): the link page's
// Archive and Unarchive, the list's "Archived" filter, the link still redirecting meanwhile; axe-core finds
// nothing serious, nothing scrolls sideways, on a desktop and on a phone. Screenshots land in test-results/dashboard/.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import type { CreatedKey } from '../../src/auth/api-keys.ts';
import { bearer, startApp } from '../helpers/app.ts';
import { launchChromium, look, signInWithKey, watchedPage } from '../helpers/browser.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { freePort } from '../helpers/redis.ts';
import { keysWith } from '../helpers/workspaces.ts';

let database: TestDatabase;
let browser: Browser;
let admin: CreatedKey;

before(async () => {
  database = await createTestDatabase('dashboard_archive');
  ({ Ada: admin } = await keysWith(database.url, { Ada: 'admin' }));
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await database.drop();
});

test('archive a link on its page: it leaves the list, the "Archived" filter shows it, it still redirects; unarchive brings it back', async (t) => {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const { app } = await startApp(t, database.url, { BASE_URL: base, PORT: String(port) });
  await app.listen({ port, host: '127.0.0.1' });
  for (const alias of ['shelf-kept', 'shelf-old']) {
    const res = await app.inject({
      method: 'POST',
      url: '/links',
      headers: bearer(admin),
      payload: { url: `https://example.com/${alias}`, alias, title: alias },
    });
    assert.equal(res.statusCode, 201, res.body);
  }
  const desk = await watchedPage(browser, { width: 1280, height: 800 });
  t.after(() => desk.context.close());
  const { page } = desk;

  await signInWithKey(page, base, admin.secret, '/app/links/shelf-old');
  await page.getByRole('button', { name: 'Archive link' }).click();
  await page.getByRole('status').filter({ hasText: 'Link archived' }).waitFor();
  await page.getByRole('button', { name: 'Unarchive link' }).waitFor();
  assert.match(await page.locator('#detail-archived').innerText(), /still redirects/);
  await look(page, 'desktop-archive-01-link-archived');
  const redirect = await page.request.get(`${base}/shelf-old`, { maxRedirects: 0 });
  assert.equal(redirect.status(), 302, 'an archived link still redirects');

  const shown = async () => {
    await page.waitForLoadState('networkidle');
    return (await page.getByRole('link', { name: /^shelf-/ }).allTextContents()).map((text) => text.trim()).sort();
  };
  await page.goto(`${base}/app/links`);
  await page.getByText('shelf-kept').first().waitFor();
  assert.deepEqual(await shown(), ['shelf-kept'], 'out of the default list');
  await page.getByLabel('Archived').selectOption('only');
  await page.waitForURL(`${base}/app/links?archived=only`);
  await page.getByText('shelf-old').first().waitFor();
  assert.deepEqual(await shown(), ['shelf-old']);
  await look(page, 'desktop-archive-02-only-archived');
  await page.getByLabel('Archived').selectOption('include');
  await page.getByText('shelf-kept').first().waitFor();
  assert.deepEqual(await shown(), ['shelf-kept', 'shelf-old']);

  // On a phone: the link page, unarchived again.
  const phone = await watchedPage(browser, { width: 360, height: 740 });
  t.after(() => phone.context.close());
  await signInWithKey(phone.page, base, admin.secret, '/app/links/shelf-old');
  await phone.page.getByRole('button', { name: 'Unarchive link' }).click();
  await phone.page.getByRole('button', { name: 'Archive link' }).waitFor();
  await look(phone.page, 'phone-archive-01-link-unarchived');
  const listed = await app.inject({ url: '/links', headers: bearer(admin) });
  assert.deepEqual(
    listed
      .json<{ links: { code: string }[] }>()
      .links.map((link) => link.code)
      .sort(),
    ['shelf-kept', 'shelf-old'],
  );
  assert.deepEqual([...desk.problems, ...phone.problems], [], 'no CSP violation or console error');
});

test("the link builder's expiredUrl: set under Protection, refused on its field when the API refuses it, sent as options.expiredUrl", async (t) => {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const { app } = await startApp(t, database.url, { BASE_URL: base, PORT: String(port) });
  await app.listen({ port, host: '127.0.0.1' });
  const desk = await watchedPage(browser, { width: 1280, height: 900 });
  t.after(() => desk.context.close());
  const { page } = desk;
  await signInWithKey(page, base, admin.secret, '/app/links/new');
  await page.getByLabel('Target URL').fill('https://example.com/offer');
  await page.getByLabel('Custom alias (optional)').fill('ended-offer');
  await page.locator('#link-create-section-protection > summary').click();
  const field = page.getByLabel('After the end, send visitors to (optional)');
  await field.fill('http://10.0.0.1/ended');
  await page.getByRole('button', { name: 'Create link' }).click();
  await page.locator('#link-create-opt-expired-error').waitFor();
  assert.equal(await field.getAttribute('aria-invalid'), 'true');
  await look(page, 'desktop-archive-03-expired-url-error');
  await field.fill('https://example.com/offer-ended');
  assert.match(
    (await page.locator('#link-create-section-protection > summary').textContent()) ?? '',
    /^Protection: Own page after the end$/,
  );
  await page.getByRole('button', { name: 'Create link' }).click();
  await page.getByRole('link', { name: 'Open the link’s page' }).waitFor();
  const made = await app.inject({ url: '/links/ended-offer', headers: bearer(admin) });
  assert.deepEqual(made.json().options, { expiredUrl: 'https://example.com/offer-ended' });
  assert.deepEqual(desk.problems, [], 'no CSP violation or console error');
});
