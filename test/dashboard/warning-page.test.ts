// A visitor's browser opening a link a blocklist flagged after it was made (BLOCKLIST_ACTION=warn):
// Chromium gets the warning page, not the site; it names the target and the list, axe-core finds
// nothing serious on a desktop or a phone, nothing scrolls sideways, the page's CSP refuses nothing,
// it works with scripts off, and its plain link on reaches the target. A blocked link's page says
// why with 451. Screenshots are kept (test-results/dashboard/).

import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { createApiKey } from '../../src/auth/api-keys.ts';
import { startApp } from '../helpers/app.ts';
import { launchChromium, look, signInWithKey, startLandingPage, watchedPage } from '../helpers/browser.ts';
import { createTestDatabase, withClient, type TestDatabase } from '../helpers/db.ts';
import { freePort } from '../helpers/redis.ts';

let database: TestDatabase;
let browser: Browser;
let dir: string;

before(async () => {
  database = await createTestDatabase('warning_page_browser');
  browser = await launchChromium();
  dir = mkdtempSync(join(tmpdir(), 'warning-page-'));
});
after(async () => {
  await browser?.close();
  await database.drop();
  rmSync(dir, { recursive: true, force: true });
});

test('a flagged link opened in a browser warns first, on a desktop and a phone, and its way on reaches the target', async (t) => {
  const landing = await startLandingPage('warned');
  t.after(landing.close);
  const list = join(dir, 'list.txt');
  writeFileSync(list, 'nothing.example\n');
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const { app } = await startApp(t, database.url, {
    BASE_URL: base,
    PORT: String(port),
    BLOCKLISTS: `phish-feed=domains:${list}`,
    BLOCKLIST_ACTION: 'warn',
    ALLOW_PRIVATE_TARGETS: 'true',
  });
  await app.listen({ port, host: '127.0.0.1' });
  const key = await createApiKey(app.db, { name: 'admin', role: 'admin' });
  const admin = { authorization: `Bearer ${key.secret}` };
  const created = await app.inject({ method: 'POST', url: '/links', headers: admin, payload: { url: landing.url, alias: 'spring-offer' } });
  assert.equal(created.statusCode, 201, created.body);
  // The landing page's host (127.0.0.2) is listed after the link was made.
  appendFileSync(list, '127.0.0.2\n');
  await app.blocklists.refresh();
  await app.linkSafety.run();

  for (const [device, viewport] of [
    ['desktop', { width: 1280, height: 800 }],
    ['phone', { width: 390, height: 844 }],
  ] as const) {
    const { page, context, problems } = await watchedPage(browser, viewport);
    t.after(() => context.close());
    const warned = await page.goto(`${base}/spring-offer`);
    assert.equal(warned?.status(), 200);
    assert.equal(page.url(), `${base}/spring-offer`, 'the browser stays on the warning');
    assert.equal(await page.locator('h1').textContent(), 'Warning: this link may be unsafe');
    assert.equal(await page.locator('.target').textContent(), landing.url);
    assert.match((await page.locator('main').textContent()) ?? '', /on the blocklist phish-feed/);
    assert.equal(await page.getByRole('link', { name: 'Report this link' }).getAttribute('href'), '/report?code=spring-offer');
    await look(page, `warning-page-${device}`);
    assert.deepEqual(problems, [], `${device}: no console error, uncaught error or CSP violation`);
    await page.getByRole('link', { name: 'I understand the risk: continue to the site' }).click();
    await page.waitForURL(landing.url);
    assert.equal(await page.locator('h1').textContent(), 'Landed');
  }

  // The link's page in the dashboard says what was done, by which list, and who can lift it.
  const owner = await watchedPage(browser, { width: 390, height: 844 });
  t.after(() => owner.context.close());
  await signInWithKey(owner.page, base, key.secret, '/app/links/spring-offer');
  assert.match((await owner.page.locator('#detail-safety').textContent()) ?? '', /^Flagged: its target is on the blocklist “phish-feed”/);
  assert.equal(await owner.page.locator('.badge-flagged').first().textContent(), 'Flagged unsafe');
  await look(owner.page, 'flagged-link-details-phone');
  assert.deepEqual(owner.problems, []);

  // Scripts off changes nothing: the page has none.
  const context = await browser.newContext({ javaScriptEnabled: false });
  t.after(() => context.close());
  const page = await context.newPage();
  await page.goto(`${base}/spring-offer`);
  await page.getByRole('link', { name: 'I understand the risk: continue to the site' }).click();
  await page.waitForURL(landing.url);

  // The same link blocked instead: 451, the domain's page that says why.
  await withClient(database.url, (client) =>
    client.query(`UPDATE links SET safety = 'blocked', version = version + 1 WHERE code = 'spring-offer'`),
  );
  app.cache.invalidate('spring-offer');
  const blockedView = await watchedPage(browser, { width: 390, height: 844 });
  t.after(() => blockedView.context.close());
  const blocked = await blockedView.page.goto(`${base}/spring-offer`);
  assert.equal(blocked?.status(), 451);
  assert.equal(await blockedView.page.locator('h1').textContent(), 'This link has been blocked');
  await look(blockedView.page, 'blocked-link-phone');
});
