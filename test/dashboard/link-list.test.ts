// The links list as a place to work, in a real browser: compact rows with a monogram, the short link
// to copy, the target, tags and a 14-day trend of clicks; a total; a row menu worked from the
// keyboard (QR code, duplicate, disable, delete after a confirmation) that respects roles; and on a
// phone a one-row header with a menu, filters behind "Filters (n)", small cards and the first link
// well above the fold. Desktop and phone share one browser; screenshots land in test-results/dashboard/.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { CreatedKey } from '../../src/auth/api-keys.ts';
import { startApp } from '../helpers/app.ts';
import { inPage, launchChromium, look, screenshot, signInWithKey, watchedPage } from '../helpers/browser.ts';
import { createTestDatabase, withClient, type TestDatabase } from '../helpers/db.ts';
import { freePort } from '../helpers/redis.ts';
import { keysWith } from '../helpers/workspaces.ts';

let database: TestDatabase;
let browser: Browser;
let ada: CreatedKey;
let mo: CreatedKey;

const LINKS = 30;

before(async () => {
  database = await createTestDatabase('link_list_ui');
  ({ Ada: ada, Mo: mo } = await keysWith(database.url, { Ada: 'admin', Mo: 'member' }));
  // Ada's links, the newest last; every third tagged, the newest with clicks over the last days; one of Mo's.
  await withClient(database.url, async (client) => {
    await client.query(
      `INSERT INTO links (code, url, workspace_id, owner_key_id, title, tags, created_at)
       SELECT 'link' || i, 'https://www.example' || (i % 5) || '.com/spring/landing-page-with-a-long-path/' || i, 1, $1,
              CASE WHEN i % 4 = 0 THEN NULL ELSE 'Spring campaign ' || i END,
              CASE WHEN i % 3 = 0 THEN ARRAY['newsletter', 'spring'] ELSE ARRAY[]::text[] END,
              now() - make_interval(mins => $2 - i)
       FROM generate_series(1, $2) AS i`,
      [ada.id, LINKS - 1],
    );
    await client.query(
      `INSERT INTO links (code, url, workspace_id, owner_key_id, title, created_at) VALUES ('mine', 'https://shop.example.org/', 1, $1, 'Mo''s shop', now())`,
      [mo.id],
    );
    await client.query(
      `INSERT INTO link_clicks_daily (domain_id, code, day, clicks) SELECT 0, 'link' || $1, (now() AT TIME ZONE 'UTC')::date - d, d * 3 + 1
       FROM generate_series(0, 13) AS d`,
      [LINKS - 1],
    );
    await client.query(`UPDATE link_totals SET clicks = 287 WHERE code = 'link' || $1`, [LINKS - 1]);
  });
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await database.drop();
});

const focusedText = (page: Page) => inPage<string>(page, "document.activeElement?.textContent?.trim() ?? ''");
const menuButton = (page: Page, name: string) => page.getByRole('button', { name: `Actions for ${name}`, exact: true });
/** The row menu's items, as shown. */
const menuItems = async (page: Page) => {
  await page.getByRole('menu').waitFor();
  return page.getByRole('menu').getByRole('menuitem').allTextContents();
};
/** Presses `key` on a closed menu's button, and waits for the menu. */
const openMenu = async (page: Page, key: string) => {
  await page.keyboard.press(key);
  await page.getByRole('menu').waitFor();
};

test('compact rows with a total and a trend, a row menu worked from the keyboard, and a phone layout that shows links at once', async (t) => {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const { app } = await startApp(t, database.url, { BASE_URL: base, PORT: String(port) });
  await app.listen({ port, host: '127.0.0.1' });
  const desk = await watchedPage(browser, { width: 1280, height: 800 });
  t.after(() => desk.context.close());
  const { page } = desk;
  const api = (path: string) => page.request.get(`${base}${path}`);

  await signInWithKey(page, base, ada.secret);
  await page.getByText(`${LINKS} links, 25 shown.`).waitFor();
  await look(page, 'list-01-desktop');
  // Compact rows: about 45 px each, so 14 or more links on a 800 px screen.
  const heights = await page.locator('tr.link-row').evaluateAll((rows) => rows.map((row) => row.getBoundingClientRect().height));
  assert.equal(heights.length, 25);
  assert.ok(Math.max(...heights) <= 50, `rows are compact: ${Math.max(...heights)} px at most`);
  // The newest link first: Mo's, then Ada's newest, with its monogram and its trend (14 days of clicks).
  const first = page.locator('tr.link-row').nth(1);
  assert.equal(await first.locator('.monogram').textContent(), 'EX');
  assert.equal(
    await first
      .locator('.sparkline polyline')
      .getAttribute('points')
      .then((p) => p?.split(' ').length),
    14,
  );
  assert.match((await first.locator('.cell-clicks').textContent()) ?? '', /287 in the last 14 days/);

  // The row menu from the keyboard: ↓ opens it on its first item, Escape closes it and focus is back on its button.
  const newest = `Spring campaign ${LINKS - 1}`;
  await menuButton(page, newest).focus();
  await openMenu(page, 'ArrowDown');
  assert.deepEqual(await menuItems(page), ['QR code', 'Edit', 'Duplicate', 'Disable', 'Delete']);
  assert.equal(await focusedText(page), 'QR code');
  await page.keyboard.press('ArrowDown');
  assert.equal(await focusedText(page), 'Edit');
  await page.keyboard.press('Escape');
  assert.equal(await page.getByRole('menu').count(), 0);
  assert.equal(await inPage<string>(page, "document.activeElement?.getAttribute('aria-haspopup') ?? ''"), 'menu');

  // QR code: a dialog with the image and a PNG to download; Escape gives focus back to the menu's button.
  await openMenu(page, 'Enter');
  await page.keyboard.press('Enter');
  const qr = page.getByRole('dialog', { name: 'QR code' });
  await qr.getByRole('img', { name: /QR code for/ }).waitFor();
  // Loaded, not broken: the image has pixels (awaited in the page; waitForFunction would need eval, which the CSP refuses).
  const qrWidth = await inPage<number>(
    page,
    "((img) => img.complete ? img.naturalWidth : new Promise((done) => img.addEventListener('load', () => done(img.naturalWidth))))(document.querySelector('.qr-dialog img'))",
  );
  assert.ok(qrWidth > 0, 'the QR code image loaded');
  assert.match((await qr.getByRole('link', { name: 'Download PNG' }).getAttribute('href')) ?? '', /^\/links\/link29\/qr\?format=png/);
  await screenshot(page, 'list-02-qr-dialog', false);
  await page.keyboard.press('Escape');
  await qr.waitFor({ state: 'hidden' });
  assert.equal(await inPage<string>(page, "document.activeElement?.getAttribute('aria-haspopup') ?? ''"), 'menu');

  // Disable: End then ↑ reaches it; the row says so and the API agrees.
  await openMenu(page, 'Enter');
  await page.keyboard.press('End');
  assert.equal(await focusedText(page), 'Delete');
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('Enter');
  await page.locator('tr.link-row').nth(1).locator('.badge', { hasText: 'Disabled' }).waitFor();
  assert.equal(((await (await api('/links/link29')).json()) as { disabled: boolean }).disabled, true);

  // Delete: the confirmation opens on Cancel; Delete link removes the row and the link, and the total follows.
  await menuButton(page, newest).focus();
  await openMenu(page, 'ArrowUp');
  assert.equal(await focusedText(page), 'Delete');
  await page.keyboard.press('Enter');
  const confirm = page.getByRole('dialog', { name: 'Delete this link?' });
  await confirm.waitFor();
  assert.equal(await focusedText(page), 'Cancel');
  await screenshot(page, 'list-03-delete-confirm', false);
  await page.keyboard.press('Tab');
  await page.keyboard.press('Enter');
  await confirm.waitFor({ state: 'hidden' });
  await page.getByText(`${LINKS - 1} links, 24 shown.`).waitFor();
  assert.equal(await menuButton(page, newest).count(), 0);
  assert.equal((await api('/links/link29')).status(), 404);

  // Search covers tags: "newsletter" is in no title or URL, only in tags.
  await page.getByLabel('Search').fill('newsletter');
  await page.getByText('9 links matching the filters.').waitFor();

  // Duplicate goes to the new-link page with the link named.
  await menuButton(page, 'Spring campaign 27').focus();
  await openMenu(page, 'ArrowDown');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  assert.equal(await focusedText(page), 'Duplicate');
  await page.keyboard.press('Enter');
  await page.waitForURL(`${base}/app/links/new?duplicate=link27`);
  assert.deepEqual(desk.problems, []);

  // A member on a phone: one-row header, filters behind a button, small cards, the first link high on the screen.
  const phone = await watchedPage(browser, { width: 390, height: 844 });
  t.after(() => phone.context.close());
  const p = phone.page;
  await signInWithKey(p, base, mo.secret);
  await p.getByText(`${LINKS - 1} links, 25 shown.`).waitFor();
  await screenshot(p, 'list-04-phone-top', false);
  const header = await p.locator('.site-header').boundingBox();
  assert.ok(header !== null && header.height <= 60, `the header is one row: ${header?.height} px`);
  const firstCard = await p.locator('tr.link-row').first().boundingBox();
  assert.ok(firstCard !== null && firstCard.y < 200, `the first link starts at y = ${firstCard?.y}`);
  const cards = await p.locator('tr.link-row').evaluateAll((rows) => rows.map((row) => row.getBoundingClientRect().height));
  assert.ok(Math.max(...cards) <= 120, `cards are small: ${Math.max(...cards)} px at most`);
  // Share sits beside Copy only where the browser has a share sheet (this Chromium has none).
  const canShare = await inPage<boolean>(p, "typeof navigator.share === 'function'");
  assert.equal(await p.getByRole('button', { name: /^Share short URL/ }).count(), canShare ? 25 : 0);
  // The main action stays on screen, pinned to its bottom.
  const create = await p.getByRole('link', { name: 'New link' }).boundingBox();
  assert.ok(create !== null && create.y + create.height <= 844 && create.y > 700, `New link is pinned below: y = ${create?.y}`);
  await look(p, 'list-04-phone');

  // A member's menu on Ada's link offers no change; on its own link, all of them.
  await menuButton(p, 'Spring campaign 27').click();
  assert.deepEqual(await menuItems(p), ['QR code', 'Duplicate']);
  await p.keyboard.press('Escape');
  await menuButton(p, "Mo's shop").click();
  assert.deepEqual(await menuItems(p), ['QR code', 'Edit', 'Duplicate', 'Disable', 'Delete']);
  await p.keyboard.press('Escape');

  // Filters (n): closed, then opened; a tag chosen counts one.
  const filtersButton = p.getByRole('button', { name: /^Filters/ });
  assert.equal(await p.getByLabel('Tag').isVisible(), false, 'the filters are folded');
  await filtersButton.click();
  await p.getByLabel('Tag').selectOption('spring');
  await p.getByText('9 links matching the filters.').waitFor();
  assert.equal((await filtersButton.textContent())?.trim(), 'Filters (1)');
  await look(p, 'list-05-phone-filters');

  // The header's menu opens the navigation; a member reads the settings (only admins change them), and has no Audit.
  await p.getByRole('button', { name: 'Menu' }).click();
  const nav = p.getByRole('navigation', { name: 'Main' });
  await nav.getByRole('link', { name: 'Analytics' }).waitFor();
  assert.equal(await nav.getByRole('link', { name: 'Settings' }).count(), 1);
  assert.equal(await nav.getByRole('link', { name: 'Audit' }).count(), 0);
  await look(p, 'list-06-phone-menu');
  await nav.getByRole('link', { name: 'Analytics' }).click();
  await p.getByRole('heading', { name: 'Analytics', level: 1 }).waitFor();
  assert.equal(await nav.isVisible(), false, 'the menu closes on the way');
  assert.deepEqual(phone.problems, []);
});
