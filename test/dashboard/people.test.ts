// People in the dashboard, in a real browser (see test/dashboard/dashboard.test.ts for the set-up), against
// the real service with no SMTP: a fresh install opens on the set-up page, which creates the first admin
// and signs them in; the admin invites a member and copies the invitation link (it was not mailed); the
// invitee opens it on a phone, makes an account and lands in the workspace; the admin sees them among
// the members and the invitation and the join in the audit log, and switches workspace. Each page passes
// axe-core, fits a 375 px phone, and is saved as a screenshot (test-results/dashboard/people-*.png).

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { createWorkspace } from '../../src/auth/api-keys.ts';
import { startApp } from '../helpers/app.ts';
import { inPage, launchChromium, look, unfoldMenu, watchedPage } from '../helpers/browser.ts';
import { createTestDatabase, withClient, type TestDatabase } from '../helpers/db.ts';
import { freePort } from '../helpers/redis.ts';
import { linkIn, startSmtpServer } from '../helpers/smtp-server.ts';

let database: TestDatabase;
let mailDatabase: TestDatabase;
let browser: Browser;

before(async () => {
  database = await createTestDatabase('dashboard_people');
  mailDatabase = await createTestDatabase('dashboard_people_mail');
  // A second workspace before anyone exists: the first admin is an admin of every workspace, so they can switch.
  await withClient(database.url, (client) => createWorkspace(client, 'Marketing'));
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await database.drop();
  await mailDatabase.drop();
});

const PHONE = { width: 375, height: 740 };

/** The main navigation's link texts. */
const navOf = async (page: Page) => {
  await unfoldMenu(page);
  return page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents();
};

test('a fresh install opens on set-up; the admin invites a member by link, who joins from a phone; members, audit log and workspace switch', async (t) => {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const { app } = await startApp(t, database.url, { BASE_URL: base, PORT: String(port) });
  await app.listen({ port, host: '127.0.0.1' });
  const desk = await watchedPage(browser, { width: 1280, height: 800 });
  t.after(() => desk.context.close());
  const { page } = desk;

  // Nobody exists: the dashboard opens on the set-up page, its first field focused, and asks no token on loopback.
  await page.goto(`${base}/`);
  await page.getByRole('heading', { name: 'Set up Shortener' }).waitFor();
  assert.equal(page.url(), `${base}/app/setup`);
  assert.equal(await page.getByLabel('Set-up token').count(), 0, 'no token field from loopback');
  await look(page, 'people-01-setup');

  // With the keyboard alone; a common password is refused next to its field first.
  assert.equal(await inPage(page, 'document.activeElement?.id'), 'setup-name');
  await page.keyboard.type('Ada Lovelace');
  await page.keyboard.press('Tab');
  assert.equal(await inPage(page, 'document.activeElement?.id'), 'setup-email');
  await page.keyboard.type('ada@example.com');
  await page.getByLabel('Password').fill('password');
  await page.keyboard.press('Enter');
  await page.locator('#setup-password-error').waitFor();
  assert.equal(await page.getByLabel('Password').getAttribute('aria-invalid'), 'true');
  assert.equal(await inPage(page, 'document.activeElement?.id'), 'setup-password', 'focus goes to the field in error');
  await look(page, 'people-02-setup-error');
  await page.getByLabel('Password').fill('correct horse battery staple');
  await page.keyboard.press('Enter');

  // Signed in as the admin, on the links page, with the people pages in the navigation.
  await page.getByRole('heading', { name: 'Links', level: 1 }).waitFor();
  await page.locator('.who').getByText('Ada Lovelace').waitFor();
  const nav = await navOf(page);
  for (const name of ['Members', 'Audit', 'Settings', 'Profile']) assert.ok(nav.includes(name), `the admin's navigation has ${name}`);

  // Invite a member: no mail, so the link is shown to copy, once.
  await page.getByRole('link', { name: 'Members' }).click();
  await page.getByRole('heading', { name: 'Members', level: 1 }).waitFor();
  await page.getByLabel('Email address').fill('mo@example.com');
  await page.getByLabel('Role', { exact: true }).selectOption('member');
  await page.getByRole('button', { name: 'Invite', exact: true }).click();
  const shown = page.locator('#invitation-link-url');
  await shown.waitFor();
  const invitationUrl = ((await shown.textContent()) ?? '').trim();
  assert.match(invitationUrl, new RegExp(`^${base}/app/invitation\\?token=[\\w-]+$`));
  await page.getByText('It was not emailed').waitFor();
  await page.getByRole('button', { name: /^Copy / }).click();
  assert.equal(await inPage(page, 'navigator.clipboard.readText()'), invitationUrl, 'the copy button copies the link');
  await page.getByRole('rowheader', { name: 'mo@example.com' }).waitFor();
  await look(page, 'people-03-members-invited');

  // The invitee, on a phone: what the invitation is for, then an account made on the spot.
  const phone = await watchedPage(browser, PHONE);
  t.after(() => phone.context.close());
  await phone.page.goto(invitationUrl);
  await phone.page.getByRole('heading', { name: 'Join Default' }).waitFor();
  await phone.page.getByText('Ada Lovelace', { exact: true }).waitFor();
  await look(phone.page, 'people-04-phone-invitation');
  await phone.page.getByLabel('Your name').fill('Mo Member');
  await phone.page.getByLabel('Password').fill('a long enough pass phrase');
  await phone.page.getByRole('button', { name: 'Create account and join' }).click();
  await phone.page.getByRole('heading', { name: 'Links', level: 1 }).waitFor();
  await phone.page.locator('.who').getByText('Mo Member').waitFor({ state: 'attached' });
  const memberNav = await navOf(phone.page);
  // A person who is not an admin has Keys for their own personal keys; the workspace's admin pages are not theirs.
  assert.ok(
    ['Members', 'Profile', 'Keys'].every((name) => memberNav.includes(name)),
    `a member's navigation: ${memberNav.join(', ')}`,
  );
  assert.ok(!memberNav.includes('Audit'), "a member's navigation has no Audit");
  assert.ok(memberNav.includes('Settings'), 'a member reads the settings (only admins change them: test/dashboard/settings.test.ts)');
  await phone.page.getByRole('link', { name: 'Members' }).click();
  await phone.page.getByRole('rowheader', { name: /Mo Member/ }).waitFor();
  assert.equal(await phone.page.getByRole('button', { name: /^Remove/ }).count(), 0, 'a member removes nobody');
  await phone.page.getByRole('button', { name: 'Leave' }).waitFor();
  await look(phone.page, 'people-05-phone-members');
  await unfoldMenu(phone.page);
  await phone.page.getByRole('link', { name: 'Profile' }).click();
  await phone.page.getByRole('heading', { name: 'Where you are signed in' }).waitFor();
  await phone.page.getByText('This session').waitFor();
  await look(phone.page, 'people-06-phone-profile');

  // Signing out and in again with the password; the API-key form waits behind its disclosure.
  await unfoldMenu(phone.page);
  await phone.page.getByRole('button', { name: 'Sign out', exact: true }).click();
  await phone.page.getByRole('heading', { name: 'Sign in' }).waitFor();
  assert.equal(await phone.page.getByLabel('API key').isVisible(), false, 'the key form is folded');
  await phone.page.getByText('ask an admin of your workspace for a reset link').waitFor();
  await look(phone.page, 'people-07-phone-sign-in');
  await phone.page.getByLabel('Email address').fill('mo@example.com');
  await phone.page.getByLabel('Password').fill('not the password');
  await phone.page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await phone.page.getByRole('alert').filter({ hasText: 'wrong' }).waitFor();
  await phone.page.getByLabel('Password').fill('a long enough pass phrase');
  await phone.page.getByRole('button', { name: 'Sign in', exact: true }).click();
  // Back where the sign-out was.
  await phone.page.getByRole('heading', { name: 'Profile', level: 1 }).waitFor();

  // The admin sees the new member, and the invitation is no longer open.
  await page.reload();
  await page.getByRole('rowheader', { name: /Mo Member/ }).waitFor();
  await page.getByText('No open invitations.').waitFor();
  await look(page, 'people-08-members');

  // The admin makes Mo a viewer, in a dialog; and, with no mail, makes Mo a reset link to pass on.
  await page.getByRole('button', { name: 'Change role Mo Member' }).click();
  await page.getByRole('dialog').getByLabel('Role of Mo Member').selectOption('viewer');
  await page.getByRole('dialog').getByRole('button', { name: 'Save role' }).click();
  await page.getByRole('dialog').waitFor({ state: 'hidden' });
  await page
    .getByRole('row', { name: /Mo Member/ })
    .getByRole('cell', { name: 'Viewer' })
    .waitFor();
  await page.getByRole('button', { name: 'Reset link Mo Member' }).click();
  const resetUrl = ((await page.locator('#reset-link-url').textContent()) ?? '').trim();
  assert.match(resetUrl, new RegExp(`^${base}/app/reset-password\\?token=[\\w-]+$`));

  // Mo follows it: a new password typed twice (a mismatch first), then the sign-in page, where it works.
  await phone.page.goto(resetUrl);
  await phone.page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
  await phone.page.getByLabel('New password', { exact: true }).fill('another long pass phrase');
  await phone.page.getByLabel('New password again').fill('another long pass phrase!');
  await phone.page.getByRole('button', { name: 'Save the new password' }).click();
  await phone.page.locator('#reset-confirm-error').waitFor();
  await look(phone.page, 'people-14-phone-reset-password');
  await phone.page.getByLabel('New password again').fill('another long pass phrase');
  await phone.page.getByRole('button', { name: 'Save the new password' }).click();
  await phone.page.getByText('Your password is changed').waitFor();
  await phone.page.getByLabel('Email address').fill('mo@example.com');
  await phone.page.getByLabel('Password').fill('another long pass phrase');
  await phone.page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await phone.page.getByRole('heading', { name: 'Links', level: 1 }).waitFor();
  await phone.page.locator('.who').getByText('viewer').waitFor({ state: 'attached' });

  // The audit log, newest first: the join after the invitation; a change's details fold open.
  await page.getByRole('link', { name: 'Audit' }).click();
  await page.getByRole('heading', { name: 'Audit log' }).waitFor();
  await page.locator('.audit-table').waitFor();
  const actions = (await page.locator('.audit-table tbody td code').allTextContents()).map((a) => a.trim());
  const join = actions.indexOf('member.join');
  const invite = actions.indexOf('member.invite');
  assert.ok(join !== -1 && invite !== -1 && join < invite, `member.join above member.invite: ${actions.join(', ')}`);
  await page.getByLabel('Action').selectOption('member.invite');
  await page.waitForURL(/action=member.invite/);
  // The address changes before the filtered entries arrive: wait for the table of the new query, not the old one mid-reload.
  const codes = page.locator('.audit-table tbody td code');
  await codes
    .filter({ hasNotText: /^member\.invite$/ })
    .first()
    .waitFor({ state: 'detached' });
  await codes
    .filter({ hasText: /^member\.invite$/ })
    .first()
    .waitFor();
  assert.deepEqual(
    [...new Set((await page.locator('.audit-table tbody td code').allTextContents()).map((a) => a.trim()))],
    ['member.invite'],
    'the filter applies',
  );
  const csv = await page.getByRole('link', { name: 'Download CSV' }).getAttribute('href');
  assert.equal(csv, '/audit/export?action=member.invite', 'the download has the same filters');
  await page.getByLabel('Action').selectOption('');
  await page.locator('.audit-table').waitFor();
  const joinRow = page.locator('.audit-table tr', { hasText: 'member.join' });
  await joinRow.locator('summary').click();
  await joinRow.locator('.audit-changes dl').getByText('mo@example.com').waitFor();
  await look(page, 'people-09-audit');

  // The profile and the workspace's settings.
  await page.getByRole('link', { name: 'Profile' }).click();
  await page.getByRole('heading', { name: 'Profile' }).waitFor();
  await page.getByText('This session').waitFor();
  await look(page, 'people-10-profile');
  await page.getByRole('link', { name: 'Settings', exact: true }).click();
  await page.getByRole('heading', { name: 'Workspace settings' }).waitFor();
  await page.getByLabel('Keep the audit log for (days)').fill('0');
  await page.getByRole('button', { name: 'Save settings' }).click();
  await page.locator('#workspace-auditRetentionDays-error').waitFor();
  await page.getByLabel('Keep the audit log for (days)').fill('90');
  await page.getByRole('button', { name: 'Save settings' }).click();
  await page.getByRole('status').filter({ hasText: 'Settings saved' }).waitFor();
  await look(page, 'people-11-settings');

  // The audit log fits a phone.
  const adminPhone = await watchedPage(browser, PHONE);
  t.after(() => adminPhone.context.close());
  await adminPhone.page.goto(`${base}/app/audit`);
  await adminPhone.page.getByLabel('Email address').fill('ada@example.com');
  await adminPhone.page.getByLabel('Password').fill('correct horse battery staple');
  await adminPhone.page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await adminPhone.page.getByRole('heading', { name: 'Audit log' }).waitFor();
  await adminPhone.page.locator('.audit-table').waitFor();
  await look(adminPhone.page, 'people-12-phone-audit');

  // Ada is an admin of both workspaces: the header switches between them.
  const switcher = page.getByLabel('Workspace', { exact: true });
  await switcher.selectOption({ label: 'Marketing (admin)' });
  await page.getByRole('button', { name: 'Switch' }).click();
  await page.getByRole('status').filter({ hasText: 'Switched to Marketing' }).waitFor();
  await page.getByRole('link', { name: 'Members' }).click();
  await page.getByRole('heading', { name: 'Members of Marketing' }).waitFor();
  assert.equal(await page.getByRole('rowheader', { name: /Mo Member/ }).count(), 0, 'Mo is not a member of Marketing');
  const session = (await (await page.request.get(`${base}/auth/session`)).json()) as { workspace: { name: string } };
  assert.equal(session.workspace.name, 'Marketing');

  // Signing out leads to the sign-in page, whose key form opens on demand.
  await page.getByRole('button', { name: 'Sign out', exact: true }).click();
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  await page.getByText('Sign in with an API key').click();
  await page.getByLabel('API key', { exact: true }).waitFor();
  await look(page, 'people-13-sign-in');

  assert.deepEqual(desk.problems, [], 'no console error and no CSP violation on the desktop');
  assert.deepEqual(phone.problems, [], 'none on the phone');
  assert.deepEqual(adminPhone.problems, [], "none on the admin's phone");
});

test('with mail: a forgotten password is reset from the emailed link, an address confirmed from its link, an invitation mailed', async (t) => {
  const smtp = await startSmtpServer();
  t.after(() => smtp.close());
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const { app } = await startApp(t, mailDatabase.url, { BASE_URL: base, PORT: String(port), SMTP_URL: smtp.url });
  await app.listen({ port, host: '127.0.0.1' });
  const setup = await app.inject({
    method: 'POST',
    url: '/auth/setup',
    payload: { name: 'Grace Hopper', email: 'grace@example.com', password: 'first long pass phrase' },
  });
  assert.equal(setup.statusCode, 201);
  const phone = await watchedPage(browser, PHONE);
  t.after(() => phone.context.close());
  const { page } = phone;

  // The admin's address is not confirmed yet: the link is sent again, and following it confirms it.
  await page.goto(`${base}/app/profile`);
  await page.getByLabel('Email address').fill('grace@example.com');
  await page.getByLabel('Password').fill('first long pass phrase');
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByText('Not confirmed').waitFor();
  await page.getByRole('button', { name: 'Send the confirmation link again' }).click();
  const verifyMail = await smtp.next((mail) => (mail.text ?? '').includes('/app/verify-email?token='));
  await page.goto(linkIn(verifyMail, `${base}/app/verify-email?token=`));
  await page.getByText('Your email address is confirmed.').waitFor();
  await page.getByRole('link', { name: 'Back to your profile' }).click();
  await page.getByText('Confirmed', { exact: true }).waitFor();

  // Forgotten, after signing out: the same answer for any address, and the link in the mail leads to a new password.
  await unfoldMenu(page);
  await page.getByRole('button', { name: 'Sign out', exact: true }).click();
  await page.getByRole('link', { name: 'Forgot your password?' }).click();
  await page.getByRole('heading', { name: 'Forgot your password?' }).waitFor();
  await page.getByLabel('Email address').fill('grace@example.com');
  await page.getByRole('button', { name: 'Send me a link' }).click();
  await page.getByText('If grace@example.com has an account here').waitFor();
  await look(page, 'people-16-phone-forgot-password');
  const resetMail = await smtp.next((mail) => (mail.text ?? '').includes('/app/reset-password?token='));
  await page.goto(linkIn(resetMail, `${base}/app/reset-password?token=`));
  await page.getByLabel('New password', { exact: true }).fill('second long pass phrase');
  await page.getByLabel('New password again').fill('second long pass phrase');
  await page.getByRole('button', { name: 'Save the new password' }).click();
  await page.getByText('Your password is changed').waitFor();
  await page.getByLabel('Email address').fill('grace@example.com');
  await page.getByLabel('Password').fill('second long pass phrase');
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('heading', { name: 'Links', level: 1 }).waitFor();

  // An invitation is mailed: no link on the page, and the members page offers no reset links.
  await unfoldMenu(page);
  await page.getByRole('link', { name: 'Members' }).click();
  await page.getByLabel('Email address').fill('lin@example.com');
  await page.getByRole('button', { name: 'Invite', exact: true }).click();
  await page.getByRole('status').filter({ hasText: 'Invitation emailed to lin@example.com' }).waitFor();
  await page.getByRole('rowheader', { name: 'lin@example.com' }).waitFor();
  assert.equal(await page.locator('#invitation-link-url').count(), 0, 'no link to pass on');
  linkIn(await smtp.next((mail) => (mail.text ?? '').includes('/app/invitation?token=')), `${base}/app/invitation?token=`);
  assert.deepEqual(phone.problems, [], 'no console error and no CSP violation');
});
