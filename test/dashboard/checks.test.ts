// The domain check and the webhook test event in a real browser (see test/dashboard/dashboard.test.ts
// for the set-up), desktop and phone: "Check DNS and TLS" on a domain that points to the service with a
// good certificate (a DNS server and a TLS server on loopback, the certificate from an authority the
// test makes) and on one pointing elsewhere, with the records to set; "Send test event" to a real
// receiver, its outcome read from the delivery log. With axe, no sideways scroll, no console error.

import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import tls from 'node:tls';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import type { CreatedKey } from '../../src/auth/api-keys.ts';
import { bearer, startApp } from '../helpers/app.ts';
import { launchChromium, look, signInWithKey, watchedPage } from '../helpers/browser.ts';
import { createAuthority, type TestAuthority } from '../helpers/certificates.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { startDnsServer, type DnsServer } from '../helpers/dns-server.ts';
import { freePort } from '../helpers/redis.ts';
import { WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { keysWith } from '../helpers/workspaces.ts';

const TARGET = 'edge.example.net';
const GOOD = 'go.example.com';
const AWAY = 'away.example.com';

let database: TestDatabase;
let browser: Browser;
let admin: CreatedKey;
let dns: DnsServer;
let authority: TestAuthority;
let server: tls.Server;
const receiver = new WebhookReceiver();

before(async () => {
  database = await createTestDatabase('dashboard-checks');
  ({ Ada: admin } = await keysWith(database.url, { Ada: 'admin' }));
  browser = await launchChromium();
  dns = await startDnsServer();
  dns.setRecords(TARGET, 'A', '127.0.0.1');
  dns.setRecords(GOOD, 'CNAME', TARGET);
  dns.setRecords(AWAY, 'A', '203.0.113.9');
  authority = createAuthority();
  server = tls.createServer(authority.issue([GOOD]));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  await receiver.open();
});
after(async () => {
  await receiver.close();
  await new Promise((resolve) => server?.close(resolve));
  authority?.remove();
  await dns?.close();
  await browser?.close();
  await database.drop();
});

test('an admin checks a domain’s DNS and TLS and sends a webhook a test event, on desktop and on a phone', async (t) => {
  const port = await freePort();
  // localhost: the receiver's 127.0.0.1 would be the service itself to the URL rules (URL_SELF_REFERENCE).
  const base = `http://localhost:${port}`;
  const { app } = await startApp(t, database.url, {
    BASE_URL: base,
    PORT: String(port),
    DOMAIN_DNS_RESOLVERS: dns.address,
    DOMAIN_TARGET_HOST: TARGET,
    DOMAIN_CHECK_TLS_PORT: String((server.address() as AddressInfo).port),
    DOMAIN_CHECK_CA_FILE: authority.certFile,
    WEBHOOK_ALLOW_PRIVATE: 'true',
    WEBHOOK_POLL_MS: '100',
  });
  await app.listen({ port, host: '127.0.0.1' });
  for (const host of [GOOD, AWAY]) {
    const res = await app.inject({ method: 'POST', url: '/domains', headers: bearer(admin), payload: { host } });
    assert.equal(res.statusCode, 201, res.body);
  }
  const added = await app.inject({
    method: 'POST',
    url: '/webhooks',
    headers: bearer(admin),
    payload: { url: receiver.url, events: ['link.deleted'], description: 'CRM' },
  });
  assert.equal(added.statusCode, 201, added.body);
  receiver.secrets = [added.json<{ secret: string }>().secret];

  const desk = await watchedPage(browser, { width: 1280, height: 800 });
  t.after(() => desk.context.close());
  const { page } = desk;
  const card = (host: string) => page.getByRole('listitem', { name: host, exact: true });
  await signInWithKey(page, base, admin.secret, '/app/domains');
  await page.getByRole('heading', { name: 'Domains', level: 1 }).waitFor();

  // Pointing here, with a good certificate: a checklist of two ticks, said politely too.
  await card(GOOD)
    .getByRole('button', { name: `Check DNS and TLS of ${GOOD}` })
    .click();
  const good = card(GOOD).getByRole('list', { name: `DNS and TLS of ${GOOD}` });
  await good.waitFor();
  const [points, certificate] = (await good.getByRole('listitem').allInnerTexts()).map((text) => text.replace(/\s+/g, ' ').trim());
  assert.equal(points, `✓ OK: Points to ${TARGET}`);
  assert.match(certificate ?? '', /^✓ OK: Certificate valid until \d{1,2} \w+ \d{4} \(89 days\) Issued by Test Authority$/);
  await page
    .getByRole('status')
    .filter({ hasText: `${GOOD}, all good` })
    .waitFor();

  // Pointing elsewhere: a cross, and the records to set; no certificate looked at.
  await card(AWAY)
    .getByRole('button', { name: `Check DNS and TLS of ${AWAY}` })
    .click();
  const away = card(AWAY).getByRole('list', { name: `DNS and TLS of ${AWAY}` });
  await away.waitFor();
  assert.match(await away.innerText(), /✗[\s\S]*points to 203\.0\.113\.9, not to edge\.example\.net/);
  assert.match(await away.innerText(), /Not checked: the domain does not point to the service yet/);
  const records = card(AWAY).getByRole('table', { name: 'Records to set' });
  assert.match(await records.innerText(), new RegExp(`CNAME\\s+${AWAY.replaceAll('.', '\\.')}\\s+${TARGET.replaceAll('.', '\\.')}`));
  assert.match(await records.innerText(), /A\s+away\.example\.com\s+127\.0\.0\.1/);
  await look(page, 'desktop-checks-01-domains');

  // A test event, though the endpoint takes only link.deleted: delivered, and the card says how.
  await page.getByRole('navigation').getByRole('link', { name: 'Webhooks' }).click();
  await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
  await page.getByRole('button', { name: 'Send test event to CRM' }).click();
  const outcome = page.locator('.test-outcome');
  await outcome.waitFor();
  assert.match(await outcome.innerText(), /^Delivered: HTTP 204 in \d+ ms\.$/);
  assert.equal(receiver.received.at(-1)?.event.type, 'webhook.test');
  assert.deepEqual(receiver.badSignatures, []);
  await page.getByRole('status').filter({ hasText: 'Test event to CRM: Delivered' }).waitFor();
  await look(page, 'desktop-checks-02-test-event');
  assert.deepEqual(desk.problems, []);

  // On a phone: the records to set fit the screen.
  const phone = await watchedPage(browser, { width: 390, height: 844 });
  t.after(() => phone.context.close());
  await signInWithKey(phone.page, base, admin.secret, '/app/domains');
  await phone.page.getByRole('heading', { name: 'Domains', level: 1 }).waitFor();
  const phoneCard = phone.page.getByRole('listitem', { name: AWAY, exact: true });
  await phoneCard.getByRole('button', { name: `Check DNS and TLS of ${AWAY}` }).click();
  await phoneCard.getByRole('table', { name: 'Records to set' }).waitFor();
  await phoneCard.scrollIntoViewIfNeeded();
  await look(phone.page, 'phone-checks-domains');
  assert.deepEqual(phone.problems, []);
});
