// Destination blocklists in the service (links/blocklists.ts): lists from a file and from a URL
// served here on loopback, read at start-up, refused on every create and change with
// URL_BLOCKLISTED naming the list, refreshed on demand, a failed refresh keeping the last good list.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { createApiKey } from '../../src/auth/api-keys.ts';
import { ConfigError, loadConfig } from '../../src/config/config.ts';
import { createLink, type Cleanup } from '../helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { startLoggedApp, type LogLine } from '../helpers/logs.ts';

const FEED_KEY = 'app-key-that-must-not-be-logged';

let database: TestDatabase;
let app: FastifyInstance;
let lines: LogLine[];
let admin: { authorization: string };
let server: Server;
let dir: string;
/** What the feed answers: its body, or a status to fail with. */
let feed: { status: number; body: string } = { status: 200, body: '# a hosts file\n0.0.0.0 phish.example\n' };
const cleanups: (() => Promise<void>)[] = [];
const fileScope: Cleanup = { after: (fn) => cleanups.push(fn) };

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'blocklists-'));
  // One malformed line: a plain domains list holds one word a line.
  writeFileSync(join(dir, 'local.txt'), '# ours\nevil.example\nnot one domain\n');
  writeFileSync(join(dir, 'allow.txt'), 'good.evil.example\n');
  server = createServer((_request, response) => response.writeHead(feed.status, { 'content-type': 'text/plain' }).end(feed.body));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  database = await createTestDatabase('blocklists');
  ({ app, lines } = await startLoggedApp(
    fileScope,
    database.url,
    {
      METRICS_ENABLED: 'true',
      BLOCKLISTS: `local=auto:${join(dir, 'local.txt')},feed=auto:http://127.0.0.1:${port}/hosts.txt?key=${FEED_KEY},gone=domains:${join(dir, 'missing.txt')}`,
      BLOCKLIST_ALLOW_FILE: join(dir, 'allow.txt'),
    },
    'info',
  ));
  admin = { authorization: `Bearer ${(await createApiKey(app.db, { name: 'admin', role: 'admin' })).secret}` };
});
after(async () => {
  for (const fn of cleanups) await fn();
  await database.drop();
  server.close();
  rmSync(dir, { recursive: true, force: true });
});

const blocked = (list: string) => ({ code: 'URL_BLOCKLISTED', message: `url is on the blocklist "${list}".` });
const statusOf = (name: string) => app.blocklists.status().find((list) => list.name === name);

describe('creates and changes', () => {
  test('POST /links to a listed domain’s subdomain is refused, naming the list; an allowed subdomain passes', async () => {
    const refused = await createLink(app, { url: 'https://www.evil.example/login' });
    assert.equal(refused.status, 400);
    assert.deepEqual(refused.body.error, { ...blocked('local'), field: 'url' });
    const fromFeed = await createLink(app, { url: 'https://PHISH.example./account' });
    assert.deepEqual(fromFeed.body.error, { ...blocked('feed'), field: 'url' });
    assert.equal((await createLink(app, { url: 'https://good.evil.example/' })).status, 201, 'the allow file wins');
    assert.equal((await createLink(app, { url: 'https://example.com/fine' })).status, 201);
  });

  test('PATCH to a listed URL is refused', async () => {
    const code = (await createLink(app, { url: 'https://example.com/to-change' })).body.code as string;
    const res = await app.inject({
      method: 'PATCH',
      url: `/links/${code}`,
      headers: admin,
      payload: { url: 'https://sub.phish.example/x' },
    });
    assert.equal(res.statusCode, 400);
    assert.deepEqual(res.json<{ error: unknown }>().error, { ...blocked('feed'), field: 'url' });
    const details = await app.inject({ url: `/links/${code}`, headers: admin });
    assert.equal(details.json<{ url: string }>().url, 'https://example.com/to-change', 'unchanged');
  });

  test('a bulk item and an import row are refused with the code', async () => {
    const bulk = await app.inject({
      method: 'POST',
      url: '/links/bulk',
      headers: admin,
      payload: { links: [{ url: 'https://example.com/bulk-ok' }, { url: 'https://evil.example/bulk' }] },
    });
    const results = bulk.json<{ results: { status: number; error?: { code: string; message: string } }[] }>().results;
    assert.deepEqual(
      results.map(({ status, error }) => ({ status, error })),
      [
        { status: 201, error: undefined },
        { status: 400, error: blocked('local') },
      ],
    );
    const imported = await app.inject({
      method: 'POST',
      url: '/links/import?format=auto',
      headers: { ...admin, 'content-type': 'text/csv' },
      payload: 'url\nhttps://example.com/import-ok\nhttps://phish.example/import\n',
    });
    assert.equal(imported.statusCode, 200, imported.body);
    const rows = imported.json<{ results: { status: string; error?: { code: string; message: string } }[] }>().results;
    assert.deepEqual(
      rows.map(({ status, error }) => ({ status, error })),
      [
        { status: 'created', error: undefined },
        { status: 'failed', error: blocked('feed') },
      ],
    );
  });
});

describe('loading and refreshing', () => {
  test('each list counted at start-up; one that cannot be read leaves the service up, empty, and says so', async () => {
    assert.deepEqual(
      app.blocklists.status().map(({ name, entries, malformed, failures }) => ({ name, entries, malformed, failures })),
      [
        { name: 'local', entries: 1, malformed: 1, failures: 0 },
        { name: 'feed', entries: 1, malformed: 0, failures: 0 },
        { name: 'gone', entries: 0, malformed: 0, failures: 1 },
        // The operators' own list (operator_blocklist), read from Postgres: empty here.
        { name: 'operator', entries: 0, malformed: 0, failures: 0 },
      ],
    );
    assert.equal(statusOf('gone')?.loadedAt, null);
    const loaded = lines.find((line) => line.msg === 'blocklist loaded' && line.list === 'local');
    assert.deepEqual(
      { domains: loaded?.domains, malformed: loaded?.malformed, format: loaded?.format },
      { domains: 1, malformed: 1, format: 'domains' },
    );
    const ready = (await app.inject({ url: '/readyz' })).json<{ blocklists: { name: string; lastError: string | null }[] }>();
    assert.match(ready.blocklists.find((list) => list.name === 'gone')?.lastError ?? '', /ENOENT/);
  });

  test('a refresh picks up a new entry; a feed answering 500 keeps its last good list, and says so', async () => {
    assert.equal((await createLink(app, { url: 'https://new-phish.example/' })).status, 201, 'not listed yet');
    feed = { status: 200, body: '0.0.0.0 phish.example\n0.0.0.0 new-phish.example\n' };
    await app.blocklists.refresh();
    assert.deepEqual((await createLink(app, { url: 'https://new-phish.example/again' })).body.error, { ...blocked('feed'), field: 'url' });
    const goodAt = statusOf('feed')?.loadedAt;

    feed = { status: 500, body: 'down' };
    await app.blocklists.refresh();
    assert.deepEqual((await createLink(app, { url: 'https://new-phish.example/still' })).body.error, { ...blocked('feed'), field: 'url' });
    assert.deepEqual(
      {
        entries: statusOf('feed')?.entries,
        failures: statusOf('feed')?.failures,
        lastError: statusOf('feed')?.lastError,
        loadedAt: statusOf('feed')?.loadedAt,
      },
      { entries: 2, failures: 1, lastError: 'answered 500', loadedAt: goodAt },
    );
    const metrics = (await app.inject({ url: '/metrics' })).body;
    assert.match(metrics, /^shortener_blocklist_failures\{list="feed"\} 1$/m);
    assert.match(metrics, /^shortener_blocklist_entries\{list="feed"\} 2$/m);
    const warning = lines.find((line) => line.msg?.startsWith('blocklist not loaded') && line.list === 'feed');
    assert.equal(warning?.error, 'answered 500');
    assert.ok(!JSON.stringify(lines).includes(FEED_KEY), 'the feed URL’s query is never logged');
    feed = { status: 200, body: '0.0.0.0 phish.example\n0.0.0.0 new-phish.example\n' };
  });
});

describe('settings', () => {
  const load = (BLOCKLISTS: string) => loadConfig({ DATABASE_URL: 'postgres://x@127.0.0.1/x', BLOCKLISTS });

  test('BLOCKLISTS is read as name=format:source', () => {
    assert.deepEqual(load('urlhaus=urls:https://urlhaus.abuse.ch/downloads/text/, local=domains:/etc/blocked.txt').blocklists, [
      { name: 'urlhaus', format: 'urls', source: 'https://urlhaus.abuse.ch/downloads/text/', remote: true },
      { name: 'local', format: 'domains', source: '/etc/blocked.txt', remote: false },
    ]);
  });

  for (const bad of ['a=domains:/x,a=hosts:/y', 'Upper=domains:/x', 'a=csv:/x', 'a=domains:', 'no-format', 'operator=domains:/x']) {
    test(`refuses ${bad}`, () => {
      assert.throws(
        () => load(bad),
        (err: unknown) => err instanceof ConfigError && err.message.includes('BLOCKLISTS'),
      );
    });
  }
});
