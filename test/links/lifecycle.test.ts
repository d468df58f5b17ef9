// Scheduled links and their lifecycle, on real Postgres and a real webhook receiver: a link before
// its start (a page saying when it opens for a browser, JSON for anyone else, or an unknown code's
// answer with SCHEDULED_LINK_ANSWER=not_found), a link's own expiredUrl (on expiry and on a used-up
// click limit; refused where its url would be), link.expiring sent once per expiry, and archives
// (kept, still redirecting, out of the default list).

import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { createApiKey } from '../../src/auth/api-keys.ts';
import { startApp, type Cleanup } from '../helpers/app.ts';
import { createTestDatabase, withClient, type TestDatabase } from '../helpers/db.ts';
import { until } from '../helpers/wait.ts';
import { WebhookReceiver } from '../helpers/webhook-receiver.ts';

let database: TestDatabase;
let headers: { authorization: string };
let dir: string;
before(async () => {
  database = await createTestDatabase('lifecycle');
  const admin = await withClient(database.url, (c) => createApiKey(c, { name: 'lifecycle-admin', role: 'admin' }));
  headers = { authorization: `Bearer ${admin.secret}` };
  dir = await mkdtemp(join(tmpdir(), 'lifecycle-'));
  await writeFile(join(dir, 'bad.txt'), 'evil.example\n');
});
after(async () => {
  await database.drop();
  await rm(dir, { recursive: true, force: true });
});

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

async function start(t: Cleanup, env: Record<string, string> = {}): Promise<FastifyInstance> {
  const { app } = await startApp(t, database.url, {
    CLICK_FLUSH_INTERVAL_MS: '3600000',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    WEBHOOK_POLL_MS: '50',
    BLOCKLISTS: `bad=domains:${join(dir, 'bad.txt')}`,
    ...env,
  });
  return app;
}

async function create(app: FastifyInstance, payload: Record<string, unknown>) {
  const res = await app.inject({ method: 'POST', url: '/links', headers, payload });
  assert.equal(res.statusCode, 201, res.body);
  return res.json<{ code: string }>();
}

async function patch(app: FastifyInstance, code: string, payload: Record<string, unknown>) {
  const res = await app.inject({ method: 'PATCH', url: `/links/${code}`, headers, payload });
  assert.equal(res.statusCode, 200, res.body);
  return res.json<{ archivedAt: string | null; state: string }>();
}

async function details(app: FastifyInstance, code: string) {
  const res = await app.inject({ url: `/links/${code}`, headers });
  assert.equal(res.statusCode, 200, res.body);
  return res.json<{ clicks: number; archivedAt: string | null }>();
}

test('a link before its start: a browser gets a page saying when it opens, an API client 404 LINK_NOT_YET_ACTIVE', async (t) => {
  const app = await start(t);
  const opens = new Date('2031-03-04T09:30:00.000Z');
  await create(app, { url: 'https://example.com/launch', alias: 'launch', startsAt: opens.toISOString() });
  for (let ask = 0; ask < 2; ask++) {
    // Looked up, then from the cache: the same answers.
    const page = await app.inject({ url: '/launch', headers: { accept: BROWSER } });
    assert.equal(page.statusCode, 404);
    assert.match(String(page.headers['content-type']), /^text\/html/);
    assert.match(page.body, /<time datetime="2031-03-04T09:30:00.000Z">Tuesday, 4 March 2031 at 09:30 UTC<\/time>/);
    assert.doesNotMatch(page.body, /<script/i);
    assert.match(String(page.headers['content-security-policy']), /default-src 'none'/);
    assert.equal(page.headers.vary, 'accept');
    const json = await app.inject({ url: '/launch', headers: { accept: 'application/json' } });
    assert.equal(json.statusCode, 404);
    assert.equal(json.json().error.code, 'LINK_NOT_YET_ACTIVE');
  }
});

test('SCHEDULED_LINK_ANSWER=not_found: a link before its start answers exactly as an unknown code does', async (t) => {
  const app = await start(t, { SCHEDULED_LINK_ANSWER: 'not_found' });
  await create(app, { url: 'https://example.com/secret-launch', alias: 'hidden-launch', startsAt: '2031-03-04T09:30:00Z' });
  for (const accept of [BROWSER, 'application/json']) {
    const hidden = await app.inject({ url: '/hidden-launch', headers: { accept } });
    const unknown = await app.inject({ url: '/never-made', headers: { accept } });
    assert.equal(hidden.statusCode, 404);
    assert.equal(hidden.body, unknown.body, accept);
    assert.equal(hidden.headers['content-type'], unknown.headers['content-type']);
  }
  assert.equal((await app.inject({ url: '/hidden-launch' })).json().error.code, 'LINK_NOT_FOUND');
});

test('expiredUrl: an expired link, and one whose click limit is used up, redirect to their own fallback, which is no click of theirs', async (t) => {
  const app = await start(t);
  const expiresAt = new Date(Date.now() + 1500).toISOString();
  const ending = await create(app, { url: 'https://example.com/offer', expiresAt, options: { expiredUrl: 'https://example.com/ended' } });
  const plain = await create(app, { url: 'https://example.com/plain', expiresAt });
  const first = await app.inject({ url: `/${ending.code}` });
  assert.deepEqual([first.statusCode, first.headers.location], [302, 'https://example.com/offer']);
  // Redirects to its url until it expires, each a click.
  let offered = 1;
  await until('the link expires', async () => {
    const { location } = (await app.inject({ url: `/${ending.code}` })).headers;
    if (location === 'https://example.com/offer') offered++;
    return location === 'https://example.com/ended';
  });
  const expired = await app.inject({ url: `/${ending.code}`, headers: { accept: BROWSER } });
  assert.deepEqual([expired.statusCode, expired.headers.location], [302, 'https://example.com/ended']);
  assert.equal((await app.inject({ url: `/${plain.code}` })).statusCode, 410, 'a link without one: 410 as before');

  const limited = await create(app, {
    url: 'https://example.com/seat',
    options: { clickLimit: 1, expiredUrl: 'https://example.com/sold-out' },
  });
  const answers = [];
  for (let i = 0; i < 3; i++) answers.push((await app.inject({ url: `/${limited.code}` })).headers.location);
  assert.deepEqual(answers, ['https://example.com/seat', 'https://example.com/sold-out', 'https://example.com/sold-out']);

  await app.clicks.flush(false);
  assert.equal((await details(app, ending.code)).clicks, offered, 'only the redirects to its url are clicks');
  assert.equal((await details(app, limited.code)).clicks, 1);
});

test('expiredUrl is checked as url is: its rules and the destination blocklists, on create and on change', async (t) => {
  const app = await start(t);
  const refused = async (method: 'POST' | 'PATCH', url: string, expiredUrl: string, code: string) => {
    const payload = method === 'POST' ? { url: 'https://example.com/', options: { expiredUrl } } : { options: { expiredUrl } };
    const res = await app.inject({ method, url, headers, payload });
    assert.equal(res.statusCode, 400, res.body);
    assert.deepEqual([res.json().error.code, res.json().error.field], [code, 'options.expiredUrl'], expiredUrl);
  };
  await refused('POST', '/links', 'javascript:alert(1)', 'URL_SCHEME_NOT_ALLOWED');
  await refused('POST', '/links', 'http://127.0.0.1/admin', 'URL_PRIVATE_ADDRESS');
  await refused('POST', '/links', 'https://www.evil.example/ended', 'URL_BLOCKLISTED');
  const link = await create(app, { url: 'https://example.com/fine' });
  await refused('PATCH', `/links/${link.code}`, 'https://evil.example/', 'URL_BLOCKLISTED');
  const shown = await patch(app, link.code, { options: { expiredUrl: 'https://example.com/later' } });
  assert.deepEqual((shown as unknown as { options: unknown }).options, { expiredUrl: 'https://example.com/later' });
});

test('link.expiring is written once per expiry, LINK_EXPIRING_NOTICE_HOURS ahead; a new expiry is told again', async (t) => {
  const app = await start(t, { LINK_EXPIRING_NOTICE_HOURS: '24' });
  const receiver = new WebhookReceiver();
  await receiver.open();
  t.after(() => receiver.close());
  const endpoint = await app.inject({
    method: 'POST',
    url: '/webhooks',
    headers,
    payload: { url: receiver.url, events: ['link.expiring'] },
  });
  assert.equal(endpoint.statusCode, 201, endpoint.body);
  receiver.secrets = [endpoint.json().secret];
  const hours = (n: number) => new Date(Date.now() + n * 3_600_000).toISOString();
  const told = () => receiver.accepted().map((r) => (r.event.data.link as { code: string }).code);

  const soon = await create(app, { url: 'https://example.com/soon', expiresAt: hours(2) });
  const far = await create(app, { url: 'https://example.com/far', expiresAt: hours(48) });
  await until('link.expiring of the link that expires within a day', async () => told().length >= 1);
  // Another link due later: once its event is in, sweeps after the first have run, and told no link twice.
  const next = await create(app, { url: 'https://example.com/next', expiresAt: hours(1) });
  await until('the next link.expiring', async () => told().includes(next.code));
  assert.deepEqual(told(), [soon.code, next.code]);
  const [event] = receiver.accepted();
  assert.equal(event?.event.type, 'link.expiring');
  assert.equal((event?.event.data.link as { expiresAt: string } | undefined)?.expiresAt.slice(0, 13), hours(2).slice(0, 13));

  // A new expiry is a new notice; the far link comes into the window by a change, and is told then.
  await patch(app, soon.code, { expiresAt: hours(3) });
  await patch(app, far.code, { expiresAt: hours(5) });
  await until('the changed links told', async () => told().length >= 4);
  assert.deepEqual(told().slice(2).sort(), [soon.code, far.code].sort());
  assert.deepEqual(receiver.badSignatures, []);
});

test('archive: kept and still redirecting, out of the default list, listed with archived=only|include; audited', async (t) => {
  const app = await start(t);
  const kept = await create(app, { url: 'https://example.com/kept', alias: 'arch-kept' });
  const shelved = await create(app, { url: 'https://example.com/shelved', alias: 'arch-shelved' });
  const listed = async (query: string) => {
    const res = await app.inject({ url: `/links?limit=100${query}`, headers });
    assert.equal(res.statusCode, 200, res.body);
    return res
      .json<{ links: { code: string }[] }>()
      .links.map((link) => link.code)
      .filter((code) => code.startsWith('arch-'))
      .sort();
  };
  assert.deepEqual(await listed(''), [kept.code, shelved.code]);
  assert.equal((await details(app, shelved.code)).archivedAt, null);

  const archived = await patch(app, shelved.code, { archived: true });
  assert.ok(archived.archivedAt !== null && Math.abs(Date.parse(archived.archivedAt) - Date.now()) < 60_000, String(archived.archivedAt));
  assert.equal(archived.state, 'active');
  assert.equal((await patch(app, shelved.code, { archived: true })).archivedAt, archived.archivedAt, 'archived again: its date kept');
  assert.deepEqual(await listed(''), [kept.code]);
  assert.deepEqual(await listed('&archived=exclude'), [kept.code]);
  assert.deepEqual(await listed('&archived=only'), [shelved.code]);
  assert.deepEqual(await listed('&archived=include'), [kept.code, shelved.code]);
  assert.deepEqual(await listed('&archived=only&q=shelved'), [shelved.code], 'with the other filters');
  const bad = await app.inject({ url: '/links?archived=yes', headers });
  assert.deepEqual([bad.statusCode, bad.json().error.code], [400, 'LIST_QUERY_INVALID']);
  const redirect = await app.inject({ url: `/${shelved.code}` });
  assert.deepEqual([redirect.statusCode, redirect.headers.location], [302, 'https://example.com/shelved']);
  assert.equal((await details(app, shelved.code)).archivedAt, archived.archivedAt);

  const { rows } = await withClient(database.url, (c) =>
    c.query<{ before: unknown; after: unknown }>(
      "SELECT before, after FROM audit_log WHERE action = 'link.update' AND target_id = $1 ORDER BY id LIMIT 1",
      [shelved.code],
    ),
  );
  assert.deepEqual(rows, [{ before: { archived: false }, after: { archived: true } }]);

  assert.equal((await patch(app, shelved.code, { archived: false })).archivedAt, null);
  assert.deepEqual(await listed(''), [kept.code, shelved.code]);
  assert.deepEqual(await listed('&archived=only'), []);
});
