// A visitor's browser opening a dead short link gets a page, never JSON: Chromium's own navigation
// (its Accept), on a desktop, unbranded and in a workspace's brand with a long name; axe-core finds
// nothing serious, nothing scrolls sideways, the page's CSP refuses nothing, and screenshots are kept.
// A phone, and every dead state in a brand, are the marketer's day's (marketer-day.test.ts).

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { startApp } from '../helpers/app.ts';
import { launchChromium, look, watchedPage } from '../helpers/browser.ts';
import { createTestDatabase, withClient, type TestDatabase } from '../helpers/db.ts';
import { freePort } from '../helpers/redis.ts';

let database: TestDatabase;
let browser: Browser;

before(async () => {
  database = await createTestDatabase('visitor_pages_browser');
  await withClient(database.url, (client) =>
    client.query(`INSERT INTO links (code, url, expires_at) VALUES ('was-here', 'https://example.com/x', now() - interval '1 day')`),
  );
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await database.drop();
});

test('a dead link opened in a browser is a page, readable and accessible, with and without a brand', async (t) => {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const { app } = await startApp(t, database.url, { BASE_URL: base, PORT: String(port) });
  await app.listen({ port, host: '127.0.0.1' });
  const views = [['desktop', { width: 1280, height: 800 }]] as const;
  for (const branded of [false, true]) {
    if (branded) {
      await withClient(database.url, (client) =>
        client.query(`UPDATE workspaces SET brand_name = 'Acme Corporation of Very Long Names', brand_color = '#7c3aed' WHERE id = 1`),
      );
      await app.hosts.refresh();
    }
    for (const [device, viewport] of views) {
      const { page, context, problems } = await watchedPage(browser, viewport);
      t.after(() => context.close());
      const name = `visitor-${branded ? 'branded' : 'plain'}-${device}`;
      const gone = await page.goto(`${base}/was-here`);
      assert.equal(gone?.status(), 410);
      assert.equal(await page.locator('h1').textContent(), 'This link has expired');
      await look(page, `${name}-expired`);
      const unknown = await page.goto(`${base}/no-such-link`);
      assert.equal(unknown?.status(), 404);
      assert.equal(await page.locator('h1').textContent(), "This link doesn't exist");
      if (branded) assert.equal(await page.locator('header.brand').textContent(), 'Acme Corporation of Very Long Names');
      // The way on: the domain's root (ROOT_REDIRECT, the dashboard here), reached by the keyboard.
      await page.keyboard.press('Tab');
      assert.equal(await page.evaluate<string | null>('document.activeElement.getAttribute("href")'), '/');
      await look(page, `${name}-not-found`);
      assert.deepEqual(problems, [], `${name}: no console error, uncaught error or CSP violation`);
    }
  }
});
