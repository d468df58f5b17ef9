// Links made before a blocklist named their target (links/safety.ts): a list gains an entry, and
// the links it names, and no other, are found through the index of target domains and blocked
// (451 LINK_BLOCKED; a page for a browser) or flagged (a warning page first), each with its event,
// over real sockets on a real Postgres and Redis; links from before the index are indexed and
// judged; a rule's URL counts as much as the link's own; the operators' list acts the same way.

import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { createApiKey } from '../../src/auth/api-keys.ts';
import { linksNaming, markUnsafe } from '../../src/links/safety-store.ts';
import { startApp, type Cleanup } from '../helpers/app.ts';
import { createTestDatabase, withClient, type TestDatabase } from '../helpers/db.ts';
import { deleteKeys, randomPrefix, SHARED_REDIS_URL } from '../helpers/redis.ts';

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

const cleanups: (() => Promise<void>)[] = [];
const fileScope: Cleanup = { after: (fn) => cleanups.push(fn) };
const databases: TestDatabase[] = [];
let dir: string;

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'link-safety-'));
});
after(async () => {
  for (const fn of cleanups.toReversed()) await fn();
  for (const database of databases) await database.drop();
  rmSync(dir, { recursive: true, force: true });
});

/** An app whose one list is the file `<label>.txt` (domains), its admin key's header, and its database. */
async function listedApp(label: string, env: Record<string, string> = {}) {
  const database = await createTestDatabase(`link_safety_${label}`);
  databases.push(database);
  const list = join(dir, `${label}.txt`);
  const prefix = randomPrefix(`safety-${label}`);
  cleanups.unshift(async () => void (await deleteKeys(SHARED_REDIS_URL, prefix)));
  writeFileSync(list, '# the file grows in the tests\nalready.example\n');
  const { app } = await startApp(fileScope, database.url, {
    BLOCKLISTS: `local=domains:${list}`,
    REDIS_URL: SHARED_REDIS_URL,
    REDIS_KEY_PREFIX: prefix,
    ...env,
  });
  const admin = { authorization: `Bearer ${(await createApiKey(app.db, { name: 'admin', role: 'admin' })).secret}` };
  return { app, admin, list, database };
}

async function create(app: FastifyInstance, admin: Record<string, string>, body: Record<string, unknown>): Promise<string> {
  const res = await app.inject({ method: 'POST', url: '/links', headers: admin, payload: body });
  assert.equal(res.statusCode, 201, res.body);
  return res.json<{ code: string }>().code;
}

/** A list's file gains lines; the lists are read again and what they name is swept. */
async function listMore(app: FastifyInstance, file: string, ...lines: string[]): Promise<void> {
  appendFileSync(file, `${lines.join('\n')}\n`);
  await app.blocklists.refresh();
  await app.linkSafety.run();
}

const details = async (app: FastifyInstance, admin: Record<string, string>, code: string) =>
  (await app.inject({ url: `/links/${code}`, headers: admin })).json<{ state: string; safety: unknown }>();

describe('BLOCKLIST_ACTION=block (the default)', () => {
  let app: FastifyInstance;
  let admin: Record<string, string>;
  let list: string;
  let database: TestDatabase;
  before(async () => {
    ({ app, admin, list, database } = await listedApp('block'));
    // A webhook endpoint takes link.blocked: its events are written to the outbox.
    const hook = await app.inject({
      method: 'POST',
      url: '/webhooks',
      headers: admin,
      payload: { url: 'https://hooks.example.com/in', events: ['link.blocked'] },
    });
    assert.equal(hook.statusCode, 201, hook.body);
  });

  test('a new entry blocks the links it names, subdomains and rules included, and leaves the others redirecting', async () => {
    const named = {
      apex: await create(app, admin, { url: 'https://evil.example/login' }),
      sub: await create(app, admin, { url: 'https://www.Evil.example/pay?x=1' }),
      rule: await create(app, admin, {
        url: 'https://fine.example/',
        options: { targets: [{ when: { device: ['ios'] }, url: 'https://app.evil.example/ios' }] },
      }),
    };
    const clean = await create(app, admin, { url: 'https://notevil.example/' });
    // Hot in the LRU before the entry arrives: the answer must change all the same.
    for (const code of [...Object.values(named), clean]) assert.equal((await app.inject({ url: `/${code}` })).statusCode, 302);

    await listMore(app, list, 'evil.example');

    for (const [what, code] of Object.entries(named)) {
      const res = await app.inject({ url: `/${code}` });
      assert.equal(res.statusCode, 451, `${what}: ${res.body}`);
      assert.equal(res.headers.location, undefined);
      assert.equal(res.json<{ error: { code: string } }>().error.code, 'LINK_BLOCKED');
      assert.deepEqual(await details(app, admin, code), {
        ...(await details(app, admin, code)),
        state: 'blocked',
        safety: { action: 'blocked', list: 'local' },
      });
    }
    const page = await app.inject({ url: `/${named.apex}`, headers: { accept: BROWSER } });
    assert.equal(page.statusCode, 451);
    assert.match(page.body, /<h1>This link has been blocked<\/h1>/);
    assert.equal(page.headers['content-security-policy']?.toString().includes("default-src 'none'"), true);

    assert.equal((await app.inject({ url: `/${clean}` })).headers.location, 'https://notevil.example/');
    assert.equal((await details(app, admin, clean)).safety, null);

    const listed = await app.inject({ url: '/links?state=blocked', headers: admin });
    assert.deepEqual(
      listed
        .json<{ links: { code: string }[] }>()
        .links.map((link) => link.code)
        .sort(),
      Object.values(named).sort(),
    );

    const events = await withClient(database.url, (client) =>
      client.query<{ code: string; blocklist: string }>(
        `SELECT code, data->>'blocklist' AS blocklist FROM webhook_messages WHERE type = 'link.blocked' ORDER BY code`,
      ),
    );
    assert.deepEqual(
      events.rows,
      Object.values(named)
        .sort()
        .map((code) => ({ code, blocklist: 'local' })),
    );
  });

  test('a second sweep of the same entry acts on nothing again, and a change of url does not lift the block', async () => {
    const code = await create(app, admin, { url: 'https://twice.example/' });
    await listMore(app, list, 'twice.example');
    const marked = app.linkSafety.marked;
    await app.linkSafety.sweep(['twice.example']);
    assert.equal(app.linkSafety.marked, marked, 'no link is marked twice');
    const patched = await app.inject({
      method: 'PATCH',
      url: `/links/${code}`,
      headers: admin,
      payload: { url: 'https://clean.example/' },
    });
    assert.equal(patched.statusCode, 200, patched.body);
    assert.equal((await app.inject({ url: `/${code}` })).statusCode, 451, 'only an operator lifts it');
  });

  test('a URL entry names that URL alone; a rule pointing at a listed domain is refused on create and change', async () => {
    const exact = await create(app, admin, { url: 'https://shared.example/phish/page' });
    const sibling = await create(app, admin, { url: 'https://shared.example/blog' });
    appendFileSync(list, 'https://shared.example/phish/page\n');
    // The list is of domains: a URL line is malformed there, and skipped. An urls list takes it.
    await app.blocklists.refresh();
    await app.linkSafety.run();
    assert.equal((await app.inject({ url: `/${exact}` })).statusCode, 302, 'a domains list skips a URL line');

    const refused = await app.inject({
      method: 'POST',
      url: '/links',
      headers: admin,
      payload: {
        url: 'https://fine.example/',
        options: {
          split: [
            { url: 'https://fine.example/a', weight: 50 },
            { url: 'https://x.evil.example/b', weight: 50 },
          ],
        },
      },
    });
    assert.equal(refused.statusCode, 400);
    assert.deepEqual(refused.json<{ error: unknown }>().error, {
      code: 'URL_BLOCKLISTED',
      message: 'options.split[1].url is on the blocklist "local".',
      field: 'options.split[1].url',
    });
    const change = await app.inject({
      method: 'PATCH',
      url: `/links/${sibling}`,
      headers: admin,
      payload: { options: { targets: [{ when: { country: ['FR'] }, url: 'https://evil.example/fr' }] } },
    });
    assert.equal(change.statusCode, 400);
    assert.equal(change.json<{ error: { field: string } }>().error.field, 'options.targets[0].url');
  });

  test('a link changed between its judgement and its mark is left to be judged again, never passed over', async () => {
    const code = await create(app, admin, { url: 'https://racy.example/' });
    const judged = (await linksNaming(app.db, ['racy.example'], null, 1000)).find((link) => link.code === code);
    assert.ok(judged !== undefined);
    const renamed = await app.inject({ method: 'PATCH', url: `/links/${code}`, headers: admin, payload: { title: 'changed meanwhile' } });
    assert.equal(renamed.statusCode, 200, renamed.body);
    assert.deepEqual(await markUnsafe(app.db, [{ ...judged, list: 'local' }], 'blocked'), [], 'no mark on a stale judgement');
    const targets = async () =>
      (
        await withClient(database.url, (client) =>
          client.query<{ t: string[] | null }>('SELECT target_domains AS t FROM links WHERE code = $1', [code]),
        )
      ).rows[0]?.t;
    assert.equal(await targets(), null, 'it is back among the links to index and judge');
    await app.linkSafety.run();
    assert.deepEqual(await targets(), ['racy.example']);
    assert.equal((await app.inject({ url: `/${code}` })).statusCode, 302, 'judged by the lists as they are: none names it');
  });

  test('links written before the index (target_domains null) are indexed and judged in the background', async () => {
    await withClient(database.url, (client) =>
      client.query(
        `INSERT INTO links (code, url) VALUES ('old-evil', 'https://old.evil.example/a'), ('old-fine', 'https://old.fine.example/a')`,
      ),
    );
    await app.linkSafety.run();
    const rows = await withClient(database.url, (client) =>
      client.query<{ code: string; target_domains: string[]; safety: string | null }>(
        `SELECT code, target_domains, safety FROM links WHERE code IN ('old-evil', 'old-fine') ORDER BY code`,
      ),
    );
    assert.deepEqual(rows.rows, [
      { code: 'old-evil', target_domains: ['evil.example'], safety: 'blocked' },
      { code: 'old-fine', target_domains: ['fine.example'], safety: null },
    ]);
    assert.equal((await app.inject({ url: '/old-evil' })).statusCode, 451);
  });

  test('the operators’ own list acts like a configured one, and refuses creates naming "operator"', async () => {
    const code = await create(app, admin, { url: 'https://reported.example/win' });
    await withClient(database.url, (client) =>
      client.query(`INSERT INTO operator_blocklist (entry, reason) VALUES ('reported.example', 'a report')`),
    );
    await app.blocklists.refreshOperator();
    await app.linkSafety.run();
    assert.deepEqual((await details(app, admin, code)).safety, { action: 'blocked', list: 'operator' });
    const refused = await app.inject({ method: 'POST', url: '/links', headers: admin, payload: { url: 'https://a.reported.example/' } });
    assert.equal(refused.json<{ error: { message: string } }>().error.message, 'url is on the blocklist "operator".');
  });

  test('pages of the sweep: every one of 2,500 links under one entry is blocked', async () => {
    const bulk = Array.from({ length: 2500 }, (_, i) => ({ url: `https://m${i % 7}.many.example/p/${i}` }));
    for (let i = 0; i < bulk.length; i += 1000) {
      const res = await app.inject({ method: 'POST', url: '/links/bulk', headers: admin, payload: { links: bulk.slice(i, i + 1000) } });
      assert.equal(res.statusCode, 200, res.body);
    }
    await listMore(app, list, 'many.example');
    const counts = await withClient(database.url, (client) =>
      client.query<{ safety: string | null; n: string }>(
        `SELECT safety, count(*) AS n FROM links WHERE url LIKE '%.many.example/%' GROUP BY safety`,
      ),
    );
    assert.deepEqual(counts.rows, [{ safety: 'blocked', n: '2500' }]);
  });
});

describe('BLOCKLIST_ACTION=warn', () => {
  let app: FastifyInstance;
  let admin: Record<string, string>;
  let list: string;
  before(async () => {
    ({ app, admin, list } = await listedApp('warn', { BLOCKLIST_ACTION: 'warn' }));
  });

  test('a flagged link shows everyone a warning page naming the target and the list; the other links are as they were', async () => {
    const code = await create(app, admin, { url: 'https://shady.example/offer?id=<1>' });
    const clean = await create(app, admin, { url: 'https://fine.example/' });
    await listMore(app, list, 'shady.example');
    assert.deepEqual((await details(app, admin, code)).safety, { action: 'flagged', list: 'local' });
    assert.equal((await details(app, admin, code)).state, 'flagged');
    for (const headers of [{ accept: BROWSER }, {}]) {
      const res = await app.inject({ url: `/${code}`, headers });
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers.location, undefined);
      assert.equal(res.headers['cache-control'], 'no-store');
      assert.match(res.body, /<h1>Warning: this link may be unsafe<\/h1>/);
      assert.match(res.body, /<p class="target">https:\/\/shady\.example\/offer\?id=%3C1%3E<\/p>/);
      assert.match(res.body, /blocklist <strong>local<\/strong>/);
      assert.match(res.body, /href="https:\/\/shady\.example\/offer\?id=%3C1%3E" rel="noreferrer noopener">I understand the risk/);
      assert.match(res.body, new RegExp(`href="/report\\?code=${code}"`));
      assert.doesNotMatch(res.body, /<script/);
    }
    assert.equal((await app.inject({ url: `/${clean}` })).headers.location, 'https://fine.example/');
    const listed = await app.inject({ url: '/links?state=flagged', headers: admin });
    assert.deepEqual(
      listed.json<{ links: { code: string }[] }>().links.map((link) => link.code),
      [code],
    );
  });
});
