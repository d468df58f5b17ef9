// Branded short domains in the dashboard, in a real browser (see test/dashboard/dashboard.test.ts for the
// set-up): an admin adds go.example.com with a not-found fallback, makes the alias "spring" on it
// and on the default domain, filters the list by domain, works on the branded link's own page, imports
// a file onto the domain, and removes it with its links moved, past the conflict with the default
// domain's "spring". Each domain is verified as a workspace would: its TXT record, shown on its card,
// published on a DNS server on loopback (DOMAIN_DNS_RESOLVERS), then "Check now".
// Chromium cannot resolve go.example.com, so its redirects are asked for with its Host header.

import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import type { CreatedKey } from '../../src/auth/api-keys.ts';
import { startApp } from '../helpers/app.ts';
import { launchChromium, look, screenshot, seriousViolations, signInWithKey, startLandingPage, watchedPage } from '../helpers/browser.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { startDnsServer, type DnsServer } from '../helpers/dns-server.ts';
import { freePort } from '../helpers/redis.ts';
import { keysWith } from '../helpers/workspaces.ts';

const GO = 'go.example.com';
const THIRD = 'links.example.org';
const NOT_FOUND_PAGE = 'https://example.com/not-found';

let database: TestDatabase;
let browser: Browser;
let landing: Awaited<ReturnType<typeof startLandingPage>> | undefined;
let landingUrl: string;
let admin: CreatedKey;
let dns: DnsServer;

before(async () => {
  database = await createTestDatabase('dashboard-domains');
  ({ Ada: admin } = await keysWith(database.url, { Ada: 'admin' }));
  landing = await startLandingPage('domains');
  landingUrl = landing.url;
  browser = await launchChromium();
  dns = await startDnsServer();
});
after(async () => {
  await dns?.close();
  await browser?.close();
  await landing?.close();
  await database.drop();
});

/** A GET to the service as if for `host` (the name resolves nowhere): its status and Location. */
function getAs(port: number, host: string, path: string): Promise<{ status: number; location: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0, location: res.headers.location });
    });
    req.on('error', reject);
    req.end();
  });
}

test('an admin adds a short domain, makes "spring" on it and on the default domain, filters by domain, works on the branded link, and removes the domain with its links moved', async (t) => {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const { app } = await startApp(t, database.url, {
    BASE_URL: base,
    ALLOW_PRIVATE_TARGETS: 'true',
    PORT: String(port),
    DOMAIN_DNS_RESOLVERS: dns.address,
  });
  await app.listen({ port, host: '127.0.0.1' });
  const desk = await watchedPage(browser, { width: 1280, height: 800 });
  t.after(() => desk.context.close());
  const { page } = desk;
  const card = (host: string) => page.getByRole('listitem', { name: host, exact: true });

  // Domains is an admin's, next to Keys; at first the workspace has the default domain alone.
  await signInWithKey(page, base, admin.secret, '/app/links');
  await page.getByRole('heading', { name: 'Links', level: 1 }).waitFor();
  await page.waitForLoadState('networkidle');
  assert.equal(await page.getByLabel('Domain', { exact: true }).count(), 0, 'no domain filter while there is one domain');
  await page.getByRole('navigation').getByRole('link', { name: 'Domains' }).click();
  await page.getByRole('heading', { name: 'Domains', level: 1 }).waitFor();
  await page.getByText('Point its DNS at this deployment').waitFor();
  await page.getByText('Serve TLS for it').waitFor();
  await page.locator('.domain-list > li').first().waitFor();
  assert.equal(await page.locator('.domain-list > li').count(), 1);
  assert.equal(await page.locator('.domain-list > li').first().locator('.badge-default').textContent(), 'Default');
  assert.equal(await page.getByRole('button', { name: /^Remove/ }).count(), 0, 'the default domain cannot be removed');

  // A host that is not one: the error stands next to the Host field, which gets focus.
  const host = page.getByLabel('Host', { exact: true });
  await host.fill(`https://${GO}/path`);
  await page.getByRole('button', { name: 'Add domain' }).click();
  await page.locator('#domain-create-host-error').waitFor();
  assert.equal(await host.getAttribute('aria-invalid'), 'true');
  assert.match((await host.getAttribute('aria-describedby')) ?? '', /domain-create-host-error/);
  await page.locator('#domain-create-host:focus').waitFor();
  await look(page, 'desktop-domains-01-host-error');

  // A fallback that is no URL: its error stands next to its own field.
  const notFound = page.getByLabel('Not-found redirect (optional)');
  await host.fill(GO);
  await notFound.fill('javascript:alert(1)');
  await page.getByRole('button', { name: 'Add domain' }).click();
  await page.locator('#domain-create-notFoundRedirect-error').waitFor();
  assert.equal(await notFound.getAttribute('aria-invalid'), 'true');
  assert.equal(await host.getAttribute('aria-invalid'), null, 'the host is fine');

  // Added with its not-found page; a third domain for later.
  await notFound.fill(NOT_FOUND_PAGE);
  await page.getByRole('button', { name: 'Add domain' }).click();
  await card(GO).waitFor();
  assert.equal(await host.inputValue(), '', 'the form is empty again');
  assert.match((await card(GO).textContent()) ?? '', new RegExp(`Not found${NOT_FOUND_PAGE.replaceAll('.', '\\.')}`));
  assert.match((await card(GO).textContent()) ?? '', /0 links/);

  // Pending: it serves nothing until the TXT record its card shows is found.
  await card(GO).getByText('Pending', { exact: true }).waitFor();
  await card(GO).getByText(`_shortener.${GO}`, { exact: true }).waitFor();
  assert.equal((await getAs(port, GO, '/no-such-code')).status, 404, 'not served while pending');
  await card(GO)
    .getByRole('button', { name: `Check now ${GO}` })
    .click();
  const notFound404 = card(GO).getByRole('alert');
  await notFound404.waitFor();
  assert.match((await notFound404.textContent()) ?? '', /no TXT record _shortener\.go\.example\.com/);
  await look(page, 'desktop-domains-01b-pending');
  const verify = async (name: string) => {
    const token = (await card(name).locator('.domain-record code').nth(1).textContent()) ?? '';
    dns.set(`_shortener.${name}`, token);
    await card(name)
      .getByRole('button', { name: `Check now ${name}` })
      .click();
    await card(name).getByText('Verified', { exact: true }).waitFor();
  };
  await verify(GO);
  assert.equal(await card(GO).locator('.domain-record').count(), 0, 'a verified domain shows no record to publish');

  await host.fill(THIRD);
  await page.getByRole('button', { name: 'Add domain' }).click();
  await card(THIRD).waitFor();
  await verify(THIRD);
  const order = await page.locator('.domain-list .domain-host').allTextContents();
  assert.deepEqual(order.slice(1), [THIRD, GO].sort(), 'the default first, then by host');

  // Its fallbacks are edited in place: a root page too.
  await card(GO)
    .getByRole('button', { name: `Edit fallbacks of ${GO}` })
    .click();
  await page.locator('#domain-edit-rootRedirect:focus').waitFor();
  await card(GO).getByLabel('Root redirect (optional)').fill('https://example.com/');
  await page.getByRole('button', { name: 'Save fallbacks' }).click();
  await card(GO).getByText('https://example.com/', { exact: true }).waitFor();
  await card(GO).locator('button:focus').filter({ hasText: 'Edit fallbacks' }).waitFor();
  const listed = (await (await page.request.get(`${base}/domains`)).json()) as { domains: { host: string; rootRedirect: string | null }[] };
  assert.equal(listed.domains.find((d) => d.host === GO)?.rootRedirect, 'https://example.com/');
  await page.reload();
  await card(GO).getByText('https://example.com/', { exact: true }).waitFor();
  await look(page, 'desktop-domains-02-list');

  // The same page on a phone.
  const phone = await watchedPage(browser, { width: 360, height: 740 });
  t.after(() => phone.context.close());
  await signInWithKey(phone.page, base, admin.secret, '/app/domains');
  await phone.page.getByRole('heading', { name: 'Domains', level: 1 }).waitFor();
  await phone.page.getByRole('heading', { name: GO }).waitFor();
  await look(phone.page, 'phone-domains');

  // "spring" on go.example.com: the domain is chosen when the link is made, and its page names it.
  await page.getByRole('navigation').getByRole('link', { name: 'New link' }).click();
  const domainChoice = page.getByLabel('Short domain');
  await domainChoice.waitFor();
  assert.equal(await domainChoice.inputValue(), new URL(base).hostname, 'the default domain is chosen first');
  assert.match((await domainChoice.locator('option:checked').textContent()) ?? '', /\(default\)$/);
  await domainChoice.selectOption(GO);
  await page.getByLabel('Target URL').fill(landingUrl);
  await page.getByLabel('Custom alias (optional)').fill('spring');
  await page.getByLabel('Title (optional)').fill('Spring on go');
  await page.getByRole('button', { name: 'Create link' }).click();
  await page.getByRole('link', { name: 'Open the link’s page' }).click();
  await page.getByRole('heading', { name: 'Link Spring on go' }).waitFor();
  assert.equal(new URL(page.url()).search, `?domain=${GO}`, "the link's page names its domain");
  assert.match((await page.locator('#detail-short-url').textContent()) ?? '', new RegExp(`^https?://${GO.replaceAll('.', '\\.')}/spring$`));

  // And "spring" on the default domain too: the same code, another link.
  await page.getByRole('navigation').getByRole('link', { name: 'New link' }).click();
  await page.getByLabel('Target URL').fill('https://example.org/default-spring');
  await page.getByLabel('Custom alias (optional)').fill('spring');
  await page.getByLabel('Title (optional)').fill('Spring on default');
  await page.getByRole('button', { name: 'Create link' }).click();
  await page.getByRole('link', { name: 'Open the link’s page' }).click();
  await page.getByRole('heading', { name: 'Link Spring on default' }).waitFor();
  assert.equal(new URL(page.url()).search, '', 'a link on the default domain needs no ?domain=');
  assert.equal(await page.locator('#detail-short-url').textContent(), `${base}/spring`);

  // The list shows both with their hosts, and filters by domain (kept in the address bar).
  await page.goto(`${base}/app/links`);
  await page.getByRole('link', { name: 'Spring on go' }).waitFor();
  assert.equal(await page.getByRole('link', { name: 'Spring on go' }).getAttribute('href'), `/app/links/spring?domain=${GO}`);
  assert.equal(await page.getByRole('link', { name: 'Spring on default' }).getAttribute('href'), '/app/links/spring');
  const shortUrls = await page.locator('.link-table .row-short').allTextContents();
  assert.equal(shortUrls.length, 2);
  assert.ok(shortUrls.includes(`${base}/spring`), String(shortUrls));
  assert.ok(
    shortUrls.some((u) => /^https?:\/\/go\.example\.com\/spring$/.test(u)),
    String(shortUrls),
  );
  await page.getByLabel('Domain', { exact: true }).selectOption(GO);
  await page.waitForURL(/[?&]domain=go\.example\.com/);
  // The filtered list has loaded once its count says so.
  await page.getByText('1 link matching the filters.').waitFor();
  assert.deepEqual(await page.locator('.link-table .row-title').allTextContents(), ['Spring on go']);
  await look(page, 'desktop-domains-03-links-filtered');
  await page.reload();
  await page.getByRole('link', { name: 'Spring on go' }).waitFor();
  assert.equal(await page.getByLabel('Domain', { exact: true }).inputValue(), GO, 'the filter survives a reload');

  // Its redirects, asked for with go.example.com's Host: the link, and the not-found page for a code it lacks.
  assert.deepEqual(await getAs(port, GO, '/spring'), { status: 302, location: landingUrl });
  assert.deepEqual(await getAs(port, GO, '/no-such-code'), { status: 302, location: NOT_FOUND_PAGE });

  // The branded link's own page: every panel asks for the link on its domain.
  await page.getByRole('link', { name: 'Spring on go' }).click();
  await page.getByRole('heading', { name: 'Link Spring on go' }).waitFor();
  assert.match((await page.locator('#detail-short-url').textContent()) ?? '', /go\.example\.com\/spring$/);
  await page.locator('.totals').waitFor();
  const qr = page.getByRole('img', { name: /^QR code for / });
  await qr.waitFor();
  assert.match((await qr.getAttribute('src')) ?? '', /[?&]domain=go\.example\.com/);
  assert.ok(
    await qr.evaluate((img) => (img as unknown as { complete: boolean; naturalWidth: number }).naturalWidth > 0),
    'the QR preview of the branded link loaded',
  );
  await page.getByRole('button', { name: 'Edit link' }).click();
  await page.getByLabel('Title (optional)').fill('Spring on go (edited)');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.getByRole('heading', { name: 'Link Spring on go (edited)' }).waitFor();
  await look(page, 'desktop-domains-04-branded-link');
  await page.getByRole('button', { name: 'Disable link' }).click();
  await page.getByRole('button', { name: 'Enable link' }).waitFor();
  const onGo = (await (await page.request.get(`${base}/links/spring?domain=${GO}`)).json()) as { title: string; disabled: boolean };
  const onDefault = (await (await page.request.get(`${base}/links/spring`)).json()) as { title: string; disabled: boolean };
  assert.deepEqual([onGo.title, onGo.disabled], ['Spring on go (edited)', true], 'the changes went to the link on go.example.com');
  assert.deepEqual([onDefault.title, onDefault.disabled], ['Spring on default', false], 'and not to the default domain’s');

  // An import onto go.example.com: each row's link there, and its page named with the domain.
  await page.goto(`${base}/app/import`);
  await page.getByLabel('Short domain').selectOption(GO);
  const csv = 'url,alias,title\nhttps://example.org/imported,imported-go,Imported on go\n';
  await page.getByLabel('CSV file').setInputFiles({ name: 'links.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
  await page.getByRole('button', { name: 'Import' }).click();
  await page.getByRole('heading', { name: 'Import report' }).waitFor();
  const imported = page.getByRole('link', { name: /imported-go$/ });
  assert.match((await imported.textContent()) ?? '', /go\.example\.com\/imported-go$/);
  assert.equal(await imported.getAttribute('href'), `/app/links/imported-go?domain=${GO}`);
  await look(page, 'desktop-domains-05-import');

  // Removing it: its links must move. Onto the default domain it cannot ("spring" is there); onto the third it can.
  // (Loaded afresh, so that no message about the link is still showing in the screenshots.)
  await page.goto(`${base}/app/domains`);
  await card(GO).getByText('2 links').waitFor();
  await card(GO)
    .getByRole('button', { name: `Remove domain ${GO}` })
    .click();
  const dialog = page.getByRole('dialog', { name: 'Remove this domain?' });
  await dialog.waitFor();
  await dialog.getByText('2 links use it.').waitFor();
  const moveTo = dialog.getByLabel('Move its links to');
  assert.equal(await moveTo.inputValue(), listed.domains[0]?.host, 'the default domain is offered first');
  await dialog.getByRole('button', { name: 'Move links and remove' }).click();
  const conflict = dialog.locator('#move-links-to-error');
  await conflict.waitFor();
  assert.match((await conflict.textContent()) ?? '', /already/);
  assert.equal(await moveTo.getAttribute('aria-invalid'), 'true');
  await dialog.locator('#move-links-to:focus').waitFor();
  assert.deepEqual(await seriousViolations(page), [], 'the dialog with its error: no serious axe-core violation');
  await screenshot(page, 'desktop-domains-06-remove-conflict', false);
  await moveTo.selectOption(THIRD);
  assert.equal(await conflict.count(), 0, 'a new choice clears the error');
  await dialog.getByRole('button', { name: 'Move links and remove' }).click();
  await dialog.waitFor({ state: 'hidden' });
  await card(GO).waitFor({ state: 'detached' });
  await card(THIRD).getByText('2 links').waitFor();
  assert.equal((await page.request.get(`${base}/links/spring?domain=${THIRD}`)).status(), 200, 'the link lives on the third domain');
  assert.equal((await page.request.get(`${base}/links/imported-go?domain=${THIRD}`)).status(), 200, 'so does the imported one');
  assert.equal((await page.request.get(`${base}/links/spring`)).status(), 200, "and the default domain's spring is untouched");

  // The moved link's page, from the third domain's count of links.
  await card(THIRD)
    .getByRole('link', { name: `2 links on ${THIRD}` })
    .click();
  await page.getByRole('link', { name: 'Spring on go (edited)' }).click();
  await page.getByRole('heading', { name: 'Link Spring on go (edited)' }).waitFor();
  assert.match((await page.locator('#detail-short-url').textContent()) ?? '', /links\.example\.org\/spring$/);

  assert.deepEqual(desk.problems, [], 'no console error and no CSP violation on the desktop');
  assert.deepEqual(phone.problems, [], 'none on the phone');
});
