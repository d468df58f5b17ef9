// Target health in the dashboard, in a real browser (see test/dashboard/dashboard.test.ts for the set-up), against a
// real target on a loopback address of its own (HEALTH_PROBE_ALLOW_PRIVATE), probed by rounds the test drives: the
// list's Target filter shows the broken link alone; the link's page shows its state and last probes, and its creator
// stops the probes; a viewer reads it without the button. axe-core finds nothing serious; desktop and phone fit.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import type { CreatedKey } from '../../src/auth/api-keys.ts';
import { bearer, startApp } from '../helpers/app.ts';
import { launchChromium, look, signInWithKey, watchedPage } from '../helpers/browser.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { freePort } from '../helpers/redis.ts';
import { TargetServer } from '../helpers/target-server.ts';
import { keysWith } from '../helpers/workspaces.ts';

let database: TestDatabase;
let browser: Browser;
let admin: CreatedKey;
let viewer: CreatedKey;

before(async () => {
  database = await createTestDatabase('dashboard-health');
  ({ Ada: admin, Vi: viewer } = await keysWith(database.url, { Ada: 'admin', Vi: 'viewer' }));
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await database.drop();
});

test("the list filters broken targets; a link's page shows its probes, and who may change it stops them", async (t) => {
  const gone = new TargetServer();
  await gone.open('127.0.0.90');
  const fine = new TargetServer();
  await fine.open('127.0.0.91');
  t.after(() => gone.close());
  t.after(() => fine.close());
  const port = await freePort();
  const base = `http://localhost:${port}`;
  const { app } = await startApp(t, database.url, {
    BASE_URL: base,
    PORT: String(port),
    ALLOW_PRIVATE_TARGETS: 'true',
    HEALTH_PROBE_ALLOW_PRIVATE: 'true',
    HEALTH_BROKEN_AFTER: '1',
    HEALTH_PROBE_TIMEOUT_MS: '2000',
    HEALTH_PROBE_RATE: '100',
  });
  await app.listen({ port, host: '127.0.0.1' });
  const create = async (url: string, title: string) => {
    const res = await app.inject({ method: 'POST', url: '/links', headers: bearer(admin), payload: { url, title } });
    assert.equal(res.statusCode, 201, res.body);
    return res.json<{ code: string }>().code;
  };
  const broken = await create(gone.url('/missing'), 'Spring sale');
  await create(fine.url('/ok'), 'Home page');
  assert.equal((await app.health.runOnce()).length, 2);

  const desk = await watchedPage(browser, { width: 1280, height: 800 });
  t.after(() => desk.context.close());
  const { page } = desk;
  await signInWithKey(page, base, admin.secret, '/app/links');
  await page.getByText('Home page').first().waitFor();
  await page.getByLabel('Target').selectOption('broken');
  await page.waitForURL((url) => url.search.includes('health=broken'));
  await page.getByText('Home page').first().waitFor({ state: 'detached' });
  await page.getByText('Spring sale').first().waitFor();
  await look(page, 'health-list-broken');

  await page.goto(`${base}/app/links/${broken}`);
  const panel = page.getByRole('region', { name: 'Target health' });
  await panel.getByText('Broken', { exact: true }).waitFor();
  await panel.getByText('HTTP 404').first().waitFor();
  assert.equal(await panel.getByRole('row').count(), 2, 'a header and one probe');
  await look(page, 'health-link-broken');

  await panel.getByRole('button', { name: 'Stop probing the target' }).click();
  await panel.getByText('Probes off', { exact: true }).waitFor();
  await panel.getByRole('button', { name: 'Probe the target again' }).waitFor();
  const stored = await app.inject({ url: `/links/${broken}/health`, headers: bearer(admin) });
  assert.equal(stored.json<{ probes: boolean }>().probes, false);
  assert.deepEqual(desk.problems, []);

  const phone = await watchedPage(browser, { width: 360, height: 740 });
  t.after(() => phone.context.close());
  await signInWithKey(phone.page, base, viewer.secret, `/app/links/${broken}`);
  const seen = phone.page.getByRole('region', { name: 'Target health' });
  await seen.getByText('HTTP 404').first().waitFor();
  assert.equal(await seen.getByRole('button').count(), 0, 'a viewer is offered no button');
  await look(phone.page, 'health-link-phone');
  assert.deepEqual(phone.problems, []);
});
