// The Operator page in Chromium (docs/operators.md): an operator signed in sees it in the menu, the
// queue groups a link's reports with their count and words, an action asks first and then acts (the
// link answers 410), and a workspace is suspended and lifted from the same page. On a desktop and a
// phone, axe-core finds nothing serious, nothing scrolls sideways, and screenshots are kept.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { bearer, startApp } from '../helpers/app.ts';
import { launchChromium, look, unfoldMenu, watchedPage } from '../helpers/browser.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { freePort } from '../helpers/redis.ts';
import { workspaceWith } from '../helpers/workspaces.ts';

let database: TestDatabase;
let browser: Browser;

before(async () => {
  database = await createTestDatabase('operator_page_browser');
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await database.drop();
});

test('an operator acts on a link’s reports and suspends a workspace from the Operator page, on a desktop and a phone', async (t) => {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const { app } = await startApp(t, database.url, { BASE_URL: base, PORT: String(port) });
  await app.listen({ port, host: '127.0.0.1' });
  const setup = await app.inject({
    method: 'POST',
    url: '/auth/setup',
    payload: { name: 'Olga', email: 'olga@example.com', password: 'a long and unusual passphrase' },
  });
  assert.equal(setup.statusCode, 201, setup.body);
  const [name, value] = (String(setup.headers['set-cookie']).split(';')[0] ?? '').split('=') as [string, string];
  const spam = await workspaceWith(database.url, 'Prize Draws Unlimited', { admin: 'admin' });

  const codes: string[] = [];
  for (const device of ['desktop', 'phone']) {
    const made = await app.inject({
      method: 'POST',
      url: '/links',
      headers: bearer(spam.keys.admin),
      payload: { url: `https://win-a-prize.example/${device}/claim?id=12345` },
    });
    assert.equal(made.statusCode, 201, made.body);
    const code = made.json<{ code: string }>().code;
    codes.push(code);
    for (const [i, message] of ['It asked for my card number', 'Spam text message'].entries()) {
      const remoteAddress = `198.51.100.${i + 1}`;
      const form = await app.inject({ url: '/report', remoteAddress });
      const token = /name="token" value="([^"]+)"/.exec(form.body)?.[1] ?? '';
      const sent = await app.inject({
        method: 'POST',
        url: '/report',
        remoteAddress,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ token, url: `${base}/${code}`, reason: i === 0 ? 'phishing' : 'spam', message }).toString(),
      });
      assert.equal(sent.statusCode, 201, sent.body);
    }
  }

  for (const [index, [device, viewport]] of [
    ['desktop', { width: 1280, height: 800 }],
    ['phone', { width: 390, height: 844 }],
  ].entries() as IterableIterator<[number, [string, { width: number; height: number }]]>) {
    const code = codes[index] as string;
    const { page, context, problems } = await watchedPage(browser, viewport);
    t.after(() => context.close());
    await context.addCookies([{ name, value, url: base }]);
    await page.goto(`${base}/app/links`);
    // The page is drawn once the session is read: the menu to unfold is there then.
    await page.getByRole('heading', { level: 1 }).waitFor();
    await unfoldMenu(page);
    await page.getByRole('link', { name: 'Operator' }).click();
    await page.getByRole('heading', { name: 'Abuse reports' }).waitFor();
    const card = page.locator('.report-card', { hasText: `${base}/${code}` });
    await card.waitFor();
    assert.match((await card.textContent()) ?? '', /2 reports: phishing, spam/);
    assert.match((await card.textContent()) ?? '', /It asked for my card number/);
    await look(page, `operator-queue-${device}`);

    await card.getByRole('button', { name: /^Disable link/ }).click();
    const dialog = page.getByRole('dialog', { name: 'Disable this link?' });
    await dialog.waitFor();
    await look(page, `operator-confirm-${device}`);
    await dialog.getByRole('button', { name: 'Disable link' }).click();
    await page.getByRole('status').filter({ hasText: 'Disable link: done' }).waitFor();
    await card.waitFor({ state: 'detached' });
    assert.equal((await app.inject({ url: `/${code}` })).statusCode, 410);

    // The workspace: suspended, then lifted.
    const workspace = page.locator('.workspace-card', { hasText: 'Prize Draws Unlimited' });
    await workspace.getByRole('button', { name: /^Suspend/ }).click();
    await page.getByRole('dialog', { name: 'Suspend the workspace?' }).getByRole('button', { name: 'Suspend' }).click();
    await workspace.getByText('(suspended)').waitFor();
    const write = await app.inject({
      method: 'POST',
      url: '/links',
      headers: bearer(spam.keys.admin),
      payload: { url: 'https://x.example/' },
    });
    assert.equal(write.statusCode, 403);
    await look(page, `operator-suspended-${device}`);
    await workspace.getByRole('button', { name: /^Lift suspension/ }).click();
    await page.getByRole('dialog', { name: 'Lift the suspension?' }).getByRole('button', { name: 'Lift suspension' }).click();
    await workspace.getByRole('button', { name: /^Suspend/ }).waitFor();
    assert.deepEqual(problems, [], `${device}: no console error, uncaught error or CSP violation`);
  }
});
