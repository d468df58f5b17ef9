// The abuse report form in Chromium (docs/operators.md): a visitor warned about a flagged link
// (BLOCKLIST_ACTION=warn) presses "Report this link", finds the link filled in, chooses a reason
// and sends it; a mistyped link gets the form back with the field marked. On a desktop and a phone,
// axe-core finds nothing serious, nothing scrolls sideways, the page's CSP refuses nothing, and
// screenshots are kept.

import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { createApiKey } from '../../src/auth/api-keys.ts';
import { bearer, startApp } from '../helpers/app.ts';
import { launchChromium, look, watchedPage } from '../helpers/browser.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { freePort } from '../helpers/redis.ts';

let database: TestDatabase;
let browser: Browser;
let dir: string;

before(async () => {
  database = await createTestDatabase('report_form_browser');
  dir = mkdtempSync(join(tmpdir(), 'report-form-'));
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await database.drop();
  rmSync(dir, { recursive: true, force: true });
});

test('a warned visitor reports the link from the warning page, on a desktop and a phone', async (t) => {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const list = join(dir, 'local.txt');
  writeFileSync(list, 'already.example\n');
  const { app, pool } = await startApp(t, database.url, {
    BASE_URL: base,
    PORT: String(port),
    BLOCKLISTS: `local=domains:${list}`,
    BLOCKLIST_ACTION: 'warn',
  });
  await app.listen({ port, host: '127.0.0.1' });
  const admin = bearer(await createApiKey(app.db, { name: 'admin', role: 'admin' }));
  const made = await app.inject({ method: 'POST', url: '/links', headers: admin, payload: { url: 'https://shady.example/prize' } });
  assert.equal(made.statusCode, 201, made.body);
  const code = made.json<{ code: string }>().code;
  appendFileSync(list, 'shady.example\n');
  await app.blocklists.refresh();
  await app.linkSafety.run();

  for (const [device, viewport] of [
    ['desktop', { width: 1280, height: 800 }],
    ['phone', { width: 390, height: 844 }],
  ] as const) {
    const { page, context, problems } = await watchedPage(browser, viewport);
    t.after(() => context.close());
    await page.goto(`${base}/${code}`);
    assert.equal(await page.locator('h1').textContent(), 'Warning: this link may be unsafe');
    await page.getByRole('link', { name: 'Report this link' }).click();
    await page.waitForURL(`${base}/report?code=${code}`);
    assert.equal(await page.getByLabel('The short link').inputValue(), `${base}/${code}`);
    await look(page, `report-form-${device}`);

    // A mistyped link: the form again, the field marked and the error read out.
    await page.getByLabel('The short link').fill(`${base}/not-a-link-here`);
    await page.getByLabel(/^Phishing/).check();
    await page.getByRole('button', { name: 'Send report' }).click();
    await page.getByRole('alert').waitFor();
    assert.match((await page.getByRole('alert').textContent()) ?? '', /not a short link of this service/);
    assert.equal(await page.getByLabel('The short link').getAttribute('aria-invalid'), 'true');
    assert.equal(await page.getByLabel(/^Phishing/).isChecked(), true, 'what was chosen is kept');
    await look(page, `report-form-error-${device}`);

    await page.getByLabel('The short link').fill(`${base}/${code}`);
    await page.getByLabel('What you saw (optional)').fill(`It says I won a prize (${device})`);
    await page.getByRole('button', { name: 'Send report' }).click();
    await page.getByRole('heading', { name: 'Thank you for your report' }).waitFor();
    await look(page, `report-thanks-${device}`);
    assert.deepEqual(problems, [], `${device}: no console error, uncaught error or CSP violation`);
  }
  const { rows } = await pool.query<{ reason: string; message: string }>(
    'SELECT reason, message FROM abuse_reports WHERE code = $1 ORDER BY id',
    [code],
  );
  assert.deepEqual(rows, [
    { reason: 'phishing', message: 'It says I won a prize (desktop)' },
    { reason: 'phishing', message: 'It says I won a prize (phone)' },
  ]);
});
