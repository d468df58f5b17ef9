// Passkeys and second factors in a real browser: Chromium with a virtual authenticator (CTAP2, internal,
// resident keys, user verification) attached over the DevTools protocol, against the real service on
// http://localhost (a secure context, so browsers offer WebAuthn). A person registers a passkey on their
// profile page, signs out, signs in with the passkey alone (no email, no password), and then uses it as the
// second step after the password; an assertion replayed, or one whose signature counter does not grow, is
// refused. An admin requires a second factor; a member without one sees the banner, sets up an
// authenticator app (its code computed here, as a phone would) and gets in. Each new page passes axe-core and
// is saved as a screenshot, desktop and a 375 px phone (test-results/dashboard/passkeys-*.png).

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { Secret, TOTP } from 'otpauth';
import { errorCode, startApp } from '../helpers/app.ts';
import { inPage, launchChromium, look, unfoldMenu, watchedPage } from '../helpers/browser.ts';
import { createTestDatabase, withClient, type TestDatabase } from '../helpers/db.ts';
import { freePort } from '../helpers/redis.ts';

let database: TestDatabase;
let browser: Browser;

before(async () => {
  database = await createTestDatabase('dashboard_passkeys');
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await database.drop();
});

const PHONE = { width: 375, height: 740 };
const PASSWORD = 'correct horse battery staple';

/** A virtual authenticator of the page's own: a platform authenticator that holds discoverable passkeys and verifies its user. */
async function addAuthenticator(page: Page): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
  });
}

async function signOut(page: Page): Promise<void> {
  await unfoldMenu(page);
  await page.getByRole('button', { name: 'Sign out', exact: true }).click();
  await page.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor();
}

async function passwordStep(page: Page, email: string): Promise<void> {
  await page.getByLabel('Email address').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

const methodsOf = async (email: string): Promise<string[][]> =>
  (
    await withClient(database.url, (client) =>
      client.query<{ methods: string[] }>(
        'SELECT s.methods FROM sessions s JOIN people p ON p.id = s.person_id WHERE p.email = $1 ORDER BY s.created_at',
        [email],
      ),
    )
  ).rows.map((row) => row.methods);

test('a passkey registered on the profile signs in alone and as the second step; replays refused; a required factor is added from the banner', async (t) => {
  const port = await freePort();
  const base = `http://localhost:${port}`;
  const { app } = await startApp(t, database.url, { BASE_URL: base, PORT: String(port) });
  await app.listen({ port, host: '127.0.0.1' });
  const setUp = await app.inject({
    method: 'POST',
    url: '/auth/setup',
    payload: { name: 'Ada Lovelace', email: 'ada@example.com', password: PASSWORD },
  });
  assert.equal(setUp.statusCode, 201, setUp.body);

  const desk = await watchedPage(browser, { width: 1280, height: 800 });
  t.after(() => desk.context.close());
  const { page } = desk;
  await addAuthenticator(page);

  // Signed in with the password: no factor yet, so no second step.
  await page.goto(`${base}/app/sign-in`);
  await page.getByRole('button', { name: 'Sign in with a passkey' }).waitFor();
  await passwordStep(page, 'ada@example.com');
  await page.getByRole('heading', { name: 'Links', level: 1 }).waitFor();

  // The profile: a passkey named and registered (the virtual authenticator answers), with the first recovery codes.
  await page.getByRole('link', { name: 'Profile' }).click();
  await page.getByRole('heading', { name: 'Second factors' }).waitFor();
  await look(page, 'passkeys-01-profile-none');
  await page.getByLabel('Name of a new passkey').fill('Work laptop');
  await page.getByRole('button', { name: 'Add a passkey' }).click();
  await page.locator('.factor-name', { hasText: 'Work laptop' }).waitFor();
  await page.getByText('Save these codes now').waitFor();
  assert.equal(await page.locator('#recovery-code-list li').count(), 10);
  assert.deepEqual((await methodsOf('ada@example.com')).at(-1), ['password', 'passkey'], 'the session that added the passkey counts it');
  await look(page, 'passkeys-02-profile-passkey');

  // Signed out, then in with the passkey alone: the browser offers it, no email is asked.
  await signOut(page);
  await look(page, 'passkeys-03-sign-in');
  const assertions: string[] = [];
  page.on('request', (request) => {
    if (request.url().endsWith('/auth/passkey/sign-in')) assertions.push(request.postData() ?? '');
  });
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  // Back on the profile, where the sign-out was.
  await page.locator('.who').getByText('Ada Lovelace').waitFor();
  assert.deepEqual((await methodsOf('ada@example.com')).at(-1), ['passkey']);

  // The same assertion again: its challenge was taken by the first.
  assert.equal(assertions.length, 1);
  const replayed = await app.inject({
    method: 'POST',
    url: '/auth/passkey/sign-in',
    headers: { 'content-type': 'application/json' },
    payload: assertions[0] ?? '',
  });
  assert.equal(replayed.statusCode, 401, replayed.body);
  assert.equal(errorCode(replayed), 'PASSKEY_INVALID');
  // A fresh assertion (its counter grown) over a challenge the service never gave.
  const forged = await inPage<unknown>(
    page,
    `navigator.credentials
      .get({ publicKey: { challenge: crypto.getRandomValues(new Uint8Array(32)), rpId: 'localhost', userVerification: 'required' } })
      .then((credential) => credential.toJSON())`,
  );
  const unasked = await app.inject({ method: 'POST', url: '/auth/passkey/sign-in', payload: { response: forged } });
  assert.equal(unasked.statusCode, 401, unasked.body);
  assert.equal(errorCode(unasked), 'PASSKEY_INVALID');

  // The password now asks for the second step; the passkey completes it.
  await signOut(page);
  await passwordStep(page, 'ada@example.com');
  await page.getByRole('heading', { name: 'Confirm it is you' }).waitFor();
  assert.equal(await page.getByLabel('Code from your authenticator app').count(), 0, 'no app: no code of one asked');
  await page.getByLabel('Recovery code').waitFor();
  await look(page, 'passkeys-04-second-step');
  await page.getByRole('button', { name: 'Use a passkey' }).click();
  await page.locator('.who').getByText('Ada Lovelace').waitFor();
  assert.deepEqual((await methodsOf('ada@example.com')).at(-1), ['password', 'passkey']);

  // A passkey whose counter does not grow (a cloned authenticator) signs nobody in.
  const counters = await withClient(database.url, (client) => client.query<{ counter: string }>('SELECT counter FROM passkeys'));
  assert.ok(Number(counters.rows[0]?.counter) > 0, 'the authenticator counts its signatures');
  await withClient(database.url, (client) => client.query('UPDATE passkeys SET counter = 1000000'));
  await signOut(page);
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  await page.getByRole('alert').filter({ hasText: 'could not sign you in' }).waitFor();
  await withClient(database.url, (client) => client.query('UPDATE passkeys SET counter = 0'));
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  await page.locator('.who').getByText('Ada Lovelace').waitFor();

  // The admin requires a second factor (this session signed in with one, so it may).
  await page.getByRole('link', { name: 'Settings', exact: true }).click();
  await page.getByLabel('Require a second factor').check();
  await page.getByText('A second factor is now required').first().waitFor();
  await look(page, 'passkeys-05-settings');

  // A member without a factor, on a phone: signed in by password, held to the profile by the banner.
  const invited = await app.inject({
    method: 'POST',
    url: '/invitations',
    headers: { cookie: await cookieOf(page, base), 'x-csrf-token': await csrfOf(page) },
    payload: { email: 'mo@example.com', role: 'member' },
  });
  assert.equal(invited.statusCode, 201, invited.body);
  const token = new URL(invited.json<{ url: string }>().url).searchParams.get('token') ?? '';
  const accepted = await app.inject({
    method: 'POST',
    url: `/auth/invitations/${token}/accept`,
    payload: { name: 'Mo Member', password: PASSWORD },
  });
  assert.equal(accepted.statusCode, 201, accepted.body);
  const phone = await watchedPage(browser, PHONE);
  t.after(() => phone.context.close());
  await phone.page.goto(`${base}/app/sign-in`);
  await passwordStep(phone.page, 'mo@example.com');
  const banner = phone.page.locator('.pending-banner');
  await banner.getByText('requires a second factor').waitFor();
  await look(phone.page, 'passkeys-06-phone-banner');
  await banner.getByRole('link').click();
  await phone.page.getByRole('heading', { name: 'Second factors' }).waitFor();

  // An authenticator app: its secret read from the page, its code computed here.
  await phone.page.getByRole('button', { name: 'Set up an authenticator app' }).click();
  await phone.page.getByRole('img', { name: /QR code/ }).waitFor();
  await phone.page.getByText('Cannot scan? Type the secret').click();
  const secret = ((await phone.page.locator('#totp-secret').textContent()) ?? '').trim();
  assert.match(secret, /^[A-Z2-7]{32}$/);
  await look(phone.page, 'passkeys-07-phone-totp-setup');
  assert.equal(await phone.page.getByLabel('Code from the app').getAttribute('autocomplete'), 'one-time-code');
  const code = new TOTP({ secret: Secret.fromBase32(secret) }).generate();
  await phone.page.getByLabel('Code from the app').fill(code);
  await phone.page.getByRole('button', { name: 'Confirm' }).click();
  await phone.page.getByText('Save these codes now').waitFor();
  await phone.page.locator('.pending-banner').waitFor({ state: 'detached' });
  await look(phone.page, 'passkeys-08-phone-profile-totp');
  await unfoldMenu(phone.page);
  await phone.page.getByRole('link', { name: 'Links' }).click();
  await phone.page.getByRole('heading', { name: 'Links', level: 1 }).waitFor();

  // Mo's next sign-in asks for the app's code (the next one: this step's was taken by the confirmation).
  await signOut(phone.page);
  await passwordStep(phone.page, 'mo@example.com');
  const field = phone.page.getByLabel('Code from your authenticator app');
  await field.waitFor();
  assert.equal(await field.getAttribute('autocomplete'), 'one-time-code');
  assert.equal(await inPage(phone.page, 'document.activeElement?.id'), 'second-factor-value', 'the code field takes the focus');
  await look(phone.page, 'passkeys-09-phone-second-step');
  await field.fill(new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: Date.now() + 30_000 }));
  await phone.page.getByRole('button', { name: 'Verify' }).click();
  await phone.page.locator('.who').getByText('Mo Member').waitFor({ state: 'attached' });

  assert.deepEqual(desk.problems, [], 'no console error, uncaught error or CSP violation (desktop)');
  assert.deepEqual(phone.problems, [], 'no console error, uncaught error or CSP violation (phone)');
});

/** The page's session cookie, for a request the test makes as the same person. */
async function cookieOf(page: Page, base: string): Promise<string> {
  const cookies = await page.context().cookies(base);
  const session = cookies.find((cookie) => cookie.name.endsWith('shortener_session'));
  return `${session?.name}=${session?.value}`;
}

/** The session's CSRF token (GET /auth/session, as the dashboard reads it). */
async function csrfOf(page: Page): Promise<string> {
  return inPage<string>(page, "fetch('/auth/session').then((r) => r.json()).then((s) => s.csrfToken)");
}
