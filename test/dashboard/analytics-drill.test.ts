// Analytics drill-down and the tag view in a real browser: a country of the breakdown is a link to
// its clicks alone (a chip that removes it, the address holds it, Back brings the whole view again),
// the tag picker narrows the page to a tag's links, a link's page drills down too; axe, nothing sideways, on a
// desktop and a phone.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import type { CreatedKey } from '../../src/auth/api-keys.ts';
import { bearer, startApp } from '../helpers/app.ts';
import { launchChromium, look, signInWithKey, watchedPage } from '../helpers/browser.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { freePort } from '../helpers/redis.ts';
import { keysWith } from '../helpers/workspaces.ts';
import { COUNTRY_IP as IP } from '../helpers/geo.ts';

const UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';

let database: TestDatabase;
let admin: CreatedKey;
let browser: Browser;

before(async () => {
  database = await createTestDatabase('analytics_drill');
  ({ admin } = await keysWith(database.url, { admin: 'admin' }));
  browser = await launchChromium();
});
after(async () => {
  await browser.close();
  await database.drop();
});

test('a country is a link to its clicks alone: chip, address, Back; the tag picker narrows to a tag’s links', async (t) => {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const { app } = await startApp(t, database.url, {
    BASE_URL: base,
    PORT: String(port),
    TRUST_PROXY: 'loopback',
    ANALYTICS_ENABLED: 'true',
  });
  await app.listen({ port, host: '127.0.0.1' });
  // Two links: "Spring sale" (tag sms) clicked 3 times from the US and once from Japan; "Newsletter" (tag email) twice from the US.
  const links = [
    { alias: 'spring', title: 'Spring sale', tags: ['sms'], clicks: { us: 3, jp: 1 } },
    { alias: 'news', title: 'Newsletter', tags: ['email'], clicks: { us: 2, jp: 0 } },
  ];
  for (const link of links) {
    const payload = { url: 'https://example.com/', alias: link.alias, title: link.title, tags: link.tags };
    const res = await app.inject({ method: 'POST', url: '/links', headers: bearer(admin), payload });
    assert.equal(res.statusCode, 201, res.body);
    for (const [country, times] of Object.entries(link.clicks) as ['us' | 'jp', number][]) {
      for (let i = 0; i < times; i++) {
        const click = await app.inject({ url: `/${link.alias}`, headers: { 'user-agent': UA, 'x-forwarded-for': IP[country] } });
        assert.equal(click.statusCode, 302);
      }
    }
  }
  await app.clicks.flush();

  for (const [device, viewport] of [
    ['desktop', { width: 1280, height: 800 }],
    ['phone', { width: 390, height: 844 }],
  ] as const) {
    const { page, context, problems } = await watchedPage(browser, viewport);
    t.after(() => context.close());
    await signInWithKey(page, base, admin.secret, '/app/analytics');
    const totals = page.locator('.totals');
    await totals.filter({ hasText: '6 clicks by people' }).waitFor();
    const countries = page.getByRole('region', { name: 'Countries', exact: true });
    await countries.waitFor();
    await look(page, `${device}-analytics-drill-00-all`);

    // Drill down by keyboard: the country is a link.
    const us = countries.getByRole('link', { name: 'United States' });
    await us.focus();
    await page.keyboard.press('Enter');
    await page.waitForURL((url) => url.search === '?dimension=country&value=US');
    await totals.filter({ hasText: '5 clicks by people' }).waitFor();
    const chip = page.getByRole('link', { name: 'Country: United States (remove this filter)' });
    await chip.waitFor();
    assert.equal(await page.evaluate('document.activeElement?.id'), 'clicks-heading', 'focus moves to the filtered clicks');
    await page.getByText('83.3% of all 6 clicks in this period').waitFor();
    await page.getByText('cannot be narrowed to one country').waitFor();
    assert.equal(await countries.count(), 0, 'the other lists are gone');
    const topLinks = page.getByRole('region', { name: 'Top links' }).getByRole('table');
    assert.deepEqual(await topLinks.locator('tbody tr td:nth-child(2)').allTextContents(), ['3', '2']);
    const daysTable = page.locator('details.data-table');
    await daysTable.getByText('Clicks per day as a table').click();
    assert.deepEqual(
      (await daysTable.locator('tbody tr').last().locator('td').allTextContents()).slice(0, 2),
      ['5', '0'],
      'today: the US clicks',
    );
    await look(page, `${device}-analytics-drill-01-country`);

    // Back brings the whole view again; Forward the drill-down; the chip removes it.
    await page.goBack();
    await page.waitForURL((url) => url.search === '');
    await totals.filter({ hasText: '6 clicks by people' }).waitFor();
    await countries.waitFor();
    await page.goForward();
    await totals.filter({ hasText: '5 clicks by people' }).waitFor();
    await chip.click();
    await page.waitForURL((url) => url.search === '');
    await countries.waitFor();

    // The tag picker: the sms links only, with the drill-down on top of it.
    await page.getByLabel('Tag', { exact: true }).selectOption('sms');
    await page.waitForURL((url) => url.search === '?tag=sms');
    await totals.filter({ hasText: '4 clicks by people' }).waitFor();
    await page.getByText('1 link tagged sms.').waitFor();
    await countries.getByRole('link', { name: 'Japan' }).click();
    await page.waitForURL((url) => url.search === '?tag=sms&dimension=country&value=JP');
    await totals.filter({ hasText: '1 click by people' }).waitFor();
    await page.getByText('25% of all 4 clicks in this period').waitFor();
    await look(page, `${device}-analytics-drill-02-tag`);
    if (device === 'desktop') {
      // A link's page drills down the same way, in its own address.
      await page.goto(`${base}/app/links/spring`);
      await totals.filter({ hasText: '4 clicks by people' }).waitFor();
      await page.getByRole('region', { name: 'Countries', exact: true }).getByRole('link', { name: 'Japan' }).click();
      await page.waitForURL((url) => url.pathname === '/app/links/spring' && url.search === '?dimension=country&value=JP');
      await totals.filter({ hasText: '1 click by people' }).waitFor();
      await page.getByRole('link', { name: 'Country: Japan (remove this filter)' }).waitFor();
    }
    assert.deepEqual(problems, [], `${device}: no console errors`);
  }
});
