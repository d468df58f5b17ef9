// A link's redirect options in the dashboard, in a real browser (Debian's Chromium through
// playwright-core): made with the create form, refused on the very field the API names, shown on
// the link's page, changed with the edit form, and followed as a phone would follow them. The forms
// must hold their Content-Security-Policy, pass axe-core and fit a phone. Screenshots land in
// test-results/dashboard/.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import type { CreatedKey } from '../../src/auth/api-keys.ts';
import { startApp } from '../helpers/app.ts';
import { launchChromium, look, screenshot, signInWithKey, startLandingPage, watchedPage } from '../helpers/browser.ts';
import { createTestDatabase, withClient, type TestDatabase } from '../helpers/db.ts';
import { freePort } from '../helpers/redis.ts';
import { keysWith } from '../helpers/workspaces.ts';
import { ruleWords } from '../../web/src/links/rule-words.ts';

let database: TestDatabase;
let browser: Browser;
let admin: CreatedKey;

before(async () => {
  database = await createTestDatabase('dashboard_link_options');
  ({ Ada: admin } = await keysWith(database.url, { Ada: 'admin' }));
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await database.drop();
});

const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';

async function storedOptions(alias: string): Promise<unknown> {
  const { rows } = await withClient(database.url, (client) =>
    client.query<{ options: unknown }>('SELECT options FROM links WHERE code = $1', [alias]),
  );
  return rows[0]?.options;
}

test('create a link with a status, query forwarding, rules and a split; a bad country is shown on its field; edit them; a phone follows them', async (t) => {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const { app } = await startApp(t, database.url, { BASE_URL: base, PORT: String(port) });
  await app.listen({ port, host: '127.0.0.1' });
  const desk = await watchedPage(browser, { width: 1280, height: 900 });
  t.after(() => desk.context.close());
  const { page } = desk;
  await signInWithKey(page, base, admin.secret);

  await page.getByRole('link', { name: 'New link' }).first().click();
  await page.getByLabel('Target URL').fill('https://example.com/app');
  const alias = `opts-${Date.now().toString(36)}`;
  await page.getByLabel('Custom alias (optional)').fill(alias);
  // Closed for the plain link most people make, each section opened by its summary.
  assert.equal(await page.getByLabel('Redirect status').isVisible(), false);
  for (const section of ['redirect', 'targeting', 'preview', 'apps', 'protection'])
    await page.locator(`#link-create-section-${section} > summary`).click();
  await page.getByLabel('Redirect status').selectOption('307');
  await page.getByLabel('Forward the visitor’s query').selectOption('true');
  await page.getByRole('button', { name: 'Add a rule' }).click();
  const rule1 = page.getByRole('group', { name: 'Rule 1' });
  await rule1.getByLabel('iOS').check();
  await rule1.getByLabel('Send them to').fill('https://apps.apple.com/app/id42');
  await page.getByRole('button', { name: 'Add a rule' }).click();
  const rule2 = page.getByRole('group', { name: 'Rule 2' });
  await rule2.getByLabel('Countries').fill('DE, Narnia');
  await rule2.getByLabel('Preferred languages').fill('de');
  await rule2.getByLabel('Send them to').fill('https://example.com/de/app');
  await page.getByRole('button', { name: 'Add an A/B split' }).click();
  await page.getByRole('group', { name: 'Variant A' }).getByLabel('URL').fill('https://example.com/app?v=a');
  await page.getByRole('group', { name: 'Variant B' }).getByLabel('URL').fill('https://example.com/app?v=b');
  await page.getByRole('group', { name: 'Variant A' }).getByLabel('Weight (%)').fill('30');
  await page.getByRole('group', { name: 'Variant B' }).getByLabel('Weight (%)').fill('70');
  await page.getByLabel('Preview title').fill('The app, now');
  await page.getByLabel('Preview image URL').fill('https://cdn.example/app.png');
  await page.getByLabel('Android app URL').fill('myapp://open/app');
  await page.getByLabel('Click limit').fill('5000');
  await page.getByRole('button', { name: 'Create link' }).click();

  // The API's error, on the field it names, which has the focus.
  const countries = rule2.getByLabel('Countries');
  await page.locator('#link-create-opt-targets-1-country-error').waitFor();
  assert.equal(await countries.getAttribute('aria-invalid'), 'true');
  assert.match((await countries.getAttribute('aria-describedby')) ?? '', /link-create-opt-targets-1-country-error/);
  assert.equal(await page.evaluate<string>('document.activeElement?.id'), 'link-create-opt-targets-1-country');
  // In people's words, without the API's name of the field: the control's label says which it is.
  assert.match((await page.locator('#link-create-opt-targets-1-country-error').textContent()) ?? '', /^Use two-letter country codes/);
  await look(page, 'desktop-20-link-options-error');
  assert.equal(await storedOptions(alias), undefined, 'nothing was created');

  await countries.fill('DE, AT');
  await page.getByRole('button', { name: 'Create link' }).click();
  await page.getByRole('link', { name: 'Open the link’s page' }).click();
  // Not the heading alone: "Loading the link…" carries the same one.
  await page.locator('#detail-options').waitFor();
  const made = {
    redirectStatus: 307,
    forwardQuery: true,
    targets: [
      { when: { device: ['ios'] }, url: 'https://apps.apple.com/app/id42' },
      { when: { country: ['DE', 'AT'], language: ['de'] }, url: 'https://example.com/de/app' },
    ],
    split: [
      { url: 'https://example.com/app?v=a', weight: 30 },
      { url: 'https://example.com/app?v=b', weight: 70 },
    ],
    preview: { title: 'The app, now', image: 'https://cdn.example/app.png' },
    deepLink: { android: 'myapp://open/app' },
    clickLimit: 5000,
  };
  assert.deepEqual(await storedOptions(alias), made);
  // What it does, in words (web/src/links/rule-words.ts), a sentence a line.
  assert.deepEqual(
    await page.locator('#detail-options li').allTextContents(),
    ruleWords({ url: 'https://example.com/app', options: made }),
  );
  assert.equal(
    await page.locator('#detail-options li').first().textContent(),
    'Visitors on iPhone or iPad go to https://apps.apple.com/app/id42.',
  );
  assert.equal(await page.locator('#detail-clicks-used').textContent(), ' 0 of 5,000 clicks used');
  await look(page, 'desktop-21-link-with-options');

  // As a phone follows it: its rule, its status, its query.
  const followed = await page.request.get(`${base}/${alias}?src=sms`, { maxRedirects: 0, headers: { 'user-agent': IPHONE } });
  assert.equal(followed.status(), 307);
  assert.equal(followed.headers().location, 'https://apps.apple.com/app/id42?src=sms');

  // Edit: the form opens with the options as they are; rule 1 removed, the status back to the default.
  await page.getByRole('button', { name: 'Edit link' }).click();
  // Closed, each section says what is set in it.
  assert.equal(
    await page.locator('#link-edit-section-redirect > summary').textContent(),
    'Redirect: 307 Temporary Redirect · query forwarded',
  );
  await page.locator('#link-edit-section-redirect > summary').click();
  await page.locator('#link-edit-section-targeting > summary').click();
  assert.equal(await page.getByLabel('Redirect status').inputValue(), '307');
  assert.equal(await page.getByRole('group', { name: 'Rule 2' }).getByLabel('Countries').inputValue(), 'DE, AT');
  await page.getByRole('button', { name: 'Remove rule 1' }).click();
  await page.getByLabel('Redirect status').selectOption('');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.getByRole('status').filter({ hasText: 'Changes saved' }).waitFor();
  const { redirectStatus: _, targets, ...kept } = made;
  assert.deepEqual(await storedOptions(alias), { ...kept, targets: targets.slice(1) });
  const now = await page.request.get(`${base}/${alias}`, { maxRedirects: 0, headers: { 'user-agent': IPHONE } });
  assert.equal(now.status(), 302);
  assert.match(now.headers().location ?? '', /^https:\/\/example\.com\/app\?v=[ab]$/);

  // On a phone: the options fit, each control labelled.
  const phone = await watchedPage(browser, { width: 390, height: 844 }, IPHONE);
  t.after(() => phone.context.close());
  await signInWithKey(phone.page, base, admin.secret);
  await phone.page.getByRole('link', { name: 'New link' }).first().click();
  await phone.page.locator('#link-create-section-targeting > summary').click();
  await phone.page.getByRole('button', { name: 'Add a rule' }).click();
  await phone.page.getByRole('button', { name: 'Add an A/B split' }).click();
  await look(phone.page, 'phone-20-link-options');
  assert.deepEqual([...desk.problems, ...phone.problems], [], 'no CSP violation, console error or uncaught error');
});

test('an iPhone without the app: the deep link’s page tries the app, then goes on to the web target, its one script allowed by the CSP', async (t) => {
  const landing = await startLandingPage('deep-link');
  t.after(() => landing.close());
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const { app } = await startApp(t, database.url, { BASE_URL: base, PORT: String(port), ALLOW_PRIVATE_TARGETS: 'true' });
  await app.listen({ port, host: '127.0.0.1' });
  const alias = `app-${Date.now().toString(36)}`;
  const created = await app.inject({
    method: 'POST',
    url: '/links',
    headers: { authorization: `Bearer ${admin.secret}` },
    payload: { url: landing.url, alias, options: { deepLink: { ios: 'shortener-test-app://open/42' } } },
  });
  assert.equal(created.statusCode, 201, created.body);
  const phone = await watchedPage(browser, { width: 390, height: 844 }, IPHONE);
  t.after(() => phone.context.close());
  const started = Date.now();
  // What a person sees before the app opens, and all a browser that runs no script gets: both links.
  const still = await browser.newContext({ viewport: { width: 390, height: 844 }, userAgent: IPHONE, javaScriptEnabled: false });
  t.after(() => still.close());
  const noScript = await still.newPage();
  await noScript.goto(`${base}/${alias}`);
  assert.equal(await noScript.getByRole('link', { name: 'Open in the app' }).getAttribute('href'), 'shortener-test-app://open/42');
  assert.equal(await noScript.getByRole('link', { name: 'Continue in the browser' }).getAttribute('href'), landing.url);
  await screenshot(noScript, 'phone-24-app-page');
  await phone.page.goto(`${base}/${alias}`);
  // No app takes the scheme here: 1.5 s later the page goes on to the web target.
  await phone.page.getByRole('heading', { name: 'Landed' }).waitFor({ timeout: 10_000 });
  assert.equal(phone.page.url(), landing.url);
  assert.ok(Date.now() - started >= 1400, `went on after ${Date.now() - started} ms: it did not give the app its chance`);
  // Chromium says that no handler took the app's scheme; nothing else may go wrong, and no CSP violation.
  assert.deepEqual(
    phone.problems.filter((p) => !p.includes('shortener-test-app://')),
    [],
  );
});

test('a password-protected link: made with the form; its page asks for the password, refuses a wrong one on its field, lets the right one through', async (t) => {
  const landing = await startLandingPage('password');
  t.after(() => landing.close());
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const { app } = await startApp(t, database.url, { BASE_URL: base, PORT: String(port), ALLOW_PRIVATE_TARGETS: 'true' });
  await app.listen({ port, host: '127.0.0.1' });
  const desk = await watchedPage(browser, { width: 1280, height: 900 });
  t.after(() => desk.context.close());
  await signInWithKey(desk.page, base, admin.secret);
  await desk.page.getByRole('link', { name: 'New link' }).first().click();
  await desk.page.getByLabel('Target URL').fill(landing.url);
  const alias = `pass-${Date.now().toString(36)}`;
  await desk.page.getByLabel('Custom alias (optional)').fill(alias);
  await desk.page.locator('#link-create-section-protection > summary').click();
  await desk.page.getByLabel('Password', { exact: true }).fill('correct horse');
  await desk.page.getByRole('button', { name: 'Create link' }).click();
  await desk.page.getByRole('link', { name: 'Open the link’s page' }).click();
  await desk.page.getByRole('heading', { name: `Link ${alias}` }).waitFor();
  assert.match((await desk.page.locator('#detail-options').textContent()) ?? '', /password/);
  const stored = (await storedOptions(alias)) as { passwordHash?: string };
  assert.match(stored.passwordHash ?? '', /^scrypt\$/);

  // Editing other options keeps the password unless it is removed.
  await desk.page.getByRole('button', { name: 'Edit link' }).click();
  assert.match((await desk.page.locator('#link-edit-section-protection > summary').textContent()) ?? '', /Password kept/);
  assert.equal(await desk.page.getByLabel('New password').inputValue(), '');
  await desk.page.locator('#link-edit-section-redirect > summary').click();
  await desk.page.getByLabel('Redirect status').selectOption('307');
  await desk.page.getByRole('button', { name: 'Save changes' }).click();
  await desk.page.getByRole('status').filter({ hasText: 'Changes saved' }).waitFor();
  assert.equal(((await storedOptions(alias)) as { passwordHash?: string }).passwordHash, stored.passwordHash);

  const phone = await watchedPage(browser, { width: 390, height: 844 }, IPHONE);
  t.after(() => phone.context.close());
  const { page } = phone;
  await page.goto(`${base}/${alias}`);
  await page.getByRole('heading', { name: 'This link is protected' }).waitFor();
  await look(page, 'phone-22-password');
  assert.equal(await page.evaluate<string>('document.activeElement?.id'), 'password', 'the field has the focus');
  await page.getByLabel('Password').fill('wrong horse');
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByRole('alert').filter({ hasText: 'That is not the password' }).waitFor();
  assert.equal(await page.getByLabel('Password').getAttribute('aria-invalid'), 'true');
  await look(page, 'phone-23-password-wrong');
  await page.getByLabel('Password').fill('correct horse');
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByRole('heading', { name: 'Landed' }).waitFor();
  assert.equal(page.url(), landing.url);
  // The pass is the browser's: the short link now goes straight through.
  await page.goto(`${base}/${alias}`);
  await page.getByRole('heading', { name: 'Landed' }).waitFor();
  assert.deepEqual([...desk.problems, ...phone.problems.filter((p) => !p.includes('403'))], []);
});
