// The whole way in for a team, in a real browser against the real service with a real SMTP server on
// loopback: a newcomer opens a fresh install and sets up the first admin; the admin invites a second
// person by email; the second person opens the link from the mail the SMTP server took, makes an
// account, adds a passkey (Chromium's virtual authenticator, over the DevTools protocol), signs out,
// signs back in with the passkey alone, and finds the invitation in the audit log.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startApp } from '../helpers/app.ts';
import { launchChromium, look, watchedPage } from '../helpers/browser.ts';
import { createTestDatabase, withClient, type TestDatabase } from '../helpers/db.ts';
import { freePort } from '../helpers/redis.ts';
import { linkIn, startSmtpServer, type TestSmtpServer } from '../helpers/smtp-server.ts';

let database: TestDatabase;
let browser: Browser;
let smtp: TestSmtpServer;

before(async () => {
  database = await createTestDatabase('dashboard_journey');
  smtp = await startSmtpServer();
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await smtp.close();
  await database.drop();
});

async function addAuthenticator(page: Page): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
  });
}

test('set up in the browser, invite by mail, join, add a passkey, sign in with it, see the invitation in the audit log', async (t) => {
  const port = await freePort();
  // localhost: a secure context, where browsers offer passkeys.
  const base = `http://localhost:${port}`;
  const { app } = await startApp(t, database.url, { BASE_URL: base, PORT: String(port), SMTP_URL: smtp.url });
  await app.listen({ port, host: '127.0.0.1' });

  // The newcomer: the dashboard opens on set-up, and makes the first admin.
  const admin = await watchedPage(browser, { width: 1280, height: 800 });
  t.after(() => admin.context.close());
  await admin.page.goto(`${base}/`);
  await admin.page.getByRole('heading', { name: 'Set up Shortener' }).waitFor();
  await admin.page.waitForLoadState('networkidle');
  assert.deepEqual(admin.failedLoads, [], 'a signed-out load asks nothing that answers 4xx (each is a console error)');
  await admin.page.getByLabel('Your name').fill('Ada Lovelace');
  await admin.page.getByLabel('Email address').fill('ada@example.com');
  await admin.page.getByLabel('Password').fill('correct horse battery staple');
  await admin.page.getByRole('button', { name: 'Create the admin account' }).click();
  await admin.page.getByRole('heading', { name: 'Links', level: 1 }).waitFor();
  await admin.page.waitForLoadState('networkidle');
  assert.deepEqual(admin.failedLoads, [], 'nor does signing in and landing on the links');

  // The admin invites Grace as an admin, by email.
  await admin.page.getByRole('link', { name: 'Members' }).click();
  await admin.page.getByRole('heading', { name: 'Members', level: 1 }).waitFor();
  await admin.page.getByLabel('Email address').fill('grace@example.com');
  await admin.page.getByLabel('Role', { exact: true }).selectOption('admin');
  await admin.page.getByRole('button', { name: 'Invite', exact: true }).click();
  await admin.page.getByRole('status').filter({ hasText: 'Invitation emailed to grace@example.com' }).waitFor();
  assert.equal(await admin.page.locator('#invitation-link-url').count(), 0, 'a mailed invitation shows no link');

  // Grace reads the mail the SMTP server took, and follows its link.
  const mail = await smtp.next((m) => (m.text ?? '').includes('/app/invitation?token='));
  assert.deepEqual(
    (Array.isArray(mail.to) ? mail.to : [mail.to]).flatMap((to) => to?.value.map((v) => v.address)),
    ['grace@example.com'],
  );
  const grace = await watchedPage(browser, { width: 1280, height: 800 });
  t.after(() => grace.context.close());
  const { page } = grace;
  await addAuthenticator(page);
  await page.goto(linkIn(mail, `${base}/app/invitation?token=`));
  await page.getByRole('heading', { name: 'Join Default' }).waitFor();
  await page.getByLabel('Your name').fill('Grace Hopper');
  await page.getByLabel('Password').fill('a long enough pass phrase');
  await page.getByRole('button', { name: 'Create account and join' }).click();
  await page.getByRole('heading', { name: 'Links', level: 1 }).waitFor();
  await page.locator('.who').getByText('Grace Hopper').waitFor();

  // A passkey, added on her profile.
  await page.getByRole('link', { name: 'Profile' }).click();
  await page.getByLabel('Name of a new passkey').fill('Laptop');
  await page.getByRole('button', { name: 'Add a passkey' }).click();
  await page.locator('.factor-name', { hasText: 'Laptop' }).waitFor();

  // Signed out, then in with the passkey alone: no email, no password.
  await page.getByRole('button', { name: 'Sign out', exact: true }).click();
  await page.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor();
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  await page.locator('.who').getByText('Grace Hopper').waitFor();
  const { rows } = await withClient(database.url, (client) =>
    client.query<{ methods: string[] }>(
      `SELECT s.methods FROM sessions s JOIN people p ON p.id = s.person_id WHERE p.email = 'grace@example.com' ORDER BY s.created_at DESC LIMIT 1`,
    ),
  );
  assert.deepEqual(rows[0]?.methods, ['passkey'], 'the session was opened by the passkey');

  // The audit log shows the invitation: who made it, and for whom.
  await page.getByRole('link', { name: 'Audit' }).click();
  await page.getByRole('heading', { name: 'Audit log', level: 1 }).waitFor();
  const invited = page.getByRole('row').filter({ has: page.locator('code', { hasText: /^member\.invite$/ }) });
  await invited.first().waitFor();
  assert.equal(await invited.count(), 1, 'one invitation');
  assert.match((await invited.first().textContent()) ?? '', /Ada Lovelace/);
  await look(page, 'people-journey-audit');
});
