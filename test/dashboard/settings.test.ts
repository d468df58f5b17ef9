// The Settings page in a real browser (docs/settings.md), on a desktop and on a phone: an admin renames the
// workspace, gives it a brand colour and a logo (a real PNG made here; an SVG dressed as a PNG is refused by the
// API and the error lands on the logo's field), picks its default domain and a session length, each saved and
// announced; a viewer reads the same settings with a sentence saying who may change them. axe-core finds nothing
// serious, nothing scrolls sideways, the screenshots are looked at.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import type { CreatedKey } from '../../src/auth/api-keys.ts';
import { bearer, startApp } from '../helpers/app.ts';
import { launchChromium, look, saved, signInWithKey, watchedPage } from '../helpers/browser.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { pngOf } from '../helpers/png.ts';
import { freePort } from '../helpers/redis.ts';
import { keysWith } from '../helpers/workspaces.ts';

const GO = 'go.acme.example';
/** Removed by another admin while the page is open. */
const OLD = 'old.acme.example';

let database: TestDatabase;
let browser: Browser;
let keys: Record<'Ada' | 'Val', CreatedKey>;

before(async () => {
  database = await createTestDatabase('dashboard-settings');
  keys = await keysWith(database.url, { Ada: 'admin', Val: 'viewer' });
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await database.drop();
});

test('an admin changes the name, brand, default domain and session length; a viewer reads them; on a desktop and a phone', async (t) => {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const { app } = await startApp(t, database.url, {
    BASE_URL: base,
    PORT: String(port),
    DOMAIN_VERIFICATION: 'false',
    SESSION_TTL_HOURS: '720',
  });
  await app.listen({ port, host: '127.0.0.1' });
  for (const host of [GO, OLD]) {
    const added = await app.inject({ method: 'POST', url: '/domains', headers: bearer(keys.Ada), payload: { host } });
    assert.equal(added.statusCode, 201, added.body);
  }
  const settings = async () =>
    (await app.inject({ url: '/workspace', headers: bearer(keys.Ada) })).json<{
      name: string;
      brand: { name: string | null; color: string | null; logo: string | null };
      defaultDomain: string | null;
      sessionHours: number | null;
    }>();

  const desk = await watchedPage(browser, { width: 1280, height: 800 });
  t.after(() => desk.context.close());
  const { page } = desk;
  await signInWithKey(page, base, keys.Ada.secret, '/app/settings');
  await page.getByRole('heading', { name: 'Workspace settings', level: 1 }).waitFor();

  // Workspace: its name.
  await page.getByLabel('Name', { exact: true }).fill('Acme');
  await saved(page, 'Save settings', 'Workspace settings saved');

  // Brand: a name, a colour by its code (the picker follows), and a logo, previewed before it is saved.
  await page.getByLabel('Brand name (optional)').fill('Acme Links');
  await page.getByLabel('Colour code (optional)').fill('#0A78C8');
  assert.equal(await page.getByLabel('Colour picker').inputValue(), '#0a78c8');
  const logo = page.getByLabel('Logo (optional)');
  // An SVG that calls itself a PNG: refused by its bytes, next to the field, which takes focus on saving.
  await logo.setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>') });
  await page.locator('#brand-logo-error').filter({ hasText: 'PNG, JPEG or WebP' }).waitFor();
  await page.getByRole('button', { name: 'Save brand' }).click();
  assert.equal(await logo.getAttribute('aria-invalid'), 'true');
  await page.locator('#brand-logo:focus').waitFor();
  assert.equal(await page.locator('.brand-card img').count(), 0, 'nothing previewed');
  const png = pngOf(24, 24, [10, 120, 200]);
  await logo.setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: png });
  await page.locator('.brand-card img.brand-card-logo').waitFor();
  assert.equal(await page.locator('.brand-card-name').textContent(), 'Acme Links');
  await saved(page, 'Save brand', 'Brand saved');
  assert.deepEqual((await settings()).brand, {
    name: 'Acme Links',
    color: '#0a78c8',
    logo: `data:image/png;base64,${png.toString('base64')}`,
  });

  // Links: the default domain, from the workspace's domains. One removed meanwhile: the API's error lands on the field.
  const domain = page.getByLabel('Default domain for new links');
  const removed = await app.inject({ method: 'DELETE', url: `/domains/${OLD}`, headers: bearer(keys.Ada) });
  assert.equal(removed.statusCode, 204, removed.body);
  await domain.selectOption(OLD);
  await page.getByRole('button', { name: 'Save default domain' }).click();
  await page.locator('#settings-defaultDomain-error').filter({ hasText: 'not one of this workspace’s' }).waitFor();
  await page.locator('#settings-defaultDomain:focus').waitFor();
  await look(page, 'desktop-settings-01-domain-error');
  await domain.selectOption(GO);
  await saved(page, 'Save default domain', 'Default domain saved');

  // Sessions: 3 days, typed on a numeric keyboard.
  const length = page.getByLabel('Sign people out after');
  assert.equal(await length.getAttribute('inputmode'), 'numeric');
  await length.fill('3');
  await page.getByLabel('Unit').selectOption('days');
  await saved(page, 'Save session length', 'Session length saved');
  const stored = await settings();
  assert.equal(stored.name, 'Acme');
  assert.equal(stored.defaultDomain, GO);
  assert.equal(stored.sessionHours, 72);
  // The API section links to the reference and the keys.
  assert.equal(await page.getByRole('link', { name: 'API reference' }).getAttribute('href'), '/docs');
  await look(page, 'desktop-settings-02-saved');
  assert.deepEqual(desk.problems, []);

  // The old address of the workspace's settings leads here.
  await page.goto(`${base}/app/workspace`);
  await page.waitForURL(`${base}/app/settings`);

  // A phone: the admin's page fits; then a viewer's reads the settings, and says who may change them.
  for (const [who, name] of [
    [keys.Ada, 'admin'],
    [keys.Val, 'viewer'],
  ] as const) {
    const phone = await watchedPage(browser, { width: 390, height: 844 });
    t.after(() => phone.context.close());
    await signInWithKey(phone.page, base, who.secret, '/app/settings');
    await phone.page.getByRole('heading', { name: 'Sessions', level: 2 }).waitFor();
    if (name === 'viewer') {
      await phone.page.getByText('Only admins of this workspace can change its settings').waitFor();
      assert.equal(await phone.page.getByRole('button', { name: /^Save/ }).count(), 0);
      await phone.page.getByText('3 days').waitFor();
      await phone.page.getByText(GO).waitFor();
    }
    await look(phone.page, `phone-settings-${name}`);
    assert.deepEqual(phone.problems, []);
  }
});
