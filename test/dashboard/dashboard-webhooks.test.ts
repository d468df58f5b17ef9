// Webhooks in the dashboard, in a real browser (see test/dashboard/dashboard.test.ts for the set-up), against a
// real receiver on 127.0.0.1 (WEBHOOK_ALLOW_PRIVATE) that checks every signature: an admin is shown a
// bad URL's and a missing event's errors on their controls, adds an endpoint (its secret shown once,
// with how to verify), sees a link's event delivered in the log, a delivery go dead while the
// receiver answers 500 and delivered when resent, rotates the secret (both sign during the overlap),
// disables and deletes the endpoint. A member is not offered the page. The page fits a phone.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { CreatedKey } from '../../src/auth/api-keys.ts';
import { bearer, startApp } from '../helpers/app.ts';
import { launchChromium, look, screenshot, seriousViolations, signInWithKey, watchedPage } from '../helpers/browser.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { freePort } from '../helpers/redis.ts';
import { until } from '../helpers/wait.ts';
import { WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { keysWith } from '../helpers/workspaces.ts';

let database: TestDatabase;
let browser: Browser;
let admin: CreatedKey;
let member: CreatedKey;

before(async () => {
  database = await createTestDatabase('dashboard-webhooks');
  ({ Ada: admin, Mo: member } = await keysWith(database.url, { Ada: 'admin', Mo: 'member' }));
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await database.drop();
});

/** The heights of the visible buttons, selects and text fields of the page's main part that are under 44 pixels. */
async function smallTargets(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(`[...document.querySelectorAll('main button, main select, main input:not([type=checkbox])')]
    .filter((e) => e.getClientRects().length > 0)
    .map((e) => [e.textContent.trim() || e.id, e.getBoundingClientRect().height])
    .filter(([, h]) => h < 44)
    .map(([name, h]) => name + ': ' + h)`);
}

test('an admin adds an endpoint, sees its deliveries, resends a dead one, rotates its secret, disables and deletes it; a member is not offered the page', async (t) => {
  const receiver = new WebhookReceiver();
  await receiver.open();
  t.after(() => receiver.close());
  const port = await freePort();
  // localhost: the receiver's 127.0.0.1 would be the service itself to the URL rules (URL_SELF_REFERENCE).
  const base = `http://localhost:${port}`;
  const { app } = await startApp(t, database.url, {
    BASE_URL: base,
    PORT: String(port),
    WEBHOOK_ALLOW_PRIVATE: 'true',
    WEBHOOK_POLL_MS: '100',
    WEBHOOK_RETRY_SCHEDULE: '100ms,100ms',
  });
  await app.listen({ port, host: '127.0.0.1' });
  const asAdmin = bearer(admin);
  const deliveries = async (id: number) =>
    (await app.inject({ url: `/webhooks/${id}/deliveries`, headers: asAdmin })).json<{
      deliveries: { id: number; webhookId: string; type: string; state: string }[];
    }>().deliveries;

  const desk = await watchedPage(browser, { width: 1280, height: 800 });
  t.after(() => desk.context.close());
  const { page } = desk;
  const card = page.getByRole('listitem', { name: receiver.url, exact: true });

  // Webhooks is an admin's, next to Domains (an admin key has no Profile: that is a person's); at first there is no endpoint.
  await signInWithKey(page, base, admin.secret, '/app/links');
  await page.getByRole('heading', { name: 'Links', level: 1 }).waitFor();
  const nav = await page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents();
  assert.deepEqual(nav, [
    'Links',
    'New link',
    'Analytics',
    'Import',
    'Members',
    'Keys',
    'Domains',
    'Webhooks',
    'Audit',
    'Settings',
    'Workspace',
  ]);
  await page.getByRole('navigation').getByRole('link', { name: 'Webhooks' }).click();
  await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
  await page.getByText('No endpoints yet').waitFor();

  // A URL that is not http(s): the API's message stands on the URL field, which gets focus.
  const url = page.getByLabel('Endpoint URL');
  await url.fill('ftp://x');
  await page.getByRole('button', { name: 'Add endpoint' }).click();
  const urlError = page.locator('#webhook-new-url-error');
  await urlError.waitFor();
  assert.equal(await urlError.textContent(), 'url must use http or https.');
  assert.equal(await url.getAttribute('aria-invalid'), 'true');
  assert.match((await url.getAttribute('aria-describedby')) ?? '', /webhook-new-url-error/);
  await page.locator('#webhook-new-url:focus').waitFor();
  await look(page, 'desktop-webhooks-01-url-error');

  // No event ticked: the error stands on the events, and the first box gets focus.
  await url.fill(receiver.url);
  await page.getByLabel('link.created').uncheck();
  await page.getByRole('button', { name: 'Add endpoint' }).click();
  await page.locator('#webhook-new-events-error').waitFor();
  assert.equal(await url.getAttribute('aria-invalid'), null, 'the URL is fine now');
  await page.locator('#webhook-new-event-link\\.created:focus').waitFor();

  // Added: the secret is shown with a copy button and how to verify a request.
  await page.getByLabel('link.created').check();
  await page.getByLabel('link.updated').check();
  await page.getByLabel('Description (optional)').fill('Order system');
  await page.getByRole('button', { name: 'Add endpoint' }).click();
  const secretBox = page.getByRole('region', { name: 'Endpoint added: its signing secret' });
  await secretBox.waitFor();
  const secret = (await page.locator('#new-webhook-secret').textContent()) ?? '';
  assert.match(secret, /^whsec_[A-Za-z0-9+/]{32}$/);
  receiver.secrets = [secret];
  await secretBox.getByRole('button', { name: "Copy the endpoint's signing secret" }).click();
  assert.equal(await page.evaluate<string>('navigator.clipboard.readText()'), secret);
  await secretBox.getByText('Verify each request').waitFor();
  await secretBox.getByRole('link', { name: 'Standard Webhooks' }).waitFor();
  await card.waitFor();
  assert.equal(await url.inputValue(), '', 'the form is empty again');
  assert.deepEqual(await card.locator('.tag').allTextContents(), ['link.created', 'link.updated']);
  assert.equal(await card.locator('.webhook-description').textContent(), 'Order system');
  await look(page, 'desktop-webhooks-02-added');
  await secretBox.getByRole('button', { name: 'Done' }).click();
  await secretBox.waitFor({ state: 'detached' });
  const [endpoint] = (await app.inject({ url: '/webhooks', headers: asAdmin })).json<{ webhooks: { id: number }[] }>().webhooks;
  assert.ok(endpoint !== undefined);

  // A link made through the API: its link.created is delivered, and the log says so.
  const made = await app.inject({ method: 'POST', url: '/links', headers: asAdmin, payload: { url: 'https://example.com/hooked' } });
  assert.equal(made.statusCode, 201, made.body);
  const { code } = made.json<{ code: string }>();
  await card.getByRole('button', { name: 'Show delivery log of Order system' }).click();
  const log = card.getByRole('region', { name: 'Delivery log' });
  const rows = log.locator('tbody tr');
  await log.locator('.delivery-delivered').first().waitFor({ timeout: 15_000 });
  assert.equal(await rows.count(), 1);
  const delivered = (await rows.first().textContent()) ?? '';
  assert.match(delivered, /link\.created/);
  assert.match(delivered, /HTTP 204 in \d+ ms/);
  assert.match(delivered, /Attempts1/);
  assert.equal(receiver.received.length, 1);
  assert.equal(receiver.received[0]?.event.type, 'link.created');
  assert.deepEqual(receiver.badSignatures, []);
  assert.equal(
    await rows
      .first()
      .getByRole('button', { name: /^Resend link\.created/ })
      .count(),
    1,
    'a delivered one can be resent',
  );

  // The receiver answers 500: the link's link.updated is tried three times, then dead.
  receiver.behaviour = { status: 500 };
  const changed = await app.inject({ method: 'PATCH', url: `/links/${code}`, headers: asAdmin, payload: { title: 'Hooked' } });
  assert.equal(changed.statusCode, 200, changed.body);
  await until('the link.updated delivery is dead', async () => (await deliveries(endpoint.id)).some((d) => d.state === 'dead'));
  await log.getByLabel('Show').selectOption('dead');
  await log.locator('.delivery-dead').first().waitFor();
  assert.equal(await rows.count(), 1, 'only the dead one');
  const dead = (await rows.first().textContent()) ?? '';
  assert.match(dead, /link\.updated/);
  assert.match(dead, /HTTP 500/);
  assert.match(dead, /Attempts3/);
  // Its status and time, never what the receiver said (docs/security.md).
  assert.doesNotMatch(dead, /receiver says no/);
  await page.reload();
  await card.getByText('1 dead').waitFor();
  await card.getByRole('button', { name: 'Show delivery log of Order system' }).click();
  await log.getByLabel('Show').selectOption('dead');
  await log.locator('.delivery-dead').first().waitFor();
  await look(page, 'desktop-webhooks-03-dead');

  // Resent with the receiver healthy: a new delivery of the same event (same webhook-id) is delivered.
  receiver.behaviour = { status: 204 };
  const deadId = receiver.received.at(-1)?.id;
  await rows
    .first()
    .getByRole('button', { name: /^Resend link\.updated/ })
    .click();
  await log.getByLabel('Show').selectOption('');
  await until('the resent delivery is delivered', async () => (await deliveries(endpoint.id))[0]?.state === 'delivered');
  await log.locator('tbody tr:first-child.delivery-delivered').waitFor({ timeout: 15_000 });
  assert.equal(await rows.count(), 3, 'created, the dead update and its resend');
  assert.match((await rows.first().textContent()) ?? '', /link\.updated.*Delivered.*HTTP 204/);
  assert.equal(receiver.accepted().at(-1)?.id, deadId, 'the resend carries the dead delivery’s webhook-id');
  assert.deepEqual(receiver.badSignatures, []);
  // The resent one stays dead in the log, as it was (README: Webhooks), but no longer counts: its event was delivered.
  await card.getByText('0 waiting, 0 dead').waitFor();

  // Reveal, then rotate the secret: the dialog explains the overlap; both secrets sign until it ends.
  await card.getByRole('button', { name: 'Reveal secret of Order system' }).click();
  assert.equal(await card.locator(`#webhook-${endpoint.id}-secret`).textContent(), secret);
  await card.getByRole('button', { name: 'Rotate secret of Order system' }).click();
  const rotate = page.getByRole('dialog', { name: 'Rotate this secret?' });
  await rotate.waitFor();
  await rotate.getByText(/keeps signing them too/).waitFor();
  assert.deepEqual(await seriousViolations(page), [], 'the rotation dialog: no serious axe-core violation');
  await screenshot(page, 'desktop-webhooks-04-rotate', false);
  await rotate.getByRole('button', { name: 'Rotate secret' }).click();
  await rotate.waitFor({ state: 'hidden' });
  await card.getByText(/the previous secret also signs every request until/).waitFor();
  const rotated = (await card.locator(`#webhook-${endpoint.id}-secret`).textContent()) ?? '';
  assert.match(rotated, /^whsec_/);
  assert.notEqual(rotated, secret);
  receiver.secrets = [secret, rotated];
  const received = receiver.received.length;
  await app.inject({ method: 'PATCH', url: `/links/${code}`, headers: asAdmin, payload: { title: 'Rotated' } });
  await until('the update after the rotation arrives', async () => receiver.received.length > received);
  assert.equal(receiver.received.at(-1)?.signature.split(' ').length, 2, 'two signatures during the overlap');
  assert.deepEqual(receiver.badSignatures, [], 'each secret verifies it');
  await look(page, 'desktop-webhooks-05-rotated');

  // Edited in place: its events.
  await card.getByRole('button', { name: 'Edit Order system' }).click();
  await card.getByLabel('link.deleted').check();
  await card.getByRole('button', { name: 'Save endpoint' }).click();
  await card.locator('.tag', { hasText: 'link.deleted' }).waitFor();

  // The same page on a phone: nothing sideways, every control a 44-pixel target.
  const phone = await watchedPage(browser, { width: 390, height: 844 });
  t.after(() => phone.context.close());
  await signInWithKey(phone.page, base, admin.secret, '/app/webhooks');
  await phone.page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
  const phoneCard = phone.page.getByRole('listitem', { name: receiver.url, exact: true });
  await phoneCard.getByRole('button', { name: 'Show delivery log of Order system' }).click();
  await phoneCard.locator('.delivery-delivered').first().waitFor();
  await look(phone.page, 'phone-webhooks');
  await phoneCard.locator('tbody tr').first().scrollIntoViewIfNeeded();
  await screenshot(phone.page, 'phone-webhooks-log', false);
  assert.deepEqual(await smallTargets(phone.page), [], 'no control under 44 pixels on a phone');

  // Disabled: the badge says so, and so does the API.
  await card.getByRole('button', { name: 'Disable Order system' }).click();
  await card.getByRole('button', { name: 'Enable Order system' }).waitFor();
  await card.locator('.badge', { hasText: 'Disabled' }).waitFor();
  const disabled = (await app.inject({ url: `/webhooks/${endpoint.id}`, headers: asAdmin })).json<{ enabled: boolean }>();
  assert.equal(disabled.enabled, false);

  // Deleted after a confirmation.
  await card.getByRole('button', { name: 'Delete Order system' }).click();
  const remove = page.getByRole('dialog', { name: 'Delete this endpoint?' });
  await remove.getByRole('button', { name: 'Delete endpoint' }).click();
  await card.waitFor({ state: 'detached' });
  await page.getByText('No endpoints yet').waitFor();
  assert.equal((await app.inject({ url: `/webhooks/${endpoint.id}`, headers: asAdmin })).statusCode, 404);

  // A member: no Webhooks in the navigation, and the page says it is an admin's.
  const memberPage = await watchedPage(browser, { width: 1280, height: 800 });
  t.after(() => memberPage.context.close());
  await signInWithKey(memberPage.page, base, member.secret, '/app/links');
  await memberPage.page.getByRole('heading', { name: 'Links', level: 1 }).waitFor();
  assert.equal(await memberPage.page.getByRole('navigation').getByRole('link', { name: 'Webhooks' }).count(), 0);
  await memberPage.page.goto(`${base}/app/webhooks`);
  await memberPage.page.getByText('Only admin keys can manage the workspace’s webhooks.').waitFor();
  assert.equal(await memberPage.page.getByRole('button', { name: 'Add endpoint' }).count(), 0);

  assert.deepEqual(desk.problems, [], 'no console error and no CSP violation on the desktop');
  assert.deepEqual(phone.problems, [], 'none on the phone');
  assert.deepEqual(memberPage.problems, [], 'none for the member');
});
